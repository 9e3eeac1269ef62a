package main

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"docsd/internal/storetest"
	"docsd/store"
)

func TestAdminCommandsRefuseMissingDatabase(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "typo")
	code, out, errOut := docsd(t, "user", "create", "alice", "--data-dir", dir)
	if code != 1 || out != "" || !strings.Contains(errOut, "no database at "+filepath.Join(dir, "docsd.db")) {
		t.Errorf("user create on a missing data dir: code %d, stdout %q, stderr %q", code, out, errOut)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("%s was created", dir)
	}
}

func TestDataDirIsOwnerOnly(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	migrated(t, dir)
	for path, want := range map[string]os.FileMode{dir: 0o700, filepath.Join(dir, "docsd.db"): 0o600} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s: mode %o, want %o", path, got, want)
		}
	}
}

// TestSecretsRotateCommand: values written without a key are sealed by
// `docsd secrets rotate --secret-key`, read back through a server with the
// key, and refused (clearly) with a wrong key.
func TestSecretsRotateCommand(t *testing.T) {
	dir := t.TempDir()
	migrated(t, dir)
	ctx := context.Background()
	db := filepath.Join(dir, "docsd.db")
	s, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := storetest.MustUser(t, s, "alice")
	p := storetest.MustImport(t, s, u, "Demo", "https://github.com/a/b").Project
	if _, err := s.CreateEnvironmentVariable(ctx, p.ID, "API_KEY", "s3cr3t-value", false); err != nil {
		t.Fatal(err)
	}
	s.Close()

	keyFile := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(keyFile, []byte("0123456789abcdef0123456789abcdef\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := docsd(t, "secrets", "rotate", "--data-dir", dir, "--secret-key", keyFile)
	if code != 0 || !strings.Contains(out, "2 values sealed with key") { // the variable and the import's webhook secret
		t.Fatalf("secrets rotate: code %d, stdout %q, stderr %q", code, out, errOut)
	}
	raw, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "s3cr3t-value") {
		t.Error("the plaintext value is still in the database file")
	}
	code, _, errOut = docsd(t, "secrets", "rotate", "--data-dir", dir, "--secret-key", "another key, sixteen+ chars")
	if code != 1 || !strings.Contains(errOut, "not configured") {
		t.Errorf("rotate with a wrong key: code %d, stderr %q; want 1 and a clear error", code, errOut)
	}
	code, out, errOut = docsd(t, "secrets", "rotate", "--data-dir", dir, "--secret-key", "the second key, long enough", "--old-secret-key", keyFile)
	if code != 0 || !strings.Contains(out, "2 values sealed") {
		t.Errorf("rotate to a new key: code %d, stdout %q, stderr %q", code, out, errOut)
	}
	s, err = store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sl, _ := store.NewSealer("the second key, long enough")
	s.UseSealer(sl)
	vars, _, err := s.FindEnvironmentVariables(ctx, p.ID, store.Page{})
	if err != nil || len(vars) != 1 || vars[0].Value != "s3cr3t-value" {
		t.Errorf("after rotation: %v %v", vars, err)
	}
	if code, _, errOut := docsd(t, "secrets", "rotate", "--data-dir", dir, "--secret-key", "short"); code != 2 || !strings.Contains(errOut, "at least 16") {
		t.Errorf("short key: code %d, stderr %q", code, errOut)
	}
}

func TestClientAddr(t *testing.T) {
	trusted, err := parseProxies("10.0.0.0/8, 192.168.1.1")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ remote, xff, want string }{
		{"203.0.113.5:1234", "", "203.0.113.5"},
		{"203.0.113.5:1234", "198.51.100.1", "203.0.113.5"}, // untrusted peer: header ignored
		{"10.1.2.3:80", "198.51.100.1", "198.51.100.1"},
		{"10.1.2.3:80", "1.1.1.1, 198.51.100.1, 192.168.1.1", "198.51.100.1"},
		{"192.168.1.1:80", "10.9.9.9", "10.9.9.9"}, // every hop trusted: the left-most
		{"10.1.2.3:80", "junk, 198.51.100.7", "198.51.100.7"},
	} {
		r := &http.Request{RemoteAddr: tc.remote, Header: http.Header{}}
		if tc.xff != "" {
			r.Header.Set("X-Forwarded-For", tc.xff)
		}
		if got := clientAddr(r, trusted); got != tc.want {
			t.Errorf("clientAddr(%s, XFF %q) = %s, want %s", tc.remote, tc.xff, got, tc.want)
		}
	}
	if _, err := parseProxies("10.0.0.0/8,nonsense"); err == nil {
		t.Error("a bad --trusted-proxies entry was accepted")
	}
}

func TestFailedAuthenticationIsThrottled(t *testing.T) {
	s, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "docsd.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, good := storetest.MustUser(t, s, "alice")
	_, srv := testApp(t, s, "--auth-failure-rate", "3/hour", "--trusted-proxies", "127.0.0.1")
	bad := strings.Repeat("0", 40)
	send := func(path, token, xff string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		req.Header.Set("Authorization", "Token "+token)
		if xff != "" {
			req.Header.Set("X-Forwarded-For", xff)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	for i := 0; i < 3; i++ {
		if resp := send("/api/v3/projects/", bad, "198.51.100.1"); resp.StatusCode != 401 {
			t.Fatalf("bad token #%d: %d, want 401", i+1, resp.StatusCode)
		}
	}
	for _, path := range []string{"/api/v3/projects/", "/graphql?query=%7Bviewer%7Busername%7D%7D"} {
		resp := send(path, good, "198.51.100.1")
		if resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" || resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s after 3 failures: %d Retry-After=%q, want a JSON 429 with Retry-After", path, resp.StatusCode, resp.Header.Get("Retry-After"))
		}
	}
	if resp := send("/api/v3/projects/", good, "198.51.100.2"); resp.StatusCode != 200 {
		t.Errorf("another client behind the proxy: %d, want 200", resp.StatusCode)
	}
	if resp := send("/api/v2/project/", bad, "198.51.100.1"); resp.StatusCode != 200 {
		t.Errorf("v2 (which ignores credentials) from the throttled address: %d, want 200", resp.StatusCode)
	}
}

func TestBackupCommand(t *testing.T) {
	dir := t.TempDir()
	migrated(t, dir)
	docsd(t, "user", "create", "alice", "--data-dir", dir)
	dest := filepath.Join(t.TempDir(), "copy.db")
	code, out, errOut := docsd(t, "backup", dest, "--data-dir", dir)
	if code != 0 || !strings.Contains(out, "database copied to "+dest) {
		t.Fatalf("backup: code %d, stdout %q, stderr %q", code, out, errOut)
	}
	if fi, err := os.Stat(dest); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("backup file: %v, mode %v; want 0600", err, fi.Mode())
	}
	// The copy is a working database.
	code, out, errOut = docsd(t, "user", "list", "--database-url", dest)
	if code != 0 || !strings.Contains(out, "alice") {
		t.Errorf("user list on the copy: code %d, stdout %q, stderr %q", code, out, errOut)
	}
	if code, _, errOut := docsd(t, "backup", dest, "--data-dir", dir); code != 1 || !strings.Contains(errOut, "exists") {
		t.Errorf("backup over an existing file: code %d, stderr %q", code, errOut)
	}
}
