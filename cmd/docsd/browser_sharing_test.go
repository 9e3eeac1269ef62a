package main

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"docsd/store"
)

// TestBrowserSharingLink: alice adds a secret link on the dashboard's
// sharing page; a fresh browser without an account opens it and reads the
// private version; once alice deletes the link, that browser gets the 404
// page on its next request. The sharing and security-log pages are
// photographed (sharing-page.png, security-log.png).
func TestBrowserSharingLink(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	x := newSharingSite(t, store.SQLite)
	resolve := chromedp.Flag("host-resolver-rules", "MAP *.docs.test 127.0.0.1")
	owner := newBrowser(t, resolve)
	run := func(ctx context.Context, step string, actions ...chromedp.Action) {
		t.Helper()
		if err := chromedp.Run(ctx, actions...); err != nil {
			screenshot(t, ctx, "sharing-failed.png")
			t.Fatalf("%s: %v", step, err)
		}
	}
	run(owner, "sign in", chromedp.Navigate(x.base+"/accounts/login/"),
		chromedp.WaitVisible("#id_login", chromedp.ByQuery),
		chromedp.SendKeys("#id_login", "alice", chromedp.ByQuery),
		chromedp.SendKeys("#id_password", "alice-password", chromedp.ByQuery),
		chromedp.Submit("#id_password", chromedp.ByQuery))
	if _, err := waitLocation(owner, x.base+"/dashboard/"); err != nil {
		t.Fatalf("after signing in: %v", err)
	}
	sharing := x.base + "/projects/secret/sharing/"
	run(owner, "add a secret link", chromedp.Navigate(sharing),
		chromedp.WaitVisible("#id_description", chromedp.ByQuery),
		chromedp.SendKeys("#id_description", "Auditors of Acme", chromedp.ByQuery),
		chromedp.Click(`form[action="/projects/secret/sharing/"] button[type="submit"]`, chromedp.ByQuery))
	var link string
	run(owner, "read the link", chromedp.WaitVisible(`input[id^="link-"]`, chromedp.ByQuery),
		chromedp.Value(`input[id^="link-"]`, &link, chromedp.ByQuery))
	screenshot(t, owner, "sharing-page.png")
	if !strings.HasPrefix(link, "http://secret.docs.test/_/sharing/") {
		t.Fatalf("link %q", link)
	}
	link = strings.Replace(link, "secret.docs.test/", "secret.docs.test:"+x.port+"/", 1)

	reader := newBrowser(t, resolve)
	docs := "http://secret.docs.test:" + x.port + "/en/latest/"
	var text string
	run(reader, "open the link", chromedp.Navigate(link))
	if _, err := waitLocation(reader, docs); err != nil {
		t.Fatalf("after opening the link: %v", err)
	}
	run(reader, "read the page", chromedp.Evaluate(`document.body.innerText`, &text))
	if !strings.Contains(text, "secret page") {
		t.Fatalf("through the link, the private page reads %q", text)
	}

	run(owner, "delete the link", chromedp.Navigate(sharing),
		chromedp.WaitVisible(`form[action$="/delete/"] button`, chromedp.ByQuery),
		chromedp.Click(`form[action$="/delete/"] button`, chromedp.ByQuery),
		// The page the deletion leads back to lists no link any more.
		chromedp.WaitNotPresent(`input[id^="link-"]`, chromedp.ByQuery))
	run(reader, "read the page again", chromedp.Navigate(docs), chromedp.Evaluate(`document.body.innerText`, &text))
	if strings.Contains(text, "secret page") || !strings.Contains(text, "404") {
		t.Errorf("after deleting the link, the private page reads %q, want the 404 page", text)
	}

	run(owner, "open the security log", chromedp.Navigate(x.base+"/projects/secret/security-log/"),
		chromedp.WaitVisible("table", chromedp.ByQuery), chromedp.Evaluate(`document.body.innerText`, &text))
	screenshot(t, owner, "security-log.png")
	for _, want := range []string{"sharing-created", "sharing-deleted", "pageview", "authentication"} {
		if !strings.Contains(text, want) {
			t.Errorf("the security log lacks %s:\n%s", want, text)
		}
	}
}
