package main

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// attackScript is what a hostile project puts in its docs: with the
// visitor signed in to the dashboard, it tries to read the dashboard, to
// call /graphql with the session (with and without a guessed CSRF header),
// to change the project through /graphql and through the dashboard's
// settings form, and to read the dashboard in a frame. It writes what it
// got into #attack as JSON: "blocked" for every read it could not make.
const attackScript = `(async () => {
  const main = MAIN, out = {};
  const read = async (key, url, init) => {
    try {
      const res = await fetch(url, Object.assign({credentials: "include"}, init));
      out[key] = "read " + res.status + ": " + (await res.text()).slice(0, 200);
    } catch (e) { out[key] = "blocked"; }
  };
  const mutation = JSON.stringify({query: 'mutation { setProjectPrivacy(input: {slug: "evil", privacyLevel: private}) { project { slug } } }'});
  await read("dashboard", main + "/dashboard/");
  await read("project settings", main + "/projects/evil/edit/");
  await read("graphql with a CSRF header", main + "/graphql", {method: "POST", headers: {"Content-Type": "application/json", "X-CSRFToken": "guess"}, body: mutation});
  await read("graphql simple request", main + "/graphql", {method: "POST", headers: {"Content-Type": "text/plain"}, body: mutation});
  try {
    const res = await fetch(main + "/graphql", {method: "POST", mode: "no-cors", credentials: "include", headers: {"Content-Type": "text/plain"}, body: mutation});
    out["graphql no-cors"] = res.type === "opaque" ? "blocked" : "read " + res.status;
  } catch (e) { out["graphql no-cors"] = "blocked"; }
  try {
    const form = new URLSearchParams({name: "Pwned", csrfmiddlewaretoken: "guess"});
    const res = await fetch(main + "/projects/evil/edit/", {method: "POST", mode: "no-cors", credentials: "include", body: form});
    out["settings form"] = res.type === "opaque" ? "blocked" : "read " + res.status;
  } catch (e) { out["settings form"] = "blocked"; }
  out["frame"] = await new Promise(resolve => {
    const f = document.createElement("iframe");
    f.src = main + "/dashboard/";
    f.onload = () => { try { resolve(f.contentDocument && f.contentDocument.body ? "read: " + f.contentDocument.body.textContent.slice(0, 200) : "blocked"); } catch (e) { resolve("blocked"); } };
    document.body.appendChild(f);
    setTimeout(() => resolve("blocked"), 10000);
  });
  document.getElementById("attack").textContent = JSON.stringify(out);
})();`

