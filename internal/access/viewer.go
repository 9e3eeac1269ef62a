// Package access decides who the caller is and what they may see and
// change. Every surface asks it: the API (GraphQL, and REST through it),
// the dashboard (through GraphQL), the docs host (pages, downloads, the
// addons and footer data) and search. Nothing else implements a
// visibility rule; store's list filters (store.Visibility) are the SQL
// form of the same rule, built here (Rights.Visibility).
//
// A decision has three inputs: the Viewer (who, and how they proved it),
// the Surface (superusers read every object through the API, and nothing
// more than anyone else on the docs host), and the viewer's Role on the
// project, read from Roles. See docs/contributing/architecture.md.
package access

import (
	"context"
	"encoding/base64"
	"strings"
	"time"
	"unicode/utf8"

	"docsd/internal/errs"
	"docsd/store"
)

// Viewer is who a request or an operation runs as.
type Viewer struct {
	User   *store.User // nil for an anonymous caller
	System bool        // the admin CLI: every permission check passes
	// Auth is how User proved who they are; a few operations (managing
	// API keys) depend on it.
	Auth AuthMethod
	// TokenHash is the stored hash (store.HashToken) of the API key the
	// caller sent, when Auth is AuthToken.
	TokenHash string
	// Shares are the sharing methods whose grants the caller holds on the
	// docs host (a redeemed link or password, or a sharing token sent in
	// the request); each lets it read its project's covered versions
	// there, and nothing on any other surface.
	Shares []*store.SharingMethod
	// ShareAuth is how the caller holds Shares: AuthSharingToken,
	// AuthSharingPassword or AuthSharingHeader.
	ShareAuth AuthMethod
	// Projects, when not nil, are the only projects the viewer holds a
	// role on: a docs cookie acts for its user only on its host's
	// projects, so that a page of another project's subdomain gains
	// nothing from it.
	Projects []int64
}

// AuthMethod is how a viewer authenticated.
type AuthMethod int

const (
	// AuthUnknown: anonymous, the system, or a context made by WithUser
	// that does not say; trusted with nothing that needs a sign-in.
	AuthUnknown AuthMethod = iota
	// AuthToken: an API key (`Authorization: Token`), in a header or a
	// WebSocket's connection_init payload.
	AuthToken
	// AuthSession: a dashboard session (a password sign-in).
	AuthSession
	// AuthDocsSession: the docs host's session cookie, which an API key
	// bought on the project's docs subdomain.
	AuthDocsSession
	// AuthSharingToken: a sharing link's grant cookie.
	AuthSharingToken
	// AuthSharingPassword: a sharing password's grant cookie.
	AuthSharingPassword
	// AuthSharingHeader: a sharing token sent as `Authorization: Token`
	// (or HTTP Basic) on a docs request.
	AuthSharingHeader
	// AuthDashboardHandoff: a docs session made from a dashboard session
	// by the sign-in hand-off (the audit log's name for that sign-in;
	// requests with the session it made are AuthDocsSession).
	AuthDashboardHandoff
)

// Backend is the audit log's name of the method ("" for AuthUnknown).
func (m AuthMethod) Backend() string {
	switch m {
	case AuthToken:
		return "token"
	case AuthSession:
		return "password"
	case AuthDocsSession:
		return "docs-session"
	case AuthSharingToken:
		return "sharing-token"
	case AuthSharingPassword:
		return "sharing-password"
	case AuthSharingHeader:
		return "sharing-header"
	case AuthDashboardHandoff:
		return "dashboard-session"
	}
	return ""
}

// UserID is the viewer's user id, 0 when anonymous.
func (v Viewer) UserID() int64 {
	if v.User == nil {
		return 0
	}
	return v.User.ID
}

// SeesAll reports whether the viewer reads every object through the API:
// superusers and the system. It gives no right to write, and none on the
// docs host (Rights).
func (v Viewer) SeesAll() bool { return v.System || (v.User != nil && v.User.IsSuperuser) }

type viewerKey struct{}

// WithViewer returns a context in which operations run as v.
func WithViewer(ctx context.Context, v Viewer) context.Context {
	return context.WithValue(ctx, viewerKey{}, v)
}

