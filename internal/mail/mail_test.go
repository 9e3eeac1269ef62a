package mail_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"docsd/internal/mail"
	"docsd/internal/mail/mailtest"
)

func TestSendThroughRealRelay(t *testing.T) {
	relay := mailtest.Start(t)
	m, err := mail.New(relay.Config("docsd <docsd@docs.example.com>"))
	if err != nil {
		t.Fatal(err)
	}
	err = m.Send(context.Background(), mail.Message{To: "ana@example.com", Subject: "Failed: Pröject (main)", Text: "line one\nline two: " + strings.Repeat("x", 100)})
	if err != nil {
		t.Fatal(err)
	}
	got := relay.WaitMessage(t, 30*time.Second, func(m mailtest.Message) bool { return m.Subject == "Failed: Pröject (main)" })
	if got.From.Address != "docsd@docs.example.com" || len(got.To) != 1 || got.To[0].Address != "ana@example.com" {
		t.Errorf("got from %v to %v", got.From, got.To)
	}
	if !strings.Contains(got.Text, "line two: "+strings.Repeat("x", 100)) {
		t.Errorf("text = %q", got.Text)
	}
}

func TestRelayRefusals(t *testing.T) {
	relay := mailtest.Start(t)
	ctx := context.Background()
	send := func(cfg mail.Config) error {
		m, err := mail.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return m.Send(ctx, mail.Message{To: "ana@example.com", Subject: "s", Text: "t"})
	}
	t.Run("PrivateNetworkRefused", func(t *testing.T) {
		cfg := relay.Config("docsd@example.com")
		cfg.AllowPrivateNetwork = false
		err := send(cfg)
		if err == nil || !strings.Contains(err.Error(), "--allow-private-network") || !mail.Permanent(err) {
			t.Errorf("got %v, want the private-network refusal", err)
		}
	})
	t.Run("WrongPassword", func(t *testing.T) {
		cfg := relay.Config("docsd@example.com")
		cfg.Password = "wrong"
		if err := send(cfg); err == nil || !strings.Contains(err.Error(), "AUTH") {
			t.Errorf("got %v, want an AUTH failure", err)
		}
	})
	t.Run("NoTLSRefusesToSendThePassword", func(t *testing.T) {
		cfg := relay.Config("docsd@example.com")
		cfg.TLS = mail.TLSNone
		if err := send(cfg); err == nil {
			t.Error("sent without TLS to a relay that requires STARTTLS")
		}
	})
	t.Run("UntrustedCertificate", func(t *testing.T) {
		cfg := relay.Config("docsd@example.com")
		cfg.RootCAs = nil
		if err := send(cfg); err == nil || !strings.Contains(err.Error(), "STARTTLS") {
			t.Errorf("got %v, want a certificate failure", err)
		}
	})
	if n := len(relay.Messages(t)); n != 0 {
		t.Errorf("%d messages arrived, want none", n)
	}
}

func TestNewChecksSettings(t *testing.T) {
	for _, c := range []struct {
		cfg  mail.Config
		want string
	}{
		{mail.Config{Addr: "mail.example.com:587", From: "docsd@example.com", TLS: "ssl"}, "--smtp-tls"},
		{mail.Config{Addr: "mail.example.com", From: "docsd@example.com"}, "--smtp-addr"},
		{mail.Config{Addr: "mail.example.com:587", From: "not an address"}, "--smtp-from"},
	} {
		if _, err := mail.New(c.cfg); err == nil || !strings.HasPrefix(err.Error(), c.want+":") {
			t.Errorf("New(%+v) = %v, want an error naming %s", c.cfg, err, c.want)
		}
	}
	m, err := mail.New(mail.Config{})
	if err != nil || m.Enabled() {
		t.Errorf("empty config: %v, enabled %v", err, m.Enabled())
	}
	if err := m.Send(context.Background(), mail.Message{To: "a@example.com"}); err != mail.ErrDisabled {
		t.Errorf("Send without relay = %v", err)
	}
}
