package analytics_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"docsd/internal/analytics"
	"docsd/internal/storetest"
	"docsd/store"
)

// clock is a settable time for a Recorder.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// fixture opens a store with a project and returns a recorder on it.
func fixture(t *testing.T, d store.Dialect, cfg analytics.Config) (*store.Store, *analytics.Recorder, int64, *clock) {
	t.Helper()
	s := storetest.Open(t, d)
	u, _ := storetest.MustUser(t, s, "alice")
	p := storetest.MustImport(t, s, u, "demo", "https://github.com/example/demo").Project
	c := &clock{now: time.Date(2026, 3, 14, 23, 59, 0, 0, time.UTC)}
	cfg.Now = c.Now
	return s, analytics.New(s, cfg), p.ID, c
}

func pageViews(t *testing.T, s *store.Store, projectID int64) map[string]int64 {
	t.Helper()
	rows, err := s.ListPageViews(t.Context(), projectID, "2000-01-01", 1000, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, r := range rows {
		got[r.Day+" "+r.Version+" "+r.Path] = r.Views
	}
	return got
}

func searches(t *testing.T, s *store.Store, projectID int64) map[string][2]int64 {
	t.Helper()
	rows, err := s.ListSearchQueries(t.Context(), projectID, "2000-01-01", 1000, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][2]int64{}
	for _, r := range rows {
		got[r.Day+" "+r.Version+" "+r.Query] = [2]int64{r.Searches, r.TotalResults}
	}
	return got
}

// TestFlushAddsUp: counters stay in memory until a flush, a flush writes
// them in one batch, and a second recorder (another node) flushing the
// same rows adds to them; a day boundary starts new rows.
func TestFlushAddsUp(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s, r, pid, c := fixture(t, d, analytics.Config{})
		other := analytics.New(s, analytics.Config{Now: c.Now})
		for range 3 {
			r.PageView(pid, "latest", "/index.html")
		}
		r.PageView(pid, "latest", "/install.html")
		other.PageView(pid, "latest", "/index.html")
		if got := pageViews(t, s, pid); len(got) != 0 {
			t.Fatalf("before a flush the store has %v, want nothing", got)
		}
		before := s.QueryCount()
		if err := r.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
		// One look-up of the projects and one INSERT for the views (the
		// searches have none).
		if n := s.QueryCount() - before; n != 2 {
			t.Errorf("flushing 2 counters ran %d statements, want 2 (one batch)", n)
		}
		if err := other.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
		c.add(2 * time.Minute) // the next day (UTC)
		r.PageView(pid, "latest", "/index.html")
		if err := r.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
		want := map[string]int64{
			"2026-03-14 latest /index.html":   4,
			"2026-03-14 latest /install.html": 1,
			"2026-03-15 latest /index.html":   1,
		}
		if got := pageViews(t, s, pid); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("page views %v, want %v", got, want)
		}
		// Nothing pending: a flush writes nothing.
		before = s.QueryCount()
		if err := r.Flush(t.Context()); err != nil || s.QueryCount() != before {
			t.Errorf("an empty flush ran %d statements (%v), want none", s.QueryCount()-before, err)
		}
	})
}

// TestPageCounterCountsWithoutLoss: many goroutines counting on shared
// PageCounters while flushes run lose no view and count none twice; the
// views go to the day of each flush period's first view.
func TestPageCounterCountsWithoutLoss(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s, r, pid, _ := fixture(t, d, analytics.Config{})
		index, page := r.NewPageCounter(pid, "latest", "/index.html"), r.NewPageCounter(pid, "latest", "/page.html")
		const workers, each = 8, 500
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range each {
					if (w+i)%2 == 0 {
						r.Count(index)
					} else {
						r.Count(page)
					}
				}
			}()
		}
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		for flushing := true; flushing; {
			select {
			case <-done:
				flushing = false
			default:
			}
			if err := r.Flush(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
		if err := r.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
		want := map[string]int64{"2026-03-14 latest /index.html": workers * each / 2, "2026-03-14 latest /page.html": workers * each / 2}
		if got := pageViews(t, s, pid); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("page views %v, want %v", got, want)
		}
	})
}

// TestRunFlushesOnIntervalAndShutdown: Run writes the counters every flush
// interval, and Close writes what is left.
func TestRunFlushesOnIntervalAndShutdown(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s, r, pid, _ := fixture(t, d, analytics.Config{FlushInterval: 50 * time.Millisecond})
		go r.Run(context.Background())
		r.PageView(pid, "latest", "/index.html")
		waitFor(t, "the interval's flush", func() bool { return pageViews(t, s, pid)["2026-03-14 latest /index.html"] == 1 })
		// Counted after the last interval's flush: only Close writes it
		// (the interval is long enough not to come first, mostly; either
		// way the count must be there once Close returns).
		r.PageView(pid, "latest", "/index.html")
		r.Close()
		if got := pageViews(t, s, pid)["2026-03-14 latest /index.html"]; got != 2 {
			t.Errorf("after Close: %d views, want 2", got)
		}
	})
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !ok(); {
		if time.Now().After(deadline) {
			t.Fatalf("waited 30 s for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestSearchTypedOnIsOneSearch: the reader's dialog searches as the reader
// types; a query extending one counted for the same version within a few
// seconds replaces it, before or after a flush; the same query again
// (the next page) is the same search; later, or in another version, a
// search of its own. Queries are counted trimmed, in lower case.
func TestSearchTypedOnIsOneSearch(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s, r, pid, c := fixture(t, d, analytics.Config{})
		r.Search(pid, "latest", "ins", 40)
		r.Search(pid, "latest", "inst", 12)
		if err := r.Flush(t.Context()); err != nil { // "inst" is in the store
			t.Fatal(err)
		}
		c.add(time.Second)
		r.Search(pid, "latest", " Install ", 3) // takes "inst" back
		r.Search(pid, "latest", "install", 3)   // the same search again
		r.Search(pid, "stable", "install", 5)   // another version
		r.Search(pid, "latest", "   ", 0)       // nothing to count
		c.add(time.Minute)
		r.Search(pid, "latest", "installation", 0) // too late to merge
		if err := r.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
		want := map[string][2]int64{
			"2026-03-15 latest installation": {1, 0},
			"2026-03-14 latest install":      {1, 3},
			"2026-03-14 stable install":      {1, 5},
		}
		if got := searches(t, s, pid); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("searches %v, want %v", got, want)
		}
	})
}

