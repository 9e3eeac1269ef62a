package main

import (
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"docsd/internal/accounts"
	"docsd/internal/accounts/oidctest"
	"docsd/internal/storetest"
	"docsd/store"
)

// orgSSOPeople are the provider's people of the organization tests: eve
// (no docsd user yet), hal (a docsd user with that verified email), mal
// (another domain).
var orgSSOPeople = []oidctest.User{
	{ID: "sub-eve", Username: "eve", Password: "eve-password", Email: "eve@acme.example", EmailVerified: true},
	{ID: "sub-hal", Username: "hal", Password: "hal-password", Email: "hal@acme.example", EmailVerified: true},
	{ID: "sub-mal", Username: "mallory", Password: "mal-password", Email: "mallory@example.net", EmailVerified: true},
}

const (
	setSSODomainsQuery = `mutation($org: String!, $domains: [String!]!) { setOrganizationSsoDomains(input: {organization: $org, domains: $domains}) {
		organization { ssoDomains } errors { path message code } } }`
	setSSORequiredQuery = `mutation($org: String!, $on: Boolean!) { updateOrganization(input: {slug: $org, ssoRequired: $on}) {
		organization { ssoRequired } errors { path message code } } }`
)

// payloadErrors returns a mutation's payload errors as
// "CODE path: message" lines, and its top-level errors' codes.
func payloadErrors(res map[string]any, field string) (payload []string, top []string) {
	for _, e := range asList(res["errors"]) {
		ext, _ := e.(map[string]any)["extensions"].(map[string]any)
		top = append(top, fmt.Sprint(ext["code"]))
	}
	data, _ := res["data"].(map[string]any)
	p, _ := data[field].(map[string]any)
	for _, e := range asList(p["errors"]) {
		m := e.(map[string]any)
		var path []string
		for _, s := range asList(m["path"]) {
			path = append(path, fmt.Sprint(s))
		}
		payload = append(payload, fmt.Sprintf("%s %s: %s", m["code"], strings.Join(path, "."), m["message"]))
	}
	return payload, top
}

func asList(v any) []any { l, _ := v.([]any); return l }

// teamsOf returns the slugs of the teams username is a member of.
func teamsOf(t *testing.T, s *store.Store, username string) []string {
	t.Helper()
	u, err := s.FindUserByUsername(t.Context(), username)
	must(t, err)
	teams, err := s.FindTeams(t.Context(), store.TeamFilter{MemberID: &u.ID})
	must(t, err)
	slugs := []string{}
	for _, tm := range teams {
		slugs = append(slugs, tm.Slug)
	}
	return slugs
}

