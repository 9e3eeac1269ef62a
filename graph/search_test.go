package graph_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"docsd/graph"
	"docsd/internal/docsurl"
	"docsd/internal/search"
	"docsd/internal/storetest"
	"docsd/store"
)

// TestSearchField: the public endpoint answers Query.search within its
// complexity limit, and a family search of a missing project is NOT_FOUND
// with RTD's message.
func TestSearchField(t *testing.T) {
	s := storetest.Open(t, store.SQLite)
	u, _ := storetest.MustUser(t, s, "alice")
	res := storetest.MustImport(t, s, u, "demo", "https://example.com/demo")
	yes := true
	if _, err := s.UpdateVersion(t.Context(), res.Latest.ID, store.VersionUpdate{Built: &yes}); err != nil {
		t.Fatal(err)
	}
	p, err := search.ParsePage(strings.NewReader(`<main><h1>Install</h1><p>Run pip.</p></main>`), "install.html")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.ReplaceSearchIndex(t.Context(), res.Project.ID, res.Latest.ID, []store.IndexPage{search.ToIndexPage("install.html", p)}); err != nil {
		t.Fatal(err)
	}
	r := &graph.Resolver{Store: s, Settings: graph.Settings{URLs: docsurl.Config{PublicURL: "https://docs.example.com"}, MaxPageSize: 100}}
	srv := httptest.NewServer(r.Handler())
	defer srv.Close()
	post := func(query string) string {
		body, _ := json.Marshal(map[string]any{"query": query})
		resp, err := http.Post(srv.URL, "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out bytes.Buffer
		out.ReadFrom(resp.Body)
		return out.String()
	}
	got := post(`{ search(query: "project:demo pip", limit: 100) { totalCount nodes { path blocks { contentHighlights } } } }`)
	if want := `{"data":{"search":{"totalCount":1,"nodes":[{"path":"/docs/demo/en/latest/install.html","blocks":[{"contentHighlights":["Run \u003cspan\u003epip\u003c/span\u003e."]}]}]}}}`; got != want {
		t.Errorf("search = %s, want %s", got, want)
	}
	got = post(`{ search(query: "x", family: {project: "nope", version: "latest", fallback: true, requireVersion: true}) { totalCount } }`)
	if !strings.Contains(got, `"message":"No Project matches the given query."`) || !strings.Contains(got, `"code":"NOT_FOUND"`) {
		t.Errorf("missing project: %s", got)
	}
}
