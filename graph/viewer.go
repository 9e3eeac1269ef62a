package graph

import (
	"context"
	"strings"
	"unicode/utf8"

	"docsd/errs"
	"docsd/store"
)

// Viewer is who an operation runs as.
type Viewer struct {
	User   *store.User // nil for an anonymous caller
	System bool        // the admin CLI: every permission check passes
	// Auth is how User proved who they are; a few operations (managing
	// API keys) depend on it.
	Auth AuthMethod
	// TokenHash is the stored hash (store.HashToken) of the API key the
	// caller sent, when Auth is AuthToken.
	TokenHash string
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
)

type viewerKey struct{}

// WithUser returns a context in which operations run as u (nil: anonymous),
// with no authentication method (AuthUnknown).
func WithUser(ctx context.Context, u *store.User) context.Context {
	return withViewer(ctx, Viewer{User: u})
}

// WithSession returns a context in which operations run as u, signed in
// to the dashboard with a password (AuthSession).
func WithSession(ctx context.Context, u *store.User) context.Context {
	if u == nil {
		return WithUser(ctx, nil)
	}
	return withViewer(ctx, Viewer{User: u, Auth: AuthSession})
}

// WithSystem returns a context in which operations run with every
// permission, as the admin CLI does. No HTTP request ever gets it.
func WithSystem(ctx context.Context) context.Context {
	return withViewer(ctx, Viewer{System: true})
}

func withViewer(ctx context.Context, v Viewer) context.Context {
	return context.WithValue(ctx, viewerKey{}, v)
}

// ViewerFrom returns the context's viewer (anonymous when none was set).
func ViewerFrom(ctx context.Context) Viewer {
	v, _ := ctx.Value(viewerKey{}).(Viewer)
	return v
}

// UserID is the viewer's user id, 0 when anonymous.
func (v Viewer) UserID() int64 {
	if v.User == nil {
		return 0
	}
	return v.User.ID
}

// SeesAll reports whether the viewer bypasses visibility: superusers and
// the system.
func (v Viewer) SeesAll() bool { return v.System || (v.User != nil && v.User.IsSuperuser) }

func (v Viewer) visibility() *store.Visibility {
	return &store.Visibility{UserID: v.UserID(), All: v.SeesAll()}
}

// Authenticate reads an `Authorization` header value as Read the Docs
// does: `Token <key>`, the scheme in any case. It returns (nil, nil) for an
// anonymous caller (no header, or another scheme), the user for a good
// token, and an Unauthenticated error carrying Read the Docs' exact message
// otherwise (no key, spaces in it, characters outside Latin-1, an unknown
// key, an inactive user). A wrong token never reveals whether a user
// exists.
func Authenticate(ctx context.Context, s *store.Store, header string) (*store.User, error) {
	v, err := authenticate(ctx, s, header)
	return v.User, err
}

// authenticate is Authenticate's viewer: the zero Viewer for an anonymous
// caller, else the key's user with AuthToken and the key's hash.
func authenticate(ctx context.Context, s *store.Store, header string) (Viewer, error) {
	const op = "graph.Authenticate"
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
	u, err := s.FindUserByToken(ctx, key)
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
