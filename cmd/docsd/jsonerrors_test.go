package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"docsd/store"
)

// TestGoErrorsUnderAPIAreJSON sends requests net/http refuses before any
// handler runs: under /api/ the answer is JSON, elsewhere Go's plain text.
func TestGoErrorsUnderAPIAreJSON(t *testing.T) {
	s, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "docsd.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a, _ := testApp(t, s)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: a.handler(), MaxHeaderBytes: 4096}
	go srv.Serve(jsonErrorListener{ln})
	t.Cleanup(func() { srv.Close() })

	big := strings.Repeat("x", 16<<10)
	for _, tc := range []struct {
		name, request string
		status        int
		json          bool
	}{
		{"header too large", "GET /api/v3/projects/ HTTP/1.1\r\nHost: x\r\nX-Big: " + big + "\r\n\r\n", 431, true},
		{"no Host", "GET /api/v2/project/ HTTP/1.1\r\n\r\n", 400, true},
		{"bad header line", "GET /api/v3/ HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n", 400, true},
		{"docs path", "GET /docs/x/ HTTP/1.1\r\n\r\n", 400, false},
		{"good API request", "GET /api/v2/project/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 200, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			io.WriteString(conn, tc.request)
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			isJSON := resp.Header.Get("Content-Type") == "application/json"
			if resp.StatusCode != tc.status || isJSON != tc.json || (tc.json && !strings.HasPrefix(string(body), "{")) {
				t.Errorf("got %d %q %.100q; want %d, JSON %v", resp.StatusCode, resp.Header.Get("Content-Type"), body, tc.status, tc.json)
			}
		})
	}
}
