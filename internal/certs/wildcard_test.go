package certs

import (
	"crypto/x509"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/certmagic"

	"docsd/internal/artifacts"
	"docsd/internal/certs/acmetest"
	"docsd/internal/storetest"
	"docsd/store"
)

// TestWildcardHasItsOwnIssuer: with a DNS provider, the wildcard is
// ordered and renewed by a certmagic configuration whose issuer solves
// DNS-01, every other certificate by the main one, which keeps HTTP-01
// and TLS-ALPN-01; without one there is no wildcard.
func TestWildcardHasItsOwnIssuer(t *testing.T) {
	blobs, err := artifacts.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c := Config{Email: "ops@acme.test", Blobs: blobs, Locks: storetest.Open(t, store.SQLite), Wildcard: "Docs.Test"}
	none, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	defer none.Stop()
	if none.Wildcard() != "" || none.configFor(certmagic.Certificate{Names: []string{"*.docs.test"}}) != none.magic {
		t.Errorf("without a DNS provider: wildcard %q, want none", none.Wildcard())
	}

	c.DNSProvider = DNSHook{Command: "/bin/true"}
	m, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Stop()
	if got := m.Wildcard(); got != "*.docs.test" {
		t.Errorf("Wildcard() = %q, want *.docs.test", got)
	}
	if m.issuer.DNS01Solver != nil {
		t.Error("the main issuer solves DNS-01: it would solve nothing else")
	}
	if iss, ok := m.wildMagic.Issuers[0].(*certmagic.ACMEIssuer); !ok || iss.DNS01Solver == nil {
		t.Errorf("the wildcard's issuer %T does not solve DNS-01", m.wildMagic.Issuers[0])
	}
	for _, tc := range []struct {
		names []string
		want  *certmagic.Config
	}{
		{[]string{"*.docs.test"}, m.wildMagic},
		{[]string{"docs.acme.test"}, m.magic},
		{[]string{"docs.test"}, m.magic},
		{[]string{"*.other.test"}, m.magic},
	} {
		if got := m.configFor(certmagic.Certificate{Names: tc.names}); got != tc.want {
			t.Errorf("configFor(%v) is the wildcard's: %v, want %v", tc.names, got == m.wildMagic, tc.want == m.wildMagic)
		}
	}
}

// TestWildcardRenewsWithPebble: a real ACME CA (pebble) issues the
// wildcard against the TXT records the hook publishes in the test's DNS,
// at Start and again at a forced renewal, which this node then serves.
func TestWildcardRenewsWithPebble(t *testing.T) {
	dns := acmetest.StartDNS(t)
	pebble := acmetest.StartPebble(t, dns, "80", "443") // DNS-01 only: pebble never connects to these
	pem, err := os.ReadFile(pebble.DirectoryRoot)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(pem)
	blobs, err := artifacts.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	calls := filepath.Join(t.TempDir(), "calls")
	m, err := New(Config{Email: "ops@acme.test", Directory: pebble.Directory, DirectoryRoots: roots, Blobs: blobs,
		Locks: storetest.Open(t, store.SQLite), Wildcard: "docs.test", DNSProvider: DNSHook{Command: dns.HookScript(t, calls)},
		DNSResolvers: []string{dns.Zone(t, "docs.test")}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Stop()
	if err := m.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	held := func() *x509.Certificate {
		for _, c := range m.cache.AllMatchingCertificates("project.docs.test") {
			if c.Leaf != nil {
				return c.Leaf
			}
		}
		return nil
	}
	var first *x509.Certificate
	for deadline := time.Now().Add(2 * time.Minute); first == nil; time.Sleep(100 * time.Millisecond) {
		if first = held(); first == nil && time.Now().After(deadline) {
			b, _ := os.ReadFile(calls)
			t.Fatalf("no wildcard certificate; problems %v; the hook's calls:\n%s", m.problemList(), b)
		}
	}
	if len(first.DNSNames) != 1 || first.DNSNames[0] != "*.docs.test" {
		t.Errorf("certificate names %v, want [*.docs.test]", first.DNSNames)
	}

	if err := m.Renew(t.Context(), "*.docs.test"); err != nil {
		t.Fatalf("Renew: %v", err)
	}
	renewed := m.cache.AllMatchingCertificates("project.docs.test")
	if len(renewed) != 1 || renewed[0].Leaf.SerialNumber.Cmp(first.SerialNumber) == 0 {
		t.Errorf("after the renewal this node holds %d certificates for project.docs.test, want 1 new one", len(renewed))
	}
	b, _ := os.ReadFile(calls)
	if n := strings.Count(string(b), "present _acme-challenge.docs.test. "); n != 2 {
		t.Errorf("the hook published %d records, want 2 (the order and the renewal):\n%s", n, b)
	}
}

// problemList is the problems orders recorded, for a failure's message.
func (m *Manager) problemList() map[string]string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]string{}
	for n, why := range m.problems {
		out[n] = why
	}
	return out
}
