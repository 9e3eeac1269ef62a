package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"docsd/internal/artifacts/artifactstest"
	"docsd/internal/storetest"
	"docsd/store"
)

// docsSite is a real server for the docs sign-in examples: alice owns
// organization acme and its private project handbook, whose read-only
// team has bob; evil is anyone's public project. Both are published and
// indexed. docs reaches the docs hosts and the dashboard by name: in
// subdomain mode `<slug>.docs.test` on the public listener, in path mode
// `docs-content.test` on the docs listener.
type docsSite struct {
	t       *testing.T
	s       *store.Store
	a       *app
	base    string                   // the public listener
	docs    *http.Client             // a browser's docs side, with its cookie jar
	dash    *browserClient           // the same browser's dashboard side
	host    func(slug string) string // the docs host serving slug's pages
	page    string                   // handbook's private page, as a path on its host
	team    int64                    // handbook's read-only team
	bob     *store.User
	bobsKey string
}

func newDocsSite(t *testing.T, d store.Dialect, pathMode bool, args ...string) *docsSite {
	t.Helper()
	ctx := t.Context()
	s := storetest.Open(t, d)
	if pathMode {
		args = append(args, "--docs-url", "http://docs-content.test")
	} else {
		args = append(args, "--docs-domain", "docs.test", "--docs-scheme", "http")
	}
	a, base := dashboardApp(t, s, args...)
	x := &docsSite{t: t, s: s, a: a, base: base, dash: newBrowserClient(t, base)}
	addrs := map[string]string{} // host:port asked for → where it listens
	public := strings.TrimPrefix(base, "http://")
	if pathMode {
		docs := strings.TrimPrefix(testDocs(t, a).URL, "http://")
		addrs["docs-content.test:80"] = docs
		x.host = func(string) string { return "docs-content.test" }
		x.page = "/docs/handbook/en/latest/"
	} else {
		port := public[strings.LastIndex(public, ":")+1:]
		x.host = func(slug string) string { return slug + ".docs.test:" + port }
		x.page = "/en/latest/"
	}
	jar, _ := cookiejar.New(nil)
	x.docs = &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if to, ok := addrs[addr]; ok {
				addr = to
			} else {
				addr = public
			}
			return (&net.Dialer{}).DialContext(ctx, network, addr)
		}}}

	alice := mustUserByName(t, s, "alice")
	x.bob = mustUserByName(t, s, "bob")
	x.bobsKey = newKey(t, s, "bob")
	handbook := storetest.MustImport(t, s, alice, "Handbook", "https://github.com/acme/handbook").Project
	private := store.Private
	handbook, err := s.UpdateProject(ctx, handbook.ID, store.ProjectUpdate{PrivacyLevel: &private})
	must(t, err)
	x.publish(handbook, "<html><head><title>Onboarding</title></head><body><h1>Onboarding</h1><p id=secret>The onboarding secret page.</p></body></html>")
	x.publish(storetest.MustImport(t, s, alice, "Evil", "https://github.com/mallory/evil").Project,
		"<html><head><title>Evil</title></head><body><h1>Evil</h1><p>Nothing here.</p></body></html>")
	org := &store.Organization{Slug: "acme", Name: "Acme"}
	must(t, s.CreateOrganization(ctx, org, alice.ID))
	readOnly, err := s.FindTeamBySlug(ctx, org.ID, "read-only")
	must(t, err)
	x.team = readOnly.ID
	must(t, s.AddTeamMember(ctx, x.team, x.bob.ID))
	must(t, s.SetProjectsOrganization(ctx, []int64{handbook.ID}, &org.ID, []int64{x.team}))
	return x
}

// publish publishes index.html as p's latest, built and indexed.
func (x *docsSite) publish(p *store.Project, index string) {
	x.t.Helper()
	ctx := x.t.Context()
	must(x.t, x.a.artifacts.PublishHTML(ctx, p.Slug, store.Latest, artifactstest.Dir(x.t, map[string]string{"index.html": index})))
	v, err := x.s.FindVersionBySlug(ctx, p.ID, store.Latest)
	must(x.t, err)
	built := true
	v, err = x.s.UpdateVersion(ctx, v.ID, store.VersionUpdate{Built: &built})
	must(x.t, err)
	must(x.t, x.a.indexer.IndexVersion(ctx, p, v, ""))
}

