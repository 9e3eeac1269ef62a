package main

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"testing"

	"docsd/internal/accounts"
	"docsd/internal/storetest"
	"docsd/store"
)

// User-built docs never share an origin with the
// dashboard. These tests cover the settings, the default two-listener
// layout run as `docsd serve`, and the single-origin layout an operator may
// still choose.

func TestDocsOriginSettings(t *testing.T) {
	_, help, _ := docsd(t, "serve", "--help")
	for _, want := range []string{"-docs-addr", "DOCSD_DOCS_ADDR", "-docs-url", "DOCSD_DOCS_URL"} {
		if !strings.Contains(help, want) {
			t.Errorf("serve --help does not describe %s", want)
		}
	}
	for _, tc := range []struct {
		name                 string
		in                   Settings
		wantAddr, wantURL    string
		wantErr, wantErrText string
	}{
		{name: "next port", in: Settings{Addr: "127.0.0.1:8000"}, wantAddr: "127.0.0.1:8001", wantURL: "http://127.0.0.1:8001"},
		{name: "all interfaces", in: Settings{Addr: ":8000"}, wantAddr: ":8001", wantURL: "http://localhost:8001"},
		{name: "public URL's host", in: Settings{Addr: "0.0.0.0:80", PublicURL: "https://docs.example.com/"}, wantAddr: "0.0.0.0:81", wantURL: "https://docs.example.com:81"},
		{name: "given", in: Settings{Addr: ":8000", DocsAddr: "10.0.0.1:9000", DocsURL: "https://read.example.org/"}, wantAddr: "10.0.0.1:9000", wantURL: "https://read.example.org"},
		{name: "single origin", in: Settings{Addr: ":8000", DocsURL: "http://localhost:8000"}, wantAddr: ":8001", wantURL: "http://localhost:8000"},
		{name: "subdomain mode", in: Settings{Addr: ":8000", DocsDomain: "docs.test"}, wantAddr: "", wantURL: ""},
		{name: "subdomain mode and docs address", in: Settings{Addr: ":8000", DocsDomain: "docs.test", DocsAddr: ":9000"}, wantErrText: "--docs-addr and --docs-domain exclude each other"},
		{name: "subdomain mode and docs URL", in: Settings{Addr: ":8000", DocsDomain: "docs.test", DocsURL: "http://x.test"}, wantErrText: "--docs-url and --docs-domain exclude each other"},
		{name: "docs URL with a path", in: Settings{Addr: ":8000", DocsURL: "http://x.test/docs"}, wantErrText: "must be an origin"},
		{name: "no next port", in: Settings{Addr: ":65535"}, wantErrText: "set --docs-addr"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.in
			s.DataDir, s.ThrottleUserRate, s.MaxPageSize, s.BuildTimeLimit = t.TempDir(), "60/minute", 100, 600
			err := s.resolve()
			if tc.wantErrText != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErrText) {
					t.Fatalf("resolve: %v, want an error with %q", err, tc.wantErrText)
				}
				return
			}
			if err != nil || s.DocsAddr != tc.wantAddr || s.DocsURL != tc.wantURL {
				t.Errorf("docs addr, URL = %q, %q (%v); want %q, %q", s.DocsAddr, s.DocsURL, err, tc.wantAddr, tc.wantURL)
			}
			// A guess from a public URL the operator gave is warned about.
			if want := tc.in.PublicURL != "" && tc.in.DocsURL == ""; s.docsURLGuessed != want {
				t.Errorf("docs URL guessed = %v, want %v", s.docsURLGuessed, want)
			}
		})
	}
}

// addrWithNextPortFree is a loopback address whose port and the next are
// both free now, for a `docsd serve` that keeps --docs-addr's default.
func addrWithNextPortFree(t *testing.T) (addr, next string) {
	t.Helper()
	for range 100 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		next := fmt.Sprintf("127.0.0.1:%d", port+1)
		nl, err := net.Listen("tcp", next)
		ln.Close()
		if err == nil {
			nl.Close()
			return ln.Addr().String(), next
		}
	}
	t.Fatal("no two free consecutive ports")
	return "", ""
}

