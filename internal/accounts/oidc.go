package accounts

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"docsd/internal/errs"
	"docsd/internal/slug"
	"docsd/store"
)

// OIDC paths: where the sign-in starts, and the redirect URI to register at
// the identity provider ({public_url} + CallbackPath).
const (
	OIDCLoginPath    = "/accounts/oidc/login/"
	OIDCCallbackPath = "/accounts/oidc/login/callback/"
	// OIDCCookie binds a sign-in to the browser that started it.
	OIDCCookie = "docsd_oidc"
)

// Timings of the OIDC client: each request to the identity provider, how
// long discovery is trusted, and how often an unknown key id may fetch the
// provider's keys again.
const (
	oidcRequestTimeout = 10 * time.Second
	discoveryLifetime  = time.Hour
	jwksRefetchEvery   = time.Minute
	// expiryLeeway is the clock skew allowed on exp; iatAhead how far in
	// the future iat may be.
	expiryLeeway = 60 * time.Second
	iatAhead     = 5 * time.Minute
)

// signingAlgs are the ID token signatures docsd accepts: never none or
// HMAC (the client secret is no key anyone should sign identities with).
var signingAlgs = []string{oidc.RS256, oidc.RS384, oidc.RS512, oidc.PS256, oidc.ES256, oidc.ES384, oidc.EdDSA}

// OIDCConfig is the install's one OpenID Provider and what docsd does with
// the people it signs in.
type OIDCConfig struct {
	Issuer       string // must equal the discovery document's issuer exactly
	ClientID     string
	ClientSecret string
	// Name completes the button's label "Sign in with <Name>".
	Name string
	// Scopes are sent as the scope parameter; openid is always first.
	Scopes []string
	// AllowedDomains are the email domains that may sign in (lower case);
	// empty: any.
	AllowedDomains []string
	// CreateUsers creates a user on a first sign-in that matches none.
	CreateUsers bool
	// AssumeEmailVerified takes email as verified when the provider sends
	// no email_verified claim at all.
	AssumeEmailVerified bool
	// EndSession sends the browser to the provider's end_session_endpoint
	// on sign-out.
	EndSession bool
	// PublicURL is docsd's public URL: the redirect URI and the page after
	// the provider's sign-out are made from it.
	PublicURL string
	// HTTPClient talks to the provider (default: a 10 s timeout).
	HTTPClient *http.Client
	Logger     *slog.Logger
	// FirstSignIn, when set, runs once when an identity is first linked to
	// a user (created or matched by email): organizations add the user to
	// the auto-join teams of the organization whose SSO domains hold the
	// email's domain.
	FirstSignIn func(ctx context.Context, u *store.User, email string) error
}

// OIDC signs people in with the configured OpenID Provider: the
// authorization code flow with PKCE, state, nonce and a browser-binding
// cookie, the ID token verified by go-oidc against the provider's keys.
// Discovery is fetched when first needed (docsd starts while the provider
// is down) and kept an hour.
type OIDC struct {
	cfg   OIDCConfig
	store *store.Store
	now   func() time.Time

	mu        sync.Mutex
	disc      *discovery // mu guards disc; nil until fetched
	discUntil time.Time
}

// discovery is what docsd read from the provider's discovery document.
type discovery struct {
	provider    *oidc.Provider
	keys        *keySet
	authMethods []string // token_endpoint_auth_methods_supported
	endSession  string   // end_session_endpoint, "" when none
}

// NewOIDC returns the OIDC sign-in of s with cfg.
func NewOIDC(s *store.Store, cfg OIDCConfig) *OIDC {
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: oidcRequestTimeout}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Name == "" {
		cfg.Name = "single sign-on"
	}
	return &OIDC{cfg: cfg, store: s, now: time.Now}
}

// SetClock replaces the clock of the ID token checks (tests).
func (o *OIDC) SetClock(now func() time.Time) { o.now = now }

// Name is the provider's name on the sign-in button.
func (o *OIDC) Name() string { return o.cfg.Name }

// The reasons of a failed OIDC sign-in (audit data.reason).
const (
	ReasonIdPUnreachable   = "idp-unreachable"
	ReasonStateMismatch    = "state-mismatch"
	ReasonIdPError         = "idp-error"
	ReasonInvalidIDToken   = "invalid-id-token"
	ReasonNoEmail          = "no-email"
	ReasonEmailUnverified  = "email-unverified"
	ReasonDomainNotAllowed = "domain-not-allowed"
	ReasonAmbiguousEmail   = "ambiguous-email"
	ReasonNoAccount        = "no-account"
	ReasonInactiveUser     = "inactive-user"
	ReasonTooManySignIns   = "too-many-sign-ins"
)

