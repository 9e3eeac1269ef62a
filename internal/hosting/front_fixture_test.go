//go:build linux && !nofront

package hosting

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/textproto"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"docsd/store"
)

// The docs host of the Front's tests, as a Host field and the path of
// project demo's latest (answersWorld) under it.
const (
	docsHost  = "docs.example.com"
	latestDir = "/docs/demo/en/latest/"
)

// frontHarness is a Front on a real loopback listener and, beside it, a
// plain net/http server (no Front) with the same Handler: what the Front
// answers is compared with what the plain server answers.
type frontHarness struct {
	t         testing.TB
	h         *Handler
	front     *Front
	addr      string // the Front's
	plainAddr string
	serveErr  chan error

	mu     sync.Mutex
	logs   []FrontRequest // the Front's Log calls, strings copied
	served []string       // method and request-target of each request the Front's Server handled
	conns  map[string]*countingConn
}

// startFront serves h with a Front (reserved its Reserved) and with a
// plain server; readHeaderTimeout is both Servers'.
func startFront(t testing.TB, h *Handler, reserved func(string) bool, readHeaderTimeout time.Duration) *frontHarness {
	t.Helper()
	return startFrontLimits(t, h, reserved, connLimits{readHeader: readHeaderTimeout})
}

// connLimits are the connection limits of both Servers of a frontHarness.
type connLimits struct {
	readHeader, read, idle time.Duration
	maxHeaderBytes         int
}

func (cl connLimits) apply(s *http.Server) *http.Server {
	s.ReadHeaderTimeout, s.ReadTimeout, s.IdleTimeout, s.MaxHeaderBytes = cl.readHeader, cl.read, cl.idle, cl.maxHeaderBytes
	return s
}

// startFrontLimits is startFront with the Servers' connection limits.
func startFrontLimits(t testing.TB, h *Handler, reserved func(string) bool, limits connLimits) *frontHarness {
	t.Helper()
	fh := &frontHarness{t: t, h: h, serveErr: make(chan error, 1), conns: make(map[string]*countingConn)}
	fh.front = &Front{Handler: h, Reserved: reserved, Log: fh.log,
		Server: limits.apply(&http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fh.mu.Lock()
			fh.served = append(fh.served, r.Method+" "+r.RequestURI)
			fh.mu.Unlock()
			h.ServeHTTP(w, r)
		})})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fh.addr = ln.Addr().String()
	fh.front.init() // before this goroutine's requests and hand-overs (TestFrontSendsFileAnswerForgottenAfterLookup)
	go func() { fh.serveErr <- fh.front.Serve(&countingListener{Listener: ln, fh: fh}) }()

	pln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fh.plainAddr = pln.Addr().String()
	plain := limits.apply(&http.Server{Handler: h, ConnContext: connContext})
	go plain.Serve(coalescingListener{pln, newPendingBufs()})
	t.Cleanup(func() {
		plain.Close()
		fh.front.Close()
		select {
		case err := <-fh.serveErr:
			fh.serveErr <- err // for a test that reads it itself
		case <-time.After(time.Minute):
			t.Error("Front.Serve did not return after Close")
		}
	})
	return fh
}

// answersFront is answersWorld served in path mode by a Front (without
// Reserved) and a plain server.
func answersFront(t *testing.T, d store.Dialect, readHeaderTimeout time.Duration) (*fixture, *frontHarness) {
	t.Helper()
	f := newFixture(t, d)
	answersWorld(f)
	return f, startFront(t, f.path, nil, readHeaderTimeout)
}

func (fh *frontHarness) log(r *FrontRequest) {
	c := *r
	c.Method, c.Host, c.Path = strings.Clone(c.Method), strings.Clone(c.Host), strings.Clone(c.Path)
	c.Remote, c.ForwardedFor = strings.Clone(c.Remote), strings.Clone(c.ForwardedFor)
	fh.mu.Lock()
	fh.logs = append(fh.logs, c)
	fh.mu.Unlock()
}

// logged returns the Front's Log calls so far.
func (fh *frontHarness) logged() []FrontRequest {
	fh.mu.Lock()
	defer fh.mu.Unlock()
	return slices.Clone(fh.logs)
}

// servedCount is how many requests the Front's Server handled: a request
// it reached was lent or handed over (counted before its answer is written).
func (fh *frontHarness) servedCount() int {
	fh.mu.Lock()
	defer fh.mu.Unlock()
	return len(fh.served)
}

