package hosting

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"docsd/internal/storetest"
	"docsd/store"
)

// serverGet sends GET rawURL to the docs host of its mode through a real
// HTTP server, with the URL's host as the request's Host, and returns the
// answer without following redirects.
func (f *fixture) serverGet(t *testing.T, rawURL string) *http.Response {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(f.handler(rawURL))
	defer srv.Close()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+u.RequestURI(), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = u.Host
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// TestRedirectsThroughServer checks worked examples of every redirect
// type, wildcards, force, enabled, position and http_status, each in
// path mode and in subdomain mode, on both dialects, through a real HTTP
// server.
func TestRedirectsThroughServer(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		f := newFixture(t, d)
		demo, _, _ := redirectWorld(f)
		const docs = "https://docs.example.com/docs/demo"
		rd := func(typ, from, to string) store.Redirect {
			return store.Redirect{Type: typ, FromURL: from, ToURL: to, Enabled: true}
		}
		forced := rd("page", "/index.html", "/start.html")
		forced.Force = true
		disabled := forced
		disabled.Enabled = false
		permanent := rd("page", "/old.html", "/new.html")
		permanent.HTTPStatus = 301
		for _, tc := range []struct {
			name       string
			redirects  []store.Redirect // in position order
			request    string
			wantStatus int
			wantTarget string // Location, or the body of a 200
		}{
			{"15 exact wildcard", []store.Redirect{rd("exact", "/en/latest/tutorial/*", "/en/latest/guide/:splat")},
				docs + "/en/latest/tutorial/install.html?x=1", 302, docs + "/en/latest/guide/install.html?x=1"},
			{"16 page wildcard", []store.Redirect{rd("page", "/old/*", "/new/:splat")},
				docs + "/en/1.0/old/a/b.html", 302, docs + "/en/1.0/new/a/b.html"},
			{"17 page, trailing slash ignored", []store.Redirect{rd("page", "/install", "/setup.html")},
				docs + "/en/latest/install/", 302, docs + "/en/latest/setup.html"},
			{"18 clean_url_to_html", []store.Redirect{rd("clean_url_to_html", "", "")},
				docs + "/en/latest/install/", 302, docs + "/en/latest/install.html"},
			{"19 html_to_clean_url", []store.Redirect{rd("html_to_clean_url", "", "")},
				docs + "/en/latest/install.html", 302, docs + "/en/latest/install/"},
			{"20 html_to_clean_url skips index.html", []store.Redirect{rd("html_to_clean_url", "", "")},
				docs + "/en/latest/guide/index.html", 404, ""},
			{"21 forced over an existing file", []store.Redirect{forced},
				docs + "/en/latest/index.html", 302, docs + "/en/latest/start.html"},
			{"22 disabled", []store.Redirect{disabled},
				docs + "/en/latest/index.html", 200, "demo latest"},
			{"23 position order", []store.Redirect{rd("page", "/a.html", "/b.html"), rd("page", "/a.html", "/c.html")},
				docs + "/en/latest/a.html", 302, docs + "/en/latest/b.html"},
			{"24 exact wildcard outside a version", []store.Redirect{rd("exact", "/dir/*", "/dir/sub/:splat")},
				docs + "/dir/x.html", 302, docs + "/dir/sub/x.html"},
			{"25 loop guard", []store.Redirect{rd("exact", "/dir/*", "/dir/sub/:splat")},
				docs + "/dir/sub/x.html", 404, ""},
			{"26 http_status 301", []store.Redirect{permanent},
				docs + "/en/latest/old.html", 301, docs + "/en/latest/new.html"},
			{"27 exact $rest (era)", []store.Redirect{rd("exact", "/en/2.0/$rest", "/en/3.0/")},
				docs + "/en/2.0/a.html", 302, docs + "/en/3.0/a.html"},
			// Around the examples: a disabled redirect is skipped for the
			// next one; a forced redirect also runs on the not-found path;
			// a non-forced one never hides an existing file.
			{"disabled first, next wins", []store.Redirect{func() store.Redirect { r := rd("page", "/a.html", "/b.html"); r.Enabled = false; return r }(), rd("page", "/a.html", "/c.html")},
				docs + "/en/latest/a.html", 302, docs + "/en/latest/c.html"},
			{"forced on a missing page", []store.Redirect{func() store.Redirect { r := rd("page", "/gone.html", "/b.html"); r.Force = true; return r }()},
				docs + "/en/latest/gone.html", 302, docs + "/en/latest/b.html"},
			{"not forced, file served", []store.Redirect{rd("page", "/index.html", "/start.html")},
				docs + "/en/latest/index.html", 200, "demo latest"},
		} {
			for _, mode := range []string{"path", "subdomain"} {
				t.Run(tc.name+"/"+mode, func(t *testing.T) {
					for i, r := range tc.redirects {
						r.ProjectID, r.Position = demo.ID, i
						created, err := f.s.CreateRedirect(t.Context(), r)
						if err != nil {
							t.Fatal(err)
						}
						defer f.s.DeleteRedirect(t.Context(), demo.ID, created.ID)
					}
					request, want := tc.request, tc.wantTarget
					if mode == "subdomain" {
						request, want = inSubdomainMode(request), inSubdomainMode(want)
					}
					resp := f.serverGet(t, request)
					switch {
					case resp.StatusCode != tc.wantStatus:
						t.Errorf("GET %s: got %d (Location %q), want %d", request, resp.StatusCode, resp.Header.Get("Location"), tc.wantStatus)
					case tc.wantStatus == 200:
						if got := body(t, resp); got != want {
							t.Errorf("GET %s: got body %q, want %q", request, got, want)
						}
					case tc.wantStatus != 404:
						if got := resp.Header.Get("Location"); got != want {
							t.Errorf("GET %s: got Location %q, want %q", request, got, want)
						}
					}
				})
			}
		}
	})
}
