package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"docsd/internal/accounts"
	"docsd/internal/audit"
)

// oidcSettings are the settings of sign-in with the install's OpenID
// Provider (see docs/operations/single-sign-on.md) and of password
// sign-in.
type oidcSettings struct {
	OIDCIssuer              string
	OIDCClientID            string
	OIDCClientSecret        string // the secret, or the path of a file holding it
	OIDCName                string
	OIDCScopes              string
	OIDCAllowedDomains      string
	OIDCCreateUsers         bool
	OIDCAssumeEmailVerified bool
	OIDCEndSession          bool
	PasswordSignIn          string

	oidcClientSecret   string   // the secret itself
	oidcScopes         []string // parsed OIDCScopes
	oidcAllowedDomains []string // parsed OIDCAllowedDomains, lower case
}

// register declares the settings.
func (o *oidcSettings) register(str func(*string, string, string, string), boolean func(*bool, string, bool, string)) {
	str(&o.OIDCIssuer, "oidc-issuer", "", "OpenID Connect issuer URL of the identity provider people sign in with (https://login.acme.example/realms/staff); empty: single sign-on off")
	str(&o.OIDCClientID, "oidc-client-id", "", "client id docsd is registered with at the identity provider")
	str(&o.OIDCClientSecret, "oidc-client-secret", "", "client secret, or the path of a file holding it")
	str(&o.OIDCName, "oidc-name", "single sign-on", "name of the identity provider on the sign-in button: Sign in with <name>")
	str(&o.OIDCScopes, "oidc-scopes", "openid email profile", "space-separated scopes asked of the identity provider (openid is always sent)")
	str(&o.OIDCAllowedDomains, "oidc-allowed-domains", "", "comma-separated email domains that may sign in through the identity provider (exact, case-insensitive; subdomains not included); empty: any")
	boolean(&o.OIDCCreateUsers, "oidc-create-users", true, "create a docsd user on a first single sign-on that matches no user")
	boolean(&o.OIDCAssumeEmailVerified, "oidc-assume-email-verified", false, "take the email as verified when the identity provider sends no email_verified claim (for providers that never send it)")
	boolean(&o.OIDCEndSession, "oidc-end-session", false, "signing out of a single sign-on session also signs out at the identity provider (its end_session_endpoint)")
	str(&o.PasswordSignIn, "password-sign-in", accounts.PasswordsOn, "who may sign in with a password: on, superusers (only superusers) or off; other than on needs --oidc-issuer")
}

// resolveOIDC checks the settings: an issuer needs a client id and
// secret, the others mean nothing without an issuer, and password sign-in
// may be limited only when single sign-on exists.
func (s *Settings) resolveOIDC() error {
	o := &s.oidcSettings
	if o.PasswordSignIn == "" {
		o.PasswordSignIn = accounts.PasswordsOn
	}
	if !slices.Contains(accounts.PasswordModes, o.PasswordSignIn) {
		return fmt.Errorf("--password-sign-in: %q must be one of %s", o.PasswordSignIn, strings.Join(accounts.PasswordModes, ", "))
	}
	if o.OIDCIssuer == "" {
		for flag, given := range map[string]bool{"oidc-client-id": o.OIDCClientID != "", "oidc-client-secret": o.OIDCClientSecret != "",
			"oidc-allowed-domains": o.OIDCAllowedDomains != "", "oidc-end-session": o.OIDCEndSession} {
			if given {
				return fmt.Errorf("--%s: needs --oidc-issuer", flag)
			}
		}
		if o.PasswordSignIn != accounts.PasswordsOn {
			return fmt.Errorf("--password-sign-in: %s needs --oidc-issuer: without single sign-on nobody else could sign in", o.PasswordSignIn)
		}
		return nil
	}
	if err := checkIssuer(o.OIDCIssuer); err != nil {
		return fmt.Errorf("--oidc-issuer: %v", err)
	}
	if strings.TrimSpace(o.OIDCClientID) == "" {
		return fmt.Errorf("--oidc-issuer: needs --oidc-client-id")
	}
	secret, err := readSecret(o.OIDCClientSecret)
	if err != nil {
		return fmt.Errorf("--oidc-client-secret: %v", err)
	}
	if secret == "" {
		return fmt.Errorf("--oidc-issuer: needs --oidc-client-secret")
	}
	o.oidcClientSecret = secret
	if o.OIDCName = strings.TrimSpace(o.OIDCName); o.OIDCName == "" || len([]rune(o.OIDCName)) > 64 {
		return fmt.Errorf("--oidc-name: must be 1 to 64 characters")
	}
	o.oidcScopes = nil
	for _, sc := range strings.Fields(o.OIDCScopes) {
		if strings.ContainsFunc(sc, func(r rune) bool { return r < 0x21 || r == '"' || r == '\\' || r > 0x7e }) {
			return fmt.Errorf("--oidc-scopes: %q is not a scope (printable ASCII, no \" or \\)", sc)
		}
		o.oidcScopes = append(o.oidcScopes, sc)
	}
	o.oidcAllowedDomains = nil
	for _, d := range strings.Split(o.OIDCAllowedDomains, ",") {
		d = strings.ToLower(strings.TrimSpace(d))
		if d == "" {
			continue
		}
		if !validDomain(d) {
			return fmt.Errorf("--oidc-allowed-domains: %q is not a domain name (acme.example; no @, no wildcard)", d)
		}
		o.oidcAllowedDomains = append(o.oidcAllowedDomains, d)
	}
	return nil
}

