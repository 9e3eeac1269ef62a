package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"docsd/graph"
	"docsd/internal/access"
	"docsd/internal/artifacts"
	"docsd/internal/docsurl"
	"docsd/internal/hosting"
	"docsd/internal/search"
	"docsd/internal/storetest"
	"docsd/store"
)

// The pages the search tests index: a Sphinx page and a Markdown one.
const (
	searchInstallHTML = `<html><head><title>Install</title></head><body><div role="main">
<section id="install"><h1>Install<a class="headerlink" href="#install">¶</a></h1>
<p>Run <code>pip install demo</code> to install the latest release.</p>
<section id="from-source"><h2>From source</h2>
<div class="highlight-console notranslate"><div class="highlight"><pre>$ pip install -e .</pre></div></div>
</section></section></div></body></html>`
	searchUsageHTML = `<html><body><main><h1 id="usage">Usage</h1>
<section id="install-lib"><h2>Install lib</h2><p>The library ships with demo; nothing else to install.</p></section>
</main></body></html>`
)

// newSearchEnv is the fixture for search: demo (latest; internal-notes,
// private), lib (child of demo as `library`, latest), with
// searchInstallHTML indexed in demo and searchUsageHTML in lib.
func newSearchEnv(t *testing.T, d store.Dialect, cfg ...func(*Config)) *v3Env {
	t.Helper()
	e := newV3Env(t, d, cfg...)
	ctx := t.Context()
	alice := e.user("alice")
	e.user("mallory")
	demo := storetest.MustImport(t, e.store, alice, "demo", "https://github.com/example/demo")
	lib := storetest.MustImport(t, e.store, alice, "lib", "https://github.com/example/lib")
	if _, err := e.store.CreateRelationship(ctx, demo.Project.ID, lib.Project.ID, "library"); err != nil {
		t.Fatal(err)
	}
	notes := storetest.MustVersion(t, e.store, demo.Project.ID, "internal-notes")
	index := func(v *store.Version, upd store.VersionUpdate, pages fstest.MapFS) {
		yes := true
		upd.Built = &yes
		if _, err := e.store.UpdateVersion(ctx, v.ID, upd); err != nil {
			t.Fatal(err)
		}
		set, _ := search.SettingsFromConfig("")
		ips, err := search.ReadTree(ctx, pages, set, "sphinx")
		if err != nil {
			t.Fatal(err)
		}
		if err := e.store.ReplaceSearchIndex(ctx, v.ProjectID, v.ID, ips); err != nil {
			t.Fatal(err)
		}
	}
	private := store.Private
	index(demo.Latest, store.VersionUpdate{}, fstest.MapFS{"install.html": {Data: []byte(searchInstallHTML)}})
	index(lib.Latest, store.VersionUpdate{}, fstest.MapFS{"usage.html": {Data: []byte(searchUsageHTML)}})
	index(notes, store.VersionUpdate{PrivacyLevel: &private}, fstest.MapFS{"secret.html": {Data: []byte(`<main><h1>Secret</h1><p>The secret plan.</p></main>`)}})
	return e
}

// searchGolden compares a search body whole with testdata/search/<name>.json
// (indented for review; search bodies keep their own key order).
func searchGolden(t *testing.T, name string, resp v3Resp) {
	t.Helper()
	recordGolden(t, "search/"+name+".json", resp.method, resp.path, resp.status, resp.header.Get("Content-Type"))
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, resp.body, "", "  "); err != nil {
		t.Fatalf("%s: body is not JSON: %v\n%s", name, err, resp.body)
	}
	got := []byte(strings.TrimSpace(http.StatusText(resp.status)) + "\n" + pretty.String() + "\n")
	path := filepath.Join("testdata", "search", name+".json")
	if *updateGoldens {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s: %v (run with -update to create it)", name, err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s: body differs from %s\ngot:\n%s\nwant:\n%s", name, path, got, want)
	}
}

func q(s string) string { return url.QueryEscape(s) }

