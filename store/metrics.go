package store

import (
	"context"
	"fmt"
	"strings"
)

// BuildDurationBuckets are the upper bounds, in seconds, of the build
// duration histogram that BuildStats fills.
var BuildDurationBuckets = []float64{5, 10, 30, 60, 120, 300, 600, 1200, 1800, 3600}

// BuildCount is the number of builds in one state with one outcome.
type BuildCount struct {
	State   string // triggered, cloning, installing, building, uploading, finished, …
	Outcome string // success or failure for finished builds, "" otherwise
	Count   int64
}

// BuildStats is what the database says about builds, for metrics: it holds
// for every node alike, whichever ran the builds.
type BuildStats struct {
	Counts     []BuildCount
	QueueDepth int64 // triggered builds that no worker has claimed
	// Duration is the histogram of finished builds' lengths: Buckets[i]
	// counts builds of at most BuildDurationBuckets[i] seconds (cumulative).
	DurationCount   uint64
	DurationSum     float64
	DurationBuckets []uint64
}

// BuildStats counts builds by state and outcome, the queue depth and the
// duration histogram of finished builds, in two reads.
func (s *Store) BuildStats(ctx context.Context) (*BuildStats, error) {
	const op = "store.BuildStats"
	st := &BuildStats{}
	var rows []struct {
		State   string `db:"state"`
		Success bool   `db:"success"`
		Count   int64  `db:"n"`
	}
	if err := s.read().sel(ctx, &rows, `SELECT state, success, COUNT(*) AS n FROM builds GROUP BY state, success ORDER BY state, success`); err != nil {
		return nil, classify(op, err)
	}
	for _, r := range rows {
		c := BuildCount{State: r.State, Count: r.Count}
		if r.State == "finished" {
			c.Outcome = map[bool]string{true: "success", false: "failure"}[r.Success]
		} else if r.State == "triggered" {
			st.QueueDepth += r.Count
		}
		st.Counts = append(st.Counts, c)
	}
	// One row: count, sum, then one cumulative count per bucket.
	cols := []string{"COUNT(*)", "COALESCE(SUM(length), 0)"}
	for _, b := range BuildDurationBuckets {
		cols = append(cols, fmt.Sprintf("COALESCE(SUM(CASE WHEN length <= %g THEN 1 ELSE 0 END), 0)", b))
	}
	row := s.reader.QueryRowxContext(ctx, `SELECT `+strings.Join(cols, ", ")+` FROM builds WHERE state = 'finished' AND length IS NOT NULL`)
	s.queries.Add(1)
	vals := make([]int64, len(cols))
	dest := make([]any, len(cols))
	for i := range vals {
		dest[i] = &vals[i]
	}
	if err := row.Scan(dest...); err != nil {
		return nil, classify(op, err)
	}
	st.DurationCount, st.DurationSum = uint64(vals[0]), float64(vals[1])
	for _, v := range vals[2:] {
		st.DurationBuckets = append(st.DurationBuckets, uint64(v))
	}
	return st, nil
}

// FindAllUsers returns every user, by username (for the admin CLI).
func (s *Store) FindAllUsers(ctx context.Context) ([]*User, error) {
	us := []*User{}
	err := scanAll(ctx, s.read(), &us, userRows.next, `SELECT `+userRows.cols+` FROM users u ORDER BY `+s.codepoint("u.username"))
	return us, classify("store.FindAllUsers", err)
}
