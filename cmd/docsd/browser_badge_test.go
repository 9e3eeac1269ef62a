package main

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"docsd/internal/storetest"
	"docsd/store"
)

// TestBrowserBadge renders docs badges in a real headless Chromium: the
// project page's badge image decodes at the flat passing badge's size and
// its snippets are there to copy; a badge opened on its own draws its
// texts (for-the-badge, upper case). The project page with the badge is
// the screenshot dashboard-badge.png (DOCSD_SCREENSHOTS).
func TestBrowserBadge(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test; skipped with -short")
	}
	ctx := newBrowser(t)
	s := storetest.Open(t, store.SQLite)
	_, base := dashboardApp(t, s, "--build-workers", "0")
	finishBuilds(t, s, "demo", true)
	fail := func(step string, err error) {
		t.Helper()
		screenshot(t, ctx, "failure-badge-"+step+".png")
		t.Fatalf("%s: %v", step, err)
	}
	run := func(step string, actions ...chromedp.Action) {
		t.Helper()
		if err := chromedp.Run(ctx, actions...); err != nil {
			fail(step, err)
		}
	}
	run("sign-in", chromedp.Navigate(base+"/accounts/login/?next=/projects/demo/"),
		chromedp.WaitVisible("#id_login", chromedp.ByQuery),
		chromedp.SendKeys("#id_login", "alice", chromedp.ByQuery),
		chromedp.SendKeys("#id_password", "alice-password", chromedp.ByQuery),
		chromedp.Submit("#id_password", chromedp.ByQuery),
		chromedp.WaitVisible("#badge-title", chromedp.ByQuery))

	// The image is loaded and decoded: an SVG the browser could not draw
	// has no natural size.
	var width int
	run("badge image", chromedp.Poll(`(() => { const i = document.querySelector('section[aria-labelledby="badge-title"] img');
		return i && i.complete && i.naturalWidth > 0 ? i.naturalWidth : null })()`, &width))
	if width != 86 {
		t.Errorf("badge image's width %d, want 86 (docs | passing, flat)", width)
	}
	var markdown, rst string
	run("snippets", chromedp.Value("#id_badge_markdown", &markdown, chromedp.ByQuery), chromedp.Value("#id_badge_rst", &rst, chromedp.ByQuery))
	if !strings.HasPrefix(markdown, "[![Documentation Status](") || !strings.Contains(markdown, "/projects/demo/badge/?version=latest") {
		t.Errorf("Markdown snippet %q", markdown)
	}
	if !strings.HasPrefix(rst, ".. image:: ") || !strings.Contains(rst, ":target: ") || !strings.Contains(rst, ":alt: Documentation Status") {
		t.Errorf("reStructuredText snippet %q", rst)
	}
	run("viewport", chromedp.EmulateViewport(1200, 900)) // the whole badge card
	screenshot(t, ctx, "dashboard-badge.png")

	// A badge on its own: Chromium lays out its texts.
	var texts []string
	var drawn float64
	run("badge alone", chromedp.Navigate(base+"/projects/demo/badge/?style=for-the-badge"),
		chromedp.WaitReady("svg", chromedp.ByQuery),
		chromedp.Evaluate(`Array.from(document.querySelectorAll("text:not([aria-hidden])")).map(t => t.textContent)`, &texts),
		chromedp.Evaluate(`document.querySelectorAll("text")[1].getComputedTextLength()`, &drawn))
	if strings.Join(texts, "|") != "DOCS|PASSING" || drawn <= 0 {
		t.Errorf("for-the-badge texts %q, drawn length %v", texts, drawn)
	}
}