// TestSearchAPIGoldens runs searches of the fixture and the bad-input cases
// on both databases against one set of golden files: same bodies, same
// order.
func TestSearchAPIGoldens(t *testing.T) {
	long := strings.Repeat(`install "(unbalanced* -x +y NEAR/2 ~ `, 290) // over 10 KB
	cases := []struct{ name, path, as string }{
		{"v3_family", "/api/v3/search/?q=" + q("subprojects:demo/latest install"), ""},
		{"v3_family_docs_host", "/_/api/v3/search/?q=" + q("subprojects:demo/latest install"), ""},
		{"v3_no_argument", "/api/v3/search/?q=install", ""},
		{"v3_private_anonymous", "/api/v3/search/?q=" + q("project:demo/internal-notes secret"), ""},
		{"v3_private_stranger", "/api/v3/search/?q=" + q("project:demo/internal-notes secret"), "mallory"},
		{"v3_private_maintainer", "/api/v3/search/?q=" + q("project:demo/internal-notes secret"), "alice"},
		{"v3_private_docs_host_maintainer", "/_/api/v3/search/?q=" + q("project:demo/internal-notes secret"), "alice"},
		{"v3_q_empty", "/api/v3/search/?q=", ""},
		{"v3_q_missing", "/api/v3/search/", ""},
		{"v3_page_zero", "/api/v3/search/?q=install&page=0", ""},
		{"v3_page_not_integer", "/api/v3/search/?q=install&page=1.5", ""},
		{"v3_page_too_high", "/api/v3/search/?q=install&page=67", ""},
		{"v3_page_huge", "/api/v3/search/?q=install&page=99999999999999999999999", ""},
		{"v3_page_size_1", "/api/v3/search/?q=" + q("subprojects:demo install") + "&page_size=1", ""},
		{"v3_page_2", "/api/v3/search/?q=" + q("subprojects:demo install") + "&page_size=1&page=2", ""},
		{"v3_page_past_end", "/api/v3/search/?q=" + q("subprojects:demo install") + "&page_size=1&page=9&x=1", ""},
		{"v3_bad_token", "/api/v3/search/?q=install", "raw:Token nope"},
		{"v3_bad_token_docs_host", "/_/api/v3/search/?q=" + q("project:demo install"), "raw:Token nope"},
		{"v3_bad_nul", "/api/v3/search/?q=" + q("project:demo inst\x00all"), ""},
		{"v3_bad_long", "/api/v3/search/?q=" + q("project:demo "+long), ""},
		{"v3_bad_syntax", "/api/v3/search/?q=" + q(`project:demo "install AND (OR NOT* ^ {x} : '; DROP TABLE projects; --`), ""},
		{"v3_bad_invalid_utf8", "/api/v3/search/?q=%FF%FEinstall+project:demo", ""},
		{"v3_bad_scope", "/api/v3/search/?q=" + q("project:../../x/%00 subprojects:/ user:root install"), ""},
		{"v2_search", "/api/v2/search/?q=install&project=demo&version=latest", ""},
		{"v2_search_docs_host", "/_/api/v2/search/?q=install&project=demo&version=latest", ""},
		{"v2_search_missing", "/api/v2/search/?q=install", ""},
		{"v2_search_no_project", "/api/v2/search/?q=install&project=nope&version=latest", ""},
		{"v2_search_no_version", "/api/v2/search/?q=install&project=demo&version=nope", ""},
		{"v2_search_private_version", "/api/v2/search/?q=secret&project=demo&version=internal-notes", "alice"},
		{"v2_search_bad_syntax", "/api/v2/search/?q=" + q(`"project:demo -install*`) + "&project=demo&version=latest", ""},
		{"docsearch", "/api/v2/docsearch/?q=install&project=demo&version=latest", ""},
		{"docsearch_missing", "/api/v2/docsearch/", ""},
		{"docsearch_no_project", "/api/v2/docsearch/?q=install&project=nope&version=latest", ""},
		{"docsearch_invalid_page", "/api/v2/docsearch/?q=install&project=demo&version=latest&page=2", ""},
		{"docsearch_no_version", "/api/v2/docsearch/?q=install&project=demo&version=nope", ""},
	}
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newSearchEnv(t, d)
		for _, c := range cases {
			searchGolden(t, c.name, e.get(c.path, c.as))
		}
	})
}

