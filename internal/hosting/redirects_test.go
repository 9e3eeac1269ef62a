package hosting

import (
	"net/http"
	"regexp"
	"testing"

	"docsd/internal/storetest"
	"docsd/store"
)

// redirectWorld makes the projects of the redirect examples:
// demo (en, versions latest and 1.0), lib (child of demo with alias
// library) and one (single version), each with an index page only.
func redirectWorld(f *fixture) (demo, lib, one *store.Project) {
	f.t.Helper()
	demo = f.project("demo", "en")
	f.publish(demo, "latest", map[string]string{"index.html": "demo latest"})
	f.publish(demo, "1.0", map[string]string{"index.html": "demo 1.0"})
	lib = f.project("lib", "en")
	f.publish(lib, "latest", map[string]string{"index.html": "lib latest"})
	if _, err := f.s.CreateRelationship(f.t.Context(), demo.ID, lib.ID, "library"); err != nil {
		f.t.Fatal(err)
	}
	one = f.project("one", "en")
	single := true
	one = f.update(one, store.ProjectUpdate{SingleVersion: &single})
	f.publish(one, "latest", map[string]string{"index.html": "one"})
	return demo, lib, one
}

func (f *fixture) redirect(p *store.Project, typ, from, to string) *store.Redirect {
	f.t.Helper()
	rd, err := f.s.CreateRedirect(f.t.Context(), store.Redirect{ProjectID: p.ID, Type: typ, FromURL: from, ToURL: to, Enabled: true})
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { f.s.DeleteRedirect(f.t.Context(), p.ID, rd.ID) })
	return rd
}

var pathModeURL = regexp.MustCompile(`^https://docs\.example\.com/docs/([^/]+)`)

// inSubdomainMode rewrites a path-mode docs URL of the examples to its
// subdomain-mode form; other URLs stay as they are.
func inSubdomainMode(u string) string {
	return pathModeURL.ReplaceAllString(u, "https://$1.docs.example.io")
}

