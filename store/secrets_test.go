package store_test

import (
	"context"
	"strings"
	"testing"

	"docsd/internal/errs"
	"docsd/internal/storetest"
	"docsd/store"
)

// TestSecretsAtRest: with a sealer, environment variable values and webhook
// secrets are stored encrypted and read back in clear; plaintext rows from
// before keep working; rotation reseals everything; a wrong key is a clear
// error.
func TestSecretsAtRest(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		s, db := openWithSQL(t, d)
		u, _ := storetest.MustUser(t, s, "alice")

		// Written before any key: plaintext.
		p := storetest.MustImport(t, s, u, "Demo", "https://github.com/a/b").Project
		_, err := s.CreateEnvironmentVariable(ctx, p.ID, "OLD", "plain-old-value", false)
		must(t, err)
		stored := func(q string) string {
			t.Helper()
			var v string
			if err := db.QueryRowContext(ctx, rebind(d, q)).Scan(&v); err != nil {
				t.Fatal(err)
			}
			return v
		}
		if got := stored(`SELECT value FROM environment_variables WHERE name = 'OLD'`); got != "plain-old-value" {
			t.Fatalf("stored without a key: %q", got)
		}

		first, err := store.NewSealer("first key")
		must(t, err)
		s.UseSealer(first)
		v, err := s.CreateEnvironmentVariable(ctx, p.ID, "NEW", "new-secret-value", false)
		must(t, err)
		if v.Value != "new-secret-value" {
			t.Errorf("created value = %q", v.Value)
		}
		raw := stored(`SELECT value FROM environment_variables WHERE name = 'NEW'`)
		if !store.IsSealed(raw) || strings.Contains(raw, "new-secret-value") {
			t.Fatalf("stored with a key: %q, want a sealed value", raw)
		}
		vars, _, err := s.FindEnvironmentVariables(ctx, p.ID, store.Page{})
		must(t, err)
		got := map[string]string{}
		for _, v := range vars {
			got[v.Name] = v.Value
		}
		if got["NEW"] != "new-secret-value" || got["OLD"] != "plain-old-value" {
			t.Errorf("read back: %v", got)
		}
		in, err := s.CreateIntegration(ctx, p.ID, store.GitHubWebhook)
		must(t, err)
		if raw := stored(`SELECT secret FROM integrations ORDER BY id DESC LIMIT 1`); !store.IsSealed(raw) || strings.Contains(raw, in.Secret) {
			t.Errorf("integration secret stored as %q", raw)
		}
		ins, err := s.FindIntegrations(ctx, p.ID)
		must(t, err)
		if ins[len(ins)-1].Secret != in.Secret {
			t.Errorf("integration secret read back as %q, want %q", ins[len(ins)-1].Secret, in.Secret)
		}

		// A wrong key is a clear error, not garbage.
		wrong, _ := store.NewSealer("another key")
		s.UseSealer(wrong)
		_, _, err = s.FindEnvironmentVariables(ctx, p.ID, store.Page{})
		wantKind(t, err, errs.Internal)
		if !strings.Contains(err.Error(), "not configured") {
			t.Errorf("wrong key error: %v", err)
		}

		// Rotation: the new key seals every value, old plaintext included.
		second, _ := store.NewSealer("second key", "first key")
		s.UseSealer(second)
		n, err := s.ResealSecrets(ctx)
		must(t, err)
		if want := 3 + len(ins) - 1; n != want { // OLD, NEW, every integration secret
			t.Errorf("resealed %d values, want %d", n, want)
		}
		only, _ := store.NewSealer("second key")
		s.UseSealer(only)
		vars, _, err = s.FindEnvironmentVariables(ctx, p.ID, store.Page{})
		must(t, err)
		for _, v := range vars {
			if v.Value != map[string]string{"NEW": "new-secret-value", "OLD": "plain-old-value"}[v.Name] {
				t.Errorf("after rotation %s = %q", v.Name, v.Value)
			}
		}
		if raw := stored(`SELECT value FROM environment_variables WHERE name = 'OLD'`); !strings.Contains(raw, ":"+only.KeyID()+":") {
			t.Errorf("OLD after rotation stored as %q, want sealed with key %s", raw, only.KeyID())
		}
		// Back to plaintext (an empty current key decrypts everything).
		back, _ := store.NewSealer("", "second key")
		s.UseSealer(back)
		_, err = s.ResealSecrets(ctx)
		must(t, err)
		if got := stored(`SELECT value FROM environment_variables WHERE name = 'NEW'`); got != "new-secret-value" {
			t.Errorf("after decrypting rotation: %q", got)
		}
	})
}
