package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"time"

	"docsd/internal/errs"
)

// DashboardSessionLifetime is how long a dashboard sign-in lasts.
const DashboardSessionLifetime = 14 * 24 * time.Hour

// randomSecret returns n random bytes as lower-case hex: cookie values and
// other secrets that are stored only as their hash.
func randomSecret(op string, n int) (string, error) {
	raw := make([]byte, n)
	if _, err := rand.Read(raw); err != nil {
		return "", errs.Wrap(errs.Internal, op, err)
	}
	return hex.EncodeToString(raw), nil
}

// SetUserPasswordHash stores the dashboard password hash of a user ("" turns
// dashboard sign-in off for that user). Hashing is the caller's: the store
// never sees a password. Every dashboard session of the user ends, so a new
// password signs out whoever knew the old one.
func (s *Store) SetUserPasswordHash(ctx context.Context, username, hash string) error {
	const op = "store.SetUserPasswordHash"
	return s.InTx(ctx, op, func(tx *Tx) error {
		var id int64
		if err := tx.get(ctx, &id, `SELECT id FROM users WHERE username = ?`, username); err != nil {
			return err
		}
		if _, err := tx.exec(ctx, `UPDATE users SET password_hash = ? WHERE id = ?`, hash, id); err != nil {
			return err
		}
		_, err := tx.exec(ctx, `DELETE FROM dashboard_sessions WHERE user_id = ?`, id)
		return err
	})
}

// FindUserPasswordHash returns the user with that username and its password
// hash ("" when none was set).
func (s *Store) FindUserPasswordHash(ctx context.Context, username string) (*User, string, error) {
	const op = "store.FindUserPasswordHash"
	if !storable(username) {
		return nil, "", errNotStorable(op)
	}
	var u User
	var hash string
	err := s.read().scanOne(ctx, append(userRows.dests(nil, &u), &hash),
		`SELECT `+userRows.cols+`, u.password_hash FROM users u WHERE u.username = ?`, username)
	if err != nil {
		return nil, "", classify(op, err)
	}
	return &u, hash, nil
}

// Ways a dashboard session was made (dashboard_sessions.auth_backend).
const (
	SessionByPassword = "password"
	SessionByOIDC     = "oidc"
)

// CreateDashboardSession opens a dashboard session for a user, made by a
// password, and returns the cookie value (random; only its hash is
// stored).
func (s *Store) CreateDashboardSession(ctx context.Context, userID int64) (string, error) {
	return s.CreateDashboardSessionBy(ctx, userID, SessionByPassword, "")
}

// CreateDashboardSessionBy opens a dashboard session made by backend
// (SessionByPassword, SessionByOIDC) and returns the cookie value; idToken
// is the identity provider's ID token of an OIDC session ("" otherwise),
// kept as the hint of the provider's sign-out.
func (s *Store) CreateDashboardSessionBy(ctx context.Context, userID int64, backend, idToken string) (string, error) {
	const op = "store.CreateDashboardSession"
	value, err := randomSecret(op, 32)
	if err != nil {
		return "", err
	}
	err = s.InTx(ctx, op, func(tx *Tx) error {
		_, err := tx.exec(ctx, `INSERT INTO dashboard_sessions (hash, user_id, created, expires, auth_backend, id_token) VALUES (?, ?, ?, ?, ?, ?)`,
			HashToken(value), userID, tx.Now, tx.Now.Add(DashboardSessionLifetime), backend, idToken)
		return err
	})
	if err != nil {
		return "", err
	}
	return value, nil
}

// DashboardSession is how a live dashboard session was made.
type DashboardSession struct {
	AuthBackend string `db:"auth_backend"`
	IDToken     string `db:"id_token"`
}

// FindDashboardSession returns how the unexpired session with cookie value
// value was made; an unknown or expired session is NotFound.
func (s *Store) FindDashboardSession(ctx context.Context, value string) (*DashboardSession, error) {
	var d DashboardSession
	err := s.read().get(ctx, &d, `SELECT auth_backend, id_token FROM dashboard_sessions WHERE hash = ? AND expires > ?`,
		HashToken(value), s.Now().UTC())
	return &d, classify("store.FindDashboardSession", err)
}

// FindUserByDashboardSession returns the user of the unexpired dashboard
// session with cookie value value; an unknown or expired session is
// NotFound. Whether the user is active is the caller's decision.
func (s *Store) FindUserByDashboardSession(ctx context.Context, value string) (*User, error) {
	var u User
	err := getRow(ctx, s.read(), userRows, &u, `SELECT `+userRows.cols+`
		FROM dashboard_sessions d JOIN users u ON u.id = d.user_id
		WHERE d.hash = ? AND d.expires > ?`, HashToken(value), s.Now().UTC())
	return &u, classify("store.FindUserByDashboardSession", err)
}

// DeleteDashboardSession ends the session with cookie value value; ending
// an unknown session is not an error.
func (s *Store) DeleteDashboardSession(ctx context.Context, value string) error {
	return s.InTx(ctx, "store.DeleteDashboardSession", func(tx *Tx) error {
		_, err := tx.exec(ctx, `DELETE FROM dashboard_sessions WHERE hash = ?`, HashToken(value))
		return err
	})
}