// TestOrganizationSingleSignOn runs an organization's single sign-on
// through a real server and a real OpenID Provider, on both databases:
// superusers set the SSO domains (with their refusals), a user's first
// single sign-on joins the auto-join teams (created or linked, never again
// after a removal), and ssoRequired ends password sessions and refuses
// passwords of the domain's people, superusers excepted.
func TestOrganizationSingleSignOn(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		ctx := t.Context()
		s := storetest.Open(t, d)
		p := oidctest.Start(t, orgSSOPeople...)
		_, base, log := ssoApp(t, s, p)
		acc := accounts.New(s)
		ana, anaKey := storetest.MustUser(t, s, "ana")
		_, rootKey := storetest.MustSuperuser(t, s, "root")
		storetest.MustUser(t, s, "gus")
		storetest.MustUser(t, s, "hal")
		for name, email := range map[string]string{"root": "root@acme.example", "gus": "gus@acme.example", "hal": "hal@acme.example"} {
			must(t, s.SetUserEmail(ctx, name, email))
		}
		for _, name := range []string{"root", "gus"} {
			must(t, acc.SetPassword(ctx, name, name+"-password"))
		}
		acme := &store.Organization{Slug: "acme", Name: "Acme"}
		must(t, s.CreateOrganization(ctx, acme, ana.ID))
		must(t, s.CreateOrganization(ctx, &store.Organization{Slug: "globex", Name: "Globex"}, ana.ID))
		must(t, s.CreateTeam(ctx, &store.Team{OrganizationID: acme.ID, Slug: "writers", Name: "Writers", Access: store.TeamAdmin, AutoJoinEmailUsers: true}, nil))

		// SSO domains: superusers only, checked, one organization each, at
		// most 20.
		for _, c := range []struct {
			name, key, org string
			domains        []string
			wantTop        []string
			wantErrors     []string
			wantDomains    []any
		}{
			{"owner", anaKey, "acme", []string{"acme.example"}, []string{"FORBIDDEN"}, nil, nil},
			{"not a domain", rootKey, "acme", []string{"acme.example", "https://acme.example/x"}, nil,
				[]string{"INVALID input.domains: Enter a valid plain or internationalized domain name value"}, nil},
			{"address", rootKey, "acme", []string{"eve@acme.example"}, nil,
				[]string{"INVALID input.domains: Enter a valid plain or internationalized domain name value"}, nil},
			{"set", rootKey, "acme", []string{" ACME.example", "acme.example"}, nil, nil, []any{"acme.example"}},
			{"another's", rootKey, "globex", []string{"Acme.Example"}, nil,
				[]string{"INVALID input.domains: This domain is already used by another organization."}, nil},
			{"too many", rootKey, "globex", func() []string {
				var l []string
				for i := range 21 {
					l = append(l, fmt.Sprintf("d%d.globex.example", i))
				}
				return l
			}(), nil, []string{"CONFLICT : An organization can have at most 20 SSO domains."}, nil},
		} {
			res := graphQL(t, base, c.key, setSSODomainsQuery, map[string]any{"org": c.org, "domains": c.domains})
			gotErrors, gotTop := payloadErrors(res, "setOrganizationSsoDomains")
			if !slices.Equal(gotTop, c.wantTop) || !slices.Equal(gotErrors, c.wantErrors) {
				t.Errorf("%s: top-level %v, errors %q; want %v, %q", c.name, gotTop, gotErrors, c.wantTop, c.wantErrors)
			}
			if c.wantDomains != nil {
				got := res["data"].(map[string]any)["setOrganizationSsoDomains"].(map[string]any)["organization"].(map[string]any)["ssoDomains"]
				if mustJSON(t, got) != mustJSON(t, c.wantDomains) {
					t.Errorf("%s: ssoDomains = %v, want %v", c.name, got, c.wantDomains)
				}
			}
		}
		// ssoRequired needs an SSO domain.
		res := graphQL(t, base, anaKey, setSSORequiredQuery, map[string]any{"org": "globex", "on": true})
		if got, _ := payloadErrors(res, "updateOrganization"); !slices.Equal(got, []string{"INVALID input.ssoRequired: Single sign-on can be required only when this server has an OIDC provider and the organization has an SSO domain."}) {
			t.Errorf("ssoRequired without a domain: %q", got)
		}

		// Example 2: eve has no user: created, joined to acme's auto-join
		// team (not to Read Only), sent to next.
		eveBrowser := newBrowserClient(t, base)
		resp, body := ssoSignIn(t, eveBrowser, p, "/projects/handbook/", "eve", "eve-password")
		if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/projects/handbook/" {
			t.Fatalf("eve's sign-in: %d %q\n%s", resp.StatusCode, resp.Header.Get("Location"), body)
		}
		if got := teamsOf(t, s, "eve"); !slices.Equal(got, []string{"writers"}) {
			t.Errorf("eve's teams = %v, want [writers]", got)
		}
		if !strings.Contains(log.String(), "action=team-member-added auth_backend=oidc log_user_username=eve") {
			t.Errorf("no audit line of eve joining writers:\n%s", log)
		}
		// hal exists with that verified email: linked, and joined.
		if resp, body := ssoSignIn(t, newBrowserClient(t, base), p, "/dashboard/", "hal", "hal-password"); resp.StatusCode != http.StatusFound {
			t.Fatalf("hal's sign-in: %d\n%s", resp.StatusCode, body)
		}
		if got := teamsOf(t, s, "hal"); !slices.Equal(got, []string{"writers"}) {
			t.Errorf("hal's teams = %v, want [writers]", got)
		}
		// mallory's domain is no organization's: no team.
		if resp, body := ssoSignIn(t, newBrowserClient(t, base), p, "/dashboard/", "mallory", "mal-password"); resp.StatusCode != http.StatusFound {
			t.Fatalf("mallory's sign-in: %d\n%s", resp.StatusCode, body)
		}
		if got := teamsOf(t, s, "mallory"); len(got) != 0 {
			t.Errorf("mallory's teams = %v, want none", got)
		}
		// The owner removes eve; her next sign-in does not add her again.
		res = graphQL(t, base, anaKey, `mutation { removeTeamMember(input: {organization: "acme", team: "writers", username: "eve"}) { errors { message } } }`, nil)
		if got, top := payloadErrors(res, "removeTeamMember"); len(got)+len(top) != 0 {
			t.Fatalf("removing eve: %v %v", got, top)
		}
		if resp, body := ssoSignIn(t, newBrowserClient(t, base), p, "/dashboard/", "eve", "eve-password"); resp.StatusCode != http.StatusFound {
			t.Fatalf("eve's second sign-in: %d\n%s", resp.StatusCode, body)
		}
		if got := teamsOf(t, s, "eve"); len(got) != 0 {
			t.Errorf("eve's teams after removal and sign-in = %v, want none", got)
		}

		// Example 5: gus signed in with a password before; the owner
		// requires single sign-on.
		gusBrowser := newBrowserClient(t, base)
		gusBrowser.signIn("gus", "gus-password")
		rootBrowser := newBrowserClient(t, base)
		rootBrowser.signIn("root", "root-password")
		res = graphQL(t, base, anaKey, setSSORequiredQuery, map[string]any{"org": "acme", "on": true})
		if got, top := payloadErrors(res, "updateOrganization"); len(got)+len(top) != 0 {
			t.Fatalf("ssoRequired: %v %v", got, top)
		}
		if _, page := gusBrowser.get("/dashboard/"); strings.Contains(page, `<span class="who">gus</span>`) {
			t.Errorf("gus's password session survived ssoRequired")
		}
		if _, page := rootBrowser.get("/dashboard/"); !strings.Contains(page, `<span class="who">root</span>`) {
			t.Errorf("the superuser's password session ended")
		}
		if _, page := eveBrowser.get("/dashboard/"); !strings.Contains(page, `<span class="who">eve</span>`) {
			t.Errorf("eve's single sign-on session ended")
		}
		login := func(c *browserClient, username, password string) (*http.Response, string) {
			_, page := c.get("/accounts/login/")
			return c.post("/accounts/login/", url.Values{"csrfmiddlewaretoken": {csrfOf(t, page)},
				"login": {username}, "password": {password}, "next": {"/dashboard/"}})
		}
		resp, body = login(gusBrowser, "gus", "gus-password")
		want := htmlText("Accounts with an email address at acme.example must sign in with single sign-on.")
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, want) || !strings.Contains(body, `name="password"`) {
			t.Errorf("gus's password sign-in: %d, want 403 with the form and %q\n%s", resp.StatusCode, want, body)
		}
		if !strings.Contains(log.String(), "action=authentication-failure auth_backend=password log_user_username=gus reason=sso-required") {
			t.Errorf("no audit line of gus's refused sign-in:\n%s", log)
		}
		resp, body = login(gusBrowser, "gus", "wrong-password")
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, htmlText(accounts.MsgBadCredentials)) {
			t.Errorf("gus's wrong password: %d\n%s", resp.StatusCode, body)
		}
		if resp, body := login(newBrowserClient(t, base), "root", "root-password"); resp.StatusCode != http.StatusSeeOther {
			t.Errorf("the superuser's password sign-in: %d\n%s", resp.StatusCode, body)
		}
		res = graphQL(t, base, anaKey, `{ organization(slug: "acme") { ssoRequired ssoDomains } }`, nil)
		if got := mustJSON(t, res["data"]); got != `{"organization":{"ssoDomains":["acme.example"],"ssoRequired":true}}` {
			t.Errorf("organization = %s", got)
		}
	})
}

