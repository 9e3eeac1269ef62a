// Package analytics counts what readers do with hosted docs: page views
// per project, version, page and day, and searches with their result
// counts per day (see docs/user-guide/analytics.md). Only aggregate
// counters are kept, never a reader's address, cookie or user agent.
//
// Counting must not slow serving: a Recorder adds to counters in memory
// (one short lock, no I/O) and a background loop writes them to the store
// in batches, every flush interval and when it stops. The store adds the
// batch to the rows already there, so several nodes may count the same
// page on the same day. A second loop deletes the rows older than the
// retention.
package analytics

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"docsd/store"
)

// Defaults of Config.
const (
	DefaultFlushInterval = 10 * time.Second
	DefaultRetentionDays = 90
	// DefaultMaxPending bounds the distinct counters kept in memory between
	// flushes; when reached, a flush starts at once, and counters of new
	// keys are dropped until it is done.
	DefaultMaxPending = 100_000
)

// Bounds of what is counted: longer paths and queries are cut.
const (
	maxPathBytes  = 1024
	maxQueryBytes = 200
)

// searchMergeWindow is how soon after a search a longer query that starts
// with it replaces it instead of counting as a search of its own: the
// reader's search dialog searches as the reader types, and "ana",
// "analy", "analytics" are one search (Read the Docs' rule).
const searchMergeWindow = 10 * time.Second

