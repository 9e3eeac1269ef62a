package store_test

import (
	"testing"
	"time"

	"docsd/internal/errs"
	"docsd/internal/storetest"
	"docsd/store"
)

// TestDashboardSessions checks password hashes and the life of a dashboard
// session: ended by expiry, sign-out, or a new password.
func TestDashboardSessions(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		ctx := t.Context()
		clock := storetest.SetClock(s, t0)
		alice, _ := storetest.MustUser(t, s, "alice")

		if _, hash, err := s.FindUserPasswordHash(ctx, "alice"); err != nil || hash != "" {
			t.Errorf("new user's hash = %q, %v, want empty", hash, err)
		}
		if err := s.SetUserPasswordHash(ctx, "nobody", "x"); !errs.Is(err, errs.NotFound) {
			t.Errorf("unknown user: %v, want NotFound", err)
		}
		must(t, s.SetUserPasswordHash(ctx, "alice", "$2a$hash"))
		u, hash, err := s.FindUserPasswordHash(ctx, "alice")
		if err != nil || hash != "$2a$hash" || u.ID != alice.ID {
			t.Errorf("hash = %q, %v, %v", hash, u, err)
		}

		value, err := s.CreateDashboardSession(ctx, alice.ID)
		must(t, err)
		if u, err := s.FindUserByDashboardSession(ctx, value); err != nil || u.ID != alice.ID {
			t.Fatalf("session user = %v, %v", u, err)
		}
		clock.Advance(store.DashboardSessionLifetime + time.Second)
		if _, err := s.FindUserByDashboardSession(ctx, value); !errs.Is(err, errs.NotFound) {
			t.Errorf("expired: %v, want NotFound", err)
		}

		value, err = s.CreateDashboardSession(ctx, alice.ID)
		must(t, err)
		must(t, s.DeleteDashboardSession(ctx, value))
		if _, err := s.FindUserByDashboardSession(ctx, value); !errs.Is(err, errs.NotFound) {
			t.Errorf("after sign-out: %v, want NotFound", err)
		}

		value, err = s.CreateDashboardSession(ctx, alice.ID)
		must(t, err)
		must(t, s.SetUserPasswordHash(ctx, "alice", "$2a$other"))
		if _, err := s.FindUserByDashboardSession(ctx, value); !errs.Is(err, errs.NotFound) {
			t.Errorf("after a new password: %v, want NotFound", err)
		}
	})
}