// TestSingleSignOnPendingFlowCap checks the cap on sign-ins waiting for
// the identity provider, on both databases: one address may keep
// store.MaxPendingOIDCFlowsPerClient of them; the next start, from any
// browser at that address, is refused with its page and audit reason, and
// finishing one makes room for another.
func TestSingleSignOnPendingFlowCap(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		p := oidctest.Start(t, orgSSOPeople...)
		_, base, log := ssoApp(t, s, p)
		c := newBrowserClient(t, base)
		var last string
		for range store.MaxPendingOIDCFlowsPerClient {
			last = ssoStart(t, c, "/dashboard/")
		}
		const msg = "Too many sign-ins are waiting for the identity provider. Finish one, or start again in a few minutes."
		resp, body := c.get(accounts.OIDCLoginPath + "?next=/dashboard/")
		wantSSOFailure(t, resp, body, log, http.StatusTooManyRequests, msg, "too-many-sign-ins")
		other := newBrowserClient(t, base)
		resp, body = other.get(accounts.OIDCLoginPath + "?next=/dashboard/")
		wantSSOFailure(t, resp, body, log, http.StatusTooManyRequests, msg, "too-many-sign-ins")
		// The browser finishes its last sign-in: one place is free again.
		if resp, body := c.getURL(ssoCallback(t, c, p, last, "eve", "eve-password")); resp.StatusCode != http.StatusFound {
			t.Fatalf("finishing a sign-in: %d\n%s", resp.StatusCode, body)
		}
		ssoStart(t, other, "/dashboard/")
	})
}

