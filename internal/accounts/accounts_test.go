package accounts_test

import (
	"errors"
	"testing"
	"time"

	"docsd/internal/accounts"
	"docsd/internal/errs"
	"docsd/internal/storetest"
	"docsd/store"
)

// TestSignInThrottleWindow: the throttle counts failures per username and
// address, refuses the FailureLimit+1st try even with the right password,
// and lets the user in again once FailureWindow has passed.
func TestSignInThrottleWindow(t *testing.T) {
	s := storetest.Open(t, store.SQLite)
	storetest.MustUser(t, s, "alice")
	a := accounts.New(s)
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	a.SetClock(func() time.Time { return now })
	if err := a.SetPassword(t.Context(), "alice", "right-password"); err != nil {
		t.Fatal(err)
	}
	for i := range accounts.FailureLimit {
		if _, err := a.SignIn(t.Context(), "alice", "wrong", "10.0.0.1"); !errs.Is(err, errs.Unauthenticated) {
			t.Fatalf("failure %d: %v, want Unauthenticated", i+1, err)
		}
	}
	_, err := a.SignIn(t.Context(), "alice", "right-password", "10.0.0.1")
	var throttled *accounts.ThrottledError
	if !errors.As(err, &throttled) || throttled.Wait != accounts.FailureWindow || !errs.Is(err, errs.Forbidden) {
		t.Fatalf("throttled sign-in: %v, want a ThrottledError waiting %s", err, accounts.FailureWindow)
	}
	if _, err := a.SignIn(t.Context(), "alice", "right-password", "10.0.0.2"); err != nil {
		t.Errorf("another address: %v", err)
	}
	now = now.Add(accounts.FailureWindow)
	value, err := a.SignIn(t.Context(), "alice", "right-password", "10.0.0.1")
	if err != nil {
		t.Fatalf("after the window: %v", err)
	}
	u, err := a.SessionUser(t.Context(), value)
	if err != nil || u.Username != "alice" {
		t.Errorf("session user = %v, %v", u, err)
	}
	if !accounts.ValidCSRF(value, accounts.CSRFToken(value)) || accounts.ValidCSRF(value, accounts.CSRFToken(value+"x")) || accounts.ValidCSRF("", "") {
		t.Error("CSRF tokens are not bound to their session")
	}
	if err := s.SetUserActive(t.Context(), "alice", false); err != nil {
		t.Fatal(err)
	}
	if _, err := a.SessionUser(t.Context(), value); !errs.Is(err, errs.Unauthenticated) {
		t.Errorf("inactive user's session: %v, want Unauthenticated", err)
	}
	if _, err := a.SignIn(t.Context(), "alice", "right-password", "10.0.0.3"); !errs.Is(err, errs.Unauthenticated) {
		t.Errorf("inactive user signs in: %v, want Unauthenticated", err)
	}
}
