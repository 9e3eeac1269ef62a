package certs

import (
	"context"
	"strings"

	"github.com/caddyserver/certmagic"

	"docsd/internal/domains"
)

// newWildcard sets up the ordering of the certificate for *.Wildcard
// (subdomain mode's <project>.<docs-domain>) when the Config has a DNS
// provider: CAs issue wildcard certificates only through DNS-01, and a
// certmagic issuer with a DNS-01 solver solves nothing else, so the
// wildcard has an issuer and a certmagic configuration of its own,
// beside the one that orders the hosts' and custom domains' certificates
// with HTTP-01 and TLS-ALPN-01. Both share the cache (a handshake for a
// project's subdomain finds the wildcard certificate) and the storage.
func (m *Manager) newWildcard() {
	dd := domains.HostName(m.c.Wildcard)
	if m.c.DNSProvider == nil || dd == "" {
		return
	}
	m.wildcard = "*." + dd
	m.wildMagic = certmagic.New(m.cache, certmagic.Config{
		Storage: m.magic.Storage,
		OnEvent: m.onEvent,
		Logger:  m.magic.Logger,
	})
	iss := certmagic.NewACMEIssuer(m.wildMagic, certmagic.ACMEIssuer{
		CA: m.issuer.CA, Email: m.issuer.Email, Agreed: true, TrustedRoots: m.issuer.TrustedRoots, Logger: m.issuer.Logger,
		DNS01Solver: &certmagic.DNS01Solver{DNSManager: certmagic.DNSManager{
			DNSProvider: m.c.DNSProvider, Resolvers: m.c.DNSResolvers, Logger: m.issuer.Logger,
		}},
	})
	m.wildMagic.Issuers = []certmagic.Issuer{iss}
}

// configFor is the certmagic configuration that renews cert: the
// wildcard's for the wildcard certificate, else the main one.
func (m *Manager) configFor(cert certmagic.Certificate) *certmagic.Config {
	if m.wildMagic != nil {
		for _, n := range cert.Names {
			if strings.EqualFold(n, m.wildcard) {
				return m.wildMagic
			}
		}
	}
	return m.magic
}

// startWildcard orders (or loads from the shared storage) the wildcard
// certificate in the background and keeps it renewed.
func (m *Manager) startWildcard(ctx context.Context) error {
	if m.wildMagic == nil {
		return nil
	}
	return m.wildMagic.ManageAsync(ctx, []string{m.wildcard})
}

// Wildcard is the wildcard name docsd orders a certificate for with
// DNS-01 ("*.docs.example.com"); "" when it orders none.
func (m *Manager) Wildcard() string { return m.wildcard }