// TestOrganizationSSODomainCommands runs `docsd organization sso-domain`:
// adding (again: no error), the API's refusals as `docsd: <message>` with
// status 1, and removing.
func TestOrganizationSSODomainCommands(t *testing.T) {
	dir := t.TempDir()
	data := "--data-dir=" + dir
	migrated(t, dir)
	for _, args := range [][]string{
		{"user", "create", "ana"},
		{"organization", "create", "acme", "--name", "Acme", "--owner", "ana"},
		{"organization", "create", "globex", "--name", "Globex", "--owner", "ana"},
	} {
		if code, _, errOut := docsd(t, append(args, data)...); code != 0 {
			t.Fatalf("%v: %d %s", args, code, errOut)
		}
	}
	for _, c := range []struct {
		args     []string
		code     int
		wantErr  string
		wantAcme []string
	}{
		{[]string{"add", "acme", "ACME.example"}, 0, "", []string{"acme.example"}},
		{[]string{"add", "acme", "acme.example"}, 0, "", []string{"acme.example"}},
		{[]string{"add", "acme", "docs.acme.example"}, 0, "", []string{"acme.example", "docs.acme.example"}},
		{[]string{"add", "acme", "eve@acme.example"}, 1, "docsd: domains: Enter a valid plain or internationalized domain name value\n", nil},
		{[]string{"add", "globex", "acme.example"}, 1, "docsd: domains: This domain is already used by another organization.\n", nil},
		{[]string{"add", "nosuch", "nosuch.example"}, 1, "docsd: Not found.\n", nil},
		{[]string{"remove", "acme", "other.example"}, 1, "docsd: The organization acme has no SSO domain other.example.\n", nil},
		{[]string{"remove", "acme", "Docs.Acme.example"}, 0, "", []string{"acme.example"}},
	} {
		code, _, errOut := docsd(t, append(append([]string{"organization", "sso-domain"}, c.args...), data)...)
		if code != c.code || (c.wantErr != "" && errOut != c.wantErr) {
			t.Errorf("sso-domain %v: %d %q, want %d %q", c.args, code, errOut, c.code, c.wantErr)
		}
		if c.wantAcme == nil {
			continue
		}
		s, err := store.Open(t.Context(), filepath.Join(dir, "docsd.db"))
		must(t, err)
		o, err := s.FindOrganizationBySlug(t.Context(), "acme")
		must(t, err)
		got, err := s.FindOrganizationSSODomains(t.Context(), []int64{o.ID})
		must(t, err)
		s.Close()
		if !slices.Equal(got[o.ID], c.wantAcme) {
			t.Errorf("after sso-domain %v: domains %v, want %v", c.args, got[o.ID], c.wantAcme)
		}
	}
	if code, _, errOut := docsd(t, "organization", "sso-domain", "list", "acme", "x.example", data); code != 2 || !strings.Contains(errOut, "usage: docsd organization sso-domain add|remove ORG DOMAIN") {
		t.Errorf("bad verb: %d %q", code, errOut)
	}
}
