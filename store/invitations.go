package store

import (
	"context"
	"crypto/rand"
	"time"

	"docsd/internal/errs"
)

// Invitation targets: the invitee becomes an organization's owner, a
// team's member or a project's (direct) maintainer.
const (
	InviteOrganization = "organization"
	InviteTeam         = "team"
	InviteProject      = "project"
)

// MaxPendingInvitations is how many invitations one target may have at
// once; one more is a Conflict with msgTooManyInvitations.
const (
	MaxPendingInvitations = 200
	msgTooManyInvitations = "Too many pending invitations: revoke some first."
)

// Invitation is a stored invitation. Exactly one of OrganizationID,
// TeamID and ProjectID is set (ObjectType says which); the invitee is
// ToUserID or, when that is nil, ToEmail. FromUserID is nil once the
// inviter is deleted. Only the token's hash is stored: Token is set just
// by CreateInvitation.
type Invitation struct {
	ID             int64     `db:"id"`
	ObjectType     string    `db:"object_type"`
	ObjectID       int64     `db:"object_id"`
	OrganizationID *int64    `db:"organization_id"`
	TeamID         *int64    `db:"team_id"`
	ProjectID      *int64    `db:"project_id"`
	FromUserID     *int64    `db:"from_user_id"`
	ToUserID       *int64    `db:"to_user_id"`
	ToEmail        string    `db:"to_email"`
	Emailed        bool      `db:"emailed"`
	Created        time.Time `db:"created"`
	Expires        time.Time `db:"expires"`
	Token          string    `db:"-"`
}

// MsgInvitationExpired refuses to accept an expired invitation.
const MsgInvitationExpired = "Invitation has expired."

// Expired reports whether the invitation can no longer be accepted.
func (i *Invitation) Expired(now time.Time) bool { return !now.Before(i.Expires) }

const invitationColumns = `id, object_type, object_id, organization_id, team_id, project_id, from_user_id, to_user_id, to_email, emailed, created, expires`

const tokenAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// NewInvitationToken returns 32 random characters of [A-Za-z0-9].
func NewInvitationToken() (string, error) {
	b := make([]byte, 0, 32)
	var buf [64]byte
	for len(b) < 32 {
		if _, err := rand.Read(buf[:]); err != nil {
			return "", errs.Wrap(errs.Internal, "store.NewInvitationToken", err)
		}
		for _, c := range buf {
			// 248 = 4*62: keep the choice uniform.
			if c < 248 && len(b) < 32 {
				b = append(b, tokenAlphabet[int(c)%len(tokenAlphabet)])
			}
		}
	}
	return string(b), nil
}

