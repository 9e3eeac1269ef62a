package main

import (
	"encoding/json"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"docsd/graph"
	"docsd/internal/ratelimit"
)

// authThrottle slows down token guessing: a client address whose requests
// failed authentication (401 on a request that carried an Authorization
// header) limit times within window gets 429 for every request with an
// Authorization header until the oldest failure leaves the window. It
// covers API v3 and /graphql; it lives in one process.
type authThrottle struct {
	limit   int
	window  time.Duration
	now     func() time.Time
	trusted []netip.Prefix

	mu       sync.Mutex
	failures map[string][]time.Time // mu guards failures and sweeps; by client address, oldest first
	sweeps   int
}

// newAuthThrottle returns the throttle for rate (see ratelimit.ParseRate),
// nil when rate turns it off.
func newAuthThrottle(rate string, trusted []netip.Prefix) *authThrottle {
	n, window, err := ratelimit.ParseRate(rate)
	if err != nil || n == 0 {
		return nil
	}
	return &authThrottle{limit: n, window: window, now: time.Now, trusted: trusted, failures: map[string][]time.Time{}}
}

// wait returns how long addr must wait (0: it may try).
func (t *authThrottle) wait(addr string) time.Duration {
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	fs := t.recent(addr, now)
	if len(fs) < t.limit {
		return 0
	}
	return t.window - now.Sub(fs[0])
}

// fail records a failed authentication of addr.
func (t *authThrottle) fail(addr string) {
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.sweeps++; t.sweeps%1000 == 0 {
		for a := range t.failures {
			if len(t.recent(a, now)) == 0 {
				delete(t.failures, a)
			}
		}
	}
	t.failures[addr] = append(t.recent(addr, now), now)
}

// recent drops addr's failures older than the window and returns the rest.
func (t *authThrottle) recent(addr string, now time.Time) []time.Time {
	fs := t.failures[addr]
	for len(fs) > 0 && !fs[0].After(now.Add(-t.window)) {
		fs = fs[1:]
	}
	t.failures[addr] = fs
	return fs
}

// guarded reports whether a request is one the throttle watches: one that
// carries credentials to an endpoint that checks them (v2 ignores them).
func guarded(r *http.Request) bool {
	if r.Header.Get("Authorization") == "" {
		return false
	}
	p := r.URL.Path
	return p == "/graphql" || p == "/api/v3" || strings.HasPrefix(p, "/api/v3/")
}

// middleware applies the throttle to next.
func (t *authThrottle) middleware(next http.Handler) http.Handler {
	if t == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !guarded(r) {
			next.ServeHTTP(w, r)
			return
		}
		addr := clientAddr(r, t.trusted)
		if d := t.wait(addr); d > 0 {
			writeAuthThrottled(w, r, d)
			return
		}
		rec := &codeRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		if rec.code == http.StatusUnauthorized {
			t.fail(addr)
		}
	})
}

// writeAuthThrottled answers 429 in the shape of the API asked: GraphQL's
// errors list on /graphql, `{"detail": …}` (Read the Docs' throttling
// message) elsewhere.
func writeAuthThrottled(w http.ResponseWriter, r *http.Request, d time.Duration) {
	secs := ratelimit.Seconds(d)
	if r.URL.Path == "/graphql" {
		graph.WriteHTTPError(w, ratelimit.Exceeded("auth", secs))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	w.WriteHeader(http.StatusTooManyRequests)
	json.NewEncoder(w).Encode(map[string]string{"detail": ratelimit.Message(secs)})
}

// codeRecorder remembers the status a handler wrote.
type codeRecorder struct {
	http.ResponseWriter
	code int
}

func (c *codeRecorder) WriteHeader(code int) {
	if c.code == 0 {
		c.code = code
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *codeRecorder) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// Flush lets streaming answers (GraphQL over SSE) send each event at once.
func (c *codeRecorder) Flush() {
	if c.code == 0 {
		c.code = http.StatusOK
	}
	http.NewResponseController(c.ResponseWriter).Flush()
}

// clientAddr is the address of the client that sent r: the connection's
// peer, or, when that peer is a trusted proxy, the right-most address of
// X-Forwarded-For that is not a trusted proxy. Forwarded headers from
// anyone else are ignored (they are the client's to forge).
func clientAddr(r *http.Request, trusted []netip.Prefix) string {
	return clientAddrOf(r.RemoteAddr, forwardedFor(r), trusted)
}

// forwardedFor is r's X-Forwarded-For values, joined with commas.
func forwardedFor(r *http.Request) string {
	return strings.Join(r.Header.Values("X-Forwarded-For"), ",")
}

// clientAddrOf is clientAddr of a request from remote (its RemoteAddr)
// with the X-Forwarded-For values forwardedFor.
func clientAddrOf(remote, forwardedFor string, trusted []netip.Prefix) string {
	peer, err := netip.ParseAddrPort(remote)
	if err != nil {
		return remote
	}
	addr := peer.Addr().Unmap()
	if !isTrusted(addr, trusted) {
		return addr.String()
	}
	hops := strings.Split(forwardedFor, ",")
	for i := len(hops) - 1; i >= 0; i-- {
		hop, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break // a garbled hop: trust nothing to its left
		}
		addr = hop.Unmap()
		if !isTrusted(addr, trusted) {
			break
		}
	}
	return addr.String()
}

func isTrusted(a netip.Addr, trusted []netip.Prefix) bool {
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