// TestRedirectWorkedExamples checks 14 worked examples of redirects on
// the not-found path, each in path mode and in subdomain mode, on both
// dialects.
func TestRedirectWorkedExamples(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		f := newFixture(t, d)
		demo, lib, one := redirectWorld(f)
		for _, tc := range []struct {
			name              string
			project           *store.Project
			typ, from, to     string
			request           string
			wantLocation      string // "" for 404
			onlyPath, onlySub bool
		}{
			{"1 prefix, not a language", demo, "prefix", "/dev/", "", "https://docs.example.com/docs/demo/dev/install.html", "https://docs.example.com/docs/demo/en/latest/install.html", false, false},
			{"2 prefix, whole prefix", demo, "prefix", "/dev/", "", "https://docs.example.com/docs/demo/dev/", "https://docs.example.com/docs/demo/en/latest/", false, false},
			{"3 prefix in a version", demo, "prefix", "/old/", "", "https://docs.example.com/docs/demo/en/1.0/old/setup.html", "https://docs.example.com/docs/demo/en/1.0/setup.html", false, false},
			{"4 page", demo, "page", "/example.html", "/examples/intro.html", "https://docs.example.com/docs/demo/en/1.0/example.html", "https://docs.example.com/docs/demo/en/1.0/examples/intro.html", true, false},
			{"5 page, other folder", demo, "page", "/example.html", "/examples/intro.html", "https://docs.example.com/docs/demo/en/1.0/guide/example.html", "", false, false},
			{"6 page to another site", demo, "page", "/old.html", "https://example.org/new.html", "https://docs.example.com/docs/demo/en/latest/old.html", "https://example.org/new.html", false, false},
			{"7 exact", demo, "exact", "/en/latest/old.html", "/en/latest/new.html", "https://docs.example.com/docs/demo/en/latest/old.html", "https://docs.example.com/docs/demo/en/latest/new.html", false, false},
			{"8 exact with $rest, missing version", demo, "exact", "/en/2.0/$rest", "/en/3.0/", "https://docs.example.com/docs/demo/en/2.0/dev/install.html?x=1", "https://docs.example.com/docs/demo/en/3.0/dev/install.html?x=1", false, false},
			{"9 sphinx_html, folder", demo, "sphinx_html", "", "", "https://docs.example.com/docs/demo/en/latest/install/", "https://docs.example.com/docs/demo/en/latest/install.html", false, false},
			{"10 sphinx_html, index", demo, "sphinx_html", "", "", "https://docs.example.com/docs/demo/en/latest/install/index.html", "https://docs.example.com/docs/demo/en/latest/install.html", false, false},
			{"11 sphinx_htmldir", demo, "sphinx_htmldir", "", "", "https://docs.example.com/docs/demo/en/latest/install.html", "https://docs.example.com/docs/demo/en/latest/install/", false, false},
			{"12 page on a subproject", lib, "page", "/a.html", "/b.html", "https://docs.example.com/docs/demo/projects/library/en/latest/a.html", "https://docs.example.com/docs/demo/projects/library/en/latest/b.html", false, false},
			{"13 page on a single-version project", one, "page", "/a.html", "/b.html", "https://docs.example.com/docs/one/a.html", "https://docs.example.com/docs/one/b.html", false, false},
			{"14 #4 in subdomain mode", demo, "page", "/example.html", "/examples/intro.html", "https://demo.docs.example.io/en/1.0/example.html", "https://demo.docs.example.io/en/1.0/examples/intro.html", false, true},
		} {
			modes := []string{"path", "subdomain"}
			if tc.onlySub {
				modes = []string{"subdomain"}
			}
			for _, mode := range modes {
				t.Run(tc.name+"/"+mode, func(t *testing.T) {
					rd := f.redirect(tc.project, tc.typ, tc.from, tc.to)
					defer f.s.DeleteRedirect(t.Context(), tc.project.ID, rd.ID)
					request, want := tc.request, tc.wantLocation
					if mode == "subdomain" {
						request, want = inSubdomainMode(request), inSubdomainMode(want)
					}
					resp := f.get(request)
					if want == "" {
						if resp.StatusCode != http.StatusNotFound {
							t.Fatalf("GET %s: got %d (Location %q), want 404", request, resp.StatusCode, resp.Header.Get("Location"))
						}
						return
					}
					if resp.StatusCode != http.StatusFound {
						t.Fatalf("GET %s: got %d, want 302", request, resp.StatusCode)
					}
					if got := resp.Header.Get("Location"); got != want {
						t.Errorf("GET %s: got Location %q, want %q", request, got, want)
					}
				})
			}
		}
	})
}

