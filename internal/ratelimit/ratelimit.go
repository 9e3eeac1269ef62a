// Package ratelimit holds docsd's request budgets: a sliding window per
// caller that API v3 and /graphql share per user, and that /graphql and the
// search endpoints also apply per client address.
//
// A Limiter lives in one process: behind N serve nodes a caller may get N
// times the rate.
package ratelimit

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"docsd/internal/errs"
)

// ParseRate reads a rate setting: "N/second", "N/minute", "N/hour" or
// "N/day" (also s, sec, m, min, h, d). "0", "" and N = 0 turn the limit
// off, which is reported as n = 0.
func ParseRate(rate string) (n int, window time.Duration, err error) {
	if rate == "" || rate == "0" {
		return 0, 0, nil
	}
	count, unit, ok := strings.Cut(rate, "/")
	n, convErr := strconv.Atoi(count)
	if !ok || convErr != nil || n < 0 {
		return 0, 0, fmt.Errorf("rate %q: want N/second, N/minute, N/hour or N/day", rate)
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
		return 0, 0, fmt.Errorf("rate %q: want N/second, N/minute, N/hour or N/day", rate)
	}
	return n, window, nil
}

// Limiter allows each key limit requests per sliding window: it keeps the
// times of a key's accepted requests within the last window; when their
// count has reached the limit a request is refused and not recorded, and
// the caller must wait until the oldest leaves the window.
//
// A nil *Limiter allows everything, so that "off" needs no special case.
type Limiter struct {
	limit  int
	window time.Duration
	now    func() time.Time

	mu    sync.Mutex
	hits  map[string][]time.Time // mu guards hits and calls; accepted requests in the window, oldest first
	calls int
}

// New returns the limiter of rate (see ParseRate), or nil when rate turns
// the limit off.
func New(rate string) (*Limiter, error) {
	n, window, err := ParseRate(rate)
	if err != nil || n == 0 {
		return nil, err
	}
	return &Limiter{limit: n, window: window, now: time.Now, hits: map[string][]time.Time{}}, nil
}

// SetClock replaces the limiter's clock (time.Now), for tests.
func (l *Limiter) SetClock(now func() time.Time) { l.now = now }

// Wait records a request of key and returns 0, or returns the whole
// seconds to wait (at least 1) when key's budget is spent; a refused
// request is not recorded.
func (l *Limiter) Wait(key string) int {
	if l == nil {
		return 0
	}
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.calls++; l.calls%1000 == 0 {
		l.sweep(now)
	}
	hits := l.hits[key]
	for len(hits) > 0 && !hits[0].After(now.Add(-l.window)) {
		hits = hits[1:]
	}
	if len(hits) >= l.limit {
		l.hits[key] = hits
		return Seconds(l.window - now.Sub(hits[0]))
	}
	l.hits[key] = append(hits, now)
	return 0
}

// Allow records a request of key and returns nil, or a Throttled error
// (see Exceeded) when key's budget is spent.
func (l *Limiter) Allow(op, key string) error {
	if secs := l.Wait(key); secs > 0 {
		return Exceeded(op, secs)
	}
	return nil
}

// sweep forgets keys with no request in the window.
func (l *Limiter) sweep(now time.Time) {
	for key, hits := range l.hits {
		if len(hits) == 0 || !hits[len(hits)-1].After(now.Add(-l.window)) {
			delete(l.hits, key)
		}
	}
}

// UserKey is the key of a signed-in user: the same key on every surface
// shares one budget.
func UserKey(id int64) string { return "user:" + strconv.FormatInt(id, 10) }

// AddrKey is the key of an anonymous client address.
func AddrKey(addr string) string { return "addr:" + addr }

// Seconds rounds a wait up to whole seconds, at least 1.
func Seconds(d time.Duration) int {
	return max(int((d+time.Second-1)/time.Second), 1)
}

// Message is the text of a refused request, Read the Docs' throttling
// message, for a wait of secs seconds.
func Message(secs int) string {
	if secs == 1 {
		return "Request was throttled. Expected available in 1 second."
	}
	return fmt.Sprintf("Request was throttled. Expected available in %d seconds.", secs)
}

// Exceeded is the Throttled error of a caller who must wait secs seconds:
// Message as its text, secs as Details[errs.RetryAfterKey].
func Exceeded(op string, secs int) error {
	return &errs.Error{Kind: errs.Throttled, Op: op, Message: Message(secs), Details: map[string]any{errs.RetryAfterKey: secs}}
}
