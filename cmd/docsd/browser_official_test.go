package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// TestBrowserOfficialClient checks that, with addons_client_url
// pointing at Read the Docs' official readthedocs-addons.js (0.49.x), a page
// shows its flyout with the fixture's versions, with no console error (the
// client logs schema validation failures there), and its search finds the
// fixture's page. docsd downloads nothing: the operator (here, whoever runs
// the test) provides the file in DOCSD_TEST_ADDONS_JS.
func TestBrowserOfficialClient(t *testing.T) {
	if testing.Short() {
		t.Skip("long end-to-end browser test; skipped with -short")
	}
	js := os.Getenv("DOCSD_TEST_ADDONS_JS")
	if js == "" {
		t.Skip("DOCSD_TEST_ADDONS_JS is not set: no copy of Read the Docs' readthedocs-addons.js to test against")
	}
	files := httptest.NewServer(http.FileServer(http.Dir(filepath.Dir(js))))
	defer files.Close()
	ctx := newBrowser(t)
	srv := startBrowserFixture(t, "--addons-client-url", files.URL+"/"+filepath.Base(js))

	var mu sync.Mutex
	var problems []string
	chromedp.ListenTarget(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			problems = append(problems, "exception: "+e.ExceptionDetails.Text)
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.APITypeError {
				var parts []string
				for _, a := range e.Args {
					parts = append(parts, string(a.Value)+a.Description)
				}
				problems = append(problems, "console.error: "+strings.Join(parts, " "))
			}
		}
	})
	flyout := `document.querySelector("readthedocs-flyout")?.shadowRoot?.textContent || ""`
	var text string
	err := chromedp.Run(ctx,
		chromedp.Navigate(srv.docs+"/docs/demo/en/v1.0/guide.html"),
		chromedp.Poll(`(`+flyout+`).includes("v2.0")`, nil, chromedp.WithPollingTimeout(30*time.Second)),
		chromedp.Evaluate(flyout, &text),
	)
	if err != nil {
		screenshot(t, ctx, "failure-official.png")
		t.Fatalf("the official flyout did not show v2.0: %v", err)
	}
	screenshot(t, ctx, "official-flyout.png")
	for _, v := range []string{"latest", "stable", "v2.0", "v1.0", "es"} {
		if !strings.Contains(text, v) {
			t.Errorf("official flyout lacks %q", v)
		}
	}
	mu.Lock()
	if len(problems) > 0 {
		t.Errorf("console problems with the official client: %v", problems)
	}
	mu.Unlock()

	search := `document.querySelector("readthedocs-search")?.shadowRoot`
	err = chromedp.Run(ctx,
		chromedp.KeyEvent("/"),
		chromedp.Poll(search+`?.querySelector("input") != null`, nil, chromedp.WithPollingTimeout(10*time.Second)),
		chromedp.Evaluate(`(() => { const i = `+search+`.querySelector("input"); i.focus(); i.value = "zanzibar"; i.dispatchEvent(new Event("input", {bubbles: true})); i.dispatchEvent(new KeyboardEvent("keyup", {bubbles: true})); })()`, nil),
		chromedp.Poll(`(`+search+`?.textContent || "").includes("Guide")`, nil, chromedp.WithPollingTimeout(30*time.Second)),
	)
	screenshot(t, ctx, "official-search.png")
	if err != nil {
		t.Errorf("the official search did not find the guide page: %v", err)
	}
}