// WithUser returns a context in which operations run as u (nil: anonymous),
// with no authentication method (AuthUnknown).
func WithUser(ctx context.Context, u *store.User) context.Context {
	return WithViewer(ctx, Viewer{User: u})
}

// WithSession returns a context in which operations run as u, signed in
// to the dashboard with a password (AuthSession); nil u is anonymous.
func WithSession(ctx context.Context, u *store.User) context.Context {
	return WithViewer(ctx, SessionViewer(u))
}

// WithSystem returns a context in which operations run with every
// permission, as the admin CLI does. No HTTP request ever gets it.
func WithSystem(ctx context.Context) context.Context {
	return WithViewer(ctx, Viewer{System: true})
}

// ViewerFrom returns the context's viewer (anonymous when none was set).
func ViewerFrom(ctx context.Context) Viewer {
	v, _ := ctx.Value(viewerKey{}).(Viewer)
	return v
}

// SessionViewer is the viewer of a dashboard session of u; nil u is
// anonymous.
func SessionViewer(u *store.User) Viewer {
	if u == nil {
		return Viewer{}
	}
	return Viewer{User: u, Auth: AuthSession}
}

// Users is what identifying a viewer reads; *store.Store is one.
type Users interface {
	FindUserByToken(ctx context.Context, key string) (*store.User, error)
	FindUserByDocsSession(ctx context.Context, value, host string) (*store.User, error)
	FindUserByDashboardSession(ctx context.Context, value string) (*store.User, error)
	FindSharingMethodByToken(ctx context.Context, token string) (*store.SharingMethod, error)
	FindSharingGrants(ctx context.Context, cookie string) ([]*store.SharingMethod, error)
}

// MsgSessionExpired is the message of a dashboard session that is not (or
// no longer) live.
const MsgSessionExpired = "Your session has expired. Please sign in again."

// Authenticate reads an `Authorization` header value as Read the Docs
// does: `Token <key>`, the scheme in any case. It returns the zero Viewer
// for an anonymous caller (no header, or another scheme), the key's user
// with AuthToken and the key's hash for a good key, and an Unauthenticated
// error carrying Read the Docs' exact message otherwise (no key, spaces in
// it, characters outside Latin-1, an unknown key, an inactive user). A
// wrong key never reveals whether a user exists.
func Authenticate(ctx context.Context, users Users, header string) (Viewer, error) {
	const op = "access.Authenticate"
	fields := strings.Fields(header)
	if len(fields) == 0 || !strings.EqualFold(fields[0], "token") {
		return Viewer{}, nil
	}
	switch {
	case len(fields) == 1:
		return Viewer{}, errs.E(errs.Unauthenticated, op, errs.MsgTokenNoCreds)
	case len(fields) > 2:
		return Viewer{}, errs.E(errs.Unauthenticated, op, errs.MsgTokenSpaces)
	}
	key := fields[1]
	if !latin1(key) {
		return Viewer{}, errs.E(errs.Unauthenticated, op, errs.MsgTokenBadChars)
	}
	u, err := users.FindUserByToken(ctx, key)
	if errs.Is(err, errs.NotFound) {
		return Viewer{}, errs.E(errs.Unauthenticated, op, errs.MsgInvalidToken)
	}
	if err != nil {
		return Viewer{}, err
	}
	if !u.IsActive {
		return Viewer{}, errs.E(errs.Unauthenticated, op, errs.MsgInactiveUser)
	}
	return Viewer{User: u, Auth: AuthToken, TokenHash: store.HashToken(key)}, nil
}

// DocsReader identifies the reader of a docs-host request. A sharing
// token of type http_header_token sent as `Authorization: Token <t>` or
// as HTTP Basic (the token as user name, empty password) grants that
// request its method (AuthSharingHeader), nothing more. Otherwise a
// header of the form `Token <key>` decides alone: the key's active user,
// or anonymous for any bad key (private docs answer the same 404 either
// way, so the docs host never says why a key failed). Without one, the
// reader is session's viewer (the docs session cookie, DocsSession), read
// only then.
func DocsReader(ctx context.Context, users Users, header string, session func() (Viewer, error)) (Viewer, error) {
	if m, err := SharingHeader(ctx, users, header); err != nil || m != nil {
		if m == nil {
			return Viewer{}, err
		}
		return Viewer{Shares: []*store.SharingMethod{m}, ShareAuth: AuthSharingHeader}, nil
	}
	fields := strings.Fields(header)
	if len(fields) != 2 || !strings.EqualFold(fields[0], "token") {
		return session()
	}
	v, err := Authenticate(ctx, users, header)
	if errs.Is(err, errs.Unauthenticated) {
		return Viewer{}, nil
	}
	return v, err
}