// TestRedirectRules checks the rules of redirects around the table:
// order, the loop guard, stored statuses, queries, and when redirects are
// not consulted at all.
func TestRedirectRules(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		f := newFixture(t, d)
		demo, _, _ := redirectWorld(f)
		f.publish(demo, "latest", map[string]string{"index.html": "demo latest", "exists.html": "here"})
		ctx := t.Context()
		check := func(t *testing.T, url string, wantStatus int, wantLocation string) {
			t.Helper()
			resp := f.get(url)
			if resp.StatusCode != wantStatus || resp.Header.Get("Location") != wantLocation {
				t.Errorf("GET %s: got %d %q, want %d %q", url, resp.StatusCode, resp.Header.Get("Location"), wantStatus, wantLocation)
			}
		}

		t.Run("PositionOrder", func(t *testing.T) {
			// A new redirect goes first, as Read the Docs has always put
			// it; an update without a position does not move it.
			older := f.redirect(demo, "page", "/x.html", "/older.html")
			f.redirect(demo, "page", "/x.html", "/newer.html")
			check(t, "https://docs.example.com/docs/demo/en/latest/x.html", 302, "https://docs.example.com/docs/demo/en/latest/newer.html")
			older.Description = "updated"
			if _, err := f.s.UpdateRedirect(ctx, *older, nil); err != nil {
				t.Fatal(err)
			}
			check(t, "https://docs.example.com/docs/demo/en/latest/x.html", 302, "https://docs.example.com/docs/demo/en/latest/newer.html")
			first := 0
			if _, err := f.s.UpdateRedirect(ctx, *older, &first); err != nil {
				t.Fatal(err)
			}
			check(t, "https://docs.example.com/docs/demo/en/latest/x.html", 302, "https://docs.example.com/docs/demo/en/latest/older.html")
		})

		t.Run("TargetIsTheRequestedPath", func(t *testing.T) {
			f.redirect(demo, "exact", "/en/latest/self.html", "/en/latest/self.html")
			check(t, "https://docs.example.com/docs/demo/en/latest/self.html", 404, "")
			check(t, "https://demo.docs.example.io/en/latest/self.html", 404, "")
		})

		t.Run("StoredStatus", func(t *testing.T) {
			rd := f.redirect(demo, "page", "/moved.html", "/exists.html")
			check(t, "https://docs.example.com/docs/demo/en/latest/moved.html", 302, "https://docs.example.com/docs/demo/en/latest/exists.html")
			if err := f.s.SetRedirectStatus(ctx, demo.ID, rd.ID, 301); err != nil {
				t.Fatal(err)
			}
			check(t, "https://docs.example.com/docs/demo/en/latest/moved.html", 301, "https://docs.example.com/docs/demo/en/latest/exists.html")
		})

		t.Run("QueryJoinsTheTargets", func(t *testing.T) {
			f.redirect(demo, "page", "/q.html", "https://example.org/search?lang=en#top")
			check(t, "https://docs.example.com/docs/demo/en/latest/q.html?q=a&b=1", 302, "https://example.org/search?lang=en&q=a&b=1#top")
		})

		t.Run("ExistingPagesWin", func(t *testing.T) {
			f.redirect(demo, "page", "/exists.html", "/elsewhere.html")
			resp := f.get("https://docs.example.com/docs/demo/en/latest/exists.html")
			if got := body(t, resp); resp.StatusCode != 200 || got != "here" {
				t.Errorf("got %d %q, want 200 %q", resp.StatusCode, got, "here")
			}
		})

		t.Run("NeverTheRequestHost", func(t *testing.T) {
			f.redirect(demo, "exact", "/en/latest/host.html", "/en/latest/exists.html")
			resp := f.get("http://evil.example.net:8080/docs/demo/en/latest/host.html")
			if got, want := resp.Header.Get("Location"), "https://docs.example.com/docs/demo/en/latest/exists.html"; got != want {
				t.Errorf("got Location %q, want %q", got, want)
			}
		})

		t.Run("NotForPrivateProjects", func(t *testing.T) {
			secret := f.project("secret", "en")
			f.publish(secret, "latest", map[string]string{"index.html": "s", "404.html": "custom 404 of secret"})
			private := store.Private
			f.update(secret, store.ProjectUpdate{PrivacyLevel: &private})
			f.redirect(secret, "prefix", "/old/", "")
			resp := f.get("https://docs.example.com/docs/secret/en/latest/old/nothing.html")
			if got := body(t, resp); resp.StatusCode != 404 || resp.Header.Get("Location") != "" || got != notFoundHTML {
				t.Errorf("anonymous: got %d %q %q, want the generic 404", resp.StatusCode, resp.Header.Get("Location"), got)
			}
			resp = f.get("https://docs.example.com/docs/secret/en/latest/old/nothing.html", token(f.ownerKey)...)
			if resp.StatusCode != 302 {
				t.Errorf("maintainer: got %d, want 302", resp.StatusCode)
			}
		})

		t.Run("Translation", func(t *testing.T) {
			es := f.project("demo-es", "es")
			if err := f.s.SetTranslationOf(ctx, es.ID, &demo.ID); err != nil {
				t.Fatal(err)
			}
			f.publish(es, "latest", map[string]string{"index.html": "hola"})
			f.redirect(es, "page", "/viejo.html", "/nuevo.html")
			check(t, "https://docs.example.com/docs/demo/es/latest/viejo.html", 302, "https://docs.example.com/docs/demo/es/latest/nuevo.html")
			check(t, "https://demo.docs.example.io/es/latest/viejo.html", 302, "https://demo.docs.example.io/es/latest/nuevo.html")
			// A language without a translation: the target's redirects, with
			// the language as requested.
			f.redirect(demo, "page", "/viejo.html", "/nuevo.html")
			check(t, "https://docs.example.com/docs/demo/fr/latest/viejo.html", 302, "https://docs.example.com/docs/demo/fr/latest/nuevo.html")
		})
	})
}
