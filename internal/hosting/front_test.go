//go:build linux && !nofront

package hosting

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"docsd/internal/storetest"
	"docsd/store"
)

// keptAnswer returns the answer h keeps for a GET of target with Host
// host, nil when there is none.
func keptAnswer(h *Handler, host, target string, gzip bool) *answer {
	a, _, _ := h.cache.answer(answerKey{host: host, uri: target, gzip: gzip})
	return a
}

// waitKept polls until h keeps the answer to a GET of target with Host
// host (the handler keeps it after writing it: the reader may have it
// first), and returns it.
func waitKept(t *testing.T, h *Handler, host, target string, gzip bool) *answer {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		if a := keptAnswer(h, host, target, gzip); a != nil {
			return a
		}
		if time.Now().After(deadline) {
			t.Fatalf("no answer kept for %s%s (gzip %v)", host, target, gzip)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestFrontAnswersAsNetHTTP: for each kind of answer the docs host keeps,
// once net/http answered it, the Front answers the same request itself
// (it is logged, and its Server never sees it) with what net/http answers:
// the slow path's answer and net/http's replay of the kept one, field for
// field and byte for byte, but for Date's value.
func TestFrontAnswersAsNetHTTP(t *testing.T) {
	const subHost = "demo.docs.example.io"
	cases := []struct {
		name         string
		sub          bool // the subdomain-mode host
		host, target string
		fields       []string
		status       int
		file         bool // kept as its open file, sent with sendfile(2)
	}{
		{"Page20KB", false, docsHost, latestDir + "index.html", nil, 200, false},
		{"Page1KB", false, docsHost, latestDir + "small.html", nil, 200, false},
		{"Index", false, docsHost, latestDir, nil, 200, false},
		{"PageGzip", false, docsHost, latestDir + "index.html", []string{"Accept-Encoding: gzip, deflate, br"}, 200, false},
		{"SmallPageGzip", false, docsHost, latestDir + "small.html", []string{"Accept-Encoding: gzip"}, 200, false},
		{"ScriptGzip", false, docsHost, latestDir + "_static/app.js", []string{"Accept-Encoding: gzip"}, 200, false},
		{"ScriptSentWithSendfile", false, docsHost, latestDir + "_static/app.js", nil, 200, true},
		{"Custom404", false, docsHost, latestDir + "missing.html", nil, 404, false},
		{"Custom404Gzip", false, docsHost, latestDir + "missing.html", []string{"Accept-Encoding: gzip"}, 404, false},
		{"DocsdOwn404", false, docsHost, "/docs/bare/en/latest/missing.html", nil, 404, false},
		{"MissingProject404", false, docsHost, "/docs/nothing/en/latest/", nil, 404, false},
		{"PageRedirect", false, docsHost, latestDir + "old.html", nil, 302, false},
		{"PageRedirectWithQuery", false, docsHost, latestDir + "old.html?a=1&b=%3C", nil, 302, false},
		// A body over net/http's 2 KB buffer: framed alike (Content-Length).
		{"PageRedirectLongQuery", false, docsHost, latestDir + "old.html?" + strings.Repeat("a&", 600), nil, 302, false},
		{"DirectoryRedirect", false, docsHost, latestDir + "guide", nil, 302, false},
		{"RootRedirect", false, docsHost, "/docs/demo/", nil, 302, false},
		// What the Front accepts besides Host: field names in any case,
		// white space around values, keep-alive, X-Forwarded-For.
		{"FieldsAsSent", false, docsHost, latestDir + "small.html", []string{"connection: \t keep-alive ", "x-forwarded-for: 203.0.113.7", "ACCEPT: text/html", "User-Agent: test"}, 200, false},
		{"Subdomain", true, subHost, "/en/latest/index.html", nil, 200, false},
		{"SubdomainSendfile", true, subHost, "/en/latest/_static/app.js", nil, 200, true},
		{"SubdomainRedirect", true, subHost, "/en/latest/old.html", nil, 302, false},
		{"SubdomainCustom404", true, subHost, "/en/latest/missing.html", nil, 404, false},
	}
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		for _, inject := range []bool{false, true} {
			f := newFixtureInjecting(t, d, inject)
			answersWorld(f)
			fronts := map[bool]*frontHarness{
				false: startFront(t, f.path, nil, time.Minute),
				true:  startFront(t, f.sub, nil, time.Minute),
			}
			for _, tc := range cases {
				name := tc.name
				if inject {
					name += "/Injected"
				}
				t.Run(name, func(t *testing.T) {
					fh := fronts[tc.sub]
					req := rawGet(tc.host, tc.target, tc.fields...)
					first := exchange(t, fh.plainAddr, req) // the slow path
					if first.code() != tc.status {
						t.Fatalf("net/http's status: got %d, want %d", first.code(), tc.status)
					}
					gz := false
					for _, fl := range tc.fields {
						if v, ok := strings.CutPrefix(fl, "Accept-Encoding:"); ok {
							gz = acceptsGzip(v)
						}
					}
					a := waitKept(t, fh.h, tc.host, tc.target, gz)
					if got := a.file != nil; got != tc.file {
						t.Fatalf("kept as a file: got %v, want %v", got, tc.file)
					}

					logs, served := len(fh.logged()), fh.servedCount()
					rc := dialRaw(t, fh.addr)
					rc.send(req)
					got := rc.answer(false)
					lines := fh.waitLogged(logs + 1)
					if n := fh.servedCount() - served; n != 0 {
						t.Errorf("the Front handed %d requests over, want it to answer", n)
					}
					line := lines[logs]
					fwd := ""
					if tc.name == "FieldsAsSent" {
						fwd = "203.0.113.7"
					}
					if line.Method != http.MethodGet || line.Host != tc.host || line.Path != a.path || line.Status != tc.status ||
						line.Bytes != len(got.body) || line.ForwardedFor != fwd || line.Remote != rc.c.LocalAddr().String() || line.Start.IsZero() {
						t.Errorf("logged %+v, want GET %s %s %d, %d bytes, from %s, forwarded for %q", line, tc.host, a.path, tc.status, len(got.body), rc.c.LocalAddr(), fwd)
					}
					again := exchange(t, fh.plainAddr, req) // net/http's replay
					t.Run("AsSlowPath", func(t *testing.T) { sameAnswer(t, got, first) })
					t.Run("AsReplay", func(t *testing.T) { sameAnswer(t, got, again) })

					// The connection is still the Front's: it answers again.
					rc.send(req)
					sameAnswer(t, rc.answer(false), first)
					fh.waitLogged(logs + 2)
					if n := fh.servedCount() - served; n != 0 {
						t.Errorf("the Front handed %d requests over, want it to answer", n)
					}
				})
			}
		}
	})
}

