package store

import (
	"context"
	"strconv"
	"strings"
	"time"

	"docsd/internal/errs"
)

// OIDCFlowLifetime is how long a sign-in started at the identity provider
// may take to come back.
const OIDCFlowLifetime = 10 * time.Minute

// The caps on sign-ins waiting for the identity provider: anyone may start
// one without an account, so one client address may keep
// MaxPendingOIDCFlowsPerClient of them and the server MaxPendingOIDCFlows.
// A person needs one or two; a flood stops at the cap instead of filling
// the database.
const (
	MaxPendingOIDCFlowsPerClient = 20
	MaxPendingOIDCFlows          = 10000
)

// ErrTooManyOIDCFlows is CreateOIDCFlow's refusal at either cap.
var ErrTooManyOIDCFlows = errs.E(errs.Conflict, "store.CreateOIDCFlow", "Too many sign-ins are waiting for the identity provider.")

// OIDCFlow is a sign-in sent to the identity provider and not yet back.
// State and Binding are the secrets the callback must show (the state
// parameter and the browser's binding cookie); only their hashes are
// stored.
type OIDCFlow struct {
	State        string
	Binding      string
	Nonce        string
	CodeVerifier string
	Next         string // where the browser goes once signed in
	Client       string // the address the sign-in came from
}

