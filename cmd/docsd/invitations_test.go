package main

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"docsd/internal/mail/mailtest"
	"docsd/internal/storetest"
	"docsd/store"
)

var invitationLink = regexp.MustCompile(`/invitations/([A-Za-z0-9]{32})/$`)

// TestInvitationExamples runs the invitation examples of the contract
// through a real server, on both databases: addTeamMember invites an
// outsider (link shown once, no relay), adds an organization member at
// once and names a missing user; the link page accepts for the right
// account only, refuses an expired invitation, declines, and answers 404
// for an unknown token.
func TestInvitationExamples(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		ctx := t.Context()
		s := storetest.Open(t, d)
		clock := storetest.SetClock(s, time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC))
		_, base := dashboardApp(t, s, "--public-url", "https://docs.example.com")
		users := map[string]*store.User{}
		for _, name := range []string{"alice", "bob", "cy"} {
			u, err := s.FindUserByUsername(ctx, name)
			if err != nil {
				u, _ = storetest.MustUser(t, s, name)
			}
			users[name] = u
		}
		org := &store.Organization{Slug: "acme", Name: "Acme"}
		must(t, s.CreateOrganization(ctx, org, users["alice"].ID))
		writers := &store.Team{OrganizationID: org.ID, Name: "Writers", Access: store.TeamAdmin}
		must(t, s.CreateTeam(ctx, writers, nil))
		must(t, s.AddTeamMember(ctx, writers.ID, users["cy"].ID))
		key := newKey(t, s, "alice")

		// 1. An email address outside the organization: an invitation, its link shown once.
		res := graphQL(t, base, key, `mutation { addTeamMember(input: {organization: "acme", team: "read-only", usernameOrEmail: "fay@partner.example"}) {
			member { username } invitation { toEmail expires objectType } url emailSent errors { path message code } } }`, nil)
		got := mustJSON(t, res["data"])
		m := regexp.MustCompile(`"url":"https://docs\.example\.com/invitations/([A-Za-z0-9]{32})/"`).FindStringSubmatch(got)
		if m == nil || !strings.Contains(got, `"member":null`) || !strings.Contains(got, `"emailSent":false`) || !strings.Contains(got, `"errors":[]`) ||
			!strings.Contains(got, `"expires":"2026-03-25T09:00:00Z","objectType":"team","toEmail":"fay@partner.example"`) {
			t.Fatalf("example 1: %s", got)
		}
		fayToken := m[1]
		// 2. A member of the organization joins at once.
		got = mustJSON(t, graphQL(t, base, key, `mutation { addTeamMember(input: {organization: "acme", team: "read-only", usernameOrEmail: "cy"}) {
			member { username } invitation { toEmail } errors { message } } }`, nil)["data"])
		if want := `{"addTeamMember":{"errors":[],"invitation":null,"member":{"username":"cy"}}}`; got != want {
			t.Errorf("example 2: %s, want %s", got, want)
		}
		// 3. Neither a user nor an email address.
		got = mustJSON(t, graphQL(t, base, key, `mutation { addTeamMember(input: {organization: "acme", team: "read-only", usernameOrEmail: "nobody"}) {
			member { username } errors { path message code } } }`, nil)["data"])
		if want := `{"addTeamMember":{"errors":[{"code":"INVALID","message":"User nobody does not exist","path":["input","usernameOrEmail"]}],"member":null}}`; got != want {
			t.Errorf("example 3: %s, want %s", got, want)
		}

		// The link page: anyone holding the token reads it.
		anon := newBrowserClient(t, base)
		resp, page := anon.get("/invitations/" + fayToken + "/")
		if resp.StatusCode != http.StatusOK || !strings.Contains(page, "alice has invited you to join the acme read-only team.") {
			t.Fatalf("GET the link page: %d\n%s", resp.StatusCode, page)
		}
		if resp, _ := anon.get("/invitations/" + strings.Repeat("x", 32) + "/"); resp.StatusCode != http.StatusNotFound {
			t.Errorf("unknown token: %d, want 404", resp.StatusCode)
		}
		// Accepting needs a session: not signed in, the sign-in page.
		resp, _ = anon.post("/invitations/"+fayToken+"/", url.Values{"accept": {"1"}})
		if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusFound || loc != "/accounts/login/?next="+url.QueryEscape("/invitations/"+fayToken+"/") {
			t.Errorf("accept, not signed in: %d %s", resp.StatusCode, loc)
		}

		// An invitation for bob: alice may not accept it; bob may.
		res = graphQL(t, base, key, `mutation { inviteMaintainer(input: {slug: "demo", usernameOrEmail: "bob"}) { invitation { toUser { username } } url emailSent errors { message } } }`, nil)
		bobURL, _ := res["data"].(map[string]any)["inviteMaintainer"].(map[string]any)["url"].(string)
		bm := invitationLink.FindStringSubmatch(bobURL)
		if bm == nil {
			t.Fatalf("inviteMaintainer: %s", mustJSON(t, res))
		}
		alice := newBrowserClient(t, base)
		csrf := alice.signIn("alice", "alice-password")
		resp, page = alice.post("/invitations/"+bm[1]+"/", url.Values{"csrfmiddlewaretoken": {csrf}, "accept": {"1"}})
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(page, "This invitation is for another account. Sign out and sign in as bob.") {
			t.Errorf("alice accepts bob's invitation: %d\n%s", resp.StatusCode, page)
		}
		bob := newBrowserClient(t, base)
		csrf = bob.signIn("bob", "bob-password")
		resp, _ = bob.post("/invitations/"+bm[1]+"/", url.Values{"csrfmiddlewaretoken": {csrf}, "accept": {"1"}})
		if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/projects/demo/" {
			t.Errorf("bob accepts: %d %s", resp.StatusCode, resp.Header.Get("Location"))
		}
		demo, err := s.FindProjectBySlug(ctx, "demo")
		must(t, err)
		if ms, _ := s.FindMaintainers(ctx, []int64{demo.ID}); len(ms) != 2 {
			t.Errorf("demo's maintainers after bob accepted: %d, want 2", len(ms))
		}
		if resp, _ := bob.get("/invitations/" + bm[1] + "/"); resp.StatusCode != http.StatusNotFound {
			t.Errorf("an accepted invitation's link: %d, want 404", resp.StatusCode)
		}

		// An email invitation: a signed-in user joins as themself.
		resp, _ = bob.post("/invitations/"+fayToken+"/", url.Values{"csrfmiddlewaretoken": {csrf}, "accept": {"1"}})
		if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/organizations/acme/" {
			t.Errorf("bob accepts fay's team invitation: %d %s", resp.StatusCode, resp.Header.Get("Location"))
		}
		if in, _ := s.IsOrganizationMember(ctx, org.ID, users["bob"].ID); !in {
			t.Errorf("bob is not in acme after accepting")
		}

		// 5. Expired.
		res = graphQL(t, base, key, `mutation { inviteOrganizationOwner(input: {organization: "acme", usernameOrEmail: "bob"}) { url errors { message } } }`, nil)
		ownerURL, _ := res["data"].(map[string]any)["inviteOrganizationOwner"].(map[string]any)["url"].(string)
		om := invitationLink.FindStringSubmatch(ownerURL)
		if om == nil {
			t.Fatalf("inviteOrganizationOwner: %s", mustJSON(t, res))
		}
		clock.Advance(15*24*time.Hour + time.Second)
		csrf = bob.signIn("bob", "bob-password") // the session ended meanwhile
		resp, page = bob.post("/invitations/"+om[1]+"/", url.Values{"csrfmiddlewaretoken": {csrf}, "accept": {"1"}})
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, "Invitation has expired.") {
			t.Errorf("accept an expired invitation: %d\n%s", resp.StatusCode, page)
		}
		// Declining deletes it.
		resp, _ = bob.post("/invitations/"+om[1]+"/", url.Values{"csrfmiddlewaretoken": {csrf}, "decline": {"1"}})
		if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/" {
			t.Errorf("decline: %d %s", resp.StatusCode, resp.Header.Get("Location"))
		}
		if _, err := s.FindInvitationByToken(ctx, om[1]); err == nil {
			t.Errorf("a declined invitation is still stored")
		}
		entries, _, err := s.FindAuditEntries(ctx, store.AuditFilter{Visible: store.AuditVisibility{All: true}}, store.Page{Limit: 100})
		must(t, err)
		seen := map[string]int{}
		for _, e := range entries {
			seen[e.Action]++
		}
		if seen[store.AuditInvitationSent] != 3 || seen[store.AuditInvitationAccepted] != 2 || seen[store.AuditInvitationDeclined] != 1 {
			t.Errorf("audit actions: %v", seen)
		}
	})
}

