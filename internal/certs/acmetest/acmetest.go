// Package acmetest starts Let's Encrypt's test ACME server, pebble, and
// its DNS server, pebble-challtestsrv, for tests: real servers, from the
// binaries named by DOCSD_TEST_PEBBLE and DOCSD_TEST_CHALLTESTSRV (.ci/run
// installs them).
package acmetest

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"
)

// The variables naming the binaries.
const (
	PebbleEnv       = "DOCSD_TEST_PEBBLE"
	ChallTestSrvEnv = "DOCSD_TEST_CHALLTESTSRV"
)

// binary returns the binary named by env, else the one .ci/run installs
// under ~/.cache/docsd-gobin; without either the test is skipped, loudly,
// except under CI=true, where it fails.
func binary(tb testing.TB, env, installed string) string {
	tb.Helper()
	if bin := os.Getenv(env); bin != "" {
		return bin
	}
	if home, err := os.UserHomeDir(); err == nil {
		p := filepath.Join(home, ".cache", "docsd-gobin", installed)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	msg := env + " is not set and " + installed + " is not in ~/.cache/docsd-gobin (bash .ci/run installs it)"
	if os.Getenv("CI") == "true" {
		tb.Fatal(msg)
	}
	tb.Skip("SKIPPED: " + msg)
	return ""
}

// FreeAddr returns a loopback address with a port free at the moment.
func FreeAddr(tb testing.TB) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// start runs bin with args until the test ends (or stop is called) and
// waits until ready answers nil.
func start(tb testing.TB, bin string, env []string, ready func() error, args ...string) (stop func()) {
	tb.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		tb.Fatalf("starting %s: %v", bin, err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cmd.Process.Kill()
			<-exited
		})
	}
	tb.Cleanup(func() {
		stop()
		if tb.Failed() {
			tb.Logf("%s output:\n%s", filepath.Base(bin), lastLines(out.String(), 60))
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		err := ready()
		if err == nil {
			return stop
		}
		select {
		case <-exited:
			tb.Fatalf("%s exited: %s", bin, out.String())
		default:
		}
		if time.Now().After(deadline) {
			tb.Fatalf("%s did not answer: %v\n%s", bin, err, out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// DNS is a running pebble-challtestsrv: a DNS server whose answers the
// test sets. Names it was told nothing of resolve to 192.0.2.1 (a
// documentation address nothing listens on), never to docsd.
type DNS struct {
	Addr       string // host:port of the DNS server (UDP and TCP)
	management string
}

// StartDNS starts pebble-challtestsrv with only its DNS server and its
// management API.
func StartDNS(tb testing.TB) *DNS {
	tb.Helper()
	bin := binary(tb, ChallTestSrvEnv, "pebble-challtestsrv-v2.10.3")
	d := &DNS{Addr: FreeAddr(tb), management: "http://" + FreeAddr(tb)}
	start(tb, bin, nil, func() error { return d.post("/clear-request-history", map[string]any{"host": "x", "type": "dns"}) },
		"-dnsserver", d.Addr, "-management", strings.TrimPrefix(d.management, "http://"),
		"-defaultIPv4", "192.0.2.1", "-defaultIPv6", "",
		"-http01", "", "-https01", "", "-tlsalpn01", "", "-doh", "")
	return d
}

func (d *DNS) post(path string, body any) error {
	b, _ := json.Marshal(body)
	resp, err := http.Post(d.management+path, "application/json", bytes.NewReader(b))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("%s: %s %s", path, resp.Status, msg)
	}
	return nil
}

// AddA makes host resolve to the addresses.
func (d *DNS) AddA(tb testing.TB, host string, addrs ...string) {
	tb.Helper()
	if err := d.post("/add-a", map[string]any{"host": fqdn(host), "addresses": addrs}); err != nil {
		tb.Fatal(err)
	}
}

// SetCNAME makes host an alias of target.
func (d *DNS) SetCNAME(tb testing.TB, host, target string) {
	tb.Helper()
	if err := d.post("/set-cname", map[string]any{"host": fqdn(host), "target": fqdn(target)}); err != nil {
		tb.Fatal(err)
	}
}

func fqdn(s string) string { return strings.TrimSuffix(s, ".") + "." }

// Pebble is a running pebble ACME server.
type Pebble struct {
	// Directory is the ACME directory URL.
	Directory string
	// DirectoryRoot is the PEM file of the root pebble's own HTTPS is
	// signed by (docsd's --tls-acme-ca-root).
	DirectoryRoot string
	management    string
	client        *http.Client
	stop          func()
}

// Stop ends pebble before the test does: the CA no longer answers.
func (p *Pebble) Stop() { p.stop() }

// StartPebble starts pebble, resolving names with dns and validating
// HTTP-01 and TLS-ALPN-01 challenges on httpPort and tlsPort of the
// addresses names resolve to (docsd's --addr and --tls-addr).
func StartPebble(tb testing.TB, dns *DNS, httpPort, tlsPort string) *Pebble {
	tb.Helper()
	bin := binary(tb, PebbleEnv, "pebble-v2.10.3")
	dir := tb.TempDir()
	certPEM, keyPEM := SelfSigned(tb, time.Now().Add(24*time.Hour), "localhost", "127.0.0.1")
	p := &Pebble{DirectoryRoot: filepath.Join(dir, "root.pem")}
	for name, b := range map[string][]byte{"root.pem": certPEM, "key.pem": keyPEM} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			tb.Fatal(err)
		}
	}
	listen, management := FreeAddr(tb), FreeAddr(tb)
	hp, _ := parsePort(httpPort)
	tp, _ := parsePort(tlsPort)
	cfg := map[string]any{"pebble": map[string]any{
		"listenAddress": listen, "managementListenAddress": management,
		"certificate": filepath.Join(dir, "root.pem"), "privateKey": filepath.Join(dir, "key.pem"),
		"httpPort": hp, "tlsPort": tp, "ocspResponderURL": "", "externalAccountBindingRequired": false,
		"retryAfter": map[string]any{"authz": 1, "order": 1}, "keyAlgorithm": "ecdsa",
		"profiles": map[string]any{"default": map[string]any{"description": "test", "validityPeriod": 7776000}},
	}}
	b, _ := json.Marshal(cfg)
	if err := os.WriteFile(filepath.Join(dir, "pebble.json"), b, 0o600); err != nil {
		tb.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(certPEM)
	p.client = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	p.Directory = "https://" + listen + "/dir"
	p.management = "https://" + management
	p.stop = start(tb, bin, []string{"PEBBLE_VA_NOSLEEP=1", "PEBBLE_WFE_NONCEREJECT=0", "PEBBLE_AUTHZREUSE=0"}, func() error {
		resp, err := p.client.Get(p.Directory)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}, "-config", filepath.Join(dir, "pebble.json"), "-dnsserver", dns.Addr)
	return p
}

func parsePort(s string) (int, error) {
	var n int
	_, err := fmt.Sscanf(s, "%d", &n)
	return n, err
}

// Roots returns the pool of the root pebble issues certificates under:
// a client that trusts only it trusts only pebble's certificates.
func (p *Pebble) Roots(tb testing.TB) *x509.CertPool {
	tb.Helper()
	resp, err := p.client.Get(p.management + "/roots/0")
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(b) {
		tb.Fatalf("pebble's root: %s %q", resp.Status, b)
	}
	return pool
}

// SelfSigned makes a self-signed CA certificate for names (host names or
// IP addresses), valid until notAfter, and its key, in PEM: pebble's own
// HTTPS, or an operator's certificate (--tls-cert) in a test.
func SelfSigned(tb testing.TB, notAfter time.Time, names ...string) (certPEM, keyPEM []byte) {
	tb.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: names[0]},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: notAfter,
		IsCA: true, BasicConstraintsValid: true,
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, n := range names {
		if ip := net.ParseIP(n); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, n)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		tb.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		tb.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb})
}

