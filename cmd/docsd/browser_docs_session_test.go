package main

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"docsd/internal/storetest"
	"docsd/store"
)

// TestBrowserDocsSignOut signs in to a private project's docs subdomain
// (--docs-domain) in a real Chromium, then: opening /_/logout/ leaves the
// reader signed in (a link or an image could open it), and its button
// signs them out — the POST the browser sends passes the Origin check.
func TestBrowserDocsSignOut(t *testing.T) {
	s := storetest.Open(t, store.SQLite)
	a, base := dashboardApp(t, s, "--docs-domain", "docs.test", "--docs-scheme", "http")
	ctx := newBrowser(t, chromedp.Flag("host-resolver-rules", "MAP *.docs.test 127.0.0.1"))
	key := newKey(t, s, "alice")
	publishBuilt(t, a, s, "secret", map[string]string{"index.html": "<p id=secret>secret page</p>"})
	docs := "http://secret.docs.test:" + base[strings.LastIndex(base, ":")+1:]
	run := func(step string, actions ...chromedp.Action) {
		t.Helper()
		if err := chromedp.Run(ctx, actions...); err != nil {
			screenshot(t, ctx, "docs-sign-out")
			t.Fatalf("%s: %v", step, err)
		}
	}
	page := func() string {
		t.Helper()
		var text string
		run("read the page", chromedp.Navigate(docs+"/en/latest/"), chromedp.Evaluate(`document.body.innerText`, &text))
		return text
	}

	run("sign in", chromedp.Navigate(docs+"/_/login/?next=/en/latest/"),
		chromedp.WaitVisible("#token", chromedp.ByQuery),
		chromedp.SendKeys("#token", key, chromedp.ByQuery),
		chromedp.Click(`button[type="submit"]`, chromedp.ByQuery))
	if _, err := waitLocation(ctx, docs+"/en/latest/"); err != nil {
		t.Fatalf("after signing in: %v", err)
	}
	if got := page(); !strings.Contains(got, "secret page") {
		t.Fatalf("signed in, the private page reads %q", got)
	}
	run("open /_/logout/", chromedp.Navigate(docs+"/_/logout/"))
	if got := page(); !strings.Contains(got, "secret page") {
		t.Fatalf("opening /_/logout/ signed out: the private page reads %q", got)
	}
	run("sign out", chromedp.Navigate(docs+"/_/logout/"),
		chromedp.WaitVisible(`form[action="/_/logout/"] button`, chromedp.ByQuery),
		chromedp.Click(`form[action="/_/logout/"] button`, chromedp.ByQuery))
	if _, err := waitLocation(ctx, docs+"/"); err != nil {
		t.Fatalf("after signing out: %v", err)
	}
	if got := page(); strings.Contains(got, "secret page") || !strings.Contains(got, "404") {
		t.Errorf("signed out, the private page reads %q, want the 404 page", got)
	}
}
