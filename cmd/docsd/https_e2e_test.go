package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"docsd/internal/artifacts/artifactstest"
	"docsd/internal/certs/acmetest"
	"docsd/internal/storetest"
	"docsd/store"
)

// httpsClient dials addr whatever host a URL names (the test's DNS is
// not the system's) and trusts only roots.
func httpsClient(addr string, roots *x509.CertPool) *http.Client {
	dialer := &net.Dialer{Timeout: 10 * time.Second}
	return &http.Client{
		Timeout:       2 * time.Minute, // the first handshake waits for the order
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Transport: &http.Transport{
			DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
				return dialer.DialContext(ctx, network, addr)
			},
			TLSClientConfig: &tls.Config{RootCAs: roots},
		},
	}
}

// getHTTPS fetches url with client and returns the answer's status, body
// and the server's certificate.
func getHTTPS(t *testing.T, client *http.Client, url string) (int, string, *x509.Certificate, error) {
	t.Helper()
	resp, err := client.Get(url)
	if err != nil {
		return 0, "", nil, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.TLS.PeerCertificates[0], nil
}

// firstHTTPS is getHTTPS for a name's first handshake, which waits for
// the certificate's order: a connection that ends before the order does
// (a client's patience, a busy machine) is tried again, as a browser
// would, until a deadline; a handshake refused outright is not.
func firstHTTPS(t *testing.T, client *http.Client, url string) (int, string, *x509.Certificate, error) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for {
		code, body, cert, err := getHTTPS(t, client, url)
		if err == nil || !errors.Is(err, io.EOF) && !errors.Is(err, syscall.ECONNRESET) || time.Now().After(deadline) {
			return code, body, cert, err
		}
		t.Logf("GET %s: %v; trying again", url, err)
	}
}

