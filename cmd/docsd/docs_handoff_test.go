package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"docsd/internal/artifacts/artifactstest"
	"docsd/internal/storetest"
	"docsd/store"
)

// TestDocsSignInHandoff runs the docs-origin sign-in from the dashboard
// through a real server in subdomain mode, on both databases: bob, who
// reads the private project secret through a readonly team of its
// organization, signs in on secret's docs host with his dashboard
// session; the code works once; signing out of the dashboard ends the
// docs session; and a member removed from the team loses the page on the
// next request.
func TestDocsSignInHandoff(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		ctx := t.Context()
		s := storetest.Open(t, d)
		a, base := dashboardApp(t, s, "--docs-domain", "docs.test", "--docs-scheme", "http")
		if err := a.artifacts.PublishHTML(ctx, "secret", store.Latest, artifactstest.Dir(t, map[string]string{"index.html": "<p id=secret>secret page</p>"})); err != nil {
			t.Fatal(err)
		}
		p, err := s.FindProjectBySlug(ctx, "secret")
		must(t, err)
		v, err := s.FindVersionBySlug(ctx, p.ID, store.Latest)
		must(t, err)
		built := true
		_, err = s.UpdateVersion(ctx, v.ID, store.VersionUpdate{Built: &built})
		must(t, err)
		alice, bob := mustUserByName(t, s, "alice"), mustUserByName(t, s, "bob")
		org := &store.Organization{Slug: "acme", Name: "Acme"}
		must(t, s.CreateOrganization(ctx, org, alice.ID))
		readOnly, err := s.FindTeamBySlug(ctx, org.ID, "read-only")
		must(t, err)
		must(t, s.AddTeamMember(ctx, readOnly.ID, bob.ID))
		must(t, s.SetProjectsOrganization(ctx, []int64{p.ID}, &org.ID, []int64{readOnly.ID}))

		port := base[strings.LastIndex(base, ":")+1:]
		host := "secret.docs.test:" + port
		docs := "http://" + host
		jar, _ := cookiejar.New(nil)
		client := &http.Client{Jar: jar,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
			Transport: &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
				return (&net.Dialer{}).DialContext(ctx, network, "127.0.0.1:"+port)
			}}}
		get := func(u string) (*http.Response, string) {
			t.Helper()
			resp, err := client.Get(u)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return resp, string(b)
		}
		page := docs + "/en/latest/"

		if resp, _ := get(page); resp.StatusCode != http.StatusNotFound {
			t.Fatalf("1. without a session: status %d, want 404", resp.StatusCode)
		}
		resp, _ := get(docs + "/_/login/start/?next=/en/latest/")
		loc, _ := url.Parse(resp.Header.Get("Location"))
		state := loc.Query().Get("state")
		if resp.StatusCode != http.StatusFound || loc.Path != "/accounts/docs-login/" || loc.Query().Get("host") != host ||
			loc.Query().Get("next") != "/en/latest/" || len(state) != 43 {
			t.Fatalf("2. start: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
		}
		if c := resp.Header.Get("Set-Cookie"); !strings.Contains(c, "docsd_docs_state="+state) || !strings.Contains(c, "Path=/_/login/") ||
			!strings.Contains(c, "Max-Age=600") || !strings.Contains(c, "HttpOnly") || !strings.Contains(c, "SameSite=Lax") {
			t.Errorf("2. state cookie: %q", c)
		}

		// Not signed in to the dashboard: sign in first, then back.
		dash := newBrowserClient(t, base)
		r, _ := dash.get(loc.RequestURI())
		if r.StatusCode != http.StatusSeeOther || !strings.HasPrefix(r.Header.Get("Location"), "/accounts/login/?next=") {
			t.Fatalf("3. anonymous: %d to %q, want the sign-in page", r.StatusCode, r.Header.Get("Location"))
		}
		csrf := dash.signIn("bob", "bob-password")
		r, _ = dash.get(loc.RequestURI())
		back, _ := url.Parse(r.Header.Get("Location"))
		if r.StatusCode != http.StatusFound || back.Host != host || back.Path != "/_/login/complete/" || back.Query().Get("state") != state ||
			len(back.Query().Get("code")) != 43 || back.Query().Get("next") != "/en/latest/" {
			t.Fatalf("3. docs-login: %d to %q", r.StatusCode, r.Header.Get("Location"))
		}
		for _, c := range []struct{ query, want string }{
			{"host=evil.example&next=/&state=" + state, "This sign-in link does not point to documentation served here."},
			{"host=" + url.QueryEscape(host) + "&next=/&state=short", "This sign-in link is incomplete. Go back to the documentation and sign in again."},
		} {
			if r, body := dash.get("/accounts/docs-login/?" + c.query); r.StatusCode != http.StatusBadRequest || !strings.Contains(body, c.want) {
				t.Errorf("docs-login?%s: %d, want 400 with %q", c.query, r.StatusCode, c.want)
			}
		}

		resp, _ = get(back.String())
		if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/en/latest/" {
			t.Fatalf("4. complete: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
		}
		if resp, body := get(page); resp.StatusCode != http.StatusOK || !strings.Contains(body, "secret page") {
			t.Fatalf("5. with the session: status %d", resp.StatusCode)
		}
		if resp, body := get(back.String()); resp.StatusCode != http.StatusBadRequest ||
			!strings.Contains(body, "This sign-in link has expired or was already used. Go back to the page and sign in again.") {
			t.Errorf("5. the same code again: status %d", resp.StatusCode)
		}

		// Removed from the team: the next request is refused, session or not.
		must(t, s.RemoveTeamMember(ctx, readOnly.ID, bob.ID))
		if resp, _ := get(page); resp.StatusCode != http.StatusNotFound {
			t.Errorf("after the removal: status %d, want 404", resp.StatusCode)
		}
		must(t, s.AddTeamMember(ctx, readOnly.ID, bob.ID))
		if resp, _ := get(page); resp.StatusCode != http.StatusOK {
			t.Errorf("added again: status %d, want 200", resp.StatusCode)
		}

		// 6. Signing out of the dashboard ends the docs session.
		if r, _ := dash.post("/accounts/logout/", url.Values{"csrfmiddlewaretoken": {csrf}}); r.StatusCode != http.StatusFound {
			t.Fatalf("sign out: %d", r.StatusCode)
		}
		if resp, _ := get(page); resp.StatusCode != http.StatusNotFound {
			t.Errorf("6. after signing out of the dashboard: status %d, want 404", resp.StatusCode)
		}
	})
}
