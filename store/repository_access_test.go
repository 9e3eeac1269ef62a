package store_test

import (
	"context"
	"strings"
	"testing"

	"docsd/internal/errs"
	"docsd/internal/storetest"
	"docsd/store"
)

// TestRepositoryAccess: deploy keys and HTTPS credentials are refused
// without a secret key, stored sealed, read back in clear only through
// their own methods, replaced only with rotate, and resealed by
// ResealSecrets, which refuses to decrypt them; known_hosts lines keep
// their order and learned lines are added once.
func TestRepositoryAccess(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		s, db := openWithSQL(t, d)
		u, _ := storetest.MustUser(t, s, "alice")
		p := storetest.MustImport(t, s, u, "Demo", "https://github.com/a/b").Project
		stored := func(q string) string {
			t.Helper()
			var v string
			if err := db.QueryRowContext(ctx, rebind(d, q)).Scan(&v); err != nil {
				t.Fatal(err)
			}
			return v
		}
		key := store.NewSSHKey{Type: "ed25519", PublicKey: "ssh-ed25519 AAAA docsd-demo@x", Fingerprint: "SHA256:x", Private: "-----BEGIN OPENSSH PRIVATE KEY-----\nsecret-key-material\n"}

		_, err := s.CreateSSHKey(ctx, p.ID, key, false)
		if got := errs.FieldsOf(err)[errs.NonField]; errs.KindOf(err) != errs.Invalid || len(got) != 1 || got[0] != store.MsgSSHKeyNeedsSecretKey {
			t.Errorf("key without a secret key: %v", err)
		}
		_, err = s.SetRepositoryCredentials(ctx, p.ID, "ci", "token-value")
		if got := errs.FieldsOf(err)[errs.NonField]; len(got) != 1 || got[0] != store.MsgCredentialsNeedSecretKey {
			t.Errorf("credentials without a secret key: %v", err)
		}

		first, err := store.NewSealer("first key material")
		must(t, err)
		s.UseSealer(first)
		k, err := s.CreateSSHKey(ctx, p.ID, key, false)
		must(t, err)
		if k.PublicKey != key.PublicKey || k.Created.IsZero() {
			t.Errorf("created %+v", k)
		}
		if raw := stored(`SELECT private_key FROM project_ssh_keys`); !store.IsSealed(raw) || strings.Contains(raw, "secret-key-material") {
			t.Errorf("stored private key %q", raw)
		}
		_, err = s.CreateSSHKey(ctx, p.ID, key, false)
		if got := errs.FieldsOf(err)[errs.NonField]; errs.KindOf(err) != errs.Conflict || len(got) != 1 || got[0] != store.MsgSSHKeyExists {
			t.Errorf("second key without rotate: %v", err)
		}
		key.Private = "rotated-material"
		_, err = s.CreateSSHKey(ctx, p.ID, key, true)
		must(t, err)
		priv, err := s.FindSSHPrivateKey(ctx, p.ID)
		if err != nil || priv != "rotated-material" {
			t.Errorf("private key %q, %v", priv, err)
		}

		c, err := s.SetRepositoryCredentials(ctx, p.ID, "ci", "token-value")
		must(t, err)
		c2, err := s.SetRepositoryCredentials(ctx, p.ID, "ci2", "token-value-2")
		must(t, err)
		if !c2.Created.Equal(c.Created) || c2.Username != "ci2" {
			t.Errorf("replaced credentials %+v (first %+v)", c2, c)
		}
		if raw := stored(`SELECT password FROM project_repository_credentials`); !store.IsSealed(raw) {
			t.Errorf("stored token %q", raw)
		}
		if got, err := s.FindRepositoryCredentials(ctx, p.ID); err != nil || got.Username != "ci2" {
			t.Errorf("credentials %+v, %v", got, err)
		}

		// Rotation reseals; decrypting them is refused and changes nothing.
		second, err := store.NewSealer("second key material", "first key material")
		must(t, err)
		s.UseSealer(second)
		n, err := s.ResealSecrets(ctx)
		// The import's webhook secret, the key, the username and the token.
		if err != nil || n != 4 {
			t.Errorf("reseal: %d, %v; want 4 values", n, err)
		}
		if raw := stored(`SELECT private_key FROM project_ssh_keys`); !strings.Contains(raw, second.KeyID()) {
			t.Errorf("resealed key %q not under key %s", raw, second.KeyID())
		}
		only, _ := store.NewSealer("second key material")
		s.UseSealer(only)
		if user, token, err := s.FindRepositoryToken(ctx, p.ID); err != nil || user != "ci2" || token != "token-value-2" {
			t.Errorf("token after rotation: %q %q %v", user, token, err)
		}
		decrypting, _ := store.NewSealer("", "second key material")
		s.UseSealer(decrypting)
		if _, err := s.ResealSecrets(ctx); errs.KindOf(err) != errs.Invalid {
			t.Errorf("decrypting keys: %v, want Invalid", err)
		}
		if raw := stored(`SELECT private_key FROM project_ssh_keys`); !store.IsSealed(raw) {
			t.Error("a refused reseal wrote plain text")
		}
		s.UseSealer(only)

		must(t, s.SetKnownHosts(ctx, p.ID, []store.KnownHost{{Hosts: "a", KeyType: "ssh-ed25519", Line: "a ssh-ed25519 AAAA"}, {Hosts: "b", KeyType: "ssh-rsa", Line: "b ssh-rsa AAAA"}}))
		added, err := s.AddLearnedKnownHosts(ctx, p.ID, []store.KnownHost{{Hosts: "b", Line: "b ssh-rsa AAAA"}, {Hosts: "c", KeyType: "ssh-ed25519", Line: "c ssh-ed25519 AAAA"}})
		must(t, err)
		if len(added) != 1 || added[0].Hosts != "c" {
			t.Errorf("added %+v", added)
		}
		hs, err := s.FindKnownHosts(ctx, p.ID)
		must(t, err)
		var got []string
		for _, h := range hs {
			got = append(got, h.Hosts+map[bool]string{true: "*", false: ""}[h.Learned])
		}
		wantStrings(t, "known hosts", got, []string{"a", "b", "c*"})
		must(t, s.SetKnownHosts(ctx, p.ID, nil))
		if hs, _ := s.FindKnownHosts(ctx, p.ID); len(hs) != 0 {
			t.Errorf("cleared: %+v", hs)
		}

		must(t, s.DeleteSSHKey(ctx, p.ID))
		wantKind(t, s.DeleteSSHKey(ctx, p.ID), errs.NotFound)
		_, err = s.FindSSHKey(ctx, p.ID)
		wantKind(t, err, errs.NotFound)
		must(t, s.DeleteRepositoryCredentials(ctx, p.ID))
		_, _, err = s.FindRepositoryToken(ctx, p.ID)
		wantKind(t, err, errs.NotFound)
	})
}