// waitDomainServed waits until the domain's DNS check validated it.
func (s *e2eServer) waitDomainServed(t *testing.T, project, domain string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var out struct {
			Project struct {
				Domains []struct{ Domain, ValidationStatus, ValidationError string }
			}
		}
		s.graphql(t, `query($p: String!) { project(slug: $p) { domains { domain validationStatus validationError } } }`,
			map[string]any{"p": project}, &out)
		for _, d := range out.Project.Domains {
			if d.Domain == domain && d.ValidationStatus == "valid" {
				return
			}
			if d.Domain == domain && time.Now().After(deadline) {
				t.Fatalf("%s still %s: %s", domain, d.ValidationStatus, d.ValidationError)
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// acmeFlags are the flags of a node that orders certificates from pebble
// and checks domains with the test's DNS.
func acmeFlags(dns *acmetest.DNS, pebble *acmetest.Pebble, tlsAddr string) []string {
	return []string{"--tls-addr", tlsAddr, "--tls-acme-email", "ops@acme.test", "--tls-acme-directory", pebble.Directory,
		"--tls-acme-ca-root", pebble.DirectoryRoot, "--domain-target", "127.0.0.1", "--domain-dns-server", dns.Addr}
}

// startPebbleNode starts the test's DNS and pebble, which validates
// challenges on the ports of two fresh addresses for a node (--addr and
// --tls-addr), and makes the node's data directory with a superuser,
// whose token it returns. Without git the test is skipped.
func startPebbleNode(t *testing.T) (dns *acmetest.DNS, pebble *acmetest.Pebble, addr, tlsAddr, tlsPort, dataDir, token string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dns = acmetest.StartDNS(t)
	addr, tlsAddr = freeAddr(t), freeAddr(t)
	_, httpPort, _ := net.SplitHostPort(addr)
	_, tlsPort, _ = net.SplitHostPort(tlsAddr)
	pebble = acmetest.StartPebble(t, dns, httpPort, tlsPort)
	dataDir = t.TempDir()
	migrated(t, dataDir)
	code, out, errOut := docsd(t, "user", "create", "alice", "--superuser", "--data-dir", dataDir)
	if code != 0 {
		t.Fatalf("user create --superuser: %d %s", code, errOut)
	}
	return dns, pebble, addr, tlsAddr, tlsPort, dataDir, strings.TrimSpace(out)
}

// TestHTTPSWithPebble: a real ACME CA (pebble) validates against docsd's
// own listeners. A custom domain pointed at docsd in the test's DNS is
// validated, gets a certificate at its first handshake, and serves the
// docs over HTTPS to a client that trusts only pebble's root; a forced
// renewal brings a new certificate; names that are not validated domains
// get none; plain HTTP redirects to HTTPS except ACME's path; /metrics
// and /readyz tell of the certificate. Its names are its own: certmagic
// keeps the orders in flight per name for the whole process, and another
// test's order for the same name (TestBrowserCustomDomains's, against a
// CA that does not answer) would hold this one's first handshake.
func TestHTTPSWithPebble(t *testing.T) {
	dns, pebble, addr, tlsAddr, tlsPort, dataDir, token := startPebbleNode(t)
	srv := serveAt(t, dataDir, addr, freeAddr(t), append([]string{"--docs-addr", freeAddr(t)}, acmeFlags(dns, pebble, tlsAddr)...)...)
	srv.token = token
	srv.importProject(t, "acme", gitRepo(t, repoFiles("Acme")), "en")
	srv.waitBuilt(t, "acme")

	dns.AddA(t, "docs.pebble.test", "127.0.0.1")
	dns.AddA(t, "pending.pebble.test", "192.0.2.55")
	for _, name := range []string{"docs.pebble.test", "pending.pebble.test"} {
		in := map[string]any{"project": "acme", "domain": name, "canonical": name == "docs.pebble.test"}
		if name == "docs.pebble.test" {
			in["hstsMaxAge"], in["hstsIncludeSubdomains"] = 31536000, true
		}
		if p := srv.createDomain(t, in); len(p.Errors) > 0 {
			t.Fatalf("createDomain %s: %+v", name, p.Errors)
		}
	}
	srv.waitDomainServed(t, "acme", "docs.pebble.test")

	client := httpsClient(tlsAddr, pebble.Roots(t))
	code, body, cert, err := firstHTTPS(t, client, "https://docs.pebble.test/en/latest/")
	if err != nil || code != http.StatusOK || !strings.Contains(body, "Acme: index") {
		t.Fatalf("GET https://docs.pebble.test/en/latest/: %d %.200q %v\n%s", code, body, err, srv.stderr.String())
	}
	if !slices.Equal(cert.DNSNames, []string{"docs.pebble.test"}) {
		t.Errorf("certificate names %v, want [docs.pebble.test]", cert.DNSNames)
	}

	// HTTPS answers carry the domain's Strict-Transport-Security; plain
	// HTTP ones never do (a browser ignores it there, and the redirect
	// to HTTPS comes first).
	if resp, err := client.Get("https://docs.pebble.test/en/latest/"); err != nil {
		t.Errorf("GET over HTTPS: %v", err)
	} else {
		resp.Body.Close()
		if got := resp.Header.Get("Strict-Transport-Security"); got != "max-age=31536000; includeSubDomains" {
			t.Errorf("Strict-Transport-Security over HTTPS = %q, want max-age=31536000; includeSubDomains", got)
		}
	}
	if resp, _ := getHost(t, "http://"+addr+"/en/latest/", "docs.pebble.test", ""); resp.Header.Get("Strict-Transport-Security") != "" {
		t.Errorf("plain HTTP answered Strict-Transport-Security %q", resp.Header.Get("Strict-Transport-Security"))
	}

	// Names that are not validated domains get no certificate at all.
	for _, name := range []string{"pending.pebble.test", "anything.example.com"} {
		if _, _, _, err := getHTTPS(t, client, "https://"+name+"/"); err == nil {
			t.Errorf("a handshake for %s succeeded; want no certificate", name)
		}
	}

	// A forced renewal: a new certificate for the same name.
	var renew struct {
		RenewDomainCertificate struct {
			Domain *struct{ SslStatus string }
			Errors []struct{ Message string }
		}
	}
	srv.graphql(t, `mutation { renewDomainCertificate(input: {project: "acme", id: "1"}) { domain { sslStatus } errors { message } } }`, nil, &renew)
	if r := renew.RenewDomainCertificate; len(r.Errors) > 0 || r.Domain == nil || r.Domain.SslStatus != "valid" {
		t.Fatalf("renewDomainCertificate: %+v", r)
	}
	client.CloseIdleConnections()
	_, _, renewed, err := getHTTPS(t, client, "https://docs.pebble.test/en/latest/")
	if err != nil || renewed.SerialNumber.Cmp(cert.SerialNumber) == 0 || !slices.Equal(renewed.DNSNames, cert.DNSNames) {
		t.Errorf("after the renewal: serial %v (before %v), names %v, err %v", renewed.SerialNumber, cert.SerialNumber, renewed.DNSNames, err)
	}

	// Plain HTTP: a redirect to HTTPS, the probes as they are.
	if code, loc, _ := fetch(t, "http://"+addr+"/en/latest/?q=1", "docs.pebble.test"); code != http.StatusMovedPermanently ||
		loc != "https://docs.pebble.test:"+tlsPort+"/en/latest/?q=1" {
		t.Errorf("plain HTTP: %d %q, want 301 to HTTPS", code, loc)
	}
	if code, _, body := fetch(t, "http://"+addr+"/readyz", ""); code != http.StatusOK || !strings.Contains(body, `"certificates":"ok"`) {
		t.Errorf("/readyz: %d %s", code, body)
	}
	if _, _, body := fetch(t, "http://"+addr+"/metrics", ""); !strings.Contains(body, `docsd_certificate_expiry_days{name="docs.pebble.test"} 89.9`) {
		t.Errorf("/metrics has no expiry of about 90 days for docs.pebble.test:\n%s", grepLines(body, "certificate"))
	}

	// The CA goes away: a renewal fails and says why, and HTTPS keeps
	// serving the certificate it has, plain HTTP its redirect.
	pebble.Stop()
	srv.graphql(t, `mutation { renewDomainCertificate(input: {project: "acme", id: "1"}) { domain { sslStatus } errors { message } } }`, nil, &renew)
	if r := renew.RenewDomainCertificate; len(r.Errors) == 0 {
		t.Errorf("renewDomainCertificate without a CA: %+v, want an error", r)
	}
	client.CloseIdleConnections()
	if _, _, still, err := getHTTPS(t, client, "https://docs.pebble.test/en/latest/"); err != nil || still.SerialNumber.Cmp(renewed.SerialNumber) != 0 {
		t.Errorf("HTTPS after a failed renewal: %v, want the certificate it had (%v)", err, renewed.SerialNumber)
	}
	if code, _, _ := fetch(t, "http://"+addr+"/en/latest/", "docs.pebble.test"); code != http.StatusMovedPermanently {
		t.Errorf("plain HTTP after a failed renewal: %d, want its redirect", code)
	}
}

func grepLines(s, word string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, word) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestHTTPSTwoNodesShareOneCertificate: two serve nodes on one PostgreSQL
// and one S3 bucket; the certificate the first orders is the one the
// second serves (same serial): the second does not order its own.
func TestHTTPSTwoNodesShareOneCertificate(t *testing.T) {
	bucket := artifactstest.StartS3(t)
	pg := storetest.DatabaseURL(t, store.Postgres)
	t.Setenv("AWS_ACCESS_KEY_ID", bucket.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", bucket.SecretKey)
	dns := acmetest.StartDNS(t)
	// Pebble validates on node A's ports; B answers the same names.
	addrA, tlsA, addrB, tlsB := freeAddr(t), freeAddr(t), freeAddr(t), freeAddr(t)
	_, httpPort, _ := net.SplitHostPort(addrA)
	_, tlsPort, _ := net.SplitHostPort(tlsA)
	pebble := acmetest.StartPebble(t, dns, httpPort, tlsPort)
	shared := []string{"--database-url", pg, "--artifacts-url", bucket.URL("docsd"), "--s3-endpoint", bucket.Endpoint,
		"--public-url", "http://docs.example.test", "--docs-url", "http://read.example.test", "--build-workers", "0"}
	if code, _, errOut := docsd(t, append([]string{"migrate"}, shared...)...); code != 0 {
		t.Fatalf("docsd migrate: exit %d: %s", code, errOut)
	}
	code, out, errOut := docsd(t, append([]string{"user", "create", "alice", "--superuser"}, shared...)...)
	if code != 0 {
		t.Fatalf("docsd user create: exit %d: %s", code, errOut)
	}
	token := strings.TrimSpace(out)
	a := serveAt(t, t.TempDir(), addrA, freeAddr(t), append(append([]string{"--docs-addr", freeAddr(t)}, shared...), acmeFlags(dns, pebble, tlsA)...)...)
	b := serveAt(t, t.TempDir(), addrB, freeAddr(t), append(append([]string{"--docs-addr", freeAddr(t)}, shared...), acmeFlags(dns, pebble, tlsB)...)...)
	a.token, b.token = token, token
	var imp struct {
		ImportProject struct{ Errors []struct{ Message string } }
	}
	a.graphql(t, `mutation { importProject(input: {name: "shared", repository: {url: "https://github.com/example/shared", type: git}}) { errors { message } } }`, nil, &imp)
	if len(imp.ImportProject.Errors) > 0 {
		t.Fatalf("importProject: %+v", imp.ImportProject.Errors)
	}
	dns.AddA(t, "docs.shared.test", "127.0.0.1")
	if p := a.createDomain(t, map[string]any{"project": "shared", "domain": "docs.shared.test"}); len(p.Errors) > 0 {
		t.Fatalf("createDomain: %+v", p.Errors)
	}
	a.waitDomainServed(t, "shared", "docs.shared.test")

	roots := pebble.Roots(t)
	_, _, certA, err := firstHTTPS(t, httpsClient(tlsA, roots), "https://docs.shared.test/")
	if err != nil {
		t.Fatalf("HTTPS on node A: %v\n%s", err, a.stderr.String())
	}
	_, _, certB, err := getHTTPS(t, httpsClient(tlsB, roots), "https://docs.shared.test/")
	if err != nil {
		t.Fatalf("HTTPS on node B: %v\n%s", err, b.stderr.String())
	}
	if certA.SerialNumber.Cmp(certB.SerialNumber) != 0 {
		t.Errorf("node A serves certificate %v, node B %v: B ordered its own", certA.SerialNumber, certB.SerialNumber)
	}
	if keys := bucket.Keys(t, "docsd/blobs/certificates/"); len(keys) == 0 {
		t.Error("no certificate in the bucket")
	}
}

// TestHTTPSWildcardWithPebble: in subdomain mode with a DNS-01 hook,
// docsd orders the certificate for *.<docs-domain> from a real ACME CA
// (pebble), which validates the TXT record the hook published in the
// test's DNS; a project's subdomain is then served over HTTPS to a client
// that trusts only pebble's root, and plain HTTP redirects to it.
func TestHTTPSWildcardWithPebble(t *testing.T) {
	dns, pebble, addr, tlsAddr, tlsPort, dataDir, token := startPebbleNode(t)
	calls := filepath.Join(t.TempDir(), "calls")
	hook := dns.HookScript(t, calls)
	dns.AddA(t, "dash.test", "127.0.0.1") // the public URL's host: its certificate comes with HTTP-01
	start := time.Now()
	srv := serveAt(t, dataDir, addr, freeAddr(t), append(acmeFlags(dns, pebble, tlsAddr), "--public-url", "https://dash.test",
		"--docs-domain", "docs.test", "--tls-dns-hook", hook, "--tls-dns-resolvers", dns.Zone(t, "docs.test"))...)
	srv.token = token
	srv.importProject(t, "acme", gitRepo(t, repoFiles("Acme")), "en")
	srv.waitBuilt(t, "acme")

	// The wildcard is ordered at start, in the background: a handshake
	// for a subdomain fails until it is there.
	client := httpsClient(tlsAddr, pebble.Roots(t))
	var cert *x509.Certificate
	var code int
	var body string
	var err error
	for deadline := start.Add(3 * time.Minute); ; {
		code, body, cert, err = getHTTPS(t, client, "https://acme.docs.test/en/latest/")
		if err == nil {
			t.Logf("the wildcard certificate served %s after docsd serve started", time.Since(start).Round(100*time.Millisecond))
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no HTTPS for acme.docs.test: %v\n%s", err, srv.stderr.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
	if code != http.StatusOK || !strings.Contains(body, "Acme: index") {
		t.Errorf("GET https://acme.docs.test/en/latest/: %d %.200q", code, body)
	}
	if !slices.Equal(cert.DNSNames, []string{"*.docs.test"}) {
		t.Errorf("certificate names %v, want [*.docs.test]", cert.DNSNames)
	}
	// The public host's certificate is HTTP-01's, its own.
	if _, _, hostCert, err := getHTTPS(t, client, "https://dash.test/healthz"); err != nil || !slices.Equal(hostCert.DNSNames, []string{"dash.test"}) {
		t.Errorf("https://dash.test: %v, err %v; want a certificate for [dash.test]", hostCert, err)
	}

	// The hook published the TXT record and removed it again.
	b, _ := os.ReadFile(calls)
	for _, want := range []string{"present _acme-challenge.docs.test. ", "cleanup _acme-challenge.docs.test. "} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the hook's calls have no %q:\n%s", want, b)
		}
	}

	if code, loc, _ := fetch(t, "http://"+addr+"/en/latest/", "acme.docs.test"); code != http.StatusMovedPermanently ||
		loc != "https://acme.docs.test:"+tlsPort+"/en/latest/" {
		t.Errorf("plain HTTP on the subdomain: %d %q, want 301 to HTTPS", code, loc)
	}
	if _, _, body := fetch(t, "http://"+addr+"/metrics", ""); !strings.Contains(body, `docsd_certificate_expiry_days{name="*.docs.test"} 89.9`) {
		t.Errorf("/metrics has no expiry of about 90 days for *.docs.test:\n%s", grepLines(body, "certificate"))
	}
}

// TestHTTPSGivenCertificate: --tls-cert/--tls-key without ACME. HTTPS
// serves the operator's certificate; plain HTTP redirects the names it
// covers to HTTPS and keeps serving others (an address); the probes stay
// on plain HTTP; /metrics tells its days to expiry.
func TestHTTPSGivenCertificate(t *testing.T) {
	dir := t.TempDir()
	certPEM, keyPEM := acmetest.SelfSigned(t, time.Now().Add(30*24*time.Hour), "docs.given.test")
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, certPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, keyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	dataDir := t.TempDir()
	migrated(t, dataDir)
	addr, tlsAddr := freeAddr(t), freeAddr(t)
	_, tlsPort, _ := net.SplitHostPort(tlsAddr)
	serveAt(t, dataDir, addr, freeAddr(t), "--docs-addr", freeAddr(t), "--public-url", "http://docs.given.test",
		"--tls-addr", tlsAddr, "--tls-cert", certFile, "--tls-key", keyFile)

	block, _ := pem.Decode(certPEM)
	leaf, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(leaf)
	code, _, cert, err := getHTTPS(t, httpsClient(tlsAddr, roots), "https://docs.given.test/healthz")
	if err != nil || code != http.StatusOK {
		t.Fatalf("GET https://docs.given.test/healthz: %d %v", code, err)
	}
	if cert.SerialNumber.Cmp(leaf.SerialNumber) != 0 {
		t.Errorf("HTTPS served certificate %v, want the given one (%v)", cert.SerialNumber, leaf.SerialNumber)
	}
	if code, loc, _ := fetch(t, "http://"+addr+"/accounts/login/", "docs.given.test"); code != http.StatusMovedPermanently ||
		loc != "https://docs.given.test:"+tlsPort+"/accounts/login/" {
		t.Errorf("plain HTTP for the certificate's name: %d %q, want 301 to HTTPS", code, loc)
	}
	if code, _, _ := fetch(t, "http://"+addr+"/accounts/login/", ""); code != http.StatusOK {
		t.Errorf("plain HTTP for an address: %d, want the page (no certificate covers it)", code)
	}
	if code, _, body := fetch(t, "http://"+addr+"/metrics", "docs.given.test"); code != http.StatusOK ||
		!strings.Contains(body, `docsd_certificate_expiry_days{name="docs.given.test"} 29.9`) {
		t.Errorf("/metrics: %d, no expiry of about 30 days for docs.given.test:\n%s", code, grepLines(body, "certificate"))
	}
}
