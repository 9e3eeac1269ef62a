package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"docsd/internal/access"
	"docsd/internal/accounts"
	"docsd/internal/choices"
	"docsd/internal/storetest"
	"docsd/store"
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
	if err := a.executor.Do(access.WithSystem(t.Context()), `mutation { setProjectPrivacy(input: {slug: "secret", privacyLevel: private}) { project { slug } } }`, nil, nil); err != nil {
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
		if resp, _ := c.post("/accounts/logout/", url.Values{"csrfmiddlewaretoken": {csrf}}); resp.StatusCode != http.StatusFound {
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

// TestDashboardSignInThrottle: after accounts.FailureLimit wrong passwords
// for one username from one address, even the right password is refused
// with 429; another username from the same address is not affected.
func TestDashboardSignInThrottle(t *testing.T) {
	_, base := dashboardApp(t, storetest.Open(t, store.SQLite))
	c := newBrowserClient(t, base)
	_, page := c.get("/accounts/login/")
	token := csrfOf(t, page)
	try := func(user, password string) (*http.Response, string) {
		return c.post("/accounts/login/", url.Values{"csrfmiddlewaretoken": {token}, "login": {user}, "password": {password}})
	}
	for i := range accounts.FailureLimit {
		if resp, _ := try("alice", "wrong"); resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("failure %d: %d, want 400", i+1, resp.StatusCode)
		}
	}
	resp, body := try("alice", "alice-password")
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" || !strings.Contains(body, "Too many failed sign-ins") {
		t.Errorf("right password after %d failures: %d (Retry-After %q), want 429\n%s", accounts.FailureLimit, resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	if resp, _ := try("bob", "bob-password"); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("another username: %d, want 303", resp.StatusCode)
	}
}

// TestDashboardSecureCookie: with an https public URL the session cookie is
// Secure.
func TestDashboardSecureCookie(t *testing.T) {
	_, base := dashboardApp(t, storetest.Open(t, store.SQLite), "--public-url", "https://docs.example.com")
	c := newBrowserClient(t, base)
	_, page := c.get("/accounts/login/")
	resp, _ := c.post("/accounts/login/", url.Values{"csrfmiddlewaretoken": {csrfOf(t, page)}, "login": {"alice"}, "password": {"alice-password"}})
	if cookie := resp.Header.Get("Set-Cookie"); resp.StatusCode != http.StatusSeeOther || !strings.Contains(cookie, "; Secure") {
		t.Errorf("sign in: %d, cookie %q, want a Secure session cookie", resp.StatusCode, cookie)
	}
}

// TestDashboardPermissions: public projects' pages are readable without a
// session; other pages send anonymous visitors to sign in and back; a
// project or build the viewer cannot see is the same 404 as a missing one;
// only maintainers edit versions or trigger builds; every POST needs the
// session's CSRF token.
func TestDashboardPermissions(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		_, base := dashboardApp(t, s)
		anon, alice, bob := newBrowserClient(t, base), newBrowserClient(t, base), newBrowserClient(t, base)
		aliceCSRF, bobCSRF := alice.signIn("alice", "alice-password"), bob.signIn("bob", "bob-password")
		demo, err := s.FindProjectBySlug(t.Context(), "demo")
		if err != nil {
			t.Fatal(err)
		}
		builds, _, err := s.FindBuilds(t.Context(), store.BuildFilter{ProjectID: &demo.ID})
		if err != nil || len(builds) == 0 {
			t.Fatalf("demo's builds: %v, %v", builds, err)
		}
		build := "/projects/demo/builds/" + itoa(builds[0].ID) + "/"
		secret, err := s.FindProjectBySlug(t.Context(), "secret")
		if err != nil {
			t.Fatal(err)
		}
		secretBuilds, _, _ := s.FindBuilds(t.Context(), store.BuildFilter{ProjectID: &secret.ID})
		secretBuild := "/projects/secret/builds/" + itoa(secretBuilds[0].ID) + "/"
		toLogin := func(path string) string { return "303 /accounts/login/?next=" + url.QueryEscape(path) }
		for _, tc := range []struct {
			client *browserClient
			who    string
			path   string
			want   string // "200 text", "404", or "303 location"
		}{
			{anon, "anonymous", "/projects/demo/", "200 Latest builds"},
			{anon, "anonymous", "/projects/demo/builds/", "200 No builds yet|#"},
			{anon, "anonymous", build, "200 Build #"},
			{anon, "anonymous", "/projects/demo/versions/", "200 latest"},
			{anon, "anonymous", "/projects/demo/versions/latest/", toLogin("/projects/demo/versions/latest/")},
			{anon, "anonymous", "/projects/secret/", toLogin("/projects/secret/")},
			{anon, "anonymous", "/projects/missing/", toLogin("/projects/missing/")},
			{anon, "anonymous", "/dashboard/", toLogin("/dashboard/")},
			{bob, "bob", "/projects/secret/", "404"},
			{bob, "bob", "/projects/missing/", "404"},
			{bob, "bob", secretBuild, "404"},
			{bob, "bob", "/projects/demo/builds/999999/", "404"},
			{bob, "bob", "/projects/demo/builds/nope/", "404"},
			{bob, "bob", "/projects/demo/versions/latest/", "404"},
			{bob, "bob", "/projects/demo/", "200 Demo"},
			{alice, "alice", "/projects/secret/", "200 Secret"},
			{alice, "alice", secretBuild, "200 Build #"},
			{alice, "alice", "/projects/demo/versions/latest/", "200 Privacy level"},
			{alice, "alice", "/projects/demo/builds/", "200 Build version"},
			{alice, "alice", "/projects/demo/versions/", "200 Edit latest"},
			{alice, "alice", build, "200 Build latest again"},
			{alice, "alice", "/projects/demo/edit/", "200 Default branch"},
			{bob, "bob", "/projects/demo/edit/", "404"},
			{anon, "anonymous", "/projects/demo/edit/", toLogin("/projects/demo/edit/")},
			{alice, "alice", "/dashboard/", "200 Import a project"},
			{alice, "alice", "/accounts/logout/", "200 Are you sure"},
			{alice, "alice", "/accounts/login/", "303 /dashboard/"},
			// Paths with no page: the 404 page for a signed-in visitor (the
			// sign-in page would send them straight back: a loop).
			{alice, "alice", "/projects/", "404"},
			{alice, "alice", "/dashboard/nothing/", "404"},
			{anon, "anonymous", "/projects/", toLogin("/projects/")},
		} {
			t.Run(tc.who+tc.path, func(t *testing.T) {
				resp, body := tc.client.get(tc.path)
				got := itoa(int64(resp.StatusCode))
				if loc := resp.Header.Get("Location"); loc != "" {
					got += " " + loc
				}
				code, text, _ := strings.Cut(tc.want, " ")
				switch {
				case code == "303" && got != tc.want:
					t.Errorf("got %s, want %s", got, tc.want)
				case code != "303" && got != code:
					t.Errorf("got %s, want %s", got, code)
				case code == "200" && !containsAny(body, strings.Split(text, "|")):
					t.Errorf("page lacks %q:\n%s", text, body)
				case code == "404" && !strings.Contains(body, "There is nothing here, or you may not see it."):
					t.Errorf("not the one 404 page:\n%s", body)
				}
			})
		}

		for _, c := range []*browserClient{anon, bob} {
			if _, body := c.get(build); strings.Contains(body, "again") || strings.Contains(body, "Build version") {
				t.Errorf("a build button is shown to a non-maintainer:\n%s", body)
			}
		}

		// Writes: CSRF, maintainers only, the API's messages next to fields.
		if resp, _ := alice.post("/projects/demo/versions/latest/", url.Values{"privacy_level": {"private"}}); resp.StatusCode != http.StatusForbidden {
			t.Errorf("version edit without CSRF token: %d, want 403", resp.StatusCode)
		}
		if resp, _ := bob.post("/projects/demo/versions/latest/", url.Values{"csrfmiddlewaretoken": {bobCSRF}, "active": {"on"}, "privacy_level": {"private"}}); resp.StatusCode != http.StatusNotFound {
			t.Errorf("bob edits alice's version: %d, want 404", resp.StatusCode)
		}
		if resp, _ := bob.post("/projects/demo/builds/", url.Values{"csrfmiddlewaretoken": {bobCSRF}, "version": {"latest"}}); resp.StatusCode != http.StatusForbidden {
			t.Errorf("bob triggers a build of alice's project: %d, want 403 with the API's message", resp.StatusCode)
		}
		resp, body := alice.post("/projects/demo/versions/latest/", url.Values{"csrfmiddlewaretoken": {aliceCSRF}, "active": {"on"}, "privacy_level": {"secret"}})
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, `class="field-error">`) || !strings.Contains(body, "secret") {
			t.Errorf("bad privacy level: %d, want 400 with a message next to the field\n%s", resp.StatusCode, body)
		}
		resp, _ = alice.post("/projects/demo/versions/latest/", url.Values{"csrfmiddlewaretoken": {aliceCSRF}, "active": {"on"}, "privacy_level": {"private"}})
		if resp.StatusCode != http.StatusSeeOther {
			t.Errorf("alice makes latest private: %d, want 303", resp.StatusCode)
		}
		if _, body := anon.get("/projects/demo/"); strings.Contains(body, "<td>latest</td>") {
			t.Errorf("a private version is listed to anonymous visitors:\n%s", body)
		}
		resp, _ = alice.post("/projects/demo/builds/", url.Values{"csrfmiddlewaretoken": {aliceCSRF}, "version": {"latest"}})
		if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/projects/demo/builds/") || loc == build {
			t.Errorf("alice triggers a build: %d to %q, want 303 to the new build's page", resp.StatusCode, loc)
		}

		// Cancel and retry (cancelBuild, retryBuild): maintainers only.
		if resp, body := bob.post(build+"cancel/", url.Values{"csrfmiddlewaretoken": {bobCSRF}}); resp.StatusCode != http.StatusNotFound || !strings.Contains(body, `class="error"`) {
			// latest is private by now: bob may not see its build.
			t.Errorf("bob cancels alice's build: %d, want 404 with the API's message\n%s", resp.StatusCode, body)
		}
		if _, body := alice.get(build); !strings.Contains(body, "Cancel build") {
			t.Errorf("a queued build's page has no cancel button for its maintainer")
		}
		resp, _ = alice.post(build+"cancel/", url.Values{"csrfmiddlewaretoken": {aliceCSRF}})
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != build {
			t.Errorf("alice cancels: %d to %q, want 303 to %s", resp.StatusCode, resp.Header.Get("Location"), build)
		}
		if _, body := alice.get(build); !strings.Contains(body, `class="state cancelled" role="status" aria-live="polite">Cancelled<`) || strings.Contains(body, "Cancel build") {
			t.Errorf("the cancelled build's page, want state Cancelled and no cancel button:\n%s", body)
		}
		for _, page := range []string{"/projects/demo/builds/", "/projects/demo/"} {
			if _, body := alice.get(page); !strings.Contains(body, `<span class="state cancelled">Cancelled</span>`) || strings.Contains(body, ">Failed<") {
				t.Errorf("%s shows the cancelled build as other than Cancelled:\n%s", page, body)
			}
		}
		if resp, _ := alice.post(build+"explode/", url.Values{"csrfmiddlewaretoken": {aliceCSRF}}); resp.StatusCode != http.StatusNotFound {
			t.Errorf("unknown build action: %d, want 404", resp.StatusCode)
		}
		resp, _ = alice.post(build+"retry/", url.Values{"csrfmiddlewaretoken": {aliceCSRF}})
		if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/projects/demo/builds/") || loc == build {
			t.Errorf("alice retries: %d to %q, want 303 to a new build's page", resp.StatusCode, loc)
		}

		// Hidden (updateVersion's hidden).
		resp, _ = alice.post("/projects/demo/versions/latest/", url.Values{"csrfmiddlewaretoken": {aliceCSRF}, "active": {"on"}, "hidden": {"on"}, "privacy_level": {"private"}})
		if resp.StatusCode != http.StatusSeeOther {
			t.Errorf("alice hides latest: %d, want 303", resp.StatusCode)
		}
		if _, body := alice.get("/projects/demo/versions/"); !strings.Contains(body, "<td>Hidden</td>") {
			t.Errorf("versions page does not show latest as hidden:\n%s", body)
		}
	})
}

