//go:build linux && !nofront

package hosting

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// lendFront serves h with a Front that keeps no answer (every request is
// lent or handed over) and, beside it, a plain net/http server; it returns
// both addresses.
func lendFront(t *testing.T, h http.Handler) (front, plain string) {
	t.Helper()
	listen := func() net.Listener {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		return ln
	}
	fl, pl := listen(), listen()
	f := &Front{Handler: &Handler{cache: &cache{}, logger: slog.Default()}, Server: &http.Server{Handler: h, ReadHeaderTimeout: time.Minute}}
	p := &http.Server{Handler: h, ReadHeaderTimeout: time.Minute}
	go f.Serve(fl)
	go p.Serve(pl)
	t.Cleanup(func() { f.Close(); p.Close() })
	return fl.Addr().String(), pl.Addr().String()
}

// exchangeAll writes req on a new connection and reads until the server
// closes it, which it must do within a generous deadline.
func exchangeAll(t *testing.T, addr, req string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(c)
	if err != nil {
		t.Fatalf("%.40q: the connection did not end: %v (read %q)", req, err, b)
	}
	return string(b)
}

var dateLine = regexp.MustCompile(`(?m)^Date: .*\r$`)

// TestFrontLendsAsNetHTTP: requests the Front lends, of every odd shape
// net/http reads without a body (its own answers to OPTIONS *, a bad Host,
// a bad escape; CONNECT; absolute-form targets; HEAD), each followed on
// the same connection by a request that closes it: the bytes the reader
// gets are net/http's alone, byte for byte but for Date, and the
// connection never hangs (OPTIONS *, answered by net/http without the
// Server's handler, once left it waiting for ever).
func TestFrontLendsAsNetHTTP(t *testing.T) {
	front, plain := lendFront(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "ok:"+r.Method+":"+r.RequestURI)
	}))
	const next = "GET /next HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
	for _, req := range []string{
		"OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n",
		"CONNECT x:443 HTTP/1.1\r\nHost: x:443\r\n\r\n",
		"GET * HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /a HTTP/1.1\r\nHost: a b\r\n\r\n",
		"GET /%zz HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET http://y/a HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /a HTTP/1.1\r\nHost: x\r\nTE: trailers\r\nKeep-Alive: timeout=5\r\n\r\n",
		"HEAD /a HTTP/1.1\r\nHost: x\r\n\r\n",
		"DELETE /a HTTP/1.1\r\nHost: x\r\nCookie: a=b\r\n\r\n",
		"M /a HTTP/1.1\r\nHost:\r\n\r\n",
	} {
		first, _, _ := strings.Cut(req, "\r\n")
		t.Run(first, func(t *testing.T) {
			got := dateLine.ReplaceAllString(exchangeAll(t, front, req+next), "Date: -")
			want := dateLine.ReplaceAllString(exchangeAll(t, plain, req+next), "Date: -")
			if got != want {
				t.Errorf("through the Front:\n%q\nnet/http alone:\n%q", got, want)
			}
		})
	}
}

// TestFrontLentConnectionEndsWhenNetHTTPEndsIt: when net/http does not
// keep a lent connection after its answer (the handler set Connection:
// close, wrote less than its Content-Length, or panicked), the reader
// sees the connection end and a pipelined request is never answered: the
// connection goes back to the Front only once net/http reports it idle.
// Many connections each, for the race that let it come back early.
func TestFrontLentConnectionEndsWhenNetHTTPEndsIt(t *testing.T) {
	for _, kind := range []string{"close", "short", "panic"} {
		t.Run(kind, func(t *testing.T) {
			front, _ := lendFront(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/x" {
					io.WriteString(w, "NEXT")
					return
				}
				switch kind {
				case "close":
					w.Header().Set("Connection", "close")
					io.WriteString(w, "ab")
				case "short":
					w.Header().Set("Content-Length", "10")
					io.WriteString(w, "abc")
				case "panic":
					w.Header().Set("Content-Length", "10")
					io.WriteString(w, "abc")
					w.(http.Flusher).Flush()
					panic(http.ErrAbortHandler)
				}
			}))
			for range 1000 {
				b := exchangeAll(t, front, "GET /x HTTP/1.1\r\nHost: x\r\n\r\nGET /next HTTP/1.1\r\nHost: x\r\n\r\n")
				if strings.Contains(b, "NEXT") {
					t.Fatalf("the pipelined request was answered after net/http ended the connection: %q", b)
				}
			}
		})
	}
}

// TestFrontLentRequestSeesTheReaderLeave: a lent request's context is
// cancelled when its reader closes the connection, as net/http's own
// background read cancels it (the docs host then writes nothing and logs
// no error).
func TestFrontLentRequestSeesTheReaderLeave(t *testing.T) {
	cancelled := make(chan bool, 1)
	started := make(chan struct{}, 1)
	front, _ := lendFront(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		started <- struct{}{}
		select {
		case <-r.Context().Done():
			cancelled <- true
		case <-time.After(30 * time.Second):
			cancelled <- false
		}
	}))
	c, err := net.Dial("tcp", front)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(c, "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
	<-started
	c.Close()
	if !<-cancelled {
		t.Error("the handler's context was not cancelled when the reader left")
	}
}
