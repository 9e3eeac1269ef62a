package main

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"docsd/store"
	"docsd/storetest"
)

// accessLogApp is an app whose log is JSON in buf (io.Discard when nil).
func accessLogApp(t testing.TB, buf io.Writer) *app {
	t.Helper()
	if buf == nil {
		buf = io.Discard
	}
	c := &command{stdout: io.Discard, stderr: io.Discard}
	fs, env := c.flags("serve", "serve")
	if _, err := c.parse(fs, env, []string{"--data-dir", t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	c.logger = slog.New(slog.NewJSONHandler(buf, nil))
	a, err := c.wire(storetest.Open(t, store.SQLite))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.notifier.Close() })
	return a
}

// TestAccessLogLine: one line per request with its method, path, status,
// bytes, duration, remote and client.
func TestAccessLogLine(t *testing.T) {
	var buf bytes.Buffer
	a := accessLogApp(t, &buf)
	h := a.logRequests(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTeapot)
		w.Write([]byte("short and stout"))
	}))
	r := httptest.NewRequest("GET", "/docs/demo/en/latest/", nil)
	r.RemoteAddr = "192.0.2.7:4242"
	h.ServeHTTP(httptest.NewRecorder(), r)
	var line map[string]any
	if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
		t.Fatalf("log %q: %v", buf.String(), err)
	}
	for k, want := range map[string]any{"level": "INFO", "msg": "request", "method": "GET", "path": "/docs/demo/en/latest/",
		"status": float64(418), "bytes": float64(15), "remote": "192.0.2.7:4242", "client": "192.0.2.7"} {
		if line[k] != want {
			t.Errorf("%s = %v, want %v", k, line[k], want)
		}
	}
	for _, k := range []string{"time", "duration"} {
		if _, ok := line[k]; !ok {
			t.Errorf("no %s in %v", k, line)
		}
	}
}

// BenchmarkAccessLog is the cost the access log and metrics add to every
// request (issue 14: about a tenth of serving a docs page).
func BenchmarkAccessLog(b *testing.B) {
	a := accessLogApp(b, nil)
	h := a.logRequests(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	r := httptest.NewRequest("GET", "/docs/demo/en/latest/index.html", nil)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		w := httptest.NewRecorder()
		for pb.Next() {
			h.ServeHTTP(w, r)
		}
	})
}
