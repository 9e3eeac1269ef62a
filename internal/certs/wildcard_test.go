package certs

import (
	"testing"

	"github.com/caddyserver/certmagic"

	"docsd/internal/artifacts"
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
