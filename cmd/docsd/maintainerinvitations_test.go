package main

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"docsd/internal/mail/mailtest"
	"docsd/internal/storetest"
	"docsd/store"
)

// pendingIDs are the invitation ids of a page's Revoke buttons.
func pendingIDs(page string) []string {
	var ids []string
	for _, m := range regexp.MustCompile(`<input type="hidden" name="id" value="([^"]+)">`).FindAllStringSubmatch(page, -1) {
		ids = append(ids, m[1])
	}
	return ids
}

// TestMaintainerInvitationPage drives the maintainers page's invitations
// through a real server and a real mail relay, on both databases: alice
// invites an email address, the page says the mail went out and lists
// the pending invitation, which arrives by mail; an unknown username is
// refused next to the field; bob, who maintains nothing, gets the
// not-found page for the page, the invite and the revoke; alice revokes
// the invitation, which leaves the list and is recorded as
// invitation-revoked in the project's audit log. A team's page revokes
// its pending invitations the same way.
func TestMaintainerInvitationPage(t *testing.T) {
	relay := mailtest.Start(t)
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		a, base := dashboardApp(t, s, "--allow-private-network",
			"--smtp-addr", relay.SMTPAddr, "--smtp-username", relay.Username, "--smtp-password", relay.Password)
		a.settings.mailRootCAs = relay.RootCAs // the test relay's own certificate
		alice := newBrowserClient(t, base)
		csrf := alice.signIn("alice", "alice-password")
		to := "gil-" + string(d) + "@partner.example"

		page := postForm(t, alice, csrf, "/projects/demo/users/invite/", url.Values{"invitee": {" " + to + " "}}, http.StatusOK)
		if !strings.Contains(page, "Invitation sent to "+to+" by email.") || strings.Contains(page, "Copy this link") {
			t.Errorf("the page after inviting: want the mail sent\n%s", page)
		}
		relay.WaitMessage(t, 60*time.Second, func(m mailtest.Message) bool { return len(m.To) == 1 && m.To[0].Address == to })
		resp, page := alice.get("/projects/demo/users/")
		ids := pendingIDs(page)
		if resp.StatusCode != http.StatusOK || len(ids) != 1 || !strings.Contains(page, `<ul id="pending-invitations">`) ||
			!strings.Contains(page, "<li>"+to+" · expires") || !strings.Contains(page, `action="/projects/demo/users/invitations/revoke/"`) {
			t.Fatalf("the maintainers page: %d, want one pending invitation to %s with a Revoke button\n%s", resp.StatusCode, to, page)
		}

		page = postForm(t, alice, csrf, "/projects/demo/users/invite/", url.Values{"invitee": {"nobody"}}, http.StatusBadRequest)
		if !strings.Contains(page, `<p class="field-error" id="id_invitee_error">User nobody does not exist</p>`) || !strings.Contains(page, `value="nobody"`) {
			t.Errorf("an unknown invitee: want the message next to the field\n%s", page)
		}

		page = postForm(t, alice, csrf, "/projects/demo/users/", url.Values{"username": {"nobody"}}, http.StatusBadRequest)
		if len(pendingIDs(page)) != 1 || !strings.Contains(page, `id="id_username_error"`) {
			t.Errorf("the add form refused: want its message and the pending list still there\n%s", page)
		}

		bob := newBrowserClient(t, base)
		bobCSRF := bob.signIn("bob", "bob-password")
		if resp, page := bob.get("/projects/demo/users/"); resp.StatusCode != http.StatusNotFound || strings.Contains(page, to) {
			t.Errorf("bob's maintainers page: %d, want 404", resp.StatusCode)
		}
		postForm(t, bob, bobCSRF, "/projects/demo/users/invite/", url.Values{"invitee": {"eve@partner.example"}}, http.StatusNotFound)
		postForm(t, bob, bobCSRF, "/projects/demo/users/invitations/revoke/", url.Values{"id": {ids[0]}}, http.StatusNotFound)
		if _, page := alice.get("/projects/demo/users/"); len(pendingIDs(page)) != 1 || strings.Contains(page, "eve@partner.example") {
			t.Errorf("after bob's tries: want alice's invitation alone\n%s", page)
		}

		resp, _ = alice.post("/projects/demo/users/invitations/revoke/", url.Values{"csrfmiddlewaretoken": {csrf}, "id": {ids[0]}})
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/projects/demo/users/" {
			t.Fatalf("revoke: %d to %q, want 303 to the maintainers page", resp.StatusCode, resp.Header.Get("Location"))
		}
		if _, page := alice.get("/projects/demo/users/"); strings.Contains(page, to) || strings.Contains(page, "pending-invitations") {
			t.Errorf("after revoking: the invitation is still listed\n%s", page)
		}
		entries, _, err := s.FindAuditEntries(t.Context(), store.AuditFilter{Visible: store.AuditVisibility{All: true},
			Action: store.AuditInvitationRevoked, Project: "demo"}, store.Page{Limit: 10})
		must(t, err)
		if len(entries) != 1 || entries[0].LogUserUsername == nil || *entries[0].LogUserUsername != "alice" {
			t.Errorf("invitation-revoked entries of demo: %d, want one by alice", len(entries))
		}

		// A team's pending invitation has the same Revoke button.
		org := &store.Organization{Slug: "acme", Name: "Acme"}
		must(t, s.CreateOrganization(t.Context(), org, mustUserByName(t, s, "alice").ID))
		must(t, s.CreateTeam(t.Context(), &store.Team{OrganizationID: org.ID, Slug: "readers", Name: "Readers", Access: store.TeamReadonly}, nil))
		page = postForm(t, alice, csrf, "/organizations/acme/teams/readers/members/invite/", url.Values{"username": {to}}, http.StatusOK)
		ids = pendingIDs(page)
		if len(ids) != 1 || !strings.Contains(page, `action="/organizations/acme/teams/readers/invitations/revoke/"`) {
			t.Fatalf("the team page after inviting: want one Revoke button\n%s", page)
		}
		postForm(t, bob, bobCSRF, "/organizations/acme/teams/readers/invitations/revoke/", url.Values{"id": {ids[0]}}, http.StatusNotFound)
		resp, _ = alice.post("/organizations/acme/teams/readers/invitations/revoke/", url.Values{"csrfmiddlewaretoken": {csrf}, "id": {ids[0]}})
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/organizations/acme/teams/readers/" {
			t.Fatalf("team revoke: %d to %q, want 303 to the team page", resp.StatusCode, resp.Header.Get("Location"))
		}
		if _, page := alice.get("/organizations/acme/teams/readers/"); strings.Contains(page, to) {
			t.Errorf("after revoking the team's invitation: still listed\n%s", page)
		}
	})
}

