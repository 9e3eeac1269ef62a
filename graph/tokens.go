package graph

import (
	"context"
	"strconv"

	"github.com/99designs/gqlgen/graphql"

	"docsd/internal/access"
	"docsd/internal/audit"
	"docsd/internal/errs"
	"docsd/store"
)

// API keys (v3 tokens) of the signed-in caller: list, create, revoke. They
// are the store's tokens, the same ones `docsd token` manages; only a
// key's hash and first characters are kept, so the key is shown once.

const nodeAPIToken = "ApiToken"

// maxAPITokens is how many keys one user may hold: enough for every
// script and machine, and a bound on rows a signed-in user can make.
const maxAPITokens = 100

// apiTokenNameRule is what a key's name must be: given, not blank, at
// most 100 characters.
var apiTokenNameRule = strRule{required: true, max: 100}

// CheckAPITokenName checks a key's name as createApiToken does and returns
// it trimmed; `docsd token create --name` names keys by the same rule.
func CheckAPITokenName(name string) (string, error) {
	f := errs.Fields{}
	s, _ := checkString(f, "name", graphql.OmittableOf(&name), apiTokenNameRule)
	return s, f.Err("graph.CheckAPITokenName")
}

// MsgTokenMintsToken refuses createApiToken, and revokeApiToken of another
// key, to a caller who authenticated with an API key.
const MsgTokenMintsToken = "API keys are managed from a signed-in dashboard session (/accounts/tokens/) or with `docsd token`, not with an API key: a leaked key must not be able to make more keys or revoke its owner's others. An API key may only revoke itself."

// mayManageKeys checks that the viewer (signed in, see errAnonymous)
// manages API keys from a dashboard session: a key alone proves only that
// someone holds it, so it may not mint keys that outlive its own
// revocation. A context that does not say how it authenticated
// (WithUser) is refused too, so a new entry point fails closed.
func mayManageKeys(op string, v access.Viewer) error {
	if v.Auth != access.AuthSession {
		return errs.E(errs.Forbidden, op, MsgTokenMintsToken)
	}
	return nil
}

// apiTokens answers User.apiTokens: the user themself only (not even a
// superuser reads another's list).
func (r *Resolver) apiTokens(ctx context.Context, obj *store.User) ([]*store.Token, error) {
	const op = "graph.User.apiTokens"
	v := access.ViewerFrom(ctx)
	if v.User == nil {
		return nil, errAnonymous(op)
	}
	if v.User.ID != obj.ID {
		return nil, errForbidden(op)
	}
	return r.Store.FindTokens(ctx, obj.ID)
}

// createAPIToken answers createApiToken.
func (r *Resolver) createAPIToken(ctx context.Context, input CreateAPITokenInput) (*CreateAPITokenPayload, error) {
	const op = "graph.createApiToken"
	v := access.ViewerFrom(ctx)
	u := v.User
	if u == nil {
		return nil, errAnonymous(op)
	}
	if err := mayManageKeys(op, v); err != nil {
		return nil, err
	}
	have, err := r.Store.FindTokens(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	f := errs.Fields{}
	name, _ := checkString(f, "name", input.Name, apiTokenNameRule)
	if len(have) >= maxAPITokens {
		f.Add(errs.NonField, "You have "+strconv.Itoa(len(have))+" API keys, the most a user may hold: revoke one first.")
	}
	if len(f) > 0 {
		ue, err := userErrors(f.Err(op))
		return &CreateAPITokenPayload{Errors: ue}, err
	}
	if isTrue(input.ValidateOnly) {
		return &CreateAPITokenPayload{Errors: []*errs.UserError{}}, nil
	}
	key, t, err := r.Store.CreateNamedToken(ctx, u.ID, name)
	if err != nil {
		return nil, err
	}
	r.record(ctx, audit.Event{Action: store.AuditTokenCreated, Data: audit.Token(t)})
	return &CreateAPITokenPayload{APIToken: t, Key: &key, Errors: []*errs.UserError{}}, nil
}

// revokeAPIToken answers revokeApiToken. An id that
// names no key of the caller's (another user's, a revoked one, not an
// ApiToken id at all) is NotFound, so ids reveal nothing. A caller
// authenticated with an API key may revoke that key only: retiring the
// key in hand can only help its owner (a script that retires itself, a
// finder of a leaked key who disables it), while revoking the owner's
// other keys would let a leaked key lock its owner's automation out.
func (r *Resolver) revokeAPIToken(ctx context.Context, input RevokeAPITokenInput) (*RevokeAPITokenPayload, error) {
	const op = "graph.revokeApiToken"
	v := access.ViewerFrom(ctx)
	u := v.User
	if u == nil {
		return nil, errAnonymous(op)
	}
	t, err := r.viewerToken(ctx, u, input.ID)
	if err != nil {
		return nil, err
	}
	if v.Auth != access.AuthToken || t.Hash != v.TokenHash {
		if err := mayManageKeys(op, v); err != nil {
			return nil, err
		}
	}
	if err := r.Store.RevokeToken(ctx, strconv.FormatInt(t.ID, 10)); err != nil {
		return nil, err
	}
	r.record(ctx, audit.Event{Action: store.AuditTokenRevoked, Data: audit.Token(t)})
	return &RevokeAPITokenPayload{DeletedID: &input.ID, Errors: []*errs.UserError{}}, nil
}

// viewerToken returns u's token with id id (its global id, or its
// database id as inputID reads ids); NotFound otherwise.
func (r *Resolver) viewerToken(ctx context.Context, u *store.User, id string) (*store.Token, error) {
	_, tokenID, err := inputID(nodeAPIToken, id)
	if err != nil {
		return nil, err
	}
	ts, err := r.Store.FindTokens(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	for _, t := range ts {
		if t.ID == tokenID {
			return t, nil
		}
	}
	return nil, errNotFound("graph.viewerToken")
}

// seesEmail reports whether the viewer may see u's email and whether it
// is verified: u themself and superusers.
func seesEmail(ctx context.Context, u *store.User) bool {
	v := access.ViewerFrom(ctx)
	return v.SeesAll() || v.UserID() == u.ID
}