// Zone starts a DNS server that answers as the authoritative server of
// zone would the SOA queries an ACME client asks to find a challenge
// name's zone (pebble-challtestsrv answers them with NOTIMP), and hands
// every other query to d; it returns its address (host:port, UDP), for
// docsd's --tls-dns-resolvers.
func (d *DNS) Zone(tb testing.TB, zone string) string {
	tb.Helper()
	zone = dns.Fqdn(strings.ToLower(zone))
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	srv := &dns.Server{PacketConn: pc, Handler: dns.HandlerFunc(func(w dns.ResponseWriter, q *dns.Msg) {
		if len(q.Question) == 1 && q.Question[0].Qtype == dns.TypeSOA && dns.IsSubDomain(zone, strings.ToLower(q.Question[0].Name)) {
			m := new(dns.Msg)
			m.SetReply(q)
			m.Authoritative = true
			if strings.EqualFold(q.Question[0].Name, zone) {
				m.Answer = []dns.RR{&dns.SOA{Hdr: dns.RR_Header{Name: zone, Rrtype: dns.TypeSOA, Class: dns.ClassINET, Ttl: 60},
					Ns: "ns." + zone, Mbox: "hostmaster." + zone, Serial: 1, Refresh: 60, Retry: 60, Expire: 600, Minttl: 60}}
			}
			w.WriteMsg(m)
			return
		}
		in, err := dns.Exchange(q, d.Addr)
		if err != nil {
			m := new(dns.Msg)
			m.SetRcode(q, dns.RcodeServerFailure)
			in = m
		}
		w.WriteMsg(in)
	})}
	go srv.ActivateAndServe()
	tb.Cleanup(func() { srv.Shutdown() })
	return pc.LocalAddr().String()
}

// HookScript writes a DNS-01 hook (docsd's --tls-dns-hook) that
// publishes TXT records in d through its management API with curl, and
// appends each call ("present <fqdn> <value>", "cleanup …") to the file
// calls; it returns the script's path. The test is skipped without curl.
func (d *DNS) HookScript(tb testing.TB, calls string) string {
	tb.Helper()
	if _, err := exec.LookPath("curl"); err != nil {
		tb.Skip("SKIPPED: curl is not installed (the DNS-01 hook script calls it)")
	}
	script := `#!/bin/sh
set -e
echo "$1 $2 $3" >> '` + calls + `'
case "$1" in
present) path=set-txt body="{\"host\":\"$2\",\"value\":\"$3\"}" ;;
cleanup) path=clear-txt body="{\"host\":\"$2\"}" ;;
*) echo "unknown action $1" >&2; exit 2 ;;
esac
curl -fsS -X POST -H 'Content-Type: application/json' -d "$body" '` + d.management + `'/$path
`
	p := filepath.Join(tb.TempDir(), "dns-hook.sh")
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		tb.Fatal(err)
	}
	return p
}