// TestDashboardImport: the import form shows the API's validation messages
// next to the field that caused them and keeps what was typed; a good
// import leads to the project's page.
func TestDashboardImport(t *testing.T) {
	_, base := dashboardApp(t, storetest.Open(t, store.SQLite))
	c := newBrowserClient(t, base)
	csrf := c.signIn("alice", "alice-password")
	for _, tc := range []struct {
		name, project, repo, repoType string
		field, message                string
	}{
		{"taken name", "Demo", "https://github.com/a/other", "git", "id_name_error", "already"},
		{"no repository", "Fresh", "", "git", "id_repository_error", "This field"},
		{"bad repository", "Fresh", "not a url", "git", "id_repository_error", ""},
		// Not one of the select's options (a forged form).
		{"unknown type", "Fresh", "https://github.com/a/fresh", "cvs", "id_repo_type_error", `&#34;cvs&#34; is not a valid choice.`},
		{"no type", "Fresh", "https://github.com/a/fresh", "", "id_repo_type_error", "This field may not be blank."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := c.post("/dashboard/import/", url.Values{"csrfmiddlewaretoken": {csrf}, "name": {tc.project}, "repository": {tc.repo}, "repo_type": {tc.repoType}})
			re := regexp.MustCompile(`<p class="field-error" id="` + tc.field + `">([^<]*)</p>`)
			m := re.FindStringSubmatch(body)
			if resp.StatusCode != http.StatusBadRequest || m == nil || !strings.Contains(m[1], tc.message) {
				t.Fatalf("got %d, want 400 with %q in #%s\n%s", resp.StatusCode, tc.message, tc.field, body)
			}
			if !strings.Contains(body, `value="`+tc.project+`"`) {
				t.Errorf("the form lost the name typed")
			}
		})
	}
	resp, _ := c.post("/dashboard/import/", url.Values{"csrfmiddlewaretoken": {csrf}, "name": {"Fresh Docs"}, "repository": {"https://github.com/a/fresh"}, "repo_type": {"git"}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/projects/fresh-docs/" {
		t.Errorf("import: %d to %q, want 303 to /projects/fresh-docs/", resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp, _ := c.post("/dashboard/import/", url.Values{"name": {"Other"}, "repository": {"https://github.com/a/other"}}); resp.StatusCode != http.StatusForbidden {
		t.Errorf("import without CSRF token: %d, want 403", resp.StatusCode)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// TestDashboardExpiredSession: a form sent after the session ended leads to
// the sign-in page, and signing in leads back to the page of the form.
func TestDashboardExpiredSession(t *testing.T) {
	s := storetest.Open(t, store.SQLite)
	_, base := dashboardApp(t, s)
	c := newBrowserClient(t, base)
	csrf := c.signIn("alice", "alice-password")
	if err := accounts.New(s).SetPassword(t.Context(), "alice", "alice-password"); err != nil { // ends alice's sessions
		t.Fatal(err)
	}
	req, _ := http.NewRequest("POST", base+"/projects/demo/versions/latest/", strings.NewReader(url.Values{"csrfmiddlewaretoken": {csrf}, "active": {"on"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Referer", base+"/projects/demo/versions/latest/")
	resp, _ := c.do(req)
	want := "/accounts/login/?next=" + url.QueryEscape("/projects/demo/versions/latest/")
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != want {
		t.Fatalf("POST with an ended session: %d to %q, want 303 to %q", resp.StatusCode, resp.Header.Get("Location"), want)
	}
	// The page a form lives on, whatever the Referer says (none, or another
	// page): the POST's own path, or the nearest page above it for a form
	// that posts to an action of its own.
	for _, tc := range []struct{ post, referer, next string }{
		{"/projects/demo/redirects/", "", "/projects/demo/redirects/"},
		{"/projects/demo/environmentvariables/", base + "/dashboard/", "/projects/demo/environmentvariables/"},
		{"/projects/demo/environmentvariables/7/delete/", "", "/projects/demo/environmentvariables/"},
		{"/projects/demo/builds/7/cancel/", "", "/projects/demo/builds/7/"},
		{"/dashboard/import/", "", "/dashboard/"},
	} {
		req, _ := http.NewRequest("POST", base+tc.post, strings.NewReader(url.Values{"csrfmiddlewaretoken": {csrf}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if tc.referer != "" {
			req.Header.Set("Referer", tc.referer)
		}
		resp, _ := c.do(req)
		want := "/accounts/login/?next=" + url.QueryEscape(tc.next)
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != want {
			t.Errorf("POST %s (Referer %q) with an ended session: %d to %q, want 303 to %q", tc.post, tc.referer, resp.StatusCode, resp.Header.Get("Location"), want)
		}
	}
	_, page := c.get(want)
	if !strings.Contains(page, `name="next" value="/projects/demo/versions/latest/"`) {
		t.Fatalf("sign-in page does not keep next:\n%s", page)
	}
	resp, _ = c.post("/accounts/login/", url.Values{"csrfmiddlewaretoken": {csrfOf(t, page)}, "login": {"alice"},
		"password": {"alice-password"}, "next": {"/projects/demo/versions/latest/"}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/projects/demo/versions/latest/" {
		t.Errorf("sign in again: %d to %q, want the version page", resp.StatusCode, resp.Header.Get("Location"))
	}
}

// TestDashboardSettings: the settings form sends what changed through
// updateProject, shows the API's messages next to their fields and keeps
// what was typed; only maintainers may send it.
func TestDashboardSettings(t *testing.T) {
	s := storetest.Open(t, store.SQLite)
	_, base := dashboardApp(t, s)
	alice, bob := newBrowserClient(t, base), newBrowserClient(t, base)
	csrf, bobCSRF := alice.signIn("alice", "alice-password"), bob.signIn("bob", "bob-password")
	form := func(csrf string, changes map[string]string) url.Values {
		v := url.Values{"csrfmiddlewaretoken": {csrf}, "name": {"Demo"}, "repository": {"https://github.com/a/demo"}, "repo_type": {"git"},
			"homepage": {""}, "language": {"en"}, "programming_language": {"words"}, "default_version": {"latest"},
			"default_branch": {""}, "privacy_level": {"public"}, "versioning_scheme": {"multiple_versions_with_translations"},
			"tags": {""}, "readthedocs_yaml_path": {""}, "external_builds_privacy_level": {"public"}}
		for k, val := range changes {
			v.Set(k, val)
		}
		return v
	}
	resp, body := alice.post("/projects/demo/edit/", form(csrf, map[string]string{"homepage": "not a url", "default_branch": "main"}))
	m := regexp.MustCompile(`<p class="field-error" id="id_homepage_error">([^<]+)</p>`).FindStringSubmatch(body)
	if resp.StatusCode != http.StatusBadRequest || m == nil || !strings.Contains(body, `value="not a url"`) || !strings.Contains(body, `value="main"`) {
		t.Fatalf("bad homepage: %d, want 400 with a message next to the field and the typed values kept\n%s", resp.StatusCode, body)
	}
	resp, body = alice.post("/projects/demo/edit/", form(csrf, map[string]string{"versioning_scheme": "no-such-scheme", "tags": "x, y"}))
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, `id="id_versioning_scheme_error"`) || !strings.Contains(body, `value="x, y"`) {
		t.Fatalf("bad versioning scheme: %d, want 400 with a message next to the field and the typed tags kept\n%s", resp.StatusCode, body)
	}
	resp, _ = alice.post("/projects/demo/edit/", form(csrf, map[string]string{"name": "Demo Docs", "default_branch": "main", "show_version_warning": "on",
		"versioning_scheme": "single_version_without_translations", "tags": "guide, , api,guide"}))
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/projects/demo/" {
		t.Fatalf("save: %d to %q, want 303 to the project", resp.StatusCode, resp.Header.Get("Location"))
	}
	p, err := s.FindProjectBySlug(t.Context(), "demo")
	if err != nil || p.Name != "Demo Docs" || p.DefaultBranch == nil || *p.DefaultBranch != "main" || !p.ShowVersionWarning || p.Homepage != "" ||
		p.VersioningScheme != "single_version_without_translations" {
		t.Errorf("project after save = %+v, %v", p, err)
	}
	if _, page := alice.get("/projects/demo/edit/"); !strings.Contains(page, `value="guide, api"`) {
		t.Errorf("settings page after saving tags: want tags \"guide, api\"\n%s", page)
	}
	if resp, _ := bob.post("/projects/demo/edit/", form(bobCSRF, map[string]string{"name": "Bob's"})); resp.StatusCode != http.StatusNotFound {
		t.Errorf("bob saves alice's settings: %d, want 404", resp.StatusCode)
	}
	if resp, _ := alice.post("/projects/demo/edit/", form("", nil)); resp.StatusCode != http.StatusForbidden {
		t.Errorf("save without CSRF token: %d, want 403", resp.StatusCode)
	}
}

// TestDashboardRedirects: maintainers list, add (the API's messages next to
// their fields) and delete redirects; others get the 404 page.
func TestDashboardRedirects(t *testing.T) {
	s := storetest.Open(t, store.SQLite)
	_, base := dashboardApp(t, s)
	alice, bob := newBrowserClient(t, base), newBrowserClient(t, base)
	csrf := alice.signIn("alice", "alice-password")
	bob.signIn("bob", "bob-password")
	if resp, _ := bob.get("/projects/demo/redirects/"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("bob's redirects page of alice's project: %d, want 404", resp.StatusCode)
	}
	add := func(from, to string) (*http.Response, string) {
		return alice.post("/projects/demo/redirects/", url.Values{"csrfmiddlewaretoken": {csrf}, "type": {"page"},
			"from_url": {from}, "to_url": {to}, "http_status": {"301"}})
	}
	resp, body := add("", "/new.html")
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, `id="id_from_url_error"`) || !strings.Contains(body, `value="/new.html"`) {
		t.Fatalf("blank from URL: %d, want 400 with a message next to the field and the typed values kept\n%s", resp.StatusCode, body)
	}
	if resp, body := add("/old.html", "/new.html"); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("add: %d\n%s", resp.StatusCode, body)
	}
	_, page := alice.get("/projects/demo/redirects/")
	m := regexp.MustCompile(`action="(/projects/demo/redirects/\d+/delete/)"`).FindStringSubmatch(page)
	if m == nil || !strings.Contains(page, `<td class="url">/old.html</td>`) || !strings.Contains(page, "<td>301</td>") {
		t.Fatalf("redirects page lacks the new redirect:\n%s", page)
	}
	if resp, _ := alice.post(m[1], url.Values{"csrfmiddlewaretoken": {csrf}}); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("delete: %d, want 303", resp.StatusCode)
	}
	if _, page := alice.get("/projects/demo/redirects/"); !strings.Contains(page, "No redirects yet.") {
		t.Errorf("the redirect is still listed after delete:\n%s", page)
	}
}

// TestDashboardVariablesAndMaintainers: environment variables are added
// with write-only values (never shown again, not even in a form with an
// error) and deleted; maintainers are added (bob then may edit) and
// removed; the API's messages appear next to their fields.
func TestDashboardVariablesAndMaintainers(t *testing.T) {
	s := storetest.Open(t, store.SQLite)
	_, base := dashboardApp(t, s)
	alice, bob := newBrowserClient(t, base), newBrowserClient(t, base)
	csrf := alice.signIn("alice", "alice-password")
	bob.signIn("bob", "bob-password")

	const secret = "hunter2-secret"
	resp, body := alice.post("/projects/demo/environmentvariables/", url.Values{"csrfmiddlewaretoken": {csrf}, "name": {"__BAD"}, "value": {secret}})
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, `id="id_name_error"`) || strings.Contains(body, secret) {
		t.Errorf("bad name: %d, want 400 with a message next to the name and the value not sent back\n%s", resp.StatusCode, body)
	}
	if resp, body := alice.post("/projects/demo/environmentvariables/", url.Values{"csrfmiddlewaretoken": {csrf}, "name": {"API_KEY"}, "value": {secret}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("add variable: %d\n%s", resp.StatusCode, body)
	}
	_, page := alice.get("/projects/demo/environmentvariables/")
	// Named as Read the Docs names the page: its tab and its title.
	for _, want := range []string{`<a href="/projects/demo/environmentvariables/">Environment variables</a>`, "<title>Environment variables · Demo · docsd</title>"} {
		if !strings.Contains(page, want) {
			t.Errorf("variables page lacks %s", want)
		}
	}
	m := regexp.MustCompile(`action="(/projects/demo/environmentvariables/\d+/delete/)"`).FindStringSubmatch(page)
	if m == nil || !strings.Contains(page, "<code>API_KEY</code>") || strings.Contains(page, secret) {
		t.Fatalf("variables page: want API_KEY listed without its value\n%s", page)
	}
	if resp, _ := alice.post(m[1], url.Values{"csrfmiddlewaretoken": {csrf}}); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("delete variable: %d, want 303", resp.StatusCode)
	}
	if _, page := alice.get("/projects/demo/environmentvariables/"); strings.Contains(page, "API_KEY") {
		t.Errorf("variable still listed after delete")
	}

	if resp, _ := bob.get("/projects/demo/users/"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("bob's maintainers page before being added: %d, want 404", resp.StatusCode)
	}
	resp, body = alice.post("/projects/demo/users/", url.Values{"csrfmiddlewaretoken": {csrf}, "username": {"nobody"}})
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, `value="nobody"`) || !containsAny(body, []string{`class="error"`, `class="field-error"`}) {
		t.Errorf("unknown user: %d, want 400 with the API's message and the name kept\n%s", resp.StatusCode, body)
	}
	if resp, _ := alice.post("/projects/demo/users/", url.Values{"csrfmiddlewaretoken": {csrf}, "username": {"bob"}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("add bob: %d, want 303", resp.StatusCode)
	}
	if resp, body := bob.get("/projects/demo/users/"); resp.StatusCode != http.StatusOK || !strings.Contains(body, "<td>bob</td>") {
		t.Errorf("bob as maintainer: %d\n%s", resp.StatusCode, body)
	}
	if resp, _ := alice.post("/projects/demo/users/bob/delete/", url.Values{"csrfmiddlewaretoken": {csrf}}); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("remove bob: %d, want 303", resp.StatusCode)
	}
	if resp, _ := bob.get("/projects/demo/users/"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("bob after removal: %d, want 404", resp.StatusCode)
	}
}

// TestDashboardIntegrations: the import's webhook is listed with its URL
// and secret; another is added and deleted.
func TestDashboardIntegrations(t *testing.T) {
	s := storetest.Open(t, store.SQLite)
	_, base := dashboardApp(t, s)
	alice := newBrowserClient(t, base)
	csrf := alice.signIn("alice", "alice-password")
	demo, err := s.FindProjectBySlug(t.Context(), "demo")
	if err != nil {
		t.Fatal(err)
	}
	ins, err := s.FindIntegrations(t.Context(), demo.ID)
	if err != nil || len(ins) != 1 {
		t.Fatalf("integrations = %v, %v", ins, err)
	}
	_, page := alice.get("/projects/demo/integrations/")
	if !strings.Contains(page, "<code>"+ins[0].Secret+"</code>") || !strings.Contains(page, "/api/v2/webhook/demo/"+itoa(ins[0].ID)+"/") {
		t.Fatalf("integrations page lacks the webhook's URL or secret:\n%s", page)
	}
	if name := choices.IntegrationTypes.Name(ins[0].Type); name == ins[0].Type || !strings.Contains(page, "<td>"+name+"</td>") {
		t.Errorf("integrations page lacks the import's %s webhook by its name %q:\n%s", ins[0].Type, name, page)
	}
	if resp, body := alice.post("/projects/demo/integrations/", url.Values{"csrfmiddlewaretoken": {csrf}, "type": {"nope"}}); resp.StatusCode != http.StatusBadRequest || !containsAny(body, []string{`id="id_type_error"`, `class="error"`}) {
		t.Errorf("bad type: %d, want 400 with the API's message\n%s", resp.StatusCode, body)
	}
	if resp, _ := alice.post("/projects/demo/integrations/", url.Values{"csrfmiddlewaretoken": {csrf}, "type": {"api_webhook"}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("add: %d, want 303", resp.StatusCode)
	}
	if resp, _ := alice.post("/projects/demo/integrations/"+itoa(ins[0].ID)+"/delete/", url.Values{"csrfmiddlewaretoken": {csrf}}); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("delete: %d, want 303", resp.StatusCode)
	}
	// Types are shown by their names, as Read the Docs shows them.
	if _, page := alice.get("/projects/demo/integrations/"); strings.Contains(page, ins[0].Secret) || !strings.Contains(page, "<td>Generic API incoming webhook</td>") || strings.Contains(page, "api_webhook</td>") {
		t.Errorf("after add and delete, want the generic webhook listed by its name:\n%s", page)
	}
}
