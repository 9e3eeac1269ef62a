package hosting

import (
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"docsd/internal/storetest"
	"docsd/store"
)

// answersWorld publishes what the docs host's hot paths serve: project
// demo's latest with a 20 KB page, a 1 KB page, a 100 KB script (sent with
// sendfile(2) when not compressed), a custom 404 page and a page redirect;
// project bare, whose latest has no 404 page; and project demo's version
// unbuilt, never built.
func answersWorld(f *fixture) *store.Project {
	demo := f.project("demo", "en")
	f.publish(demo, "latest", map[string]string{
		"index.html":       "<html><head></head><body>" + strings.Repeat("<p>docsd serves pages.</p>\n", 700) + "</body></html>",
		"small.html":       "<html><head></head><body>" + strings.Repeat("<p>small</p>\n", 70) + "</body></html>",
		"_static/app.js":   strings.Repeat("var docsd = function (a, b) { return a + b; };\n", 2200),
		"404.html":         `<html><head><link rel="stylesheet" href="_static/theme.css"></head><body>Not here.</body></html>`,
		"guide/index.html": "<html><head></head><body>guide</body></html>",
	})
	f.version(demo, "unbuilt")
	if _, err := f.s.CreateRedirect(f.t.Context(), store.Redirect{ProjectID: demo.ID, Type: "page",
		FromURL: "/old.html", ToURL: "/index.html", HTTPStatus: 302, Enabled: true}); err != nil {
		f.t.Fatal(err)
	}
	bare := f.project("bare", "en")
	f.publish(bare, "latest", map[string]string{"index.html": "<html><head></head><body>bare</body></html>"})
	return demo
}

// TestKeptAnswerIsTheSlowPathsAnswer: an answer the docs host keeps and
// replays has the very status, header fields and body the slow path wrote
// for the same request, with and without the reader client injected, and
// is replayed without a statement (as the slow path, from the warm cache,
// answers anonymous readers with a cookie); requests whose answer depends on more
// than the key (a reader who may be someone, conditions, Range, HEAD, a
// page that reads builds) are never kept, and a file sent with sendfile is
// kept as the open file, which only the Front replays.
func TestKeptAnswerIsTheSlowPathsAnswer(t *testing.T) {
	const bare = "https://docs.example.com/docs/bare/en/latest/"
	cases := []struct {
		name   string
		method string
		url    string
		header []string
		status int
		kept   bool
		sql    bool // statements may run on every request
	}{
		{"Page", http.MethodGet, latest + "index.html", nil, 200, true, false},
		{"SmallPage", http.MethodGet, latest + "small.html", nil, 200, true, false},
		{"Index", http.MethodGet, latest, nil, 200, true, false},
		{"ScriptGzip", http.MethodGet, latest + "_static/app.js", []string{"Accept-Encoding", "gzip"}, 200, true, false},
		{"MissingCustom404", http.MethodGet, latest + "missing.html", nil, 404, true, false},
		{"MissingGeneric404", http.MethodGet, bare + "missing.html", nil, 404, true, false},
		{"MissingProject", http.MethodGet, "https://docs.example.com/docs/nothing/en/latest/", nil, 404, true, false},
		{"Redirect", http.MethodGet, latest + "old.html", nil, 302, true, false},
		{"RedirectWithQuery", http.MethodGet, latest + "old.html?a=1&b=%3C", nil, 302, true, false},
		{"DirectoryRedirect", http.MethodGet, latest + "guide", nil, 302, true, false},
		{"RootRedirect", http.MethodGet, "https://docs.example.com/docs/demo/", nil, 302, true, false},
		{"Subdomain", http.MethodGet, "https://demo.docs.example.io/en/latest/index.html", nil, 200, true, false},
		{"SubdomainRedirect", http.MethodGet, "https://demo.docs.example.io/en/latest/old.html", nil, 302, true, false},

		// Kept as its open file, which only the Front replays.
		{"ScriptSentWithSendfile", http.MethodGet, latest + "_static/app.js", nil, 200, true, false},
		{"Head", http.MethodHead, latest + "index.html", nil, 200, false, false},
		{"Token", http.MethodGet, latest + "index.html", []string{"Authorization", "Token nobody"}, 200, false, true},
		{"Cookie", http.MethodGet, latest + "index.html", []string{"Cookie", "a=b"}, 200, false, false},
		{"Range", http.MethodGet, latest + "index.html", []string{"Range", "bytes=0-9"}, 206, false, false},
		{"IfNoneMatch", http.MethodGet, latest + "index.html", []string{"If-None-Match", `"other"`}, 200, false, false},
		{"Unbuilt", http.MethodGet, "https://docs.example.com/docs/demo/en/unbuilt/index.html", nil, 404, false, true}, // reads the last build
	}
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		for _, inject := range []bool{false, true} {
			f := newFixtureInjecting(t, d, inject)
			// As when a Front serves them: large files' answers are kept.
			f.path.fronted.Store(true)
			f.sub.fronted.Store(true)
			answersWorld(f)
			for _, tc := range cases {
				name := tc.name
				if inject {
					name += "/Injected"
				}
				t.Run(name, func(t *testing.T) {
					first := f.do(tc.method, tc.url, tc.header...)
					if first.StatusCode != tc.status {
						t.Fatalf("got %d, want %d", first.StatusCode, tc.status)
					}
					h := f.handler(tc.url)
					r := httptest.NewRequest(tc.method, tc.url, nil)
					for i := 0; i+1 < len(tc.header); i += 2 {
						r.Header.Set(tc.header[i], tc.header[i+1])
					}
					key, _ := answerKeyOf(httptest.NewRecorder(), r)
					a, _, kept := h.cache.answer(key)
					if kept != tc.kept {
						t.Fatalf("answer kept: got %v, want %v", kept, tc.kept)
					}
					if wantFile := tc.name == "ScriptSentWithSendfile"; kept && (a.file != nil) != wantFile {
						t.Fatalf("answer kept as a file: got %v, want %v", a.file != nil, wantFile)
					}
					before := f.s.QueryCount()
					second := f.do(tc.method, tc.url, tc.header...)
					if n := f.s.QueryCount() - before; n != 0 && !tc.sql {
						t.Errorf("the second request ran %d statements, want none", n)
					}
					if second.StatusCode != first.StatusCode {
						t.Errorf("status: got %d, want %d", second.StatusCode, first.StatusCode)
					}
					if !reflect.DeepEqual(second.Header, first.Header) {
						t.Errorf("header:\ngot  %v\nwant %v", second.Header, first.Header)
					}
					if got, want := body(t, second), body(t, first); got != want {
						t.Errorf("body: got %d bytes %.80q…, want %d bytes %.80q…", len(got), got, len(want), want)
					}
					if tc.sql {
						return
					}
					// The slow path from the warm cache (a cookie: never
					// replayed, still anonymous) runs no statement either.
					before = f.s.QueryCount()
					slow := f.do(tc.method, tc.url, append([]string{"Cookie", "a=b"}, tc.header...)...)
					if n := f.s.QueryCount() - before; n != 0 {
						t.Errorf("the slow path ran %d statements, want none", n)
					}
					if slow.StatusCode != first.StatusCode {
						t.Errorf("slow path status: got %d, want %d", slow.StatusCode, first.StatusCode)
					}
				})
			}
		}
	})
}

