package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"docsd/internal/builder"
	"docsd/internal/storetest"
	"docsd/store"
)

// TestBrowserNotificationPages drives the webhooks and automation rules
// pages in Chromium: a webhook added through the form (a bad URL first,
// its message next to the field), a failed build delivered to a real
// receiver that answers 500 then 200 (the webhook's page shows both
// attempts), and automation rules (a bad expression's message, then rules
// that a sync applies). Screenshots: dashboard-webhook.png,
// dashboard-automation-rules.png, dashboard-automation-rule-error.png
// (DOCSD_SCREENSHOTS).
func TestBrowserNotificationPages(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test; skipped with -short")
	}
	ctx := newBrowser(t)
	s := storetest.Open(t, store.SQLite)
	a, base := dashboardApp(t, s, "--build-workers", "0", "--allow-private-network")
	var calls atomic.Int32
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if calls.Add(1) == 1 {
			http.Error(w, "upstream busy", http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, `{"received": true}`)
	}))
	defer receiver.Close()

	fail := func(step string, err error) {
		t.Helper()
		screenshot(t, ctx, "failure-notifications-"+step+".png")
		t.Fatalf("%s: %v", step, err)
	}
	run := func(step string, actions ...chromedp.Action) {
		t.Helper()
		if err := chromedp.Run(ctx, actions...); err != nil {
			fail(step, err)
		}
	}
	run("sign-in", chromedp.Navigate(base+"/accounts/login/?next=/projects/demo/webhooks/"),
		chromedp.WaitVisible("#id_login", chromedp.ByQuery),
		chromedp.SendKeys("#id_login", "alice", chromedp.ByQuery),
		chromedp.SendKeys("#id_password", "alice-password", chromedp.ByQuery),
		chromedp.Submit("#id_password", chromedp.ByQuery),
		chromedp.WaitVisible("#id_url", chromedp.ByQuery))

	// A URL that is not one: the message is next to the field.
	var msg string
	run("bad url", chromedp.SendKeys("#id_url", "hooks.example.com/x", chromedp.ByQuery),
		chromedp.Submit("#id_url", chromedp.ByQuery),
		chromedp.WaitVisible("#id_url_error", chromedp.ByQuery),
		chromedp.Text("#id_url_error", &msg, chromedp.ByQuery))
	if msg != "Enter a valid URL." {
		t.Errorf("URL message %q", msg)
	}
	run("add webhook", chromedp.SetValue("#id_url", receiver.URL+"/hooks/docs", chromedp.ByQuery),
		chromedp.Click("#id_event_build\\:triggered", chromedp.ByQuery),
		chromedp.Submit("#id_url", chromedp.ByQuery),
		chromedp.WaitVisible(`td a[href^="/projects/demo/webhooks/"]`, chromedp.ByQuery))

	// A failed build, delivered by the sender (quick retries for the test).
	sender, err := a.notificationSender()
	if err != nil {
		t.Fatal(err)
	}
	sender.Backoff, sender.Poll = 100*time.Millisecond, 20*time.Millisecond
	sctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { sender.Run(sctx) })
	defer func() { stop(); wg.Wait() }()
	finishBuilds(t, s, "demo", false)
	var href string
	var found bool
	run("webhook link", chromedp.AttributeValue(`td a[href^="/projects/demo/webhooks/"]`, "href", &href, &found, chromedp.ByQuery))
	run("webhook page", chromedp.Navigate(base+href), chromedp.WaitVisible("#id_new_secret", chromedp.ByQuery))
	var delivered bool
	for deadline := time.Now().Add(60 * time.Second); !delivered && time.Now().Before(deadline); {
		var n int
		run("reload", chromedp.Reload(), chromedp.WaitVisible("#id_new_secret", chromedp.ByQuery),
			chromedp.Evaluate(`document.querySelectorAll("details.delivery .state.delivered").length`, &n))
		delivered = n > 0
		if !delivered {
			time.Sleep(200 * time.Millisecond)
		}
	}
	if !delivered {
		fail("delivered", context.DeadlineExceeded)
	}
	var summary, table string
	run("open delivery", chromedp.Click("details.delivery summary", chromedp.ByQuery),
		chromedp.Text("details.delivery summary", &summary, chromedp.ByQuery),
		chromedp.Text("details.delivery table", &table, chromedp.ByQuery),
		chromedp.ScrollIntoView("h2", chromedp.ByQuery))
	if !strings.Contains(summary, "build:failed") || !strings.Contains(summary, "2 attempts") {
		t.Errorf("delivery summary %q", summary)
	}
	if !strings.Contains(table, "503") || !strings.Contains(table, "200") || !strings.Contains(table, "the receiver answered 503") {
		t.Errorf("attempts table %q", table)
	}
	run("viewport", chromedp.EmulateViewport(1200, 1900), chromedp.Evaluate(`window.scrollTo(0, 0)`, nil))
	screenshot(t, ctx, "dashboard-webhook.png")

	// Automation rules: a bad expression, then two rules.
	run("rules page", chromedp.EmulateViewport(1200, 900), chromedp.Navigate(base+"/projects/demo/rules/"),
		chromedp.WaitVisible("#id_match_arg", chromedp.ByQuery),
		chromedp.SetValue("#id_predefined_match_arg", "", chromedp.ByQuery),
		chromedp.SendKeys("#id_match_arg", `^release-(\d+`, chromedp.ByQuery),
		chromedp.Submit("#id_match_arg", chromedp.ByQuery),
		chromedp.WaitVisible("#id_match_arg_error", chromedp.ByQuery),
		chromedp.Text("#id_match_arg_error", &msg, chromedp.ByQuery))
	if !strings.HasPrefix(msg, "Invalid regular expression: missing closing )") {
		t.Errorf("expression message %q", msg)
	}
	screenshot(t, ctx, "dashboard-automation-rule-error.png")
	run("semver rule", chromedp.SetValue("#id_predefined_match_arg", "semver-versions", chromedp.ByQuery),
		chromedp.Clear("#id_match_arg", chromedp.ByQuery),
		chromedp.SendKeys("#id_description", "Activate releases", chromedp.ByQuery),
		chromedp.Submit("#id_match_arg", chromedp.ByQuery),
		chromedp.WaitVisible("table", chromedp.ByQuery))
	run("custom rule", chromedp.SetValue("#id_predefined_match_arg", "", chromedp.ByQuery),
		chromedp.SetValue("#id_match_arg", `^v\d+\.\d+\.0$`, chromedp.ByQuery),
		chromedp.SetValue("#id_action", "set-default-version", chromedp.ByQuery),
		chromedp.Submit("#id_match_arg", chromedp.ByQuery),
		chromedp.WaitVisible("tbody tr:nth-child(2)", chromedp.ByQuery))
	p, err := s.FindProjectBySlug(t.Context(), "demo")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := builder.SyncVersions(t.Context(), s, p.ID, []builder.Ref{
		{Name: "main", Identifier: "origin/main", Type: store.Branch},
		{Name: "v1.2.0", Identifier: "aaaa", Type: store.Tag}, {Name: "v1.2.1", Identifier: "bbbb", Type: store.Tag},
		{Name: "nightly", Identifier: "cccc", Type: store.Tag},
	}); err != nil {
		t.Fatal(err)
	}
	var rows string
	run("rules after sync", chromedp.Reload(), chromedp.WaitVisible("table", chromedp.ByQuery),
		chromedp.Text("tbody", &rows, chromedp.ByQuery))
	if !strings.Contains(rows, "Activate releases") || !strings.Contains(rows, "v1.2.0, v1.2.1") && !strings.Contains(rows, "v1.2.1, v1.2.0") ||
		!strings.Contains(rows, "Set version as default") {
		t.Errorf("rules table %q", rows)
	}
	screenshot(t, ctx, "dashboard-automation-rules.png")
	if p, _ := s.FindProjectBySlug(t.Context(), "demo"); p.DefaultVersion != "v1.2.0" {
		t.Errorf("default version %q, want v1.2.0", p.DefaultVersion)
	}
}
