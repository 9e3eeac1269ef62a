package store

import (
	"context"
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
// cookie value value on docs host host. A session of another host, an
// expired one, or one whose key was revoked is NotFound; whether the user
// is active is the caller's decision.
func (s *Store) FindUserByDocsSession(ctx context.Context, value, host string) (*User, error) {
	var u User
	err := getRow(ctx, s.read(), userRows, &u, `SELECT `+userRows.cols+`
		FROM docs_sessions d JOIN tokens t ON t.id = d.token_id JOIN users u ON u.id = t.user_id
		WHERE d.hash = ? AND d.host = ? AND d.expires > ?`, HashToken(value), host, s.Now().UTC())
	return &u, classify("store.FindUserByDocsSession", err)
}

// DeleteDocsSession ends the session with cookie value value; ending an
// unknown session is not an error.
func (s *Store) DeleteDocsSession(ctx context.Context, value string) error {
	return s.InTx(ctx, "store.DeleteDocsSession", func(tx *Tx) error {
		_, err := tx.exec(ctx, `DELETE FROM docs_sessions WHERE hash = ?`, HashToken(value))
		return err
	})
}