// TestInvitationEmail: with a mail relay (mailpit, STARTTLS and AUTH
// PLAIN) an invitation to an email address is mailed, not shown; the
// invitee follows the mailed link, signs in and joins.
func TestInvitationEmail(t *testing.T) {
	relay := mailtest.Start(t)
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		ctx := t.Context()
		s := storetest.Open(t, d)
		a, base := dashboardApp(t, s, "--public-url", "https://docs.example.com", "--allow-private-network",
			"--smtp-addr", relay.SMTPAddr, "--smtp-username", relay.Username, "--smtp-password", relay.Password,
			"--invitation-expiration-days", "7")
		// The test's relay has a certificate of its own.
		a.settings.mailRootCAs = relay.RootCAs
		key := newKey(t, s, "alice")
		to := "bob-" + string(d) + "@partner.example"
		res := graphQL(t, base, key, `mutation($to: String!) { inviteMaintainer(input: {slug: "demo", usernameOrEmail: $to}) {
			invitation { toEmail expires } url emailSent errors { message } } }`, map[string]any{"to": to})
		got := mustJSON(t, res["data"])
		if !strings.Contains(got, `"emailSent":true`) || !strings.Contains(got, `"url":null`) {
			t.Fatalf("inviteMaintainer with a relay: %s", got)
		}
		msg := relay.WaitMessage(t, 60*time.Second, func(m mailtest.Message) bool { return len(m.To) == 1 && m.To[0].Address == to })
		link := regexp.MustCompile(`https://docs\.example\.com(/invitations/[A-Za-z0-9]{32}/)`).FindStringSubmatch(msg.Text)
		if msg.Subject != "alice has invited you to join the demo project" || link == nil ||
			!strings.Contains(msg.Text, "You can accept or decline this invitation using the following link:") ||
			!regexp.MustCompile(`This invitation will expire in 7 days \(\d{4}-\d{2}-\d{2}\)\.`).MatchString(msg.Text) {
			t.Fatalf("message = %+v", msg)
		}
		bob := newBrowserClient(t, base)
		csrf := bob.signIn("bob", "bob-password")
		resp, page := bob.get(link[1])
		if resp.StatusCode != http.StatusOK || !strings.Contains(page, "alice has invited you to join the demo project.") {
			t.Fatalf("the mailed link: %d\n%s", resp.StatusCode, page)
		}
		resp, _ = bob.post(link[1], url.Values{"csrfmiddlewaretoken": {csrf}, "accept": {"1"}})
		if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/projects/demo/" {
			t.Errorf("accept: %d %s", resp.StatusCode, resp.Header.Get("Location"))
		}
		demo, err := s.FindProjectBySlug(ctx, "demo")
		must(t, err)
		if ms, _ := s.FindMaintainers(ctx, []int64{demo.ID}); len(ms) != 2 {
			t.Errorf("demo's maintainers after accepting: %d, want 2", len(ms))
		}
	})
}

