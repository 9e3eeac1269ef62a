package hosting

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"docsd/internal/docsurl"
	"docsd/internal/storetest"
	"docsd/store"
)

// signInHref is the href of a 404 page's "Sign in" link, "" when it has
// none.
var signInHref = regexp.MustCompile(`<p id="docsd-sign-in"><a href="([^"]*)">Sign in</a>`)

// TestNotFoundSignIn: every 404 page of a host with sessions links "Sign
// in" back to the path asked for, escaped, while the reader has no
// session there; other hosts' 404 pages do not. The path-mode docs origin
// has sessions only with PathSessions, and only on its own port.
func TestNotFoundSignIn(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		f := newFixture(t, d)
		f.privateProject("secret", "secret page")
		f.version(f.project("fresh", "en"), "latest")
		own := f.project("own", "en")
		f.publish(own, "latest", map[string]string{"index.html": "own page", "404.html": "<html><body class=x><h1>Own 404</h1></body></html>"})
		pathURLs := docsurl.Config{PublicURL: "https://docs.example.com", DocsURL: "https://docs-content.example.org"}
		withSessions := New(f.s, f.arts, Config{URLs: pathURLs, PathSessions: true}, nil)
		without := New(f.s, f.arts, Config{URLs: pathURLs}, nil)

		serve := func(h *Handler, u string, header ...string) (*http.Response, string) {
			t.Helper()
			r := httptest.NewRequest(http.MethodGet, u, nil)
			for i := 0; i+1 < len(header); i += 2 {
				r.Header.Set(header[i], header[i+1])
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			return w.Result(), w.Body.String()
		}
		// next is the next of the page's sign-in link, "" without one.
		next := func(page string) (string, bool) {
			t.Helper()
			m := signInHref.FindStringSubmatch(page)
			if m == nil {
				return "", false
			}
			href, err := url.Parse(strings.ReplaceAll(m[1], "&amp;", "&"))
			if err != nil || href.Path != "/_/login/" {
				t.Fatalf("sign-in link %q", m[1])
			}
			return href.Query().Get("next"), true
		}

		for _, c := range []struct {
			name     string
			h        *Handler
			url      string
			wantNext string // "" for no link
		}{
			{"subdomain, private project", f.sub, "https://secret.docs.example.io/en/latest/", "/en/latest/"},
			{"subdomain, missing project", f.sub, "https://nope.docs.example.io/en/latest/", "/en/latest/"},
			{"subdomain, missing page", f.sub, "https://secret.docs.example.io/en/latest/nope.html", "/en/latest/nope.html"},
			{"subdomain, markup in the path", f.sub, `https://nope.docs.example.io/a%22%3E%3Cb%3E/`, "/a%22%3E%3Cb%3E/"},
			{"subdomain, the project's own 404 page", f.sub, "https://own.docs.example.io/en/latest/nope.html", "/en/latest/nope.html"},
			{"subdomain, a version not built yet", f.sub, "https://fresh.docs.example.io/en/latest/", "/en/latest/"},
			{"subdomain mode, public host", f.sub, "https://docs.example.com/nope/", ""},
			{"path mode, docs origin with sessions", withSessions, "https://docs-content.example.org/docs/secret/en/latest/", "/docs/secret/en/latest/"},
			{"path mode, outside /docs/", withSessions, "https://docs-content.example.org/nope", "/nope"},
			{"path mode, another port of the docs host", withSessions, "https://docs-content.example.org:8443/docs/secret/en/latest/", ""},
			{"path mode, public host", withSessions, "https://docs.example.com/docs/secret/en/latest/", ""},
			{"path mode without sessions", without, "https://docs-content.example.org/docs/secret/en/latest/", ""},
		} {
			resp, page := serve(c.h, c.url)
			got, linked := next(page)
			if resp.StatusCode != http.StatusNotFound || got != c.wantNext || linked != (c.wantNext != "") {
				t.Errorf("%s: %d, sign-in next %q (linked %v), want 404 and %q", c.name, resp.StatusCode, got, linked, c.wantNext)
			}
			if strings.Contains(page, `"><b>`) {
				t.Errorf("%s: the path's markup is in the page unescaped", c.name)
			}
		}

		// The project's own 404 page keeps its content, the link first
		// in its body.
		if _, page := serve(f.sub, "https://own.docs.example.io/en/latest/nope.html"); !strings.HasPrefix(page, `<html><body class=x><p id="docsd-sign-in">`) ||
			!strings.HasSuffix(page, "<h1>Own 404</h1></body></html>") {
			t.Errorf("the project's own 404 page with the link: %q", page)
		}
		if _, page := serve(f.path, "https://docs.example.com/docs/own/en/latest/nope.html"); page != "<html><body class=x><h1>Own 404</h1></body></html>" {
			t.Errorf("the project's own 404 page on a host without sessions: %q", page)
		}

		// A reader with a session gets no link, one with an ended session
		// does.
		value, err := f.s.CreateDocsSession(t.Context(), f.otherKey, "secret")
		if err != nil {
			t.Fatal(err)
		}
		cookie := []string{"Cookie", "docsd_docs=" + value}
		if _, page := serve(f.sub, "https://secret.docs.example.io/en/latest/", cookie...); signInHref.MatchString(page) {
			t.Errorf("with a session: the 404 page links Sign in")
		}
		if _, page := serve(f.sub, "https://secret.docs.example.io/en/latest/", "Cookie", "docsd_docs=ended"); !signInHref.MatchString(page) {
			t.Errorf("with an unknown session: the 404 page has no Sign in link")
		}

		// The docs origin's sessions: /_/login/ there with PathSessions,
		// 404 without, or on another port.
		for _, c := range []struct {
			h    *Handler
			url  string
			want int
		}{
			{withSessions, "https://docs-content.example.org/_/login/?next=/docs/secret/", 200},
			{withSessions, "https://docs-content.example.org/_/login/start/?next=/docs/secret/", 302},
			{withSessions, "https://docs-content.example.org:8443/_/login/", 404},
			{without, "https://docs-content.example.org/_/login/", 404},
			{without, "https://docs-content.example.org/_/login/start/", 404},
		} {
			if resp, _ := serve(c.h, c.url); resp.StatusCode != c.want {
				t.Errorf("GET %s: %d, want %d", c.url, resp.StatusCode, c.want)
			}
		}
		if !withSessions.IsDocsHost("docs-content.example.org") || !withSessions.IsDocsHost("DOCS-content.example.org:443") ||
			withSessions.IsDocsHost("docs-content.example.org:8443") || without.IsDocsHost("docs-content.example.org") || withSessions.IsDocsHost("docs.example.com") {
			t.Errorf("IsDocsHost: the docs origin's host (its port too) is a docs host with PathSessions only")
		}
	})
}