// reservedPath is the path the Front's Reserved reports in
// TestFrontHandsOver.
const reservedPath = latestDir + "guide/"

// TestFrontHandsOver: requests the Front must leave to net/http, although
// an answer is kept for their Host and target, are answered as the plain
// server answers them, by the Front's Server (lent or handed over) and not
// logged by the Front; on one connection, kept requests are the Front's,
// lent ones net/http's, everything after a hand-over net/http's, in order.
func TestFrontHandsOver(t *testing.T) {
	page := latestDir + "index.html"
	get := func(fields ...string) string { return rawGet(docsHost, page, fields...) }
	cases := []struct {
		name  string
		req   string
		prime string // a request whose answer is kept first, when not the page's
	}{
		{"Head", "HEAD " + page + " HTTP/1.1\r\nHost: " + docsHost + "\r\n\r\n", ""},
		{"Post", "POST " + page + " HTTP/1.1\r\nHost: " + docsHost + "\r\nContent-Length: 3\r\n\r\na=b", ""},
		{"LowerCaseMethod", "get " + page + " HTTP/1.1\r\nHost: " + docsHost + "\r\n\r\n", ""},
		{"Cookie", get("Cookie: a=b"), ""},
		{"Authorization", get("Authorization: Token nobody"), ""},
		{"Range", get("Range: bytes=0-9"), ""},
		{"IfNoneMatch", get(`If-None-Match: "other"`), ""},
		{"IfModifiedSince", get("If-Modified-Since: Mon, 02 Jan 2006 15:04:05 GMT"), ""},
		{"IfMatch", get(`If-Match: "other"`), ""},
		{"ContentLength", get("Content-Length: 0"), ""},
		{"Expect", get("Expect: 100-continue"), ""},
		{"Upgrade", get("Connection: Upgrade", "Upgrade: websocket"), ""},
		{"ConnectionClose", get("Connection: close"), ""},
		{"HTTP10", "GET " + page + " HTTP/1.0\r\nHost: " + docsHost + "\r\n\r\n", ""},
		{"HTTP10KeepAlive", "GET " + page + " HTTP/1.0\r\nHost: " + docsHost + "\r\nConnection: keep-alive\r\n\r\n", ""},
		{"FoldedLine", get("X-Folded: a", " b"), ""},
		{"BareLFInAField", "GET " + page + " HTTP/1.1\r\nHost: " + docsHost + "\nX-A: 1\r\n\r\n", ""},
		{"BareLFAfterRequestLine", "GET " + page + " HTTP/1.1\nHost: " + docsHost + "\r\n\r\n", ""},
		{"TwoHosts", get("Host: " + docsHost), ""},
		{"NoHost", "GET " + page + " HTTP/1.1\r\nAccept: */*\r\n\r\n", ""},
		{"TwoAcceptEncodings", get("Accept-Encoding: gzip", "Accept-Encoding: br"), ""},
		{"SpaceBeforeColon", get("X-A : 1"), ""},
		{"ControlInValue", get("X-A: 1\x01"), ""},
		{"HeaderOver4KB", get("X-Pad: " + strings.Repeat("p", 5000)), ""},
		{"AbsoluteTarget", "GET http://" + docsHost + page + " HTTP/1.1\r\nHost: " + docsHost + "\r\n\r\n", ""},
		{"NeverAnswered", rawGet(docsHost, latestDir+"never-asked.html?x"), "-"},
		{"Reserved", rawGet(docsHost, reservedPath), rawGet(docsHost, reservedPath)},
		{"NonASCIITarget", rawGet(docsHost, latestDir+"caf\xc3\xa9.html"), rawGet(docsHost, latestDir+"caf\xc3\xa9.html")},
	}
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		f := newFixture(t, d)
		answersWorld(f)
		fh := startFront(t, f.path, func(path string) bool { return path == reservedPath }, time.Minute)
		for _, target := range []string{page, latestDir + "small.html", latestDir} {
			exchange(t, fh.plainAddr, rawGet(docsHost, target))
			waitKept(t, f.path, docsHost, target, false)
		}
		// barrier is a request the Front answers: once it is logged, any
		// request the Front answered before on another connection is too.
		barrier := func(t *testing.T, logs int) []FrontRequest {
			t.Helper()
			exchange(t, fh.addr, rawGet(docsHost, latestDir))
			deadline := time.Now().Add(time.Minute)
			for {
				lines := fh.logged()
				for i := logs; i < len(lines); i++ {
					if lines[i].Path == latestDir {
						return append(lines[logs:i:i], lines[i+1:]...)
					}
				}
				if time.Now().After(deadline) {
					t.Fatal("the Front did not log the barrier request")
				}
				time.Sleep(5 * time.Millisecond)
			}
		}
		// handedOver checks that the Front's Server handled n requests
		// since it had handled served, and that the Front logged none after
		// the first logs.
		handedOver := func(t *testing.T, served, n, logs int) {
			t.Helper()
			if got := fh.servedCount() - served; got != n {
				t.Errorf("the Front's Server handled %d requests, want %d", got, n)
			}
			if extra := barrier(t, logs); len(extra) != 0 {
				t.Errorf("the Front logged %+v, want nothing but the barrier", extra)
			}
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				if tc.prime != "" && tc.prime != "-" {
					exchange(t, fh.plainAddr, tc.prime)
					waitKept(t, f.path, docsHost, strings.Fields(tc.prime)[1], false)
				}
				logs, served := len(fh.logged()), fh.servedCount()
				got := exchange(t, fh.addr, tc.req)
				reached := fh.servedCount() - served
				want := exchange(t, fh.plainAddr, tc.req)
				sameAnswer(t, got, want)
				n := 1
				if c := want.code(); c == http.StatusBadRequest || c == http.StatusRequestHeaderFieldsTooLarge {
					n = reached // net/http answers these itself
				}
				handedOver(t, served, n, logs)
			})
		}

		// A request the Front does not answer but net/http reads without a
		// body (a cookie) is lent: the connection comes back to the Front,
		// which answers the next. One whose body net/http reads (a
		// Content-Length) takes the rest of the connection with it.
		for _, tc := range []struct {
			name                 string
			middle               string
			served, frontAnswers int
		}{
			{"KeptThenLentThenKept", get("Cookie: a=b"), 1, 2},
			{"KeptThenHandedOverThenServer", get("Content-Length: 0"), 2, 1},
		} {
			t.Run(tc.name, func(t *testing.T) {
				reqs := []string{get(), tc.middle, get()}
				logs, served := len(fh.logged()), fh.servedCount()
				rc := dialRaw(t, fh.addr)
				for _, req := range reqs {
					rc.send(req)
					got := rc.answer(false)
					sameAnswer(t, got, exchange(t, fh.plainAddr, req))
				}
				fh.waitLogged(logs + tc.frontAnswers)
				handedOver(t, served, tc.served, logs+tc.frontAnswers)
			})
		}

		t.Run("Pipelined", func(t *testing.T) {
			reqs := []string{get(), rawGet(docsHost, latestDir+"small.html"), get("Accept-Encoding: gzip"), get("Cookie: a=b"), get()}
			wants := make([]*rawAnswer, len(reqs))
			for i, req := range reqs {
				wants[i] = exchange(t, fh.plainAddr, req)
			}
			waitKept(t, f.path, docsHost, page, true)
			logs, served := len(fh.logged()), fh.servedCount()
			rc := dialRaw(t, fh.addr)
			rc.send(strings.Join(reqs, ""))
			for i := range reqs {
				sameAnswer(t, rc.answer(false), wants[i])
			}
			fh.waitLogged(logs + 4)
			handedOver(t, served, 1, logs+4) // the cookie's, lent
		})

		t.Run("HeaderInSeveralWrites", func(t *testing.T) {
			req := rawGet(docsHost, latestDir+"small.html", "Accept: */*")
			want := exchange(t, fh.plainAddr, req)
			logs, served := len(fh.logged()), fh.servedCount()
			rc := dialRaw(t, fh.addr)
			sc := fh.serverConn(rc.c)
			from := 0
			for _, cut := range []int{3, 25, 50, len(req) - 2, len(req)} {
				rc.send(req[from:cut])
				sc.waitRead(t, int64(cut)) // the Front read each piece before the next is sent
				from = cut
			}
			sameAnswer(t, rc.answer(false), want)
			fh.waitLogged(logs + 1)
			if n := fh.servedCount() - served; n != 0 {
				t.Errorf("the Front handed the request over, want it to answer")
			}
		})
	})
}

