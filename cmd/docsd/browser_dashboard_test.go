package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserDashboard drives the dashboard in a real headless Chromium: sign
// in, import a local git repository, watch the import's build on its build
// page (log lines appear while it runs, "Took" and the running command's
// time count, each command shows how long it ran, the state turns to
// Passed without a reload, all through one buildUpdated subscription; its
// "View raw" link gives the log as text), see it on the dashboard, sign
// out.
//
// The project's conf.py waits for a gate file the test creates once the
// running build is on screen, so the page is certainly seen mid-build. The
// server runs with --build-sandbox off because the sandbox hides /tmp,
// where the gate is, and so with --build-network host: network isolation
// needs the sandbox.
func TestBrowserDashboard(t *testing.T) {
	ctx := newSphinxBrowser(t)
	gate := filepath.Join(t.TempDir(), "gate")
	files := browserSphinxFiles("Dash Demo", "Built while a browser watched.")
	files["docs/conf.py"] = "import os, time\n" +
		"print('conf.py: waiting for the test', flush=True)\n" +
		"deadline = time.time() + 300\n" +
		"while not os.path.exists(" + pyQuote(gate) + ") and time.time() < deadline:\n    time.sleep(0.1)\n" +
		files["docs/conf.py"]
	repo := gitRepo(t, files)

	dataDir := t.TempDir()
	migrated(t, dataDir)
	if code, _, errOut := docsdWithInput(t, "alice-password\n", "user", "create", "alice", "--password-stdin", "--data-dir", dataDir); code != 0 {
		t.Fatalf("user create: %d %s", code, errOut)
	}
	srv := startServe(t, dataDir, "--build-sandbox", "off", "--build-network", "host")
	fail := func(name string, err error) {
		t.Helper()
		screenshot(t, ctx, "failure-"+name+".png")
		t.Fatalf("%s: %v\n%s", name, err, srv.stderr.String())
	}
	poll := func(expr string) chromedp.Action {
		return chromedp.Poll(expr, nil, chromedp.WithPollingTimeout(3*time.Minute))
	}

	// Signing in from /dashboard/ comes back to it.
	err := chromedp.Run(ctx,
		chromedp.Navigate(srv.url+"/dashboard/"),
		chromedp.WaitVisible("#id_login", chromedp.ByQuery),
		chromedp.SendKeys("#id_login", "alice", chromedp.ByQuery),
		chromedp.SendKeys("#id_password", "alice-password", chromedp.ByQuery),
		chromedp.Submit("#id_password", chromedp.ByQuery),
		chromedp.WaitVisible("#id_repository", chromedp.ByQuery),
	)
	if err != nil {
		fail("sign-in", err)
	}
	if loc, err := waitLocation(ctx, srv.url+"/dashboard/"); err != nil {
		fail("sign-in", err)
	} else if loc != srv.url+"/dashboard/" {
		t.Errorf("after sign-in at %s", loc)
	}

	// Import leads to the project's page; its latest build is the import's.
	var buildHref string
	err = chromedp.Run(ctx,
		chromedp.SendKeys("#id_name", "Dash Demo", chromedp.ByQuery),
		chromedp.SendKeys("#id_repository", repo, chromedp.ByQuery),
		chromedp.Submit("#id_repository", chromedp.ByQuery),
	)
	if err == nil {
		_, err = waitLocation(ctx, srv.url+"/projects/dash-demo/")
	}
	if err == nil {
		err = chromedp.Run(ctx, chromedp.Evaluate(`document.querySelector('td a[href^="/projects/dash-demo/builds/"]').getAttribute("href")`, &buildHref))
	}
	if err != nil {
		fail("import", err)
	}
	// The build page, opened while the build runs, shows its log lines
	// before the build finishes.
	var finishedAtLoad string
	err = chromedp.Run(ctx,
		chromedp.Navigate(srv.url+buildHref),
		chromedp.AttributeValue("#build", "data-finished", &finishedAtLoad, nil, chromedp.ByQuery),
		chromedp.Evaluate(`window.stayed = true`, nil),
		poll(`document.getElementById("build-state").textContent === "Building" && document.querySelectorAll("#build-commands li").length > 0`),
	)
	if err != nil {
		fail("build-running", err)
	}
	if finishedAtLoad != "false" {
		t.Errorf("the build page was loaded after the build finished: data-finished=%q", finishedAtLoad)
	}
	// While it runs, "Took" counts from the build's start, and the running
	// command's time from its own; every command shows its time.
	seconds := func(expr string) int {
		t.Helper()
		var text string
		if err := chromedp.Run(ctx, chromedp.Evaluate(expr, &text)); err != nil {
			fail("durations", err)
		}
		n, err := strconv.Atoi(strings.TrimSuffix(text, "s"))
		if err != nil || !strings.HasSuffix(text, "s") {
			t.Errorf("%s = %q, want whole seconds", expr, text)
		}
		return n
	}
	const tookNow = `document.getElementById("build-duration").textContent`
	const lastCommandTook = `Array.from(document.querySelectorAll("#build-commands .cmd .took")).pop().textContent`
	took, lastTook := seconds(tookNow), seconds(lastCommandTook)
	var tooks []string
	err = chromedp.Run(ctx,
		poll(`parseInt(`+tookNow+`, 10) > `+strconv.Itoa(took)+` && parseInt(`+lastCommandTook+`, 10) > `+strconv.Itoa(lastTook)),
		chromedp.Evaluate(`Array.from(document.querySelectorAll("#build-commands .cmd")).map(c => (c.querySelector(".took") || {}).textContent)`, &tooks),
	)
	if err != nil {
		fail("took-counting", fmt.Errorf("Took stays at %ds or the running command's time at %ds: %w", took, lastTook, err))
	}
	for i, d := range tooks {
		if !regexp.MustCompile(`^[0-9]+s$`).MatchString(d) {
			t.Errorf("command %d of %d shows the time %q, want whole seconds", i+1, len(tooks), d)
		}
	}
	var rawHref string
	if err := chromedp.Run(ctx, chromedp.AttributeValue("#build-raw", "href", &rawHref, nil, chromedp.ByQuery)); err != nil {
		fail("view-raw", err)
	}
	buildID := strings.TrimSuffix(strings.TrimPrefix(buildHref, "/projects/dash-demo/builds/"), "/")
	if want := "/api/v2/build/" + buildID + ".txt"; rawHref != want {
		t.Errorf("View raw links to %q, want %q", rawHref, want)
	}
	screenshot(t, ctx, "dashboard-build-running.png")
	if err := chromedp.Run(ctx, chromedp.ScrollIntoView("#build-commands > li:last-child", chromedp.ByQuery)); err != nil {
		fail("scroll", err)
	}
	screenshot(t, ctx, "dashboard-build-running-command.png")
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var stayed bool
	var commands []string
	err = chromedp.Run(ctx,
		poll(`["Passed", "Failed"].includes(document.getElementById("build-state").textContent)`),
		chromedp.Evaluate(`window.stayed === true`, &stayed),
		chromedp.Evaluate(`Array.from(document.querySelectorAll("#build-commands .cmd code")).map(c => c.textContent)`, &commands),
	)
	if err != nil {
		fail("build-finished", err)
	}
	var state string
	chromedp.Run(ctx, chromedp.Text("#build-state", &state, chromedp.ByQuery))
	screenshot(t, ctx, "dashboard-build.png")
	if state != "Passed" {
		t.Errorf("build state %q, want Passed\n%s", state, srv.stderr.String())
	}
	if !stayed {
		t.Error("the build page reloaded: it should update in place")
	}
	// One subscription request followed the whole build (no polling); its
	// log line is written when the stream has ended.
	n := 0
	for deadline := time.Now().Add(30 * time.Second); n == 0 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		n = strings.Count(srv.stderr.String(), `"path":"/graphql"`)
	}
	if n < 1 || n > 2 {
		t.Errorf("the build page sent %d requests to /graphql, want 1 (a stream opened again at most once)", n)
	}
	if !strings.Contains(strings.Join(commands, "\n"), "sphinx") {
		t.Errorf("build page commands %q lack the sphinx run", commands)
	}
	// Finished, "Took" is the build's duration, as the API gives it, and
	// stops counting.
	var since bool
	if err := chromedp.Run(ctx, chromedp.Evaluate(`"since" in document.getElementById("build-duration").dataset`, &since)); err != nil {
		fail("took-finished", err)
	}
	var v2 struct{ Length *int }
	if resp, body := get(t, srv.url+"/api/v2/build/"+buildID+"/", ""); resp.StatusCode != http.StatusOK || json.Unmarshal([]byte(body), &v2) != nil || v2.Length == nil {
		t.Errorf("v2 build %s: %d %s", buildID, resp.StatusCode, body)
	} else if got := seconds(tookNow); since || got != *v2.Length {
		t.Errorf("finished: Took %ds (still counting: %v), want the build's length %ds", got, since, *v2.Length)
	}
	// View raw: the whole log as text.
	if resp, body := get(t, srv.url+rawHref, ""); resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") ||
		!strings.Contains(body, "Build id: "+buildID+"\n") || !strings.Contains(body, "sphinx") {
		t.Errorf("View raw %s: %d %s\n%s", rawHref, resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}

	// The dashboard lists the project with its latest build state.
	var row string
	err = chromedp.Run(ctx,
		chromedp.Navigate(srv.url+"/dashboard/"),
		chromedp.WaitVisible("table", chromedp.ByQuery),
		chromedp.Text("tbody tr", &row, chromedp.ByQuery),
	)
	if err != nil {
		fail("dashboard", err)
	}
	screenshot(t, ctx, "dashboard.png")
	if !strings.Contains(row, "Dash Demo") || !strings.Contains(row, "Passed") {
		t.Errorf("dashboard row %q, want Dash Demo with Passed", row)
	}

	// The settings form, filled from the graph.
	var name string
	err = chromedp.Run(ctx,
		chromedp.Navigate(srv.url+"/projects/dash-demo/edit/"),
		chromedp.WaitVisible("#id_name", chromedp.ByQuery),
		chromedp.Value("#id_name", &name, chromedp.ByQuery),
	)
	if err != nil {
		fail("settings", err)
	}
	screenshot(t, ctx, "dashboard-settings.png")
	if name != "Dash Demo" {
		t.Errorf("settings form name = %q, want Dash Demo", name)
	}

	// Signing out leads to the sign-in page, and the dashboard wants a
	// session again.
	err = chromedp.Run(ctx,
		chromedp.Click(`header button[type="submit"]`, chromedp.ByQuery),
	)
	if err == nil {
		_, err = waitLocation(ctx, srv.url+"/accounts/login/")
	}
	if err == nil {
		err = chromedp.Run(ctx, chromedp.Navigate(srv.url+"/dashboard/"),
			chromedp.WaitVisible("#id_login", chromedp.ByQuery))
	}
	if err != nil {
		fail("sign-out", err)
	}
}
