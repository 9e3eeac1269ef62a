// Package accounts signs people in to the dashboard: passwords (bcrypt),
// browser sessions, their CSRF tokens, and the throttle on failed sign-ins.
// It is the only code that reads a session cookie, for the dashboard's
// pages and for /graphql alike.
package accounts

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"sync"
	"time"

	"golang.org/x/crypto/bcrypt"

	"docsd/internal/access"
	"docsd/internal/errs"
	"docsd/store"
)

// Names of the session cookie, the CSRF header /graphql requires with it,
// and the CSRF form field of the dashboard's forms.
const (
	SessionCookie = "docsd_session"
	CSRFHeader    = "X-CSRFToken"
	CSRFField     = "csrfmiddlewaretoken"
)

// MsgBadCredentials is the one answer to a failed sign-in: it never says
// whether the user exists.
const MsgBadCredentials = "Please enter a correct username and password. Note that both fields may be case-sensitive."

// Defaults of the sign-in throttle: FailureLimit failed sign-ins of one
// username from one address within FailureWindow refuse further tries
// until the window has passed.
const (
	FailureLimit  = 5
	FailureWindow = 15 * time.Minute
)

// minPasswordLength and maxPasswordBytes bound a password (bcrypt reads at
// most 72 bytes).
const (
	minPasswordLength = 8
	maxPasswordBytes  = 72
)

// Accounts holds the store and the failed sign-in counts of this process.
type Accounts struct {
	store *store.Store
	now   func() time.Time
	limit int

	mu       sync.Mutex
	failures map[string]failures // mu guards failures; by username and client address

	// passwords is who may sign in with a password (PasswordsOn when "");
	// ssoName names the single sign-on in refusals.
	passwords, ssoName string
	// invitationSignUp: an email invitation may create an account.
	invitationSignUp bool
	// ssoRequired, when set, returns the SSO domain of an organization
	// that requires single sign-on of u ("" when none does).
	ssoRequired func(ctx context.Context, u *store.User) (string, error)
}

// Who may sign in with a password (--password-sign-in).
const (
	PasswordsOn         = "on"
	PasswordsSuperusers = "superusers"
	PasswordsOff        = "off"
)

// PasswordModes lists the values of --password-sign-in.
var PasswordModes = []string{PasswordsOn, PasswordsSuperusers, PasswordsOff}

// Reasons of a correct password refused (audit data.reason, and the
// "reason" detail of SignIn's Forbidden error).
const (
	ReasonPasswordSignInOff = "password-sign-in-off"
	ReasonSSORequired       = "sso-required"
)

// SetPasswordSignIn sets who may sign in with a password (PasswordsOn,
// PasswordsSuperusers, PasswordsOff) and the single sign-on's name the
// refusals point to.
func (a *Accounts) SetPasswordSignIn(mode, ssoName string) { a.passwords, a.ssoName = mode, ssoName }

// SetSSORequired installs the check of organizations that require single
// sign-on: fn returns the SSO domain that requires it of u, or "".
// Superusers are never asked.
func (a *Accounts) SetSSORequired(fn func(ctx context.Context, u *store.User) (string, error)) {
	a.ssoRequired = fn
}

// PasswordsOff reports whether password sign-in is turned off.
func (a *Accounts) PasswordsOff() bool { return a.passwords == PasswordsOff }

// refused is SignIn's Forbidden answer to a password it will not take.
func refused(op, reason, msg string) error {
	return &errs.Error{Kind: errs.Forbidden, Op: op, Message: msg, Details: map[string]any{"reason": reason}}
}

// failures counts a key's failed sign-ins since the first of them.
type failures struct {
	n     int
	since time.Time
}

// New returns the accounts of s with the default throttle.
func New(s *store.Store) *Accounts {
	return &Accounts{store: s, now: time.Now, limit: FailureLimit, failures: map[string]failures{}}
}

// SetClock replaces the throttle's clock (tests).
func (a *Accounts) SetClock(now func() time.Time) { a.now = now }

// SetPassword hashes password with bcrypt and stores it for the user; every
// dashboard session of the user ends. A password shorter than 8 characters
// or longer than 72 bytes is Invalid; an unknown user is NotFound.
func (a *Accounts) SetPassword(ctx context.Context, username, password string) error {
	const op = "accounts.SetPassword"
	if msg := passwordProblem(password); msg != "" {
		return errs.FieldError(op, "password", msg)
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.DefaultCost)
	if err != nil {
		return errs.Wrap(errs.Internal, op, err)
	}
	return a.store.SetUserPasswordHash(ctx, username, string(hash))
}