// TestFrontHandsOverBareLFHeaderAtOnce: a request whose lines all end in
// a bare LF (which net/http reads) has no CRLF CRLF: the Front must hand
// it over as soon as it has it, not wait for a blank line that never
// comes. The Server's ReadHeaderTimeout is far longer than the client
// waits, and net/http alone answers at once.
func TestFrontHandsOverBareLFHeaderAtOnce(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		_, fh := answersFront(t, d, time.Hour)
		req := "GET " + latestDir + "index.html HTTP/1.1\nHost: " + docsHost + "\n\n"
		want := exchange(t, fh.plainAddr, req)
		if want.code() != http.StatusOK {
			t.Fatalf("net/http: got %q, want 200", want.status)
		}
		rc := dialRaw(t, fh.addr)
		rc.c.SetDeadline(time.Now().Add(30 * time.Second))
		rc.send(req)
		got, err := readAnswer(rc.br, false)
		if err != nil {
			t.Fatalf("no answer from the Front within 30 s (net/http answers at once): %v", err)
		}
		sameAnswer(t, got, want)
	})
}

// TestFrontForgets: what the Front replays goes with the cache: after a
// change, or Forget, the new answer is served, never the kept one; a file
// kept open for an answer is closed when the cache lets go of it, and a
// sendfile(2) under way from it still sends the whole file.
func TestFrontForgets(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		f := newFixture(t, d)
		demo := answersWorld(f)
		big := make([]byte, 32<<20) // far more than loopback's socket buffers
		for i := range big {
			big[i] = byte(i*7 + i>>12)
		}
		bp := f.project("big", "en")
		f.publish(bp, "latest", map[string]string{"big.bin": string(big)})
		fh := startFront(t, f.path, nil, time.Minute)

		// frontGet asks the Front twice (the first may be net/http's, when
		// nothing is kept), and returns the second answer, the Front's.
		frontGet := func(t *testing.T, target string) *rawAnswer {
			t.Helper()
			exchange(t, fh.addr, rawGet(docsHost, target))
			waitKept(t, f.path, docsHost, target, false)
			logs, served := len(fh.logged()), fh.servedCount()
			a := exchange(t, fh.addr, rawGet(docsHost, target))
			fh.waitLogged(logs + 1)
			if fh.servedCount() != served {
				t.Fatal("the Front handed a kept answer over")
			}
			return a
		}

		t.Run("Republished", func(t *testing.T) {
			small := latestDir + "small.html"
			if a := frontGet(t, small); !strings.Contains(string(a.body), "small") {
				t.Fatalf("before: got %q", a.body)
			}
			f.publish(demo, "latest", map[string]string{"small.html": "republished", "_static/app.js": strings.Repeat("x", 100<<10)})
			served := fh.servedCount()
			a := exchange(t, fh.addr, rawGet(docsHost, small))
			if string(a.body) != "republished" {
				t.Errorf("first after the republish: got %.80q, want the new page", a.body)
			}
			if fh.servedCount() != served+1 {
				t.Error("the Front answered after the change, want net/http")
			}
			if a := frontGet(t, small); string(a.body) != "republished" {
				t.Errorf("the Front's answer after the republish: got %.80q, want the new page", a.body)
			}
		})

		t.Run("Forget", func(t *testing.T) {
			target := latestDir + "_static/app.js"
			before := frontGet(t, target)
			a := waitKept(t, f.path, docsHost, target, false)
			if a.file == nil {
				t.Fatal("the answer is not kept as a file")
			}
			f.path.Forget()
			if err := a.file.Close(); !errors.Is(err, os.ErrClosed) {
				t.Errorf("closing the file of a forgotten answer: got %v, want %v (the cache closed it)", err, os.ErrClosed)
			}
			served := fh.servedCount()
			after := exchange(t, fh.addr, rawGet(docsHost, target))
			if fh.servedCount() != served+1 {
				t.Error("the Front answered after Forget, want net/http")
			}
			sameAnswer(t, after, before)
		})

		t.Run("SendfileUnderWay", func(t *testing.T) {
			target := "/docs/big/en/latest/big.bin"
			exchange(t, fh.plainAddr, rawGet(docsHost, target))
			a := waitKept(t, f.path, docsHost, target, false)
			if a.file == nil {
				t.Fatal("the answer is not kept as a file")
			}
			logs, served := len(fh.logged()), fh.servedCount()
			dialer := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
				var serr error
				c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
				return serr
			}}
			c, err := dialer.Dial("tcp", fh.addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(2 * time.Minute))
			rc := &rawConn{t: t, c: c}
			rc.send(rawGet(docsHost, target))
			head := make([]byte, 64<<10)
			if _, err := io.ReadFull(c, head); err != nil {
				t.Fatal(err)
			}
			if n := len(fh.logged()); n != logs {
				t.Fatal("the Front finished the answer before the reader read it: nothing under way")
			}
			f.path.Forget()
			if err := a.file.Close(); !errors.Is(err, os.ErrClosed) {
				t.Errorf("closing the file of a forgotten answer: got %v, want %v (the cache closed it)", err, os.ErrClosed)
			}
			hdrEnd := strings.Index(string(head), "\r\n\r\n")
			if hdrEnd < 0 || !strings.HasPrefix(string(head), "HTTP/1.1 200 OK\r\n") {
				t.Fatalf("answer: %.200q", head)
			}
			got := make([]byte, len(big))
			n := copy(got, head[hdrEnd+4:])
			if _, err := io.ReadFull(c, got[n:]); err != nil {
				t.Fatalf("reading the body after %d bytes: %v", n, err)
			}
			if string(got) != string(big) {
				t.Errorf("body: got %d bytes not the file's", len(got))
			}
			lines := fh.waitLogged(logs + 1)
			if l := lines[logs]; l.Bytes != len(big) || l.Status != 200 {
				t.Errorf("logged %+v, want 200 and %d bytes", l, len(big))
			}
			if fh.servedCount() != served {
				t.Error("the Front handed the request over, want it to answer")
			}
		})
	})
}

