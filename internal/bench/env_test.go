package bench

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"docsd/graph"
	"docsd/internal/bench/benchdata"
	"docsd/internal/bench/floor"
	"docsd/internal/docsurl"
	"docsd/internal/storetest"
	"docsd/rest"
	"docsd/store"
)

// urls are docsd's default layout: the dashboard and API on one origin,
// the built docs on another.
var urls = docsurl.Config{PublicURL: "https://docsd.example.com", DocsURL: "https://docs.example.com"}

// testScale is small enough for a unit test and still fills every measured
// list: bench maintains 100 projects, the measured project has 150 builds.
var testScale = benchdata.Scale{Projects: 120, Versions: 1200, Builds: 1200, CommandsPerBuild: 2}

// request is one of the measured REST requests; v3 ones carry bench's key.
type request struct {
	name, path string
	v3         bool
}

// requests are the four measured requests, with list length n.
func requests(n string) []request {
	p := benchdata.Project
	return []request{
		{"ProjectDetailExpand", "/api/v3/projects/" + p + "/?expand=active_versions,active_versions.last_build,active_versions.last_build.config", true},
		{"V3ProjectList", "/api/v3/projects/?limit=" + n, true},
		{"V3BuildList", "/api/v3/projects/" + p + "/builds/?limit=" + n, true},
		{"V2BuildList", "/api/v2/build/?project__slug=" + p + "&limit=" + n, false},
	}
}

// env is docsd's REST handler and the floor over one generated database.
type env struct {
	store *store.Store
	docsd http.Handler
	floor http.Handler
}

func newEnv(tb testing.TB, d store.Dialect, sc benchdata.Scale) *env {
	tb.Helper()
	return newEnvAt(tb, storetest.DatabaseURL(tb, d), sc)
}

// newEnvAt is newEnv on the empty database at url.
func newEnvAt(tb testing.TB, url string, sc benchdata.Scale) *env {
	tb.Helper()
	if err := benchdata.Generate(tb.Context(), url, sc); err != nil {
		tb.Fatal(err)
	}
	s, err := store.Open(tb.Context(), url)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	resolver := &graph.Resolver{Store: s, Settings: graph.Settings{URLs: urls, MaxPageSize: 100}}
	api := rest.New(graph.NewExecutor(resolver), rest.Config{PublicURL: urls.PublicURL, MaxPageSize: 100})
	db, dialect, err := benchdata.Open(url)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return &env{store: s, docsd: api, floor: floor.New(db, dialect, urls)}
}

// get runs req against h in-process and returns the status and body.
func get(tb testing.TB, h http.Handler, req request) (int, []byte) {
	tb.Helper()
	r := httptest.NewRequest(http.MethodGet, req.path, nil)
	if req.v3 {
		r.Header.Set("Authorization", "Token "+benchdata.Key)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	body, _ := io.ReadAll(w.Result().Body)
	return w.Code, body
}
