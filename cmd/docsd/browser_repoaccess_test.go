package main

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"docsd/internal/storetest"
	"docsd/store"
)

// TestBrowserRepositoryAccessPage: a maintainer makes a deploy key on the
// project's "Repository access" page and sees its public key and
// fingerprint; a bad known_hosts line is refused next to the field, a
// good one listed with its fingerprint; HTTPS credentials are saved and
// their token never comes back to the page. At 360 px nothing overflows.
func TestBrowserRepositoryAccessPage(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end browser test; skipped with -short")
	}
	ctx := newBrowser(t)
	s := storetest.Open(t, store.SQLite)
	_, base := dashboardApp(t, s, "--build-workers", "0", "--allow-private-repos", "--public-url", "https://docs.example.com",
		"--secret-key", "repository access page key")
	fail := func(step string, err error) {
		t.Helper()
		screenshot(t, ctx, "failure-repoaccess-"+step+".png")
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
	run("sign-in", chromedp.Navigate(base+"/accounts/login/?next=/projects/demo/keys/"),
		chromedp.WaitVisible("#id_login", chromedp.ByQuery),
		chromedp.SendKeys("#id_login", "alice", chromedp.ByQuery),
		chromedp.SendKeys("#id_password", "alice-password", chromedp.ByQuery),
		chromedp.Submit("#id_password", chromedp.ByQuery),
		chromedp.WaitVisible(`form[action="/projects/demo/keys/ssh-key/"] button`, chromedp.ByQuery))

	run("make key", chromedp.Click(`form[action="/projects/demo/keys/ssh-key/"] button`, chromedp.ByQuery),
		chromedp.WaitVisible("#id_public_key", chromedp.ByQuery))
	var public string
	run("public key", chromedp.Value("#id_public_key", &public, chromedp.ByQuery))
	if !strings.HasPrefix(public, "ssh-ed25519 ") || !strings.HasSuffix(public, " docsd-demo@docs.example.com") {
		t.Errorf("public key %q", public)
	}
	if facts := text("dl.facts"); !strings.Contains(facts, "SHA256:") || !strings.Contains(facts, "ed25519") {
		t.Errorf("key facts %q", facts)
	}

	run("bad known hosts", chromedp.SetValue("#id_known_hosts", "git.acme.example ssh-ed25519 AAAA\n", chromedp.ByQuery),
		chromedp.Click(`form[action="/projects/demo/keys/known-hosts/"] button`, chromedp.ByQuery),
		chromedp.WaitVisible("#id_known_hosts_error", chromedp.ByQuery))
	if got := text("#id_known_hosts_error"); got != "Line 1 is not a known_hosts entry." {
		t.Errorf("known_hosts error %q", got)
	}
	hostKey := strings.Join(strings.Fields(public)[:2], " ") // any valid key will do
	run("known hosts", chromedp.SetValue("#id_known_hosts", "git.acme.example "+hostKey+"\n", chromedp.ByQuery),
		chromedp.Click(`form[action="/projects/demo/keys/known-hosts/"] button`, chromedp.ByQuery),
		chromedp.WaitVisible(`//td[normalize-space()="Set by a maintainer"]`, chromedp.BySearch))

	const token = "ghp_browserTokenValue123"
	run("credentials", chromedp.SendKeys("#id_username", "ci-bot", chromedp.ByQuery),
		chromedp.SendKeys("#id_password", token, chromedp.ByQuery),
		chromedp.Click(`form[action="/projects/demo/keys/credentials/"] button`, chromedp.ByQuery),
		chromedp.WaitVisible(`form[action="/projects/demo/keys/credentials/delete/"]`, chromedp.ByQuery))
	var html string
	run("page", chromedp.OuterHTML("html", &html, chromedp.ByQuery))
	if strings.Contains(html, token) || strings.Contains(html, "PRIVATE KEY") {
		t.Error("the page shows the token or a private key")
	}
	if !strings.Contains(html, "ci-bot") {
		t.Error("the page does not show the username")
	}
	screenshot(t, ctx, "repository-access.png")
	run("lower half", chromedp.Evaluate(`window.scrollTo(0, document.getElementById("known-hosts").offsetTop - 8)`, nil))
	screenshot(t, ctx, "repository-access-hosts-credentials.png")

	run("narrow", chromedp.EmulateViewport(360, 800))
	var overflow bool
	run("overflow", chromedp.Navigate(base+"/projects/demo/keys/"), chromedp.WaitVisible("#id_public_key", chromedp.ByQuery),
		chromedp.Evaluate(`document.documentElement.scrollWidth > document.documentElement.clientWidth`, &overflow))
	if overflow {
		t.Error("the page scrolls sideways at 360 px")
	}
	screenshot(t, ctx, "repository-access-360.png")
}
