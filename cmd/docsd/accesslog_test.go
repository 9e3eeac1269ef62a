package main

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"docsd/internal/storetest"
	"docsd/store"
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
	c.logger = newLogger(buf, "json")
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
// request; it should stay a small part of serving a docs page.
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

// TestAccessLineAsSlog: the JSON log's access line is byte for byte what
// slog's JSON handler writes for the same record, whether it is written
// directly (plain strings) or handed to slog (strings to escape).
func TestAccessLineAsSlog(t *testing.T) {
	at := time.Date(2026, 11, 26, 17, 4, 5, 123456789, time.UTC)
	for _, tc := range []struct {
		name   string
		direct bool // written without slog
		line   accessLine
	}{
		{"Plain", true, accessLine{time: at, method: "GET", path: "/docs/demo/en/latest/index.html", status: 200, bytes: 20160,
			duration: 1234567 * time.Nanosecond, remote: "127.0.0.1:4242", client: "127.0.0.1"}},
		{"WholeSecond", true, accessLine{time: at.Truncate(time.Second).In(time.FixedZone("X", 3600)), method: "HEAD", path: "/",
			status: 499, remote: "[::1]:1", client: "::1"}},
		{"HTMLCharacters", true, accessLine{time: at, method: "GET", path: "/docs/a<b>&c'd", status: 404, remote: "r", client: "c"}},
		{"Quote", false, accessLine{time: at, method: "GET", path: `/docs/"x"\y`, status: 404, remote: "r", client: "c"}},
		{"Control", false, accessLine{time: at, method: "GET", path: "/docs/\x01\t\n", status: 404, remote: "r", client: "c"}},
		{"NotASCII", false, accessLine{time: at, method: "GET", path: "/docs/caf\u00e9/\u2028/\xff", status: 404, remote: "r", client: "c"}},
		{"LongPath", true, accessLine{time: at, method: "POST", path: "/api/v3/" + strings.Repeat("x", 2000), status: 201, remote: "r", client: "c"}},
		{"Year10000", false, accessLine{time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), method: "GET", path: "/", remote: "r", client: "c"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := newJSONLog(io.Discard).writeLine(&tc.line); got != tc.direct {
				t.Errorf("written directly: %v, want %v", got, tc.direct)
			}
			var got, want bytes.Buffer
			logRequest(t.Context(), newJSONLog(&got), &tc.line)
			r := slog.NewRecord(tc.line.time, slog.LevelInfo, "request", 0)
			r.AddAttrs(tc.line.attrs()...)
			slog.NewJSONHandler(&want, nil).Handle(t.Context(), r)
			if got.String() != want.String() {
				t.Errorf("got  %s\nwant %s", got.String(), want.String())
			}
		})
	}
}