// get sends GET to the docs host serving slug, with header pairs, and
// returns the answer and its body.
func (x *docsSite) get(slug, path string, header ...string) (*http.Response, string) {
	x.t.Helper()
	req, _ := http.NewRequest("GET", "http://"+x.host(slug)+path, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := x.docs.Do(req)
	if err != nil {
		x.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// start is step 2: the docs host's /_/login/start/ on slug's host; it
// returns the dashboard URL it sends the browser to, and the state.
func (x *docsSite) start(slug, next string) (*url.URL, string) {
	x.t.Helper()
	resp, _ := x.get(slug, "/_/login/start/?"+url.Values{"next": {next}}.Encode())
	loc, _ := url.Parse(resp.Header.Get("Location"))
	state := loc.Query().Get("state")
	if resp.StatusCode != http.StatusFound || loc.Path != "/accounts/docs-login/" || loc.Query().Get("host") != x.host(slug) ||
		loc.Query().Get("next") != next || len(state) != 43 || !strings.HasPrefix(resp.Header.Get("Location"), x.a.settings.PublicURL+"/") {
		x.t.Fatalf("2. start: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if c := resp.Header.Get("Set-Cookie"); !strings.Contains(c, "docsd_docs_state="+state) || !strings.Contains(c, "Path=/_/login/") ||
		!strings.Contains(c, "Max-Age=600") || !strings.Contains(c, "HttpOnly") || !strings.Contains(c, "SameSite=Lax") {
		x.t.Errorf("2. state cookie: %q", c)
	}
	return loc, state
}

// handOff is step 3: the signed-in dashboard's answer to loc, which
// sends the browser back to slug's host with a code.
func (x *docsSite) handOff(slug string, loc *url.URL, state, next string) *url.URL {
	x.t.Helper()
	r, _ := x.dash.get(loc.RequestURI())
	back, _ := url.Parse(r.Header.Get("Location"))
	if r.StatusCode != http.StatusFound || back.Scheme != "http" || back.Host != x.host(slug) || back.Path != "/_/login/complete/" ||
		back.Query().Get("state") != state || len(back.Query().Get("code")) != 43 || back.Query().Get("next") != next {
		x.t.Fatalf("3. docs-login: %d to %q", r.StatusCode, r.Header.Get("Location"))
	}
	return back
}

// complete is step 4: the code traded for a docs session on slug's host.
func (x *docsSite) complete(slug string, back *url.URL, next string) {
	x.t.Helper()
	resp, _ := x.get(slug, back.RequestURI())
	if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != next {
		x.t.Fatalf("4. complete: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	var session string
	for _, c := range resp.Header.Values("Set-Cookie") {
		if strings.HasPrefix(c, "docsd_docs=") {
			session = c
		}
	}
	for _, part := range []string{"Path=/", "Max-Age=1209600", "HttpOnly", "SameSite=Lax"} {
		if !strings.Contains(session, part) {
			x.t.Errorf("4. session cookie %q lacks %s", session, part)
		}
	}
	if strings.Contains(session, "Domain=") {
		x.t.Errorf("4. session cookie %q names a Domain", session)
	}
}

// signInLink is the next of a 404 page's "Sign in" link to /_/login/.
var signInLink = regexp.MustCompile(`<p id="docsd-sign-in"><a href="/_/login/\?next=([^"]*)">Sign in</a>`)

// audited reports whether the audit log has an entry of action by
// username ("" for none) with auth_backend backend (and resource, when
// not "").
func (x *docsSite) audited(action, username, backend, resource string) bool {
	x.t.Helper()
	entries, _, err := x.s.FindAuditEntries(x.t.Context(), store.AuditFilter{Visible: store.AuditVisibility{All: true}, Action: action}, store.Page{Limit: 100})
	must(x.t, err)
	for _, e := range entries {
		if (e.LogUserUsername == nil) == (username == "") && (username == "" || *e.LogUserUsername == username) &&
			e.AuthBackend != nil && *e.AuthBackend == backend && (resource == "" || e.Resource == resource) {
			return true
		}
	}
	return false
}

// TestDocsSignInExamples runs the docs sign-in examples through a real
// server, on both databases, in subdomain mode and in path mode with
// --docs-path-sessions: the 404 page's Sign in link, the hand-off from
// the dashboard, the session reading handbook's private page (audited),
// a code used twice, a removal from the team and signing out of the
// dashboard ending the access at the next request; and search on the
// docs host with the cookie finding handbook's private page only on a
// host that serves handbook.
func TestDocsSignInExamples(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		for _, mode := range []struct {
			name     string
			pathMode bool
		}{{"subdomain", false}, {"path", true}} {
			t.Run(mode.name, func(t *testing.T) {
				var args []string
				if mode.pathMode {
					args = append(args, "--docs-path-sessions")
				}
				x := newDocsSite(t, d, mode.pathMode, args...)
				page := x.page

				// 1. No session: the 404 page offers to sign in, back here.
				resp, body := x.get("handbook", page)
				if m := signInLink.FindStringSubmatch(body); resp.StatusCode != http.StatusNotFound || m == nil || m[1] != url.QueryEscape(page) {
					t.Fatalf("1. without a session: %d, sign-in link %q, want 404 linking next=%s", resp.StatusCode, m, page)
				}
				if _, body := x.get("handbook", page+"nope.html"); !signInLink.MatchString(body) {
					t.Errorf("1. a missing page's 404 has no Sign in link")
				}

				// 2. Start, 3. the dashboard (after signing in), 4. complete.
				loc, state := x.start("handbook", page)
				if r, _ := x.dash.get(loc.RequestURI()); r.StatusCode != http.StatusSeeOther || !strings.HasPrefix(r.Header.Get("Location"), "/accounts/login/?next=") {
					t.Fatalf("3. not signed in to the dashboard: %d to %q, want the sign-in page", r.StatusCode, r.Header.Get("Location"))
				}
				csrf := x.dash.signIn("bob", "bob-password")
				for _, c := range []struct{ query, want string }{
					{"host=evil.example&next=/&state=" + state, "This sign-in link does not point to documentation served here."},
					{"host=" + url.QueryEscape(strings.TrimPrefix(x.base, "http://")) + "&next=/&state=" + state, "This sign-in link does not point to documentation served here."},
					{"host=" + url.QueryEscape(x.host("handbook")) + "&next=/&state=short", "This sign-in link is incomplete. Go back to the documentation and sign in again."},
				} {
					if r, body := x.dash.get("/accounts/docs-login/?" + c.query); r.StatusCode != http.StatusBadRequest || !strings.Contains(body, c.want) {
						t.Errorf("3. docs-login?%s: %d, want 400 with %q", c.query, r.StatusCode, c.want)
					}
				}
				back := x.handOff("handbook", loc, state, page)
				x.complete("handbook", back, page)
				if !x.audited(store.AuditAuthentication, "bob", "dashboard-session", "") {
					t.Errorf("4. no authentication of bob through dashboard-session in the audit log")
				}

				// 5. The private page, audited; no Sign in link on a 404
				// any more; the same code again is refused.
				if resp, body := x.get("handbook", page); resp.StatusCode != http.StatusOK || !strings.Contains(body, "The onboarding secret page.") {
					t.Fatalf("5. with the session: %d", resp.StatusCode)
				}
				if !x.audited(store.AuditPageview, "bob", "docs-session", page) {
					t.Errorf("5. no pageview of %s by bob in the audit log", page)
				}
				if _, body := x.get("handbook", page+"nope.html"); signInLink.MatchString(body) {
					t.Errorf("5. a 404 page read with a session links Sign in")
				}
				if resp, body := x.get("handbook", back.RequestURI()); resp.StatusCode != http.StatusBadRequest ||
					!strings.Contains(body, "This sign-in link has expired or was already used. Go back to the page and sign in again.") {
					t.Errorf("5. the same code again: %d, want 400", resp.StatusCode)
				}
				if !x.audited(store.AuditAuthenticationFailure, "", "dashboard-session", "") {
					t.Errorf("5. the code used twice is not audited as an authentication-failure of dashboard-session")
				}

				// A cookie acts only for the projects its host serves.
				search := "/_/api/v3/search/?q=onboarding+project:handbook"
				if _, body := x.get("handbook", search); !strings.Contains(body, `"count":1`) || !strings.Contains(body, "onboarding") {
					t.Errorf("search on handbook's host with the session: %s", body)
				}
				if !mode.pathMode {
					loc, state := x.start("evil", "/")
					x.complete("evil", x.handOff("evil", loc, state, "/"), "/")
					if _, body := x.get("evil", search); strings.Contains(body, "secret page") || !strings.Contains(body, `"count":0`) {
						t.Errorf("search on evil's host with a session there: %s, want nothing of handbook", body)
					}
					if _, body := x.get("evil", search, "Authorization", "Token "+x.bobsKey); !strings.Contains(body, `"count":1`) {
						t.Errorf("search on evil's host with bob's token: %s, want handbook's page", body)
					}
				}

				// 6. Removed from the team: the next request is refused;
				// added again, allowed; signed out of the dashboard: refused.
				must(t, x.s.RemoveTeamMember(t.Context(), x.team, x.bob.ID))
				if resp, _ := x.get("handbook", page); resp.StatusCode != http.StatusNotFound {
					t.Errorf("6. after the removal: %d, want 404", resp.StatusCode)
				}
				if _, body := x.get("handbook", search); strings.Contains(body, "secret page") || !strings.Contains(body, `"count":0`) {
					t.Errorf("6. search after the removal: %s", body)
				}
				must(t, x.s.AddTeamMember(t.Context(), x.team, x.bob.ID))
				if resp, _ := x.get("handbook", page); resp.StatusCode != http.StatusOK {
					t.Errorf("6. added again: %d, want 200", resp.StatusCode)
				}
				if r, _ := x.dash.post("/accounts/logout/", url.Values{"csrfmiddlewaretoken": {csrf}}); r.StatusCode != http.StatusFound {
					t.Fatalf("6. sign out: %d", r.StatusCode)
				}
				resp, body = x.get("handbook", page)
				if resp.StatusCode != http.StatusNotFound || !signInLink.MatchString(body) {
					t.Errorf("6. after signing out of the dashboard: %d (Sign in linked: %v), want 404 with the link", resp.StatusCode, signInLink.MatchString(body))
				}
				if _, body := x.get("handbook", search); !strings.Contains(body, `"count":0`) {
					t.Errorf("6. search after signing out of the dashboard: %s", body)
				}
			})
		}
	})
}

// TestDocsSignInPathModeOff: in path mode without --docs-path-sessions
// the docs origin has no /_/login/ routes (404, no Sign in link on its
// 404 pages), and the dashboard refuses to hand a sign-in off to it.
func TestDocsSignInPathModeOff(t *testing.T) {
	x := newDocsSite(t, store.SQLite, true)
	for _, path := range []string{"/_/login/start/?next=/docs/handbook/en/latest/", "/_/login/?next=/", "/_/login/complete/?code=x&state=y", "/_/logout/"} {
		if resp, _ := x.get("handbook", path); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, resp.StatusCode)
		}
	}
	if resp, body := x.get("handbook", x.page); resp.StatusCode != http.StatusNotFound || signInLink.MatchString(body) {
		t.Errorf("private page: %d, Sign in linked %v; want 404 without the link", resp.StatusCode, signInLink.MatchString(body))
	}
	x.dash.signIn("bob", "bob-password")
	state := strings.Repeat("A", 43)
	if r, body := x.dash.get("/accounts/docs-login/?host=docs-content.test&next=/&state=" + state); r.StatusCode != http.StatusBadRequest ||
		!strings.Contains(body, "This sign-in link does not point to documentation served here.") {
		t.Errorf("docs-login to the docs origin: %d, want 400", r.StatusCode)
	}
}