// passwordProblem is what is wrong with a new password ("" when nothing
// is): shorter than 8 characters, or longer than 72 bytes.
func passwordProblem(password string) string {
	switch {
	case len([]rune(password)) < minPasswordLength:
		return fmt.Sprintf("This password is too short. It must contain at least %d characters.", minPasswordLength)
	case len(password) > maxPasswordBytes:
		return fmt.Sprintf("This password is too long. It must contain at most %d bytes.", maxPasswordBytes)
	}
	return ""
}

// ThrottledError is SignIn's answer while a username and address are
// throttled; Wait is how long until the next try is accepted.
type ThrottledError struct {
	Wait time.Duration
	err  error
}

func (e *ThrottledError) Error() string { return e.err.Error() }
func (e *ThrottledError) Unwrap() error { return e.err }

// dummyHash is compared against when the user does not exist, so a sign-in
// takes as long for a missing user as for a wrong password.
var dummyHash, _ = bcrypt.GenerateFromPassword([]byte("docsd: no such user"), bcrypt.DefaultCost)

// SignIn checks a username and password and opens a session, returning its
// cookie value. A wrong username or password, an inactive user and a user
// without a password are all Unauthenticated with MsgBadCredentials. After
// FailureLimit failures of the same username from the same client address
// within FailureWindow, it refuses with a *ThrottledError (Forbidden) without
// checking the password. A password sign-in the settings or the user's
// organization forbid is Forbidden with the reason in Details["reason"]
// (ReasonPasswordSignInOff, ReasonSSORequired): with PasswordsOff before
// anything is checked, otherwise after the password proved correct.
func (a *Accounts) SignIn(ctx context.Context, username, password, client string) (string, error) {
	_, value, err := a.SignInUser(ctx, username, password, client)
	return value, err
}

// SignInUser is SignIn that also returns the user the username names, when
// one does (nil otherwise), for the audit log.
func (a *Accounts) SignInUser(ctx context.Context, username, password, client string) (*store.User, string, error) {
	const op = "accounts.SignIn"
	if a.passwords == PasswordsOff {
		return nil, "", refused(op, ReasonPasswordSignInOff,
			fmt.Sprintf("Password sign-in is turned off on this server: sign in with %s.", a.ssoName))
	}
	key := username + "\x00" + client
	if wait := a.wait(key); wait > 0 {
		mins := int((wait + time.Minute - 1) / time.Minute)
		return nil, "", &ThrottledError{Wait: wait, err: errs.E(errs.Forbidden, op,
			fmt.Sprintf("Too many failed sign-ins for this account from your address. Try again in %d minute%s.", mins, plural(mins)))}
	}
	u, hash, err := a.store.FindUserPasswordHash(ctx, username)
	if err != nil && !errs.Is(err, errs.NotFound) && !errs.Is(err, errs.Invalid) {
		return nil, "", err
	}
	if err != nil || hash == "" {
		bcrypt.CompareHashAndPassword(dummyHash, []byte(password))
		a.fail(key)
		if err != nil {
			u = nil
		}
		return u, "", errs.E(errs.Unauthenticated, op, MsgBadCredentials)
	}
	if bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) != nil || !u.IsActive {
		a.fail(key)
		return u, "", errs.E(errs.Unauthenticated, op, MsgBadCredentials)
	}
	a.forget(key)
	if a.passwords == PasswordsSuperusers && !u.IsSuperuser {
		return u, "", refused(op, ReasonPasswordSignInOff,
			fmt.Sprintf("Password sign-in is reserved for administrators on this server: sign in with %s.", a.ssoName))
	}
	if a.ssoRequired != nil && !u.IsSuperuser {
		domain, err := a.ssoRequired(ctx, u)
		if err != nil {
			return u, "", err
		}
		if domain != "" {
			return u, "", refused(op, ReasonSSORequired,
				fmt.Sprintf("Accounts with an email address at %s must sign in with %s.", domain, a.ssoName))
		}
	}
	value, err := a.store.CreateDashboardSession(ctx, u.ID)
	return u, value, err
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// wait returns how long key must wait before its next try (0: now).
func (a *Accounts) wait(key string) time.Duration {
	now := a.now()
	a.mu.Lock()
	defer a.mu.Unlock()
	f, ok := a.failures[key]
	if !ok {
		return 0
	}
	if end := f.since.Add(FailureWindow); !now.Before(end) {
		delete(a.failures, key)
		return 0
	} else if f.n >= a.limit {
		return end.Sub(now)
	}
	return 0
}