// Config is what a Recorder needs from cmd.
type Config struct {
	// FlushInterval is how often counters are written; DefaultFlushInterval
	// when zero.
	FlushInterval time.Duration
	// RetentionDays is how many days of counters are kept (today
	// included); DefaultRetentionDays when zero.
	RetentionDays int
	// MaxPending bounds the counters kept in memory, and apart the
	// PageCounters with views pending; DefaultMaxPending when zero.
	MaxPending int
	Logger     *slog.Logger
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

// Recorder counts page views and searches in memory and writes them to the
// store in batches. Its methods are safe for concurrent use; a nil
// Recorder counts nothing.
type Recorder struct {
	store *store.Store
	cfg   Config

	// mu guards views, searches, recent and the dropped count.
	mu       sync.Mutex
	views    map[viewKey]int64
	searches map[searchKey]*searchCount
	// recent are the latest searches, newest last, for the merge of a
	// query typed on (searchMergeWindow).
	recent  []recentSearch
	dropped int64
	// counted are the PageCounters with views pending, each with the day
	// its first pending view was counted on.
	counted []countedPage

	// flushMu serialises flushes (the loop's, Flush's, Close's).
	flushMu sync.Mutex
	// full asks the loop for an early flush (MaxPending reached).
	full chan struct{}
	// today caches the current day's string (dayCache).
	today atomic.Pointer[dayCache]

	stop    chan struct{}
	stopped chan struct{}
	closing sync.Once
}

type viewKey struct {
	project       int64
	version, path string
	day           string
}

type searchKey struct {
	project        int64
	version, query string
	day            string
}

type searchCount struct {
	searches, total int64
}

type recentSearch struct {
	key searchKey
	at  time.Time
}

// PageCounter counts the views of one page without a lock: for a page
// whose answer is replayed to many readers, each view is one atomic add
// (Count). Make it with NewPageCounter.
type PageCounter struct {
	project       int64
	version, path string
	// pending are the views not yet taken by a flush; whoever moves it
	// from 0 to 1 registers the counter with the recorder, and a flush
	// takes the registered counters' views (Swap(0)) after unregistering
	// them, so no view is lost or taken twice.
	pending atomic.Int64
}

type countedPage struct {
	c   *PageCounter
	day string
}

type dayCache struct {
	day   string
	until time.Time
}

// New returns a Recorder writing to s. Start its loops with Run.
func New(s *store.Store, cfg Config) *Recorder {
	if cfg.FlushInterval <= 0 {
		cfg.FlushInterval = DefaultFlushInterval
	}
	if cfg.RetentionDays <= 0 {
		cfg.RetentionDays = DefaultRetentionDays
	}
	if cfg.MaxPending <= 0 {
		cfg.MaxPending = DefaultMaxPending
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Recorder{store: s, cfg: cfg, views: map[viewKey]int64{}, searches: map[searchKey]*searchCount{},
		full: make(chan struct{}, 1), stop: make(chan struct{}), stopped: make(chan struct{})}
}

// day returns today's date (UTC) as YYYY-MM-DD and the time now.
func (r *Recorder) day() (string, time.Time) {
	now := r.cfg.Now()
	if c := r.today.Load(); c != nil && now.Before(c.until) && !now.Before(c.until.Add(-24*time.Hour)) {
		return c.day, now
	}
	u := now.UTC()
	start := time.Date(u.Year(), u.Month(), u.Day(), 0, 0, 0, 0, time.UTC)
	c := &dayCache{day: start.Format(time.DateOnly), until: start.Add(24 * time.Hour)}
	r.today.Store(c)
	return c.day, now
}

// PageView counts a view of page path (the file inside the version, with
// a leading slash) of the project's version.
func (r *Recorder) PageView(projectID int64, version, path string) {
	if r == nil {
		return
	}
	if len(path) > maxPathBytes {
		path = cut(path, maxPathBytes)
	}
	day, _ := r.day()
	k := viewKey{project: projectID, version: version, path: path, day: day}
	r.mu.Lock()
	if n, ok := r.views[k]; ok {
		r.views[k] = n + 1
	} else if r.room() {
		r.views[k] = 1
	}
	r.mu.Unlock()
}

// NewPageCounter returns a counter of the views of page path of the
// project's version (as PageView's arguments); nil from a nil Recorder.
func (r *Recorder) NewPageCounter(projectID int64, version, path string) *PageCounter {
	if r == nil {
		return nil
	}
	if len(path) > maxPathBytes {
		path = cut(path, maxPathBytes)
	}
	return &PageCounter{project: projectID, version: version, path: path}
}

// Count counts a view on c: one atomic add, and a short lock only for the
// first view since the last flush. The views are counted on the day of
// that first one (a flush interval's views after midnight may count on
// the day before).
func (r *Recorder) Count(c *PageCounter) {
	if r == nil || c == nil || c.pending.Add(1) != 1 {
		return
	}
	day, _ := r.day()
	r.mu.Lock()
	if len(r.counted) < r.cfg.MaxPending {
		r.counted = append(r.counted, countedPage{c: c, day: day})
	} else {
		c.pending.Store(0) // dropped; the next view registers it again
		r.dropped++
		r.askFlush()
	}
	r.mu.Unlock()
}

// Search counts a search of query in the project's version that found
// total results. The query is counted trimmed and in lower case; an empty
// one is not counted. A query that extends one counted for the same
// version within the last seconds replaces it (the reader typed on).
func (r *Recorder) Search(projectID int64, version, query string, total int) {
	if r == nil {
		return
	}
	query = strings.ToLower(strings.TrimSpace(query))
	if query == "" {
		return
	}
	if len(query) > maxQueryBytes {
		query = cut(query, maxQueryBytes)
	}
	day, now := r.day()
	k := searchKey{project: projectID, version: version, query: query, day: day}
	r.mu.Lock()
	defer r.mu.Unlock()
	// Forget the searches too old to merge with, then look for the latest
	// one this query extends.
	i := 0
	for i < len(r.recent) && now.Sub(r.recent[i].at) > searchMergeWindow {
		i++
	}
	r.recent = r.recent[i:]
	for j := len(r.recent) - 1; j >= 0; j-- {
		prev := r.recent[j]
		if prev.key.project != projectID || prev.key.version != version || prev.key.day != day || !strings.HasPrefix(query, prev.key.query) {
			continue
		}
		r.recent = append(r.recent[:j], r.recent[j+1:]...)
		if prev.key.query != query {
			r.addSearch(prev.key, -1, -1)
		} else {
			// The same query again (the next page of results, a reload):
			// one search.
			r.addSearch(k, 0, int64(total))
			r.remember(k, now)
			return
		}
		break
	}
	r.addSearch(k, 1, int64(total))
	r.remember(k, now)
}

// maxRecent bounds the searches remembered for the merge.
const maxRecent = 256

func (r *Recorder) remember(k searchKey, now time.Time) {
	if len(r.recent) >= maxRecent {
		r.recent = r.recent[1:]
	}
	r.recent = append(r.recent, recentSearch{key: k, at: now})
}

// addSearch adds n searches to k's counter; total, when not negative,
// becomes its result count. r.mu is held.
func (r *Recorder) addSearch(k searchKey, n, total int64) {
	c, ok := r.searches[k]
	if !ok {
		if !r.room() {
			return
		}
		c = &searchCount{total: max(total, 0)}
		r.searches[k] = c
	}
	c.searches += n
	if total >= 0 {
		c.total = total
	}
}

// room reports whether a new counter may be kept; when the bound is
// reached it asks for a flush and counts the drop. r.mu is held.
func (r *Recorder) room() bool {
	if len(r.views)+len(r.searches) < r.cfg.MaxPending {
		return true
	}
	r.dropped++
	r.askFlush()
	return false
}

// askFlush asks Run's loop for a flush now, if none was asked for yet.
func (r *Recorder) askFlush() {
	select {
	case r.full <- struct{}{}:
	default:
	}
}

// cut shortens s to at most n bytes, on a rune boundary.
func cut(s string, n int) string {
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// Run flushes the counters every flush interval (and at once when too
// many are pending) and deletes expired rows every hour, until ctx ends or
// Close is called; then it flushes what is left. It returns when done.
func (r *Recorder) Run(ctx context.Context) {
	defer close(r.stopped)
	flush := time.NewTicker(r.cfg.FlushInterval)
	defer flush.Stop()
	expire := time.NewTicker(time.Hour)
	defer expire.Stop()
	r.expire(ctx)
	for {
		select {
		case <-flush.C:
		case <-r.full:
		case <-expire.C:
			r.expire(ctx)
			continue
		case <-ctx.Done():
			r.finalFlush()
			return
		case <-r.stop:
			r.finalFlush()
			return
		}
		if err := r.Flush(ctx); err != nil && ctx.Err() == nil {
			r.cfg.Logger.Error("analytics: writing counters", "err", err)
		}
	}
}

// finalFlush writes what is left, with a deadline of its own: the context
// the loop ran in is over.
func (r *Recorder) finalFlush() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := r.Flush(ctx); err != nil {
		r.cfg.Logger.Error("analytics: writing counters at shutdown", "err", err)
	}
}

// Close stops Run's loop after a last flush and waits for it; call it
// once Run was started, after the listeners stopped serving.
func (r *Recorder) Close() {
	if r == nil {
		return
	}
	r.closing.Do(func() { close(r.stop) })
	<-r.stopped
}

// Flush writes the pending counters to the store now. Counters that could
// not be written are kept for the next flush (within the bound).
func (r *Recorder) Flush(ctx context.Context) error {
	if r == nil {
		return nil
	}
	r.flushMu.Lock()
	defer r.flushMu.Unlock()
	r.mu.Lock()
	views, searches, dropped, counted := r.views, r.searches, r.dropped, r.counted
	if len(views) == 0 && len(searches) == 0 && dropped == 0 && len(counted) == 0 {
		r.mu.Unlock()
		return nil
	}
	r.views, r.searches, r.dropped, r.counted = make(map[viewKey]int64, len(views)), make(map[searchKey]*searchCount, len(searches)), 0, nil
	r.mu.Unlock()
	for _, cp := range counted {
		if n := cp.c.pending.Swap(0); n > 0 {
			views[viewKey{project: cp.c.project, version: cp.c.version, path: cp.c.path, day: cp.day}] += n
		}
	}
	if dropped > 0 {
		r.cfg.Logger.Warn("analytics: counters dropped, too many pending between flushes", "dropped", dropped, "max", r.cfg.MaxPending)
	}

	pv := make([]store.PageViewCount, 0, len(views))
	for k, n := range views {
		pv = append(pv, store.PageViewCount{ProjectID: k.project, Version: k.version, Path: k.path, Day: k.day, Views: n})
	}
	if err := r.store.AddPageViews(ctx, pv); err != nil {
		r.putBack(views, searches)
		return err
	}
	sq := make([]store.SearchQueryCount, 0, len(searches))
	for k, c := range searches {
		sq = append(sq, store.SearchQueryCount{ProjectID: k.project, Version: k.version, Query: k.query, Day: k.day, Searches: c.searches, TotalResults: c.total})
	}
	if err := r.store.AddSearchQueries(ctx, sq); err != nil {
		r.putBack(nil, searches)
		return err
	}
	return nil
}

// putBack adds counters that were not written to those counted since.
func (r *Recorder) putBack(views map[viewKey]int64, searches map[searchKey]*searchCount) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, n := range views {
		if _, ok := r.views[k]; ok || r.room() {
			r.views[k] += n
		}
	}
	for k, c := range searches {
		if cur, ok := r.searches[k]; ok {
			cur.searches += c.searches
		} else if r.room() {
			r.searches[k] = c
		}
	}
}

// expire deletes the counters older than the retention.
func (r *Recorder) expire(ctx context.Context) {
	n, err := r.Expire(ctx)
	if err != nil && ctx.Err() == nil {
		r.cfg.Logger.Error("analytics: deleting expired counters", "err", err)
		return
	}
	if n > 0 {
		r.cfg.Logger.Info("analytics: expired counters deleted", "rows", n)
	}
}

// Expire deletes the counters of the days before the retention (today is
// the last of RetentionDays days kept) and returns how many rows went.
func (r *Recorder) Expire(ctx context.Context) (int64, error) {
	return r.store.DeleteAnalyticsBefore(ctx, r.FirstDay())
}

// FirstDay is the oldest day (YYYY-MM-DD) the retention keeps.
func (r *Recorder) FirstDay() string {
	return FirstDay(r.cfg.Now(), r.cfg.RetentionDays)
}

// FirstDay is the oldest day (YYYY-MM-DD, UTC) that a retention of days
// days, today included, keeps at now.
func FirstDay(now time.Time, days int) string {
	u := now.UTC()
	return time.Date(u.Year(), u.Month(), u.Day()-(days-1), 0, 0, 0, 0, time.UTC).Format(time.DateOnly)
}