// CreateOIDCFlow stores a flow for OIDCFlowLifetime, and forgets flows
// whose time has passed. A client with MaxPendingOIDCFlowsPerClient
// unexpired flows, or a server with MaxPendingOIDCFlows, is refused with
// ErrTooManyOIDCFlows.
func (s *Store) CreateOIDCFlow(ctx context.Context, f OIDCFlow) error {
	const op = "store.CreateOIDCFlow"
	if !storable(f.Client) {
		return errNotStorable(op)
	}
	return s.InTx(ctx, op, func(tx *Tx) error {
		if _, err := tx.exec(ctx, `DELETE FROM oidc_flows WHERE expires <= ?`, tx.Now); err != nil {
			return err
		}
		if tx.s.dialect == Postgres {
			// Serialise the counts of concurrent starts.
			if _, err := tx.exec(ctx, `LOCK TABLE oidc_flows IN SHARE ROW EXCLUSIVE MODE`); err != nil {
				return err
			}
		}
		var mine, all int
		if err := tx.get(ctx, &mine, `SELECT COUNT(*) FROM oidc_flows WHERE client = ?`, f.Client); err != nil {
			return err
		}
		if err := tx.get(ctx, &all, `SELECT COUNT(*) FROM oidc_flows`); err != nil {
			return err
		}
		if mine >= MaxPendingOIDCFlowsPerClient || all >= MaxPendingOIDCFlows {
			return ErrTooManyOIDCFlows
		}
		_, err := tx.exec(ctx, `INSERT INTO oidc_flows (state_hash, binding_hash, nonce, code_verifier, next, client, created, expires)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, HashToken(f.State), HashToken(f.Binding), f.Nonce, f.CodeVerifier, f.Next, f.Client,
			tx.Now, tx.Now.Add(OIDCFlowLifetime))
		return err
	})
}

// ConsumeOIDCFlow returns the unexpired flow with that state and browser
// binding and deletes it: a flow is used once. No such flow (unknown
// state, another browser's binding, expired or already used) is NotFound;
// a flow whose binding does not match is left for its own browser.
func (s *Store) ConsumeOIDCFlow(ctx context.Context, state, binding string) (*OIDCFlow, error) {
	const op = "store.ConsumeOIDCFlow"
	if !storable(state) || !storable(binding) || state == "" || binding == "" {
		return nil, errNotStorable(op)
	}
	f := &OIDCFlow{State: state, Binding: binding}
	err := s.InTx(ctx, op, func(tx *Tx) error {
		var row struct {
			ID           int64  `db:"id"`
			Nonce        string `db:"nonce"`
			CodeVerifier string `db:"code_verifier"`
			Next         string `db:"next"`
		}
		if err := tx.get(ctx, &row, `SELECT id, nonce, code_verifier, next FROM oidc_flows
			WHERE state_hash = ? AND binding_hash = ? AND expires > ?`, HashToken(state), HashToken(binding), tx.Now); err != nil {
			return err
		}
		f.Nonce, f.CodeVerifier, f.Next = row.Nonce, row.CodeVerifier, row.Next
		res, err := tx.exec(ctx, `DELETE FROM oidc_flows WHERE id = ?`, row.ID)
		return mustAffect(op, res, err)
	})
	if err != nil {
		return nil, err
	}
	return f, nil
}

// FindUserByIdentity returns the user linked to subject at issuer.
func (s *Store) FindUserByIdentity(ctx context.Context, issuer, subject string) (*User, error) {
	const op = "store.FindUserByIdentity"
	if !storable(issuer) || !storable(subject) {
		return nil, errNotStorable(op)
	}
	var u User
	err := getRow(ctx, s.read(), userRows, &u, `SELECT `+userRows.cols+`
		FROM user_identities i JOIN users u ON u.id = i.user_id WHERE i.issuer = ? AND i.subject = ?`, issuer, subject)
	return &u, classify(op, err)
}

// FindUsersByEmail returns every user whose email equals email, compared
// case-insensitively, verified or not (User.EmailVerified says which), by
// id. A caller that matches a person by email must accept verified emails
// only; the unverified ones are returned so it can refuse a match that
// someone else might also claim.
func (s *Store) FindUsersByEmail(ctx context.Context, email string) ([]*User, error) {
	const op = "store.FindUsersByEmail"
	email = strings.TrimSpace(email)
	if email == "" || !storable(email) {
		return nil, nil
	}
	var users []*User
	err := scanAll(ctx, s.read(), &users, userRows.next, `SELECT `+userRows.cols+` FROM users u
		WHERE lower(u.email) = lower(?) ORDER BY u.id`, email)
	return users, classify(op, err)
}

// LinkUserIdentity links subject at issuer to a user. A subject already
// linked (to this user or another) is a Conflict.
func (s *Store) LinkUserIdentity(ctx context.Context, userID int64, issuer, subject string) error {
	const op = "store.LinkUserIdentity"
	return s.InTx(ctx, op, func(tx *Tx) error { return tx.linkIdentity(ctx, userID, issuer, subject) })
}

func (tx *Tx) linkIdentity(ctx context.Context, userID int64, issuer, subject string) error {
	_, err := tx.exec(ctx, `INSERT INTO user_identities (issuer, subject, user_id, created) VALUES (?, ?, ?, ?)`,
		issuer, subject, userID, tx.Now)
	return err
}

// NewIdentityUser is a user to create from an identity provider's claims.
type NewIdentityUser struct {
	// Username is the preferred username ("" for none); when it is taken,
	// Fallback is used, then Fallback-2, Fallback-3 … until one is free.
	// Both must already be valid usernames.
	Username, Fallback string
	Email              string // verified by the identity provider
	Issuer, Subject    string
}

// maxUsernameSuffix bounds the search for a free username.
const maxUsernameSuffix = 1000

// CreateIdentityUser creates an active user with a verified email and no
// password, linked to the identity, in one transaction.
func (s *Store) CreateIdentityUser(ctx context.Context, n NewIdentityUser) (*User, error) {
	const op = "store.CreateIdentityUser"
	u := &User{Email: n.Email, EmailVerified: true, IsActive: true}
	err := s.InTx(ctx, op, func(tx *Tx) error {
		name, err := tx.freeUsername(ctx, op, n.Username, n.Fallback)
		if err != nil {
			return err
		}
		u.Username, u.Created = name, tx.Now
		if u.ID, err = tx.insert(ctx, `INSERT INTO users (username, email, email_verified, is_active, is_superuser, created)
			VALUES (?, ?, ?, ?, ?, ?)`, u.Username, u.Email, true, true, false, u.Created); err != nil {
			return err
		}
		return tx.linkIdentity(ctx, u.ID, n.Issuer, n.Subject)
	})
	if err != nil {
		return nil, err
	}
	return u, nil
}

// freeUsername returns preferred when it is given and free, else the
// first free one of fallback, fallback-2, fallback-3 ….
func (tx *Tx) freeUsername(ctx context.Context, op, preferred, fallback string) (string, error) {
	taken := func(name string) (bool, error) {
		var n int
		err := tx.get(ctx, &n, `SELECT COUNT(*) FROM users WHERE lower(username) = lower(?)`, name)
		return n > 0, err
	}
	if preferred != "" {
		if t, err := taken(preferred); err != nil || !t {
			return preferred, err
		}
	}
	for i := 1; i <= maxUsernameSuffix; i++ {
		name := fallback
		if i > 1 {
			name += "-" + strconv.Itoa(i)
		}
		if t, err := taken(name); err != nil || !t {
			return name, err
		}
	}
	return "", errs.E(errs.Conflict, op, MsgUsernameTaken)
}

// SetUserEmail sets a user's email as an administrator does: verified.
// An unknown user is NotFound.
func (s *Store) SetUserEmail(ctx context.Context, username, email string) error {
	const op = "store.SetUserEmail"
	return s.InTx(ctx, op, func(tx *Tx) error {
		res, err := tx.exec(ctx, `UPDATE users SET email = ?, email_verified = ? WHERE username = ?`,
			email, email != "", username)
		return mustAffect(op, res, err)
	})
}