// TestBrowserMaintainerInvitation invites from the maintainers page in
// headless Chromium and takes its screenshot (maintainer-invitations.png,
// under DOCSD_SCREENSHOTS when set): the sent notice and the pending
// list with its Revoke button, which revokes.
func TestBrowserMaintainerInvitation(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end browser test; skipped with -short")
	}
	relay := mailtest.Start(t)
	ctx := newBrowser(t)
	s := storetest.Open(t, store.SQLite)
	a, base := dashboardApp(t, s, "--allow-private-network",
		"--smtp-addr", relay.SMTPAddr, "--smtp-username", relay.Username, "--smtp-password", relay.Password)
	a.settings.mailRootCAs = relay.RootCAs
	b := browserTab{t, ctx}
	run, at, text := b.run, b.at, b.text

	run("sign-in", chromedp.Navigate(base+"/accounts/login/?next=/projects/demo/users/"),
		chromedp.WaitVisible("#id_login", chromedp.ByQuery),
		chromedp.SendKeys("#id_login", "alice", chromedp.ByQuery),
		chromedp.SendKeys("#id_password", "alice-password", chromedp.ByQuery),
		chromedp.Submit("#id_password", chromedp.ByQuery))
	at("sign-in", base+"/projects/demo/users/")
	run("invite", chromedp.WaitVisible("#id_invitee", chromedp.ByQuery),
		chromedp.SendKeys("#id_invitee", "gil@partner.example", chromedp.ByQuery),
		chromedp.Submit("#id_invitee", chromedp.ByQuery),
		chromedp.WaitVisible("#invited", chromedp.ByQuery))
	if got := text("#invited"); !strings.Contains(got, "Invitation sent to gil@partner.example by email.") {
		t.Errorf("the page after inviting: %q", got)
	}
	if got := text("#pending-invitations"); !strings.Contains(got, "gil@partner.example") || !strings.Contains(got, "Revoke") {
		t.Errorf("pending invitations: %q", got)
	}
	run("scroll", chromedp.ScrollIntoView("#pending-invitations", chromedp.ByQuery))
	screenshot(t, ctx, "maintainer-invitations.png")
	run("revoke", chromedp.Click(`#pending-invitations button`, chromedp.ByQuery),
		chromedp.WaitNotPresent("#pending-invitations", chromedp.ByQuery))
	at("revoke", base+"/projects/demo/users/")
}

// TestMaintainerInvitationLink invites from the maintainers page of a
// server without a mail relay, on both databases: the page shows the
// invitation's link this once, for the inviter to pass on, and the
// link's page names the project.
func TestMaintainerInvitationLink(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		_, base := dashboardApp(t, s)
		alice := newBrowserClient(t, base)
		csrf := alice.signIn("alice", "alice-password")
		page := postForm(t, alice, csrf, "/projects/demo/users/invite/", url.Values{"invitee": {"bob"}}, http.StatusOK)
		link := regexp.MustCompile(`<input id="id_invitation_url" readonly value="[^"]*(/invitations/[A-Za-z0-9]{32}/)">`).FindStringSubmatch(page)
		if link == nil || !strings.Contains(page, "Copy this link to bob") || strings.Contains(page, "by email.") {
			t.Fatalf("the page after inviting without a relay: want the link once\n%s", page)
		}
		if _, page := alice.get("/projects/demo/users/"); strings.Contains(page, "id_invitation_url") {
			t.Errorf("the link is shown again on the next visit\n%s", page)
		}
		bob := newBrowserClient(t, base)
		bob.signIn("bob", "bob-password")
		if resp, page := bob.get(link[1]); resp.StatusCode != http.StatusOK || !strings.Contains(page, "alice has invited you to join the demo project.") {
			t.Errorf("the link's page: %d\n%s", resp.StatusCode, page)
		}
	})
}
