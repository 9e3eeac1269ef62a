//go:build linux && !nofront

package hosting

import (
	"bytes"
	"errors"
	"io"
	"net"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"docsd/store"
)

// smugglingSeeds are raw byte streams of the request-smuggling, desync and
// parsing-confusion kinds (two framings of one body, folded and bare-LF
// lines, huge or odd chunk sizes, pipelining, methods, targets and versions
// net/http refuses or reads its own way), each alone and after a request
// the Front answers itself on the same connection.
func smugglingSeeds() []string {
	page := latestDir + "small.html"
	get := rawGet(docsHost, page)
	line := "GET " + page + " HTTP/1.1\r\n"
	host := "Host: " + docsHost + "\r\n"
	body := func(fields, payload string) string {
		return "POST " + page + " HTTP/1.1\r\n" + host + fields + "\r\n" + payload
	}
	seeds := []string{
		// Two framings of one body, and their look-alikes.
		body("Content-Length: 4\r\nTransfer-Encoding: chunked\r\n", "0\r\n\r\n"+get),
		body("Transfer-Encoding: chunked\r\nContent-Length: 4\r\n", "5c\r\nGPOST / HTTP/1.1\r\n\r\n0\r\n\r\n"),
		body("Content-Length: 0\r\nContent-Length: 0\r\n", get),
		body("Content-Length: 0\r\nContent-Length: 44\r\n", get),
		body("Content-Length: 0, 0\r\n", get),
		body("Content-Length: +0\r\n", get),
		body("Content-Length: -1\r\n", get),
		body("Content-Length: 0x0\r\n", get),
		body("Content-Length:  0 \r\n", get),
		body("Content-Length: 99999999999999999999\r\n", get),
		body("Transfer-Encoding: chunked, identity\r\n", "0\r\n\r\n"+get),
		body("Transfer-Encoding: identity, chunked\r\n", "0\r\n\r\n"+get),
		body("Transfer-Encoding: xchunked\r\n", "0\r\n\r\n"+get),
		body("Transfer-Encoding:  chunked\r\n", "0\r\n\r\n"+get),
		body("Transfer-Encoding : chunked\r\n", "0\r\n\r\n"+get),
		body("Transfer-Encoding:\tchunked\r\n", "0\r\n\r\n"+get),
		body("Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n", "0\r\n\r\n"+get),
		body("Transfer-Encoding:\r\n chunked\r\n", "0\r\n\r\n"+get),
		body("Transfer-Encoding: CHUNKED\r\n", "0\r\n\r\n"+get),
		body("Transfer-Encoding: chunked\r\n", "ffffffffffffffffffff\r\n"),
		body("Transfer-Encoding: chunked\r\n", "0000000000000000000000001\r\na\r\n0\r\n\r\n"+get),
		body("Transfer-Encoding: chunked\r\n", "1;ext=\"x\r\n\"\r\na\r\n0\r\n\r\n"+get),
		body("Transfer-Encoding: chunked\r\n", " 1\r\na\r\n0\r\n\r\n"+get),
		body("Transfer-Encoding: chunked\r\n", "-1\r\na\r\n0\r\n\r\n"+get),
		body("Transfer-Encoding: chunked\r\n", "1\na\r\n0\r\n\r\n"+get),
		body("Transfer-Encoding: chunked\r\n", "0\r\nX-Trailer: a\r\n\r\n"+get),
		body("Transfer-Encoding: chunked\r\n", "0\r\n"),
		body("Content-Length: 10\r\n", "abc"),
		body("Expect: 100-continue\r\nContent-Length: 3\r\n", "abc"+get),
		// A body on a GET, a Trailer, an Upgrade.
		line + host + "Content-Length: 5\r\n\r\nhello" + get,
		line + host + "Content-Length: 0\r\n\r\n" + get,
		line + host + "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + get,
		line + host + "Trailer: X-A\r\n\r\n",
		line + host + "Connection: Upgrade\r\nUpgrade: websocket\r\n\r\n",
		line + host + "Upgrade: h2c\r\n\r\n",
		// Folded, bare LF, bare CR, NUL and other bytes net/http refuses.
		line + host + "X-A: a\r\n b\r\n\r\n",
		line + "Host: " + docsHost + "\r\n\tother\r\n\r\n",
		line + " Host: other\r\n" + host + "\r\n",
		"GET " + page + " HTTP/1.1\nHost: " + docsHost + "\n\n",
		line + "Host: " + docsHost + "\n\r\n",
		line + host + "X-A: a\rb\r\n\r\n",
		line + host + "X-A: a\x00b\r\n\r\n",
		line + host + "X-A: a\x7fb\r\n\r\n",
		line + host + "X A: b\r\n\r\n",
		line + host + "X-A : b\r\n\r\n",
		line + host + ": b\r\n\r\n",
		line + host + "X-\x80: b\r\n\r\n",
		line + host + "X-A: caf\xc3\xa9\r\n\r\n",
		// The request line.
		"GET  " + page + " HTTP/1.1\r\n" + host + "\r\n",
		"GET " + page + "  HTTP/1.1\r\n" + host + "\r\n",
		"GET\t" + page + " HTTP/1.1\r\n" + host + "\r\n",
		"G ET " + page + " HTTP/1.1\r\n" + host + "\r\n",
		"get " + page + " HTTP/1.1\r\n" + host + "\r\n",
		"GE\x00T " + page + " HTTP/1.1\r\n" + host + "\r\n",
		"G(T " + page + " HTTP/1.1\r\n" + host + "\r\n",
		"HEAD " + page + " HTTP/1.1\r\n" + host + "\r\n",
		"OPTIONS * HTTP/1.1\r\n" + host + "\r\n",
		"CONNECT " + docsHost + ":443 HTTP/1.1\r\n" + host + "\r\n",
		"TRACE " + page + " HTTP/1.1\r\n" + host + "\r\n",
		"DELETE " + page + " HTTP/1.1\r\n" + host + "\r\n",
		"GET http://" + docsHost + page + " HTTP/1.1\r\n" + host + "\r\n",
		"GET http://" + docsHost + page + " HTTP/1.1\r\nHost: other.example\r\n\r\n",
		"GET https://other.example" + page + " HTTP/1.1\r\n" + host + "\r\n",
		"GET " + docsHost + page + " HTTP/1.1\r\n" + host + "\r\n",
		"GET * HTTP/1.1\r\n" + host + "\r\n",
		"GET " + page + "#frag HTTP/1.1\r\n" + host + "\r\n",
		"GET " + page + "?a=b HTTP/1.1\r\n" + host + "\r\n",
		"GET " + latestDir + "../latest/small.html HTTP/1.1\r\n" + host + "\r\n",
		"GET /" + page + " HTTP/1.1\r\n" + host + "\r\n",
		"GET " + strings.Replace(page, "small", "%73mall", 1) + " HTTP/1.1\r\n" + host + "\r\n",
		"GET /" + strings.Repeat("a", 5000) + " HTTP/1.1\r\n" + host + "\r\n",
		"GET " + page + " HTTP/1.0\r\n" + host + "\r\n",
		"GET " + page + " HTTP/1.0\r\n" + host + "Connection: keep-alive\r\n\r\n",
		"GET " + page + "\r\n\r\n",
		"GET " + page + " HTTP/2.0\r\n" + host + "\r\n",
		"GET " + page + " HTTP/1.10\r\n" + host + "\r\n",
		"GET " + page + " http/1.1\r\n" + host + "\r\n",
		"GET " + page + " HTTP/1.1 \r\n" + host + "\r\n",
		"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
		"\r\n" + get,
		"\r\n\r\n" + get,
		// Host.
		line + "\r\n",
		line + host + "Host: other.example\r\n\r\n",
		line + host + host + "\r\n",
		line + "Host: " + docsHost + ":80\r\n\r\n",
		line + "Host: \r\n\r\n",
		line + "Host: a b\r\n\r\n",
		line + "Host: user@" + docsHost + "\r\n\r\n",
		line + "Host: " + strings.ToUpper(docsHost) + "\r\n\r\n",
		// Fields that make an answer someone's, conditional or partial,
		// connection handling, and what a cache keys on.
		line + host + "Cookie: a=b\r\n\r\n",
		line + host + "Authorization: Token x\r\n\r\n",
		line + host + "If-None-Match: *\r\n\r\n",
		line + host + "Range: bytes=0-3\r\n\r\n",
		line + host + "Connection: close\r\n\r\n" + get,
		line + host + "Connection: keep-alive, close\r\n\r\n" + get,
		line + host + "Accept-Encoding: gzip\r\nAccept-Encoding: identity\r\n\r\n",
		line + host + "Accept-Encoding: gzip;q=0\r\n\r\n",
		line + host + "X-Forwarded-For: 1.2.3.4\r\nX-Forwarded-For: 5.6.7.8\r\n\r\n",
		line + host + "X-Big: " + strings.Repeat("b", 5000) + "\r\n\r\n",
		// Pipelines.
		get + get + get,
		get + "HEAD " + page + " HTTP/1.1\r\n" + host + "\r\n" + get,
		get + rawGet(docsHost, page, "Cookie: a=b") + get,
		get[:len(get)-2],
		get + "GET " + page,
	}
	// The framing tricks again, after a request the Front answers.
	for _, s := range seeds[:29] {
		seeds = append(seeds, get+s)
	}
	return seeds
}