// TestFileAnswersNeedAFront: a file sent with sendfile(2) is kept open
// for its answer only while a Front serves the docs host (nothing else
// replays it): without one, every request opens and closes it as before.
func TestFileAnswersNeedAFront(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		f := newFixture(t, d)
		answersWorld(f)
		url := latest + "_static/app.js"
		for _, fronted := range []bool{false, true} {
			f.path.Forget()
			f.path.fronted.Store(fronted)
			if resp := f.do(http.MethodGet, url); resp.StatusCode != http.StatusOK {
				t.Fatalf("fronted %v: got %d, want 200", fronted, resp.StatusCode)
			}
			key, _ := answerKeyOf(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, url, nil))
			a, _, kept := f.path.cache.answer(key)
			if kept != fronted || kept && a.file == nil {
				t.Errorf("fronted %v: answer kept %v (as a file: %v), want kept as a file only with a Front", fronted, kept, kept && a.file != nil)
			}
		}
	})
}

// TestKeptAnswersForgotten: a kept answer goes with everything else the
// cache holds, on the writing node when a write commits (a republish, a
// changed redirect, a deleted project) and on any node when Forget is
// called (what another node's signal does).
func TestKeptAnswersForgotten(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		f := newFixture(t, d)
		demo := answersWorld(f)
		read := func(url string) (int, string, string) {
			t.Helper()
			var status int
			var loc, b string
			for range 2 { // the second answer is the kept one
				resp := f.get(url)
				status, loc, b = resp.StatusCode, resp.Header.Get("Location"), body(t, resp)
			}
			return status, loc, b
		}

		if _, _, b := read(latest + "small.html"); !strings.Contains(b, "small") {
			t.Fatalf("before: got %q", b)
		}
		f.publish(demo, "latest", map[string]string{"small.html": "republished"})
		if _, _, b := read(latest + "small.html"); b != "republished" {
			t.Errorf("after a republish: got %q, want the new page", b)
		}

		_, loc, _ := read(latest + "old.html")
		if !strings.HasSuffix(loc, "/latest/index.html") {
			t.Fatalf("redirect before: got Location %q", loc)
		}
		rds, err := f.s.FindServedRedirects(t.Context(), demo.ID, false)
		if err != nil || len(rds) != 1 {
			t.Fatalf("redirects: %v %v", rds, err)
		}
		rd := *rds[0]
		rd.ToURL = "/small.html"
		if _, err := f.s.UpdateRedirect(t.Context(), rd, nil); err != nil {
			t.Fatal(err)
		}
		if _, loc, _ := read(latest + "old.html"); !strings.HasSuffix(loc, "/latest/small.html") {
			t.Errorf("after the redirect changed: got Location %q, want …/latest/small.html", loc)
		}

		read(latest + "small.html")
		if n := len(f.path.cache.answers); n == 0 {
			t.Fatal("no answer kept")
		}
		f.path.Forget()
		if n := len(f.path.cache.answers); n != 0 {
			t.Errorf("after Forget: %d answers kept, want none", n)
		}

		if err := f.s.DeleteProject(t.Context(), demo.ID); err != nil {
			t.Fatal(err)
		}
		if status, _, _ := read(latest + "small.html"); status != http.StatusNotFound {
			t.Errorf("after the project's deletion: got %d, want 404", status)
		}
	})
}
