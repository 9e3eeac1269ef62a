package main

import (
	"net/http"
	"strings"
	"testing"

	"docsd/internal/access"
	"docsd/internal/artifacts/artifactstest"
	"docsd/internal/errs"
	"docsd/internal/storetest"
	"docsd/store"
)

// TestRedirectDryRunMatchesDocsHost asks the docs host for paths of a
// project with redirects and the graph's Project.resolveRedirect about the
// same paths: wherever the host redirects, the dry run names that location
// and status; where it serves the page or answers 404, the dry run says so
// (null, or a redirect that applies only to missing pages).
func TestRedirectDryRunMatchesDocsHost(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		a, _ := testApp(t, s, "--build-workers", "0")
		docs := testDocs(t, a)
		u, _ := storetest.MustUser(t, s, "alice")
		p := storetest.MustImport(t, s, u, "demo", "https://github.com/example/demo").Project
		v, err := s.FindVersionBySlug(t.Context(), p.ID, store.Latest)
		if err != nil {
			t.Fatal(err)
		}
		dir := artifactstest.Dir(t, map[string]string{"index.html": "<p>demo</p>", "kept.html": "<p>kept</p>"})
		if err := a.artifacts.PublishHTML(t.Context(), "demo", store.Latest, dir); err != nil {
			t.Fatal(err)
		}
		built := true
		if _, err := s.UpdateVersion(t.Context(), v.ID, store.VersionUpdate{Built: &built}); err != nil {
			t.Fatal(err)
		}
		for i, rd := range []store.Redirect{
			{Type: "page", FromURL: "/old.html", ToURL: "/new.html", HTTPStatus: 301},
			{Type: "page", FromURL: "/kept.html", ToURL: "/elsewhere.html", HTTPStatus: 302},
			{Type: "page", FromURL: "/forced.html", ToURL: "/target.html", HTTPStatus: 302, Force: true},
			{Type: "exact", FromURL: "/en/latest/guide/*", ToURL: "/en/latest/manual/:splat", HTTPStatus: 302},
			{Type: "prefix", FromURL: "/api/", ToURL: "", HTTPStatus: 302},
			{Type: "page", FromURL: "/off.html", ToURL: "/on.html", HTTPStatus: 302},
			{Type: "exact", FromURL: "/external", ToURL: "https://example.org/x", HTTPStatus: 301},
		} {
			rd.ProjectID, rd.Position, rd.Enabled = p.ID, i, rd.FromURL != "/off.html"
			if _, err := s.CreateRedirect(t.Context(), rd); err != nil {
				t.Fatal(err)
			}
		}
		client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		for _, tc := range []struct {
			path       string
			hostStatus int // what the docs host answers
		}{
			{"/en/latest/old.html", 301},
			{"/en/latest/kept.html", 200},      // exists: a non-forced redirect does not apply
			{"/en/latest/forced.html", 302},    // missing, forced
			{"/en/latest/index.html", 200},     // no redirect
			{"/en/latest/guide/a/b.html", 302}, // exact with :splat
			{"/api/x/y.html", 302},             // prefix
			{"/en/latest/off.html", 404},       // disabled
			{"/external", 301},
			{"/en/latest/nothing.html", 404},
		} {
			resp, err := client.Get(docs.URL + "/docs/demo" + tc.path)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			var out struct {
				Project struct {
					ResolveRedirect *struct {
						Location            string
						HTTPStatus          int
						OnlyWhenPageMissing bool
						Redirect            struct{ FromURL string }
					}
				}
			}
			err = a.executor.Do(access.WithUser(t.Context(), u), `query($p: String!) { project(slug: "demo") {
				resolveRedirect(path: $p) { location httpStatus onlyWhenPageMissing redirect { fromUrl } } } }`,
				map[string]any{"p": tc.path}, &out)
			if err != nil {
				t.Fatalf("%s: %v", tc.path, err)
			}
			dry := out.Project.ResolveRedirect
			if resp.StatusCode != tc.hostStatus {
				t.Errorf("%s: docs host answered %d, want %d", tc.path, resp.StatusCode, tc.hostStatus)
			}
			switch {
			case resp.StatusCode == 301 || resp.StatusCode == 302:
				loc := resp.Header.Get("Location")
				// The host's Location is on the configured docs URL; the
				// dry run's too.
				if dry == nil || dry.Location != loc || dry.HTTPStatus != resp.StatusCode {
					t.Errorf("%s: docs host sends %d to %q, dry run says %+v", tc.path, resp.StatusCode, loc, dry)
				}
			case dry != nil && !dry.OnlyWhenPageMissing:
				t.Errorf("%s: docs host answered %d, the dry run says a forced redirect applies: %+v", tc.path, resp.StatusCode, dry)
			case dry != nil && resp.StatusCode == 404:
				t.Errorf("%s: the page is missing and the host did not redirect, the dry run says %+v", tc.path, dry)
			}
		}
		// The dry run is for maintainers, like the redirects themselves.
		bob, _ := storetest.MustUser(t, s, "bob")
		err = a.executor.Do(access.WithUser(t.Context(), bob), `{ project(slug: "demo") { resolveRedirect(path: "/old.html") { location } } }`, nil, nil)
		if !errs.Is(err, errs.Forbidden) {
			t.Errorf("bob's dry run: %v, want FORBIDDEN", err)
		}
		err = a.executor.Do(access.WithUser(t.Context(), u), `{ project(slug: "demo") { resolveRedirect(path: "https://elsewhere.example/x") { location } } }`, nil, nil)
		if !errs.Is(err, errs.Invalid) || !strings.Contains(err.Error(), "Enter a path") {
			t.Errorf("a URL of another host: %v, want INVALID", err)
		}
	})
}