// signUpForm reads the sign-up form of an invitation page as a visitor
// who is not signed in: its CSRF token, or "" when the page offers none.
func signUpForm(t *testing.T, c *browserClient, path string) string {
	t.Helper()
	resp, page := c.get(path)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d\n%s", path, resp.StatusCode, page)
	}
	if !strings.Contains(page, `id="id_username"`) {
		return ""
	}
	return csrfOf(t, page)
}

// TestInvitationSignUp runs the sign-up of an email invitation through a
// real server, on both databases: the contract's example (fay signs up
// on the link page, joins the team, is signed in and sent to the
// organization), refused forms that write nothing, an invitation for a
// named user that never makes an account, an expired one, and the
// setting that turns sign-up off.
func TestInvitationSignUp(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		ctx := t.Context()
		s := storetest.Open(t, d)
		clock := storetest.SetClock(s, time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC))
		_, base := dashboardApp(t, s, "--public-url", "https://docs.example.com")
		alice := mustUserByName(t, s, "alice")
		org := &store.Organization{Slug: "acme", Name: "Acme"}
		must(t, s.CreateOrganization(ctx, org, alice.ID))
		key := newKey(t, s, "alice")
		invite := func(who string) string {
			t.Helper()
			res := graphQL(t, base, key, `mutation($who: String!) { addTeamMember(input: {organization: "acme", team: "read-only", usernameOrEmail: $who}) { url errors { message } } }`,
				map[string]any{"who": who})
			link, _ := res["data"].(map[string]any)["addTeamMember"].(map[string]any)["url"].(string)
			m := invitationLink.FindStringSubmatch(link)
			if m == nil {
				t.Fatalf("addTeamMember %s: %s", who, mustJSON(t, res))
			}
			return "/invitations/" + m[1] + "/"
		}
		fayLink := invite("fay@partner.example")
		// The team page's form, without a mail relay: the link, shown once.
		owner := newBrowserClient(t, base)
		ownerCSRF := owner.signIn("alice", "alice-password")
		resp, page := owner.post("/organizations/acme/teams/read-only/members/invite/", url.Values{"csrfmiddlewaretoken": {ownerCSRF}, "username": {"gil@partner.example"}})
		if resp.StatusCode != http.StatusOK || !strings.Contains(page, "Copy this link to gil@partner.example") ||
			!regexp.MustCompile(`id="id_invitation_url" readonly value="https://docs\.example\.com/invitations/[A-Za-z0-9]{32}/"`).MatchString(page) {
			t.Errorf("the team page after inviting gil: %d\n%s", resp.StatusCode, page)
		}
		if m := regexp.MustCompile(`(?s)<ul id="pending-invitations">(.*?)</ul>`).FindStringSubmatch(page); m == nil ||
			!strings.Contains(m[1], "fay@partner.example · expires 2026-03-25 09:00:00 UTC") || !strings.Contains(m[1], "gil@partner.example") {
			t.Errorf("the team's pending invitations: %v", m)
		}
		users := func() int {
			t.Helper()
			var n int
			for _, name := range []string{"fay", "Fay", "eve"} {
				if _, err := s.FindUserByUsername(ctx, name); err == nil {
					n++
				}
			}
			return n
		}

		visitor := newBrowserClient(t, base)
		csrf := signUpForm(t, visitor, fayLink)
		if csrf == "" {
			t.Fatalf("the page of an email invitation offers no sign-up form")
		}
		// Refused forms: a message by the field, nothing written.
		for _, tc := range []struct {
			name, username, password, csrf string
			code                           int
			want                           string
		}{
			{"no CSRF token", "fay", "fay-password", "x", http.StatusForbidden, "CSRF verification failed."},
			{"no username", " ", "fay-password", csrf, http.StatusBadRequest, "This field is required."},
			{"bad username", "fay smith", "fay-password", csrf, http.StatusBadRequest,
				"Enter a valid username. This value may contain only letters, numbers, and @/./+/-/_ characters."},
			{"taken username", "ALICE", "fay-password", csrf, http.StatusBadRequest, "A user with that username already exists."},
			{"short password", "fay", "short", csrf, http.StatusBadRequest, "This password is too short. It must contain at least 8 characters."},
		} {
			resp, page := visitor.post(fayLink, url.Values{"csrfmiddlewaretoken": {tc.csrf}, "accept": {"1"}, "username": {tc.username}, "password": {tc.password}})
			if resp.StatusCode != tc.code || !strings.Contains(html.UnescapeString(page), tc.want) {
				t.Errorf("%s: %d, want %d with %q\n%s", tc.name, resp.StatusCode, tc.code, tc.want, page)
			}
		}
		if n := users(); n != 0 {
			t.Fatalf("refused sign-ups created %d users", n)
		}

		// 4. fay signs up: created, member of read-only, signed in, sent to the organization.
		resp, page = visitor.post(fayLink, url.Values{"csrfmiddlewaretoken": {csrf}, "accept": {"1"}, "username": {"fay"}, "password": {"fay-password"}})
		if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/organizations/acme/" {
			t.Fatalf("example 4: %d %s\n%s", resp.StatusCode, resp.Header.Get("Location"), page)
		}
		fay := mustUserByName(t, s, "fay")
		if fay.Email != "fay@partner.example" || fay.EmailVerified || !fay.IsActive || fay.IsSuperuser {
			t.Errorf("fay = %+v, want the invitation's address, unverified (it was not emailed)", fay)
		}
		readOnly, err := s.FindTeamBySlug(ctx, org.ID, "read-only")
		must(t, err)
		if ms, _ := s.FindTeamMembers(ctx, []int64{readOnly.ID}); len(ms) != 1 || ms[0].User.ID != fay.ID {
			t.Errorf("read-only's members after fay signed up: %+v", ms)
		}
		if resp, page := visitor.get("/organizations/acme/"); resp.StatusCode != http.StatusOK || !strings.Contains(page, "fay") {
			t.Errorf("fay's session: GET /organizations/acme/ = %d", resp.StatusCode)
		}
		if resp, _ := visitor.get(fayLink); resp.StatusCode != http.StatusNotFound {
			t.Errorf("the used link: %d, want 404", resp.StatusCode)
		}
		entries, _, err := s.FindAuditEntries(ctx, store.AuditFilter{Visible: store.AuditVisibility{All: true}, Action: store.AuditInvitationAccepted}, store.Page{Limit: 10})
		must(t, err)
		if len(entries) != 1 || entries[0].UserID == nil || *entries[0].UserID != fay.ID || entries[0].OrganizationID == nil || *entries[0].OrganizationID != org.ID {
			t.Errorf("invitation-accepted entries: %+v", entries)
		}

		// An invitation for a named user never makes an account, whoever holds its link.
		bobLink := invite("bob")
		other := newBrowserClient(t, base)
		if signUpForm(t, other, bobLink) != "" {
			t.Errorf("the page of bob's invitation offers a sign-up form")
		}
		resp, _ = other.post(bobLink, url.Values{"csrfmiddlewaretoken": {csrf}, "accept": {"1"}, "username": {"eve"}, "password": {"eve-password"}})
		if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/accounts/login/?next="+url.QueryEscape(bobLink) {
			t.Errorf("sign-up with bob's invitation: %d %s, want 302 to sign in", resp.StatusCode, resp.Header.Get("Location"))
		}

		// Expired: no form, and the form posted anyway is refused.
		eveLink := invite("eve@partner.example")
		eveCSRF := signUpForm(t, other, eveLink)
		clock.Advance(15*24*time.Hour + time.Second)
		if signUpForm(t, other, eveLink) != "" {
			t.Errorf("an expired invitation's page offers a sign-up form")
		}
		resp, page = other.post(eveLink, url.Values{"csrfmiddlewaretoken": {eveCSRF}, "accept": {"1"}, "username": {"eve"}, "password": {"eve-password"}})
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, "Invitation has expired.") {
			t.Errorf("sign-up with an expired invitation: %d\n%s", resp.StatusCode, page)
		}
		if n := users(); n != 1 {
			t.Errorf("users fay, Fay, eve: %d, want fay only", n)
		}
	})
}

