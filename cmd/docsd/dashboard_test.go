package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"docsd/accounts"
	"docsd/graph"
	"docsd/store"
	"docsd/storetest"
)

// browserClient is a cookie-keeping HTTP client that does not follow
// redirects, so tests see each answer.
type browserClient struct {
	t    *testing.T
	base string
	http *http.Client
}

func newBrowserClient(t *testing.T, base string) *browserClient {
	jar, _ := cookiejar.New(nil)
	return &browserClient{t: t, base: base, http: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// do sends a request and returns the answer with its body read.
func (c *browserClient) do(req *http.Request) (*http.Response, string) {
	c.t.Helper()
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

func (c *browserClient) get(path string) (*http.Response, string) {
	c.t.Helper()
	req, _ := http.NewRequest("GET", c.base+path, nil)
	return c.do(req)
}

func (c *browserClient) post(path string, form url.Values) (*http.Response, string) {
	c.t.Helper()
	req, _ := http.NewRequest("POST", c.base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return c.do(req)
}

// graphql posts a query to /graphql with the client's cookies and, when
// csrf is not empty, the CSRF header.
func (c *browserClient) graphql(query, csrf string) (int, string) {
	c.t.Helper()
	body, _ := json.Marshal(map[string]string{"query": query})
	req, _ := http.NewRequest("POST", c.base+"/graphql", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	if csrf != "" {
		req.Header.Set(accounts.CSRFHeader, csrf)
	}
	resp, out := c.do(req)
	return resp.StatusCode, out
}

var csrfInput = regexp.MustCompile(`name="csrfmiddlewaretoken" value="([^"]+)"`)

// csrfOf returns the CSRF token of the first form of a page.
func csrfOf(t *testing.T, page string) string {
	t.Helper()
	m := csrfInput.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no CSRF field in page:\n%s", page)
	}
	return m[1]
}

// signIn signs c in as username and returns the session's CSRF token.
func (c *browserClient) signIn(username, password string) string {
	c.t.Helper()
	_, page := c.get("/accounts/login/")
	resp, body := c.post("/accounts/login/", url.Values{"csrfmiddlewaretoken": {csrfOf(c.t, page)},
		"login": {username}, "password": {password}, "next": {"/dashboard/"}})
	if resp.StatusCode != http.StatusSeeOther {
		c.t.Fatalf("sign in as %s: %d\n%s", username, resp.StatusCode, body)
	}
	_, page = c.get("/dashboard/")
	return csrfOf(c.t, page)
}

// dashboardApp serves a real app over s with users alice (password
// "alice-password", maintainer of a public "Demo" and a private "Secret"
// project) and bob ("bob-password", no projects).
func dashboardApp(t *testing.T, s *store.Store, args ...string) (*app, string) {
	t.Helper()
	a, srv := testApp(t, s, args...)
	acc := accounts.New(s)
	for _, name := range []string{"alice", "bob"} {
		u, _ := storetest.MustUser(t, s, name)
		if err := acc.SetPassword(t.Context(), name, name+"-password"); err != nil {
			t.Fatal(err)
		}
		if name == "alice" {
			storetest.MustImport(t, s, u, "Demo", "https://github.com/a/demo")
			storetest.MustImport(t, s, u, "Secret", "https://github.com/a/secret")
		}
	}
	if err := a.executor.Do(graph.WithSystem(t.Context()), `mutation { setProjectPrivacy(slug: "secret", privacyLevel: "private") { slug } }`, nil, nil); err != nil {
		t.Fatal(err)
	}
	return a, srv.URL
}

// TestDashboardSignInAndOut: the sign-in page's CSRF check, wrong and right
// passwords, the session cookie's attributes, the security headers, and
// that signing out ends the session.
func TestDashboardSignInAndOut(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		_, base := dashboardApp(t, s)
		c := newBrowserClient(t, base)

		resp, _ := c.get("/dashboard/")
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/accounts/login/?next=%2Fdashboard%2F" {
			t.Fatalf("anonymous /dashboard/: %d to %q, want 303 to the sign-in page", resp.StatusCode, resp.Header.Get("Location"))
		}
		resp, page := c.get("/accounts/login/?next=%2Fprojects%2Fdemo%2F")
		if resp.StatusCode != http.StatusOK || resp.Header.Get("X-Frame-Options") != "DENY" ||
			!strings.Contains(resp.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
			t.Fatalf("sign-in page: %d, headers %v", resp.StatusCode, resp.Header)
		}
		token := csrfOf(t, page)
		for _, tc := range []struct {
			name   string
			form   url.Values
			status int
			want   string
		}{
			{"no CSRF token", url.Values{"login": {"alice"}, "password": {"alice-password"}}, http.StatusForbidden, "CSRF verification failed"},
			{"wrong CSRF token", url.Values{"csrfmiddlewaretoken": {"x" + token}, "login": {"alice"}, "password": {"alice-password"}}, http.StatusForbidden, "CSRF verification failed"},
			{"wrong password", url.Values{"csrfmiddlewaretoken": {token}, "login": {"alice"}, "password": {"nope"}}, http.StatusBadRequest, accounts.MsgBadCredentials},
			{"unknown user", url.Values{"csrfmiddlewaretoken": {token}, "login": {"carol"}, "password": {"nope"}}, http.StatusBadRequest, accounts.MsgBadCredentials},
		} {
			t.Run(tc.name, func(t *testing.T) {
				resp, body := c.post("/accounts/login/", tc.form)
				if resp.StatusCode != tc.status || !strings.Contains(body, tc.want) {
					t.Errorf("got %d, want %d with %q:\n%s", resp.StatusCode, tc.status, tc.want, body)
				}
				if strings.Contains(resp.Header.Get("Set-Cookie"), accounts.SessionCookie) {
					t.Errorf("a failed sign-in set a session cookie: %q", resp.Header.Get("Set-Cookie"))
				}
			})
		}
		resp, body := c.post("/accounts/login/", url.Values{"csrfmiddlewaretoken": {token}, "login": {"alice"},
			"password": {"alice-password"}, "next": {"https://evil.example/"}})
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/dashboard/" {
			t.Fatalf("sign in: %d to %q, want 303 to /dashboard/ (never another site)\n%s", resp.StatusCode, resp.Header.Get("Location"), body)
		}
		cookie := resp.Header.Get("Set-Cookie")
		for _, attr := range []string{accounts.SessionCookie + "=", "HttpOnly", "SameSite=Lax", "Path=/"} {
			if !strings.Contains(cookie, attr) {
				t.Errorf("session cookie %q lacks %s", cookie, attr)
			}
		}
		if strings.Contains(cookie, "Secure") {
			t.Errorf("session cookie %q is Secure on an http public URL", cookie)
		}
		resp, page = c.get("/dashboard/")
		if resp.StatusCode != http.StatusOK || !strings.Contains(page, "Your projects") || !strings.Contains(page, `href="/projects/demo/"`) {
			t.Fatalf("/dashboard/ signed in: %d\n%s", resp.StatusCode, page)
		}
		csrf := csrfOf(t, page)
		for _, tc := range []struct{ name, csrf, want string }{
			{"no CSRF header: anonymous", "", `{"data":{"viewer":null}}`},
			{"CSRF header: the session's user", csrf, `{"data":{"viewer":{"username":"alice"}}}`},
			{"wrong CSRF header", csrf + "x", "CSRF token missing or incorrect."},
		} {
			t.Run("graphql/"+tc.name, func(t *testing.T) {
				if _, body := c.graphql(`{ viewer { username } }`, tc.csrf); !strings.Contains(body, tc.want) {
					t.Errorf("got %s, want %s", body, tc.want)
				}
			})
		}
		session := c.http.Jar.Cookies(resp.Request.URL)
		if resp, _ := c.post("/accounts/logout/", url.Values{}); resp.StatusCode != http.StatusForbidden {
			t.Errorf("sign out without CSRF token: %d, want 403", resp.StatusCode)
		}
		if resp, _ := c.post("/accounts/logout/", url.Values{"csrfmiddlewaretoken": {csrf}}); resp.StatusCode != http.StatusSeeOther {
			t.Errorf("sign out: %d, want 303", resp.StatusCode)
		}
		if resp, _ := c.get("/dashboard/"); resp.StatusCode != http.StatusSeeOther {
			t.Errorf("/dashboard/ after sign out: %d, want 303 to sign in", resp.StatusCode)
		}
		old := newBrowserClient(t, base) // a copy of the cookie kept from before: the session is over on the server too
		for _, c := range session {
			c.Path = "/"
		}
		old.http.Jar.SetCookies(resp.Request.URL, session)
		if resp, _ := old.get("/dashboard/"); resp.StatusCode != http.StatusSeeOther {
			t.Errorf("/dashboard/ with the old cookie: %d, want 303 to sign in", resp.StatusCode)
		}
		if code, body := old.graphql(`{ viewer { username } }`, csrf); code != http.StatusUnauthorized {
			t.Errorf("/graphql with the old cookie and token: %d %s, want 401", code, body)
		}
	})
}
