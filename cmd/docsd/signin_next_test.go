package main

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"docsd/internal/storetest"
	"docsd/store"
)

// openRedirectNexts are ?next= values, as written in a URL's query, of the
// usual open-redirect payload lists.
var openRedirectNexts = []string{
	"/%09/evil.example/",      // "/\t/evil.example/": browsers drop the tab
	"/%0A/evil.example/",      // likewise a line feed
	"/%5Cevil.example/",       // "/\evil.example/": a backslash is a slash to browsers
	"/%2509/evil.example/",    // "/%09/evil.example/", decoded once more by a proxy
	"/%252F%252Fevil.example", // "/%2F%2Fevil.example", likewise
	"https:evil.example",
	"//evil.example/",
}

// newKey creates an API key for username.
func newKey(t *testing.T, s *store.Store, username string) string {
	t.Helper()
	u, err := s.FindUserByUsername(t.Context(), username)
	if err != nil {
		t.Fatal(err)
	}
	key, _, err := s.CreateToken(t.Context(), u.ID)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// formValue is what a form field holds for a ?next= value as written in a
// query.
func formValue(t *testing.T, next string) string {
	t.Helper()
	v, err := url.QueryUnescape(next)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// roundTrip sends req with c's cookies and returns the answer as it came:
// unlike c.do, it does not parse a Location, which a browser reads more
// leniently than net/http does.
func (c *browserClient) roundTrip(req *http.Request) *http.Response {
	c.t.Helper()
	for _, k := range c.http.Jar.Cookies(req.URL) {
		req.AddCookie(k)
	}
	rt := c.http.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	resp, err := rt.RoundTrip(req)
	if err != nil {
		c.t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

// browserLocation resolves a redirect's Location against the URL asked as
// a browser does (the WHATWG URL parser): leading and trailing spaces and
// control bytes trimmed, tabs and line breaks dropped anywhere, and a
// backslash read as a slash in an http(s) URL.
func browserLocation(base *url.URL, loc string) (*url.URL, error) {
	loc = strings.TrimFunc(loc, func(r rune) bool { return r <= ' ' })
	loc = strings.NewReplacer("\t", "", "\n", "", "\r", "", `\`, "/").Replace(loc)
	return base.Parse(loc)
}

// assertStaysOnSite fails when resp, the answer to a request for asked,
// redirects anywhere but a path of asked's origin.
func assertStaysOnSite(t *testing.T, asked string, resp *http.Response) {
	t.Helper()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("got %d, want 303", resp.StatusCode)
	}
	base, _ := url.Parse(asked)
	loc := resp.Header.Get("Location")
	to, err := browserLocation(base, loc)
	if err != nil {
		t.Fatalf("Location %q: %v", loc, err)
	}
	if to.Scheme != base.Scheme || to.Host != base.Host {
		t.Errorf("Location %q leads a browser to %s, not to a page of %s://%s", loc, to, base.Scheme, base.Host)
	}
}

// TestSignInNextStaysOnSite: after signing in, the dashboard's
// /accounts/login/ and a docs subdomain's /_/login/ (--docs-domain) send the
// reader to ?next= only when it is a path of their own origin, whatever the
// payload; a browser following `GET /accounts/login/?next=/%09/evil.example/`
// stays on the site.
func TestSignInNextStaysOnSite(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		_, base := dashboardApp(t, s, "--docs-domain", "docs.test", "--docs-scheme", "http")
		c := newBrowserClient(t, base)
		c.signIn("alice", "alice-password")
		for _, next := range openRedirectNexts {
			t.Run("dashboard signed in/"+next, func(t *testing.T) {
				asked := base + "/accounts/login/?next=" + next
				req, _ := http.NewRequest(http.MethodGet, asked, nil)
				assertStaysOnSite(t, asked, c.roundTrip(req))
			})
			t.Run("dashboard sign in/"+next, func(t *testing.T) {
				c := newBrowserClient(t, base)
				_, page := c.get("/accounts/login/?next=" + next)
				form := url.Values{"csrfmiddlewaretoken": {csrfOf(t, page)}, "login": {"alice"}, "password": {"alice-password"}, "next": {formValue(t, next)}}
				req, _ := http.NewRequest(http.MethodPost, base+"/accounts/login/", strings.NewReader(form.Encode()))
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				assertStaysOnSite(t, base+"/accounts/login/", c.roundTrip(req))
			})
		}

		key := newKey(t, s, "alice")
		docs := newBrowserClient(t, "http://secret.docs.test")
		server := strings.TrimPrefix(base, "http://")
		docs.http.Transport = &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, server) // every docs.test host is the test server
		}}
		for _, next := range openRedirectNexts {
			t.Run("docs host/"+next, func(t *testing.T) {
				_, page := docs.get("/_/login/?next=" + next)
				if !strings.Contains(page, `name="next" value="/"`) {
					t.Errorf("the sign-in form keeps next=%q:\n%s", next, page)
				}
				req, _ := http.NewRequest(http.MethodPost, docs.base+"/_/login/", strings.NewReader(url.Values{"token": {key}, "next": {formValue(t, next)}}.Encode()))
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				req.Header.Set("Origin", docs.base)
				resp := docs.roundTrip(req)
				if !strings.Contains(resp.Header.Get("Set-Cookie"), "docsd_docs=") {
					t.Fatalf("no session after signing in: %d", resp.StatusCode)
				}
				assertStaysOnSite(t, docs.base+"/_/login/", resp)
			})
		}
	})
}
