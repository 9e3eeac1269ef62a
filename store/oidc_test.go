package store_test

import (
	"testing"
	"time"

	"docsd/internal/errs"
	"docsd/internal/storetest"
	"docsd/store"
)

// TestOIDCFlows checks that a flow is found only with its state and its
// browser's binding, once, and not after it expired.
func TestOIDCFlows(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		ctx := t.Context()
		clock := storetest.SetClock(s, t0)
		flow := store.OIDCFlow{State: "state-1", Binding: "browser-1", Nonce: "n", CodeVerifier: "v", Next: "/projects/x/"}
		must(t, s.CreateOIDCFlow(ctx, flow))
		if _, err := s.ConsumeOIDCFlow(ctx, "state-1", "browser-2"); !errs.Is(err, errs.NotFound) {
			t.Errorf("another browser: %v, want NotFound", err)
		}
		if _, err := s.ConsumeOIDCFlow(ctx, "state-1", ""); !errs.Is(err, errs.NotFound) {
			t.Errorf("no cookie: %v, want NotFound", err)
		}
		got, err := s.ConsumeOIDCFlow(ctx, "state-1", "browser-1")
		if err != nil || *got != flow {
			t.Fatalf("consume = %+v, %v, want %+v", got, err, flow)
		}
		if _, err := s.ConsumeOIDCFlow(ctx, "state-1", "browser-1"); !errs.Is(err, errs.NotFound) {
			t.Errorf("used twice: %v, want NotFound", err)
		}
		flow.State = "state-2"
		must(t, s.CreateOIDCFlow(ctx, flow))
		clock.Advance(store.OIDCFlowLifetime + time.Second)
		if _, err := s.ConsumeOIDCFlow(ctx, "state-2", "browser-1"); !errs.Is(err, errs.NotFound) {
			t.Errorf("expired: %v, want NotFound", err)
		}
	})
}

// TestUserIdentities checks linking identities, finding users by email
// (verified or not), creating users with a free username, and how a
// session was made.
func TestUserIdentities(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		ctx := t.Context()
		admin, err := s.CreateUser(ctx, "ana", "Ana@Acme.example", false)
		must(t, err)
		if !admin.EmailVerified {
			t.Errorf("an administrator's email is not verified")
		}
		bare, err := s.CreateUser(ctx, "bo", "", false)
		must(t, err)
		if bare.EmailVerified {
			t.Errorf("a user without email counts as verified")
		}
		users, err := s.FindUsersByEmail(ctx, "ana@acme.EXAMPLE")
		if err != nil || len(users) != 1 || users[0].ID != admin.ID || !users[0].EmailVerified {
			t.Errorf("by email = %v, %v, want ana, verified", users, err)
		}
		if users, err := s.FindUsersByEmail(ctx, ""); err != nil || len(users) != 0 {
			t.Errorf("empty email matched %v, %v", users, err)
		}

		const iss = "https://login.acme.example"
		if _, err := s.FindUserByIdentity(ctx, iss, "sub-1"); !errs.Is(err, errs.NotFound) {
			t.Errorf("unlinked identity: %v, want NotFound", err)
		}
		must(t, s.LinkUserIdentity(ctx, admin.ID, iss, "sub-1"))
		if u, err := s.FindUserByIdentity(ctx, iss, "sub-1"); err != nil || u.ID != admin.ID {
			t.Errorf("linked identity = %v, %v", u, err)
		}
		if err := s.LinkUserIdentity(ctx, bare.ID, iss, "sub-1"); !errs.Is(err, errs.Conflict) {
			t.Errorf("identity linked twice: %v, want Conflict", err)
		}
		if u, err := s.FindUserByIdentity(ctx, "https://other.example", "sub-1"); err == nil {
			t.Errorf("another issuer's subject found %v", u)
		}

		// The preferred username is taken: the fallback, then -2.
		u, err := s.CreateIdentityUser(ctx, store.NewIdentityUser{Username: "ana", Fallback: "bo", Email: "bo@acme.example", Issuer: iss, Subject: "sub-2"})
		if err != nil || u.Username != "bo-2" || !u.EmailVerified || !u.IsActive || u.IsSuperuser {
			t.Fatalf("created = %+v, %v, want bo-2, verified, active", u, err)
		}
		if got, err := s.FindUserByIdentity(ctx, iss, "sub-2"); err != nil || got.ID != u.ID {
			t.Errorf("created user's identity = %v, %v", got, err)
		}
		u, err = s.CreateIdentityUser(ctx, store.NewIdentityUser{Username: "eve", Fallback: "eve", Email: "eve@acme.example", Issuer: iss, Subject: "sub-3"})
		if err != nil || u.Username != "eve" {
			t.Errorf("created = %+v, %v, want eve", u, err)
		}

		must(t, s.SetUserEmail(ctx, "bo", "bo@example.net"))
		if u, _ := s.FindUserByUsername(ctx, "bo"); u.Email != "bo@example.net" || !u.EmailVerified {
			t.Errorf("set-email = %+v, want verified", u)
		}
		if err := s.SetUserEmail(ctx, "nobody", "x@example.net"); !errs.Is(err, errs.NotFound) {
			t.Errorf("set-email of nobody: %v, want NotFound", err)
		}

		value, err := s.CreateDashboardSessionBy(ctx, admin.ID, store.SessionByOIDC, "id.token.here")
		must(t, err)
		if made, err := s.FindDashboardSession(ctx, value); err != nil || made.AuthBackend != store.SessionByOIDC || made.IDToken != "id.token.here" {
			t.Errorf("session made = %+v, %v", made, err)
		}
		value, err = s.CreateDashboardSession(ctx, admin.ID)
		must(t, err)
		if made, err := s.FindDashboardSession(ctx, value); err != nil || made.AuthBackend != store.SessionByPassword || made.IDToken != "" {
			t.Errorf("password session made = %+v, %v", made, err)
		}
	})
}