// TestFrontSendsFileAnswerForgottenAfterLookup: a file answer whose file
// the cache closes between the Front's look-up and its send (a publish
// committed meanwhile) is not sent, nothing of it is, and the request goes
// to the Server, which answers it from the new state. The Front's own
// steps (answerFor, write, then the lending frontConn.serve makes of
// errNotSent) are run here with the Forget between them, on a real TCP
// connection: the window cannot be hit on purpose from outside.
func TestFrontSendsFileAnswerForgottenAfterLookup(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		f, fh := answersFront(t, d, time.Minute)
		req := rawGet(docsHost, latestDir+"_static/app.js")
		want := exchange(t, fh.plainAddr, req)
		waitKept(t, f.path, docsHost, latestDir+"_static/app.js", false)

		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		client := dialRaw(t, ln.Addr().String())
		server, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		fc := &frontConn{f: fh.front, c: server}
		_, a := fc.answerFor([]byte(req))
		if a == nil || a.file == nil {
			t.Fatal("the Front has no file answer for the request")
		}
		f.path.Forget() // what a publish commits meanwhile
		served := fh.servedCount()
		if err := fc.write(a); err != errNotSent {
			t.Fatalf("sending the answer looked up before Forget: got %v, want errNotSent", err)
		}
		if n := len(fh.logged()); n != 0 {
			t.Errorf("the Front logged %d answers, want none (it sent nothing)", n)
		}
		back := make(chan bool, 1)
		go func() { back <- fc.lend([]byte(req)) }()
		got, err := readAnswer(client.br, false)
		if err != nil {
			t.Fatalf("the reader got no answer: %v", err)
		}
		if !<-back {
			t.Error("the connection lent for the request did not come back")
		}
		sameAnswer(t, got, want)
		if fh.servedCount() != served+1 {
			t.Errorf("the Server handled %d requests, want 1", fh.servedCount()-served)
		}
	})
}

