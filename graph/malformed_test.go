package graph_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"docsd/graph"
	"docsd/store"
	"docsd/storetest"
)

// TestMalformedBodies checks that request bodies gqlgen cannot decode, and
// requests no transport takes, are a client error with a code, never a
// panic answered as INTERNAL nor an error without extensions.code.
func TestMalformedBodies(t *testing.T) {
	s := storetest.Open(t, store.SQLite)
	r := &graph.Resolver{Store: s}
	srv := httptest.NewServer(r.Handler())
	defer srv.Close()
	for _, tc := range []struct{ name, method, contentType, body, accept string }{
		{"bad JSON", "POST", "application/json", `{bad json`, ""},
		{"batch", "POST", "application/json", `[{"query": "{ viewer { username } }"}]`, ""},
		{"bad JSON as SSE", "POST", "application/json", `{bad`, "text/event-stream"},
		// No transport takes these: gqlgen's answer has no code, docsd's INVALID.
		{"plain text", "POST", "text/plain", `{"query": "{ viewer { username } }"}`, ""},
		{"PUT", "PUT", "application/json", `{"query": "{ viewer { username } }"}`, ""},
		{"DELETE", "DELETE", "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, srv.URL, strings.NewReader(tc.body))
			if tc.contentType != "" {
				req.Header.Set("Content-Type", tc.contentType)
			}
			if tc.accept != "" {
				req.Header.Set("Accept", tc.accept)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var out struct {
				Errors []struct {
					Message    string
					Extensions map[string]any
				}
			}
			if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
				t.Fatalf("status %d, undecodable body: %v", resp.StatusCode, err)
			}
			if resp.StatusCode != http.StatusBadRequest || len(out.Errors) == 0 {
				t.Fatalf("status %d, %+v; want 400 with an error", resp.StatusCode, out)
			}
			code := out.Errors[0].Extensions["code"]
			if code == nil || code == "INTERNAL" {
				t.Errorf("code %v (%q); want a client error code", code, out.Errors[0].Message)
			}
		})
	}
}
