package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"docsd/internal/certs"
	"docsd/internal/domains"
)

// tlsSettings are the settings of docsd's own HTTPS
// (docs/operations/https.md).
type tlsSettings struct {
	TLSAddr          string
	TLSCert, TLSKey  string
	TLSACMEEmail     string
	TLSACMEDirectory string
	TLSACMECARoot    string
	TLSDNSHook       string
	TLSDNSResolvers  string

	tlsGiven          *tls.Certificate
	tlsDirectoryRoots *x509.CertPool
	tlsDNSResolvers   []string
}

func (t *tlsSettings) register(str func(p *string, name, def, usage string)) {
	str(&t.TLSAddr, "tls-addr", "", "address the HTTPS listener listens on (default :443 when --tls-acme-email or --tls-cert is set); "+
		"--addr then answers plain HTTP with a redirect to HTTPS, except ACME challenges, the probes and custom domains whose HTTPS is off")
	str(&t.TLSCert, "tls-cert", "", "PEM certificate (chain) file HTTPS serves, for the names it covers (with --tls-key)")
	str(&t.TLSKey, "tls-key", "", "PEM private key file of --tls-cert")
	str(&t.TLSACMEEmail, "tls-acme-email", "", "turns on automatic HTTPS: certificates from an ACME CA, ordered on demand for validated custom domains "+
		"and the public URL's and docs origin's hosts, kept in the artifacts storage for every node; the CA's contact address for the account")
	str(&t.TLSACMEDirectory, "tls-acme-directory", certs.LetsEncrypt, "ACME directory URL certificates are ordered from")
	str(&t.TLSACMECARoot, "tls-acme-ca-root", "", "PEM file of the only roots trusted for the ACME directory's own HTTPS (a private CA); empty: the system's")
	str(&t.TLSDNSHook, "tls-dns-hook", "", "executable that publishes DNS-01 challenges' TXT records, run as '<hook> present|cleanup <fqdn> <value>' (lego's exec provider); "+
		"with --docs-domain and --tls-acme-email, docsd orders the certificate for *.<docs-domain> with it")
	str(&t.TLSDNSResolvers, "tls-dns-resolvers", "", "comma-separated DNS servers (host or host:port) asked for the challenge's zone and whether its TXT record is published; "+
		"empty: the system's resolvers, then the zone's authoritative servers")
}

// tlsOn reports whether docsd serves HTTPS itself.
func (s *Settings) tlsOn() bool { return s.TLSACMEEmail != "" || s.TLSCert != "" }

// resolveTLS checks the TLS settings and reads the given files.
func (s *Settings) resolveTLS() error {
	if err := s.resolveDNS01(); err != nil {
		return err
	}
	if (s.TLSCert == "") != (s.TLSKey == "") {
		return fmt.Errorf("--tls-cert and --tls-key go together")
	}
	if s.TLSAddr != "" && !s.tlsOn() {
		return fmt.Errorf("--tls-addr needs --tls-acme-email or --tls-cert")
	}
	if !s.tlsOn() {
		return nil
	}
	if s.TLSAddr == "" {
		s.TLSAddr = ":443"
	}
	if _, _, err := net.SplitHostPort(s.TLSAddr); err != nil {
		return fmt.Errorf("--tls-addr %q: %v", s.TLSAddr, err)
	}
	if s.TLSCert != "" {
		c, err := tls.LoadX509KeyPair(s.TLSCert, s.TLSKey)
		if err != nil {
			return fmt.Errorf("--tls-cert, --tls-key: %v", err)
		}
		s.tlsGiven = &c
	}
	if s.TLSACMEEmail != "" {
		if u, err := url.Parse(s.TLSACMEDirectory); err != nil || u.Scheme != "https" || u.Host == "" {
			return fmt.Errorf("--tls-acme-directory %q must be an https:// URL", s.TLSACMEDirectory)
		}
	}
	if s.TLSACMECARoot != "" {
		pem, err := os.ReadFile(s.TLSACMECARoot)
		if err != nil {
			return fmt.Errorf("--tls-acme-ca-root: %v", err)
		}
		s.tlsDirectoryRoots = x509.NewCertPool()
		if !s.tlsDirectoryRoots.AppendCertsFromPEM(pem) {
			return fmt.Errorf("--tls-acme-ca-root %s: no PEM certificate", s.TLSACMECARoot)
		}
	}
	return nil
}