// TestFrontShutdown: Shutdown and Close end Serve with
// http.ErrServerClosed and close every connection: one the Front serves,
// idle or in the middle of a header, and one lent to net/http and back;
// no connection is accepted after.
func TestFrontShutdown(t *testing.T) {
	for _, how := range []string{"Shutdown", "Close"} {
		t.Run(how, func(t *testing.T) {
			storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
				_, fh := answersFront(t, d, time.Minute)
				page := rawGet(docsHost, latestDir+"small.html")
				exchange(t, fh.plainAddr, page)

				silent := dialRaw(t, fh.addr)
				answered := dialRaw(t, fh.addr)
				answered.send(page)
				answered.answer(false)
				fh.waitLogged(1)
				handed := dialRaw(t, fh.addr)
				handed.send(rawGet(docsHost, latestDir+"small.html", "Cookie: a=b"))
				handed.answer(false)
				conns := map[string]*rawConn{"Silent": silent, "IdleAfterFrontAnswer": answered, "LentAndBackIdle": handed}
				if how == "Close" {
					partial := dialRaw(t, fh.addr)
					partial.send("GET " + latestDir)
					fh.serverConn(partial.c).waitRead(t, int64(len("GET "+latestDir)))
					conns["MidHeader"] = partial
				}
				fh.serverConn(silent.c)

				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				var err error
				if how == "Shutdown" {
					err = fh.front.Shutdown(ctx)
				} else {
					err = fh.front.Close()
				}
				if err != nil {
					t.Errorf("%s: %v", how, err)
				}
				select {
				case err := <-fh.serveErr:
					fh.serveErr <- err
					if !errors.Is(err, http.ErrServerClosed) {
						t.Errorf("Serve returned %v, want %v", err, http.ErrServerClosed)
					}
				case <-time.After(time.Minute):
					t.Fatal("Serve did not return")
				}
				for name, rc := range conns {
					rc.c.SetReadDeadline(time.Now().Add(time.Minute))
					b, err := io.ReadAll(rc.br)
					if err != nil && !errors.Is(err, syscall.ECONNRESET) || len(b) > 0 {
						t.Errorf("%s connection: read %q, %v; want it closed", name, b, err)
					}
				}
				if c, err := net.Dial("tcp", fh.addr); err == nil {
					c.Close()
					t.Error("a connection was accepted after " + how)
				}
			})
		})
	}
}

