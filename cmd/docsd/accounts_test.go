package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"docsd/internal/accounts"
	"docsd/internal/errs"
	"docsd/store"
)

// docsdWithInput runs the program with stdin.
func docsdWithInput(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := runWithInput(context.Background(), args, strings.NewReader(stdin), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// TestUserPasswordCommands: `user create --password-stdin` and `user
// password` store a bcrypt hash that signs in; a short or missing password
// and an unknown user are refused; the password never reaches the output.
func TestUserPasswordCommands(t *testing.T) {
	dir := t.TempDir()
	data := "--data-dir=" + dir
	migrated(t, dir)
	code, out, errOut := docsdWithInput(t, "first-secret\n", "user", "create", "alice", "--password-stdin", data)
	if code != 0 || !tokenLine.MatchString(out) || strings.Contains(out+errOut, "first-secret") {
		t.Fatalf("user create --password-stdin: code %d, stdout %q, stderr %q", code, out, errOut)
	}
	for _, tc := range []struct {
		name, stdin, user string
		code              int
		stderr            string
	}{
		{"new password", "second-secret\r\n", "alice", 0, ""},
		{"too short", "short\n", "alice", 1, "too short"},
		{"no password", "", "alice", 2, "no password on stdin"},
		{"unknown user", "whatever-secret\n", "bob", 1, `user "bob" does not exist`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := docsdWithInput(t, tc.stdin, "user", "password", tc.user, data)
			if code != tc.code || out != "" || !strings.Contains(errOut, tc.stderr) {
				t.Errorf("user password: code %d, stdout %q, stderr %q; want %d and %q", code, out, errOut, tc.code, tc.stderr)
			}
		})
	}
	s, err := store.Open(context.Background(), filepath.Join(dir, "docsd.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a := accounts.New(s)
	if _, err := a.SignIn(t.Context(), "alice", "first-secret", "127.0.0.1"); !errs.Is(err, errs.Unauthenticated) {
		t.Errorf("old password: %v, want Unauthenticated", err)
	}
	if _, err := a.SignIn(t.Context(), "alice", "second-secret", "127.0.0.1"); err != nil {
		t.Errorf("new password: %v", err)
	}
}
