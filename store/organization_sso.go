package store

import (
	"context"
	"strings"

	"docsd/internal/errs"
)

// MaxSSODomainsPerOrganization is how many SSO domains one organization
// may have; a refusal is a Conflict with msgTooManySSODomains.
const (
	MaxSSODomainsPerOrganization = 20

	msgTooManySSODomains = "An organization can have at most 20 SSO domains."
	// MsgSSODomainTaken is the refusal of a domain another organization
	// already has.
	MsgSSODomainTaken = "This domain is already used by another organization."
)

// FindOrganizationSSODomains returns the SSO domains of the organizations,
// by organization id, each list in alphabetical order.
func (s *Store) FindOrganizationSSODomains(ctx context.Context, orgIDs []int64) (map[int64][]string, error) {
	out := map[int64][]string{}
	if len(orgIDs) == 0 {
		return out, nil
	}
	var rows []struct {
		OrganizationID int64  `db:"organization_id"`
		Domain         string `db:"domain"`
	}
	err := s.read().selIn(ctx, &rows, `SELECT organization_id, domain FROM organization_sso_domains
		WHERE organization_id IN (?) ORDER BY domain`, orgIDs)
	for _, r := range rows {
		out[r.OrganizationID] = append(out[r.OrganizationID], r.Domain)
	}
	return out, classify("store.FindOrganizationSSODomains", err)
}

// SetOrganizationSSODomains replaces the SSO domains of an organization
// with domains (lower-case names, already checked). More than
// MaxSSODomainsPerOrganization is a Conflict; a domain another
// organization has is Invalid on the field "domains".
func (s *Store) SetOrganizationSSODomains(ctx context.Context, orgID int64, domains []string) error {
	const op = "store.SetOrganizationSSODomains"
	if len(domains) > MaxSSODomainsPerOrganization {
		return errs.E(errs.Conflict, op, msgTooManySSODomains)
	}
	return s.InTx(ctx, op, func(tx *Tx) error {
		if err := tx.lockOrganization(ctx, orgID); err != nil {
			return err
		}
		if _, err := tx.exec(ctx, `DELETE FROM organization_sso_domains WHERE organization_id = ?`, orgID); err != nil {
			return err
		}
		for _, d := range domains {
			// A domain is unique across organizations (the table's
			// constraint): one another organization has is refused.
			_, err := tx.exec(ctx, `INSERT INTO organization_sso_domains (organization_id, domain, created) VALUES (?, ?, ?)`, orgID, d, tx.Now)
			if err = classify(op, err); errs.Is(err, errs.Conflict) {
				return errs.FieldError(op, "domains", MsgSSODomainTaken)
			} else if err != nil {
				return err
			}
		}
		_, err := tx.exec(ctx, `UPDATE organizations SET modified = ? WHERE id = ?`, tx.Now, orgID)
		return err
	})
}

// inSSODomainOf is the SQL condition "user u's verified email is at one
// of the SSO domains of organization ?".
const inSSODomainOf = `u.email_verified AND EXISTS (SELECT 1 FROM organization_sso_domains sd
	WHERE sd.organization_id = ? AND lower(u.email) LIKE '%@' || sd.domain)`

// requireSSO ends the dashboard sessions made with a password of the
// people organization orgID requires single sign-on of: users whose
// verified email is at one of its SSO domains, superusers excepted. The
// docs sessions handed off from those sessions end with them.
func (tx *Tx) requireSSO(ctx context.Context, orgID int64) error {
	_, err := tx.exec(ctx, `DELETE FROM dashboard_sessions WHERE auth_backend = ? AND user_id IN (
		SELECT u.id FROM users u WHERE NOT u.is_superuser AND `+inSSODomainOf+`)`, SessionByPassword, orgID)
	return err
}

// EmailDomain is the lower-cased domain of an email address ("" when it
// has none).
func EmailDomain(email string) string {
	i := strings.LastIndex(email, "@")
	if i < 0 {
		return ""
	}
	return strings.ToLower(strings.TrimSpace(email[i+1:]))
}

// FindSSORequiredDomain returns the SSO domain of an organization that
// requires single sign-on of u: the domain of u's verified email when an
// organization with sso_required has it; "" when none does. Superusers
// are the caller's exception.
func (s *Store) FindSSORequiredDomain(ctx context.Context, u *User) (string, error) {
	domain := EmailDomain(u.Email)
	if !u.EmailVerified || domain == "" || !storable(domain) {
		return "", nil
	}
	var n int
	err := s.read().get(ctx, &n, `SELECT COUNT(*) FROM organization_sso_domains sd
		JOIN organizations o ON o.id = sd.organization_id WHERE sd.domain = ? AND o.sso_required`, domain)
	if err != nil || n == 0 {
		return "", classify("store.FindSSORequiredDomain", err)
	}
	return domain, nil
}

// JoinAutoJoinTeams adds the user to every auto-join team of the
// organization whose SSO domains hold the domain of email, and returns
// the teams joined (not those the user was already in, nor full ones:
// a team at MaxMembersPerTeam is left as it is). It runs at a user's first
// single sign-on only, so a member an owner removed is never added again.
func (s *Store) JoinAutoJoinTeams(ctx context.Context, userID int64, email string) ([]*Team, error) {
	const op = "store.JoinAutoJoinTeams"
	domain := EmailDomain(email)
	if domain == "" || !storable(domain) {
		return nil, nil
	}
	var joined []*Team
	err := s.InTx(ctx, op, func(tx *Tx) error {
		var teams []*Team
		if err := scanAll(ctx, tx.conn, &teams, teamRows.next, `SELECT `+teamRows.cols+` FROM teams t
			JOIN organization_sso_domains sd ON sd.organization_id = t.organization_id
			WHERE sd.domain = ? AND t.auto_join_email_users ORDER BY t.id`, domain); err != nil {
			return err
		}
		for _, t := range teams {
			var already int
			if err := tx.get(ctx, &already, `SELECT COUNT(*) FROM team_members WHERE team_id = ? AND user_id = ?`, t.ID, userID); err != nil {
				return err
			}
			if already > 0 {
				continue
			}
			if room, err := tx.teamHasRoom(ctx, t.ID); err != nil {
				return err
			} else if !room {
				continue
			}
			if _, err := tx.exec(ctx, `INSERT INTO team_members (team_id, user_id) VALUES (?, ?)`, t.ID, userID); err != nil {
				return err
			}
			joined = append(joined, t)
		}
		return nil
	})
	return joined, err
}
