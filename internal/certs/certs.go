// Package certs serves docsd's HTTPS: certificates ordered from an ACME
// CA (Let's Encrypt by default) with certmagic, on demand for the custom
// domains whose DNS was validated and for the public URL's and the docs
// origin's hosts, never for any other name a client asks for, and, with
// a DNS-01 provider, for the wildcard of subdomain mode's docs domain; or
// a certificate the operator gives. Certificates, keys and the ACME account
// live in the artifacts backend, so that every node serves the same ones,
// and a lease in the database keeps two nodes from ordering the same
// certificate (see docs/operations/https.md).
package certs

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/caddyserver/certmagic"

	"docsd/internal/artifacts"
	"docsd/internal/domains"
	"docsd/store"
)

// LetsEncrypt is Let's Encrypt's production ACME directory, the default.
const LetsEncrypt = "https://acme-v02.api.letsencrypt.org/directory"

// handshakeRest is how long the rest of a TLS handshake may take once
// its certificate is found (after an order, possibly long).
const handshakeRest = 10 * time.Second

// ChallengePath is where ACME CAs fetch HTTP-01 answers; the HTTP
// listener answers it even when it sends everything else to HTTPS.
const ChallengePath = "/.well-known/acme-challenge/"

// StatusRecorder records the state of a custom domain's certificate
// (*store.Store).
type StatusRecorder interface {
	RecordDomainCertificate(ctx context.Context, name, status, reason string) error
}

// Config configures a Manager.
type Config struct {
	// Email turns ACME on: the account's contact address.
	Email string
	// Directory is the ACME directory URL; LetsEncrypt when empty.
	Directory string
	// DirectoryRoots, when set, are the only roots trusted for the
	// directory's own HTTPS (a private CA); nil: the system's.
	DirectoryRoots *x509.CertPool
	// Given is the operator's certificate (--tls-cert, --tls-key); it is
	// served for the names it covers, and for every name when ACME is off.
	Given *tls.Certificate
	// Blobs and Locks hold the certificates and their leases, shared by
	// every node.
	Blobs artifacts.Blobs
	Locks Locker
	// Statuses records custom domains' certificate states.
	Statuses StatusRecorder
	// Domains are the custom domains: a served one may get a certificate.
	Domains *domains.Registry
	// Wildcard is subdomain mode's docs domain: with DNSProvider, docsd
	// orders and renews the certificate for *.Wildcard with DNS-01.
	Wildcard string
	// DNSProvider publishes DNS-01's TXT records (a DNSHook); nil: no
	// wildcard certificate.
	DNSProvider certmagic.DNSProvider
	// DNSResolvers are the DNS servers (host:port) asked for the zone of
	// the challenge's name and whether its TXT record is published yet;
	// empty: the system's resolvers and the zone's authoritative servers.
	DNSResolvers []string
	// Hosts always get certificates: the public URL's and the docs
	// origin's host names (IP addresses and localhost are left out).
	Hosts  []string
	Logger *slog.Logger
}

// Manager answers TLS handshakes and HTTP-01 challenges.
type Manager struct {
	c      Config
	cache  *certmagic.Cache
	magic  *certmagic.Config
	issuer *certmagic.ACMEIssuer
	hosts  []string

	// wildMagic orders the certificate for wildcard with DNS-01; nil
	// without a DNS provider (wildcard.go).
	wildMagic *certmagic.Config
	wildcard  string

	// ctx ends with Stop: orders started in the background end with it.
	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex           // guards problems and asked
	problems map[string]string    // name → why its last order failed
	asked    map[string]time.Time // name → when plain HTTP last asked for its certificate
}

