package audit

import (
	"context"

	"docsd/store"
)

// Invitation is an invitation's audit data: its id, target type and email
// address (null for an invitation to a user).
func Invitation(inv *store.Invitation) map[string]any {
	var email any
	if inv.ToEmail != "" {
		email = inv.ToEmail
	}
	return map[string]any{"invitation": map[string]any{"id": inv.ID, "object_type": inv.ObjectType, "to_email": email}}
}

// RecordInvitation records an accepted or declined invitation by u (nil:
// nobody signed in), made with authBackend, against its target: the
// project of a maintainer invitation, else the organization (a team's
// own for a team invitation), so that those who administer it read the
// entry. A target deleted meanwhile leaves the entry without it.
func (rec *Recorder) RecordInvitation(ctx context.Context, action string, u *store.User, authBackend string, inv *store.Invitation) {
	if rec == nil || rec.Store == nil {
		return
	}
	ev := Event{Action: action, User: u, AuthBackend: authBackend, Data: Invitation(inv)}
	switch {
	case inv.ProjectID != nil:
		if ps, err := rec.Store.FindProjectsByIDs(ctx, []int64{*inv.ProjectID}); err == nil && len(ps) == 1 {
			ev.Project = ps[0]
		}
	case inv.TeamID != nil:
		if ts, err := rec.Store.FindTeams(ctx, store.TeamFilter{IDs: []int64{*inv.TeamID}}); err == nil && len(ts) == 1 {
			ev.Organization = rec.organization(ctx, ts[0].OrganizationID)
		}
	case inv.OrganizationID != nil:
		ev.Organization = rec.organization(ctx, *inv.OrganizationID)
	}
	rec.Record(ctx, ev)
}
