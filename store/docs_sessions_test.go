package store_test

import (
	"testing"
	"time"

	"docsd/internal/errs"
	"docsd/internal/storetest"
	"docsd/store"
)

// TestDocsSessions checks the life of a docs-host session: bound to its
// host, ended by expiry, logout or revoking its key.
func TestDocsSessions(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		ctx := t.Context()
		clock := storetest.SetClock(s, t0)
		alice, key := storetest.MustUser(t, s, "alice")

		if _, err := s.CreateDocsSession(ctx, "0000", "demo"); !errs.Is(err, errs.Unauthenticated) {
			t.Errorf("unknown key: %v, want Unauthenticated", err)
		}
		value, err := s.CreateDocsSession(ctx, key, "demo")
		must(t, err)
		if value == key || len(value) != 64 {
			t.Errorf("cookie value %q", value)
		}
		u, err := s.FindUserByDocsSession(ctx, value, "demo")
		if err != nil || u.ID != alice.ID {
			t.Fatalf("session user = %v, %v", u, err)
		}
		if _, err := s.FindUserByDocsSession(ctx, value, "other"); !errs.Is(err, errs.NotFound) {
			t.Errorf("other host: %v, want NotFound", err)
		}
		clock.Advance(store.DocsSessionLifetime + time.Second)
		if _, err := s.FindUserByDocsSession(ctx, value, "demo"); !errs.Is(err, errs.NotFound) {
			t.Errorf("expired: %v, want NotFound", err)
		}

		value, err = s.CreateDocsSession(ctx, key, "demo")
		must(t, err)
		must(t, s.DeleteDocsSession(ctx, value))
		if _, err := s.FindUserByDocsSession(ctx, value, "demo"); !errs.Is(err, errs.NotFound) {
			t.Errorf("after logout: %v, want NotFound", err)
		}

		value, err = s.CreateDocsSession(ctx, key, "demo")
		must(t, err)
		must(t, s.SetUserActive(ctx, "alice", false))
		if _, err := s.CreateDocsSession(ctx, key, "demo"); !errs.Is(err, errs.Unauthenticated) {
			t.Errorf("inactive user's key: %v, want Unauthenticated", err)
		}
		must(t, s.SetUserActive(ctx, "alice", true))
		must(t, s.RevokeToken(ctx, key))
		if _, err := s.FindUserByDocsSession(ctx, value, "demo"); !errs.Is(err, errs.NotFound) {
			t.Errorf("revoked key: %v, want NotFound", err)
		}
	})
}
