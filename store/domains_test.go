package store_test

import (
	"context"
	"testing"
	"time"

	"docsd/internal/errs"
	"docsd/internal/storetest"
	"docsd/store"
)

// TestDomains: a name belongs to one project, a project has one canonical
// domain, checks are recorded and a validated domain stays validated,
// certificate states are written only when they change, and a project's
// deletion takes its domains.
func TestDomains(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		ctx := t.Context()
		storetest.SetClock(s, t0)
		u, _ := storetest.MustUser(t, s, "alice")
		p := storetest.MustImport(t, s, u, "demo", "https://github.com/example/demo").Project
		q := storetest.MustImport(t, s, u, "other", "https://github.com/example/other").Project

		a, err := s.CreateDomain(ctx, p.ID, store.NewDomain{Domain: "a.example.com", Canonical: true, HTTPS: true})
		must(t, err)
		if a.ValidationNext == nil || !a.ValidationNext.Equal(t0) || a.Served() {
			t.Errorf("a new domain: next %v, served %v; want a check due now", a.ValidationNext, a.Served())
		}
		if _, err := s.CreateDomain(ctx, q.ID, store.NewDomain{Domain: "a.example.com"}); !errs.Is(err, errs.Conflict) {
			t.Errorf("the same name in another project: %v, want Conflict", err)
		}
		if _, err := s.CreateDomain(ctx, p.ID, store.NewDomain{Domain: "b.example.com", Canonical: true}); !errs.Is(err, errs.Conflict) {
			t.Errorf("a second canonical domain: %v, want Conflict", err)
		}
		b, err := s.CreateDomain(ctx, p.ID, store.NewDomain{Domain: "b.example.com", SkipValidation: true})
		must(t, err)
		if b.ValidationNext != nil || !b.Served() {
			t.Errorf("skipped validation: next %v, served %v", b.ValidationNext, b.Served())
		}
		yes := true
		if _, err := s.UpdateDomain(ctx, p.ID, b.ID, store.DomainUpdate{Canonical: &yes}); !errs.Is(err, errs.Conflict) {
			t.Errorf("making a second one canonical: %v, want Conflict", err)
		}
		ds, err := s.FindDomains(ctx, p.ID)
		must(t, err)
		if len(ds) != 2 || ds[0].Domain != "a.example.com" {
			t.Errorf("FindDomains: %d, the canonical one first", len(ds))
		}

		next := t0.Add(time.Minute)
		must(t, s.RecordDomainCheck(ctx, a.ID, store.DomainCheck{Error: "not yet", Next: &next}))
		due, err := s.FindDomainsToCheck(ctx, t0)
		must(t, err)
		if len(due) != 0 {
			t.Errorf("due before the next check: %d", len(due))
		}
		must(t, s.RecordDomainCheck(ctx, a.ID, store.DomainCheck{Validated: true}))
		must(t, s.RecordDomainCheck(ctx, a.ID, store.DomainCheck{Error: "gone", Next: &next}))
		got, err := s.FindDomainByName(ctx, "a.example.com")
		must(t, err)
		if !got.Served() || got.ValidationAttempts != 3 {
			t.Errorf("after a pass and a failure: served %v, attempts %d", got.Served(), got.ValidationAttempts)
		}

		var writes int
		s.OnCommit(func(_ context.Context, tables []string) { writes++ })
		must(t, s.RecordDomainCertificate(ctx, "a.example.com", store.SSLValid, ""))
		must(t, s.RecordDomainCertificate(ctx, "a.example.com", store.SSLValid, ""))
		if writes != 1 {
			t.Errorf("the same certificate state twice: %d writes, want 1", writes)
		}

		all, err := s.FindAllDomains(ctx)
		must(t, err)
		if len(all) != 2 || all[0].ProjectSlug != "demo" {
			t.Errorf("FindAllDomains: %+v", all)
		}
		must(t, s.DeleteProject(ctx, p.ID))
		if all, _ := s.FindAllDomains(ctx); len(all) != 0 {
			t.Errorf("domains of a deleted project: %d", len(all))
		}
	})
}

// TestStorageLocks: one holder at a time; the holder extends its lease;
// an expired lease is taken over; Unlock lets the next one in.
func TestStorageLocks(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		ctx := t.Context()
		clock := storetest.SetClock(s, t0)
		lock := func(holder string) bool {
			t.Helper()
			ok, err := s.TryLock(ctx, "certificates/x", holder, time.Minute)
			must(t, err)
			return ok
		}
		if !lock("a") || lock("b") || !lock("a") {
			t.Fatal("a takes the lease, b waits, a extends it")
		}
		clock.Advance(2 * time.Minute)
		if !lock("b") || lock("a") {
			t.Fatal("b takes over an expired lease")
		}
		must(t, s.Unlock(ctx, "certificates/x", "b"))
		if !lock("a") {
			t.Fatal("after Unlock the name is free")
		}
	})
}
