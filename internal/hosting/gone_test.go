package hosting

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"docsd/internal/artifacts"
	"docsd/internal/errs"
	"docsd/store"
)

// stallingFiles is Files that, for the version named stall, waits until
// the request is given up before answering, as a slow read of the store or
// the bucket does when the reader disconnects meanwhile.
type stallingFiles struct {
	Files
	stall   string
	entered chan struct{}
}

func (s *stallingFiles) OpenHTML(ctx context.Context, project, version string) (artifacts.Tree, error) {
	if version == s.stall {
		close(s.entered)
		<-ctx.Done()
		return nil, errs.Wrap(errs.Internal, "stallingFiles.OpenHTML", ctx.Err())
	}
	return s.Files.OpenHTML(ctx, project, version)
}

// syncBuffer is a log destination the handler and the test share.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestReaderDisconnects: a reader that closes its connection before the
// answer is complete is not a server error: nothing answers 500
// and nothing is logged, whether the reader left while the request was
// still looking things up or while the body was being sent.
func TestReaderDisconnects(t *testing.T) {
	for _, d := range []store.Dialect{store.SQLite, store.Postgres} {
		t.Run(string(d), func(t *testing.T) {
			f := newFixture(t, d)
			demo := f.project("demo", "en")
			big := make([]byte, 8<<20) // larger than any socket buffer
			rand.Read(big)
			f.publish(demo, "latest", map[string]string{"index.html": "demo", "big.bin": string(big)})
			f.publish(demo, "slow", map[string]string{"index.html": "slow"})

			for _, tc := range []struct {
				name, path string
				readBody   bool // the reader gets the headers and some body before leaving
			}{
				{"WhileLookingUp", "/docs/demo/en/slow/index.html", false},
				{"WhileSending", "/docs/demo/en/latest/big.bin", true},
			} {
				t.Run(tc.name, func(t *testing.T) {
					files := &stallingFiles{Files: f.arts, stall: "slow", entered: make(chan struct{})}
					var logs syncBuffer
					h := New(f.s, files, Config{URLs: pathURLs}, slog.New(slog.NewTextHandler(&logs, nil)))
					done := make(chan int, 1)
					srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						rec := &statusWriter{ResponseWriter: w}
						h.ServeHTTP(rec, r)
						done <- rec.status
					}))
					defer srv.Close()

					conn, err := net.Dial("tcp", srv.Listener.Addr().String())
					if err != nil {
						t.Fatal(err)
					}
					fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: docs.example.com\r\n\r\n", tc.path)
					if tc.readBody {
						resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
						if err != nil {
							t.Fatal(err)
						}
						if resp.StatusCode != http.StatusOK {
							t.Fatalf("status %d, want 200", resp.StatusCode)
						}
						if _, err := resp.Body.Read(make([]byte, 1024)); err != nil {
							t.Fatal(err)
						}
					} else {
						waitFor(t, files.entered)
					}
					conn.Close()

					var status int
					select {
					case status = <-done:
					case <-time.After(time.Minute):
						t.Fatal("the handler did not return after the reader left")
					}
					if status >= 500 {
						t.Errorf("status %d written for a reader that left", status)
					}
					if got := logs.String(); strings.Contains(got, "level=ERROR") {
						t.Errorf("logged an error for a reader that left:\n%s", got)
					}
				})
			}
		})
	}
}

func waitFor(t *testing.T, c <-chan struct{}) {
	t.Helper()
	select {
	case <-c:
	case <-time.After(time.Minute):
		t.Fatal("timed out waiting")
	}
}

// statusWriter remembers the status a handler wrote.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