// New returns a Manager; Start begins ordering the hosts' certificates.
func New(c Config) (*Manager, error) {
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	m := &Manager{c: c, problems: map[string]string{}, asked: map[string]time.Time{}}
	m.ctx, m.cancel = context.WithCancel(context.Background())
	for _, h := range c.Hosts {
		h = domains.HostName(h)
		if h != "" && h != "localhost" && net.ParseIP(h) == nil && !slices.Contains(m.hosts, h) {
			m.hosts = append(m.hosts, h)
		}
	}
	if c.Email == "" {
		if c.Given == nil {
			return nil, errors.New("certs: neither an ACME email nor a certificate")
		}
		return m, nil
	}
	if c.Blobs == nil || c.Locks == nil {
		return nil, errors.New("certs: ACME needs shared storage and locks")
	}
	dir := c.Directory
	if dir == "" {
		dir = LetsEncrypt
	}
	logger := zapLogger(c.Logger)
	m.cache = certmagic.NewCache(certmagic.CacheOptions{
		GetConfigForCert: func(c certmagic.Certificate) (*certmagic.Config, error) { return m.configFor(c), nil },
		Logger:           logger,
	})
	m.magic = certmagic.New(m.cache, certmagic.Config{
		Storage:  newStorage(c.Blobs, c.Locks),
		OnDemand: &certmagic.OnDemandConfig{DecisionFunc: m.decide},
		OnEvent:  m.onEvent,
		Logger:   logger,
	})
	m.issuer = certmagic.NewACMEIssuer(m.magic, certmagic.ACMEIssuer{
		CA: dir, Email: c.Email, Agreed: true, TrustedRoots: c.DirectoryRoots, Logger: logger,
	})
	m.magic.Issuers = []certmagic.Issuer{m.issuer}
	m.newWildcard()
	return m, nil
}

// ACME reports whether certificates are ordered from a CA.
func (m *Manager) ACME() bool { return m.magic != nil }

// Start orders (or loads from the shared storage) the hosts' and the
// wildcard's certificates in the background and keeps them renewed; custom domains'
// are ordered at their first handshake.
func (m *Manager) Start(ctx context.Context) error {
	if !m.ACME() {
		return nil
	}
	if len(m.hosts) > 0 {
		if err := m.magic.ManageAsync(ctx, m.hosts); err != nil {
			return err
		}
	}
	return m.startWildcard(ctx)
}

// Stop ends the renewals.
func (m *Manager) Stop() {
	m.cancel()
	if m.cache != nil {
		m.cache.Stop()
	}
}

// Allowed reports whether docsd may hold a certificate for name: one of
// the hosts, or a custom domain whose DNS was validated.
func (m *Manager) Allowed(ctx context.Context, name string) bool {
	name = domains.HostName(name)
	if slices.Contains(m.hosts, name) {
		return true
	}
	_, ok := m.c.Domains.Served(ctx, name)
	return ok
}

// decide is certmagic's on-demand decision: a handshake for any other
// name gets no certificate, so that nobody can make docsd order
// certificates for names of their choosing.
func (m *Manager) decide(ctx context.Context, name string) error {
	if m.Allowed(ctx, name) {
		return nil
	}
	return fmt.Errorf("%s is not a validated custom domain of a project nor one of docsd's hosts", name)
}

// onEvent keeps what the orders did: the problems /readyz reports and
// the custom domains' certificate states.
func (m *Manager) onEvent(ctx context.Context, event string, data map[string]any) error {
	name, _ := data["identifier"].(string)
	var status, reason string
	switch event {
	case "cert_obtaining":
		status = store.SSLPending
	case "cert_obtained":
		status = store.SSLValid
		m.mu.Lock()
		delete(m.problems, name)
		m.mu.Unlock()
	case "cert_failed":
		status, reason = store.SSLInvalid, fmt.Sprint(data["error"])
		m.mu.Lock()
		m.problems[name] = reason
		m.mu.Unlock()
		m.c.Logger.WarnContext(ctx, "ordering a certificate failed", "name", name, "err", reason)
	default:
		return nil
	}
	if name != "" && m.c.Statuses != nil {
		if _, ok := m.c.Domains.Lookup(ctx, name); ok {
			if err := m.c.Statuses.RecordDomainCertificate(context.WithoutCancel(ctx), name, status, reason); err != nil {
				m.c.Logger.ErrorContext(ctx, "recording a certificate's state", "name", name, "err", err)
			}
		}
	}
	return nil
}

