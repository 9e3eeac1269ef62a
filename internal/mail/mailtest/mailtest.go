// Package mailtest starts a real SMTP relay for tests: mailpit, with
// STARTTLS (a certificate made for the test) and AUTH PLAIN required, and
// reads the messages it received back through mailpit's HTTP API.
//
// The binary is $DOCSD_TEST_MAILPIT, else mailpit-v1.33.1 in
// $HOME/.cache/docsd-gobin (.ci/run installs it there). Without it a test
// is skipped, or fails when CI=true.
package mailtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"docsd/internal/mail"
)

// Version is the mailpit release the tests run.
const Version = "v1.33.1"

// Server is a running mailpit.
type Server struct {
	SMTPAddr string // host:port of the SMTP listener (STARTTLS, AUTH PLAIN)
	APIURL   string // base URL of the HTTP API
	Username string
	Password string
	RootCAs  *x509.CertPool // trusts the relay's certificate
}

// Binary returns the mailpit binary's path, skipping (or, with CI=true,
// failing) the test when there is none.
func Binary(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("DOCSD_TEST_MAILPIT"); p != "" {
		return p
	}
	home, _ := os.UserHomeDir()
	p := filepath.Join(home, ".cache", "docsd-gobin", "mailpit-"+Version)
	if _, err := os.Stat(p); err != nil {
		msg := fmt.Sprintf("no mailpit at %s: go install github.com/axllent/mailpit@%s (see .ci/run), or set DOCSD_TEST_MAILPIT", p, Version)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return p
}

// Start runs a mailpit for the test; it stops when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := Binary(t)
	dir := t.TempDir()
	certPEM, keyPEM, pool := selfSigned(t)
	certFile, keyFile, authFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem"), filepath.Join(dir, "auth")
	s := &Server{Username: "docsd", Password: "relay-password", RootCAs: pool}
	for f, b := range map[string][]byte{certFile: certPEM, keyFile: keyPEM, authFile: []byte(s.Username + ":" + s.Password + "\n")} {
		if err := os.WriteFile(f, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	smtpPort, httpPort := freePort(t), freePort(t)
	s.SMTPAddr = "127.0.0.1:" + smtpPort
	s.APIURL = "http://127.0.0.1:" + httpPort
	cmd := exec.Command(bin, "--smtp", s.SMTPAddr, "--listen", "127.0.0.1:"+httpPort, "--database", filepath.Join(dir, "mailpit.db"),
		"--smtp-tls-cert", certFile, "--smtp-tls-key", keyFile, "--smtp-require-starttls", "--smtp-auth-file", authFile,
		"--smtp-disable-rdns", "--disable-version-check", "--quiet")
	out, err := os.Create(filepath.Join(dir, "mailpit.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		out.Close()
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(s.APIURL + "/api/v1/info")
		if err == nil {
			resp.Body.Close()
			if c, err := net.Dial("tcp", s.SMTPAddr); err == nil {
				c.Close()
				return s
			}
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "mailpit.log"))
			t.Fatalf("mailpit did not start within 60 s: %s", log)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Config is a mail.Config that reaches this relay (STARTTLS, AUTH PLAIN,
// loopback allowed).
func (s *Server) Config(from string) mail.Config {
	return mail.Config{Addr: s.SMTPAddr, Username: s.Username, Password: s.Password, From: from, TLS: mail.TLSStartTLS,
		AllowPrivateNetwork: true, RootCAs: s.RootCAs}
}

// Address is a mailbox as mailpit reports it.
type Address struct {
	Name    string `json:"Name"`
	Address string `json:"Address"`
}

// Message is a received message.
type Message struct {
	ID      string    `json:"ID"`
	From    Address   `json:"From"`
	To      []Address `json:"To"`
	Subject string    `json:"Subject"`
	Text    string    `json:"Text"`
}

// Messages returns every message received so far, newest first, with
// their text.
func (s *Server) Messages(t testing.TB) []Message {
	t.Helper()
	var list struct {
		Messages []Message `json:"messages"`
	}
	s.getJSON(t, "/api/v1/messages", &list)
	for i := range list.Messages {
		s.getJSON(t, "/api/v1/message/"+list.Messages[i].ID, &list.Messages[i])
	}
	return list.Messages
}

// WaitMessage waits (up to timeout) for a message that ok accepts.
func (s *Server) WaitMessage(t testing.TB, timeout time.Duration, ok func(Message) bool) Message {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		for _, m := range s.Messages(t) {
			if ok(m) {
				return m
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no matching message within %s; received: %+v", timeout, s.Messages(t))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (s *Server) getJSON(t testing.TB, path string, v any) {
	t.Helper()
	resp, err := http.Get(s.APIURL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", path, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
}

func freePort(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return port
}

// selfSigned makes a certificate for 127.0.0.1 and localhost.
func selfSigned(t testing.TB) (certPEM, keyPEM []byte, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "mailtest"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), pool
}
