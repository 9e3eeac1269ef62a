package store

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"time"

	"docsd/internal/errs"
)

// DocsSessionLifetime is how long a docs-host browser session lasts.
const DocsSessionLifetime = 14 * 24 * time.Hour

// CreateDocsSession opens a browser session on docs host host for the
// active user holding API key key, and returns the cookie value (random,
// never the key). An unknown key, or one of an inactive user, is
// Unauthenticated.
func (s *Store) CreateDocsSession(ctx context.Context, key, host string) (string, error) {
	const op = "store.CreateDocsSession"
	value, err := randomSecret(op, 32)
	if err != nil {
		return "", err
	}
	err = s.InTx(ctx, op, func(tx *Tx) error {
		var tok struct {
			ID     int64 `db:"id"`
			Active bool  `db:"is_active"`
		}
		err := tx.get(ctx, &tok, `SELECT t.id, u.is_active FROM tokens t JOIN users u ON u.id = t.user_id WHERE t.hash = ?`, HashToken(key))
		if err := classify(op, err); errs.Is(err, errs.NotFound) || (err == nil && !tok.Active) {
			return errs.E(errs.Unauthenticated, op, "Invalid token.")
		} else if err != nil {
			return err
		}
		_, err = tx.exec(ctx, `INSERT INTO docs_sessions (hash, token_id, host, created, expires) VALUES (?, ?, ?, ?, ?)`,
			HashToken(value), tok.ID, host, tx.Now, tx.Now.Add(DocsSessionLifetime))
		return err
	})
	if err != nil {
		return "", err
	}
	return value, nil
}

// FindUserByDocsSession returns the user of the unexpired session with
// cookie value value on docs host host, made from an API key or handed
// off from a dashboard session. A session of another host, an expired
// one, one whose key was revoked or whose dashboard session ended is
// NotFound; whether the user
// is active is the caller's decision.
func (s *Store) FindUserByDocsSession(ctx context.Context, value, host string) (*User, error) {
	var u User
	now := s.Now().UTC()
	err := getRow(ctx, s.read(), userRows, &u, `SELECT `+userRows.cols+`
		FROM docs_sessions d JOIN tokens t ON t.id = d.token_id JOIN users u ON u.id = t.user_id
		WHERE d.hash = ? AND d.host = ? AND d.expires > ?
		UNION ALL SELECT `+userRows.cols+`
		FROM docs_handoff_sessions d JOIN dashboard_sessions ds ON ds.id = d.session_id JOIN users u ON u.id = ds.user_id
		WHERE d.hash = ? AND d.host = ? AND d.expires > ? AND ds.expires > ?`, HashToken(value), host, now, HashToken(value), host, now, now)
	return &u, classify("store.FindUserByDocsSession", err)
}

// DeleteDocsSession ends the session with cookie value value; ending an
// unknown session is not an error.
func (s *Store) DeleteDocsSession(ctx context.Context, value string) error {
	return s.InTx(ctx, "store.DeleteDocsSession", func(tx *Tx) error {
		if _, err := tx.exec(ctx, `DELETE FROM docs_sessions WHERE hash = ?`, HashToken(value)); err != nil {
			return err
		}
		_, err := tx.exec(ctx, `DELETE FROM docs_handoff_sessions WHERE hash = ?`, HashToken(value))
		return err
	})
}

// DocsLoginCodeLifetime is how long a sign-in hand-off code may wait to be
// redeemed on its docs host.
const DocsLoginCodeLifetime = time.Minute

// CreateDocsLoginCode makes the one-time code of a sign-in hand-off from
// the dashboard session with cookie value sessionValue to docs host host,
// bound to the browser's state, and returns it (only its hash is kept).
// An unknown or expired dashboard session is Unauthenticated.
func (s *Store) CreateDocsLoginCode(ctx context.Context, sessionValue, host, state string) (string, error) {
	const op = "store.CreateDocsLoginCode"
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", errs.Wrap(errs.Internal, op, err)
	}
	code := base64.RawURLEncoding.EncodeToString(raw) // 43 characters
	err := s.InTx(ctx, op, func(tx *Tx) error {
		var sessionID int64
		err := tx.get(ctx, &sessionID, `SELECT id FROM dashboard_sessions WHERE hash = ? AND expires > ?`, HashToken(sessionValue), tx.Now)
		if err := classify(op, err); errs.Is(err, errs.NotFound) {
			return errs.E(errs.Unauthenticated, op, errs.MsgNoCredentials)
		} else if err != nil {
			return err
		}
		_, err = tx.exec(ctx, `INSERT INTO docs_login_codes (hash, session_id, host, state_hash, created, expires) VALUES (?, ?, ?, ?, ?, ?)`,
			HashToken(code), sessionID, host, HashToken(state), tx.Now, tx.Now.Add(DocsLoginCodeLifetime))
		return err
	})
	if err != nil {
		return "", err
	}
	return code, nil
}

// RedeemDocsLoginCode uses the hand-off code made for host and state:
// it opens a docs session for sessionHost (the name FindUserByDocsSession
// reads it by) that ends with the code's dashboard session, and returns
// its cookie value. A code that is unknown, used,
// expired, or made for another host or state is NotFound.
func (s *Store) RedeemDocsLoginCode(ctx context.Context, code, host, state, sessionHost string) (string, error) {
	const op = "store.RedeemDocsLoginCode"
	value, err := randomSecret(op, 32)
	if err != nil {
		return "", err
	}
	err = s.InTx(ctx, op, func(tx *Tx) error {
		var row struct {
			ID        int64 `db:"id"`
			SessionID int64 `db:"session_id"`
		}
		err := tx.get(ctx, &row, `SELECT id, session_id FROM docs_login_codes WHERE hash = ? AND host = ? AND state_hash = ? AND expires > ?`,
			HashToken(code), host, HashToken(state), tx.Now)
		if err != nil {
			return err
		}
		// Used once: the delete decides between two redemptions at once.
		res, err := tx.exec(ctx, `DELETE FROM docs_login_codes WHERE id = ?`, row.ID)
		if err := mustAffect(op, res, err); err != nil {
			return err
		}
		_, err = tx.exec(ctx, `INSERT INTO docs_handoff_sessions (hash, session_id, host, created, expires) VALUES (?, ?, ?, ?, ?)`,
			HashToken(value), row.SessionID, sessionHost, tx.Now, tx.Now.Add(DocsSessionLifetime))
		return err
	})
	if err != nil {
		return "", err
	}
	return value, nil
}
