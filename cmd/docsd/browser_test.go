package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// This file opens docsd's hosted pages in a real headless Chromium (Debian's
// `chromium`, driven with chromedp; nothing is downloaded): a Sphinx
// project with three versions and a translation, read as a reader would
// (see docs/user-guide/reading.md).

// chromiumPath is the browser the test drives, "" when none is installed.
func chromiumPath() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// newBrowser starts a headless Chromium for the test and returns a tab's
// context; extra are more options of the browser.
func newBrowser(t *testing.T, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	path := chromiumPath()
	if path == "" {
		// CI=true makes this a failure: CI installs Chromium.
		requireTool(t, errors.New("not found"), "chromium is not installed (apt-get install -y chromium): skipping the browser test")
	}
	// Not t.TempDir: Chromium's helper processes may still write to the
	// profile for a moment after the browser is gone, which fails
	// TempDir's cleanup; this one is removed when they are done.
	profile, err := os.MkdirTemp("", "docsd-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for deadline := time.Now().Add(30 * time.Second); os.RemoveAll(profile) != nil && time.Now().Before(deadline); {
			time.Sleep(100 * time.Millisecond)
		}
	})
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path), chromedp.UserDataDir(profile), chromedp.WindowSize(1200, 800),
		chromedp.NoSandbox, chromedp.Headless, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
	}
	opts = append(opts, extra...)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	ctx, cancelTime := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(func() { cancelTime(); cancelTab(); cancelAlloc() })
	if err := chromedp.Run(ctx); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	return ctx
}

// browserSphinxFiles is a Sphinx project with an index and a guide page;
// only the guide has the word "zanzibar".
func browserSphinxFiles(title, lead string) map[string]string {
	return map[string]string{
		".readthedocs.yaml": "version: 2\nsphinx:\n  configuration: docs/conf.py\n",
		"docs/conf.py":      "project = " + pyQuote(title) + "\nmaster_doc = 'index'\nhtml_theme = 'alabaster'\n",
		"docs/index.rst":    title + "\n" + strings.Repeat("=", len(title)) + "\n\n" + lead + "\n\n.. toctree::\n\n   guide\n",
		"docs/guide.rst":    "Guide\n=====\n\nThe guide of " + title + ".\n\nInstall\n-------\n\nThe zanzibar option turns everything on.\n",
	}
}

func pyQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

// gitTag tags the repository at dir's HEAD.
func gitTags(t *testing.T, repo string, tags ...string) {
	t.Helper()
	dir := strings.TrimPrefix(repo, "file://")
	for _, tag := range tags {
		if out, err := exec.Command("git", "-C", dir, "tag", tag).CombinedOutput(); err != nil {
			t.Fatalf("git tag %s: %v\n%s", tag, err, out)
		}
	}
}

