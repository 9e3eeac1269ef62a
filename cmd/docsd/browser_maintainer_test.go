package main

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"docsd/internal/storetest"
	"docsd/store"
)

// TestBrowserDashboardPages drives the dashboard's maintainer pages in a
// real headless Chromium against a real server (no workers: builds stay
// queued until cancelled): cancel a build, activate a version and see its
// downloads (the Epub link reached by keyboard), create a
// redirect and try it in the dry-run box, edit one (a refused edit keeps
// what was typed) and move it, create and revoke an API token,
// add a subproject. Then, by keyboard only, it tabs through the redirects
// page (every control labelled, focus visible) and uses the dry-run box;
// and at 360 px wide no page scrolls sideways. Screenshots go to
// DOCSD_SCREENSHOTS when set (docs/screenshots in the README).
func TestBrowserDashboardPages(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end browser test; skipped with -short")
	}
	ctx := newBrowser(t)
	s := storetest.Open(t, store.SQLite)
	_, base := dashboardApp(t, s, "--build-workers", "0")
	alice := mustUserByName(t, s, "alice")
	demo, err := s.FindProjectBySlug(t.Context(), "demo")
	if err != nil {
		t.Fatal(err)
	}
	v1 := storetest.MustVersion(t, s, demo.ID, "1.0")
	inactive, yes := false, true
	if _, err := s.UpdateVersion(t.Context(), v1.ID, store.VersionUpdate{Active: &inactive, Built: &yes, HasPDF: &yes, HasHTMLZip: &yes, HasEPUB: &yes}); err != nil {
		t.Fatal(err)
	}
	storetest.MustImport(t, s, alice, "Child", "https://github.com/a/child")

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
	at := func(step, path string) {
		t.Helper()
		if _, err := waitLocation(ctx, base+path); err != nil {
			fail(step, err)
		}
	}
	text := func(sel string) string {
		t.Helper()
		var s string
		run("text of "+sel, chromedp.Text(sel, &s, chromedp.ByQuery))
		return s
	}

	run("sign-in", chromedp.Navigate(base+"/accounts/login/?next=/dashboard/"),
		chromedp.WaitVisible("#id_login", chromedp.ByQuery),
		chromedp.SendKeys("#id_login", "alice", chromedp.ByQuery),
		chromedp.SendKeys("#id_password", "alice-password", chromedp.ByQuery),
		chromedp.Submit("#id_password", chromedp.ByQuery))
	at("sign-in", "/dashboard/")

	// Cancel a build: queue one from the builds page, cancel it on its page.
	run("trigger", chromedp.Navigate(base+"/projects/demo/builds/"),
		chromedp.WaitVisible("#id_version", chromedp.ByQuery),
		chromedp.SetValue("#id_version", "latest", chromedp.ByQuery),
		chromedp.Click(`form.row button[type="submit"]`, chromedp.ByQuery),
		chromedp.WaitVisible("#build-cancel button", chromedp.ByQuery))
	var buildPage string
	run("build page", chromedp.Location(&buildPage))
	if got := text("#build-state"); got != "Triggered" {
		t.Errorf("queued build's state %q, want Triggered", got)
	}
	run("cancel", chromedp.Click("#build-cancel button", chromedp.ByQuery))
	at("cancel", strings.TrimPrefix(buildPage, base))
	run("cancelled", chromedp.WaitVisible("#build-state.cancelled", chromedp.ByQuery))
	if got := text("#build-state"); got != "Cancelled" {
		t.Errorf("cancelled build's state %q, want Cancelled", got)
	}
	var docsLink bool
	run("docs link", chromedp.Evaluate(`!document.getElementById("build-docs").hidden`, &docsLink))
	if docsLink {
		t.Error("a cancelled build's page offers to view its docs")
	}
	screenshot(t, ctx, "dashboard-build-cancelled.png")

	// Activate a version.
	run("version", chromedp.Navigate(base+"/projects/demo/versions/1.0/"),
		chromedp.WaitVisible("#id_active", chromedp.ByQuery),
		chromedp.Click("#id_active", chromedp.ByQuery),
		chromedp.Submit("#id_active", chromedp.ByQuery))
	at("activate", "/projects/demo/versions/")
	var row string
	run("versions", chromedp.Text(`//tr[td[1][normalize-space()="1.0"]]`, &row, chromedp.BySearch))
	if !strings.Contains(row, "Active") || strings.Contains(row, "Inactive") {
		t.Errorf("version 1.0's row after activating: %q", row)
	}
	screenshot(t, ctx, "dashboard-versions.png")

	// Its downloads, now that 1.0 is active, reached by keyboard from the
	// top of the page.
	run("downloads", chromedp.Navigate(base+"/projects/demo/downloads/"),
		chromedp.WaitVisible(`a[aria-label="1.0 as PDF"]`, chromedp.ByQuery))
	if got := text("tbody"); !strings.Contains(got, "PDF") || !strings.Contains(got, "HTML") || !strings.Contains(got, "Epub") {
		t.Errorf("downloads of 1.0: %q, want PDF, HTML and Epub", got)
	}
	if !tabTo(t, ctx, `document.activeElement.getAttribute("aria-label") === "1.0 as Epub" && getComputedStyle(document.activeElement).outlineStyle !== "none"`, fail) {
		t.Error("the Epub link of 1.0 is not reached by the keyboard with a focus outline")
	}
	screenshot(t, ctx, "dashboard-downloads.png")

	// Create a redirect, then ask the dry-run box about it.
	run("redirect", chromedp.Navigate(base+"/projects/demo/redirects/"),
		chromedp.WaitVisible("#id_from_url", chromedp.ByQuery),
		chromedp.SendKeys("#id_from_url", "/old.html", chromedp.ByQuery),
		chromedp.SendKeys("#id_to_url", "/new.html", chromedp.ByQuery),
		chromedp.Submit("#id_to_url", chromedp.ByQuery),
		// The answer is the same page again, now listing the redirect.
		chromedp.WaitVisible(`//td[normalize-space()="/old.html"]`, chromedp.BySearch))
	at("redirect", "/projects/demo/redirects/")
	run("dry run", chromedp.WaitVisible("#id_path", chromedp.ByQuery),
		chromedp.SendKeys("#id_path", "/en/latest/old.html", chromedp.ByQuery),
		chromedp.Submit("#id_path", chromedp.ByQuery),
		chromedp.WaitVisible("#dry-run-result", chromedp.ByQuery))
	if got := text("#dry-run-result"); !strings.Contains(got, "302 to") || !strings.Contains(got, "/docs/demo/en/latest/new.html") {
		t.Errorf("dry-run answer %q, want 302 to …/docs/demo/en/latest/new.html", got)
	}
	screenshot(t, ctx, "dashboard-redirects.png")

	// Add a second redirect (it goes first), edit it: a blank "To URL" is
	// refused next to that field with the rest as typed, then saved with
	// every field changed; move it below the first.
	// From a freshly loaded page: the dry run's answer may still be
	// settling, and a node found in a document being replaced is gone by the
	// time it is used ("No node with given id found", once under load).
	run("second redirect", chromedp.Navigate(base+"/projects/demo/redirects/"),
		chromedp.WaitVisible("#id_from_url", chromedp.ByQuery),
		chromedp.SetValue("#id_from_url", "/guide.html", chromedp.ByQuery),
		chromedp.SetValue("#id_to_url", "/handbook.html", chromedp.ByQuery),
		chromedp.Submit("#id_to_url", chromedp.ByQuery),
		chromedp.WaitVisible(`a[aria-label="Edit /guide.html"]`, chromedp.ByQuery),
		chromedp.Click(`a[aria-label="Edit /guide.html"]`, chromedp.ByQuery),
		chromedp.WaitVisible("#id_force", chromedp.ByQuery),
		chromedp.SetValue("#id_from_url", "/guide/", chromedp.ByQuery),
		chromedp.Clear("#id_to_url", chromedp.ByQuery),
		chromedp.SetValue("#id_http_status", "301", chromedp.ByQuery),
		chromedp.Click("#id_force", chromedp.ByQuery),
		chromedp.SetValue("#id_description", "old guide", chromedp.ByQuery),
		chromedp.Submit("#id_to_url", chromedp.ByQuery),
		chromedp.WaitVisible("#id_to_url_error", chromedp.ByQuery))
	var typed struct {
		From, Status, Description string
		Force                     bool
	}
	run("typed values", chromedp.Evaluate(`({from: document.querySelector("#id_from_url").value, status: document.querySelector("#id_http_status").value,
		description: document.querySelector("#id_description").value, force: document.querySelector("#id_force").checked})`, &typed))
	if typed.From != "/guide/" || typed.Status != "301" || typed.Description != "old guide" || !typed.Force || text("#id_to_url_error") == "" {
		t.Errorf("the refused edit form: %+v, to URL error %q; want what was typed and a message", typed, text("#id_to_url_error"))
	}
	screenshot(t, ctx, "dashboard-redirect-edit.png")
	run("edit redirect", chromedp.SendKeys("#id_to_url", "/manual/", chromedp.ByQuery),
		chromedp.Submit("#id_to_url", chromedp.ByQuery),
		chromedp.WaitVisible(`//td[normalize-space()="/manual/"]`, chromedp.BySearch))
	at("edit redirect", "/projects/demo/redirects/")
	if got := text("tbody tr:first-child"); !strings.Contains(got, "/guide/") || !strings.Contains(got, "301") {
		t.Errorf("first redirect after editing: %q, want /guide/ → /manual/ 301", got)
	}
	run("move down", chromedp.Click(`button[aria-label="Move /guide/ down"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`//tbody/tr[1]/td[normalize-space()="/old.html"]`, chromedp.BySearch))
	if got := text("tbody tr:last-child"); !strings.Contains(got, "/guide/") {
		t.Errorf("last redirect after moving down: %q, want /guide/", got)
	}
	screenshot(t, ctx, "dashboard-redirects-list.png")

	// Create an API token (shown once), then revoke it.
	run("tokens", chromedp.Navigate(base+"/accounts/tokens/"),
		chromedp.WaitVisible("#id_name", chromedp.ByQuery),
		chromedp.SendKeys("#id_name", "CI deploys", chromedp.ByQuery),
		chromedp.Click(`form[action="/accounts/tokens/"] button`, chromedp.ByQuery),
		chromedp.WaitVisible("#id_new_key", chromedp.ByQuery))
	var key string
	run("new key", chromedp.Value("#id_new_key", &key, chromedp.ByQuery))
	if !regexp.MustCompile(`^[0-9a-f]{40}$`).MatchString(key) {
		t.Fatalf("new key %q", key)
	}
	screenshot(t, ctx, "dashboard-tokens.png")
	revoke := `button[aria-label="Revoke token CI deploys (` + key[:4] + `…)"]`
	// The answer is /accounts/tokens/ again, without that token's row.
	run("revoke", chromedp.Click(revoke, chromedp.ByQuery), chromedp.WaitNotPresent("#id_new_key", chromedp.ByQuery))
	at("revoke", "/accounts/tokens/")
	var left int
	run("revoked", chromedp.Evaluate(`document.querySelectorAll(`+pyQuote(revoke)+`).length`, &left))
	if left != 0 {
		t.Errorf("the revoked token is still listed")
	}

	// Add a subproject.
	run("subproject", chromedp.Navigate(base+"/projects/demo/subprojects/"),
		chromedp.WaitVisible("#id_child", chromedp.ByQuery),
		chromedp.SendKeys("#id_child", "child", chromedp.ByQuery),
		chromedp.Submit("#id_child", chromedp.ByQuery),
		chromedp.WaitVisible(`//td/code[text()="child"]`, chromedp.BySearch))
	at("subproject", "/projects/demo/subprojects/")
	if got := text("tbody"); !strings.Contains(got, "child") || !strings.Contains(got, "Child") {
		t.Errorf("subprojects table after adding: %q", got)
	}
	screenshot(t, ctx, "dashboard-subprojects.png")

	keyboardRedirects(t, ctx, base, fail)
	narrowPages(t, ctx, base, strings.TrimPrefix(buildPage, base), fail)
}

// keyboardRedirects tabs through the redirects page from its top: the skip
// link comes first; every control that takes focus has a label (or an
// accessible name) and a visible focus outline; every field of both forms
// is reached; and the dry-run box works from the keyboard alone.
func keyboardRedirects(t *testing.T, ctx context.Context, base string, fail func(string, error)) {
	t.Helper()
	if err := chromedp.Run(ctx, chromedp.Navigate(base+"/projects/demo/redirects/"), chromedp.WaitVisible("#id_path", chromedp.ByQuery)); err != nil {
		fail("keyboard", err)
	}
	type focused struct {
		Tag, ID, Name string
		Outline       bool
	}
	const probe = `(() => {
		const el = document.activeElement;
		let name = el.getAttribute("aria-label") || "";
		if (!name && el.labels && el.labels.length) name = el.labels[0].textContent.trim();
		if (!name && (el.tagName === "A" || el.tagName === "BUTTON")) name = el.textContent.trim();
		const st = getComputedStyle(el);
		return {tag: el.tagName, id: el.id, name: name, outline: st.outlineStyle !== "none" && parseFloat(st.outlineWidth) >= 2};
	})()`
	want := []string{"id_path", "id_type", "id_from_url", "id_to_url", "id_http_status", "id_description"}
	seen := map[string]bool{}
	all := func() bool {
		for _, id := range want {
			if !seen[id] {
				return false
			}
		}
		return true
	}
	var order []focused
	for i := 0; i < 80 && !all(); i++ {
		var f focused
		if err := chromedp.Run(ctx, chromedp.KeyEvent(kb.Tab), chromedp.Evaluate(probe, &f)); err != nil {
			fail("tab", err)
		}
		order = append(order, f)
		seen[f.ID] = true
		if f.Tag == "BODY" {
			continue
		}
		if f.Name == "" {
			t.Errorf("tab stop %d (%s#%s) has no label or accessible name", i+1, f.Tag, f.ID)
		}
		if !f.Outline {
			t.Errorf("tab stop %d (%s#%s %q) shows no focus outline", i+1, f.Tag, f.ID, f.Name)
		}
	}
	var current string
	if err := chromedp.Run(ctx, chromedp.Evaluate(`document.querySelector('nav.tabs a[aria-current="page"]')?.textContent || ""`, &current)); err != nil {
		fail("current tab", err)
	}
	if current != "Redirects" {
		t.Errorf("the tab marked aria-current is %q, want Redirects", current)
	}
	if len(order) == 0 || order[0].Name != "Skip to content" {
		t.Errorf("first tab stop %+v, want the skip link", order)
	}
	for _, id := range want {
		if !seen[id] {
			t.Errorf("#%s is not reached by the keyboard (tab order: %+v)", id, order)
		}
	}
	// The dry-run box by keyboard alone: tab to it, type, press Enter.
	if err := chromedp.Run(ctx, chromedp.Navigate(base+"/projects/demo/redirects/"), chromedp.WaitVisible("#id_path", chromedp.ByQuery)); err != nil {
		fail("keyboard", err)
	}
	if !tabTo(t, ctx, `document.activeElement.id === "id_path"`, fail) {
		t.Error("the dry-run field is not reached by the keyboard")
		return
	}
	var answer string
	err := chromedp.Run(ctx, chromedp.KeyEvent("/en/latest/old.html"), chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible("#dry-run-result", chromedp.ByQuery), chromedp.Text("#dry-run-result", &answer, chromedp.ByQuery))
	if err != nil {
		fail("keyboard dry run", err)
	}
	if !strings.Contains(answer, "/new.html") {
		t.Errorf("dry run by keyboard: %q", answer)
	}
}

// tabTo presses Tab, from where the focus is, until the JavaScript
// condition reached holds, at most 80 times, and reports whether it held.
func tabTo(t *testing.T, ctx context.Context, reached string, fail func(string, error)) bool {
	t.Helper()
	for range 80 {
		var ok bool
		if err := chromedp.Run(ctx, chromedp.KeyEvent(kb.Tab), chromedp.Evaluate(reached, &ok)); err != nil {
			fail("tab", err)
		}
		if ok {
			return true
		}
	}
	return false
}

// narrowPages opens the main pages 360 px wide: none may be wider than the
// screen (tables scroll inside their own box); a few are kept as
// screenshots.
func narrowPages(t *testing.T, ctx context.Context, base, buildPage string, fail func(string, error)) {
	t.Helper()
	if err := chromedp.Run(ctx, chromedp.EmulateViewport(360, 740)); err != nil {
		fail("viewport", err)
	}
	for _, p := range []struct{ path, shot string }{
		{"/dashboard/", "mobile-dashboard.png"},
		{"/projects/demo/", "mobile-project.png"},
		{"/projects/demo/builds/", ""},
		{buildPage, "mobile-build.png"},
		{"/projects/demo/versions/", "mobile-versions.png"},
		{"/projects/demo/downloads/", "mobile-downloads.png"},
		{"/projects/demo/edit/", "mobile-settings.png"},
		{"/projects/demo/redirects/?path=/en/latest/old.html", "mobile-redirects.png"},
		{"/projects/demo/environmentvariables/", ""},
		{"/projects/demo/integrations/", ""},
		{"/projects/demo/users/", ""},
		{"/projects/demo/subprojects/", ""},
		{"/projects/demo/translations/", ""},
		{"/accounts/tokens/", "mobile-tokens.png"},
	} {
		var width int
		err := chromedp.Run(ctx, chromedp.Navigate(base+p.path), chromedp.WaitReady("main", chromedp.ByQuery),
			chromedp.Evaluate(`document.documentElement.scrollWidth`, &width))
		if err != nil {
			fail("narrow "+p.path, err)
		}
		if width > 360 {
			// Name the widest elements that stick out, to say what to fix.
			var wide []string
			chromedp.Run(ctx, chromedp.Evaluate(`Array.from(document.querySelectorAll("main *")).filter(e => e.getBoundingClientRect().right > 361).slice(0, 5).map(e => e.tagName + "." + e.className + " " + Math.round(e.getBoundingClientRect().right))`, &wide))
			t.Errorf("%s at 360 px: the page is %d px wide; sticking out: %q", p.path, width, wide)
		}
		if p.shot != "" {
			screenshot(t, ctx, p.shot)
		}
	}
}
