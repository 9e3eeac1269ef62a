package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"docsd/internal/accounts"
	"docsd/internal/accounts/oidctest"
	"docsd/internal/storetest"
	"docsd/store"
)

// TestBrowserOrganizationSSO drives the organization's single sign-on page
// in headless Chromium against a real server with a real identity
// provider: root, a superuser who owns Acme, sets its domains (a refused
// one first, the message by the field), turns auto-join on for a team and
// requires single sign-on. The owner ana, who is no superuser, sees the
// domains without their form; a member of a team gets the not-found page.
// At 360 px the page does not scroll sideways. The page's screenshot goes
// to DOCSD_SCREENSHOTS when set.
func TestBrowserOrganizationSSO(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end browser test; skipped with -short")
	}
	ctx := newBrowser(t)
	s := storetest.Open(t, store.SQLite)
	p := oidctest.Start(t, orgSSOPeople...)
	_, base, _ := ssoApp(t, s, p)
	acc := accounts.New(s)
	root, _ := storetest.MustSuperuser(t, s, "root")
	ana, _ := storetest.MustUser(t, s, "ana")
	bo, _ := storetest.MustUser(t, s, "bo")
	for _, name := range []string{"root", "ana", "bo"} {
		must(t, acc.SetPassword(t.Context(), name, name+"-password"))
	}
	acme := &store.Organization{Slug: "acme", Name: "Acme"}
	must(t, s.CreateOrganization(t.Context(), acme, root.ID))
	must(t, s.AddOrganizationOwner(t.Context(), acme.ID, ana.ID))
	writers := &store.Team{OrganizationID: acme.ID, Slug: "writers", Name: "Writers", Access: store.TeamAdmin}
	must(t, s.CreateTeam(t.Context(), writers, nil))
	must(t, s.AddTeamMember(t.Context(), writers.ID, bo.ID))

	fail := func(step string, err error) {
		t.Helper()
		screenshot(t, ctx, "failure-"+step+".png")
		t.Fatalf("%s: %v", step, err)
	}
	run := func(step string, actions ...chromedp.Action) {
		t.Helper()
		if err := chromedp.Run(ctx, actions...); err != nil {
			fail(step, err)
		}
	}
	text := func(sel string) string {
		t.Helper()
		var s string
		run("text of "+sel, chromedp.Text(sel, &s, chromedp.ByQuery))
		return s
	}
	const page = "/organizations/acme/authorization/"
	run("sign-in", chromedp.Navigate(base+"/accounts/login/?next="+page),
		chromedp.WaitVisible("#id_login", chromedp.ByQuery),
		chromedp.SendKeys("#id_login", "root", chromedp.ByQuery),
		chromedp.SendKeys("#id_password", "root-password", chromedp.ByQuery),
		chromedp.Submit("#id_password", chromedp.ByQuery),
		chromedp.WaitVisible("#id_domains", chromedp.ByQuery))

	run("bad domain", chromedp.SendKeys("#id_domains", "acme.example\nnot a domain", chromedp.ByQuery),
		chromedp.Submit("#id_domains", chromedp.ByQuery),
		chromedp.WaitVisible("#id_domains_error", chromedp.ByQuery))
	if got := text("#id_domains_error"); got != "Enter a valid plain or internationalized domain name value" {
		t.Errorf("refused domain: %q", got)
	}
	run("domains", chromedp.SetValue("#id_domains", "acme.example\nAcme.Example.ORG", chromedp.ByQuery),
		chromedp.Submit("#id_domains", chromedp.ByQuery),
		chromedp.WaitNotPresent("#id_domains_error", chromedp.ByQuery),
		chromedp.WaitVisible(`button[aria-label="Auto-join Writers"]`, chromedp.ByQuery))
	var domains string
	run("domains value", chromedp.Value("#id_domains", &domains, chromedp.ByQuery))
	if domains != "acme.example\nacme.example.org" {
		t.Errorf("domains after saving: %q", domains)
	}
	run("auto-join", chromedp.Click(`button[aria-label="Auto-join Writers"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`button[aria-label="Stop auto-joining Writers"]`, chromedp.ByQuery))
	run("required", chromedp.Click("#id_sso_required", chromedp.ByQuery),
		chromedp.Submit("#id_sso_required", chromedp.ByQuery),
		chromedp.WaitVisible("#id_sso_required:checked", chromedp.ByQuery))
	// The box is checked by the click before the form reaches the
	// server: wait for the server's answer in the store.
	o, err := s.FindOrganizationBySlug(t.Context(), "acme")
	for deadline := time.Now().Add(time.Minute); err == nil && !o.SSORequired && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		o, err = s.FindOrganizationBySlug(t.Context(), "acme")
	}
	must(t, err)
	tm, err := s.FindTeamBySlug(t.Context(), acme.ID, "writers")
	must(t, err)
	if !o.SSORequired || !tm.AutoJoinEmailUsers {
		t.Errorf("after the page: ssoRequired %v, writers auto-join %v; want both on", o.SSORequired, tm.AutoJoinEmailUsers)
	}
	// The whole page, in a window tall enough for it.
	run("viewport", chromedp.EmulateViewport(1200, 1300))
	screenshot(t, ctx, "organization-sso.png")
	// 360 px wide, the page does not scroll sideways.
	var width int
	run("narrow", chromedp.EmulateViewport(360, 740), chromedp.Navigate(base+page), chromedp.WaitReady("main", chromedp.ByQuery),
		chromedp.Evaluate(`document.documentElement.scrollWidth`, &width))
	if width > 360 {
		t.Errorf("at 360 px the page is %d px wide", width)
	}

	// The owner who is no superuser sees the domains, not their form.
	c := newBrowserClient(t, base)
	c.signIn("ana", "ana-password")
	resp, body := c.get(page)
	if resp.StatusCode != http.StatusOK || strings.Contains(body, `id="id_domains"`) || !strings.Contains(body, "<li>acme.example.org</li>") ||
		!strings.Contains(body, `id="id_sso_required"`) {
		t.Errorf("the owner's page: %d\n%s", resp.StatusCode, body)
	}
	// A member who is no owner: not found.
	c = newBrowserClient(t, base)
	c.signIn("bo", "bo-password")
	if resp, body := c.get(page); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a member's page: %d\n%s", resp.StatusCode, body)
	}
	if resp, _ := c.post(page+"domains/", nil); resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusNotFound {
		t.Errorf("a member's domains form: %d", resp.StatusCode)
	}
}
