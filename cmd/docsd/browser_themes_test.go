package main

import (
	"context"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
)

// pressKey presses and releases one key as a keyboard of some layout
// sends it: key is what it types (KeyboardEvent.key), code the physical
// key (KeyboardEvent.code), which also gives the legacy keyCode that
// themes' own shortcuts read (MkDocs').
func pressKey(key, code string, mods input.Modifier) chromedp.Action {
	keyCode := map[string]int64{"Slash": 191, "NumpadDivide": 111, "Escape": 27}[code]
	if c, ok := strings.CutPrefix(code, "Key"); ok && len(c) == 1 {
		keyCode = int64(c[0])
	} else if d, ok := strings.CutPrefix(code, "Digit"); ok && len(d) == 1 {
		keyCode = int64(d[0])
	}
	return chromedp.ActionFunc(func(ctx context.Context) error {
		down := input.DispatchKeyEvent(input.KeyDown).WithKey(key).WithCode(code).WithModifiers(mods).
			WithWindowsVirtualKeyCode(keyCode).WithNativeVirtualKeyCode(keyCode)
		if len([]rune(key)) == 1 {
			down = down.WithText(key).WithUnmodifiedText(key)
		}
		if err := down.Do(ctx); err != nil {
			return err
		}
		return input.DispatchKeyEvent(input.KeyUp).WithKey(key).WithCode(code).WithModifiers(mods).
			WithWindowsVirtualKeyCode(keyCode).WithNativeVirtualKeyCode(keyCode).Do(ctx)
	})
}

// browserSteps returns a test's failure step, which keeps a screenshot
// named after the step, and a wait for a JavaScript condition with a
// deadline generous for a busy machine.
func browserSteps(t *testing.T, ctx context.Context) (fail func(step string, err error), poll func(expr string) chromedp.Action) {
	fail = func(step string, err error) {
		t.Helper()
		screenshot(t, ctx, "failure-"+step+".png")
		t.Fatalf("%s: %v", step, err)
	}
	poll = func(expr string) chromedp.Action {
		return chromedp.Poll(expr, nil, chromedp.WithPollingTimeout(30*time.Second))
	}
	return fail, poll
}

// searchOpen is a JavaScript expression: whether docsd's search dialog is
// open.
var searchOpen = `(` + shadow(".backdrop") + ` != null && !` + shadow(".backdrop") + `.hasAttribute("hidden"))`

