package main

import (
	"context"
	"fmt"
	"net"
	"strings"

	"docsd/graph"
	"docsd/internal/domains"
	"docsd/internal/notify"
)

// domainSettings are the settings of projects' custom domains
// (docs/user-guide/custom-domains.md).
type domainSettings struct {
	DomainsPerProject int
	DomainTarget      string // comma-separated host names and addresses
	DomainDNSServer   string // host:port; "": the system's resolver

	domainTargets []string // parsed DomainTarget
}

// register declares the settings with register's helpers.
func (d *domainSettings) register(str func(p *string, name, def, usage string), integer func(p *int, name string, def int, usage string)) {
	integer(&d.DomainsPerProject, "domains-per-project", 2, "most custom domains a project may have (Read the Docs' default is 2); 0: no limit")
	str(&d.DomainTarget, "domain-target", "", "comma-separated host names a custom domain's CNAME may point at, and addresses its A or AAAA records may hold, "+
		"for it to be served (besides the docs domain and names under it); the dashboard shows them as the DNS records to create")
	str(&d.DomainDNSServer, "domain-dns-server", "", "host:port of the DNS server custom domains are checked with; empty: the system's resolver")
}

// resolveDomains checks the domain settings.
func (s *Settings) resolveDomains() error {
	if s.DomainsPerProject < 0 {
		return fmt.Errorf("--domains-per-project must not be negative (0: no limit)")
	}
	s.domainTargets = nil
	for _, t := range strings.Split(s.DomainTarget, ",") {
		if t = strings.TrimSpace(t); t == "" {
			continue
		}
		if net.ParseIP(t) == nil {
			if _, msg := domains.Clean(t); msg != "" || strings.Contains(t, "/") {
				return fmt.Errorf("--domain-target: %q is neither a host name nor an IP address", t)
			}
		}
		s.domainTargets = append(s.domainTargets, domains.HostName(t))
	}
	if a := s.DomainDNSServer; a != "" {
		if _, _, err := net.SplitHostPort(a); err != nil {
			return fmt.Errorf("--domain-dns-server %q must be host:port: %v", a, err)
		}
	}
	return nil
}

// graphDomains are the graph's custom domain settings.
func (s *Settings) graphDomains() graph.DomainSettings {
	return graph.DomainSettings{Limit: s.DomainsPerProject, Targets: s.domainTargets, Window: domains.Window}
}

// newDomainRegistry makes the node's registry of custom domains, emptied
// after this node's writes to domains or projects and when another node
// signals a change to what docs hosts serve.
func (a *app) newDomainRegistry() (*domains.Registry, error) {
	reg := domains.NewRegistry(a.store, a.logger)
	a.store.OnCommit(func(_ context.Context, tables []string) {
		if domains.Changed(tables) {
			reg.Forget()
		}
	})
	if err := a.notifier.Subscribe(notify.ServedChanged, func(string) { reg.Forget() }); err != nil {
		return nil, err
	}
	return reg, nil
}

// newDomainChecker makes the DNS checks of custom domains that serve runs.
func (a *app) newDomainChecker() *domains.Checker {
	return &domains.Checker{Store: a.store, Resolver: domains.NewResolver(a.settings.DomainDNSServer),
		DocsDomain: a.settings.DocsDomain, Targets: a.settings.domainTargets, Logger: a.logger}
}
