package domains_test

import (
	"strings"
	"testing"
	"time"

	"docsd/internal/certs/acmetest"
	"docsd/internal/domains"
	"docsd/internal/storetest"
	"docsd/store"
)

// TestCheckerValidatesWithDNS: against a real DNS server, a domain whose
// CNAME points at a name under the docs domain, or whose A record is a
// target address, is validated; one that points elsewhere gets a message
// and a later check, each later than the one before; after the window
// the checks stop.
func TestCheckerValidatesWithDNS(t *testing.T) {
	dns := acmetest.StartDNS(t)
	s := storetest.Open(t, store.SQLite)
	clock := storetest.SetClock(s, time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	u, _ := storetest.MustUser(t, s, "alice")
	p := storetest.MustImport(t, s, u, "demo", "https://github.com/example/demo").Project
	c := &domains.Checker{Store: s, Resolver: domains.NewResolver(dns.Addr), DocsDomain: "docs.test", Targets: []string{"198.51.100.7"}}

	dns.SetCNAME(t, "cname.acme.test", "demo.docs.test")
	dns.AddA(t, "demo.docs.test", "198.51.100.7")
	dns.AddA(t, "a.acme.test", "198.51.100.7")
	dns.AddA(t, "elsewhere.acme.test", "203.0.113.9")
	for _, name := range []string{"cname.acme.test", "a.acme.test", "elsewhere.acme.test"} {
		if _, err := s.CreateDomain(t.Context(), p.ID, store.NewDomain{Domain: name, HTTPS: true}); err != nil {
			t.Fatal(err)
		}
	}
	c.CheckDue(t.Context())
	get := func(name string) *store.Domain {
		t.Helper()
		d, err := s.FindDomainByName(t.Context(), name)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	for _, name := range []string{"cname.acme.test", "a.acme.test"} {
		if d := get(name); !d.Served() || d.ValidationNext != nil {
			t.Errorf("%s: validated %v, next %v, error %q; want validated", name, d.Validated, d.ValidationNext, d.ValidationError)
		}
	}
	d := get("elsewhere.acme.test")
	if d.Served() || d.ValidationNext == nil || !strings.Contains(d.ValidationError, "not docsd's") {
		t.Fatalf("elsewhere: validated %v, next %v, error %q", d.Validated, d.ValidationNext, d.ValidationError)
	}
	var gaps []time.Duration
	last := clock.Now()
	for range 4 {
		clock.Advance(d.ValidationNext.Sub(clock.Now()))
		c.CheckDue(t.Context())
		d = get("elsewhere.acme.test")
		if d.ValidationNext == nil {
			t.Fatalf("checks stopped after %d attempts", d.ValidationAttempts)
		}
		gaps = append(gaps, d.ValidationNext.Sub(clock.Now()))
		last = clock.Now()
	}
	_ = last
	for i := 1; i < len(gaps); i++ {
		if gaps[i] != 2*gaps[i-1] {
			t.Errorf("back-off %v, want each gap twice the one before", gaps)
		}
	}
	// The window ends: the checks stop with the message saying so.
	clock.Advance(domains.Window)
	c.CheckDue(t.Context())
	if d = get("elsewhere.acme.test"); d.ValidationNext != nil || !strings.Contains(d.ValidationError, "window is over") {
		t.Errorf("after the window: next %v, error %q", d.ValidationNext, d.ValidationError)
	}
	// Pointing it at docsd and restarting validates it.
	dns.AddA(t, "elsewhere.acme.test", "198.51.100.7")
	if _, err := s.UpdateDomain(t.Context(), p.ID, d.ID, store.DomainUpdate{RestartValidation: true}); err != nil {
		t.Fatal(err)
	}
	c.CheckDue(t.Context())
	if d = get("elsewhere.acme.test"); !d.Served() {
		t.Errorf("after restart: validated %v, error %q", d.Validated, d.ValidationError)
	}
}
