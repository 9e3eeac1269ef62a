package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"docsd/internal/access"
	"docsd/internal/artifacts/artifactstest"
	"docsd/internal/hosting"
	"docsd/internal/storetest"
	"docsd/store"
)

// browserUA is a reader's browser.
const browserUA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"

// analyticsFixture publishes demo's latest (two pages, a style sheet) and
// quiet's latest (a project that opted out of analytics), indexed for
// search, on app a.
func analyticsFixture(t *testing.T, s *store.Store, a *app) {
	t.Helper()
	u, _ := storetest.MustUser(t, s, "alice")
	for _, slug := range []string{"demo", "quiet"} {
		p := storetest.MustImport(t, s, u, slug, "https://github.com/example/"+slug).Project
		v, err := s.FindVersionBySlug(t.Context(), p.ID, store.Latest)
		if err != nil {
			v = storetest.MustVersion(t, s, p.ID, store.Latest)
		}
		dir := artifactstest.Dir(t, map[string]string{
			"index.html":    "<html><head><title>Demo</title></head><body><h1>Welcome</h1><p>Install the widget.</p></body></html>",
			"page.html":     "<html><head><title>Page</title></head><body><h1>Page</h1><p>More words.</p></body></html>",
			"_static/a.css": "body { color: black }",
		})
		if err := a.artifacts.PublishHTML(t.Context(), slug, store.Latest, dir); err != nil {
			t.Fatal(err)
		}
		built := true
		if v, err = s.UpdateVersion(t.Context(), v.ID, store.VersionUpdate{Built: &built}); err != nil {
			t.Fatal(err)
		}
		if err := a.indexer.IndexVersion(t.Context(), p, v, ""); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.executor.Do(access.WithSystem(t.Context()), `mutation { updateProject(input: {slug: "quiet", analyticsDisabled: true}) { errors { message } } }`, nil, nil); err != nil {
		t.Fatal(err)
	}
}

// docsGet sends GET (or method) path to the docs listener at base with the
// User-Agent ua and extra header fields, and returns the status.
func docsGet(t *testing.T, c *http.Client, method, base, path, ua string, header ...string) int {
	t.Helper()
	req, _ := http.NewRequest(method, base+path, nil)
	if ua != "" {
		req.Header.Set("User-Agent", ua)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var buf [512]byte
	for {
		if _, err := resp.Body.Read(buf[:]); err != nil {
			break
		}
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestAnalyticsCountsReaders runs a real docs listener (net/http alone,
// and the Front) on both databases and checks the counting rules: HTML
// pages answered whole (200) to GETs of readers count, replays of kept
// answers included; assets, 404s, 304s, partial answers, HEADs, bots and
// a project that opted out do not. Searches are counted once per search
// with their result counts, a bot's not at all. The counters reach GraphQL and the CSV.
func TestAnalyticsCountsReaders(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		for _, front := range []bool{false, true} {
			t.Run(fmt.Sprintf("front=%t", front), func(t *testing.T) {
				if front && !hosting.FrontAvailable {
					t.Skip("this build has no Front")
				}
				s := storetest.Open(t, d)
				a, srv := testApp(t, s, "--build-workers", "0")
				analyticsFixture(t, s, a)
				_, docsHandler, host := a.handlers()
				l, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				var server interface{ Close() error }
				if front {
					f := &hosting.Front{Handler: host, Reserved: docsOriginOwnPaths, Server: &http.Server{Handler: docsHandler}}
					go f.Serve(l)
					server = f
				} else {
					hs := &http.Server{Handler: docsHandler}
					go hs.Serve(l)
					server = hs
				}
				t.Cleanup(func() { server.Close() })
				docs := "http://" + l.Addr().String()
				c := &http.Client{} // keeps connections alive: the Front's replays

				index, page := "/docs/demo/en/latest/", "/docs/demo/en/latest/page.html"
				for range 3 {
					if code := docsGet(t, c, "GET", docs, index, browserUA); code != 200 {
						t.Fatalf("GET %s: %d", index, code)
					}
				}
				docsGet(t, c, "GET", docs, page, browserUA)
				// Not counted.
				docsGet(t, c, "GET", docs, "/docs/demo/en/latest/_static/a.css", browserUA)
				if code := docsGet(t, c, "GET", docs, "/docs/demo/en/latest/missing.html", browserUA); code != 404 {
					t.Errorf("missing page: %d, want 404", code)
				}
				docsGet(t, c, "GET", docs, index, "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)")
				docsGet(t, c, "GET", docs, index, "")
				docsGet(t, c, "HEAD", docs, index, browserUA)
				if code := docsGet(t, c, "GET", docs, page, browserUA, "Range", "bytes=0-9"); code != 206 {
					t.Errorf("range: %d, want 206", code)
				}
				if code := docsGet(t, c, "GET", docs, page, browserUA, "If-Modified-Since", time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)); code != 304 {
					t.Errorf("conditional: %d, want 304", code)
				}
				for range 2 {
					docsGet(t, c, "GET", docs, "/docs/quiet/en/latest/", browserUA)
				}

				// Searches: typed on in the reader's dialog, a second page,
				// one that finds nothing, and one in the opted-out project.
				for _, q := range []string{"wid", "widget"} {
					docsGet(t, c, "GET", srv.URL, "/api/v3/search/?q="+url.QueryEscape("project:demo "+q), browserUA)
				}
				docsGet(t, c, "GET", srv.URL, "/api/v3/search/?page=2&q="+url.QueryEscape("project:demo widget"), browserUA)
				docsGet(t, c, "GET", srv.URL, "/api/v3/search/?q="+url.QueryEscape("project:demo nothinghere"), browserUA)
				docsGet(t, c, "GET", srv.URL, "/api/v3/search/?q="+url.QueryEscape("project:quiet widget"), browserUA)
				docsGet(t, c, "GET", srv.URL, "/api/v3/search/?q="+url.QueryEscape("project:demo crawled"), "Mozilla/5.0 (compatible; bingbot/2.0)")

				if err := a.analytics.Flush(t.Context()); err != nil {
					t.Fatal(err)
				}
				demo, _ := s.FindProjectBySlug(t.Context(), "demo")
				quiet, _ := s.FindProjectBySlug(t.Context(), "quiet")
				rows, err := s.ListPageViews(t.Context(), demo.ID, "2000-01-01", 100, 0)
				if err != nil {
					t.Fatal(err)
				}
				got := map[string]int64{}
				for _, r := range rows {
					got[r.Version+" "+r.Path] = r.Views
				}
				if want := map[string]int64{"latest /index.html": 3, "latest /page.html": 1}; fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("demo's page views %v, want %v", got, want)
				}
				if rows, _ := s.ListPageViews(t.Context(), quiet.ID, "2000-01-01", 100, 0); len(rows) != 0 {
					t.Errorf("quiet opted out, yet has page views %+v", rows)
				}
				qs, err := s.ListSearchQueries(t.Context(), demo.ID, "2000-01-01", 100, 0)
				if err != nil {
					t.Fatal(err)
				}
				gotq := map[string][2]int64{}
				for _, q := range qs {
					gotq[q.Query] = [2]int64{q.Searches, q.TotalResults}
				}
				if len(gotq) != 2 || gotq["widget"] != [2]int64{1, gotq["widget"][1]} || gotq["widget"][1] == 0 || gotq["nothinghere"] != [2]int64{1, 0} {
					t.Errorf("demo's searches %v, want widget once (found something) and nothinghere once (nothing)", gotq)
				}
				if qs, _ := s.ListSearchQueries(t.Context(), quiet.ID, "2000-01-01", 100, 0); len(qs) != 0 {
					t.Errorf("quiet opted out, yet has searches %+v", qs)
				}
			})
		}
	})
}

// TestAnalyticsGraphQLAndCSV: a maintainer reads the counters through
// GraphQL (every day of the range, top lists) and downloads them as CSV
// from the dashboard; another user gets neither.
func TestAnalyticsGraphQLAndCSV(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		a, base := dashboardApp(t, s, "--build-workers", "0", "--analytics-retention-days", "10")
		seedAnalytics(t, s, "demo")

		var out struct {
			Project struct {
				Analytics *struct {
					Enabled        bool
					Since, Until   string
					PageViewsByDay []struct {
						Day   string
						Count int
					}
					TopPages []struct {
						Path, URL string
						Views     int
					}
					SearchesWithoutResults []struct {
						Query    string
						Searches int
					}
				}
			}
		}
		alice, _ := s.FindUserByUsername(t.Context(), "alice")
		q := `{ project(slug: "demo") { analytics(days: 400) { enabled since until pageViewsByDay { day count }
			topPages(limit: 2) { path url views } searchesWithoutResults { query searches } } } }`
		if err := a.executor.Do(access.WithUser(t.Context(), alice), q, nil, &out); err != nil {
			t.Fatal(err)
		}
		an := out.Project.Analytics
		if an == nil || !an.Enabled || len(an.PageViewsByDay) != 10 {
			t.Fatalf("analytics %+v, want 10 days (the retention caps 400)", an)
		}
		today := time.Now().UTC().Format(time.DateOnly)
		if last := an.PageViewsByDay[9]; last.Day != today || last.Count != 9 || an.Until != today {
			t.Errorf("today's views %+v (until %s), want %s: 9", last, an.Until, today)
		}
		if len(an.TopPages) != 2 || an.TopPages[0].Path != "/index.html" || an.TopPages[0].Views != 10 || an.TopPages[1].Path != "/install.html" ||
			!strings.HasSuffix(an.TopPages[0].URL, "/docs/demo/en/latest/index.html") {
			t.Errorf("top pages %+v", an.TopPages)
		}
		if w := an.SearchesWithoutResults; len(w) != 1 || w[0].Query != "nothinghere" || w[0].Searches != 2 {
			t.Errorf("searches without results %+v", w)
		}
		bob, _ := s.FindUserByUsername(t.Context(), "bob")
		if err := a.executor.Do(access.WithUser(t.Context(), bob), q, nil, &out); err == nil || out.Project.Analytics != nil {
			t.Errorf("bob (not a maintainer) read demo's analytics: %v", err)
		}

		c := newBrowserClient(t, base)
		c.signIn("alice", "alice-password")
		resp, body := c.get("/projects/demo/traffic-analytics/?download=true")
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/csv; charset=utf-8" ||
			!strings.HasPrefix(resp.Header.Get("Content-Disposition"), `attachment; filename="docsd_traffic_analytics_demo_`) {
			t.Fatalf("traffic CSV: %d %v", resp.StatusCode, resp.Header)
		}
		records, err := csv.NewReader(strings.NewReader(body)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		if len(records) != 5 || strings.Join(records[0], ",") != "Date,Version,Path,Views" ||
			strings.Join(records[1], ",") != today+" 00:00:00,latest,/index.html,7" {
			t.Errorf("traffic CSV:\n%s", body)
		}
		resp, body = c.get("/projects/demo/search-analytics/?download=true")
		records, err = csv.NewReader(strings.NewReader(body)).ReadAll()
		if err != nil || resp.StatusCode != 200 || len(records) != 4 ||
			strings.Join(records[0], ",") != "Created Date,Query,Total Results,Version,Searches" {
			t.Errorf("search CSV (%d, %v):\n%s", resp.StatusCode, err, body)
		}
		for _, page := range []string{"traffic-analytics", "search-analytics"} {
			if resp, body := c.get("/projects/demo/" + page + "/"); resp.StatusCode != 200 || !strings.Contains(body, `id="analytics-data"`) {
				t.Errorf("%s page: %d", page, resp.StatusCode)
			}
		}
		bobc := newBrowserClient(t, base)
		bobc.signIn("bob", "bob-password")
		if resp, _ := bobc.get("/projects/demo/traffic-analytics/?download=true"); resp.StatusCode != 404 {
			t.Errorf("bob's CSV download: %d, want 404", resp.StatusCode)
		}
	})
}

