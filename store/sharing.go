package store

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"strings"
	"time"

	"docsd/internal/errs"
)

// Sharing methods let someone without an account read a project's
// non-public docs (docs/user-guide/sharing.md).

// Access types of a sharing method.
const (
	SharingToken      = "token"             // a secret link
	SharingPassword   = "password"          // a link and a password
	SharingHTTPHeader = "http_header_token" // `Authorization: Token <t>` on each request
)

// MaxSharingMethods is how many sharing methods a project may have.
const MaxSharingMethods = 100

// MsgTooManySharingMethods refuses the method past MaxSharingMethods.
const MsgTooManySharingMethods = "A project can have at most 100 sharing methods."

// SharingGrantLifetime is the longest a redeemed link or password lets a
// browser read, whatever the method's expiry.
const SharingGrantLifetime = 24 * time.Hour

// aadSharingToken binds a sealed sharing token to its column.
const aadSharingToken = "sharing_methods.token_sealed"

// SharingMethod is a stored sharing method. Token is the token itself
// (opened from its sealed form); PasswordHash is bcrypt, "" unless
// AccessType is SharingPassword.
type SharingMethod struct {
	ID           int64      `db:"id"`
	ProjectID    int64      `db:"project_id"`
	AccessType   string     `db:"access_type"`
	TokenSealed  string     `db:"token_sealed"`
	PasswordHash string     `db:"password_hash"`
	AllowAll     bool       `db:"allow_all"`
	VersionsJSON string     `db:"versions"`
	Description  string     `db:"description"`
	Expires      string     `db:"expires"` // YYYY-MM-DD, UTC, the last day it works
	LastUsedAt   *time.Time `db:"last_used_at"`
	Created      time.Time  `db:"created"`
	Modified     time.Time  `db:"modified"`

	Token    string   `db:"-"`
	Versions []string `db:"-"`
}

// Live reports whether the method still works at now: its expiry day
// (UTC) is today or later.
func (m *SharingMethod) Live(now time.Time) bool {
	return m.Expires >= now.UTC().Format(time.DateOnly)
}

// Covers reports whether the method lets its holder read version slug
// (active) of its project.
func (m *SharingMethod) Covers(slug string, active bool) bool {
	if m.AllowAll {
		return active
	}
	for _, v := range m.Versions {
		if v == slug {
			return true
		}
	}
	return false
}

// End is when the method stops working: the end of its expiry day, UTC.
func (m *SharingMethod) End() time.Time {
	d, err := time.Parse(time.DateOnly, m.Expires)
	if err != nil {
		return time.Time{}
	}
	return d.AddDate(0, 0, 1)
}

const sharingColumns = `id, project_id, access_type, token_sealed, password_hash, allow_all, versions, description, expires, last_used_at, created, modified`

// NewSharingToken returns a new sharing token: 32 random bytes in
// unpadded base64url (43 characters, never mistaken for a 40-hex API key).
func NewSharingToken() (string, error) {
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", errs.Wrap(errs.Internal, "store.NewSharingToken", err)
	}
	return base64.RawURLEncoding.EncodeToString(raw), nil
}

// opened fills the fields read from stored forms: the token and the
// versions.
func (s *Store) opened(op string, ms []*SharingMethod) error {
	for _, m := range ms {
		tok, err := s.sealer.open(m.TokenSealed, aadSharingToken)
		if err != nil {
			return errs.Wrap(errs.Internal, op, err)
		}
		m.Token = tok
		m.Versions = []string{}
		if err := json.Unmarshal([]byte(m.VersionsJSON), &m.Versions); err != nil {
			return errs.Wrap(errs.Internal, op, err)
		}
	}
	return nil
}

func versionsJSON(vs []string) string {
	if vs == nil {
		vs = []string{}
	}
	b, _ := json.Marshal(vs)
	return string(b)
}

