package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"docsd/internal/repocreds"
	"docsd/internal/storetest"
	"docsd/store"
)

// TestSecretsRotateResealsRepositoryAccess: `docsd secrets rotate` reseals
// deploy keys and HTTPS credentials with the new key, so that they open
// with it alone, and refuses to decrypt them (no --secret-key).
func TestSecretsRotateResealsRepositoryAccess(t *testing.T) {
	dir := t.TempDir()
	migrated(t, dir)
	ctx := context.Background()
	db := filepath.Join(dir, "docsd.db")
	const oldKey, newKey = "the old key, long enough", "the new key, long enough"
	open := func(current string, old ...string) *store.Store {
		t.Helper()
		s, err := store.Open(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		sl, err := store.NewSealer(current, old...)
		if err != nil {
			t.Fatal(err)
		}
		s.UseSealer(sl)
		return s
	}
	s := open(oldKey)
	u, _ := storetest.MustUser(t, s, "alice")
	p := storetest.MustImport(t, s, u, "Demo", "https://github.com/a/b").Project
	k, err := repocreds.NewKey("docsd-demo@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateSSHKey(ctx, p.ID, store.NewSSHKey{Type: repocreds.KeyType, PublicKey: k.Public, Fingerprint: k.Fingerprint, Private: k.Private}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetRepositoryCredentials(ctx, p.ID, "ci", "token-value-1234"); err != nil {
		t.Fatal(err)
	}
	s.Close()

	code, out, errOut := docsd(t, "secrets", "rotate", "--data-dir", dir, "--old-secret-key", oldKey)
	if code != 1 || !strings.Contains(errOut, "never stored unencrypted") {
		t.Errorf("rotate to no key: code %d, stdout %q, stderr %q; want a refusal", code, out, errOut)
	}
	code, out, errOut = docsd(t, "secrets", "rotate", "--data-dir", dir, "--secret-key", newKey, "--old-secret-key", oldKey)
	// The import's webhook secret, the private key, the username, the token.
	if code != 0 || !strings.Contains(out, "4 values sealed with key") {
		t.Fatalf("secrets rotate: code %d, stdout %q, stderr %q", code, out, errOut)
	}
	s = open(newKey)
	defer s.Close()
	if priv, err := s.FindSSHPrivateKey(ctx, p.ID); err != nil || priv != k.Private {
		t.Errorf("private key after rotation: %v", err)
	}
	if user, token, err := s.FindRepositoryToken(ctx, p.ID); err != nil || user != "ci" || token != "token-value-1234" {
		t.Errorf("credentials after rotation: %q %q %v", user, token, err)
	}
}

// TestRepositoryAccessSettings: --ssh-known-hosts and --repository-ca-file
// are read at start, made absolute, and refused, naming the flag, when
// their file is missing or is not what they name.
func TestRepositoryAccessSettings(t *testing.T) {
	dir := t.TempDir()
	k, err := repocreds.NewKey("x")
	if err != nil {
		t.Fatal(err)
	}
	knownHosts := filepath.Join(dir, "known_hosts")
	os.WriteFile(knownHosts, []byte("git.acme.example "+strings.Join(strings.Fields(k.Public)[:2], " ")+"\n"), 0o644)
	badHosts := filepath.Join(dir, "bad_known_hosts")
	os.WriteFile(badHosts, []byte("git.acme.example ssh-ed25519 not-base64!\n"), 0o644)
	notPEM := filepath.Join(dir, "ca.pem")
	os.WriteFile(notPEM, []byte("not a certificate\n"), 0o644)

	c := &command{stdout: io.Discard, stderr: io.Discard}
	fs, env := c.flags("serve", "serve")
	t.Chdir(dir)
	if _, err := c.parse(fs, env, []string{"--ssh-known-hosts", "known_hosts"}); err != nil {
		t.Fatal(err)
	}
	if c.settings.SSHKnownHosts != knownHosts {
		t.Errorf("--ssh-known-hosts = %q, want %q", c.settings.SSHKnownHosts, knownHosts)
	}
	for _, bad := range [][]string{
		{"--ssh-known-hosts", filepath.Join(dir, "missing")}, {"--ssh-known-hosts", badHosts},
		{"--repository-ca-file", notPEM}, {"--repository-ca-file", filepath.Join(dir, "missing.pem")},
	} {
		c := &command{stdout: io.Discard, stderr: io.Discard}
		fs, env := c.flags("serve", "serve")
		if _, err := c.parse(fs, env, bad); err == nil || !strings.Contains(err.Error(), bad[0]+": ") {
			t.Errorf("%v: %v, want an error naming %s", bad, err, bad[0])
		}
	}
}
