package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"

	"docsd/internal/errs"
)

// userRows are the columns of a User, on the table aliased u.
var userRows = newRowType(
	col[User]{"u.id", func(u *User) any { return &u.ID }},
	col[User]{"u.username", func(u *User) any { return &u.Username }},
	col[User]{"u.email", func(u *User) any { return &u.Email }},
	col[User]{"u.email_verified", func(u *User) any { return &u.EmailVerified }},
	col[User]{"u.is_active", func(u *User) any { return &u.IsActive }},
	col[User]{"u.is_superuser", func(u *User) any { return &u.IsSuperuser }},
	col[User]{"u.created", func(u *User) any { return &u.Created }},
)

// CreateUser stores a new active user. A taken username is a Conflict. The
// email, when given, is an administrator's and so verified.
func (s *Store) CreateUser(ctx context.Context, username, email string, superuser bool) (*User, error) {
	const op = "store.CreateUser"
	username = strings.TrimSpace(username)
	if username == "" {
		return nil, errs.FieldError(op, "username", errs.MsgNotBlank)
	}
	u := &User{Username: username, Email: email, EmailVerified: email != "", IsActive: true, IsSuperuser: superuser}
	err := s.InTx(ctx, op, func(tx *Tx) error {
		u.Created = tx.Now
		id, err := tx.insert(ctx, `INSERT INTO users (username, email, email_verified, is_active, is_superuser, created) VALUES (?, ?, ?, ?, ?, ?)`,
			u.Username, u.Email, u.EmailVerified, u.IsActive, u.IsSuperuser, u.Created)
		u.ID = id
		return err
	})
	if errs.Is(err, errs.Conflict) {
		return nil, &errs.Error{Kind: errs.Conflict, Op: op, Message: "user " + strconv.Quote(username) + " already exists", Err: err}
	}
	return u, err
}

// FindUserByUsername returns the user with that username.
func (s *Store) FindUserByUsername(ctx context.Context, username string) (*User, error) {
	if !storable(username) {
		return nil, errNotStorable("store.FindUserByUsername")
	}
	var u User
	err := getRow(ctx, s.read(), userRows, &u, `SELECT `+userRows.cols+` FROM users u WHERE u.username = ?`, username)
	return &u, classify("store.FindUserByUsername", err)
}

// FindUsersByIDs returns the users with the given ids, in no particular order.
func (s *Store) FindUsersByIDs(ctx context.Context, ids []int64) ([]*User, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var users []*User
	err := scanAll(ctx, s.read(), &users, userRows.next, `SELECT `+userRows.cols+` FROM users u WHERE u.id IN (?)`, ids)
	return users, classify("store.FindUsersByIDs", err)
}

// SetUserActive sets a user's is_active flag.
func (s *Store) SetUserActive(ctx context.Context, username string, active bool) error {
	const op = "store.SetUserActive"
	return s.InTx(ctx, op, func(tx *Tx) error {
		res, err := tx.exec(ctx, `UPDATE users SET is_active = ? WHERE username = ?`, active, username)
		return mustAffect(op, res, err)
	})
}

// TokenLength is the length of an API key: 40 lower-case hex characters.
const TokenLength = 40

// HashToken returns the stored form of an API key.
func HashToken(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// CreateToken makes a new API key for the user and returns it. Only its hash
// is stored: the key cannot be shown again.
func (s *Store) CreateToken(ctx context.Context, userID int64) (string, *Token, error) {
	return s.CreateNamedToken(ctx, userID, "")
}

// CreateNamedToken is CreateToken with a name saying what the key is for
// (the caller validates it).
func (s *Store) CreateNamedToken(ctx context.Context, userID int64, name string) (string, *Token, error) {
	const op = "store.CreateToken"
	raw := make([]byte, TokenLength/2)
	if _, err := rand.Read(raw); err != nil {
		return "", nil, errs.Wrap(errs.Internal, op, err)
	}
	key := hex.EncodeToString(raw)
	t := &Token{UserID: userID, Hash: HashToken(key), Prefix: key[:4], Name: name}
	err := s.InTx(ctx, op, func(tx *Tx) error {
		t.Created = tx.Now
		id, err := tx.insert(ctx, `INSERT INTO tokens (user_id, hash, prefix, name, created) VALUES (?, ?, ?, ?, ?)`,
			t.UserID, t.Hash, t.Prefix, t.Name, t.Created)
		t.ID = id
		return err
	})
	if err != nil {
		return "", nil, err
	}
	return key, t, nil
}

// FindUserByToken returns the user holding the API key. An unknown key is
// NotFound; whether the user is active is the caller's decision.
func (s *Store) FindUserByToken(ctx context.Context, key string) (*User, error) {
	var u User
	err := getRow(ctx, s.read(), userRows, &u, `SELECT `+userRows.cols+`
		FROM tokens t JOIN users u ON u.id = t.user_id WHERE t.hash = ?`, HashToken(key))
	return &u, classify("store.FindUserByToken", err)
}

// FindTokens lists a user's tokens, oldest first.
func (s *Store) FindTokens(ctx context.Context, userID int64) ([]*Token, error) {
	var ts []*Token
	err := s.read().sel(ctx, &ts, `SELECT id, user_id, hash, prefix, name, created FROM tokens WHERE user_id = ? ORDER BY id`, userID)
	return ts, classify("store.FindTokens", err)
}

// RevokeToken deletes a token given either the key itself or the token's id.
func (s *Store) RevokeToken(ctx context.Context, keyOrID string) error {
	const op = "store.RevokeToken"
	return s.InTx(ctx, op, func(tx *Tx) error {
		if id, err := strconv.ParseInt(keyOrID, 10, 64); err == nil && len(keyOrID) < TokenLength {
			res, err := tx.exec(ctx, `DELETE FROM tokens WHERE id = ?`, id)
			return mustAffect(op, res, err)
		}
		res, err := tx.exec(ctx, `DELETE FROM tokens WHERE hash = ?`, HashToken(keyOrID))
		return mustAffect(op, res, err)
	})
}

// mustAffect turns "no row changed" into NotFound.
func mustAffect(op string, res interface{ RowsAffected() (int64, error) }, err error) error {
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return &errs.Error{Kind: errs.NotFound, Op: op, Message: errs.MsgNotFound}
	}
	return nil
}
