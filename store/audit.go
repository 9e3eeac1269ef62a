package store

import (
	"context"
	"strings"
	"time"
)

// The audit log: one row per security event (docs/user-guide/audit-log.md).

// AuditEntry is one event. The Log* fields copy the user's, project's and
// organization's id and name when the entry is made, so that it reads the
// same after they are deleted (UserID and ProjectID are then nil).
type AuditEntry struct {
	ID                  int64     `db:"id"`
	Created             time.Time `db:"created"`
	UserID              *int64    `db:"user_id"`
	LogUserID           *int64    `db:"log_user_id"`
	LogUserUsername     *string   `db:"log_user_username"`
	ProjectID           *int64    `db:"project_id"`
	LogProjectID        *int64    `db:"log_project_id"`
	LogProjectSlug      *string   `db:"log_project_slug"`
	OrganizationID      *int64    `db:"organization_id"`
	LogOrganizationID   *int64    `db:"log_organization_id"`
	LogOrganizationSlug *string   `db:"log_organization_slug"`
	Action              string    `db:"action"`
	AuthBackend         *string   `db:"auth_backend"`
	IP                  string    `db:"ip"`
	Browser             string    `db:"browser"`
	Resource            string    `db:"resource"`
	Data                *string   `db:"data"` // JSON
}

const auditColumns = `id, created, user_id, log_user_id, log_user_username, project_id, log_project_id, log_project_slug, organization_id, log_organization_id, log_organization_slug, action, auth_backend, ip, browser, resource, data`

