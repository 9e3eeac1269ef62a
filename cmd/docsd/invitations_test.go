package main

import (
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
		if loc := resp.Header.Get("Location"); resp.StatusCode/100 != 3 || !strings.HasPrefix(loc, "/accounts/login/?next=") ||
			!strings.Contains(loc, url.QueryEscape("/invitations/"+fayToken+"/")) {
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