// TestBrowserReaderKeysAndThemeSearch: the search hotkey follows the
// character typed, not the key pressed ("/" from the numeric keypad, or
// Shift+7 on a German layout, opens the search; the key where US
// keyboards have "/" does not when it types "-"); focusing the Sphinx
// theme's own search box opens docsd's server-side search instead of
// leaving for the theme's search page; and the version banners follow
// Read the Docs' Addons: none on the default version (latest on a new
// project), the "latest development version" one on latest once stable is
// the default.
func TestBrowserReaderKeysAndThemeSearch(t *testing.T) {
	ctx := newSphinxBrowser(t)
	dataDir := t.TempDir()
	token := createUser(t, dataDir, "alice")
	srv := startServe(t, dataDir)
	srv.token = token
	repo := gitRepo(t, browserSphinxFiles("Keys", "Typed on any keyboard."))
	gitTags(t, repo, "v1.0")
	srv.importProject(t, "keys", repo, "en")
	srv.waitBuilt(t, "keys")
	srv.waitVersionBuilt(t, "keys", "stable")
	fail, poll := browserSteps(t, ctx)

	latest := srv.docs + "/docs/keys/en/latest/guide.html"
	if err := chromedp.Run(ctx, chromedp.Navigate(latest), poll(shadow(".search-input")+` != null`)); err != nil {
		fail("load", err)
	}
	for _, tc := range []struct {
		name, key, code string
		mods            input.Modifier
		opens           bool
	}{
		{"US layout", "/", "Slash", 0, true},
		{"numeric keypad", "/", "NumpadDivide", 0, true},
		{"Shift+7, German layout", "/", "Digit7", input.ModifierShift, true},
		{"the Slash key typing -, German layout", "-", "Slash", 0, false},
	} {
		var open bool
		// Input.dispatchKeyEvent answers once the page has handled the
		// event: the dialog is open, or not, by then.
		err := chromedp.Run(ctx, pressKey(tc.key, tc.code, tc.mods), chromedp.Evaluate(searchOpen, &open))
		if err != nil {
			fail("hotkey", err)
		}
		if open != tc.opens {
			t.Errorf("%s: key %q, code %s: search open = %v, want %v", tc.name, tc.key, tc.code, open, tc.opens)
		}
		if open {
			// Escape closes it, and "/" opens it again afterwards.
			if err := chromedp.Run(ctx, pressKey("Escape", "Escape", 0), poll(`!`+searchOpen)); err != nil {
				fail("escape", err)
			}
		}
	}

	// The theme's search box (alabaster's sidebar form, sent to
	// search.html) opens docsd's dialog.
	var loc string
	err := chromedp.Run(ctx,
		chromedp.WaitVisible(`#searchbox input[name="q"]`, chromedp.ByQuery),
		chromedp.Click(`#searchbox input[name="q"]`, chromedp.ByQuery),
		poll(searchOpen),
		chromedp.Location(&loc),
	)
	if err != nil {
		fail("theme search box", err)
	}
	if loc != latest {
		t.Errorf("after focusing the theme's search box at %s, want to stay at %s", loc, latest)
	}
	screenshot(t, ctx, "theme-search-box.png")

	// Banners: latest is the default version, so nothing is said on it.
	banner := `((` + shadow(".banner p") + ` || {}).textContent || "")`
	var text string
	if err := chromedp.Run(ctx, chromedp.Navigate(latest), poll(shadow(".badge")+` != null`), chromedp.Evaluate(banner, &text)); err != nil {
		fail("banner on latest", err)
	}
	if text != "" {
		t.Errorf("latest, the default version, shows the banner %q", text)
	}
	srv.graphql(t, `mutation { updateProject(input: {slug: "keys", defaultVersion: "stable"}) { project { slug } } }`, nil, nil)
	const latestWarning = "This is the latest development version. Some features may not yet be available in the stable version. Read the stable version of this page."
	if err := chromedp.Run(ctx, chromedp.Navigate(latest), poll(banner+` !== ""`), chromedp.Evaluate(banner, &text)); err != nil {
		fail("banner on latest, stable the default", err)
	}
	if text != latestWarning {
		t.Errorf("latest with stable the default: banner %q, want %q", text, latestWarning)
	}
	screenshot(t, ctx, "latest-banner.png")
	if err := chromedp.Run(ctx, chromedp.Navigate(srv.docs+"/docs/keys/en/stable/guide.html"), poll(shadow(".badge")+` != null`),
		chromedp.Evaluate(banner, &text)); err != nil {
		fail("banner on stable", err)
	}
	if text != "" {
		t.Errorf("stable, the default version, shows the banner %q", text)
	}
}

