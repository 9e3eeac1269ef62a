package graph_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/coder/websocket"

	"docsd/graph"
	"docsd/internal/ratelimit"
	"docsd/internal/storetest"
	"docsd/store"
)

// newEndpoint serves a Resolver's /graphql over a real SQLite store with
// ep as its endpoint configuration.
func newEndpoint(t testing.TB, ep graph.Endpoint) (*httptest.Server, *store.Store) {
	t.Helper()
	s := storetest.Open(t, store.SQLite)
	r := &graph.Resolver{Store: s, Settings: graph.Settings{Endpoint: ep}}
	mux := http.NewServeMux()
	mux.Handle("/graphql", r.Handler())
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, s
}

// postRaw sends a GraphQL POST and returns the response with its decoded
// body.
func postRaw(t testing.TB, srv *httptest.Server, auth, query string) (*http.Response, map[string]any) {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"query": query})
	req, _ := http.NewRequest("POST", srv.URL+"/graphql", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	return send(t, req)
}

// send does req and returns the response with its decoded JSON body.
func send(t testing.TB, req *http.Request) (*http.Response, map[string]any) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("decoding the answer (status %d): %v", resp.StatusCode, err)
	}
	return resp, out
}

// repeat joins n copies of item made by f(i) with spaces.
func repeat(n int, f func(i int) string) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = f(i)
	}
	return strings.Join(parts, " ")
}

// Abusive documents: many fragment spreads, many aliases, a fragment bomb.
// Without the limits each costs seconds and gigabytes to execute.
var (
	fragments2000 = "{ " + repeat(2000, func(int) string { return "...F" }) + " } fragment F on Query { projects { nodes { slug name } } }"
	fragments4000 = "{ " + repeat(4000, func(int) string { return "...F" }) + " } fragment F on Query { projects { nodes { slug name } } }"
	aliases9990   = "{ " + repeat(9990, func(i int) string { return fmt.Sprintf("a%d: __typename", i) }) + " }"
)

// fragmentBomb is a short document whose expansion doubles at each of n
// fragments: 2^n fields.
func fragmentBomb(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "{ ...F%d } fragment F0 on Query { viewer { username } }", n)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, " fragment F%d on Query { ...F%d ...F%d }", i, i-1, i-1)
	}
	return b.String()
}

// TestEndpointLimits checks that operations over a limit get
// QUERY_TOO_COMPLEX with the limit in extensions.details, before they are
// validated, and that ordinary ones pass.
func TestEndpointLimits(t *testing.T) {
	srv, _ := newEndpoint(t, graph.Endpoint{})
	deep := "{ __type(name: \"Query\") { " + strings.Repeat("ofType { ", 20) + "name" + strings.Repeat(" }", 20) + " } }"
	wide := `{ projects(limit: 100) { nodes { versions(limit: 100) { nodes { builds(limit: 100) { nodes { id } } } } } } }`
	aliases := "{ " + repeat(200, func(i int) string {
		return fmt.Sprintf("a%d: projects(limit: 100) { nodes { slug } }", i)
	}) + " }"
	for _, tc := range []struct {
		name, query string
		limit       string // "" when the query must run
	}{
		{"ordinary", `{ viewer { username } projects(limit: 5) { totalCount nodes { slug } } }`, ""},
		{"introspection", `{ __schema { types { name fields { name args { name type { name ofType { name ofType { name } } } } } } } }`, ""},
		{"2,000 fragment spreads", fragments2000, "token count"},
		{"4,000 fragment spreads", fragments4000, "token count"},
		{"9,990 aliases", aliases9990, "token count"},
		{"too large", "{ viewer { username } } " + strings.Repeat("#", graph.DefaultMaxBytes), "request size in bytes"},
		{"too deep", deep, "depth"},
		{"page sizes multiply", wide, "cost"},
		{"aliases count", aliases, "cost"},
		{"fragments count as expanded", fragmentBomb(40), "cost"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, out := postRaw(t, srv, "", tc.query)
			code := dig(out, "errors", 0, "extensions", "code")
			if tc.limit == "" {
				if code != nil || dig(out, "data") == nil {
					t.Fatalf("status %d, %v; want data and no error", resp.StatusCode, out)
				}
				return
			}
			if code != "QUERY_TOO_COMPLEX" || dig(out, "errors", 0, "extensions", "details", "limit") != tc.limit || dig(out, "data") != nil {
				t.Fatalf("status %d, %v; want QUERY_TOO_COMPLEX over the %s limit", resp.StatusCode, out, tc.limit)
			}
			details := dig(out, "errors", 0, "extensions", "details").(map[string]any)
			if details["actual"].(float64) <= details["maximum"].(float64) {
				t.Errorf("details %v: actual must be over maximum", details)
			}
		})
	}
}