// waitLogged polls until the Front logged n requests, and returns them.
// Log is called after the answer is written: the reader may have it
// first.
func (fh *frontHarness) waitLogged(n int) []FrontRequest {
	fh.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		logs := fh.logged()
		if len(logs) >= n {
			return logs
		}
		if time.Now().After(deadline) {
			fh.t.Fatalf("the Front logged %d requests, want %d", len(logs), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// serverConn returns the Front's side of the connection c, as accepted.
func (fh *frontHarness) serverConn(c net.Conn) *countingConn {
	fh.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		fh.mu.Lock()
		sc := fh.conns[c.LocalAddr().String()]
		fh.mu.Unlock()
		if sc != nil {
			return sc
		}
		if time.Now().After(deadline) {
			fh.t.Fatal("the Front never accepted the connection")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// countingListener is the Front's listener: it counts the bytes the
// Front (and then its Server) read from each connection. Its connections
// are *net.TCPConn's own for everything else (sendfile included).
type countingListener struct {
	net.Listener
	fh *frontHarness
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	cc := &countingConn{TCPConn: c.(*net.TCPConn)}
	l.fh.mu.Lock()
	l.fh.conns[c.RemoteAddr().String()] = cc
	l.fh.mu.Unlock()
	return cc, nil
}

type countingConn struct {
	*net.TCPConn
	read atomic.Int64
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.TCPConn.Read(p)
	c.read.Add(int64(n))
	return n, err
}

// waitRead polls until the server read n bytes from the connection.
func (c *countingConn) waitRead(t *testing.T, n int64) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for c.read.Load() < n {
		if time.Now().After(deadline) {
			t.Fatalf("the server read %d bytes, want %d", c.read.Load(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// rawGet is a GET request's bytes, with a Host field and fields (whole
// lines without their CRLF).
func rawGet(host, target string, fields ...string) string {
	var b strings.Builder
	b.WriteString("GET " + target + " HTTP/1.1\r\nHost: " + host + "\r\n")
	for _, f := range fields {
		b.WriteString(f + "\r\n")
	}
	b.WriteString("\r\n")
	return b.String()
}

// rawConn is a client's TCP connection whose bytes the test writes and
// reads itself.
type rawConn struct {
	t  *testing.T
	c  net.Conn
	br *bufio.Reader
}

// dialRaw connects to addr; a connection that hangs fails the test after
// a generous deadline rather than never.
func dialRaw(t *testing.T, addr string) *rawConn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(30 * time.Second))
	t.Cleanup(func() { c.Close() })
	return &rawConn{t: t, c: c, br: bufio.NewReader(c)}
}

func (rc *rawConn) send(s string) {
	rc.t.Helper()
	if _, err := io.WriteString(rc.c, s); err != nil {
		rc.t.Fatal(err)
	}
}

// answer reads one answer; head says whether it answers a HEAD request.
func (rc *rawConn) answer(head bool) *rawAnswer {
	rc.t.Helper()
	a, err := readAnswer(rc.br, head)
	if err != nil {
		rc.t.Fatalf("reading an answer: %v", err)
	}
	return a
}

// exchange sends req on a new connection to addr and reads its answer.
func exchange(t *testing.T, addr, req string) *rawAnswer {
	t.Helper()
	rc := dialRaw(t, addr)
	defer rc.c.Close()
	rc.send(req)
	return rc.answer(strings.HasPrefix(req, "HEAD "))
}

// rawAnswer is an answer as read from the wire.
type rawAnswer struct {
	status string // the status line
	header http.Header
	body   []byte
}

func (a *rawAnswer) code() int {
	n, _ := strconv.Atoi(strings.Fields(a.status + " x x")[1])
	return n
}

func readAnswer(br *bufio.Reader, head bool) (*rawAnswer, error) {
	tp := textproto.NewReader(br)
	status, err := tp.ReadLine()
	if err != nil {
		return nil, err
	}
	mh, err := tp.ReadMIMEHeader()
	if err != nil {
		return nil, err
	}
	a := &rawAnswer{status: status, header: http.Header(mh)}
	if code := a.code(); head || code < 200 || code == http.StatusNoContent || code == http.StatusNotModified {
		return a, nil
	}
	switch {
	case mh.Get("Transfer-Encoding") == "chunked":
		if a.body, err = io.ReadAll(httputil.NewChunkedReader(br)); err != nil {
			return nil, err
		}
		if line, err := tp.ReadLine(); err != nil || line != "" {
			return nil, errors.New("chunked body without its last CRLF")
		}
	case mh.Get("Content-Length") != "":
		n, err := strconv.Atoi(mh.Get("Content-Length"))
		if err != nil {
			return nil, err
		}
		a.body = make([]byte, n)
		if _, err := io.ReadFull(br, a.body); err != nil {
			return nil, err
		}
	default:
		if a.body, err = io.ReadAll(br); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// sameAnswer reports where got differs from want: the status line, any
// header field or value but Date's value (which must be there once, in
// http.TimeFormat), or the body.
func sameAnswer(t *testing.T, got, want *rawAnswer) {
	t.Helper()
	if got.status != want.status {
		t.Errorf("status line: got %q, want %q", got.status, want.status)
	}
	// net/http's own answers to malformed requests have no Date.
	if d, w := got.header["Date"], want.header["Date"]; len(d) != len(w) {
		t.Errorf("Date fields: got %q, want %d", d, len(w))
	} else if len(d) > 1 {
		t.Errorf("Date fields: got %q, want one", d)
	} else if _, err := time.Parse(http.TimeFormat, strings.Join(d, "")); len(d) == 1 && err != nil {
		t.Errorf("Date %q: %v", d[0], err)
	}
	g, w := got.header.Clone(), want.header.Clone()
	delete(g, "Date")
	delete(w, "Date")
	if !reflect.DeepEqual(g, w) {
		t.Errorf("header:\ngot  %v\nwant %v", g, w)
	}
	if !bytes.Equal(got.body, want.body) {
		t.Errorf("body: got %d bytes %.80q…, want %d bytes %.80q…", len(got.body), got.body, len(want.body), want.body)
	}
}