// CreateAuditEntry stores e (its ID and Created are set here).
func (s *Store) CreateAuditEntry(ctx context.Context, e *AuditEntry) error {
	return s.InTx(ctx, "store.CreateAuditEntry", func(tx *Tx) error {
		e.Created = tx.Now
		id, err := tx.insert(ctx, `INSERT INTO audit_log (created, user_id, log_user_id, log_user_username, project_id, log_project_id, log_project_slug,
			organization_id, log_organization_id, log_organization_slug, action, auth_backend, ip, browser, resource, data)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			e.Created, e.UserID, e.LogUserID, e.LogUserUsername, e.ProjectID, e.LogProjectID, e.LogProjectSlug,
			e.OrganizationID, e.LogOrganizationID, e.LogOrganizationSlug, e.Action, e.AuthBackend, e.IP, e.Browser, e.Resource, e.Data)
		e.ID = id
		return err
	})
}

// AuditVisibility is the SQL form of which entries a caller reads (built
// by package access): all of them, or those matching any of its rows.
type AuditVisibility struct {
	All bool
	// UserID's own entries (log_user_id) of the actions UserActions.
	UserID      int64
	UserActions []string
	// Entries of projects UserID is an admin of, of ProjectActions.
	ProjectActions []string
	// Entries of the organizations OrganizationIDs, of every action but
	// OrganizationHidden.
	OrganizationIDs    []int64
	OrganizationHidden []string
}

// where adds the visibility condition to w.
func (v AuditVisibility) where(w *where) {
	if v.All {
		return
	}
	var or []string
	var args []any
	if v.UserID != 0 && len(v.UserActions) > 0 {
		or = append(or, "(a.log_user_id = ? AND a.action IN ("+marks(len(v.UserActions))+"))")
		args = append(append(args, v.UserID), strArgs(v.UserActions)...)
	}
	if v.UserID != 0 && len(v.ProjectActions) > 0 {
		or = append(or, "(a.log_project_id IN ("+adminProjectIDs+") AND a.action IN ("+marks(len(v.ProjectActions))+"))")
		args = append(append(args, v.UserID, v.UserID, v.UserID), strArgs(v.ProjectActions)...)
	}
	if len(v.OrganizationIDs) > 0 {
		c := "(a.log_organization_id IN (" + marks(len(v.OrganizationIDs)) + ")"
		for _, id := range v.OrganizationIDs {
			args = append(args, id)
		}
		if len(v.OrganizationHidden) > 0 {
			c += " AND a.action NOT IN (" + marks(len(v.OrganizationHidden)) + ")"
			args = append(args, strArgs(v.OrganizationHidden)...)
		}
		or = append(or, c+")")
	}
	if len(or) == 0 {
		w.add("1=0")
		return
	}
	w.add("("+strings.Join(or, " OR ")+")", args...)
}

func marks(n int) string { return strings.TrimSuffix(strings.Repeat("?, ", n), ", ") }

func strArgs(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// AuditFilter narrows a list of entries; empty fields do not.
type AuditFilter struct {
	Visible      AuditVisibility
	Action       string
	IP           string
	Project      string // slug, as logged
	Organization string // slug, as logged
	User         string // username, as logged
	After        *time.Time
	Before       *time.Time // exclusive
}

func (f AuditFilter) where() *where {
	w := &where{}
	f.Visible.where(w)
	for _, c := range []struct{ col, v string }{
		{"a.action", f.Action}, {"a.ip", f.IP}, {"a.log_project_slug", f.Project},
		{"a.log_organization_slug", f.Organization}, {"a.log_user_username", f.User},
	} {
		if c.v != "" {
			w.addText(c.col, c.v)
		}
	}
	if f.After != nil {
		w.add("a.created >= ?", f.After.UTC())
	}
	if f.Before != nil {
		w.add("a.created < ?", f.Before.UTC())
	}
	return w
}

// FindAuditEntries returns the entries f lets through, newest first
// (created, then id, descending), the window pg of them (limit and
// offset), and their count.
func (s *Store) FindAuditEntries(ctx context.Context, f AuditFilter, pg Page) ([]*AuditEntry, int, error) {
	const op = "store.FindAuditEntries"
	w := f.where()
	var total int
	if err := s.read().get(ctx, &total, `SELECT COUNT(*) FROM audit_log a`+w.String(), w.args...); err != nil {
		return nil, 0, classify(op, err)
	}
	es := []*AuditEntry{}
	if total == 0 || pg.Offset >= total {
		return es, total, nil
	}
	err := s.read().sel(ctx, &es, s.page(`SELECT `+prefixed("a", auditColumns)+` FROM audit_log a`+w.String()+` ORDER BY a.created DESC, a.id DESC`, pg.Limit, pg.Offset), w.args...)
	return es, total, classify(op, err)
}

// FindAuditEntry returns entry id when vis lets it through (NotFound
// otherwise).
func (s *Store) FindAuditEntry(ctx context.Context, vis AuditVisibility, id int64) (*AuditEntry, error) {
	w := AuditFilter{Visible: vis}.where()
	w.add("a.id = ?", id)
	var e AuditEntry
	err := s.read().get(ctx, &e, `SELECT `+prefixed("a", auditColumns)+` FROM audit_log a`+w.String(), w.args...)
	return &e, classify("store.FindAuditEntry", err)
}

// DeleteAuditEntriesBefore deletes the entries made before t and returns
// how many.
func (s *Store) DeleteAuditEntriesBefore(ctx context.Context, t time.Time) (int64, error) {
	var n int64
	err := s.InTx(ctx, "store.DeleteAuditEntriesBefore", func(tx *Tx) error {
		res, err := tx.exec(ctx, `DELETE FROM audit_log WHERE created < ?`, t.UTC())
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n, err
}

// Audit actions (docs/user-guide/audit-log.md lists when each is
// recorded).
const (
	AuditAuthentication        = "authentication"
	AuditAuthenticationFailure = "authentication-failure"
	AuditLogOut                = "log-out"
	AuditPageview              = "pageview"
	AuditDownload              = "download"
	AuditInvitationSent        = "invitation-sent"
	AuditInvitationRevoked     = "invitation-revoked"
	AuditInvitationAccepted    = "invitation-accepted"
	AuditInvitationDeclined    = "invitation-declined"
	AuditOrganizationCreated   = "organization-created"
	AuditOrganizationChanged   = "organization-changed"
	AuditOrganizationDeleted   = "organization-deleted"
	AuditTeamCreated           = "team-created"
	AuditTeamChanged           = "team-changed"
	AuditTeamDeleted           = "team-deleted"
	AuditOwnerAdded            = "owner-added"
	AuditOwnerRemoved          = "owner-removed"
	AuditTeamMemberAdded       = "team-member-added"
	AuditTeamMemberRemoved     = "team-member-removed"
	AuditMaintainerAdded       = "maintainer-added"
	AuditMaintainerRemoved     = "maintainer-removed"
	AuditTeamProjectAdded      = "team-project-added"
	AuditTeamProjectRemoved    = "team-project-removed"
	AuditProjectOrgChanged     = "project-organization-changed"
	AuditTokenCreated          = "token-created"
	AuditTokenRevoked          = "token-revoked"
	AuditSharingCreated        = "sharing-created"
	AuditSharingChanged        = "sharing-changed"
	AuditSharingDeleted        = "sharing-deleted"
	AuditSSHKeyCreated         = "ssh-key-created"
	AuditSSHKeyDeleted         = "ssh-key-deleted"
	AuditKnownHostsChanged     = "known-hosts-changed"
	AuditCredentialsChanged    = "repository-credentials-changed"
)

// AuditActions are every action, in the order the documentation lists
// them: the choices of the `action` filter.
var AuditActions = []string{
	AuditAuthentication, AuditAuthenticationFailure, AuditLogOut, AuditPageview, AuditDownload,
	AuditInvitationSent, AuditInvitationRevoked, AuditInvitationAccepted, AuditInvitationDeclined,
	AuditOrganizationCreated, AuditOrganizationChanged, AuditOrganizationDeleted,
	AuditTeamCreated, AuditTeamChanged, AuditTeamDeleted,
	AuditOwnerAdded, AuditOwnerRemoved, AuditTeamMemberAdded, AuditTeamMemberRemoved,
	AuditMaintainerAdded, AuditMaintainerRemoved, AuditTeamProjectAdded, AuditTeamProjectRemoved,
	AuditProjectOrgChanged, AuditTokenCreated, AuditTokenRevoked,
	AuditSharingCreated, AuditSharingChanged, AuditSharingDeleted,
	AuditSSHKeyCreated, AuditSSHKeyDeleted, AuditKnownHostsChanged, AuditCredentialsChanged,
}