// CreateSharingMethod stores m (its ProjectID, AccessType, PasswordHash,
// AllowAll, Versions, Description, Expires) with a new token, and returns
// it as stored. A project that has MaxSharingMethods already is Conflict
// (MsgTooManySharingMethods).
func (s *Store) CreateSharingMethod(ctx context.Context, m SharingMethod) (*SharingMethod, error) {
	const op = "store.CreateSharingMethod"
	tok, err := NewSharingToken()
	if err != nil {
		return nil, err
	}
	sealed, err := s.sealer.seal(tok, aadSharingToken)
	if err != nil {
		return nil, err
	}
	var id int64
	err = s.InTx(ctx, op, func(tx *Tx) error {
		var n int
		if err := tx.get(ctx, &n, `SELECT COUNT(*) FROM sharing_methods WHERE project_id = ?`, m.ProjectID); err != nil {
			return err
		}
		if n >= MaxSharingMethods {
			return errs.E(errs.Conflict, op, MsgTooManySharingMethods)
		}
		id, err = tx.insert(ctx, `INSERT INTO sharing_methods (project_id, access_type, token_hash, token_sealed, password_hash, allow_all, versions, description, expires, created, modified)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			m.ProjectID, m.AccessType, HashToken(tok), sealed, m.PasswordHash, m.AllowAll, versionsJSON(m.Versions), m.Description, m.Expires, tx.Now, tx.Now)
		return err
	})
	if err != nil {
		return nil, err
	}
	return s.FindSharingMethod(ctx, m.ProjectID, id)
}

// UpdateSharingMethod writes m's PasswordHash, AllowAll, Versions,
// Description and Expires; the access type and token never change.
func (s *Store) UpdateSharingMethod(ctx context.Context, m SharingMethod) (*SharingMethod, error) {
	const op = "store.UpdateSharingMethod"
	err := s.InTx(ctx, op, func(tx *Tx) error {
		res, err := tx.exec(ctx, `UPDATE sharing_methods SET password_hash = ?, allow_all = ?, versions = ?, description = ?, expires = ?, modified = ?
			WHERE project_id = ? AND id = ?`, m.PasswordHash, m.AllowAll, versionsJSON(m.Versions), m.Description, m.Expires, tx.Now, m.ProjectID, m.ID)
		return mustAffect(op, res, err)
	})
	if err != nil {
		return nil, err
	}
	return s.FindSharingMethod(ctx, m.ProjectID, m.ID)
}

// DeleteSharingMethod deletes the project's method id; every grant it
// gave ends with it.
func (s *Store) DeleteSharingMethod(ctx context.Context, projectID, id int64) error {
	const op = "store.DeleteSharingMethod"
	return s.InTx(ctx, op, func(tx *Tx) error {
		if _, err := tx.exec(ctx, `DELETE FROM sharing_grants WHERE method_id IN (SELECT id FROM sharing_methods WHERE project_id = ? AND id = ?)`, projectID, id); err != nil {
			return err
		}
		res, err := tx.exec(ctx, `DELETE FROM sharing_methods WHERE project_id = ? AND id = ?`, projectID, id)
		return mustAffect(op, res, err)
	})
}

// FindSharingMethod returns the project's method id.
func (s *Store) FindSharingMethod(ctx context.Context, projectID, id int64) (*SharingMethod, error) {
	const op = "store.FindSharingMethod"
	var m SharingMethod
	if err := s.read().get(ctx, &m, `SELECT `+sharingColumns+` FROM sharing_methods WHERE project_id = ? AND id = ?`, projectID, id); err != nil {
		return nil, classify(op, err)
	}
	return &m, s.opened(op, []*SharingMethod{&m})
}

// FindSharingMethods returns the project's methods, newest first (id
// descending), the window pg of them (limit and offset), and their count.
func (s *Store) FindSharingMethods(ctx context.Context, projectID int64, pg Page) ([]*SharingMethod, int, error) {
	const op = "store.FindSharingMethods"
	var total int
	if err := s.read().get(ctx, &total, `SELECT COUNT(*) FROM sharing_methods WHERE project_id = ?`, projectID); err != nil {
		return nil, 0, classify(op, err)
	}
	ms := []*SharingMethod{}
	if total == 0 || pg.Offset >= total {
		return ms, total, nil
	}
	err := s.read().sel(ctx, &ms, s.page(`SELECT `+sharingColumns+` FROM sharing_methods WHERE project_id = ? ORDER BY id DESC`, pg.Limit, pg.Offset), projectID)
	if err != nil {
		return nil, 0, classify(op, err)
	}
	return ms, total, s.opened(op, ms)
}

// FindSharingMethodByToken returns the method whose token is tok, live or
// not (Live decides); an unknown token is NotFound.
func (s *Store) FindSharingMethodByToken(ctx context.Context, tok string) (*SharingMethod, error) {
	const op = "store.FindSharingMethodByToken"
	var m SharingMethod
	if err := s.read().get(ctx, &m, `SELECT `+sharingColumns+` FROM sharing_methods WHERE token_hash = ?`, HashToken(tok)); err != nil {
		return nil, classify(op, err)
	}
	return &m, s.opened(op, []*SharingMethod{&m})
}

// NoteSharingMethodUsed sets the method's last_used_at to now, at most
// once a minute.
func (s *Store) NoteSharingMethodUsed(ctx context.Context, id int64) error {
	return s.InTx(ctx, "store.NoteSharingMethodUsed", func(tx *Tx) error {
		_, err := tx.exec(ctx, `UPDATE sharing_methods SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)`,
			tx.Now, id, tx.Now.Add(-time.Minute))
		return err
	})
}

// GrantSharing records that the browser holding the cookie value may read
// what method m covers, until SharingGrantLifetime has passed or m ends,
// whichever comes first.
func (s *Store) GrantSharing(ctx context.Context, cookie string, m *SharingMethod) error {
	return s.InTx(ctx, "store.GrantSharing", func(tx *Tx) error {
		expires := tx.Now.Add(SharingGrantLifetime)
		if end := m.End(); end.Before(expires) {
			expires = end
		}
		h := HashToken(cookie)
		if _, err := tx.exec(ctx, `DELETE FROM sharing_grants WHERE cookie_hash = ? AND method_id = ?`, h, m.ID); err != nil {
			return err
		}
		_, err := tx.exec(ctx, `INSERT INTO sharing_grants (cookie_hash, method_id, created, expires) VALUES (?, ?, ?, ?)`, h, m.ID, tx.Now, expires)
		return err
	})
}

// FindSharingGrants returns the live methods whose unexpired grants the
// cookie value carries (none for an unknown value).
func (s *Store) FindSharingGrants(ctx context.Context, cookie string) ([]*SharingMethod, error) {
	const op = "store.FindSharingGrants"
	ms := []*SharingMethod{}
	now := s.Now().UTC()
	err := s.read().sel(ctx, &ms, `SELECT `+prefixed("m", sharingColumns)+` FROM sharing_grants g JOIN sharing_methods m ON m.id = g.method_id
		WHERE g.cookie_hash = ? AND g.expires > ? AND m.expires >= ? ORDER BY m.id`, HashToken(cookie), now, now.Format(time.DateOnly))
	if err != nil {
		return nil, classify(op, err)
	}
	return ms, s.opened(op, ms)
}

// prefixed qualifies each of a comma-separated column list with alias.
func prefixed(alias, columns string) string {
	parts := strings.Split(columns, ", ")
	for i, c := range parts {
		parts[i] = alias + "." + c
	}
	return strings.Join(parts, ", ")
}