// TestInvitationSignUpOff: with --invitation-signup=false the link page
// of an email invitation has no sign-up form, and a sign-up posted anyway
// is sent to sign in, creating nobody.
func TestInvitationSignUpOff(t *testing.T) {
	s := storetest.Open(t, store.SQLite)
	_, base := dashboardApp(t, s, "--public-url", "https://docs.example.com", "--invitation-signup=false")
	key := newKey(t, s, "alice")
	res := graphQL(t, base, key, `mutation { inviteMaintainer(input: {slug: "demo", usernameOrEmail: "fay@partner.example"}) { url errors { message } } }`, nil)
	link, _ := res["data"].(map[string]any)["inviteMaintainer"].(map[string]any)["url"].(string)
	m := invitationLink.FindStringSubmatch(link)
	if m == nil {
		t.Fatalf("inviteMaintainer: %s", mustJSON(t, res))
	}
	path := "/invitations/" + m[1] + "/"
	visitor := newBrowserClient(t, base)
	resp, page := visitor.get(path)
	if resp.StatusCode != http.StatusOK || strings.Contains(page, `id="id_username"`) || !strings.Contains(page, "Sign in to accept or decline") {
		t.Errorf("the page with sign-up off: %d\n%s", resp.StatusCode, page)
	}
	resp, _ = visitor.post(path, url.Values{"csrfmiddlewaretoken": {"x"}, "accept": {"1"}, "username": {"fay"}, "password": {"fay-password"}})
	if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/accounts/login/?next="+url.QueryEscape(path) {
		t.Errorf("a sign-up posted with sign-up off: %d %s, want 302 to sign in", resp.StatusCode, resp.Header.Get("Location"))
	}
	if _, err := s.FindUserByUsername(t.Context(), "fay"); err == nil {
		t.Errorf("a sign-up with sign-up off created fay")
	}
}

