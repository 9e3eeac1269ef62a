package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"docsd/internal/mail"
	"docsd/internal/mail/mailtest"
	"docsd/internal/storetest"
	"docsd/store"
)

// TestMailSettings: the SMTP settings' defaults, the password file, and
// the settings that stop `serve`, each named in its error.
func TestMailSettings(t *testing.T) {
	parse := func(args ...string) (*command, error) {
		c := &command{stdout: io.Discard, stderr: io.Discard}
		fs, env := c.flags("serve", "serve")
		_, err := c.parse(fs, env, append([]string{"--data-dir", t.TempDir()}, args...))
		return c, err
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--smtp-addr", "mail.example.com:587", "--smtp-tls", "ssl"}, "--smtp-tls:"},
		{[]string{"--smtp-addr", "mail.example.com"}, "--smtp-addr:"},
		{[]string{"--smtp-addr", "mail.example.com:587", "--smtp-from", "docs team"}, "--smtp-from:"},
		{[]string{"--webhook-timeout", "-1"}, "--webhook-timeout"},
	} {
		if _, err := parse(tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got %v, want an error naming %s", tc.args, err, tc.want)
		}
	}
	pw := filepath.Join(t.TempDir(), "smtp-password")
	if err := os.WriteFile(pw, []byte("from-a-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := parse("--public-url", "https://docs.example.com:8443", "--smtp-addr", "mail.example.com:587", "--smtp-password", pw)
	if err != nil {
		t.Fatal(err)
	}
	cfg := c.settings.mailConfig()
	if cfg.From != "docsd@docs.example.com" || cfg.Password != "from-a-file" || cfg.TLS != mail.TLSStartTLS {
		t.Errorf("mail config = %+v", cfg)
	}
	if c.settings.WebhookTimeout != 10 {
		t.Errorf("--webhook-timeout default %d, want 10", c.settings.WebhookTimeout)
	}
}

// TestServeSendsBuildFailedEmail: the workers `serve` starts send a failed
// build's email through the relay of the --smtp-* settings (mailpit with
// STARTTLS and AUTH PLAIN, the password read from a file).
func TestServeSendsBuildFailedEmail(t *testing.T) {
	relay := mailtest.Start(t)
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		pw := filepath.Join(t.TempDir(), "smtp-password")
		if err := os.WriteFile(pw, []byte(relay.Password+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		a, _ := dashboardApp(t, s, "--build-workers", "0", "--allow-private-network", "--public-url", "https://docs.example.com",
			"--smtp-addr", relay.SMTPAddr, "--smtp-username", relay.Username, "--smtp-password", pw)
		// The test's relay has a certificate of its own.
		a.settings.mailRootCAs = relay.RootCAs
		stop, err := a.startWorkers(t.Context(), 0)
		if err != nil {
			t.Fatal(err)
		}
		defer stop()
		p, err := s.FindProjectBySlug(t.Context(), "demo")
		if err != nil {
			t.Fatal(err)
		}
		to := "docs-" + string(d) + "@example.com"
		if _, err := s.CreateEmailHook(t.Context(), p.ID, to); err != nil {
			t.Fatal(err)
		}
		finishBuilds(t, s, "demo", false)
		msg := relay.WaitMessage(t, 60*time.Second, func(m mailtest.Message) bool { return len(m.To) == 1 && m.To[0].Address == to })
		if msg.Subject != "Failed: Demo (latest)" || msg.From.Address != "docsd@docs.example.com" ||
			!strings.Contains(msg.Text, "https://docs.example.com/projects/demo/builds/") {
			t.Errorf("message = %+v", msg)
		}
	})
}
