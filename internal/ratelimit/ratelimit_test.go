package ratelimit

import (
	"testing"
	"time"

	"docsd/internal/errs"
)

// TestParseRate checks the rate syntax of the throttle settings.
func TestParseRate(t *testing.T) {
	for _, rate := range []string{"0", "", "0/minute"} {
		if l, err := New(rate); l != nil || err != nil {
			t.Errorf("rate %q: limiter %v, err %v; want off", rate, l, err)
		}
	}
	for _, rate := range []string{"x", "5", "5/week", "-1/second"} {
		if _, err := New(rate); err == nil {
			t.Errorf("rate %q accepted", rate)
		}
	}
	for rate, window := range map[string]time.Duration{"2/second": time.Second, "2/hour": time.Hour, "2/day": 24 * time.Hour, "2/min": time.Minute, "2/m": time.Minute} {
		if l, err := New(rate); err != nil || l.window != window || l.limit != 2 {
			t.Errorf("rate %q: %+v, %v", rate, l, err)
		}
	}
}

// TestMessage checks the singular and plural forms of the message.
func TestMessage(t *testing.T) {
	for secs, want := range map[int]string{
		1:  "Request was throttled. Expected available in 1 second.",
		17: "Request was throttled. Expected available in 17 seconds.",
	} {
		if got := Message(secs); got != want {
			t.Errorf("%d: %q, want %q", secs, got, want)
		}
	}
}

// TestSlidingWindow checks the window per key with a fake clock: a
// refused request is not recorded, the wait is rounded up, keys are apart.
func TestSlidingWindow(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := start
	l, err := New("2/minute")
	if err != nil {
		t.Fatal(err)
	}
	l.SetClock(func() time.Time { return now })
	steps := []struct {
		advance time.Duration
		key     string
		want    int
	}{
		{0, "a", 0},
		{10 * time.Second, "a", 0},
		{0, "a", 50},
		{0, "b", 0},
		{49*time.Second + 500*time.Millisecond, "a", 1},
		{500 * time.Millisecond, "a", 0}, // the first request left the window
		{0, "a", 10},
	}
	for i, s := range steps {
		now = now.Add(s.advance)
		if got := l.Wait(s.key); got != s.want {
			t.Errorf("step %d (%s at %v): wait %d, want %d", i, s.key, now.Sub(start), got, s.want)
		}
	}
	err = l.Allow("test", "a")
	if errs.KindOf(err) != errs.Throttled || errs.RetryAfter(err) != 10 || err.(*errs.Error).Text() != Message(10) {
		t.Errorf("Allow over budget = %v, want Throttled with retryAfter 10", err)
	}
	var off *Limiter
	if off.Wait("a") != 0 || off.Allow("test", "a") != nil {
		t.Error("a nil limiter must allow everything")
	}
}