// TLSConfig is the TLS listener's configuration: the given certificate
// for the names it covers, else an ACME certificate (TLS-ALPN-01
// challenges included).
func (m *Manager) TLSConfig() *tls.Config {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, NextProtos: []string{"h2", "http/1.1"}}
	var acme *tls.Config
	if m.ACME() {
		acme = m.magic.TLSConfig()
		cfg.NextProtos = append(cfg.NextProtos, acme.NextProtos...)
	}
	cfg.GetCertificate = func(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
		challenge := slices.Contains(hello.SupportedProtos, "acme-tls/1")
		if g := m.c.Given; g != nil && !challenge && (acme == nil || covers(g, hello.ServerName)) {
			return g, nil
		}
		if acme == nil {
			return nil, errors.New("no certificate")
		}
		cert, err := acme.GetCertificate(hello)
		if err == nil {
			// The first handshake for a name waits for its order, which
			// may outlast the handshake's deadline (net/http's header
			// timeout); the rest of the handshake gets that time again.
			// net/http clears the deadline once the handshake is done.
			hello.Conn.SetDeadline(time.Now().Add(handshakeRest))
		}
		return cert, err
	}
	return cfg
}

// covers reports whether the certificate is valid for name.
func covers(c *tls.Certificate, name string) bool {
	leaf := c.Leaf
	if leaf == nil {
		var err error
		if leaf, err = x509.ParseCertificate(c.Certificate[0]); err != nil {
			return false
		}
	}
	return name != "" && leaf.VerifyHostname(name) == nil
}

// HTTPChallenge answers ACME HTTP-01 challenges (on any node: the
// answers are in the shared storage) and hands other requests to next.
func (m *Manager) HTTPChallenge(next http.Handler) http.Handler {
	if !m.ACME() {
		return next
	}
	return m.issuer.HTTPChallengeHandler(next)
}

// Renew renews name's certificate now, even when it is not due (an
// operator's or a test's request); it orders one when there is none.
// The wildcard's name ("*.docs.example.com") renews it with DNS-01.
func (m *Manager) Renew(ctx context.Context, name string) error {
	if !m.ACME() {
		return errors.New("certificates are not ordered by docsd (no --tls-acme-email)")
	}
	name = domains.HostName(name)
	cfg := m.magic
	if m.wildMagic != nil && name == m.wildcard {
		cfg = m.wildMagic // DNS-01
	}
	old := m.cache.AllMatchingCertificates(name)
	if err := cfg.RenewCertSync(ctx, name, true); err != nil {
		return err
	}
	// RenewCertSync stores the new certificate but leaves this node's
	// cache as it was: swap them (only name's own: a wildcard that also
	// matches name stays).
	if _, err := cfg.CacheManagedCertificate(ctx, name); err != nil {
		return err
	}
	var hashes []string
	for _, c := range old {
		if slices.Contains(c.Names, name) {
			hashes = append(hashes, c.Hash())
		}
	}
	m.cache.Remove(hashes)
	return nil
}

// Expiry is when a certificate held for a name ends.
type Expiry struct {
	Name     string
	NotAfter time.Time
}

