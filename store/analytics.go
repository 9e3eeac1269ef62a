package store

import (
	"context"
	"strings"
)

// PageViewCount is a number of views of one page of a project's version on
// one day (UTC, YYYY-MM-DD): a row of page_views, or an amount to add to
// one. Path is the page's file inside the version, with a leading slash
// (`/install.html`, `/index.html`).
type PageViewCount struct {
	ProjectID int64  `db:"project_id"`
	Version   string `db:"version_slug"`
	Path      string `db:"path"`
	Day       string `db:"day"`
	Views     int64  `db:"view_count"`
}

// SearchQueryCount is a number of searches of one query in a project's
// version on one day, with the result count of the last one: a row of
// search_queries, or an amount to add to one. Searches may be negative in
// an amount: a search taken back (a reader typing on, whose shorter query
// was already counted).
type SearchQueryCount struct {
	ProjectID    int64  `db:"project_id"`
	Version      string `db:"version_slug"`
	Query        string `db:"query"`
	Day          string `db:"day"`
	Searches     int64  `db:"searches"`
	TotalResults int64  `db:"total_results"`
}

// DayCount is a total for one day.
type DayCount struct {
	Day   string `db:"day"`
	Count int64  `db:"n"`
}

// PathCount is a page's views summed over versions and days.
type PathCount struct {
	Path  string `db:"path"`
	Views int64  `db:"n"`
}

// QueryCount is a query's searches summed over versions and days, with the
// most results one of its searches had.
type QueryCount struct {
	Query        string `db:"query"`
	Searches     int64  `db:"n"`
	TotalResults int64  `db:"total_results"`
}

// analyticsBatch bounds the rows of one INSERT, far below the databases'
// limits on bound parameters.
const analyticsBatch = 200

