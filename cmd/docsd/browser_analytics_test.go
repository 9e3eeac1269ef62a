package main

import (
	"testing"

	"github.com/chromedp/chromedp"

	"docsd/internal/storetest"
	"docsd/store"
)

// TestBrowserAnalyticsCharts opens the traffic and search analytics pages
// in a real headless Chromium: Chart.js (embedded, no network) draws each
// chart on its canvas with the counters' data, and the canvas has pixels
// drawn. The pages are the screenshots analytics-traffic.png and
// analytics-search.png (DOCSD_SCREENSHOTS).
func TestBrowserAnalyticsCharts(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test; skipped with -short")
	}
	ctx := newBrowser(t)
	s := storetest.Open(t, store.SQLite)
	_, base := dashboardApp(t, s, "--build-workers", "0")
	seedAnalytics(t, s, "demo")
	fail := func(step string, err error) {
		t.Helper()
		screenshot(t, ctx, "failure-analytics-"+step+".png")
		t.Fatalf("%s: %v", step, err)
	}
	run := func(step string, actions ...chromedp.Action) {
		t.Helper()
		if err := chromedp.Run(ctx, actions...); err != nil {
			fail(step, err)
		}
	}
	run("sign-in", chromedp.EmulateViewport(1200, 1400),
		chromedp.Navigate(base+"/accounts/login/?next=/projects/demo/traffic-analytics/"),
		chromedp.WaitVisible("#id_login", chromedp.ByQuery),
		chromedp.SendKeys("#id_login", "alice", chromedp.ByQuery),
		chromedp.SendKeys("#id_password", "alice-password", chromedp.ByQuery),
		chromedp.Submit("#id_password", chromedp.ByQuery),
		chromedp.WaitVisible("#views-chart[data-drawn=true]", chromedp.ByQuery))

	// drawn is, per canvas, the sum of the values Chart.js holds for it
	// and whether any of its pixels is painted.
	type drawn struct {
		Sum     int  `json:"sum"`
		Painted bool `json:"painted"`
	}
	check := func(page string, want map[string]int) {
		t.Helper()
		for id, sum := range want {
			var got drawn
			run(page+" "+id, chromedp.Evaluate(`(() => {
				const c = document.getElementById(`+"`"+id+"`"+`);
				const chart = Chart.getChart(c);
				const sum = chart.data.datasets[0].data.reduce((a, b) => a + b, 0);
				const px = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
				let painted = false;
				for (let i = 3; i < px.length; i += 4) { if (px[i] !== 0) { painted = true; break; } }
				return {sum, painted};
			})()`, &got))
			if got.Sum != sum || !got.Painted {
				t.Errorf("%s: chart %s holds %d (painted %t), want %d, painted", page, id, got.Sum, got.Painted, sum)
			}
		}
	}
	// Views: 9 today, 3 + 5 two days ago; top pages: index 10, install 5,
	// page 2.
	check("traffic", map[string]int{"views-chart": 17, "pages-chart": 17})
	screenshot(t, ctx, "analytics-traffic.png")

	run("search page", chromedp.EmulateViewport(1200, 1500), chromedp.Navigate(base+"/projects/demo/search-analytics/"),
		chromedp.WaitVisible("#noresults-chart[data-drawn=true]", chromedp.ByQuery))
	check("search", map[string]int{"searches-chart": 9, "queries-chart": 9, "noresults-chart": 2})
	screenshot(t, ctx, "analytics-search.png")
}
