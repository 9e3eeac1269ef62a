package hosting

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"docsd/internal/storetest"
	"docsd/store"
)

// TestDocsLogin checks that a subdomain's /_/login/ trades an
// API key for a host-only cookie that reads private docs on that host only,
// and stops working when the key is revoked.
func TestDocsLogin(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		f := newFixture(t, d)
		f.privateProject("secret", "secret page")
		f.privateProject("other", "other page")
		host := "https://secret.docs.example.io"

		post := func(form url.Values, header ...string) *http.Response {
			r, _ := http.NewRequest(http.MethodPost, host+"/_/login/", strings.NewReader(form.Encode()))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			for i := 0; i+1 < len(header); i += 2 {
				r.Header.Set(header[i], header[i+1])
			}
			w := &recorderWithStatus{recorder: recorder{header: http.Header{}}}
			f.sub.ServeHTTP(w, r)
			return &http.Response{StatusCode: w.status, Header: w.header, Body: http.NoBody}
		}

		if resp := f.get(host + "/_/login/?next=/en/latest/"); resp.StatusCode != 200 || !strings.Contains(body(t, resp), `type="password" id="token" name="token"`) || resp.Header.Get("Cache-Control") != "no-store" {
			t.Fatalf("login form: %d", resp.StatusCode)
		}
		if resp := f.get("https://docs.example.com/_/login/"); resp.StatusCode != 404 {
			t.Errorf("path-mode /_/login/: %d, want 404", resp.StatusCode)
		}
		resp := post(url.Values{"token": {"wrong"}, "next": {"/en/latest/"}})
		if resp.StatusCode != 200 || resp.Header.Get("Set-Cookie") != "" {
			t.Errorf("wrong token: %d, Set-Cookie %q", resp.StatusCode, resp.Header.Get("Set-Cookie"))
		}
		if resp := post(url.Values{"token": {f.ownerKey}}, "Origin", "https://evil.example"); resp.StatusCode != 403 {
			t.Errorf("cross-origin login: %d, want 403", resp.StatusCode)
		}
		resp = post(url.Values{"token": {f.ownerKey}, "next": {"//evil.example/"}}, "Origin", "https://secret.docs.example.io")
		cookie := resp.Header.Get("Set-Cookie")
		if resp.StatusCode != 303 || resp.Header.Get("Location") != "/" {
			t.Fatalf("login: %d %q", resp.StatusCode, resp.Header.Get("Location"))
		}
		for _, part := range []string{"docsd_docs=", "Path=/", "Max-Age=1209600", "HttpOnly", "Secure", "SameSite=Lax"} {
			if !strings.Contains(cookie, part) {
				t.Errorf("cookie %q lacks %s", cookie, part)
			}
		}
		if strings.Contains(cookie, "Domain") || strings.Contains(cookie, f.ownerKey) {
			t.Errorf("cookie %q has a Domain or the token", cookie)
		}
		value := strings.TrimPrefix(strings.Split(cookie, ";")[0], "docsd_docs=")
		withCookie := []string{"Cookie", "docsd_docs=" + value}

		if resp := f.get(host+"/en/latest/", withCookie...); resp.StatusCode != 200 || body(t, resp) != "secret page" || resp.Header.Get("Cache-Control") != "private" {
			t.Errorf("private page with the cookie: %d %q", resp.StatusCode, resp.Header.Get("Cache-Control"))
		}
		if resp := f.get(host+"/_/addons/?api-version=1&project-slug=secret&version-slug=latest", withCookie...); resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != "private, no-cache" {
			t.Errorf("addons with the cookie: %d %q", resp.StatusCode, resp.Header.Get("Cache-Control"))
		}
		if resp := f.get("https://other.docs.example.io/en/latest/", withCookie...); resp.StatusCode != 404 {
			t.Errorf("the cookie works on another host: %d", resp.StatusCode)
		}
		if resp := f.get(host + "/en/latest/"); resp.StatusCode != 404 {
			t.Errorf("private page without the cookie: %d", resp.StatusCode)
		}
		if err := f.s.RevokeToken(t.Context(), f.ownerKey); err != nil {
			t.Fatal(err)
		}
		if resp := f.get(host+"/en/latest/", withCookie...); resp.StatusCode != 404 {
			t.Errorf("cookie of a revoked key: %d", resp.StatusCode)
		}
	})
}

// TestDocsLogout: GET /_/logout/ (a link or an image on any page of the
// site) leaves the session alone and answers a page whose button signs
// out; a POST from another origin (another project's subdomain is the
// same site, so the Lax cookie goes with it) is refused; a POST from the
// page ends the session on the server and clears the cookie.
func TestDocsLogout(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		f := newFixture(t, d)
		withCookie := sessionWorld(t, f)
		const host = "https://secret.docs.example.io"
		signedIn := func() bool {
			t.Helper()
			return f.get(host+"/en/latest/", withCookie...).StatusCode == http.StatusOK
		}
		if !signedIn() {
			t.Fatal("the session reads nothing")
		}
		post := func(origin string) *http.Response {
			return f.do(http.MethodPost, host+"/_/logout/", append([]string{"Origin", origin}, withCookie...)...)
		}

		resp := f.get(host+"/_/logout/", withCookie...)
		page := body(t, resp)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Set-Cookie") != "" || resp.Header.Get("Cache-Control") != "no-store" ||
			resp.Header.Get("X-Frame-Options") != "DENY" || !strings.Contains(page, `<form method="post" action="/_/logout/">`) {
			t.Errorf("GET: %d, Set-Cookie %q, Cache-Control %q, X-Frame-Options %q\n%s", resp.StatusCode, resp.Header.Get("Set-Cookie"),
				resp.Header.Get("Cache-Control"), resp.Header.Get("X-Frame-Options"), page)
		}
		if !signedIn() {
			t.Fatal("GET /_/logout/ ended the session")
		}
		for _, origin := range []string{"https://evil.docs.example.io", "http://secret.docs.example.io", "null"} {
			if resp := post(origin); resp.StatusCode != http.StatusForbidden || resp.Header.Get("Set-Cookie") != "" {
				t.Errorf("POST from %s: %d, Set-Cookie %q; want 403 and nothing cleared", origin, resp.StatusCode, resp.Header.Get("Set-Cookie"))
			}
		}
		if !signedIn() {
			t.Fatal("a cross-origin POST ended the session")
		}
		resp = post(host)
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" || !strings.Contains(resp.Header.Get("Set-Cookie"), "Max-Age=0") {
			t.Errorf("POST: %d to %q, Set-Cookie %q", resp.StatusCode, resp.Header.Get("Location"), resp.Header.Get("Set-Cookie"))
		}
		if signedIn() {
			t.Error("the session still reads private pages after signing out")
		}
	})
}

type recorderWithStatus struct {
	recorder
	status int
}

func (r *recorderWithStatus) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
}

func (r *recorderWithStatus) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = 200
	}
	return r.recorder.Write(b)
}