// resolveDNS01 checks the DNS-01 provider's settings: every one of them
// needs the others it works with, so that a provider set up by half is
// refused rather than found out at the first order.
func (s *Settings) resolveDNS01() error {
	if s.TLSDNSResolvers != "" && s.TLSDNSHook == "" {
		return fmt.Errorf("--tls-dns-resolvers needs --tls-dns-hook")
	}
	if s.TLSDNSHook == "" {
		return nil
	}
	if s.TLSACMEEmail == "" {
		return fmt.Errorf("--tls-dns-hook needs --tls-acme-email: it answers the ACME CA's DNS-01 challenges")
	}
	if s.DocsDomain == "" {
		return fmt.Errorf("--tls-dns-hook orders the certificate for *.<docs-domain>: it needs --docs-domain")
	}
	path, err := exec.LookPath(s.TLSDNSHook)
	if err != nil {
		return fmt.Errorf("--tls-dns-hook: %v", err)
	}
	s.TLSDNSHook = path
	for _, r := range strings.Split(s.TLSDNSResolvers, ",") {
		if r = strings.TrimSpace(r); r == "" {
			continue
		}
		host, port, err := net.SplitHostPort(r)
		if err != nil {
			host, port = r, "53"
		}
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 || host == "" || strings.ContainsAny(host, "/ ") {
			return fmt.Errorf("--tls-dns-resolvers: %q is neither host nor host:port", r)
		}
		s.tlsDNSResolvers = append(s.tlsDNSResolvers, r)
	}
	return nil
}

// newCerts makes the node's certificate manager, nil when docsd does not
// serve HTTPS itself.
func (a *app) newCerts() (*certs.Manager, error) {
	s := a.settings
	if !s.tlsOn() {
		return nil, nil
	}
	hosts := []string{hostOf(s.PublicURL)}
	if s.DocsURL != "" {
		hosts = append(hosts, hostOf(s.DocsURL))
	}
	c := certs.Config{Email: s.TLSACMEEmail, Directory: s.TLSACMEDirectory, DirectoryRoots: s.tlsDirectoryRoots,
		Given: s.tlsGiven, Blobs: a.artifacts, Locks: a.store, Statuses: a.store, Domains: a.domains, Hosts: hosts, Logger: a.logger}
	if s.TLSDNSHook != "" {
		c.Wildcard, c.DNSProvider, c.DNSResolvers = s.DocsDomain, certs.DNSHook{Command: s.TLSDNSHook}, s.tlsDNSResolvers
	}
	return certs.New(c)
}

// warnNoWildcard warns, in subdomain mode, when HTTPS has no certificate
// for <project>.<docs-domain>: without a DNS-01 provider docsd cannot
// order the wildcard, and the given certificate does not cover it.
func (a *app) warnNoWildcard() {
	s := a.settings
	if s.DocsDomain == "" || !s.tlsOn() || s.TLSDNSHook != "" {
		return
	}
	probe := "project." + domains.HostName(s.DocsDomain)
	if g := s.tlsGiven; g != nil && g.Leaf != nil && g.Leaf.VerifyHostname(probe) == nil {
		return
	}
	a.logger.Warn("subdomain mode without a certificate for *."+s.DocsDomain+": projects' docs are served over plain HTTP only; "+
		"set --tls-dns-hook to order it with DNS-01, or give one that covers it with --tls-cert", "docs_domain", s.DocsDomain)
}

func hostOf(origin string) string {
	u, err := url.Parse(origin)
	if err != nil {
		return ""
	}
	return u.Hostname()
}

// tlsHandler routes the HTTPS listener: the docs origin's host (when docs
// have one of their own) to the docs handler, anything else to public.
func (a *app) tlsHandler(public, docs http.Handler) http.Handler {
	docsHost := ""
	if docs != nil {
		docsHost = domains.HostName(hostOf(a.settings.DocsURL))
		if docsHost == domains.HostName(hostOf(a.settings.PublicURL)) {
			docsHost = "" // one host name: the docs origin is another port, which HTTPS does not have
		}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if docsHost != "" && domains.HostName(r.Host) == docsHost {
			docs.ServeHTTP(w, r)
			return
		}
		public.ServeHTTP(w, r)
	})
}

// certificateProblems is /readyz's view of the certificates; ok is false
// when docsd does not serve HTTPS itself.
func (a *app) certificateProblems(ctx context.Context) (problems []string, ok bool) {
	if a.certs == nil {
		return nil, false
	}
	return a.certs.Problems(ctx), true
}

// certificateExpiries are /metrics' docsd_certificate_expiry_days.
func (a *app) certificateExpiries(ctx context.Context) map[string]time.Time {
	out := map[string]time.Time{}
	if a.certs == nil {
		return out
	}
	for _, e := range a.certs.Expiries(ctx) {
		out[e.Name] = e.NotAfter
	}
	return out
}
