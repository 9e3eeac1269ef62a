package main

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"docsd/internal/artifacts/artifactstest"
	"docsd/internal/storetest"
	"docsd/store"
)

// TestBrowserOrganizations drives the organization pages in headless
// Chromium against a real server: alice creates organization Acme, moves
// her private project Secret into it from its settings page, adds a
// readonly team with bob in it and Secret in its projects, renames it,
// deletes another team, meets the refusals of removing the last owner and
// deleting an organization with projects, and reads the organization's
// security log (also at 360 px); bob, signed in, then finds Secret on the
// organization's page and reads its project page. Screenshots of the
// organization's pages go to DOCSD_SCREENSHOTS when set.
func TestBrowserOrganizations(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end browser test; skipped with -short")
	}
	ctx := newBrowser(t, chromedp.Flag("host-resolver-rules", "MAP *.docs.test 127.0.0.1"))
	s := storetest.Open(t, store.SQLite)
	a, base := servedAtPublicURL(t, s, "--build-workers", "0", "--organization-creators", "users", "--docs-domain", "docs.test", "--docs-scheme", "http")
	publishLatest(t, a, s, "secret", "<p id=secret>secret page</p>")

	steps := browserTab{t, ctx}
	fail, run, text := steps.fail, steps.run, steps.text
	at := func(step, path string) {
		t.Helper()
		steps.at(step, base+path)
	}
	signIn := func(user string) {
		t.Helper()
		run("sign-in "+user, chromedp.Navigate(base+"/accounts/login/?next=/organizations/"),
			chromedp.WaitVisible("#id_login", chromedp.ByQuery),
			chromedp.SendKeys("#id_login", user, chromedp.ByQuery),
			chromedp.SendKeys("#id_password", user+"-password", chromedp.ByQuery),
			chromedp.Submit("#id_password", chromedp.ByQuery))
		at("sign-in "+user, "/organizations/")
	}

	signIn("alice")
	run("create", chromedp.WaitVisible("#id_name", chromedp.ByQuery),
		chromedp.SendKeys("#id_name", "Acme", chromedp.ByQuery),
		chromedp.SendKeys("#id_description", "Engineering docs", chromedp.ByQuery),
		chromedp.Submit("#id_name", chromedp.ByQuery))
	at("create", "/organizations/acme/")

	// alice, owner of Acme, moves Secret into it from its settings page;
	// a team of no organization is refused next to its field first.
	run("settings", chromedp.Navigate(base+"/projects/secret/edit/"),
		chromedp.WaitVisible("#id_organization", chromedp.ByQuery),
		chromedp.SetValue("#id_organization", "acme", chromedp.ByQuery),
		chromedp.SendKeys("#id_teams", "nosuch", chromedp.ByQuery),
		chromedp.Submit("#id_teams", chromedp.ByQuery),
		chromedp.WaitVisible("#id_teams_error", chromedp.ByQuery))
	if got := text("#id_teams_error"); got != "Object with slug=nosuch does not exist." {
		t.Errorf("moving into a team that does not exist: %q", got)
	}
	run("move", chromedp.Navigate(base+"/projects/secret/edit/"),
		chromedp.WaitVisible("#id_organization", chromedp.ByQuery),
		chromedp.SetValue("#id_organization", "acme", chromedp.ByQuery),
		chromedp.Submit("#id_teams", chromedp.ByQuery),
		chromedp.WaitVisible(`#organization ~ p a[href="/organizations/acme/"]`, chromedp.ByQuery))
	screenshot(t, ctx, "project-settings-organization.png")

	// The team form adds members of the organization at once (anyone else
	// is invited): bob is in its Read Only team already, which does not
	// include Secret.
	org, err := s.FindOrganizationBySlug(t.Context(), "acme")
	must(t, err)
	readOnly, err := s.FindTeamBySlug(t.Context(), org.ID, "read-only")
	must(t, err)
	must(t, s.AddTeamMember(t.Context(), readOnly.ID, mustUserByName(t, s, "bob").ID))

	run("teams", chromedp.Navigate(base+"/organizations/acme/teams/"),
		chromedp.WaitVisible("#id_name", chromedp.ByQuery))
	if got := text("tbody"); !strings.Contains(got, "Admins") || !strings.Contains(got, "Read Only") {
		t.Errorf("a new organization's teams: %q, want Admins and Read Only", got)
	}
	run("add team", chromedp.SendKeys("#id_name", "Readers", chromedp.ByQuery),
		chromedp.SetValue("#id_access", "readonly", chromedp.ByQuery),
		chromedp.Submit("#id_name", chromedp.ByQuery))
	at("add team", "/organizations/acme/teams/readers/")
	run("add member", chromedp.WaitVisible("#id_username", chromedp.ByQuery),
		chromedp.SendKeys("#id_username", "bob", chromedp.ByQuery),
		chromedp.Submit("#id_username", chromedp.ByQuery),
		chromedp.WaitVisible(`button[aria-label="Remove bob from the team"]`, chromedp.ByQuery))
	at("add member", "/organizations/acme/teams/readers/")
	run("add project", chromedp.WaitVisible("#id_project", chromedp.ByQuery),
		chromedp.SendKeys("#id_project", "secret", chromedp.ByQuery),
		chromedp.Submit("#id_project", chromedp.ByQuery),
		chromedp.WaitVisible(`button[aria-label="Remove Secret from the team"]`, chromedp.ByQuery))
	at("add project", "/organizations/acme/teams/readers/")
	if got := text("main"); !strings.Contains(got, "bob") || !strings.Contains(got, "Secret") {
		t.Errorf("team page: %q, want bob and Secret", got)
	}
	screenshot(t, ctx, "organization-team.png")

	// A refused member keeps the form, with the message by the field.
	run("unknown member", chromedp.SendKeys("#id_username", "nobody", chromedp.ByQuery),
		chromedp.Submit("#id_username", chromedp.ByQuery),
		chromedp.WaitVisible("#id_username_error", chromedp.ByQuery))
	if got := text("#id_username_error"); got != "User nobody does not exist" {
		t.Errorf("adding nobody: %q", got)
	}

	run("organization", chromedp.Navigate(base+"/organizations/acme/"),
		chromedp.WaitVisible(`a[href="/projects/secret/"]`, chromedp.ByQuery))
	screenshot(t, ctx, "organization.png")
	run("members", chromedp.Navigate(base+"/organizations/acme/members/"), chromedp.WaitVisible("main ul", chromedp.ByQuery))
	screenshot(t, ctx, "organization-members.png")

	// The owners' pages: team settings, the owners, the deletions'
	// confirmations (the organization's refused while it has projects),
	// and the organization's security log of all that.
	run("team settings", chromedp.Navigate(base+"/organizations/acme/teams/readers/"),
		chromedp.WaitVisible(`a[href="/organizations/acme/teams/readers/edit/"]`, chromedp.ByQuery),
		chromedp.Click(`a[href="/organizations/acme/teams/readers/edit/"]`, chromedp.ByQuery),
		chromedp.WaitVisible("#id_auto_join_email_users", chromedp.ByQuery))
	screenshot(t, ctx, "organization-team-edit.png")
	run("rename team", chromedp.SetValue("#id_name", "Docs readers", chromedp.ByQuery),
		chromedp.Submit("#id_name", chromedp.ByQuery))
	at("rename team", "/organizations/acme/teams/readers/")
	if got := text("h1"); !strings.Contains(got, "Docs readers") {
		t.Errorf("renamed team's page: %q", got)
	}
	run("team delete page", chromedp.Navigate(base+"/organizations/acme/teams/read-only/delete/"),
		chromedp.WaitVisible(`form[action="/organizations/acme/teams/read-only/delete/"] button`, chromedp.ByQuery))
	screenshot(t, ctx, "organization-team-delete.png")
	run("team delete", chromedp.Click(`form[action="/organizations/acme/teams/read-only/delete/"] button`, chromedp.ByQuery))
	at("team delete", "/organizations/acme/teams/")
	run("owners", chromedp.Navigate(base+"/organizations/acme/owners/"),
		chromedp.WaitVisible(`button[aria-label="Remove alice from the owners"]`, chromedp.ByQuery),
		chromedp.Click(`button[aria-label="Remove alice from the owners"]`, chromedp.ByQuery),
		chromedp.WaitVisible("#form-error", chromedp.ByQuery))
	if got := text("#form-error"); got != "User is the last owner, can't be removed" {
		t.Errorf("removing the last owner: %q", got)
	}
	screenshot(t, ctx, "organization-owners.png")
	run("delete", chromedp.Navigate(base+"/organizations/acme/edit/"),
		chromedp.WaitVisible(`a[href="/organizations/acme/delete/"]`, chromedp.ByQuery),
		chromedp.Click(`a[href="/organizations/acme/delete/"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`form[action="/organizations/acme/delete/"] button`, chromedp.ByQuery),
		chromedp.Click(`form[action="/organizations/acme/delete/"] button`, chromedp.ByQuery),
		chromedp.WaitVisible("#form-error", chromedp.ByQuery))
	if got := text("#form-error"); got != "The organization still has projects: move or delete them first." {
		t.Errorf("deleting an organization with projects: %q", got)
	}
	screenshot(t, ctx, "organization-delete.png")
	run("security log", chromedp.EmulateViewport(1200, 1000), chromedp.Navigate(base+"/organizations/acme/security-log/"),
		chromedp.WaitVisible(`a[href^="/organizations/acme/security-log/?download=true"]`, chromedp.ByQuery))
	if got := text("tbody"); !strings.Contains(got, "team-deleted") || !strings.Contains(got, "project-organization-changed") {
		t.Errorf("organization's security log: %q, want the team's deletion and Secret's move", got)
	}
	screenshot(t, ctx, "organization-security-log.png")
	run("narrow security log", chromedp.EmulateViewport(360, 740), chromedp.Reload(),
		chromedp.WaitVisible(`a[href^="/organizations/acme/security-log/?download=true"]`, chromedp.ByQuery))
	var overflow bool
	run("no page-wide scroll", chromedp.Evaluate(`document.documentElement.scrollWidth > document.documentElement.clientWidth`, &overflow))
	if overflow {
		t.Error("the security log scrolls sideways at 360 px")
	}
	screenshot(t, ctx, "organization-security-log-360.png")
	run("wide again", chromedp.EmulateViewport(1200, 900))

	run("sign out", chromedp.Navigate(base+"/dashboard/"), chromedp.WaitVisible(`form[action="/accounts/logout/"] button`, chromedp.ByQuery),
		chromedp.Click(`form[action="/accounts/logout/"] button`, chromedp.ByQuery))
	at("sign out", "/accounts/login/")
	signIn("bob")
	run("bob's organizations", chromedp.WaitVisible(`a[href="/organizations/acme/"]`, chromedp.ByQuery),
		chromedp.Click(`a[href="/organizations/acme/"]`, chromedp.ByQuery))
	at("bob's organization", "/organizations/acme/")
	run("bob reads secret", chromedp.WaitVisible(`a[href="/projects/secret/"]`, chromedp.ByQuery),
		chromedp.Click(`a[href="/projects/secret/"]`, chromedp.ByQuery))
	at("bob reads secret", "/projects/secret/")
	run("project page", chromedp.WaitVisible("h1", chromedp.ByQuery))
	if got := text("h1"); !strings.Contains(got, "Secret") {
		t.Errorf("bob's view of secret: %q", got)
	}
	var settings bool
	run("no settings", chromedp.Evaluate(`!!document.querySelector('a[href="/projects/secret/edit/"]')`, &settings))
	if settings {
		t.Error("a reader is offered the project's settings")
	}

	// bob reads the private docs on their own origin: the private page's
	// 404 links the docs host's sign-in page, which hands off to his
	// dashboard session and back.
	docs := "http://secret.docs.test:" + base[strings.LastIndex(base, ":")+1:]
	run("private page without a session", chromedp.Navigate(docs+"/en/latest/"),
		chromedp.WaitVisible(`#docsd-sign-in a`, chromedp.ByQuery))
	screenshot(t, ctx, "docs-not-found-sign-in.png")
	run("sign in from the 404 page", chromedp.Click(`#docsd-sign-in a`, chromedp.ByQuery))
	if _, err := waitLocation(ctx, docs+"/_/login/?next=%2Fen%2Flatest%2F"); err != nil {
		fail("sign in from the 404 page", err)
	}
	run("docs sign-in page", chromedp.WaitVisible(`a[href^="/_/login/start/"]`, chromedp.ByQuery))
	screenshot(t, ctx, "docs-sign-in.png")
	run("hand-off", chromedp.Click(`a[href^="/_/login/start/"]`, chromedp.ByQuery))
	if _, err := waitLocation(ctx, docs+"/en/latest/"); err != nil {
		fail("hand-off", err)
	}
	run("private page", chromedp.WaitVisible("#secret", chromedp.ByQuery))
	screenshot(t, ctx, "organization-private-docs.png")
}

// publishLatest publishes one page as the latest docs of project slug.
func publishLatest(t *testing.T, a *app, s *store.Store, slug, html string) {
	t.Helper()
	if err := a.artifacts.PublishHTML(t.Context(), slug, store.Latest, artifactstest.Dir(t, map[string]string{"index.html": html})); err != nil {
		t.Fatal(err)
	}
	p, err := s.FindProjectBySlug(t.Context(), slug)
	must(t, err)
	v, err := s.FindVersionBySlug(t.Context(), p.ID, store.Latest)
	must(t, err)
	built := true
	_, err = s.UpdateVersion(t.Context(), v.ID, store.VersionUpdate{Built: &built})
	must(t, err)
}
