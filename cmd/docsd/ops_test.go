package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"docsd/graph/graphiql"
	"docsd/internal/errs"
	"docsd/store"
)

// testApp wires the app over s with default settings on a temp data dir
// and serves its handler until the test ends.
func testApp(t testing.TB, s *store.Store, args ...string) (*app, *httptest.Server) {
	t.Helper()
	a := wireTestApp(t, s, io.Discard, args...)
	srv := httptest.NewServer(a.handler())
	t.Cleanup(srv.Close)
	return a, srv
}

// wireTestApp wires the app of `docsd serve` with args over s, logging to
// log, until the test ends.
func wireTestApp(t testing.TB, s *store.Store, log io.Writer, args ...string) *app {
	t.Helper()
	c := &command{stdout: io.Discard, stderr: log}
	fs, env := c.flags("serve", "serve")
	if _, err := c.parse(fs, env, append([]string{"--data-dir", t.TempDir()}, args...)); err != nil {
		t.Fatal(err)
	}
	a, err := c.wire(s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if a.stopWatching != nil {
			a.stopWatching()
		}
		a.notifier.Close()
	})
	return a
}

// testDocs serves a's docs listener (docs have an origin of their own by
// default) until the test ends.
func testDocs(t *testing.T, a *app) *httptest.Server {
	t.Helper()
	_, docs, _ := a.handlers()
	if docs == nil {
		t.Fatal("no docs listener: docs share the public origin")
	}
	srv := httptest.NewServer(docs)
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, url, token string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Token "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

func TestVersionFlag(t *testing.T) {
	for _, arg := range []string{"--version", "-version"} {
		code, out, errOut := docsd(t, arg)
		if code != 0 || !regexp.MustCompile(`^docsd \S+ \(.*go1\.\d+.*\)\n$`).MatchString(out) || errOut != "" {
			t.Errorf("docsd %s: code %d, stdout %q, stderr %q; want 0 and `docsd VERSION (…)`", arg, code, out, errOut)
		}
	}
}

func TestMetricsAndReadiness(t *testing.T) {
	ctx := context.Background()
	s, err := store.Open(ctx, t.TempDir()+"/docsd.db")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a, srv := testApp(t, s)
	docs := testDocs(t, a)

	resp, body := get(t, srv.URL+"/readyz", "")
	if resp.StatusCode != 200 || !strings.Contains(body, `"database":"ok"`) || !strings.Contains(body, `"status":"ok"`) {
		t.Errorf("/readyz: %d %s, want 200 with every check ok", resp.StatusCode, body)
	}
	get(t, srv.URL+"/api/v2/project/", "")
	get(t, srv.URL+"/api/v3/projects/some-slug/versions/", "")
	get(t, docs.URL+"/docs/nope/en/latest/", "")

	resp, body = get(t, srv.URL+"/metrics", "")
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("/metrics: %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	for _, want := range []string{
		`docsd_http_requests_total{code="200",method="GET",route="/api/v2/project/"} 1`,
		`docsd_http_requests_total{code="401",method="GET",route="/api/v3/projects/{id}/versions/"} 1`,
		`docsd_http_request_duration_seconds_count{method="GET",route="/readyz"} 1`,
		`docsd_http_requests_total{code="404",method="GET",route="docs"} 1`,
		`docsd_build_queue_depth 0`,
		`docsd_build_duration_seconds_count 0`,
		`docsd_build_stats_up 1`,
		`docsd_build_info{version="`,
		"docsd_docs_bytes_served_total ",
		"go_goroutines ",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	if strings.Contains(body, "some-slug") {
		t.Error("/metrics labels carry a raw path segment")
	}
}

// TestDatabaseOutageIs503 wires the app over a PostgreSQL URL where nothing
// listens: API and GraphQL requests that need the database answer 503 with
// Retry-After and the API's JSON error body, /readyz 503, /healthz 200.
func TestDatabaseOutageIs503(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	s, err := store.OpenWithoutMigrating("postgres://postgres@" + addr + "/docsd?sslmode=disable&connect_timeout=5")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Ping(context.Background()); !errs.Is(err, errs.Unavailable) {
		t.Fatalf("Ping of an unreachable database: %v, want Unavailable", err)
	}
	a, srv := testApp(t, s)
	docs := testDocs(t, a)
	token := strings.Repeat("a", 40)
	for _, tc := range []struct{ path, token, body string }{
		{"/api/v3/projects/", token, `{"detail":"` + errs.MsgUnavailable + `"}`},
		{"/api/v2/project/", "", `{"detail":"` + errs.MsgUnavailable + `"}`},
		{"/graphql?query=%7Bviewer%7Busername%7D%7D", token, `"code":"UNAVAILABLE"`},
		{"/graphql?query=%7Bprojects%7BtotalCount%7D%7D", "", `"code":"UNAVAILABLE"`},
		{"/readyz", "", `"database":"unavailable"`},
		{"/docs/demo/en/latest/", "", "503 Service Unavailable"},
	} {
		base := srv.URL
		if strings.HasPrefix(tc.path, "/docs/") {
			base = docs.URL
		}
		resp, body := get(t, base+tc.path, tc.token)
		if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" || !strings.Contains(body, tc.body) {
			t.Errorf("GET %s: %d Retry-After=%q %s; want 503, Retry-After and %s",
				tc.path, resp.StatusCode, resp.Header.Get("Retry-After"), body, tc.body)
		}
		if !json.Valid([]byte(body)) && !strings.HasPrefix(tc.path, "/docs/") {
			t.Errorf("GET %s: body is not JSON: %s", tc.path, body)
		}
	}
	if resp, _ := get(t, srv.URL+"/healthz", ""); resp.StatusCode != 200 {
		t.Errorf("/healthz: %d, want 200 (liveness does not depend on the database)", resp.StatusCode)
	}
}

// migrated runs `docsd migrate` on dataDir: admin commands need an existing
// database.
func migrated(t *testing.T, dataDir string) {
	t.Helper()
	if code, _, errOut := docsd(t, "migrate", "--data-dir", dataDir); code != 0 {
		t.Fatalf("docsd migrate: exit %d: %s", code, errOut)
	}
}

// TestGraphiQLStartsWithoutAToken: the page sets no Authorization header,
// and its default query runs anonymously without errors.
func TestGraphiQLStartsWithoutAToken(t *testing.T) {
	s, err := store.Open(context.Background(), t.TempDir()+"/docsd.db")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, srv := testApp(t, s)
	_, page := get(t, srv.URL+"/graphiql/", "")
	if strings.Contains(page, "defaultHeaders") || !strings.Contains(page, "Authorization") {
		t.Errorf("GraphiQL page sets a default header or does not say how to add a token")
	}
	body, _ := json.Marshal(map[string]string{"query": graphiql.DefaultQuery})
	resp, err := http.Post(srv.URL+"/graphql", "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Errors []any `json:"errors"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != 200 || len(out.Errors) > 0 {
		t.Errorf("default query: %d %v %v", resp.StatusCode, out.Errors, err)
	}
}

func TestServeOnAPortInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	code, _, errOut := docsd(t, "serve", "--data-dir", t.TempDir(), "--addr", ln.Addr().String(), "--build-workers", "0")
	if code != 1 || !strings.Contains(errOut, "already in use (is another docsd running?") {
		t.Errorf("serve on a busy port: code %d, stderr %q", code, errOut)
	}
}
