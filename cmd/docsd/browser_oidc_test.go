package main

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"docsd/internal/accounts/oidctest"
	"docsd/internal/storetest"
	"docsd/store"
)

// TestBrowserSingleSignOn signs in with single sign-on in a real headless
// Chromium: the sign-in page's button leads to the provider's login page
// (zitadel's), the provider sends the browser back, and the dashboard
// shows the new user signed in; a user whose email the provider has not
// verified gets the error page. Screenshots of the sign-in page, the
// dashboard after the sign-in and the error page, at 1200 and 360 px.
func TestBrowserSingleSignOn(t *testing.T) {
	ctx := newBrowser(t)
	s := storetest.Open(t, store.SQLite)
	p := oidctest.Start(t, ssoPeople...)
	_, base, log := ssoApp(t, s, p, "--oidc-name", "Acme Login")
	fail := func(name string, err error) {
		t.Helper()
		screenshot(t, ctx, "failure-"+name+".png")
		t.Fatalf("%s: %v\n%s", name, err, log)
	}
	signInAtProvider := func(username, password string) chromedp.Tasks {
		return chromedp.Tasks{
			chromedp.Navigate(base + "/accounts/login/?next=/dashboard/"),
			chromedp.WaitVisible(`a.button[href^="/accounts/oidc/login/"]`, chromedp.ByQuery),
			chromedp.Click(`a.button[href^="/accounts/oidc/login/"]`, chromedp.ByQuery),
			chromedp.WaitVisible("#username", chromedp.ByQuery),
			chromedp.SendKeys("#username", username, chromedp.ByQuery),
			chromedp.SendKeys("#password", password, chromedp.ByQuery),
			chromedp.Submit("#password", chromedp.ByQuery),
		}
	}

	var button string
	err := chromedp.Run(ctx,
		chromedp.Navigate(base+"/accounts/login/?next=/dashboard/"),
		chromedp.Text(`a.button[href^="/accounts/oidc/login/"]`, &button, chromedp.ByQuery),
	)
	if err != nil {
		fail("sign-in page", err)
	}
	if button != "Sign in with Acme Login" {
		t.Errorf("button = %q, want Sign in with Acme Login", button)
	}
	screenshot(t, ctx, "sso-sign-in-page.png")

	var who string
	err = chromedp.Run(ctx, signInAtProvider("eve", "eve-password"),
		chromedp.WaitVisible(".who", chromedp.ByQuery),
		chromedp.Text(".who", &who, chromedp.ByQuery))
	if err != nil {
		fail("sign-in", err)
	}
	if who != "eve" {
		t.Errorf("signed in as %q, want eve", who)
	}
	if loc, err := waitLocation(ctx, base+"/dashboard/"); err != nil {
		fail("back at the dashboard", err)
	} else if loc != base+"/dashboard/" {
		t.Errorf("after sign-in at %s", loc)
	}
	screenshot(t, ctx, "sso-signed-in.png")

	// Sign out, then una, whose email the provider has not verified.
	var alert string
	err = chromedp.Run(ctx,
		chromedp.Click("form[action='/accounts/logout/'] button", chromedp.ByQuery),
		chromedp.WaitVisible("#id_login", chromedp.ByQuery),
		signInAtProvider("una", "una-password"),
		chromedp.WaitVisible(`[role="alert"]`, chromedp.ByQuery),
		chromedp.Text(`[role="alert"]`, &alert, chromedp.ByQuery),
	)
	if err != nil {
		fail("unverified email", err)
	}
	if want := "The identity provider has not verified the email address una@acme.example."; alert != want {
		t.Errorf("alert = %q, want %q", alert, want)
	}
	screenshot(t, ctx, "sso-failed.png")

	// The error page and the sign-in page at 360 px.
	err = chromedp.Run(ctx, chromedp.EmulateViewport(360, 740))
	if err != nil {
		fail("narrow", err)
	}
	screenshot(t, ctx, "sso-failed-360.png")
	var back string
	err = chromedp.Run(ctx,
		chromedp.Click(`main a[href^="/accounts/login/"]`, chromedp.ByQuery),
		chromedp.WaitVisible("#id_login", chromedp.ByQuery),
		chromedp.Location(&back),
	)
	if err != nil {
		fail("back to sign in", err)
	}
	if !strings.HasPrefix(back, base+"/accounts/login/") {
		t.Errorf("Back to sign in led to %s", back)
	}
	screenshot(t, ctx, "sso-sign-in-page-360.png")
}
