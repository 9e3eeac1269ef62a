package graph_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"docsd/graph"
	"docsd/internal/storetest"
	"docsd/store"
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
		// The message names the fault without repeating the body.
		{"long bad JSON", "POST", "application/json", "{bad " + strings.Repeat("x", 200_000), ""},
		{"long JSON array", "POST", "application/json", "[" + strings.Repeat(`"x",`, 50_000) + `"x"]`, ""},
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
			resp, out := doHTTP(t, req)
			if resp.StatusCode != http.StatusBadRequest || len(out.Errors) == 0 {
				t.Fatalf("status %d, %+v; want 400 with an error", resp.StatusCode, out)
			}
			code := out.Errors[0].Extensions["code"]
			if code == nil || code == "INTERNAL" {
				t.Errorf("code %v (%q); want a client error code", code, out.Errors[0].Message)
			}
			if msg := out.Errors[0].Message; len(msg) > 200 {
				t.Errorf("message of %d bytes (%.80q…); want the fault named, not the body repeated", len(msg), msg)
			}
		})
	}
}

// TestMalformedGET checks GET's own malformed requests: parameters that
// are not JSON objects are INVALID (400) on that parameter, and a mutation
// is GRAPHQL_VALIDATION_FAILED with 405 and `Allow: POST` (GraphQL over
// HTTP: GET must not run a mutation); a query still runs.
func TestMalformedGET(t *testing.T) {
	s := storetest.Open(t, store.SQLite)
	r := &graph.Resolver{Store: s}
	srv := httptest.NewServer(r.Handler())
	defer srv.Close()
	for _, tc := range []struct {
		name, params string
		status       int
		code, field  string
	}{
		{"variables not JSON", "query={viewer{username}}&variables=notjson", http.StatusBadRequest, "INVALID", "variables"},
		{"variables not an object", "query={viewer{username}}&variables=[1]", http.StatusBadRequest, "INVALID", "variables"},
		{"extensions not JSON", "query={viewer{username}}&extensions=bad", http.StatusBadRequest, "INVALID", "extensions"},
		{"mutation", "query=" + url.QueryEscape(`mutation { deleteProject(input: {slug: "x"}) { deletedId } }`), http.StatusMethodNotAllowed, "GRAPHQL_VALIDATION_FAILED", ""},
		{"named mutation among queries", "operationName=m&query=" + url.QueryEscape(`query q { viewer { username } } mutation m { deleteProject(input: {slug: "x"}) { deletedId } }`), http.StatusMethodNotAllowed, "GRAPHQL_VALIDATION_FAILED", ""},
		{"query still works", "query=" + url.QueryEscape(`{ viewer { username } }`), http.StatusOK, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", srv.URL+"?"+tc.params, nil)
			resp, out := doHTTP(t, req)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, %+v; want %d", resp.StatusCode, out, tc.status)
			}
			if tc.code == "" {
				if len(out.Errors) != 0 || out.Data == nil {
					t.Errorf("got %+v, want data and no errors", out)
				}
				return
			}
			if len(out.Errors) != 1 || out.Errors[0].Extensions["code"] != tc.code {
				t.Fatalf("got %+v, want one %s error", out, tc.code)
			}
			if tc.field != "" {
				if fields, _ := out.Errors[0].Extensions["fields"].(map[string]any); fields[tc.field] == nil {
					t.Errorf("fields %v, want one on %s", out.Errors[0].Extensions["fields"], tc.field)
				}
			}
			if tc.status == http.StatusMethodNotAllowed && resp.Header.Get("Allow") != "POST" {
				t.Errorf("Allow %q, want POST", resp.Header.Get("Allow"))
			}
		})
	}
}

// httpAnswer is a GraphQL response as the malformed-request tests read it.
type httpAnswer struct {
	Errors []struct {
		Message    string
		Extensions map[string]any
	}
	Data map[string]any
}

// doHTTP sends req and decodes its answer, failing the test when the body
// is not a GraphQL response.
func doHTTP(t *testing.T, req *http.Request) (*http.Response, httpAnswer) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out httpAnswer
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("status %d, undecodable body: %v", resp.StatusCode, err)
	}
	return resp, out
}
