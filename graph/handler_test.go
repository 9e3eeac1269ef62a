package graph_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"docsd/graph"
	"docsd/internal/storetest"
	"docsd/store"
)

// post sends a GraphQL request to the public endpoint and decodes the answer.
func post(t *testing.T, srv *httptest.Server, auth, query string) (int, map[string]any) {
	t.Helper()
	resp, out := postRaw(t, srv, auth, query)
	return resp.StatusCode, out
}

// TestPublicEndpoint checks /graphql: token authentication with Read the
// Docs' exact messages, anonymous reads, introspection and the
// complexity limit.
func TestPublicEndpoint(t *testing.T) {
	s := storetest.Open(t, store.SQLite)
	ctx := context.Background()
	alice, _ := s.CreateUser(ctx, "alice", "", false)
	key, _, _ := s.CreateToken(ctx, alice.ID)
	carol, _ := s.CreateUser(ctx, "carol", "", false)
	carolKey, _, _ := s.CreateToken(ctx, carol.ID)
	s.SetUserActive(ctx, "carol", false)
	r := &graph.Resolver{Store: s, Settings: graph.Settings{Endpoint: graph.Endpoint{Limits: graph.Limits{MaxCost: 200}}}}
	mux := http.NewServeMux()
	mux.Handle("/graphql", r.Handler())
	srv := httptest.NewServer(mux)
	defer srv.Close()

	for _, tc := range []struct {
		auth, wantUser, wantError string
	}{
		{"", "", ""},
		{"Bearer " + key, "", ""},
		{"Token " + key, "alice", ""},
		{"token " + key, "alice", ""},
		{"TOKEN " + key, "alice", ""},
		{"Token", "", "Invalid token header. No credentials provided."},
		{"Token a b", "", "Invalid token header. Token string should not contain spaces."},
		{"Token ключ", "", "Invalid token header. Token string should not contain invalid characters."},
		{"Token 0000000000000000000000000000000000000000", "", "Invalid token."},
		{"Token " + carolKey, "", "User inactive or deleted."},
	} {
		status, out := post(t, srv, tc.auth, `{ viewer { username } }`)
		if tc.wantError != "" {
			errsList, _ := out["errors"].([]any)
			if status != 401 || len(errsList) != 1 || dig(errsList, 0, "message") != tc.wantError || dig(errsList, 0, "extensions", "code") != "UNAUTHENTICATED" {
				t.Errorf("%q: status %d, %v; want 401 UNAUTHENTICATED %q", tc.auth, status, out, tc.wantError)
			}
			continue
		}
		got := dig(out, "data", "viewer", "username")
		if status != 200 || (tc.wantUser == "" && dig(out, "data", "viewer") != nil) || (tc.wantUser != "" && got != tc.wantUser) {
			t.Errorf("%q: status %d, %v; want viewer %q", tc.auth, status, out, tc.wantUser)
		}
	}

	_, out := post(t, srv, "", `{ __schema { queryType { name } } }`)
	if dig(out, "data", "__schema", "queryType", "name") != "Query" {
		t.Errorf("introspection: %v", out)
	}
	deep := `{ projects(limit: 100) { nodes { versions(limit: 100) { nodes { builds(limit: 100) { nodes { commands { output } } } } } } } }`
	_, out = post(t, srv, "", deep)
	if dig(out, "errors", 0, "extensions", "code") != "QUERY_TOO_COMPLEX" {
		t.Errorf("complexity limit: %v", out)
	}
}

// TestNoDefer checks that `@defer`, which no transport delivers, is
// neither advertised nor accepted, and that introspection lists exactly
// the directives a client can meet: the built-in ones and @maintainersOnly
// (which says why a field may be null), not gqlgen's @goField.
func TestNoDefer(t *testing.T) {
	srv, _ := newEndpoint(t, graph.Endpoint{})
	_, out := post(t, srv, "", `{ __schema { directives { name } } }`)
	dirs, _ := dig(out, "data", "__schema", "directives").([]any)
	var names []string
	for _, d := range dirs {
		names = append(names, dig(d, "name").(string))
	}
	if want := []string{"deprecated", "include", "maintainersOnly", "oneOf", "skip", "specifiedBy"}; !slices.Equal(names, want) {
		t.Errorf("directives %v, want %v", names, want)
	}
	_, out = post(t, srv, "", `{ ... @defer { viewer { username } } }`)
	if msg, _ := dig(out, "errors", 0, "message").(string); !strings.Contains(msg, "defer") || dig(out, "data") != nil {
		t.Errorf("a query with @defer: %v; want an unknown-directive error", out)
	}
}
