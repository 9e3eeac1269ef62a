// Package mail sends email through the operator's SMTP relay
// (--smtp-addr and its companions): plain-text messages, one recipient at
// a time, over STARTTLS, implicit TLS or (when asked) no TLS, with AUTH
// PLAIN when a username is set. Build notifications and invitations use
// it; mailtest starts a real relay for tests.
package mail

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"mime"
	"mime/quotedprintable"
	"net"
	netmail "net/mail"
	"net/netip"
	"net/smtp"
	"net/textproto"
	"strings"
	"time"

	"docsd/internal/repourl"
)

// TLS modes of the relay connection (--smtp-tls).
const (
	TLSStartTLS = "starttls" // plain connection upgraded with STARTTLS, which must be offered
	TLSImplicit = "implicit" // TLS from the first byte (port 465)
	TLSNone     = "none"     // no encryption; AUTH is then refused unless the relay is on loopback
)

// Config is how to reach the relay.
type Config struct {
	Addr     string // host:port; empty: no email is sent
	Username string // AUTH PLAIN user; empty: no AUTH
	Password string
	From     string // the From: header, `docsd <docs@example.com>` or a bare address
	TLS      string // TLSStartTLS (default), TLSImplicit or TLSNone
	// AllowPrivateNetwork lets the relay be on a loopback, private or
	// link-local address (--allow-private-network); otherwise such a relay
	// is refused, as repository and webhook URLs are.
	AllowPrivateNetwork bool
	// RootCAs, when set, are the certificates trusted for the relay's TLS
	// (tests); nil trusts the system's roots.
	RootCAs *x509.CertPool
	// Timeout bounds one message's whole SMTP conversation; 0 means 30 s.
	Timeout time.Duration
}

// Mailer sends messages through one relay. A nil *Mailer, or one without
// an address, sends nothing (Enabled is false).
type Mailer struct {
	cfg  Config
	from *netmail.Address
}

// New checks cfg and returns its Mailer. The error names the setting at
// fault (`--smtp-from: …`).
func New(cfg Config) (*Mailer, error) {
	if cfg.TLS == "" {
		cfg.TLS = TLSStartTLS
	}
	switch cfg.TLS {
	case TLSStartTLS, TLSImplicit, TLSNone:
	default:
		return nil, fmt.Errorf("--smtp-tls: %q is not one of starttls, implicit, none", cfg.TLS)
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 30 * time.Second
	}
	m := &Mailer{cfg: cfg}
	if cfg.Addr == "" {
		return m, nil
	}
	if _, port, err := net.SplitHostPort(cfg.Addr); err != nil || port == "" {
		return nil, fmt.Errorf("--smtp-addr: %q is not host:port", cfg.Addr)
	}
	from, err := netmail.ParseAddress(cfg.From)
	if err != nil {
		return nil, fmt.Errorf("--smtp-from: %q is not an email address", cfg.From)
	}
	m.from = from
	return m, nil
}

// Enabled reports whether messages are sent at all.
func (m *Mailer) Enabled() bool { return m != nil && m.cfg.Addr != "" }

// Message is a plain-text email to one recipient.
type Message struct {
	To      string // a bare address
	Subject string
	Text    string
}

// ErrDisabled is returned by Send when no relay is configured.
var ErrDisabled = errors.New("no mail relay: set --smtp-addr to send email")

// MsgPrivateRelay refuses a relay on this machine or a private network.
const MsgPrivateRelay = "the mail relay's host resolves to a loopback, private, link-local or unspecified address; the server's operator can allow such addresses with --allow-private-network"