// TestDocsOriginDefaults runs `docsd serve` with the default layout: docs
// on --addr's next port, the API's URLs pointing there, old /docs/ URLs on
// the main origin redirected there, nothing of the dashboard or the API on
// the docs origin, and the dashboard's session cookie — which browsers send
// to every port of the host — worth nothing there.
func TestDocsOriginDefaults(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dataDir := t.TempDir()
	token := createUser(t, dataDir, "alice")
	if code, _, errOut := docsdWithInput(t, "alice-password\n", "user", "password", "alice", "--data-dir", dataDir); code != 0 {
		t.Fatalf("user password: %d %s", code, errOut)
	}
	addr, next := addrWithNextPortFree(t)
	srv := serveAt(t, dataDir, addr, next, "--build-workers", "1")
	srv.token = token
	docsURL := srv.importProject(t, "demo", gitRepo(t, repoFiles("Demo")), "en")
	if want := "http://" + next + "/docs/demo/en/latest/"; docsURL != want {
		t.Fatalf("urls.documentation = %q, want %q (docs on --addr's next port)", docsURL, want)
	}
	srv.waitBuilt(t, "demo")

	t.Run("DocsOrigin", func(t *testing.T) {
		for _, tc := range []struct {
			path   string
			status int
			want   string
		}{
			{"/docs/demo/en/latest/guide.html", 200, "Demo: guide</h1>"},
			{"/_/addons/?api-version=1&url=" + url.QueryEscape(docsURL+"guide.html"), 200, `"documentation":"` + docsURL + `"`},
			{"/_/api/v3/search/?q=" + url.QueryEscape("project:demo guide"), 200, `"path":"/docs/demo/en/latest/guide.html"`},
			{"/_/static/docsd-addons.js", 200, "docsd"},
			{"/healthz", 200, "ok"},
			// The docs origin has nothing that acts for a user.
			{"/graphql", 404, ""},
			{"/api/v3/projects/", 404, ""},
			{"/dashboard/", 404, ""},
			{"/accounts/login/", 404, ""},
			{"/_/login/", 404, ""},
		} {
			status, _, body := fetch(t, srv.docs+tc.path, "")
			if status != tc.status || !strings.Contains(body, tc.want) {
				t.Errorf("GET %s%s: %d %.120q, want %d with %q", srv.docs, tc.path, status, body, tc.status, tc.want)
			}
		}
	})

	t.Run("MainOrigin", func(t *testing.T) {
		if status, _, body := fetch(t, srv.url+"/", ""); status != 200 || !strings.Contains(body, "Docs:     "+srv.docs+"/docs/<project>/") {
			t.Errorf("GET / on the main origin: %d %q, want it to name the docs origin", status, body)
		}
	})

	t.Run("OldURLsRedirect", func(t *testing.T) {
		for _, method := range []string{http.MethodGet, http.MethodHead} {
			req, _ := http.NewRequest(method, srv.url+"/docs/demo/en/latest/guide.html?highlight=x%20y#top", nil)
			resp, err := noFollow.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if want := srv.docs + "/docs/demo/en/latest/guide.html?highlight=x%20y"; resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != want {
				t.Errorf("%s on the main origin: %d %q, want 302 to %s", method, resp.StatusCode, resp.Header.Get("Location"), want)
			}
		}
		req, _ := http.NewRequest(http.MethodPost, srv.url+"/docs/demo/en/latest/", nil)
		resp, err := noFollow.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("POST on the main origin's /docs/: %d, want 405", resp.StatusCode)
		}
	})

	t.Run("DashboardCookieIsWorthNothing", func(t *testing.T) {
		srv.graphql(t, `mutation { setProjectPrivacy(input: {slug: "demo", privacyLevel: private}) { project { slug } } }`, nil, nil)
		page := srv.docs + "/docs/demo/en/latest/guide.html"
		// A maintainer's API token reads the private page: it exists.
		req, _ := http.NewRequest(http.MethodGet, page, nil)
		req.Header.Set("Authorization", "Token "+token)
		if resp, err := noFollow.Do(req); err != nil || resp.StatusCode != 200 {
			t.Fatalf("private page with the maintainer's token: %v %v", resp, err)
		} else {
			resp.Body.Close()
		}
		// The maintainer signed in to the dashboard: the cookie jar, like a
		// browser, sends the session cookie to the docs port too.
		c := newBrowserClient(t, srv.url)
		c.signIn("alice", "alice-password")
		u, _ := url.Parse(page)
		if !hasCookie(c.http.Jar.Cookies(u), accounts.SessionCookie) {
			t.Fatalf("the dashboard session cookie is not sent to %s; the test would prove nothing", page)
		}
		req, _ = http.NewRequest(http.MethodGet, page, nil)
		resp, got := c.do(req)
		_, _, missing := fetch(t, srv.docs+"/docs/nope/en/latest/guide.html", "")
		if resp.StatusCode != 404 || got != missing {
			t.Errorf("private page with only the dashboard cookie: %d %.120q; want the 404 of a missing project", resp.StatusCode, got)
		}
	})
}