// TestSearchAPIHTTP covers the HTTP rules of the search endpoints: CORS and
// preflight, methods and the trailing slash, the throttle, and caching
// headers.
func TestSearchAPIHTTP(t *testing.T) {
	e := newSearchEnv(t, store.SQLite, func(c *Config) { c.SearchThrottleRate = "3/minute" })
	r := e.get("/api/v2/search/?q=install&project=demo&version=latest", "")
	if got := r.header.Get("Access-Control-Allow-Origin"); r.status != 200 || got != "*" {
		t.Errorf("v2 search: %d, Access-Control-Allow-Origin %q", r.status, got)
	}
	r = e.do(v3Call{method: http.MethodOptions, path: "/api/v3/search/", header: map[string]string{"Origin": "https://x.example", "Access-Control-Request-Method": "GET"}})
	if r.status != 200 || len(r.body) != 0 || r.header.Get("Access-Control-Max-Age") != "86400" ||
		r.header.Get("Access-Control-Allow-Headers") != corsAllowHeaders || r.header.Get("Access-Control-Allow-Credentials") != "" {
		t.Errorf("preflight: %d %q %v", r.status, r.body, r.header)
	}
	r = e.do(v3Call{method: http.MethodPost, path: "/_/api/v3/search/?q=x"})
	if r.status != 405 || r.header.Get("Allow") != "GET, HEAD" || string(r.body) != `{"detail":"Method \"POST\" not allowed."}` || r.header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("POST: %d %s %v", r.status, r.body, r.header)
	}
	r = e.get("/_/api/v3/search?q=install", "")
	if r.status != 301 || r.header.Get("Location") != "/_/api/v3/search/?q=install" {
		t.Errorf("no slash: %d %q", r.status, r.header.Get("Location"))
	}
	r = e.get("/_/api/v3/search/?q=install", "alice")
	if r.header.Get("Cache-Control") != "private, no-cache" {
		t.Errorf("identified reader on /_/: Cache-Control %q", r.header.Get("Cache-Control"))
	}
	// alice has used 1 of 3; anonymous readers are counted apart.
	e.get("/api/v3/search/?q=install", "alice")
	e.get("/api/v3/search/?q=install", "alice")
	r = e.get("/api/v3/search/?q=install", "alice")
	if r.status != 429 || r.header.Get("Retry-After") == "" {
		t.Errorf("4th search of alice: %d %s", r.status, r.body)
	}
	if r := e.get("/api/v3/search/?q=install", "mallory"); r.status != 200 {
		t.Errorf("another user is throttled too: %d", r.status)
	}
}

// TestSearchAPISubdomainMode is a family search in subdomain mode: results
// are addressed on the parent's docs host, and the /_/ form's links use
// the request's docs origin.
func TestSearchAPISubdomainMode(t *testing.T) {
	e := newSearchEnv(t, store.SQLite, func(c *Config) { c.DocsDomain = "docs.example.io"; c.DocsScheme = "https" })
	e.api.exec = graph.NewExecutor(&graph.Resolver{Store: e.store, Settings: graph.Settings{
		URLs:        docsurl.Config{PublicURL: v3PublicURL, DocsDomain: "docs.example.io", DocsScheme: "https"},
		MaxPageSize: 100,
	}})
	req, err := http.NewRequest(http.MethodGet, e.srv.URL+"/_/api/v3/search/?page_size=1&q="+q("subprojects:demo/latest install"), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = "demo.docs.example.io"
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Next    string `json:"next"`
		Results []struct {
			Path   string `json:"path"`
			Domain string `json:"domain"`
		} `json:"results"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != 200 || len(body.Results) != 1 {
		t.Fatalf("%d %v %+v", resp.StatusCode, err, body)
	}
	if body.Results[0].Domain != "https://demo.docs.example.io" || body.Results[0].Path != "/en/latest/install.html" {
		t.Errorf("result %+v", body.Results[0])
	}
	if want := "https://demo.docs.example.io/_/api/v3/search/?page=2&page_size=1&q=subprojects%3Ademo%2Flatest+install"; body.Next != want {
		t.Errorf("next = %q, want %q", body.Next, want)
	}
	r := e.get("/api/v3/search/?page_size=1&page=2&q="+q("subprojects:demo/latest install"), "")
	if !bytes.Contains(r.body, []byte(`"path":"/projects/library/en/latest/usage.html","domain":"https://demo.docs.example.io"`)) ||
		!bytes.Contains(r.body, []byte(`"previous":"https://docs.example.com/api/v3/search/?page_size=1&q=`)) {
		t.Errorf("page 2 on the public host: %s", r.body)
	}
}

