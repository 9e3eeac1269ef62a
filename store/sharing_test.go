package store_test

import (
	"strings"
	"testing"
	"time"

	"docsd/internal/errs"
	"docsd/internal/storetest"
	"docsd/store"
)

// TestSharingMethods checks a sharing method's life: a token found by its
// hash, grants that end with their lifetime, the method's expiry or its
// deletion, and the per-project limit.
func TestSharingMethods(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		ctx := t.Context()
		clock := storetest.SetClock(s, t0)
		alice, _ := storetest.MustUser(t, s, "alice")
		p := storetest.MustImport(t, s, alice, "Handbook", "https://example.com/h.git").Project

		m, err := s.CreateSharingMethod(ctx, store.SharingMethod{ProjectID: p.ID, AccessType: store.SharingToken, AllowAll: true, Expires: "2024-05-07"})
		must(t, err)
		if len(m.Token) != 43 || m.LastUsedAt != nil || len(m.Versions) != 0 {
			t.Fatalf("created %+v", m)
		}
		got, err := s.FindSharingMethodByToken(ctx, m.Token)
		if err != nil || got.ID != m.ID {
			t.Fatalf("by token: %v, %v", got, err)
		}
		if _, err := s.FindSharingMethodByToken(ctx, "nope"); !errs.Is(err, errs.NotFound) {
			t.Errorf("unknown token: %v, want NotFound", err)
		}

		must(t, s.GrantSharing(ctx, "cookie", m))
		grants, err := s.FindSharingGrants(ctx, "cookie")
		if err != nil || len(grants) != 1 || grants[0].ID != m.ID {
			t.Fatalf("grants: %v, %v", grants, err)
		}
		// The method ends with its expiry day (UTC): the grant with it.
		clock.Advance(17 * time.Hour)
		if grants, _ := s.FindSharingGrants(ctx, "cookie"); len(grants) != 1 {
			t.Errorf("before the end of the expiry day: %d grants, want 1", len(grants))
		}
		clock.Advance(24 * time.Hour)
		if grants, _ := s.FindSharingGrants(ctx, "cookie"); len(grants) != 0 {
			t.Errorf("after the expiry day: %d grants, want 0", len(grants))
		}

		m.Expires, m.AllowAll, m.Versions = "2024-12-31", false, []string{"latest"}
		m, err = s.UpdateSharingMethod(ctx, *m)
		must(t, err)
		if !m.Covers("latest", true) || m.Covers("stable", true) {
			t.Errorf("versions %v", m.Versions)
		}
		must(t, s.GrantSharing(ctx, "cookie", m))
		clock.Advance(store.SharingGrantLifetime + time.Second)
		if grants, _ := s.FindSharingGrants(ctx, "cookie"); len(grants) != 0 {
			t.Errorf("after the grant's lifetime: %d grants, want 0", len(grants))
		}
		must(t, s.GrantSharing(ctx, "cookie", m))
		must(t, s.NoteSharingMethodUsed(ctx, m.ID))
		if m, _ := s.FindSharingMethod(ctx, p.ID, m.ID); m.LastUsedAt == nil {
			t.Errorf("last_used_at not set")
		}
		must(t, s.DeleteSharingMethod(ctx, p.ID, m.ID))
		if grants, _ := s.FindSharingGrants(ctx, "cookie"); len(grants) != 0 {
			t.Errorf("after deleting the method: %d grants, want 0", len(grants))
		}
		if err := s.DeleteSharingMethod(ctx, p.ID, m.ID); !errs.Is(err, errs.NotFound) {
			t.Errorf("deleting twice: %v, want NotFound", err)
		}

		for i := 0; i < store.MaxSharingMethods; i++ {
			_, err := s.CreateSharingMethod(ctx, store.SharingMethod{ProjectID: p.ID, AccessType: store.SharingHTTPHeader, AllowAll: true, Expires: "2024-12-31"})
			must(t, err)
		}
		_, err = s.CreateSharingMethod(ctx, store.SharingMethod{ProjectID: p.ID, AccessType: store.SharingToken, AllowAll: true, Expires: "2024-12-31"})
		if !errs.Is(err, errs.Conflict) {
			t.Errorf("past the limit: %v, want Conflict", err)
		}
		list, total, err := s.FindSharingMethods(ctx, p.ID, store.Page{Limit: 10})
		if err != nil || total != store.MaxSharingMethods || len(list) != 10 || list[0].ID < list[1].ID {
			t.Errorf("list: %d of %d, %v", len(list), total, err)
		}
	})
}