// AddPageViews adds the counts to page_views in one transaction: a row that
// exists gets the views added (so that nodes flushing the same row at once
// add up), a new one is created. Counts of projects deleted meanwhile are
// dropped, and so are those whose text cannot be stored.
func (s *Store) AddPageViews(ctx context.Context, counts []PageViewCount) error {
	if len(counts) == 0 {
		return nil
	}
	return s.InTx(ctx, "store.AddPageViews", func(tx *Tx) error {
		live, err := liveProjects(ctx, tx, len(counts), func(i int) int64 { return counts[i].ProjectID })
		if err != nil {
			return err
		}
		rows := make([]any, 0, analyticsBatch*5)
		n := 0
		flush := func() error {
			if n == 0 {
				return nil
			}
			q := `INSERT INTO page_views (project_id, version_slug, path, day, view_count) VALUES ` + values(n, 5) +
				` ON CONFLICT (project_id, version_slug, path, day) DO UPDATE SET view_count = page_views.view_count + excluded.view_count`
			_, err := tx.exec(ctx, q, rows...)
			rows, n = rows[:0], 0
			return err
		}
		for _, c := range counts {
			if !live[c.ProjectID] || !storable(c.Version) || !storable(c.Path) || c.Views == 0 {
				continue
			}
			rows = append(rows, c.ProjectID, c.Version, c.Path, c.Day, c.Views)
			if n++; n == analyticsBatch {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		return flush()
	})
}

// AddSearchQueries adds the counts to search_queries in one transaction,
// as AddPageViews does; a row's total_results becomes the count's (unless
// the count only takes searches back). A row
// whose searches fall to zero or below (searches taken back) is deleted.
func (s *Store) AddSearchQueries(ctx context.Context, counts []SearchQueryCount) error {
	if len(counts) == 0 {
		return nil
	}
	return s.InTx(ctx, "store.AddSearchQueries", func(tx *Tx) error {
		live, err := liveProjects(ctx, tx, len(counts), func(i int) int64 { return counts[i].ProjectID })
		if err != nil {
			return err
		}
		rows := make([]any, 0, analyticsBatch*6)
		n := 0
		flush := func() error {
			if n == 0 {
				return nil
			}
			q := `INSERT INTO search_queries (project_id, version_slug, query, day, searches, total_results) VALUES ` + values(n, 6) +
				` ON CONFLICT (project_id, version_slug, query, day) DO UPDATE SET searches = search_queries.searches + excluded.searches,
				total_results = CASE WHEN excluded.searches > 0 THEN excluded.total_results ELSE search_queries.total_results END`
			_, err := tx.exec(ctx, q, rows...)
			rows, n = rows[:0], 0
			return err
		}
		var takenBack []SearchQueryCount
		for _, c := range counts {
			if !live[c.ProjectID] || !storable(c.Version) || !storable(c.Query) || c.Searches == 0 {
				continue
			}
			if c.Searches < 0 {
				takenBack = append(takenBack, c)
			}
			rows = append(rows, c.ProjectID, c.Version, c.Query, c.Day, c.Searches, c.TotalResults)
			if n++; n == analyticsBatch {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		if err := flush(); err != nil {
			return err
		}
		for _, c := range takenBack {
			if _, err := tx.exec(ctx, `DELETE FROM search_queries WHERE project_id = ? AND version_slug = ? AND query = ? AND day = ? AND searches <= 0`,
				c.ProjectID, c.Version, c.Query, c.Day); err != nil {
				return err
			}
		}
		return nil
	})
}

// liveProjects returns which of the n project ids (id(i)) still exist.
func liveProjects(ctx context.Context, tx *Tx, n int, id func(i int) int64) (map[int64]bool, error) {
	seen := map[int64]bool{}
	var ids []int64
	for i := range n {
		if p := id(i); !seen[p] {
			seen[p] = true
			ids = append(ids, p)
		}
	}
	live := make(map[int64]bool, len(ids))
	for len(ids) > 0 {
		chunk := ids[:min(len(ids), 500)]
		ids = ids[len(chunk):]
		var found []int64
		if err := tx.selIn(ctx, &found, `SELECT id FROM projects WHERE id IN (?)`, chunk); err != nil {
			return nil, err
		}
		for _, p := range found {
			live[p] = true
		}
	}
	return live, nil
}

// values is the VALUES list of n rows of cols placeholders each.
func values(n, cols int) string {
	row := "(" + strings.Repeat("?, ", cols-1) + "?)"
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(row)
	}
	return b.String()
}

// DeleteAnalyticsBefore deletes the page views and search counts of the
// days before day (YYYY-MM-DD) and returns how many rows went.
func (s *Store) DeleteAnalyticsBefore(ctx context.Context, day string) (int64, error) {
	var deleted int64
	err := s.InTx(ctx, "store.DeleteAnalyticsBefore", func(tx *Tx) error {
		for _, q := range []string{`DELETE FROM page_views WHERE day < ?`, `DELETE FROM search_queries WHERE day < ?`} {
			res, err := tx.exec(ctx, q, day)
			if err != nil {
				return err
			}
			n, err := res.RowsAffected()
			if err != nil {
				return err
			}
			deleted += n
		}
		return nil
	})
	return deleted, err
}

// PageViewsByDay returns the project's views per day from since
// (YYYY-MM-DD) on, oldest first; days without views are left out.
func (s *Store) PageViewsByDay(ctx context.Context, projectID int64, since string) ([]DayCount, error) {
	var out []DayCount
	err := s.read().sel(ctx, &out, `SELECT day, SUM(view_count) AS n FROM page_views
		WHERE project_id = ? AND day >= ? GROUP BY day ORDER BY day`, projectID, since)
	return out, classify("store.PageViewsByDay", err)
}

// SearchesByDay returns the project's searches per day from since on,
// oldest first; days without searches are left out.
func (s *Store) SearchesByDay(ctx context.Context, projectID int64, since string) ([]DayCount, error) {
	var out []DayCount
	err := s.read().sel(ctx, &out, `SELECT day, SUM(searches) AS n FROM search_queries
		WHERE project_id = ? AND day >= ? GROUP BY day ORDER BY day`, projectID, since)
	return out, classify("store.SearchesByDay", err)
}

// TopPages returns the project's most viewed pages from since on, views
// summed over versions (as Read the Docs' top pages), most viewed first
// (then by path), at most limit.
func (s *Store) TopPages(ctx context.Context, projectID int64, since string, limit int) ([]PathCount, error) {
	var out []PathCount
	err := s.read().sel(ctx, &out, `SELECT path, SUM(view_count) AS n FROM page_views
		WHERE project_id = ? AND day >= ? GROUP BY path ORDER BY n DESC, path LIMIT ?`, projectID, since, limit)
	return out, classify("store.TopPages", err)
}

// TopSearches returns the project's most searched queries from since on,
// most searched first (then by query), at most limit. With noResults, only
// the queries none of whose searches found anything.
func (s *Store) TopSearches(ctx context.Context, projectID int64, since string, limit int, noResults bool) ([]QueryCount, error) {
	having := ""
	if noResults {
		having = ` HAVING MAX(total_results) = 0`
	}
	var out []QueryCount
	err := s.read().sel(ctx, &out, `SELECT query, SUM(searches) AS n, MAX(total_results) AS total_results FROM search_queries
		WHERE project_id = ? AND day >= ? GROUP BY query`+having+` ORDER BY n DESC, query LIMIT ?`, projectID, since, limit)
	return out, classify("store.TopSearches", err)
}

// ListPageViews returns the project's page_views rows from since on, the
// newest day first (then by version and path), limit rows from offset.
func (s *Store) ListPageViews(ctx context.Context, projectID int64, since string, limit, offset int) ([]PageViewCount, error) {
	var out []PageViewCount
	err := s.read().sel(ctx, &out, `SELECT project_id, version_slug, path, day, view_count FROM page_views
		WHERE project_id = ? AND day >= ? ORDER BY day DESC, version_slug, path LIMIT ? OFFSET ?`, projectID, since, limit, offset)
	return out, classify("store.ListPageViews", err)
}

// ListSearchQueries returns the project's search_queries rows from since
// on, the newest day first (then by version and query), limit rows from
// offset.
func (s *Store) ListSearchQueries(ctx context.Context, projectID int64, since string, limit, offset int) ([]SearchQueryCount, error) {
	var out []SearchQueryCount
	err := s.read().sel(ctx, &out, `SELECT project_id, version_slug, query, day, searches, total_results FROM search_queries
		WHERE project_id = ? AND day >= ? ORDER BY day DESC, version_slug, query LIMIT ? OFFSET ?`, projectID, since, limit, offset)
	return out, classify("store.ListSearchQueries", err)
}