func hasCookie(cookies []*http.Cookie, name string) bool {
	for _, c := range cookies {
		if c.Name == name {
			return true
		}
	}
	return false
}

// TestSharedOriginRefusesSignIn: with --docs-url equal to the public URL,
// docs are served under /docs/ on the one listener (path mode),
// and the dashboard neither signs anyone in nor honours a session.
func TestSharedOriginRefusesSignIn(t *testing.T) {
	s := storetest.Open(t, store.SQLite)
	a, srv := testApp(t, s, "--public-url", "http://localhost:8000", "--docs-url", "http://localhost:8000")
	if _, docs, _ := a.handlers(); docs != nil {
		t.Error("a docs listener in the single-origin layout")
	}
	storetest.MustUser(t, s, "alice")
	acc := accounts.New(s)
	if err := acc.SetPassword(t.Context(), "alice", "alice-password"); err != nil {
		t.Fatal(err)
	}
	c := newBrowserClient(t, srv.URL)
	resp, page := c.get("/accounts/login/")
	// Why (the setting that shares the origin, with its value) and what
	// to change, in words an operator can act on.
	for _, want := range []string{"shares the dashboard&#39;s origin", "--docs-url is the same as --public-url (http://localhost:8000)",
		"remove --docs-url", "--docs-addr", "set --docs-url to another origin", "--docs-domain"} {
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(page, want) {
			t.Errorf("sign-in page: %d, want 403 saying %q:\n%s", resp.StatusCode, want, page)
		}
	}
	if strings.Contains(page, `name="password"`) {
		t.Error("the sign-in page still offers a password field")
	}
	resp, page = c.post("/accounts/login/", url.Values{"login": {"alice"}, "password": {"alice-password"}})
	if resp.StatusCode != http.StatusForbidden || hasCookie(resp.Cookies(), accounts.SessionCookie) || !strings.Contains(page, "--docs-url") {
		t.Errorf("sign-in POST: %d, cookies %v; want 403 with the reason and no session", resp.StatusCode, resp.Cookies())
	}
	// A session made before the operator chose this layout counts for nothing.
	value, err := acc.SignIn(t.Context(), "alice", "alice-password", "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	srvURL, _ := url.Parse(srv.URL)
	c.http.Jar.SetCookies(srvURL, []*http.Cookie{{Name: accounts.SessionCookie, Value: value, Path: "/"}})
	if code, body := c.graphql(`{ viewer { username } }`, accounts.CSRFToken(value)); code != 200 || strings.Contains(body, "alice") {
		t.Errorf("/graphql with an old session and its CSRF header: %d %s; want anonymous", code, body)
	}
	if resp, _ := c.get("/dashboard/"); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("/dashboard/ with an old session: %d, want 303 to the sign-in page", resp.StatusCode)
	}
	// Docs are served here, not redirected.
	if resp, _ := c.get("/docs/nope/en/latest/"); resp.StatusCode != 404 {
		t.Errorf("/docs/ in the single-origin layout: %d, want the docs host's 404", resp.StatusCode)
	}
}

// TestFaviconOnEveryOrigin: browsers ask every origin for /favicon.ico;
// the dashboard's origin and the docs origin answer docsd's icon, in the
// two-listener layout, in the single-origin one and in subdomain mode.
func TestFaviconOnEveryOrigin(t *testing.T) {
	s := storetest.Open(t, store.SQLite)
	check := func(name, base string) {
		t.Helper()
		resp, body := get(t, base+"/favicon.ico", "")
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/x-icon" || !strings.HasPrefix(body, "\x00\x00\x01\x00") {
			t.Errorf("%s: /favicon.ico: %d %s, %d bytes; want 200 and an icon", name, resp.StatusCode, resp.Header.Get("Content-Type"), len(body))
		}
	}
	a, srv := testApp(t, s)
	check("dashboard origin", srv.URL)
	check("docs origin", testDocs(t, a).URL)
	_, single := testApp(t, s, "--public-url", "http://localhost:8000", "--docs-url", "http://localhost:8000")
	check("single origin", single.URL)
	_, sub := testApp(t, s, "--docs-domain", "docs.test")
	check("public origin in subdomain mode", sub.URL)
}