// SharingHeader returns the live http_header_token sharing method whose
// token an `Authorization` header value carries (`Token <t>`, or Basic
// with the token as user name and an empty password), nil when it carries
// none.
func SharingHeader(ctx context.Context, users Users, header string) (*store.SharingMethod, error) {
	fields := strings.Fields(header)
	if len(fields) != 2 {
		return nil, nil
	}
	var tok string
	switch {
	case strings.EqualFold(fields[0], "token"):
		tok = fields[1]
	case strings.EqualFold(fields[0], "basic"):
		raw, err := base64.StdEncoding.DecodeString(fields[1])
		if err != nil {
			return nil, nil
		}
		user, pass, ok := strings.Cut(string(raw), ":")
		if !ok || pass != "" {
			return nil, nil
		}
		tok = user
	default:
		return nil, nil
	}
	if len(tok) != 43 { // sharing tokens: 32 bytes, unpadded base64url
		return nil, nil
	}
	m, err := users.FindSharingMethodByToken(ctx, tok)
	if errs.Is(err, errs.NotFound) {
		return nil, nil
	}
	if err != nil || m.AccessType != store.SharingHTTPHeader || !m.Live(time.Now()) {
		return nil, err
	}
	return m, nil
}

// WithShares is v holding also the grants of the docs host's sharing
// cookie value cookie (none when it is empty or carries none), as
// AuthSharingToken or AuthSharingPassword after the first grant's type.
func WithShares(ctx context.Context, users Users, v Viewer, cookie string) (Viewer, error) {
	if cookie == "" || v.ShareAuth == AuthSharingHeader {
		return v, nil
	}
	ms, err := users.FindSharingGrants(ctx, cookie)
	if err != nil || len(ms) == 0 {
		return v, err
	}
	v.Shares = ms
	v.ShareAuth = AuthSharingToken
	if ms[0].AccessType == store.SharingPassword {
		v.ShareAuth = AuthSharingPassword
	}
	return v, nil
}

// DocsSession is the viewer of the docs session with cookie value value
// on the docs subdomain of project slug: its active user, or anonymous
// when there is none (no value, an ended session, a revoked key, an
// inactive user, another project's cookie).
func DocsSession(ctx context.Context, users Users, value, slug string) (Viewer, error) {
	if value == "" {
		return Viewer{}, nil
	}
	u, err := users.FindUserByDocsSession(ctx, value, slug)
	if errs.Is(err, errs.NotFound) {
		return Viewer{}, nil
	}
	if err != nil || !u.IsActive {
		return Viewer{}, err
	}
	return Viewer{User: u, Auth: AuthDocsSession}, nil
}

// DashboardSession is the viewer of the dashboard session with cookie
// value value. An unknown or expired session, or one of an inactive user,
// is Unauthenticated (MsgSessionExpired).
func DashboardSession(ctx context.Context, users Users, value string) (Viewer, error) {
	const op = "access.DashboardSession"
	if value == "" {
		return Viewer{}, errs.E(errs.Unauthenticated, op, MsgSessionExpired)
	}
	u, err := users.FindUserByDashboardSession(ctx, value)
	if errs.Is(err, errs.NotFound) || (err == nil && !u.IsActive) {
		return Viewer{}, errs.E(errs.Unauthenticated, op, MsgSessionExpired)
	}
	if err != nil {
		return Viewer{}, err
	}
	return SessionViewer(u), nil
}

// latin1 reports whether s is valid UTF-8 made only of runes below U+0100.
func latin1(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r > 0xff {
			return false
		}
	}
	return true
}