// checkIssuer accepts an https:// issuer, or an http:// one on this
// machine's loopback (a provider on the same host, tests): ID tokens and
// keys must not cross a network unprotected.
func checkIssuer(issuer string) error {
	u, err := url.Parse(issuer)
	if err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("%q is not an issuer URL (https://host[/path])", issuer)
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		host := u.Hostname()
		if ip := net.ParseIP(host); host == "localhost" || (ip != nil && ip.IsLoopback()) {
			return nil
		}
	}
	return fmt.Errorf("%q must be an https:// URL (http:// only on localhost)", issuer)
}

// validDomain reports whether d is a plain domain name of two labels or
// more: letters, digits and inner hyphens.
func validDomain(d string) bool {
	labels := strings.Split(d, ".")
	if len(labels) < 2 || len(d) > 253 {
		return false
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 || strings.HasPrefix(l, "-") || strings.HasSuffix(l, "-") {
			return false
		}
		for _, r := range l {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r > 0x7f) {
				return false
			}
		}
	}
	return true
}

// newOIDC returns the single sign-on of these settings, nil when it is
// off.
func (a *app) newOIDC() *accounts.OIDC {
	o := &a.settings.oidcSettings
	if o.OIDCIssuer == "" {
		return nil
	}
	return accounts.NewOIDC(a.store, accounts.OIDCConfig{
		Issuer: o.OIDCIssuer, ClientID: o.OIDCClientID, ClientSecret: o.oidcClientSecret, Name: o.OIDCName,
		Scopes: o.oidcScopes, AllowedDomains: o.oidcAllowedDomains, CreateUsers: o.OIDCCreateUsers,
		AssumeEmailVerified: o.OIDCAssumeEmailVerified, EndSession: o.OIDCEndSession,
		PublicURL: a.settings.PublicURL, Logger: a.logger,
		// The first sign-in joins the auto-join teams of the organization
		// whose SSO domains hold the email's domain.
		FirstSignIn: a.resolver.JoinAutoJoinTeams,
	})
}

// recordSignIn records a dashboard sign-in, refused sign-in, sign-out or
// an invitation accepted by signing up in the audit log; the request's client address, browser and path come
// from its context (audit.Middleware).
func (a *app) recordSignIn(r *http.Request, e accounts.AuditEvent) {
	if e.Invitation != nil {
		a.audit.RecordInvitation(context.WithoutCancel(r.Context()), e.Action, e.User, e.AuthBackend, e.Invitation)
		return
	}
	ev := audit.Event{Action: e.Action, User: e.User, Username: e.Username, AuthBackend: e.AuthBackend}
	if len(e.Data) > 0 {
		ev.Data = e.Data
	}
	a.audit.Record(context.WithoutCancel(r.Context()), ev)
}