// TestAuditLog checks what each reader of the log sees, the filters, and
// that entries outlive their project.
func TestAuditLog(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		ctx := t.Context()
		storetest.SetClock(s, t0)
		alice, _ := storetest.MustUser(t, s, "alice")
		bob, _ := storetest.MustUser(t, s, "bob")
		p := storetest.MustImport(t, s, alice, "Handbook", "https://example.com/h.git").Project
		str := func(s string) *string { return &s }
		add := func(e store.AuditEntry) {
			t.Helper()
			must(t, s.CreateAuditEntry(ctx, &e))
		}
		add(store.AuditEntry{UserID: &bob.ID, LogUserID: &bob.ID, LogUserUsername: str("bob"), Action: "authentication", AuthBackend: str("password"), IP: "203.0.113.7"})
		add(store.AuditEntry{UserID: &bob.ID, LogUserID: &bob.ID, LogUserUsername: str("bob"), ProjectID: &p.ID, LogProjectID: &p.ID, LogProjectSlug: str(p.Slug), Action: "pageview", Resource: "/en/latest/"})
		add(store.AuditEntry{ProjectID: &p.ID, LogProjectID: &p.ID, LogProjectSlug: str(p.Slug), Action: "sharing-created"})

		own := []string{"authentication", "log-out"}
		projectActions := []string{"pageview", "sharing-created"}
		cases := []struct {
			name string
			vis  store.AuditVisibility
			f    store.AuditFilter
			want int
		}{
			{"superuser", store.AuditVisibility{All: true}, store.AuditFilter{}, 3},
			{"bob's own", store.AuditVisibility{UserID: bob.ID, UserActions: own, ProjectActions: projectActions}, store.AuditFilter{}, 1},
			{"alice admins the project", store.AuditVisibility{UserID: alice.ID, UserActions: own, ProjectActions: projectActions}, store.AuditFilter{}, 2},
			{"alice, filtered by action", store.AuditVisibility{UserID: alice.ID, ProjectActions: projectActions}, store.AuditFilter{Action: "pageview"}, 1},
			{"alice, filtered by user", store.AuditVisibility{UserID: alice.ID, ProjectActions: projectActions}, store.AuditFilter{User: "bob"}, 1},
			{"bad text matches nothing", store.AuditVisibility{All: true}, store.AuditFilter{IP: "\x00"}, 0},
			{"nobody", store.AuditVisibility{}, store.AuditFilter{}, 0},
			{"after tomorrow", store.AuditVisibility{All: true}, store.AuditFilter{After: ptrTime(t0.Add(24 * time.Hour))}, 0},
		}
		for _, c := range cases {
			c.f.Visible = c.vis
			es, total, err := s.FindAuditEntries(ctx, c.f, store.Page{Limit: 10})
			if err != nil || total != c.want || len(es) != c.want {
				t.Errorf("%s: %d (%d listed), %v; want %d", c.name, total, len(es), err, c.want)
			}
		}
		must(t, s.DeleteProject(ctx, p.ID))
		es, _, err := s.FindAuditEntries(ctx, store.AuditFilter{Visible: store.AuditVisibility{All: true}, Project: "handbook"}, store.Page{Limit: 10})
		if err != nil || len(es) != 2 || es[0].ProjectID != nil || *es[0].LogProjectSlug != "handbook" || es[0].ID < es[1].ID {
			t.Errorf("after deleting the project: %v, %v", es, err)
		}
		n, err := s.DeleteAuditEntriesBefore(ctx, t0.Add(time.Second))
		if err != nil || n != 3 {
			t.Errorf("pruned %d, %v; want 3", n, err)
		}
	})
}

func ptrTime(t time.Time) *time.Time { return &t }

// TestSharingTokensSealed: with a key, a sharing token is stored sealed
// (and hashed), read back in the clear, found by its hash, and resealed
// by a rotation.
func TestSharingTokensSealed(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		ctx := t.Context()
		s, db := openWithSQL(t, d)
		u, _ := storetest.MustUser(t, s, "alice")
		p := storetest.MustImport(t, s, u, "Demo", "https://github.com/a/b").Project
		first, err := store.NewSealer("first key")
		must(t, err)
		s.UseSealer(first)
		m, err := s.CreateSharingMethod(ctx, store.SharingMethod{ProjectID: p.ID, AccessType: store.SharingToken, AllowAll: true, Expires: "2099-01-01"})
		must(t, err)
		var sealed, hash string
		if err := db.QueryRowContext(ctx, `SELECT token_sealed, token_hash FROM sharing_methods`).Scan(&sealed, &hash); err != nil {
			t.Fatal(err)
		}
		if !store.IsSealed(sealed) || strings.Contains(sealed, m.Token) || hash != store.HashToken(m.Token) {
			t.Fatalf("stored as %q, %q", sealed, hash)
		}
		second, _ := store.NewSealer("second key", "first key")
		s.UseSealer(second)
		n, err := s.ResealSecrets(ctx)
		must(t, err)
		if n != 2 { // the token and the import's webhook secret
			t.Errorf("resealed %d values, want 2", n)
		}
		only, _ := store.NewSealer("second key")
		s.UseSealer(only)
		got, err := s.FindSharingMethodByToken(ctx, m.Token)
		if err != nil || got.Token != m.Token {
			t.Errorf("after rotation: %v, %v", got, err)
		}
	})
}