// TestExpireKeepsRetention: Expire deletes the counters of the days
// before the retention (today is the last kept day) and keeps the rest.
func TestExpireKeepsRetention(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s, r, pid, _ := fixture(t, d, analytics.Config{RetentionDays: 3})
		if first := r.FirstDay(); first != "2026-03-12" {
			t.Fatalf("FirstDay %s, want 2026-03-12", first)
		}
		var views []store.PageViewCount
		var queries []store.SearchQueryCount
		for _, day := range []string{"2026-03-10", "2026-03-11", "2026-03-12", "2026-03-14"} {
			views = append(views, store.PageViewCount{ProjectID: pid, Version: "latest", Path: "/index.html", Day: day, Views: 1})
			queries = append(queries, store.SearchQueryCount{ProjectID: pid, Version: "latest", Query: "x", Day: day, Searches: 1})
		}
		if err := s.AddPageViews(t.Context(), views); err != nil {
			t.Fatal(err)
		}
		if err := s.AddSearchQueries(t.Context(), queries); err != nil {
			t.Fatal(err)
		}
		n, err := r.Expire(t.Context())
		if err != nil || n != 4 {
			t.Errorf("Expire deleted %d rows (%v), want 4", n, err)
		}
		want := map[string]int64{"2026-03-12 latest /index.html": 1, "2026-03-14 latest /index.html": 1}
		if got := pageViews(t, s, pid); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("page views kept %v, want %v", got, want)
		}
		if got := searches(t, s, pid); len(got) != 2 {
			t.Errorf("searches kept %v, want the 2 of 2026-03-12 and 2026-03-14", got)
		}
	})
}

// TestPendingIsBounded: past MaxPending distinct counters, new keys are
// dropped (existing ones still count) until the next flush.
func TestPendingIsBounded(t *testing.T) {
	s, r, pid, _ := fixture(t, store.SQLite, analytics.Config{MaxPending: 2})
	r.PageView(pid, "latest", "/a.html")
	r.PageView(pid, "latest", "/b.html")
	r.PageView(pid, "latest", "/c.html") // dropped
	r.PageView(pid, "latest", "/a.html")
	if err := r.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"2026-03-14 latest /a.html": 2, "2026-03-14 latest /b.html": 1}
	if got := pageViews(t, s, pid); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("page views %v, want %v", got, want)
	}
}

// TestFailedFlushKeepsCounters: counters a flush could not write (the
// database is gone) are written by the next flush that can.
func TestFailedFlushKeepsCounters(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		url := storetest.DatabaseURL(t, d)
		s, err := store.Open(t.Context(), url)
		if err != nil {
			t.Fatal(err)
		}
		u, _ := storetest.MustUser(t, s, "alice")
		pid := storetest.MustImport(t, s, u, "demo", "https://github.com/example/demo").Project.ID
		r := analytics.New(s, analytics.Config{})
		r.PageView(pid, "latest", "/index.html")
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if err := r.Flush(ctx); err == nil {
			t.Fatal("a flush with a cancelled context succeeded, want an error")
		}
		if err := r.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
		rows, err := s.ListPageViews(t.Context(), pid, "2000-01-01", 10, 0)
		if err != nil || len(rows) != 1 || rows[0].Views != 1 {
			t.Errorf("after a failed and a good flush: %+v (%v), want 1 view", rows, err)
		}
		s.Close()
	})
}

// TestDeletedProjectIsDropped: counters of a project deleted before the
// flush are dropped; the others are written.
func TestDeletedProjectIsDropped(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s, r, pid, _ := fixture(t, d, analytics.Config{})
		u, _ := storetest.MustUser(t, s, "bob")
		gone := storetest.MustImport(t, s, u, "gone", "https://github.com/example/gone").Project
		r.PageView(pid, "latest", "/index.html")
		r.PageView(gone.ID, "latest", "/index.html")
		r.Search(gone.ID, "latest", "x", 1)
		if err := s.DeleteProject(t.Context(), gone.ID); err != nil {
			t.Fatal(err)
		}
		if err := r.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
		if got := pageViews(t, s, pid); len(got) != 1 {
			t.Errorf("page views %v, want demo's one", got)
		}
	})
}

func TestIsBot(t *testing.T) {
	for ua, want := range map[string]bool{
		"": true,
		"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36": false,
		"Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:133.0) Gecko/20100101 Firefox/133.0":                   false,
		"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)":                              true,
		"Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)":                               true,
		"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0 Safari":    true,
		"curl/8.5.0":              true,
		"python-requests/2.32.3":  true,
		"Go-http-client/1.1":      true,
		"facebookexternalhit/1.1": true,
	} {
		if got := analytics.IsBot(ua); got != want {
			t.Errorf("IsBot(%q) = %t, want %t", ua, got, want)
		}
		var c analytics.BotCache
		if c.IsBot(ua) != want || c.IsBot(ua) != want {
			t.Errorf("BotCache.IsBot(%q) != %t", ua, want)
		}
	}
}