// TestEndpointLimitsSettings checks that the limits are settings: lower
// ones refuse what the defaults allow, negative ones turn a limit off,
// and GET requests are measured too.
func TestEndpointLimitsSettings(t *testing.T) {
	srv, _ := newEndpoint(t, graph.Endpoint{Limits: graph.Limits{MaxTokens: 5, MaxCost: -1, MaxDepth: -1}})
	_, out := postRaw(t, srv, "", `{ viewer { username } }`)
	if dig(out, "errors", 0, "extensions", "details", "limit") != "token count" || dig(out, "errors", 0, "extensions", "details", "actual") != 6.0 {
		t.Errorf("6 tokens over a limit of 5: %v", out)
	}
	resp, err := http.Get(srv.URL + "/graphql?query=" + url.QueryEscape(`{ viewer { username } }`))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	json.NewDecoder(resp.Body).Decode(&got)
	resp.Body.Close()
	if dig(got, "errors", 0, "extensions", "code") != "QUERY_TOO_COMPLEX" {
		t.Errorf("GET over the token limit: %v", got)
	}

	srv, _ = newEndpoint(t, graph.Endpoint{Limits: graph.Limits{MaxCost: -1, MaxDepth: -1}})
	wide := `{ projects(limit: 100) { nodes { versions(limit: 100) { nodes { builds(limit: 100) { nodes { id } } } } } } }`
	if _, out := postRaw(t, srv, "", wide); dig(out, "errors") != nil {
		t.Errorf("no cost limit: %v", out)
	}
}

// BenchmarkRejectAbusiveDocuments times the refusal of the abusive documents, which
// must stay cheap.
func BenchmarkRejectAbusiveDocuments(b *testing.B) {
	srv, _ := newEndpoint(b, graph.Endpoint{})
	for name, q := range map[string]string{"fragments2000": fragments2000, "fragments4000": fragments4000, "aliases9990": aliases9990, "bomb40": fragmentBomb(40)} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, out := postRaw(b, srv, "", q); dig(out, "errors", 0, "extensions", "code") != "QUERY_TOO_COMPLEX" {
					b.Fatalf("%v", out)
				}
			}
		})
	}
}

// TestEndpointThrottle checks the request budgets: signed-in callers
// share theirs with whoever else holds the same Limiter (API v3),
// anonymous callers are counted per client address, and a spent budget
// is a 429 with Retry-After and a THROTTLED error.
func TestEndpointThrottle(t *testing.T) {
	users, _ := ratelimit.New("3/minute")
	anonymous, _ := ratelimit.New("2/minute")
	addr := "192.0.2.1"
	srv, s := newEndpoint(t, graph.Endpoint{Users: users, Anonymous: anonymous, ClientAddr: func(*http.Request) string { return addr }})
	ctx := context.Background()
	alice, _ := s.CreateUser(ctx, "alice", "", false)
	key, _, _ := s.CreateToken(ctx, alice.ID)

	throttled := func(who, auth string) {
		t.Helper()
		resp, out := postRaw(t, srv, auth, `{ viewer { username } }`)
		if resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" || dig(out, "errors", 0, "extensions", "code") != "THROTTLED" ||
			!strings.HasPrefix(dig(out, "errors", 0, "message").(string), "Request was throttled. Expected available in ") {
			t.Errorf("%s over budget: status %d, Retry-After %q, %v; want 429 THROTTLED", who, resp.StatusCode, resp.Header.Get("Retry-After"), out)
		}
	}
	passes := func(who, auth string) {
		t.Helper()
		if resp, out := postRaw(t, srv, auth, `{ viewer { username } }`); resp.StatusCode != 200 || dig(out, "errors") != nil {
			t.Errorf("%s within budget: status %d, %v", who, resp.StatusCode, out)
		}
	}
	// Another surface (API v3) spends one of alice's three requests.
	if users.Wait(ratelimit.UserKey(alice.ID)) != 0 {
		t.Fatal("the budget is spent before the test")
	}
	passes("alice", "Token "+key)
	passes("alice", "Token "+key)
	throttled("alice", "Token "+key)
	passes("anonymous", "")
	passes("anonymous", "")
	throttled("anonymous", "")
	addr = "192.0.2.2" // another client address has its own budget
	passes("anonymous elsewhere", "")
}