// CreateInvitation stores inv (ObjectType, ObjectID, FromUserID and
// ToUserID or ToEmail) with a new token expiring after lifetime. An
// invitation of the same target and invitee already stored is renewed
// instead: new token, inviter, email spelling, creation and expiry. A target with
// MaxPendingInvitations invitations refuses a new one (Conflict).
func (s *Store) CreateInvitation(ctx context.Context, inv Invitation, lifetime time.Duration) (*Invitation, error) {
	const op = "store.CreateInvitation"
	tok, err := NewInvitationToken()
	if err != nil {
		return nil, err
	}
	inv.OrganizationID, inv.TeamID, inv.ProjectID = nil, nil, nil
	id := inv.ObjectID
	switch inv.ObjectType {
	case InviteOrganization:
		inv.OrganizationID = &id
	case InviteTeam:
		inv.TeamID = &id
	case InviteProject:
		inv.ProjectID = &id
	default:
		return nil, errs.E(errs.Invalid, op, "unknown invitation target "+inv.ObjectType)
	}
	if (inv.ToUserID == nil) == (inv.ToEmail == "") {
		return nil, errs.E(errs.Invalid, op, "an invitation is for a user or an email address")
	}
	err = s.InTx(ctx, op, func(tx *Tx) error {
		if err := tx.lockInvitationTarget(ctx, inv.ObjectType, inv.ObjectID); err != nil {
			return err
		}
		inv.Created, inv.Expires, inv.Emailed = tx.Now, tx.Now.Add(lifetime), false
		var existing []int64
		if err := tx.sel(ctx, &existing, `SELECT id FROM invitations WHERE object_type = ? AND object_id = ?
			AND (to_user_id = ? OR (to_email <> '' AND lower(to_email) = lower(?)))`,
			inv.ObjectType, inv.ObjectID, inv.ToUserID, inv.ToEmail); err != nil {
			return err
		}
		if len(existing) > 0 {
			inv.ID = existing[0]
			_, err := tx.exec(ctx, `UPDATE invitations SET token_hash = ?, from_user_id = ?, to_email = ?, emailed = ?, created = ?, expires = ? WHERE id = ?`,
				HashToken(tok), inv.FromUserID, inv.ToEmail, false, inv.Created, inv.Expires, inv.ID)
			return err
		}
		var n int
		if err := tx.get(ctx, &n, `SELECT COUNT(*) FROM invitations WHERE object_type = ? AND object_id = ?`, inv.ObjectType, inv.ObjectID); err != nil {
			return err
		}
		if n >= MaxPendingInvitations {
			return errs.E(errs.Conflict, op, msgTooManyInvitations)
		}
		inv.ID, err = tx.insert(ctx, `INSERT INTO invitations (object_type, object_id, organization_id, team_id, project_id, from_user_id, to_user_id, to_email, token_hash, created, expires)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			inv.ObjectType, inv.ObjectID, inv.OrganizationID, inv.TeamID, inv.ProjectID, inv.FromUserID, inv.ToUserID, inv.ToEmail, HashToken(tok), inv.Created, inv.Expires)
		return err
	})
	if err != nil {
		return nil, err
	}
	inv.Token = tok
	return &inv, nil
}

// lockInvitationTarget serialises the invitations of one target on
// PostgreSQL, so that the count and the renewal look-up hold.
func (tx *Tx) lockInvitationTarget(ctx context.Context, objectType string, id int64) error {
	if tx.s.dialect != Postgres {
		return nil
	}
	table := map[string]string{InviteOrganization: "organizations", InviteTeam: "teams", InviteProject: "projects"}[objectType]
	_, err := tx.exec(ctx, `SELECT id FROM `+table+` WHERE id = ? FOR UPDATE`, id)
	return err
}

// MarkInvitationEmailed notes that the invitation was mailed to its
// invitee.
func (s *Store) MarkInvitationEmailed(ctx context.Context, id int64) error {
	return s.InTx(ctx, "store.MarkInvitationEmailed", func(tx *Tx) error {
		_, err := tx.exec(ctx, `UPDATE invitations SET emailed = ? WHERE id = ?`, true, id)
		return err
	})
}

// FindInvitationByToken returns the invitation whose token is tok,
// expired or not; an unknown token is NotFound.
func (s *Store) FindInvitationByToken(ctx context.Context, tok string) (*Invitation, error) {
	var inv Invitation
	err := s.read().get(ctx, &inv, `SELECT `+invitationColumns+` FROM invitations WHERE token_hash = ?`, HashToken(tok))
	return &inv, classify("store.FindInvitationByToken", err)
}

// FindInvitation returns the invitation id.
func (s *Store) FindInvitation(ctx context.Context, id int64) (*Invitation, error) {
	var inv Invitation
	err := s.read().get(ctx, &inv, `SELECT `+invitationColumns+` FROM invitations WHERE id = ?`, id)
	return &inv, classify("store.FindInvitation", err)
}

// FindInvitations returns a target's invitations, oldest first.
func (s *Store) FindInvitations(ctx context.Context, objectType string, objectID int64) ([]*Invitation, error) {
	out := []*Invitation{}
	err := s.read().sel(ctx, &out, `SELECT `+invitationColumns+` FROM invitations WHERE object_type = ? AND object_id = ? ORDER BY id`, objectType, objectID)
	return out, classify("store.FindInvitations", err)
}

// DeleteInvitation deletes the invitation id; a missing one is NotFound.
func (s *Store) DeleteInvitation(ctx context.Context, id int64) error {
	const op = "store.DeleteInvitation"
	return s.InTx(ctx, op, func(tx *Tx) error {
		res, err := tx.exec(ctx, `DELETE FROM invitations WHERE id = ?`, id)
		return mustAffect(op, res, err)
	})
}

// AcceptInvitation makes the user owner, member or maintainer of the
// invitation's target (already being one is no error) and deletes the
// invitation, in one transaction. When verifyEmail is set the user's
// email becomes the invitation's ToEmail, verified. A full team is a
// Conflict; a deleted invitation is NotFound.
func (s *Store) AcceptInvitation(ctx context.Context, inv *Invitation, userID int64, verifyEmail bool) error {
	const op = "store.AcceptInvitation"
	return s.InTx(ctx, op, func(tx *Tx) error {
		if err := tx.acceptInvitation(ctx, op, inv, userID); err != nil {
			return err
		}
		if verifyEmail && inv.ToEmail != "" {
			_, err := tx.exec(ctx, `UPDATE users SET email = ?, email_verified = ? WHERE id = ?`, inv.ToEmail, true, userID)
			return err
		}
		return nil
	})
}

// acceptInvitation deletes the invitation and makes the user owner, member
// or maintainer of its target.
func (tx *Tx) acceptInvitation(ctx context.Context, op string, inv *Invitation, userID int64) error {
	res, err := tx.exec(ctx, `DELETE FROM invitations WHERE id = ?`, inv.ID)
	if err := mustAffect(op, res, err); err != nil {
		return err
	}
	if err := tx.lockInvitationTarget(ctx, inv.ObjectType, inv.ObjectID); err != nil {
		return err
	}
	switch inv.ObjectType {
	case InviteOrganization:
		var n int
		if err := tx.get(ctx, &n, `SELECT COUNT(*) FROM organization_owners WHERE organization_id = ? AND user_id <> ?`, inv.ObjectID, userID); err != nil {
			return err
		}
		if n >= MaxOwnersPerOrganization {
			return errs.E(errs.Conflict, op, msgTooManyOwners)
		}
		_, err = tx.exec(ctx, `INSERT INTO organization_owners (organization_id, user_id) VALUES (?, ?) ON CONFLICT DO NOTHING`, inv.ObjectID, userID)
	case InviteTeam:
		var n int
		if err := tx.get(ctx, &n, `SELECT COUNT(*) FROM team_members WHERE team_id = ? AND user_id <> ?`, inv.ObjectID, userID); err != nil {
			return err
		}
		if n >= MaxMembersPerTeam {
			return errs.E(errs.Conflict, op, msgTooManyMembers)
		}
		_, err = tx.exec(ctx, `INSERT INTO team_members (team_id, user_id) VALUES (?, ?) ON CONFLICT DO NOTHING`, inv.ObjectID, userID)
	case InviteProject:
		_, err = tx.exec(ctx, `INSERT INTO project_users (project_id, user_id) VALUES (?, ?) ON CONFLICT DO NOTHING`, inv.ObjectID, userID)
	}
	return err
}

// MsgUsernameTaken refuses a new username that an existing user has,
// whatever its case.
const MsgUsernameTaken = "A user with that username already exists."

// SignUpByInvitation creates the account of an email invitation's sign-up
// form and accepts the invitation for it, in one transaction: an active
// user with the password hash (hashing is the caller's), whose email is
// the invitation's ToEmail, verified only when the invitation was emailed.
// A username another user has in any case is an Invalid field error
// (username, MsgUsernameTaken); an invitation for a user, or one accepted
// or revoked meanwhile, is NotFound; a full target is a Conflict.
func (s *Store) SignUpByInvitation(ctx context.Context, inv *Invitation, username, passwordHash string) (*User, error) {
	const op = "store.SignUpByInvitation"
	if inv.ToUserID != nil || inv.ToEmail == "" {
		return nil, errs.E(errs.NotFound, op, "an invitation for a user creates no account")
	}
	u := &User{Username: username, Email: inv.ToEmail, EmailVerified: inv.Emailed, IsActive: true}
	err := s.InTx(ctx, op, func(tx *Tx) error {
		var n int
		if err := tx.get(ctx, &n, `SELECT COUNT(*) FROM users WHERE lower(username) = lower(?)`, username); err != nil {
			return err
		}
		if n > 0 {
			return errs.FieldError(op, "username", MsgUsernameTaken)
		}
		u.Created = tx.Now
		var err error
		u.ID, err = tx.insert(ctx, `INSERT INTO users (username, email, email_verified, is_active, is_superuser, created, password_hash)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, u.Username, u.Email, u.EmailVerified, true, false, u.Created, passwordHash)
		if errs.Is(err, errs.Conflict) { // a sign-up of the same name in between
			return errs.FieldError(op, "username", MsgUsernameTaken)
		}
		if err != nil {
			return err
		}
		return tx.acceptInvitation(ctx, op, inv, u.ID)
	})
	if err != nil {
		return nil, err
	}
	return u, nil
}

// FindInvitationsFor returns the invitations to a user: those naming the
// user, and those to an email address the user has verified (matched
// whatever its case), oldest first.
func (s *Store) FindInvitationsFor(ctx context.Context, u *User) ([]*Invitation, error) {
	email := ""
	if u.EmailVerified {
		email = u.Email
	}
	out := []*Invitation{}
	err := s.read().sel(ctx, &out, `SELECT `+invitationColumns+` FROM invitations
		WHERE to_user_id = ? OR (to_email <> '' AND ? <> '' AND lower(to_email) = lower(?)) ORDER BY id`, u.ID, email, email)
	return out, classify("store.FindInvitationsFor", err)
}