// Expiries returns, for each name docsd holds a certificate for (the
// given one's names, the hosts, the custom domains), when it expires.
func (m *Manager) Expiries(ctx context.Context) []Expiry {
	seen := map[string]time.Time{}
	if g := m.c.Given; g != nil {
		if leaf, err := x509.ParseCertificate(g.Certificate[0]); err == nil {
			for _, n := range leaf.DNSNames {
				seen[n] = leaf.NotAfter
			}
		}
	}
	if m.ACME() {
		names := append([]string(nil), m.hosts...)
		if m.wildcard != "" {
			names = append(names, m.wildcard)
		}
		for _, d := range m.c.Domains.All(ctx) {
			names = append(names, d.Domain.Domain)
		}
		for _, n := range names {
			for _, c := range m.cache.AllMatchingCertificates(n) {
				if c.Leaf != nil && (seen[n].IsZero() || c.Leaf.NotAfter.After(seen[n])) {
					seen[n] = c.Leaf.NotAfter
				}
			}
		}
	}
	out := make([]Expiry, 0, len(seen))
	for n, t := range seen {
		out = append(out, Expiry{Name: n, NotAfter: t})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// soonDays is how close to its end a certificate is a problem: ACME
// renews a third of the way before, so this is a renewal that kept
// failing, or a given certificate the operator must replace.
const soonDays = 7

// Problems returns what is wrong with the certificates: orders that
// failed (the CA refused or did not answer), certificates that expire
// within a week or have expired. Empty when nothing is.
func (m *Manager) Problems(ctx context.Context) []string {
	var out []string
	m.mu.Lock()
	for n, why := range m.problems {
		out = append(out, n+": "+why)
	}
	m.mu.Unlock()
	now := time.Now()
	for _, e := range m.Expiries(ctx) {
		switch left := e.NotAfter.Sub(now); {
		case left <= 0:
			out = append(out, e.Name+": the certificate expired at "+e.NotAfter.UTC().Format(time.RFC3339))
		case left < soonDays*24*time.Hour:
			out = append(out, e.Name+": the certificate expires at "+e.NotAfter.UTC().Format(time.RFC3339))
		}
	}
	sort.Strings(out)
	return out
}

// Holds reports whether HTTPS has a certificate for name now: the given
// one covers it, or this node holds an ACME certificate for it. For an
// allowed name it does not hold yet, it starts an order in the
// background (at most every askEvery).
func (m *Manager) Holds(ctx context.Context, name string) bool {
	name = domains.HostName(name)
	if m.c.Given != nil && covers(m.c.Given, name) {
		return true
	}
	if !m.ACME() {
		return false
	}
	for _, c := range m.cache.AllMatchingCertificates(name) {
		if c.Leaf != nil && time.Now().Before(c.Leaf.NotAfter) {
			return true
		}
	}
	if m.Allowed(ctx, name) {
		m.mu.Lock()
		due := time.Since(m.asked[name]) > askEvery
		if due {
			m.asked[name] = time.Now()
		}
		m.mu.Unlock()
		if due {
			// ObtainCertAsync retries in the caller's goroutine (and waits
			// for the lease another order holds): never in a request's.
			go func() {
				if err := m.magic.ObtainCertAsync(m.ctx, name); err != nil && m.ctx.Err() == nil {
					m.c.Logger.Warn("ordering a certificate", "name", name, "err", err)
				}
			}()
		}
	}
	return false
}

// askEvery is how often plain HTTP may start an order for a name.
const askEvery = 10 * time.Minute

// RedirectToHTTPS answers plain-HTTP requests for a name HTTPS holds a
// certificate for (Holds) with a redirect to the same URL on HTTPS
// (tlsPort "" or "443" leaves the port out): 301 for GET and HEAD, 308
// otherwise. It hands next the ACME challenges, the probes (/healthz,
// /readyz, /metrics), the custom domains whose HTTPS flag is off, and any
// other name (an address, a name whose certificate could not be had),
// which plain HTTP keeps serving whatever the CA does.
func (m *Manager) RedirectToHTTPS(tlsPort string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if r.TLS != nil || strings.HasPrefix(p, ChallengePath) || p == "/healthz" || p == "/readyz" || p == "/metrics" {
			next.ServeHTTP(w, r)
			return
		}
		host := domains.HostName(r.Host)
		d, isDomain := m.c.Domains.Lookup(r.Context(), host)
		if (isDomain && !d.HTTPS) || !m.Holds(r.Context(), host) {
			next.ServeHTTP(w, r)
			return
		}
		if strings.Contains(host, ":") {
			host = "[" + host + "]"
		}
		if tlsPort != "" && tlsPort != "443" {
			host += ":" + tlsPort
		}
		code := http.StatusMovedPermanently
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			code = http.StatusPermanentRedirect
		}
		http.Redirect(w, r, "https://"+host+r.URL.RequestURI(), code)
	})
}