// newSphinxBrowser starts the browser of a long end-to-end test that builds
// Sphinx projects from git; it skips with -short or without git and Sphinx.
func newSphinxBrowser(t *testing.T) context.Context {
	t.Helper()
	if testing.Short() {
		t.Skip("long end-to-end browser test; skipped with -short")
	}
	for _, tool := range []string{"git", "sphinx-build"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	return newBrowser(t)
}

// TestBrowserDocsCannotUseDashboard opens, in a real Chromium signed in to
// the dashboard, a project's docs page whose script attacks the dashboard
// (attackScript). The docs are on their own origin (the default layout):
// every attempt must come back blocked, and nothing may change.
func TestBrowserDocsCannotUseDashboard(t *testing.T) {
	ctx := newSphinxBrowser(t)
	dataDir := t.TempDir()
	migrated(t, dataDir)
	code, out, errOut := docsdWithInput(t, "alice-password\n", "user", "create", "alice", "--password-stdin", "--data-dir", dataDir)
	if code != 0 {
		t.Fatalf("user create: %d %s", code, errOut)
	}
	srv := startServe(t, dataDir, "--build-sandbox", "off", "--build-network", "host")
	srv.token = strings.TrimSpace(out)

	mainJSON, _ := json.Marshal(srv.url)
	script := strings.ReplaceAll(attackScript, "MAIN", string(mainJSON))
	files := browserSphinxFiles("Evil", "A page with a script.")
	files["docs/index.rst"] += "\n.. raw:: html\n\n   <pre id=\"attack\">pending</pre>\n   <script>\n" +
		"   " + strings.ReplaceAll(script, "\n", "\n   ") + "\n   </script>\n"
	docsURL := srv.importProject(t, "Evil", gitRepo(t, files), "en")
	if !strings.HasPrefix(docsURL, srv.docs+"/") {
		t.Fatalf("urls.documentation = %q, want it on the docs origin %s", docsURL, srv.docs)
	}
	srv.waitBuilt(t, "evil")

	var who string
	err := chromedp.Run(ctx,
		chromedp.Navigate(srv.url+"/accounts/login/"),
		chromedp.WaitVisible("#id_login", chromedp.ByQuery),
		chromedp.SendKeys("#id_login", "alice", chromedp.ByQuery),
		chromedp.SendKeys("#id_password", "alice-password", chromedp.ByQuery),
		chromedp.Submit("#id_password", chromedp.ByQuery),
		chromedp.WaitVisible(".who", chromedp.ByQuery),
		chromedp.Text(".who", &who, chromedp.ByQuery),
	)
	if err != nil || who != "alice" {
		screenshot(t, ctx, "failure-origin-sign-in.png")
		t.Fatalf("sign-in: %v (signed in as %q)\n%s", err, who, srv.stderr.String())
	}

	var result string
	err = chromedp.Run(ctx,
		chromedp.Navigate(docsURL),
		chromedp.Poll(`document.getElementById("attack") && document.getElementById("attack").textContent !== "pending"`, nil,
			chromedp.WithPollingTimeout(60*time.Second)),
		chromedp.Text("#attack", &result, chromedp.ByID),
	)
	if err != nil {
		screenshot(t, ctx, "failure-origin-attack.png")
		t.Fatalf("the docs page's script did not report: %v", err)
	}
	t.Logf("the docs page's result: %s", result)
	var got map[string]string
	if err := json.Unmarshal([]byte(result), &got); err != nil {
		t.Fatalf("the page's result %q: %v", result, err)
	}
	for _, key := range []string{"dashboard", "project settings", "graphql with a CSRF header", "graphql simple request", "graphql no-cors", "settings form", "frame"} {
		if got[key] != "blocked" {
			t.Errorf("from the docs page, %s: %q, want blocked", key, got[key])
		}
	}

	// The control: the same script run on the dashboard's own origin reads
	// the signed-in dashboard, CSRF token and all (its guessed token still
	// changes nothing), so what blocked it on the docs page is the origin.
	var control string
	err = chromedp.Run(ctx,
		chromedp.Navigate(srv.url+"/dashboard/"),
		chromedp.WaitVisible(".who", chromedp.ByQuery),
		chromedp.Evaluate(`document.body.insertAdjacentHTML("beforeend", '<pre id="attack">pending</pre>'); `+script, nil),
		chromedp.Poll(`document.getElementById("attack").textContent !== "pending"`, nil, chromedp.WithPollingTimeout(60*time.Second)),
		chromedp.Text("#attack", &control, chromedp.ByID),
	)
	if err != nil {
		t.Fatalf("the control on the dashboard's origin: %v", err)
	}
	got = nil
	if err := json.Unmarshal([]byte(control), &got); err != nil || !strings.HasPrefix(got["dashboard"], "read 200") || !strings.Contains(got["dashboard"], `name="csrf-token"`) {
		t.Errorf("the control could not read the dashboard on its own origin (%v): %s", err, control)
	}

	// Nothing changed.
	var p struct {
		Project struct{ Name, PrivacyLevel string }
	}
	srv.graphql(t, `{ project(slug: "evil") { name privacyLevel } }`, nil, &p)
	if p.Project.Name != "Evil" || p.Project.PrivacyLevel != "public" {
		t.Errorf("after the attack the project is %+v, want Evil, public", p.Project)
	}
}
