package main

import (
	"context"
	"crypto/rand"
	"crypto/x509"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"sync"
	"time"

	"docsd/internal/buildnotify"
	"docsd/internal/mail"
)

// mailSettings are the mail relay's settings and the build notification
// sender's.
type mailSettings struct {
	SMTPAddr       string
	SMTPUsername   string
	SMTPPassword   string // the password, or the path of a file holding it
	SMTPFrom       string
	SMTPTLS        string
	WebhookTimeout int // seconds

	smtpPassword string // the password itself (read from a file)
	// mailRootCAs, when set, are the certificates trusted for the relay
	// (tests); nil trusts the system's roots.
	mailRootCAs *x509.CertPool
}

func (m *mailSettings) register(str func(p *string, name, def, usage string), integer func(p *int, name string, def int, usage string)) {
	str(&m.SMTPAddr, "smtp-addr", "", "mail relay host:port that build notification emails are sent through; empty: no email is sent")
	str(&m.SMTPUsername, "smtp-username", "", "AUTH PLAIN user at the mail relay; empty: no AUTH")
	str(&m.SMTPPassword, "smtp-password", "", "AUTH PLAIN password at the mail relay, or the path of a file holding it")
	str(&m.SMTPFrom, "smtp-from", "", "From: header of docsd's emails (`docsd <docs@example.com>` or a bare address); empty: docsd@<host of --public-url>")
	str(&m.SMTPTLS, "smtp-tls", mail.TLSStartTLS, "encryption of the mail relay connection: starttls (required to be offered), implicit (TLS from the start, port 465) or none")
	integer(&m.WebhookTimeout, "webhook-timeout", int(buildnotify.DefaultTimeout/time.Second), "seconds an outgoing webhook request may take, from connecting to the answer's last byte, before it is cut off and tried again later; 0: 10")
}

// resolveMail checks the mail settings, reads the password file and fills
// the From default.
func (s *Settings) resolveMail() error {
	switch {
	case s.WebhookTimeout < 0:
		return fmt.Errorf("--webhook-timeout must not be negative")
	case s.WebhookTimeout == 0:
		s.WebhookTimeout = int(buildnotify.DefaultTimeout / time.Second)
	}
	if s.SMTPFrom == "" {
		host := "localhost"
		if u, err := url.Parse(s.PublicURL); err == nil && u.Hostname() != "" {
			host = u.Hostname()
		}
		s.SMTPFrom = "docsd@" + host
	}
	s.smtpPassword = s.SMTPPassword
	if fi, err := os.Stat(s.SMTPPassword); s.SMTPPassword != "" && err == nil && fi.Mode().IsRegular() {
		b, err := os.ReadFile(s.SMTPPassword)
		if err != nil {
			return fmt.Errorf("--smtp-password: %v", err)
		}
		s.smtpPassword = trimNewline(string(b))
	}
	_, err := mail.New(s.mailConfig())
	return err
}

func trimNewline(v string) string {
	for len(v) > 0 && (v[len(v)-1] == '\n' || v[len(v)-1] == '\r') {
		v = v[:len(v)-1]
	}
	return v
}

// mailConfig is the mail relay configuration of the settings.
func (s *Settings) mailConfig() mail.Config {
	return mail.Config{Addr: s.SMTPAddr, Username: s.SMTPUsername, Password: s.smtpPassword, From: s.SMTPFrom, TLS: s.SMTPTLS,
		AllowPrivateNetwork: s.AllowPrivateNetwork, RootCAs: s.mailRootCAs}
}

// notificationSender is the build notification sender of the settings.
func (a *app) notificationSender() (*buildnotify.Sender, error) {
	m, err := mail.New(a.settings.mailConfig())
	if err != nil {
		return nil, err
	}
	host, _ := os.Hostname()
	var id [4]byte
	rand.Read(id[:])
	return &buildnotify.Sender{
		Store: a.store, Mailer: m, URLs: a.urls(), AllowPrivateNetwork: a.settings.AllowPrivateNetwork,
		Timeout: time.Duration(a.settings.WebhookTimeout) * time.Second,
		Owner:   fmt.Sprintf("%s:%d:notify:%s", host, os.Getpid(), hex.EncodeToString(id[:])),
		Logger:  a.logger,
	}, nil
}

// startNotifications runs the build notification sender until the
// returned function is called (it waits for deliveries in flight).
func (a *app) startNotifications(ctx context.Context) (func(), error) {
	sender, err := a.notificationSender()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { sender.Run(ctx) })
	return func() { cancel(); wg.Wait() }, nil
}