// seedAnalytics writes counters for project slug: today 7 views of
// /index.html and 2 of /page.html, 3 views of /index.html and 5 of
// /install.html 2 days ago, and searches.
func seedAnalytics(t *testing.T, s *store.Store, slug string) {
	t.Helper()
	p, err := s.FindProjectBySlug(t.Context(), slug)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	today, before := now.Format(time.DateOnly), now.AddDate(0, 0, -2).Format(time.DateOnly)
	err = s.AddPageViews(t.Context(), []store.PageViewCount{
		{ProjectID: p.ID, Version: "latest", Path: "/index.html", Day: today, Views: 7},
		{ProjectID: p.ID, Version: "latest", Path: "/page.html", Day: today, Views: 2},
		{ProjectID: p.ID, Version: "latest", Path: "/index.html", Day: before, Views: 3},
		{ProjectID: p.ID, Version: "latest", Path: "/install.html", Day: before, Views: 5},
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.AddSearchQueries(t.Context(), []store.SearchQueryCount{
		{ProjectID: p.ID, Version: "latest", Query: "install", Day: today, Searches: 4, TotalResults: 12},
		{ProjectID: p.ID, Version: "latest", Query: "nothinghere", Day: today, Searches: 2, TotalResults: 0},
		{ProjectID: p.ID, Version: "latest", Query: "configuration", Day: before, Searches: 3, TotalResults: 5},
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestAnalyticsSettings: a retention or flush interval that is not
// positive is refused at start with a message naming the setting;
// --analytics=false counts nothing and says so in GraphQL.
func TestAnalyticsSettings(t *testing.T) {
	s := storetest.Open(t, store.SQLite)
	for _, bad := range [][]string{{"--analytics-retention-days", "0"}, {"--analytics-flush-interval", "-1"}} {
		c := &command{stdout: io.Discard, stderr: io.Discard}
		fs, env := c.flags("serve", "serve")
		if _, err := c.parse(fs, env, append([]string{"--data-dir", t.TempDir()}, bad...)); err != nil {
			t.Fatal(err)
		}
		if _, err := c.wire(s); err == nil || !strings.Contains(err.Error(), bad[0]) {
			t.Errorf("%v: wire gave %v, want an error naming %s", bad, err, bad[0])
		}
	}
	a, _ := testApp(t, s, "--build-workers", "0", "--analytics=false")
	if a.analytics != nil || a.resolver.Hooks.Searched != nil {
		t.Fatal("--analytics=false made a recorder")
	}
	u, _ := storetest.MustUser(t, s, "alice")
	storetest.MustImport(t, s, u, "demo", "https://github.com/example/demo")
	var out struct {
		Project struct{ Analytics struct{ Enabled bool } }
	}
	if err := a.executor.Do(access.WithUser(t.Context(), u), `{ project(slug: "demo") { analytics { enabled } } }`, nil, &out); err != nil || out.Project.Analytics.Enabled {
		t.Errorf("with --analytics=false: enabled %t (%v), want false", out.Project.Analytics.Enabled, err)
	}
}
