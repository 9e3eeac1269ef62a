//go:build linux && !nofront

package hosting

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"sync"
	"testing"
	"time"
)

// TestCoalescingConn: bodies of every size around net/http's buffers,
// written with writeBody on a coalescingConn, reach a real
// client whole and in order, one after another on one kept-alive
// connection, and a HEAD request gets the header alone.
func TestCoalescingConn(t *testing.T) {
	sizes := []int{0, 100, 2047, 2048, 3000, 3900, 4096, 4097, 8192, 20 << 10, 300 << 10}
	bodies := make(map[string][]byte)
	for _, n := range sizes {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('a' + (i*7+n)%26)
		}
		bodies["/"+strconv.Itoa(n)] = b
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body := bodies[r.URL.Path]
			w.Header()["Content-Type"] = []string{"application/octet-stream"}
			writeWholeHeader(w, []string{strconv.Itoa(len(body))}, nil)
			if r.Method != http.MethodHead {
				writeBody(w, r, body)
			}
		}),
		ConnContext: connContext,
	}
	go srv.Serve(coalescingListener{ln, newPendingBufs()})
	t.Cleanup(func() { srv.Close() })

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	var conns int
	trace := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) {
		if !i.Reused {
			conns++
		}
	}}
	ctx, cancel := context.WithTimeout(httptrace.WithClientTrace(context.Background(), trace), time.Minute)
	defer cancel()
	for round := 0; round < 2; round++ {
		for _, n := range sizes {
			for _, method := range []string{http.MethodGet, http.MethodHead} {
				path := "/" + strconv.Itoa(n)
				req, _ := http.NewRequestWithContext(ctx, method, "http://"+ln.Addr().String()+path, nil)
				resp, err := client.Do(req)
				if err != nil {
					t.Fatalf("%s %s: %v", method, path, err)
				}
				got, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				want := bodies[path]
				if method == http.MethodHead {
					want = nil
				}
				if err != nil || !bytes.Equal(got, want) || resp.ContentLength != int64(n) {
					t.Errorf("%s %s: %d bytes (Content-Length %d), err %v; want the %d bytes sent", method, path, len(got), resp.ContentLength, err, n)
				}
			}
		}
	}
	if conns != 1 {
		t.Errorf("%d connections opened, want 1 kept alive", conns)
	}
}

// coalescingListener makes coalescingConns of the connections it accepts,
// as the Front's hand-over does: net/http's answers as the docs listener
// wrote them before the Front.
type coalescingListener struct {
	net.Listener
	pendingBufs *sync.Pool
}

func (l coalescingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &coalescingConn{Conn: c, bufPool: l.pendingBufs}, nil
}