// TestFrontIdleConnectionTimesOut: a connection that sends nothing is
// closed once the Server's ReadHeaderTimeout has passed, as net/http
// closes it (its ReadHeaderTimeout counts from when it waits for a
// request's header, not from the header's first byte): the Front must
// not keep silent connections, and their buffers, forever.
func TestFrontIdleConnectionTimesOut(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		f := newFixture(t, d)
		fh := startFront(t, f.path, nil, 200*time.Millisecond)
		for _, addr := range []string{fh.plainAddr, fh.addr} {
			rc := dialRaw(t, addr)
			rc.c.SetReadDeadline(time.Now().Add(30 * time.Second))
			b, err := io.ReadAll(rc.br)
			if err != nil || len(b) > 0 {
				server := "the Front"
				if addr == fh.plainAddr {
					server = "net/http"
				}
				t.Errorf("%s: a silent connection got %q, %v; want it closed after ReadHeaderTimeout", server, b, err)
			}
		}
	})
}

// TestFrontIdleTimeout: a kept-alive connection whose request the Front
// answered, or lent to net/http and got back, is closed once the Server's
// IdleTimeout has passed without a next request, as net/http closes its
// own; a connection whose next request begins in time is answered.
func TestFrontIdleTimeout(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		f := newFixture(t, d)
		answersWorld(f)
		fh := startFrontLimits(t, f.path, nil, connLimits{readHeader: time.Minute, idle: 300 * time.Millisecond})
		page := rawGet(docsHost, latestDir+"small.html")
		exchange(t, fh.plainAddr, page) // kept for the Front from now on
		for _, tc := range []struct {
			name, addr, req string
		}{
			{"NetHTTP", fh.plainAddr, page},
			{"FrontAnswered", fh.addr, page},
			{"LentAndBack", fh.addr, rawGet(docsHost, latestDir+"small.html", "Cookie: a=b")},
		} {
			t.Run(tc.name, func(t *testing.T) {
				rc := dialRaw(t, tc.addr)
				rc.send(tc.req)
				rc.answer(false)
				start := time.Now()
				rc.c.SetReadDeadline(time.Now().Add(30 * time.Second))
				b, err := io.ReadAll(rc.br)
				if err != nil || len(b) > 0 {
					t.Fatalf("an idle kept-alive connection got %q, %v; want it closed after IdleTimeout", b, err)
				}
				// The server's idle wait starts once it has written the
				// answer, before this client has read it: the client sees a
				// little less than IdleTimeout, never much less.
				if waited := time.Since(start); waited < 150*time.Millisecond {
					t.Errorf("closed after %v, well before IdleTimeout", waited)
				}
			})
		}
		if n := len(fh.logged()); n != 1 {
			t.Errorf("the Front answered %d requests itself, want 1 (FrontAnswered)", n)
		}
	})
}

