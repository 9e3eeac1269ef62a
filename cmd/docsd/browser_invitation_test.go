package main

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"docsd/internal/mail/mailtest"
	"docsd/internal/storetest"
	"docsd/store"
)

// TestBrowserInvitationSignUp drives an invitation by email in headless
// Chromium against a real server and a real mail relay (mailpit): alice,
// owner of Acme, invites fay@partner.example to the readonly team that
// reads the private project Secret; the mail arrives; the browser,
// signed out, follows the mailed link, creates fay's account on the
// invitation's page and lands on the organization; fay then reads
// Secret's private docs on the docs origin through the dashboard's
// sign-in hand-off. Screenshots go to DOCSD_SCREENSHOTS when set.
func TestBrowserInvitationSignUp(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end browser test; skipped with -short")
	}
	relay := mailtest.Start(t)
	ctx := newBrowser(t, chromedp.Flag("host-resolver-rules", "MAP *.docs.test 127.0.0.1"))
	s := storetest.Open(t, store.SQLite)
	a, base := servedAtPublicURL(t, s, "--build-workers", "0", "--docs-domain", "docs.test", "--docs-scheme", "http",
		"--allow-private-network", "--smtp-addr", relay.SMTPAddr, "--smtp-username", relay.Username, "--smtp-password", relay.Password)
	a.settings.mailRootCAs = relay.RootCAs // the test relay's own certificate
	publishLatest(t, a, s, "secret", "<p id=secret>secret page</p>")

	// Acme owns Secret; its team Readers reads it.
	alice := mustUserByName(t, s, "alice")
	org := &store.Organization{Slug: "acme", Name: "Acme"}
	must(t, s.CreateOrganization(t.Context(), org, alice.ID))
	secret, err := s.FindProjectBySlug(t.Context(), "secret")
	must(t, err)
	must(t, s.SetProjectsOrganization(t.Context(), []int64{secret.ID}, &org.ID, nil))
	must(t, s.CreateTeam(t.Context(), &store.Team{OrganizationID: org.ID, Slug: "readers", Name: "Readers", Access: store.TeamReadonly}, []int64{secret.ID}))

	b := browserTab{t, ctx}
	run, at, text := b.run, b.at, b.text

	// alice invites fay from the team's page: the page says the mail went out.
	team := base + "/organizations/acme/teams/readers/"
	run("sign-in alice", chromedp.Navigate(base+"/accounts/login/?next=/organizations/acme/teams/readers/"),
		chromedp.WaitVisible("#id_login", chromedp.ByQuery),
		chromedp.SendKeys("#id_login", "alice", chromedp.ByQuery),
		chromedp.SendKeys("#id_password", "alice-password", chromedp.ByQuery),
		chromedp.Submit("#id_password", chromedp.ByQuery))
	at("sign-in alice", team)
	run("invite", chromedp.WaitVisible("#id_username", chromedp.ByQuery),
		chromedp.SendKeys("#id_username", "fay@partner.example", chromedp.ByQuery),
		chromedp.Submit("#id_username", chromedp.ByQuery),
		chromedp.WaitVisible("#invited", chromedp.ByQuery))
	if got := text("#invited"); !strings.Contains(got, "Invitation sent to fay@partner.example by email.") {
		t.Errorf("the team page after inviting: %q", got)
	}
	screenshot(t, ctx, "invitation-sent.png")
	msg := relay.WaitMessage(t, 60*time.Second, func(m mailtest.Message) bool {
		return len(m.To) == 1 && m.To[0].Address == "fay@partner.example"
	})
	link := regexp.MustCompile(regexp.QuoteMeta(base) + `/invitations/[A-Za-z0-9]{32}/`).FindString(msg.Text)
	if msg.Subject != "alice has invited you to join the acme readers team" || link == "" {
		t.Fatalf("the invitation's mail: %+v", msg)
	}
	run("sign out", chromedp.WaitVisible(`form[action="/accounts/logout/"] button`, chromedp.ByQuery),
		chromedp.Click(`form[action="/accounts/logout/"] button`, chromedp.ByQuery))
	at("sign out", base+"/accounts/login/")

	// fay follows the mailed link and creates her account.
	run("invitation page", chromedp.Navigate(link), chromedp.WaitVisible("#id_username", chromedp.ByQuery))
	if got := text("#invitation-text"); got != "alice has invited you to join the acme readers team." {
		t.Errorf("invitation text: %q", got)
	}
	run("fill in", chromedp.SendKeys("#id_username", "fay", chromedp.ByQuery),
		chromedp.SendKeys("#id_password", "fay-password", chromedp.ByQuery))
	screenshot(t, ctx, "invitation-signup.png")
	run("sign up", chromedp.Submit("#id_password", chromedp.ByQuery))
	at("sign up", base+"/organizations/acme/")
	run("organization", chromedp.WaitVisible(`a[href="/projects/secret/"]`, chromedp.ByQuery))
	if got := text("header nav"); !strings.Contains(got, "fay") {
		t.Errorf("signed in as: %q, want fay", got)
	}
	fay := mustUserByName(t, s, "fay")
	if fay.Email != "fay@partner.example" || !fay.EmailVerified {
		t.Errorf("fay's email: %q verified %v, want the mailed address, verified", fay.Email, fay.EmailVerified)
	}

	// fay reads the private docs on their own origin: the docs host's
	// sign-in page hands off to her dashboard session and back.
	docs := "http://secret.docs.test:" + base[strings.LastIndex(base, ":")+1:]
	run("docs sign-in page", chromedp.Navigate(docs+"/_/login/?next=/en/latest/"),
		chromedp.WaitVisible(`a[href^="/_/login/start/"]`, chromedp.ByQuery))
	run("hand-off", chromedp.Click(`a[href^="/_/login/start/"]`, chromedp.ByQuery))
	at("hand-off", docs+"/en/latest/")
	run("private page", chromedp.WaitVisible("#secret", chromedp.ByQuery))
	screenshot(t, ctx, "invitation-private-docs.png")
}