// TestSearchDocsSessionCookie: on a docs subdomain, the /_/ search form
// identifies its reader by the docs session cookie when no valid token is
// sent; the /api/ form and other hosts ignore it.
func TestSearchDocsSessionCookie(t *testing.T) {
	e := newSearchEnv(t, store.SQLite, func(c *Config) { c.DocsDomain = "docs.example.io"; c.DocsScheme = "https" })
	urls := docsurl.Config{PublicURL: v3PublicURL, DocsDomain: "docs.example.io", DocsScheme: "https"}
	files, err := artifacts.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	docs := hosting.New(e.store, files, hosting.Config{URLs: urls}, slog.New(slog.DiscardHandler))
	e.api.cfg.DocsSessionReader = func(r *http.Request) (context.Context, error) {
		u, err := docs.SessionUser(r.Context(), r)
		return access.WithUser(r.Context(), u), err
	}
	session, err := e.store.CreateDocsSession(t.Context(), e.tokens["alice"], "demo")
	if err != nil {
		t.Fatal(err)
	}
	secret := "?q=" + q("project:demo/internal-notes secret")
	cases := []struct {
		name, host, path, cookie, auth string
		want                           int // results
	}{
		{"cookie on the project's host", "demo.docs.example.io", "/_/api/v3/search/" + secret, session, "", 1},
		{"cookie and a bad token", "demo.docs.example.io", "/_/api/v3/search/" + secret, session, "Token nope", 1},
		{"no cookie", "demo.docs.example.io", "/_/api/v3/search/" + secret, "", "", 0},
		{"unknown cookie", "demo.docs.example.io", "/_/api/v3/search/" + secret, "forged", "", 0},
		{"cookie on another project's host", "lib.docs.example.io", "/_/api/v3/search/" + secret, session, "", 0},
		{"cookie on the public host", "docs.example.com", "/_/api/v3/search/" + secret, session, "", 0},
		{"cookie on the /api/ form", "demo.docs.example.io", "/api/v3/search/" + secret, session, "", 0},
		{"cookie on the /_/ v2 form", "demo.docs.example.io", "/_/api/v2/search/?q=secret&project=demo&version=internal-notes", session, "", 1},
		{"no cookie on the /_/ v2 form", "demo.docs.example.io", "/_/api/v2/search/?q=secret&project=demo&version=internal-notes", "", "", -404},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, e.srv.URL+c.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Host = c.host
			if c.cookie != "" {
				req.AddCookie(&http.Cookie{Name: "docsd_docs", Value: c.cookie})
			}
			if c.auth != "" {
				req.Header.Set("Authorization", c.auth)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body struct {
				Results []json.RawMessage `json:"results"`
			}
			raw, _ := io.ReadAll(resp.Body)
			if strings.HasPrefix(c.path, "/_/") && !strings.Contains(resp.Header.Get("Vary"), "Cookie") {
				t.Errorf("Vary %q on a /_/ form, want Cookie", resp.Header.Get("Vary"))
			}
			if c.want > 0 && !strings.Contains(resp.Header.Get("Cache-Control"), "private") {
				t.Errorf("Cache-Control %q of an answer computed for the reader, want private", resp.Header.Get("Cache-Control"))
			}
			if c.want < 0 {
				if resp.StatusCode != -c.want {
					t.Fatalf("status %d, want %d: %s", resp.StatusCode, -c.want, raw)
				}
				return
			}
			if err := json.Unmarshal(raw, &body); err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("%d %v: %s", resp.StatusCode, err, raw)
			}
			if len(body.Results) != c.want {
				t.Errorf("%d results, want %d: %s", len(body.Results), c.want, raw)
			}
		})
	}
}