// fuzzEnd ends every byte stream FuzzFront sends, so that a connection
// whose requests are all read ends at once rather than after the idle
// timeout.
const fuzzEnd = "GET /fuzz-end HTTP/1.1\r\nHost: " + docsHost + "\r\nConnection: close\r\n\r\n"

// dateField matches an answer's Date field, whose value is the second it
// was written in.
var dateField = regexp.MustCompile(`(?m)^Date: [^\r\n]*\r\n`)

// exchangeRaw writes b to a new connection to addr and returns what comes
// back until the server closes the connection (or 30 s pass), and whether
// the connection ended in a reset.
func exchangeRaw(t testing.TB, addr string, b []byte) ([]byte, bool) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	// Read from the start: a server that closes with bytes of ours unread
	// resets the connection, and the kernel then drops what we had not
	// read of its answers yet.
	got := make(chan []byte, 1)
	var rerr error
	go func() {
		var out []byte
		out, rerr = io.ReadAll(c)
		got <- out
	}()
	c.Write(b)
	out := <-got
	var ne net.Error
	if errors.As(rerr, &ne) && ne.Timeout() {
		t.Fatalf("%q: the server neither answered nor closed the connection in 30 s: got %q", b, out)
	}
	return dateField.ReplaceAll(out, []byte("Date: (the second)\r\n")), errors.Is(rerr, syscall.ECONNRESET)
}