// SignInFailure is a refused OIDC sign-in: the page's status and message,
// the audit reason, and the email when the provider sent one.
type SignInFailure struct {
	Status  int
	Message string
	Reason  string
	Email   string
	User    *store.User // the matching user, when one was found
	Err     error       // the cause, for the log
}

func (f *SignInFailure) Error() string {
	if f.Err != nil {
		return f.Reason + ": " + f.Err.Error()
	}
	return f.Reason + ": " + f.Message
}
func (f *SignInFailure) Unwrap() error { return f.Err }

// signInFailures is the table of refused sign-ins: each reason's status
// and message (%s: the email, domain or provider's description).
var signInFailures = map[string]struct {
	status  int
	message string
}{
	ReasonIdPUnreachable:   {http.StatusBadGateway, "The identity provider could not be reached. Try again in a few minutes."},
	ReasonStateMismatch:    {http.StatusBadRequest, "This sign-in did not start in this browser, or took too long. Start again."},
	ReasonIdPError:         {http.StatusForbidden, "The identity provider refused the sign-in: %s."},
	ReasonInvalidIDToken:   {http.StatusBadGateway, "The identity provider's answer could not be verified."},
	ReasonNoEmail:          {http.StatusForbidden, "The identity provider did not share an email address."},
	ReasonEmailUnverified:  {http.StatusForbidden, "The identity provider has not verified the email address %s."},
	ReasonDomainNotAllowed: {http.StatusForbidden, "Email addresses at %s cannot sign in here."},
	ReasonAmbiguousEmail:   {http.StatusForbidden, "The email address %s cannot be matched to one account. Ask an administrator to link your account."},
	ReasonNoAccount:        {http.StatusForbidden, "No account uses %s. Ask an administrator to create one."},
	ReasonInactiveUser:     {http.StatusForbidden, "This account is inactive."},
	ReasonTooManySignIns:   {http.StatusTooManyRequests, "Too many sign-ins are waiting for the identity provider. Finish one, or start again in a few minutes."},
}

// failure builds the SignInFailure of reason; args fill the message's %s.
func failure(reason string, cause error, args ...any) *SignInFailure {
	f := signInFailures[reason]
	msg := f.message
	if len(args) > 0 {
		msg = fmt.Sprintf(msg, args...)
	}
	return &SignInFailure{Status: f.status, Message: msg, Reason: reason, Err: cause}
}