// TestEndpointCORS checks --cors-origins: no CORS headers by default,
// preflights of listed origins answered, others refused.
func TestEndpointCORS(t *testing.T) {
	preflight := func(srv *httptest.Server, origin string) *http.Response {
		req, _ := http.NewRequest("OPTIONS", srv.URL+"/graphql", nil)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "authorization, content-type")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	closed, _ := newEndpoint(t, graph.Endpoint{})
	open, _ := newEndpoint(t, graph.Endpoint{CORSOrigins: []string{"https://dash.example.com"}})
	for _, tc := range []struct {
		name       string
		srv        *httptest.Server
		origin     string
		wantStatus int
		wantAllow  string
	}{
		{"default: none", closed, "https://dash.example.com", 403, ""},
		{"listed origin", open, "https://dash.example.com", 204, "https://dash.example.com"},
		{"other origin", open, "https://evil.example.com", 403, ""},
	} {
		resp := preflight(tc.srv, tc.origin)
		if resp.StatusCode != tc.wantStatus || resp.Header.Get("Access-Control-Allow-Origin") != tc.wantAllow {
			t.Errorf("%s: preflight %d, Allow-Origin %q; want %d, %q", tc.name, resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"), tc.wantStatus, tc.wantAllow)
		}
		if tc.wantStatus == 204 && !strings.Contains(resp.Header.Get("Access-Control-Allow-Headers"), "Authorization") {
			t.Errorf("%s: Allow-Headers %q lacks Authorization", tc.name, resp.Header.Get("Access-Control-Allow-Headers"))
		}
	}
	// WebSockets: pages of other origins may not open one unless listed.
	for _, tc := range []struct {
		name   string
		srv    *httptest.Server
		origin string
		ok     bool
	}{
		{"default: none", closed, "https://dash.example.com", false},
		{"listed origin", open, "https://dash.example.com", true},
		{"other origin", open, "https://evil.example.com", false},
	} {
		h := http.Header{"Origin": {tc.origin}}
		conn, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(tc.srv.URL, "http")+"/graphql",
			&websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}, HTTPHeader: h})
		if (err == nil) != tc.ok {
			t.Errorf("%s: WebSocket from %s: %v; want accepted %v", tc.name, tc.origin, err, tc.ok)
		}
		if conn != nil {
			conn.CloseNow()
		}
	}
	req, _ := http.NewRequest("POST", open.URL+"/graphql", strings.NewReader(`{"query":"{ viewer { username } }"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", "https://dash.example.com")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "https://dash.example.com" {
		t.Errorf("simple request from a listed origin: %d, Allow-Origin %q", resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"))
	}
}

// TestEndpointLimitsPersistedQueries checks that a persisted query (APQ)
// is measured as it runs, with the variables of each request: its text
// registered with small page sizes does not let it run with large ones.
func TestEndpointLimitsPersistedQueries(t *testing.T) {
	srv, _ := newEndpoint(t, graph.Endpoint{})
	const query = `query($n: Int) { projects(limit: $n) { nodes { versions(limit: $n) { nodes { slug } } } } }`
	hash := fmt.Sprintf("%x", sha256.Sum256([]byte(query)))
	send := func(withText bool, n int) map[string]any {
		t.Helper()
		body := map[string]any{
			"variables":  map[string]any{"n": n},
			"extensions": map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": hash}},
		}
		if withText {
			body["query"] = query
		}
		b, _ := json.Marshal(body)
		resp, err := http.Post(srv.URL+"/graphql", "application/json", strings.NewReader(string(b)))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		json.NewDecoder(resp.Body).Decode(&out)
		return out
	}
	if out := send(true, 10); dig(out, "errors") != nil {
		t.Fatalf("registering the query: %v", out)
	}
	if out := send(false, 10); dig(out, "errors") != nil || dig(out, "data", "projects") == nil {
		t.Fatalf("the persisted query by hash: %v", out)
	}
	if out := send(false, 100); dig(out, "errors", 0, "extensions", "details", "limit") != "cost" {
		t.Errorf("the persisted query with page sizes of 100: %v; want QUERY_TOO_COMPLEX over the cost limit", out)
	}
}
