package graph

import (
	"context"
	"strings"
	"time"

	"docsd/store"
)

// defaultAnalyticsDays is the range Project.analytics covers when not
// asked for another (Read the Docs' dashboards show the last 30 days).
const defaultAnalyticsDays = 30

// defaultRetentionDays is the retention when Settings gives none (the
// default of --analytics-retention-days).
const defaultRetentionDays = 90

// ProjectAnalytics is the GraphQL ProjectAnalytics: a project's counters
// from Since to Until (UTC days, YYYY-MM-DD), read by its list fields'
// resolvers when asked for.
type ProjectAnalytics struct {
	Project       *store.Project
	Enabled       bool
	Since, Until  string
	RetentionDays int64
	days          int
}

// projectAnalytics answers Project.analytics (the directive has checked
// that the viewer maintains p).
func (r *Resolver) projectAnalytics(p *store.Project, days *int64) *ProjectAnalytics {
	retention := r.Settings.AnalyticsRetentionDays
	if retention <= 0 {
		retention = defaultRetentionDays
	}
	n := defaultAnalyticsDays
	if days != nil && *days > 0 {
		n = int(min(*days, 1<<20))
	}
	n = min(n, retention)
	now := r.Store.Now().UTC()
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	return &ProjectAnalytics{Project: p, Enabled: !p.AnalyticsDisabled && !r.Settings.AnalyticsOff, RetentionDays: int64(retention), days: n,
		Since: today.AddDate(0, 0, -(n - 1)).Format(time.DateOnly), Until: today.Format(time.DateOnly)}
}

// everyDay spreads counts over every day of a's range, 0 where none.
func (a *ProjectAnalytics) everyDay(counts []store.DayCount) []*store.DayCount {
	byDay := make(map[string]int64, len(counts))
	for _, c := range counts {
		byDay[c.Day] += c.Count
	}
	since, _ := time.Parse(time.DateOnly, a.Since)
	out := make([]*store.DayCount, 0, a.days)
	for i := range a.days {
		d := since.AddDate(0, 0, i).Format(time.DateOnly)
		out = append(out, &store.DayCount{Day: d, Count: byDay[d]})
	}
	return out
}

func (r *Resolver) analyticsPageViewsByDay(ctx context.Context, a *ProjectAnalytics) ([]*store.DayCount, error) {
	counts, err := r.Store.PageViewsByDay(ctx, a.Project.ID, a.Since)
	if err != nil {
		return nil, err
	}
	return a.everyDay(counts), nil
}

func (r *Resolver) analyticsSearchesByDay(ctx context.Context, a *ProjectAnalytics) ([]*store.DayCount, error) {
	counts, err := r.Store.SearchesByDay(ctx, a.Project.ID, a.Since)
	if err != nil {
		return nil, err
	}
	return a.everyDay(counts), nil
}

// analyticsTopPages lists the most viewed pages with their URLs in the
// project's default version.
func (r *Resolver) analyticsTopPages(ctx context.Context, a *ProjectAnalytics, limit *int64) ([]*TopPage, error) {
	l, _ := r.window(limit, nil)
	pages, err := r.Store.TopPages(ctx, a.Project.ID, a.Since, l)
	if err != nil {
		return nil, err
	}
	t, err := r.target(ctx, a.Project)
	if err != nil {
		return nil, err
	}
	out := make([]*TopPage, 0, len(pages))
	for _, p := range pages {
		out = append(out, &TopPage{Path: p.Path, Views: p.Views, URL: r.Settings.URLs.Docs(t, a.Project.DefaultVersion, strings.TrimPrefix(p.Path, "/"))})
	}
	return out, nil
}

func (r *Resolver) analyticsTopSearches(ctx context.Context, a *ProjectAnalytics, limit *int64, noResults bool) ([]*store.QueryCount, error) {
	l, _ := r.window(limit, nil)
	qs, err := r.Store.TopSearches(ctx, a.Project.ID, a.Since, l, noResults)
	return pointers(qs), err
}

func (r *Resolver) analyticsPageViews(ctx context.Context, a *ProjectAnalytics, limit, offset *int64) ([]*store.PageViewCount, error) {
	l, o := r.window(limit, offset)
	rows, err := r.Store.ListPageViews(ctx, a.Project.ID, a.Since, l, o)
	return pointers(rows), err
}

func (r *Resolver) analyticsSearchQueries(ctx context.Context, a *ProjectAnalytics, limit, offset *int64) ([]*store.SearchQueryCount, error) {
	l, o := r.window(limit, offset)
	rows, err := r.Store.ListSearchQueries(ctx, a.Project.ID, a.Since, l, o)
	return pointers(rows), err
}

// pointers returns pointers to the elements of s.
func pointers[T any](s []T) []*T {
	out := make([]*T, len(s))
	for i := range s {
		out[i] = &s[i]
	}
	return out
}

// analyticsComplexity scales the complexity of ProjectAnalytics' lists by
// the rows they may return (rows: a limit argument's page size); the lists
// by day have one row per day of the retention at most.
func analyticsComplexity(c *ComplexityRoot, rows func(limit *int64) int) {
	a := &c.ProjectAnalytics
	perDay := func(child int) int { return 1 + child*defaultRetentionDays }
	a.PageViewsByDay = perDay
	a.SearchesByDay = perDay
	a.TopPages = func(child int, limit *int64) int { return 1 + child*rows(limit) }
	a.TopSearches = func(child int, limit *int64) int { return 1 + child*rows(limit) }
	a.SearchesWithoutResults = func(child int, limit *int64) int { return 1 + child*rows(limit) }
	a.PageViews = func(child int, limit, _ *int64) int { return 1 + child*rows(limit) }
	a.SearchQueries = func(child int, limit, _ *int64) int { return 1 + child*rows(limit) }
}