// Send delivers msg to the relay. A returned error is Permanent when the
// relay refused the message for good (an SMTP 5xx answer); others may
// succeed when tried again.
func (m *Mailer) Send(ctx context.Context, msg Message) error {
	if !m.Enabled() {
		return ErrDisabled
	}
	to, err := netmail.ParseAddress(msg.To)
	if err != nil || strings.ContainsAny(msg.To, "\r\n") {
		return permanent(fmt.Errorf("%q is not an email address", msg.To))
	}
	body, err := m.compose(to.Address, msg)
	if err != nil {
		return permanent(err)
	}
	ctx, cancel := context.WithTimeout(ctx, m.cfg.Timeout)
	defer cancel()
	host, port, _ := net.SplitHostPort(m.cfg.Addr)
	addr, err := m.resolve(ctx, host)
	if err != nil {
		return err
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", net.JoinHostPort(addr.String(), port))
	if err != nil {
		return fmt.Errorf("mail relay %s: %w", m.cfg.Addr, err)
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	tlsConf := &tls.Config{ServerName: host, RootCAs: m.cfg.RootCAs, MinVersion: tls.VersionTLS12}
	if m.cfg.TLS == TLSImplicit {
		conn = tls.Client(conn, tlsConf)
	}
	c, err := smtp.NewClient(conn, host)
	if err != nil {
		return fmt.Errorf("mail relay %s: %w", m.cfg.Addr, err)
	}
	defer c.Close()
	if err := c.Hello(m.helloName()); err != nil {
		return classify(err)
	}
	if m.cfg.TLS == TLSStartTLS {
		if ok, _ := c.Extension("STARTTLS"); !ok {
			return permanent(fmt.Errorf("mail relay %s does not offer STARTTLS (--smtp-tls=starttls)", m.cfg.Addr))
		}
		if err := c.StartTLS(tlsConf); err != nil {
			return fmt.Errorf("mail relay %s: STARTTLS: %w", m.cfg.Addr, err)
		}
	}
	if m.cfg.Username != "" {
		if err := c.Auth(smtp.PlainAuth("", m.cfg.Username, m.cfg.Password, host)); err != nil {
			return classify(fmt.Errorf("mail relay %s: AUTH PLAIN: %w", m.cfg.Addr, err))
		}
	}
	if err := c.Mail(m.from.Address); err != nil {
		return classify(err)
	}
	if err := c.Rcpt(to.Address); err != nil {
		return classify(err)
	}
	w, err := c.Data()
	if err != nil {
		return classify(err)
	}
	if _, err := w.Write(body); err != nil {
		return classify(err)
	}
	if err := w.Close(); err != nil {
		return classify(err)
	}
	return c.Quit()
}

// resolve returns the address to dial for host, refusing private ones
// unless allowed; the checked address is the one dialled, so a name that
// resolves differently a moment later cannot slip past the check.
func (m *Mailer) resolve(ctx context.Context, host string) (netip.Addr, error) {
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil || len(addrs) == 0 {
		return netip.Addr{}, fmt.Errorf("mail relay %s: %v", m.cfg.Addr, err)
	}
	for _, a := range addrs {
		if !m.cfg.AllowPrivateNetwork && repourl.Blocked(a) {
			return netip.Addr{}, permanent(errors.New(MsgPrivateRelay))
		}
	}
	return addrs[0].Unmap(), nil
}

// helloName is the name docsd greets the relay with: the From domain.
func (m *Mailer) helloName() string {
	if _, domain, ok := strings.Cut(m.from.Address, "@"); ok && domain != "" {
		return domain
	}
	return "localhost"
}

// compose writes the message's headers and quoted-printable body.
func (m *Mailer) compose(to string, msg Message) ([]byte, error) {
	if strings.ContainsAny(msg.Subject, "\r\n") {
		return nil, errors.New("the subject has a line break")
	}
	var id [12]byte
	rand.Read(id[:])
	_, domain, _ := strings.Cut(m.from.Address, "@")
	var b bytes.Buffer
	header := func(k, v string) { fmt.Fprintf(&b, "%s: %s\r\n", k, v) }
	header("From", m.from.String())
	header("To", to)
	header("Subject", mime.QEncoding.Encode("utf-8", msg.Subject))
	header("Date", time.Now().UTC().Format(time.RFC1123Z))
	header("Message-ID", "<"+hex.EncodeToString(id[:])+"@"+domain+">")
	header("MIME-Version", "1.0")
	header("Content-Type", `text/plain; charset="utf-8"`)
	header("Content-Transfer-Encoding", "quoted-printable")
	b.WriteString("\r\n")
	qp := quotedprintable.NewWriter(&b)
	text := strings.ReplaceAll(strings.ReplaceAll(msg.Text, "\r\n", "\n"), "\n", "\r\n")
	if _, err := qp.Write([]byte(text)); err != nil {
		return nil, err
	}
	if err := qp.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// permanentError marks an error that trying again will not cure.
type permanentError struct{ err error }

func (e permanentError) Error() string { return e.err.Error() }
func (e permanentError) Unwrap() error { return e.err }

func permanent(err error) error { return permanentError{err} }

// classify marks an SMTP 5xx answer as permanent.
func classify(err error) error {
	var te *textproto.Error
	if errors.As(err, &te) && te.Code >= 500 {
		return permanent(err)
	}
	return err
}

// Permanent reports whether err, returned by Send, will not go away when
// the message is sent again.
func Permanent(err error) bool {
	var p permanentError
	return errors.As(err, &p)
}