// TestInvitationNodes reads pending invitations through GraphQL on both
// databases: each target's list for those who may invite to it (a
// member who is not an owner gets null and FORBIDDEN), the invitee's own
// list (by username and by verified email), and node(id:) for the
// invitee and the inviters only.
func TestInvitationNodes(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		ctx := t.Context()
		s := storetest.Open(t, d)
		_, base := dashboardApp(t, s, "--public-url", "https://docs.example.com")
		alice := mustUserByName(t, s, "alice")
		org := &store.Organization{Slug: "acme", Name: "Acme"}
		must(t, s.CreateOrganization(ctx, org, alice.ID))
		cy, _ := storetest.MustUser(t, s, "cy")
		readOnly, err := s.FindTeamBySlug(ctx, org.ID, "read-only")
		must(t, err)
		must(t, s.AddTeamMember(ctx, readOnly.ID, cy.ID))
		aliceKey, bobKey, cyKey := newKey(t, s, "alice"), newKey(t, s, "bob"), newKey(t, s, "cy")

		ids := map[string]string{}
		for _, inv := range []struct{ name, q string }{ // in this order: lists are oldest first
			{"team", `mutation { addTeamMember(input: {organization: "acme", team: "read-only", usernameOrEmail: "Dee@Partner.example"}) { invitation { id } errors { message } } }`},
			{"owner", `mutation { inviteOrganizationOwner(input: {organization: "acme", usernameOrEmail: "bob"}) { invitation { id } errors { message } } }`},
			{"project", `mutation { inviteMaintainer(input: {slug: "demo", usernameOrEmail: "bob"}) { invitation { id } errors { message } } }`},
		} {
			name := inv.name
			res := graphQL(t, base, aliceKey, inv.q, nil)
			for _, payload := range res["data"].(map[string]any) {
				inv, _ := payload.(map[string]any)["invitation"].(map[string]any)
				if inv == nil {
					t.Fatalf("%s: %s", name, mustJSON(t, res))
				}
				ids[name] = inv["id"].(string)
			}
		}
		// dee signs up elsewhere later and verifies the invited address.
		_, err = s.CreateUser(ctx, "dee", "dee@partner.example", false)
		must(t, err)
		deeKey := newKey(t, s, "dee")

		lists := `{ organization(slug: "acme") { pendingInvitations { totalCount nodes { objectType toUser { username } } } }
			team: organization(slug: "acme") { teams { nodes { slug pendingInvitations { totalCount nodes { toEmail } } } } }
			project(slug: "demo") { pendingInvitations { totalCount nodes { objectType } } } }`
		got := mustJSON(t, graphQL(t, base, aliceKey, lists, nil))
		for _, want := range []string{
			`"organization":{"pendingInvitations":{"nodes":[{"objectType":"organization","toUser":{"username":"bob"}}],"totalCount":1}}`,
			`{"pendingInvitations":{"nodes":[{"toEmail":"Dee@Partner.example"}],"totalCount":1},"slug":"read-only"}`,
			`"project":{"pendingInvitations":{"nodes":[{"objectType":"project"}],"totalCount":1}}`,
		} {
			if !strings.Contains(got, want) {
				t.Errorf("alice's lists: %s\nwant %s", got, want)
			}
		}
		// cy is a member, not an owner.
		res := graphQL(t, base, cyKey, `{ organization(slug: "acme") { slug pendingInvitations { totalCount } teams { nodes { pendingInvitations { totalCount } } } } }`, nil)
		if got := mustJSON(t, res); !strings.Contains(got, `"pendingInvitations":null`) || !strings.Contains(got, `"code":"FORBIDDEN"`) || !strings.Contains(got, `"slug":"acme"`) {
			t.Errorf("cy's lists: %s", got)
		}

		// The invitees' own lists.
		mine := `{ viewer { pendingInvitations { totalCount nodes { objectType } } } }`
		if got, want := mustJSON(t, graphQL(t, base, bobKey, mine, nil)["data"]),
			`{"viewer":{"pendingInvitations":{"nodes":[{"objectType":"organization"},{"objectType":"project"}],"totalCount":2}}}`; got != want {
			t.Errorf("bob's invitations: %s, want %s", got, want)
		}
		if got, want := mustJSON(t, graphQL(t, base, deeKey, mine, nil)["data"]),
			`{"viewer":{"pendingInvitations":{"nodes":[{"objectType":"team"}],"totalCount":1}}}`; got != want {
			t.Errorf("dee's invitations (by verified email): %s, want %s", got, want)
		}

		// node(id:): the invitee and the inviters, nobody else.
		for _, tc := range []struct {
			who, key, inv string
			found         bool
		}{
			{"alice", aliceKey, "team", true}, {"alice", aliceKey, "project", true}, {"alice", aliceKey, "owner", true},
			{"bob", bobKey, "owner", true}, {"bob", bobKey, "project", true}, {"bob", bobKey, "team", false},
			{"dee", deeKey, "team", true}, {"dee", deeKey, "owner", false},
			{"cy", cyKey, "team", false}, {"anonymous", "", "team", false},
		} {
			res := graphQL(t, base, tc.key, `query($id: ID!) { node(id: $id) { id ... on Invitation { databaseId objectType } } }`, map[string]any{"id": ids[tc.inv]})
			got := mustJSON(t, res)
			if found := strings.Contains(got, `"id":"`+ids[tc.inv]+`"`); found != tc.found ||
				(!tc.found && !strings.Contains(got, `"code":"NOT_FOUND"`)) {
				t.Errorf("node(%s invitation) as %s: %s, want found %v", tc.inv, tc.who, got, tc.found)
			}
		}
	})
}