// waitVersionBuilt activates a version and waits until it is built.
func (s *e2eServer) waitVersionBuilt(t *testing.T, project, version string) {
	t.Helper()
	s.graphql(t, `mutation($p: String!, $v: String!) { updateVersion(input: {project: $p, version: $v, active: true}) { version { slug } } }`,
		map[string]any{"p": project, "v": version}, nil)
	deadline := time.Now().Add(3 * time.Minute)
	triggered := false
	for {
		var data struct {
			Project struct {
				Version struct {
					Built     bool
					LastBuild *struct {
						State   struct{ Code string }
						Success *bool
					}
				}
			}
		}
		s.graphql(t, `query($p: String!, $v: String!) { project(slug: $p) { version(slug: $v) { built lastBuild { state { code } success } } } }`,
			map[string]any{"p": project, "v": version}, &data)
		v := data.Project.Version
		if v.Built {
			return
		}
		if v.LastBuild == nil && !triggered {
			s.graphql(t, `mutation($p: String!, $v: String!) { triggerBuild(input: {project: $p, version: $v}) { build { id } } }`,
				map[string]any{"p": project, "v": version}, nil)
			triggered = true
		}
		if b := v.LastBuild; b != nil && b.State.Code == "finished" && (b.Success == nil || !*b.Success) {
			t.Fatalf("build of %s/%s failed:\n%s", project, version, s.stderr.String())
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s/%s not built after 3 minutes", project, version)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// shadow is a JavaScript expression for an element of the client's shadow
// DOM.
func shadow(selector string) string {
	return `document.querySelector("docsd-addons")?.shadowRoot?.querySelector(` + pyQuote(selector) + `)`
}

// screenshot saves a PNG of the tab under the test's output folder (or
// DOCSD_SCREENSHOTS when set) and returns its path.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	var png []byte
	if err := chromedp.Run(ctx, chromedp.CaptureScreenshot(&png)); err != nil {
		t.Errorf("screenshot %s: %v", name, err)
		return
	}
	dir := os.Getenv("DOCSD_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Error(err)
	}
	t.Logf("screenshot: %s", path)
}

// startBrowserFixture serves the browser tests' docs: project demo (Sphinx,
// tags v1.0 and v2.0 built besides latest and stable) and its Spanish
// translation demo-es.
func startBrowserFixture(t *testing.T, flags ...string) *e2eServer {
	t.Helper()
	for _, tool := range []string{"git", "sphinx-build"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	dataDir := t.TempDir()
	token := createUser(t, dataDir, "alice")
	srv := startServe(t, dataDir, flags...)
	srv.token = token
	demoRepo := gitRepo(t, browserSphinxFiles("Demo", "Welcome to the demo."))
	gitTags(t, demoRepo, "v1.0", "v2.0")
	esRepo := gitRepo(t, browserSphinxFiles("Demo ES", "Bienvenido."))
	srv.importProject(t, "demo", demoRepo, "en")
	srv.importProject(t, "demo-es", esRepo, "es")
	srv.waitBuilt(t, "demo")
	srv.waitBuilt(t, "demo-es")
	srv.graphql(t, `mutation { setTranslationOf(input: {slug: "demo-es", main: "demo"}) { project { slug } } }`, nil, nil)
	srv.waitVersionBuilt(t, "demo", "v1.0")
	srv.waitVersionBuilt(t, "demo", "v2.0")
	return srv
}

// waitLocation waits until the tab has loaded want; the page may be
// between two documents meanwhile, which some calls answer with an error.
func waitLocation(ctx context.Context, want string) (string, error) {
	deadline := time.Now().Add(30 * time.Second)
	var loc, state string
	for {
		err := chromedp.Run(ctx, chromedp.Location(&loc), chromedp.Evaluate(`document.readyState`, &state))
		if err == nil && loc == want && state == "complete" {
			return loc, nil
		}
		if time.Now().After(deadline) {
			return loc, fmt.Errorf("still at %s (%v) after 30 s", loc, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestBrowserReader(t *testing.T) {
	if testing.Short() {
		t.Skip("long end-to-end browser test; skipped with -short")
	}
	ctx := newBrowser(t)
	srv := startBrowserFixture(t)

	page := srv.docs + "/docs/demo/en/v1.0/guide.html"
	var versions, languages []string
	err := chromedp.Run(ctx,
		chromedp.Navigate(page),
		chromedp.Poll(shadow(".badge")+` != null`, nil, chromedp.WithPollingTimeout(30*time.Second)),
		chromedp.Evaluate(shadow(".badge")+`.click()`, nil),
		chromedp.Poll(`!`+shadow(".panel")+`.hasAttribute("hidden")`, nil, chromedp.WithPollingTimeout(10*time.Second)),
		chromedp.Evaluate(`Array.from(`+shadow(`section[aria-label="Versions"]`)+`.querySelectorAll("a")).map(a => a.textContent)`, &versions),
		chromedp.Evaluate(`Array.from(`+shadow(`section[aria-label="Languages"]`)+`.querySelectorAll("a")).map(a => a.textContent)`, &languages),
	)
	if err != nil {
		screenshot(t, ctx, "failure-menu.png")
		t.Fatalf("opening the version menu: %v", err)
	}
	screenshot(t, ctx, "version-menu.png")
	// stable is the machine version that follows the highest tag (v2.0).
	if want := []string{"latest", "stable", "v2.0", "v1.0"}; !slices.Equal(versions, want) {
		t.Errorf("menu versions = %v, want %v", versions, want)
	}
	if want := []string{"en", "es"}; !slices.Equal(languages, want) {
		t.Errorf("menu languages = %v, want %v", languages, want)
	}
	var esHref, banner, bannerHref string
	err = chromedp.Run(ctx,
		chromedp.Evaluate(`Array.from(`+shadow(`section[aria-label="Languages"]`)+`.querySelectorAll("a")).find(a => a.textContent === "es").href`, &esHref),
		chromedp.Evaluate(`(`+shadow(".banner p")+` || {}).textContent || ""`, &banner),
		chromedp.Evaluate(`(`+shadow(".banner a")+` || {}).href || ""`, &bannerHref),
	)
	if err != nil {
		t.Fatal(err)
	}
	// The translation has only latest: its link keeps the page there.
	if want := srv.docs + "/docs/demo/es/latest/guide.html"; esHref != want {
		t.Errorf("es link = %s, want %s", esHref, want)
	}
	if want := "You may be reading an old version of this documentation. Read the latest stable version of this page."; banner != want {
		t.Errorf("banner on v1.0 = %q, want %q", banner, want)
	}
	if want := srv.docs + "/docs/demo/en/stable/guide.html"; bannerHref != want {
		t.Errorf("banner link = %s, want %s", bannerHref, want)
	}

	// Switching versions keeps the page.
	var location, heading string
	err = chromedp.Run(ctx,
		chromedp.Evaluate(`setTimeout(() => Array.from(`+shadow(`section[aria-label="Versions"]`)+`.querySelectorAll("a")).find(a => a.textContent === "v2.0").click(), 0)`, nil),
	)
	if err == nil {
		location, err = waitLocation(ctx, srv.docs+"/docs/demo/en/v2.0/guide.html")
	}
	if err == nil {
		err = chromedp.Run(ctx, chromedp.Text("h1", &heading, chromedp.ByQuery))
	}
	if err != nil {
		screenshot(t, ctx, "failure-switch.png")
		t.Fatalf("switching to v2.0: %v (at %s)", err, location)
	}
	if !strings.HasPrefix(heading, "Guide") {
		t.Errorf("after switching, h1 = %q, want the guide page", heading)
	}
	// v2.0 is what stable follows: no banner there.
	var bannerThere bool
	if err := chromedp.Run(ctx,
		chromedp.Poll(shadow(".badge")+` != null`, nil, chromedp.WithPollingTimeout(30*time.Second)),
		chromedp.Evaluate(shadow(".banner")+` != null`, &bannerThere)); err != nil {
		t.Fatal(err)
	}
	if bannerThere {
		t.Errorf("v2.0 (stable's alias) shows a version banner")
	}

	// The search dialog: "/" opens it, typing searches /_/api/v3/search/.
	err = chromedp.Run(ctx,
		chromedp.Poll(shadow(".search-input")+` != null`, nil, chromedp.WithPollingTimeout(30*time.Second)),
		chromedp.KeyEvent("/"),
		chromedp.Poll(`!`+shadow(".backdrop")+`.hasAttribute("hidden")`, nil, chromedp.WithPollingTimeout(10*time.Second)),
		chromedp.Evaluate(`(() => { const i = `+shadow(".search-input")+`; i.value = "zanzibar"; i.dispatchEvent(new Event("input")); })()`, nil),
	)
	if err != nil {
		screenshot(t, ctx, "failure-search.png")
		t.Fatalf("opening the search dialog: %v", err)
	}
	var titles []string
	err = chromedp.Run(ctx,
		chromedp.Poll(shadow(".results > li")+` != null`, nil, chromedp.WithPollingTimeout(30*time.Second)),
		chromedp.Evaluate(`Array.from(`+shadow(".results")+`.querySelectorAll(":scope > li .title")).map(a => a.textContent)`, &titles),
	)
	screenshot(t, ctx, "search-dialog.png")
	if err != nil {
		t.Fatalf("search results: %v", err)
	}
	if !slices.Equal(titles, []string{"Guide"}) {
		t.Errorf("search for zanzibar found %v, want only the guide page", titles)
	}
}