// TestFrontRequestParse: which request headers the Front reads as one it
// may answer, and what it reads of those.
func TestFrontRequestParse(t *testing.T) {
	const line = "GET /docs/ HTTP/1.1\r\n"
	accepted := []struct {
		name, header                 string
		target, host, enc, forwarded string
	}{
		{"Plain", line + "Host: a.example\r\n\r\n", "/docs/", "a.example", "", ""},
		{"FieldNamesAnyCase", line + "hOsT: a.example\r\naccept-ENCODING: gzip\r\nX-FORWARDED-FOR: 1.2.3.4\r\n\r\n", "/docs/", "a.example", "gzip", "1.2.3.4"},
		{"WhiteSpaceAroundValues", line + "Host:\t a.example \t\r\nAccept-Encoding:  gzip, br  \r\nX-Forwarded-For: \t1.2.3.4, 5.6.7.8 \r\n\r\n", "/docs/", "a.example", "gzip, br", "1.2.3.4, 5.6.7.8"},
		{"NoSpaceAfterColon", line + "Host:a.example\r\n\r\n", "/docs/", "a.example", "", ""},
		{"KeepAlive", line + "Host: a\r\nConnection: keep-alive\r\n\r\n", "/docs/", "a", "", ""},
		{"KeepAliveAnyCase", line + "Host: a\r\nconnection:  Keep-Alive \r\n\r\n", "/docs/", "a", "", ""},
		{"OtherFields", line + "Host: a\r\nUser-Agent: x/1\r\nAccept: */*\r\nAccept-Language: fr\r\nX-Forwarded-Proto: https\r\n\r\n", "/docs/", "a", "", ""},
		{"ValueWithHighBytes", line + "Host: a\r\nUser-Agent: caf\xc3\xa9\r\n\r\n", "/docs/", "a", "", ""},
		{"EmptyHost", line + "Host: \r\n\r\n", "/docs/", "", "", ""},
		{"Query", "GET /a?b=c&d=%20 HTTP/1.1\r\nHost: a\r\n\r\n", "/a?b=c&d=%20", "a", "", ""},
	}
	for _, tc := range accepted {
		t.Run(tc.name, func(t *testing.T) {
			var rq frontRequest
			if kind := rq.parse([]byte(tc.header)); kind != frontAnswer {
				t.Fatalf("parse(%q): got %d, want frontAnswer", tc.header, kind)
			}
			got := []string{string(rq.target), string(rq.host), string(rq.acceptEncoding), string(rq.forwardedFor)}
			if want := []string{tc.target, tc.host, tc.enc, tc.forwarded}; !slices.Equal(got, want) {
				t.Errorf("target, Host, Accept-Encoding, X-Forwarded-For: got %q, want %q", got, want)
			}
		})
	}

	// Lent: read by net/http as a request without a body on a connection
	// that stays open; the others are handed over.
	lent := map[string]bool{"TwoAcceptEncodings": true, "TwoForwardedFors": true, "Head": true, "Post": true,
		"LowerCaseMethod": true, "AbsoluteForm": true, "Asterisk": true}
	refused := map[string]string{
		"NoHost":                     line + "\r\n",
		"TwoHosts":                   line + "Host: a\r\nhost: a\r\n\r\n",
		"TwoAcceptEncodings":         line + "Host: a\r\nAccept-Encoding: gzip\r\nAccept-Encoding: br\r\n\r\n",
		"TwoForwardedFors":           line + "Host: a\r\nX-Forwarded-For: 1\r\nX-Forwarded-For: 2\r\n\r\n",
		"Head":                       "HEAD / HTTP/1.1\r\nHost: a\r\n\r\n",
		"Post":                       "POST / HTTP/1.1\r\nHost: a\r\n\r\n",
		"LowerCaseMethod":            "get / HTTP/1.1\r\nHost: a\r\n\r\n",
		"HTTP10":                     "GET / HTTP/1.0\r\nHost: a\r\n\r\n",
		"HTTP2Preface":               "PRI * HTTP/2.0\r\n\r\n",
		"AbsoluteForm":               "GET http://a/ HTTP/1.1\r\nHost: a\r\n\r\n",
		"Asterisk":                   "GET * HTTP/1.1\r\nHost: a\r\n\r\n",
		"EmptyTarget":                "GET  HTTP/1.1\r\nHost: a\r\n\r\n",
		"TwoSpaces":                  "GET  / HTTP/1.1\r\nHost: a\r\n\r\n",
		"SpaceInTarget":              "GET /a b HTTP/1.1\r\nHost: a\r\n\r\n",
		"NonASCIITarget":             "GET /caf\xc3\xa9 HTTP/1.1\r\nHost: a\r\n\r\n",
		"DELInTarget":                "GET /a\x7f HTTP/1.1\r\nHost: a\r\n\r\n",
		"BareLFAfterRequestLine":     "GET / HTTP/1.1\nHost: a\r\n\r\n",
		"BareLFInField":              line + "Host: a\nX: b\r\n\r\n",
		"BareCRInField":              line + "Host: a\rX: b\r\n\r\n",
		"FoldedLine":                 line + "Host: a\r\nX-A: b\r\n c\r\n\r\n",
		"FoldedWithTab":              line + "Host: a\r\nX-A: b\r\n\tc: d\r\n\r\n",
		"SpaceBeforeColon":           line + "Host : a\r\n\r\n",
		"NoColon":                    line + "Host: a\r\nX-A\r\n\r\n",
		"EmptyName":                  line + "Host: a\r\n: b\r\n\r\n",
		"NonTokenName":               line + "Host: a\r\nX(A): b\r\n\r\n",
		"NULInValue":                 line + "Host: a\r\nX-A: b\x00c\r\n\r\n",
		"DELInValue":                 line + "Host: a\x7f\r\n\r\n",
		"ConnectionClose":            line + "Host: a\r\nConnection: close\r\n\r\n",
		"ConnectionKeepAliveAndMore": line + "Host: a\r\nConnection: keep-alive, Upgrade\r\n\r\n",
		"BytesAfterBlankLine":        line + "Host: a\r\n\r\nx",
	}
	for _, fields := range [][]string{personalFields, conditionalFields, bodyFields} {
		for _, name := range fields {
			for _, spelled := range []string{name, strings.ToLower(name), strings.ToUpper(name)} {
				refused["Refused"+spelled] = line + "Host: a\r\n" + spelled + ": x\r\n\r\n"
				lent["Refused"+spelled] = !slices.Contains(bodyFields, name)
			}
		}
	}
	for name, header := range refused {
		t.Run(name, func(t *testing.T) {
			want := frontHandOver
			if lent[name] {
				want = frontLend
			}
			var rq frontRequest
			if kind := rq.parse([]byte(header)); kind != want {
				t.Errorf("parse(%q): got %d, want %d", header, kind, want)
			}
		})
	}
}
