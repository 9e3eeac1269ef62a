package rest

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ParseThrottleRate reads a throttle rate (behavior.md §0.2): "N/second",
// "N/minute", "N/hour" or "N/day" (also s, sec, m, min, h, d). "0", "" and
// N = 0 turn throttling off, which is reported as n = 0.
func ParseThrottleRate(rate string) (n int, window time.Duration, err error) {
	if rate == "" || rate == "0" {
		return 0, 0, nil
	}
	count, unit, ok := strings.Cut(rate, "/")
	n, convErr := strconv.Atoi(count)
	if !ok || convErr != nil || n < 0 {
		return 0, 0, fmt.Errorf("throttle rate %q: want N/second, N/minute, N/hour or N/day", rate)
	}
	switch unit {
	case "second", "s", "sec":
		window = time.Second
	case "minute", "m", "min":
		window = time.Minute
	case "hour", "h":
		window = time.Hour
	case "day", "d":
		window = 24 * time.Hour
	default:
		return 0, 0, fmt.Errorf("throttle rate %q: want N/second, N/minute, N/hour or N/day", rate)
	}
	return n, window, nil
}

// v3Throttle limits each user to limit requests per sliding window
// (behavior.md §3.11). It lives in one process: behind N nodes a user may
// get N times the rate.
type v3Throttle struct {
	limit  int
	window time.Duration
	now    func() time.Time

	mu    sync.Mutex
	hits  map[int64][]time.Time // mu guards hits and calls; accepted requests in the window, oldest first
	calls int
}

// v3NewThrottle returns a throttle for rate, or nil when rate turns
// throttling off.
func v3NewThrottle(rate string, now func() time.Time) (*v3Throttle, error) {
	n, window, err := ParseThrottleRate(rate)
	if err != nil || n == 0 {
		return nil, err
	}
	return &v3Throttle{limit: n, window: window, now: now, hits: map[int64][]time.Time{}}, nil
}

// allow records a request of user and returns 0, or returns the seconds to
// wait (at least 1) when the user's budget is spent; a rejected request is
// not recorded.
func (t *v3Throttle) allow(user int64) int {
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.calls++
	if t.calls%1000 == 0 {
		t.sweep(now)
	}
	hits := t.hits[user]
	for len(hits) > 0 && !hits[0].After(now.Add(-t.window)) {
		hits = hits[1:]
	}
	if len(hits) >= t.limit {
		t.hits[user] = hits
		wait := t.window - now.Sub(hits[0])
		secs := int((wait + time.Second - 1) / time.Second)
		return max(secs, 1)
	}
	t.hits[user] = append(hits, now)
	return 0
}

// sweep forgets users with no request in the window.
func (t *v3Throttle) sweep(now time.Time) {
	for user, hits := range t.hits {
		if len(hits) == 0 || !hits[len(hits)-1].After(now.Add(-t.window)) {
			delete(t.hits, user)
		}
	}
}

// v3ThrottledMessage is the 429 detail for a wait of secs seconds.
func v3ThrottledMessage(secs int) string {
	if secs == 1 {
		return "Request was throttled. Expected available in 1 second."
	}
	return fmt.Sprintf("Request was throttled. Expected available in %d seconds.", secs)
}
