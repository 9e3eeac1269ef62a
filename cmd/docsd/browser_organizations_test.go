package main

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"docsd/internal/access"
	"docsd/internal/artifacts/artifactstest"
	"docsd/internal/storetest"
	"docsd/store"
)

// TestBrowserOrganizations drives the organization pages in headless
// Chromium against a real server: alice creates organization Acme, moves
// her private project Secret into it, adds a readonly team with bob in it
// and Secret in its projects; bob, signed in, then finds Secret on the
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

	// Moving a project is not on a page yet: the graph's mutation, as alice.
	alice := mustUserByName(t, s, "alice")
	if err := a.executor.Do(access.WithViewer(t.Context(), access.SessionViewer(alice)),
		`mutation { setProjectOrganization(input: {slug: "secret", organization: "acme"}) { project { slug } errors { message } } }`, nil, nil); err != nil {
		t.Fatal(err)
	}

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

	// bob reads the private docs on their own origin: the docs host's
	// sign-in page hands off to his dashboard session and back.
	docs := "http://secret.docs.test:" + base[strings.LastIndex(base, ":")+1:]
	run("docs sign-in page", chromedp.Navigate(docs+"/_/login/?next=/en/latest/"),
		chromedp.WaitVisible(`a[href^="/_/login/start/"]`, chromedp.ByQuery))
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