// FuzzFront sends the same byte stream to a Front and to net/http alone,
// serving the same Handler (the answers of answersWorld kept by the
// Handler, so that the Front answers some itself), and compares what comes
// back, Date values aside. The servers' timeouts are short, so that a
// stream that leaves a request or a body unfinished ends alike on both.
//
// One difference is allowed: when a server closes a connection with bytes
// the client sent still unread, the client's kernel gets a reset and
// drops answer bytes it received and not yet handed to the reader, which
// depends on timing only. Then one output must be a prefix of the other.
func FuzzFront(f *testing.F) {
	for _, s := range smugglingSeeds() {
		f.Add([]byte(s))
	}
	fx := newFixture(f, store.SQLite)
	answersWorld(fx)
	fh := startFrontLimits(f, fx.path, nil, connLimits{readHeader: 500 * time.Millisecond, read: time.Second, idle: 500 * time.Millisecond})
	// The answers the Front may replay are kept from here on.
	for _, p := range []string{"small.html", "index.html", "_static/app.js", "guide/", "old.html", "missing.html"} {
		exchangeRaw(f, fh.plainAddr, []byte(rawGet(docsHost, latestDir+p)+rawGet(docsHost, latestDir+p, "Accept-Encoding: gzip", "Connection: close")))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		sameExchange(t, fh, append(b, fuzzEnd...))
	})
}

// sameExchange sends b to the Front and to net/http alone at the same time
// and checks that the answers are the same (FuzzFront).
func sameExchange(t *testing.T, fh *frontHarness, b []byte) {
	t.Helper()
	type result struct {
		out   []byte
		reset bool
	}
	plain := make(chan result, 1)
	go func() {
		out, reset := exchangeRaw(t, fh.plainAddr, b)
		plain <- result{out, reset}
	}()
	got, gotReset := exchangeRaw(t, fh.addr, b)
	r := <-plain
	want, wantReset := r.out, r.reset
	if bytes.Equal(got, want) {
		return
	}
	if (gotReset || wantReset) && (bytes.HasPrefix(got, want) || bytes.HasPrefix(want, got)) {
		return
	}
	t.Errorf("sent %q\nthe Front answered (reset %t):\n%q\nnet/http answered (reset %t):\n%q", b, gotReset, got, wantReset, want)
}

// TestFrontHeaderCutShort: a request line or field cut short when the
// header's time is up is net/http's to answer (400: its reader takes the
// part of a line it has for the line), first on its connection or after
// one the Front answered, not closed unanswered. FuzzFront found it.
func TestFrontHeaderCutShort(t *testing.T) {
	f := newFixture(t, store.SQLite)
	answersWorld(f)
	fh := startFrontLimits(t, f.path, nil, connLimits{readHeader: 300 * time.Millisecond, idle: time.Minute})
	get := rawGet(docsHost, latestDir+"small.html")
	exchange(t, fh.plainAddr, get) // kept for the Front from now on
	for _, b := range []string{
		"GET " + latestDir + "small.html",
		get + "GET " + latestDir + "small.html",
		get + "GET " + latestDir + "small.html HTTP/1.1\r\nHost: " + docsHost,
	} {
		sameExchange(t, fh, []byte(b))
	}
	if n := len(fh.logged()); n != 2 {
		t.Errorf("the Front answered %d requests itself, want 2", n)
	}
}