// TestBrowserMkDocs reads a MkDocs site (the mkdocs theme) in Chromium:
// its 404 page shows the version menu and loads its search worker from
// the version, not from the origin's root; its Search link and its "s"
// shortcut open docsd's server-side search instead of the theme's own
// dialog, the "/" hotkey opens it without the theme's help dialog, and
// keys typed in docsd's dialog do not reach the theme's shortcuts.
func TestBrowserMkDocs(t *testing.T) {
	ctx := newSphinxBrowser(t)
	if _, err := exec.LookPath("mkdocs"); err != nil {
		t.Skip("mkdocs is not installed")
	}
	dataDir := t.TempDir()
	token := createUser(t, dataDir, "alice")
	srv := startServe(t, dataDir)
	srv.token = token
	repo := gitRepo(t, map[string]string{
		".readthedocs.yaml": "version: 2\nmkdocs:\n  configuration: mkdocs.yml\n",
		"mkdocs.yml":        "site_name: Mk Demo\n",
		"docs/index.md":     "# Mk Demo\n\nWelcome.\n",
		"docs/guide.md":     "# Guide\n\nThe zanzibar option turns everything on.\n",
	})
	srv.importProject(t, "mkdemo", repo, "en")
	srv.waitBuilt(t, "mkdemo")
	fail, poll := browserSteps(t, ctx)

	// The 404 page, deep in the version.
	var worker string
	err := chromedp.Run(ctx,
		chromedp.Navigate(srv.docs+"/docs/mkdemo/en/latest/nope/missing/"),
		poll(shadow(".badge")+` != null`),
		chromedp.Evaluate(`new URL(joinUrl(base_url, "search/worker.js"), location.href).href`, &worker),
	)
	if err != nil {
		fail("404 page", err)
	}
	screenshot(t, ctx, "mkdocs-404.png")
	if resp, err := http.Get(worker); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("the 404 page's search worker %s: %v %v, want 200", worker, resp, err)
	} else {
		resp.Body.Close()
	}

	// The theme's dialogs, as jQuery announces them.
	themeModals := `window.themeModals.join(",")`
	var opened string
	err = chromedp.Run(ctx,
		chromedp.Navigate(srv.docs+"/docs/mkdemo/en/latest/"),
		poll(shadow(".search-input")+` != null && window.jQuery != null`),
		chromedp.Evaluate(`window.themeModals = []; jQuery(".modal").on("show.bs.modal", e => themeModals.push(e.target.id)); window.stayed = true`, nil),
		chromedp.Click(`a[data-target="#mkdocs_search_modal"]`, chromedp.ByQuery),
		poll(searchOpen),
		chromedp.Evaluate(themeModals, &opened),
	)
	if err != nil {
		fail("search link", err)
	}
	if opened != "" {
		t.Errorf("the theme's Search link opened the theme's dialog %q as well", opened)
	}
	// Typed in docsd's dialog, "s" is a letter of the query, not the
	// theme's search shortcut; "n" (next page) leaves the page alone.
	var value string
	var stayed bool
	err = chromedp.Run(ctx,
		pressKey("s", "KeyS", 0), pressKey("n", "KeyN", 0),
		chromedp.Evaluate(shadow(".search-input")+`.value`, &value),
		chromedp.Evaluate(themeModals, &opened),
		chromedp.Evaluate(`window.stayed === true`, &stayed),
	)
	if err != nil {
		fail("typing", err)
	}
	if value != "sn" || opened != "" || !stayed {
		t.Errorf("typing s, n in docsd's dialog: query %q, theme dialogs %q, stayed %v; want \"sn\", none, true", value, opened, stayed)
	}
	// "/" opens docsd's search, not the theme's help.
	err = chromedp.Run(ctx,
		pressKey("Escape", "Escape", 0), poll(`!`+searchOpen),
		pressKey("/", "Slash", 0), poll(searchOpen),
		chromedp.Evaluate(themeModals, &opened),
	)
	if err != nil {
		fail("slash", err)
	}
	if opened != "" {
		t.Errorf(`"/" opened the theme's dialog %q as well`, opened)
	}
	// The theme's own shortcut opens its dialog, whose field hands over to
	// docsd's search and closes it.
	err = chromedp.Run(ctx,
		pressKey("Escape", "Escape", 0), poll(`!`+searchOpen),
		pressKey("s", "KeyS", 0),
		poll(searchOpen+` && !jQuery("#mkdocs_search_modal").hasClass("show")`),
	)
	if err != nil {
		fail("theme shortcut", err)
	}
	screenshot(t, ctx, "mkdocs-search.png")
	// The field keeps the query typed before, and takes what is typed now.
	if err := chromedp.Run(ctx, pressKey("z", "KeyZ", 0), chromedp.Evaluate(shadow(".search-input")+`.value`, &value)); err != nil {
		fail("focus", err)
	}
	if value != "snz" {
		t.Errorf(`after the theme's "s", then z: docsd's search field holds %q, want "snz"`, value)
	}
	if !strings.HasPrefix(worker, srv.docs+"/docs/mkdemo/en/latest/") {
		t.Errorf("search worker at %s, want under the version's root", worker)
	}
}