// fail records a failed sign-in of key.
func (a *Accounts) fail(key string) {
	now := a.now()
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.failures) > 100000 { // bound the memory a flood of names can take
		for k, f := range a.failures {
			if !now.Before(f.since.Add(FailureWindow)) {
				delete(a.failures, k)
			}
		}
	}
	f, ok := a.failures[key]
	if !ok || !now.Before(f.since.Add(FailureWindow)) {
		f = failures{since: now}
	}
	f.n++
	a.failures[key] = f
}

// forget clears key's failures after a successful sign-in.
func (a *Accounts) forget(key string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.failures, key)
}

// SignOut ends the session with cookie value value and returns how it was
// made (nil when it was unknown or had expired).
func (a *Accounts) SignOut(ctx context.Context, value string) (*store.DashboardSession, error) {
	d, err := a.store.FindDashboardSession(ctx, value)
	if err != nil && !errs.Is(err, errs.NotFound) {
		return nil, err
	}
	if err != nil {
		d = nil
	}
	return d, a.store.DeleteDashboardSession(ctx, value)
}

// SessionLifetime is how long a dashboard sign-in lasts.
const SessionLifetime = store.DashboardSessionLifetime

// SessionUser returns the active user of the session with cookie value
// value. An unknown or expired session, or one of an inactive user, is
// Unauthenticated (access.DashboardSession).
func (a *Accounts) SessionUser(ctx context.Context, value string) (*store.User, error) {
	v, err := access.DashboardSession(ctx, a.store, value)
	return v.User, err
}

// CSRFToken is the CSRF token of the session with cookie value value: an
// HMAC of a fixed text keyed by the value, so only someone who holds the
// (HttpOnly) cookie's value or a page the dashboard rendered for it knows
// it, and it dies with the session.
func CSRFToken(value string) string {
	m := hmac.New(sha256.New, []byte(value))
	m.Write([]byte("docsd dashboard csrf"))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// ValidCSRF reports whether token is the CSRF token of session value.
func ValidCSRF(value, token string) bool {
	return value != "" && token != "" && hmac.Equal([]byte(CSRFToken(value)), []byte(token))
}

// SessionValue returns the session cookie's value of r ("" without one).
func SessionValue(r *http.Request) string {
	c, err := r.Cookie(SessionCookie)
	if err != nil {
		return ""
	}
	return c.Value
}

// GraphQLUser is the session rule of /graphql: a request without the
// session cookie, or with it but without the CSRF header, runs as
// anonymous (nil, nil) — a cross-site request can send the cookie but not
// the header. With the header, the session must be live and the header
// its CSRF token, or the request is Unauthenticated.
func (a *Accounts) GraphQLUser(r *http.Request) (*store.User, error) {
	const op = "accounts.GraphQLUser"
	value, token := SessionValue(r), r.Header.Get(CSRFHeader)
	if value == "" || token == "" {
		return nil, nil
	}
	if !ValidCSRF(value, token) {
		return nil, errs.E(errs.Unauthenticated, op, "CSRF token missing or incorrect.")
	}
	return a.SessionUser(r.Context(), value)
}

// Audit actions of signing in, signing up and signing out.
const (
	ActionAuthentication        = "authentication"
	ActionAuthenticationFailure = "authentication-failure"
	ActionLogOut                = "log-out"
	// ActionInvitationAccepted: an invitation accepted by signing up.
	ActionInvitationAccepted = store.AuditInvitationAccepted
)

// AuditEvent is a sign-in, a refused sign-in, a sign-out or an invitation
// accepted by signing up, as the audit log records it: User is the
// matching user (nil when none), Username the name as typed or the
// identity provider's email, AuthBackend "password" or "oidc", Data the
// entry's data (the reason of a refusal).
type AuditEvent struct {
	Action      string
	AuthBackend string
	User        *store.User
	Username    string
	Data        map[string]any
	// Invitation is the invitation accepted by signing up, for the
	// invitation-accepted entry (recorded against its target).
	Invitation *store.Invitation
}

// How a dashboard session was made (AuditEvent.AuthBackend).
const (
	BackendPassword = store.SessionByPassword
	BackendOIDC     = store.SessionByOIDC
)

// OIDCFlowLifetime is how long a single sign-on may take at the identity
// provider: the browser binding cookie's Max-Age.
const OIDCFlowLifetime = store.OIDCFlowLifetime

// DocsLoginCode makes the one-time code of a sign-in hand-off from the
// dashboard session with cookie value sessionValue to docs host host,
// bound to the browser's state (store.CreateDocsLoginCode).
func (a *Accounts) DocsLoginCode(ctx context.Context, sessionValue, host, state string) (string, error) {
	return a.store.CreateDocsLoginCode(ctx, sessionValue, host, state)
}