// randomToken is n random bytes in unpadded base64url.
func randomToken(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// Start begins a sign-in from client address client that returns to next
// (a path on this site): it stores a new flow and returns the provider's
// authorization URL and the browser binding for the OIDCCookie. A
// provider that cannot be reached, and a client or server with too many
// sign-ins waiting (store.MaxPendingOIDCFlowsPerClient,
// store.MaxPendingOIDCFlows), are a *SignInFailure.
func (o *OIDC) Start(ctx context.Context, next, client string) (authURL, binding string, err error) {
	d, err := o.discover(ctx)
	if err != nil {
		return "", "", err
	}
	var state, nonce string
	for _, p := range []*string{&state, &nonce, &binding} {
		if *p, err = randomToken(32); err != nil {
			return "", "", errs.Wrap(errs.Internal, "accounts.OIDC.Start", err)
		}
	}
	verifier := oauth2.GenerateVerifier()
	err = o.store.CreateOIDCFlow(ctx, store.OIDCFlow{State: state, Binding: binding, Nonce: nonce, CodeVerifier: verifier, Next: next, Client: client})
	if errors.Is(err, store.ErrTooManyOIDCFlows) {
		return "", "", failure(ReasonTooManySignIns, err)
	} else if err != nil {
		return "", "", err
	}
	return o.oauth2(d).AuthCodeURL(state, oidc.Nonce(nonce), oauth2.S256ChallengeOption(verifier)), binding, nil
}

// oauth2 is the OAuth 2.0 client of discovery d: client_secret_basic, or
// client_secret_post when the provider lists only that.
func (o *OIDC) oauth2(d *discovery) *oauth2.Config {
	ep := d.provider.Endpoint()
	ep.AuthStyle = oauth2.AuthStyleInHeader
	if len(d.authMethods) > 0 && !slices.Contains(d.authMethods, "client_secret_basic") && slices.Contains(d.authMethods, "client_secret_post") {
		ep.AuthStyle = oauth2.AuthStyleInParams
	}
	scopes := []string{oidc.ScopeOpenID}
	for _, s := range o.cfg.Scopes {
		if s != oidc.ScopeOpenID && !slices.Contains(scopes, s) {
			scopes = append(scopes, s)
		}
	}
	return &oauth2.Config{ClientID: o.cfg.ClientID, ClientSecret: o.cfg.ClientSecret, Endpoint: ep,
		RedirectURL: o.cfg.PublicURL + OIDCCallbackPath, Scopes: scopes}
}

// SignedIn is a finished OIDC sign-in.
type SignedIn struct {
	User    *store.User
	Session string // the dashboard session cookie's value
	Next    string
	Created bool // the user was created by this sign-in
}

// Finish completes the sign-in the provider sent back with query q, in the
// browser that holds binding (the OIDCCookie's value, "" when absent). It
// returns the new dashboard session, or a *SignInFailure saying why not
// (the table in signInFailures), or another error when docsd itself failed.
func (o *OIDC) Finish(ctx context.Context, q url.Values, binding string) (*SignedIn, error) {
	flow, err := o.store.ConsumeOIDCFlow(ctx, q.Get("state"), binding)
	if errs.Is(err, errs.NotFound) {
		return nil, failure(ReasonStateMismatch, err)
	} else if err != nil {
		return nil, err
	}
	if e := q.Get("error"); e != "" {
		desc := q.Get("error_description")
		if desc == "" {
			desc = e
		}
		return nil, failure(ReasonIdPError, nil, desc)
	}
	if q.Get("code") == "" {
		return nil, failure(ReasonStateMismatch, errors.New("no code"))
	}
	d, err := o.discover(ctx)
	if err != nil {
		return nil, err
	}
	hctx := oidc.ClientContext(ctx, o.cfg.HTTPClient)
	tok, err := o.oauth2(d).Exchange(hctx, q.Get("code"), oauth2.VerifierOption(flow.CodeVerifier))
	if err != nil {
		return nil, failure(ReasonIdPUnreachable, fmt.Errorf("token endpoint: %w", err))
	}
	rawID, _ := tok.Extra("id_token").(string)
	idt, err := o.verify(hctx, d, rawID, flow.Nonce)
	if err != nil {
		return nil, err
	}
	c, err := o.claims(hctx, d, idt, tok)
	if err != nil {
		return nil, err
	}
	return o.signIn(ctx, idt, c, rawID, flow.Next)
}

// verify checks the ID token's signature against the provider's keys and
// its claims: iss, aud, azp, exp, iat and nonce.
func (o *OIDC) verify(ctx context.Context, d *discovery, raw, nonce string) (*oidc.IDToken, error) {
	if raw == "" {
		return nil, failure(ReasonInvalidIDToken, errors.New("no id_token in the token response"))
	}
	// The signature first, with the key set's own errors: a key set that
	// cannot be fetched is the provider's failure, not the token's.
	if _, err := d.keys.VerifySignature(ctx, raw); err != nil {
		if errors.Is(err, errKeysUnreachable) {
			return nil, failure(ReasonIdPUnreachable, err)
		}
		return nil, failure(ReasonInvalidIDToken, err)
	}
	now := o.now()
	v := oidc.NewVerifier(o.cfg.Issuer, d.keys, &oidc.Config{ClientID: o.cfg.ClientID, SupportedSigningAlgs: signingAlgs,
		Now: func() time.Time { return now.Add(-expiryLeeway) }})
	idt, err := v.Verify(ctx, raw)
	if err != nil {
		return nil, failure(ReasonInvalidIDToken, err)
	}
	var extra struct {
		Azp string `json:"azp"`
	}
	if err := idt.Claims(&extra); err != nil {
		return nil, failure(ReasonInvalidIDToken, err)
	}
	switch {
	case extra.Azp != "" && extra.Azp != o.cfg.ClientID:
		return nil, failure(ReasonInvalidIDToken, fmt.Errorf("azp %q is not the client id", extra.Azp))
	case idt.IssuedAt.After(now.Add(iatAhead)):
		return nil, failure(ReasonInvalidIDToken, fmt.Errorf("iat %v is in the future", idt.IssuedAt))
	case idt.Nonce != nonce:
		return nil, failure(ReasonInvalidIDToken, errors.New("nonce is not the flow's"))
	}
	return idt, nil
}

// identityClaims are the claims docsd reads.
type identityClaims struct {
	Subject           string          `json:"sub"`
	Email             string          `json:"email"`
	EmailVerified     json.RawMessage `json:"email_verified"`
	PreferredUsername string          `json:"preferred_username"`
}

// verified reads email_verified: true or "true"; absent counts as
// assume.
func (c *identityClaims) verified(assume bool) bool {
	switch strings.TrimSpace(string(c.EmailVerified)) {
	case "true", `"true"`:
		return true
	case "", "null":
		return assume
	}
	return false
}

// claims reads the identity from the ID token, or from the userinfo
// endpoint when the ID token has no email (its sub must be the token's).
func (o *OIDC) claims(ctx context.Context, d *discovery, idt *oidc.IDToken, tok *oauth2.Token) (*identityClaims, error) {
	var c identityClaims
	if err := idt.Claims(&c); err != nil {
		return nil, failure(ReasonInvalidIDToken, err)
	}
	if c.Email != "" || d.provider.UserInfoEndpoint() == "" {
		return &c, nil
	}
	ui, err := d.provider.UserInfo(ctx, oauth2.StaticTokenSource(tok))
	if err != nil {
		return nil, failure(ReasonIdPUnreachable, fmt.Errorf("userinfo: %w", err))
	}
	var u identityClaims
	if err := ui.Claims(&u); err != nil {
		return nil, failure(ReasonIdPUnreachable, fmt.Errorf("userinfo: %w", err))
	}
	if u.Subject != idt.Subject {
		return nil, failure(ReasonInvalidIDToken, fmt.Errorf("userinfo sub %q is not the ID token's %q", u.Subject, idt.Subject))
	}
	c.Email, c.EmailVerified = u.Email, u.EmailVerified
	if c.PreferredUsername == "" {
		c.PreferredUsername = u.PreferredUsername
	}
	return &c, nil
}

// signIn applies the checks of a verified identity in their order (email
// present, verified, domain allowed, user found or created, user active)
// and opens the session.
func (o *OIDC) signIn(ctx context.Context, idt *oidc.IDToken, c *identityClaims, rawID, next string) (*SignedIn, error) {
	email := strings.TrimSpace(c.Email)
	if email == "" {
		return nil, failure(ReasonNoEmail, nil)
	}
	fail := func(reason string, u *store.User, args ...any) error {
		f := failure(reason, nil, args...)
		f.Email, f.User = email, u
		return f
	}
	if !c.verified(o.cfg.AssumeEmailVerified) {
		return nil, fail(ReasonEmailUnverified, nil, email)
	}
	domain := strings.ToLower(email[strings.LastIndex(email, "@")+1:])
	if len(o.cfg.AllowedDomains) > 0 && !slices.Contains(o.cfg.AllowedDomains, domain) {
		return nil, fail(ReasonDomainNotAllowed, nil, domain)
	}
	u, created, first, err := o.findOrCreate(ctx, idt, c, email)
	if f, ok := err.(*SignInFailure); ok {
		f.Email = email
		return nil, f
	} else if err != nil {
		return nil, err
	}
	if !u.IsActive {
		return nil, fail(ReasonInactiveUser, u)
	}
	if first && o.cfg.FirstSignIn != nil {
		if err := o.cfg.FirstSignIn(ctx, u, email); err != nil {
			return nil, err
		}
	}
	value, err := o.store.CreateDashboardSessionBy(ctx, u.ID, store.SessionByOIDC, rawID)
	if err != nil {
		return nil, err
	}
	return &SignedIn{User: u, Session: value, Next: next, Created: created}, nil
}

// findOrCreate finds the user of an identity, in this order: one already
// linked; else exactly one user whose verified email is the claim's,
// which is then linked; else, when no user has that email and creating is
// on, a new user. first reports that the identity was linked just now.
func (o *OIDC) findOrCreate(ctx context.Context, idt *oidc.IDToken, c *identityClaims, email string) (u *store.User, created, first bool, err error) {
	u, err = o.store.FindUserByIdentity(ctx, o.cfg.Issuer, idt.Subject)
	if err == nil {
		return u, false, false, nil
	} else if !errs.Is(err, errs.NotFound) {
		return nil, false, false, err
	}
	users, err := o.store.FindUsersByEmail(ctx, email)
	if err != nil {
		return nil, false, false, err
	}
	switch {
	case len(users) == 1 && users[0].EmailVerified:
		if err := o.store.LinkUserIdentity(ctx, users[0].ID, o.cfg.Issuer, idt.Subject); err != nil {
			return nil, false, false, err
		}
		return users[0], false, true, nil
	case len(users) > 0:
		return nil, false, false, failure(ReasonAmbiguousEmail, nil, email)
	case !o.cfg.CreateUsers:
		return nil, false, false, failure(ReasonNoAccount, nil, email)
	}
	preferred := c.PreferredUsername
	if !ValidUsername(preferred) {
		preferred = ""
	}
	fallback := slug.Project(email[:strings.LastIndex(email, "@")])
	if fallback == "" {
		fallback = "user"
	}
	u, err = o.store.CreateIdentityUser(ctx, store.NewIdentityUser{Username: preferred, Fallback: fallback,
		Email: email, Issuer: o.cfg.Issuer, Subject: idt.Subject})
	if err != nil {
		return nil, false, false, err
	}
	return u, true, true, nil
}

// usernamePattern is the rule of a new username: 1–150 letters, digits
// and @ . + - _.
var usernamePattern = regexp.MustCompile(`^[\p{L}\p{N}@.+\-_]{1,150}$`)

// ValidUsername reports whether name may be a new user's username.
func ValidUsername(name string) bool { return usernamePattern.MatchString(name) }

// EndSessionURL is where sign-out sends a browser whose session was made
// by OIDC with ID token idToken: the provider's end_session_endpoint with
// id_token_hint, client_id and post_logout_redirect_uri, when
// --oidc-end-session is on and the provider has one ("" otherwise).
func (o *OIDC) EndSessionURL(ctx context.Context, idToken string) string {
	if !o.cfg.EndSession || idToken == "" {
		return ""
	}
	d, err := o.discover(ctx)
	if err != nil || d.endSession == "" {
		return ""
	}
	u, err := url.Parse(d.endSession)
	if err != nil {
		return ""
	}
	q := u.Query()
	q.Set("id_token_hint", idToken)
	q.Set("client_id", o.cfg.ClientID)
	q.Set("post_logout_redirect_uri", o.cfg.PublicURL+"/accounts/login/")
	u.RawQuery = q.Encode()
	return u.String()
}

// discover returns the provider's discovery, fetched at most once an hour
// while it succeeds; its issuer must be the configured one exactly.
func (o *OIDC) discover(ctx context.Context) (*discovery, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.disc != nil && time.Now().Before(o.discUntil) {
		return o.disc, nil
	}
	hctx := oidc.ClientContext(ctx, o.cfg.HTTPClient)
	p, err := oidc.NewProvider(hctx, o.cfg.Issuer)
	if err != nil {
		o.cfg.Logger.WarnContext(ctx, "oidc: discovery failed", "issuer", o.cfg.Issuer, "err", err)
		return nil, failure(ReasonIdPUnreachable, fmt.Errorf("discovery: %w", err))
	}
	var meta struct {
		JWKSURI     string   `json:"jwks_uri"`
		AuthMethods []string `json:"token_endpoint_auth_methods_supported"`
		EndSession  string   `json:"end_session_endpoint"`
	}
	if err := p.Claims(&meta); err != nil || meta.JWKSURI == "" {
		o.cfg.Logger.WarnContext(ctx, "oidc: discovery has no jwks_uri", "issuer", o.cfg.Issuer, "err", err)
		return nil, failure(ReasonIdPUnreachable, errors.New("discovery: no jwks_uri"))
	}
	keys := &keySet{url: meta.JWKSURI, client: o.cfg.HTTPClient}
	if o.disc != nil && o.disc.keys.url == meta.JWKSURI {
		keys = o.disc.keys
	}
	o.disc = &discovery{provider: p, keys: keys, authMethods: meta.AuthMethods, endSession: meta.EndSession}
	o.discUntil = time.Now().Add(discoveryLifetime)
	return o.disc, nil
}
