package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServeRefusesAnIncompleteDNSProvider: each DNS-01 setting without
// the settings it works with stops `docsd serve` before it listens, with
// a message naming the setting.
func TestServeRefusesAnIncompleteDNSProvider(t *testing.T) {
	hook := filepath.Join(t.TempDir(), "hook")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	notExecutable := filepath.Join(t.TempDir(), "hook.txt")
	if err := os.WriteFile(notExecutable, []byte("present\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	acme := []string{"--tls-acme-email", "ops@acme.test"}
	subdomains := []string{"--docs-domain", "docs.test", "--public-url", "https://dash.test"}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"hook without ACME", append([]string{"--tls-dns-hook", hook}, subdomains...), "--tls-dns-hook needs --tls-acme-email"},
		{"hook without subdomain mode", append([]string{"--tls-dns-hook", hook}, acme...), "--tls-dns-hook orders the certificate for *.<docs-domain>: it needs --docs-domain"},
		{"hook that is not there", append(append([]string{"--tls-dns-hook", hook + "-missing"}, acme...), subdomains...), "--tls-dns-hook: "},
		{"hook that is not executable", append(append([]string{"--tls-dns-hook", notExecutable}, acme...), subdomains...), "--tls-dns-hook: "},
		{"resolvers without a hook", append(append([]string{"--tls-dns-resolvers", "127.0.0.1:53"}, acme...), subdomains...), "--tls-dns-resolvers needs --tls-dns-hook"},
		{"resolver that is no address", append(append([]string{"--tls-dns-hook", hook, "--tls-dns-resolvers", "127.0.0.1:53,dns://1.1.1.1"}, acme...), subdomains...),
			`--tls-dns-resolvers: "dns://1.1.1.1" is neither host nor host:port`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"serve", "--data-dir", t.TempDir(), "--addr", freeAddr(t), "--tls-addr", freeAddr(t)}, tc.args...)
			// A serve that does not refuse runs until the deadline.
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			var errOut strings.Builder
			code := run(ctx, args, io.Discard, &errOut)
			if code == 0 || !strings.Contains(errOut.String(), tc.want) {
				t.Errorf("docsd %v: exit %d, %q; want a refusal with %q", tc.args, code, errOut.String(), tc.want)
			}
		})
	}
}

// TestServeWarnsOfSubdomainsWithoutHTTPS: subdomain mode with ACME but
// no DNS-01 hook has no certificate for the projects' subdomains, and
// says so at start; with a hook it does not.
func TestServeWarnsOfSubdomainsWithoutHTTPS(t *testing.T) {
	hook := filepath.Join(t.TempDir(), "hook")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	deadCA := "https://" + freeAddr(t) + "/dir" // nothing listens there
	for _, tc := range []struct {
		name     string
		extra    []string
		wantWarn bool
	}{
		{"no hook", nil, true},
		{"hook", []string{"--tls-dns-hook", hook}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dataDir := t.TempDir()
			migrated(t, dataDir)
			srv := serveAt(t, dataDir, freeAddr(t), "", append([]string{"--build-workers", "0", "--tls-addr", freeAddr(t),
				"--tls-acme-email", "ops@acme.test", "--tls-acme-directory", deadCA,
				"--docs-domain", "docs.test", "--public-url", "https://dash.test"}, tc.extra...)...)
			const warning = "subdomain mode without a certificate for *.docs.test"
			if got := strings.Contains(srv.stderr.String(), warning); got != tc.wantWarn {
				t.Errorf("warning %q logged: %v, want %v\n%s", warning, got, tc.wantWarn, srv.stderr.String())
			}
		})
	}
}
