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
}

type viewerKey struct{}

// WithUser returns a context in which operations run as u (nil: anonymous).
func WithUser(ctx context.Context, u *store.User) context.Context {
	return context.WithValue(ctx, viewerKey{}, Viewer{User: u})
}

// WithSystem returns a context in which operations run with every
// permission, as the admin CLI does. No HTTP request ever gets it.
func WithSystem(ctx context.Context) context.Context {
	return context.WithValue(ctx, viewerKey{}, Viewer{System: true})
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

// Authenticate reads an `Authorization` header value by the rules of
// behavior.md §1.1. It returns (nil, nil) for an anonymous caller (no header,
// or another scheme), the user for a good token, and an Unauthenticated
// error carrying the exact §1.1 message otherwise. A wrong token never
// reveals whether a user exists.
func Authenticate(ctx context.Context, s *store.Store, header string) (*store.User, error) {
	const op = "graph.Authenticate"
	fields := strings.Fields(header)
	if len(fields) == 0 || !strings.EqualFold(fields[0], "token") {
		return nil, nil
	}
	switch {
	case len(fields) == 1:
		return nil, errs.E(errs.Unauthenticated, op, errs.MsgTokenNoCreds)
	case len(fields) > 2:
		return nil, errs.E(errs.Unauthenticated, op, errs.MsgTokenSpaces)
	}
	key := fields[1]
	if !latin1(key) {
		return nil, errs.E(errs.Unauthenticated, op, errs.MsgTokenBadChars)
	}
	u, err := s.FindUserByToken(ctx, key)
	if errs.Is(err, errs.NotFound) {
		return nil, errs.E(errs.Unauthenticated, op, errs.MsgInvalidToken)
	}
	if err != nil {
		return nil, err
	}
	if !u.IsActive {
		return nil, errs.E(errs.Unauthenticated, op, errs.MsgInactiveUser)
	}
	return u, nil
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
