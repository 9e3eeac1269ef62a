package graph

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"docsd/graph/gid"
	"docsd/internal/access"
	"docsd/internal/audit"
	"docsd/internal/errs"
	"docsd/store"
)

// nodeInvitation is the global id type of an invitation.
const nodeInvitation = "Invitation"

// DefaultInvitationLifetime is an invitation's lifetime when
// Settings.InvitationLifetime is 0 (15 days, as Read the Docs).
const DefaultInvitationLifetime = 15 * 24 * time.Hour

// InvitationMail sends an invitation's email: (to, subject, text). Nil in
// Settings: no mail relay is configured, and the inviter is shown the link.
type InvitationMail func(ctx context.Context, to, subject, text string) error

// invitationLifetime is how long a new or renewed invitation lasts.
func (r *Resolver) invitationLifetime() time.Duration {
	if r.Settings.InvitationLifetime > 0 {
		return r.Settings.InvitationLifetime
	}
	return DefaultInvitationLifetime
}

// invitee is who an invitation is for: a user, or an email address no
// user has verified.
type invitee struct {
	user  *store.User
	email string
}

// findInvitee reads usernameOrEmail: input with "@" is an email, matched
// against verified emails only (unmatched: an email invitee when
// emailOK, else "does not exist"); anything else is a username.
func (r *Resolver) findInvitee(ctx context.Context, value string, emailOK bool) (invitee, error) {
	const op = "graph.findInvitee"
	value = strings.TrimSpace(value)
	missing := errs.FieldError(op, "usernameOrEmail", fmt.Sprintf("User %s does not exist", value))
	if !strings.Contains(value, "@") {
		u, err := r.Store.FindUserByUsername(ctx, value)
		if notFoundIs(err) || (err == nil && !u.IsActive) {
			return invitee{}, missing
		}
		return invitee{user: u}, err
	}
	users, err := r.Store.FindUsersByEmail(ctx, value)
	if err != nil {
		return invitee{}, err
	}
	for _, u := range users {
		if u.EmailVerified && u.IsActive {
			return invitee{user: u}, nil
		}
	}
	if !emailOK || !validEmail(value) {
		return invitee{}, missing
	}
	return invitee{email: value}, nil
}

// invitationSent is the outcome of an invitation: the invitation, and
// either emailSent or the link to show once.
type invitationSent struct {
	inv       *store.Invitation
	url       *string
	emailSent bool
}

// invite stores a new or renewed invitation to the target, audits it and,
// after the write, mails it when a relay is configured; otherwise (or
// when sending fails) the link is returned to be shown once.
func (r *Resolver) invite(ctx context.Context, objectType string, objectID int64, who invitee, description string, ref *audit.Ref, p *store.Project) (invitationSent, error) {
	from := access.ViewerFrom(ctx).User
	inv := store.Invitation{ObjectType: objectType, ObjectID: objectID, ToEmail: who.email}
	if from != nil {
		inv.FromUserID = &from.ID
	}
	if who.user != nil {
		inv.ToUserID = &who.user.ID
	}
	saved, err := r.Store.CreateInvitation(ctx, inv, r.invitationLifetime())
	if err != nil {
		return invitationSent{}, err
	}
	data := audit.Invitation(saved)
	if who.user != nil {
		data["to_user"] = audit.User(who.user)
	}
	r.record(ctx, audit.Event{Action: store.AuditInvitationSent, User: from, Project: p, Organization: ref, Data: data})

	link := r.Settings.URLs.PublicURL + "/invitations/" + saved.Token + "/"
	to := who.email
	if who.user != nil {
		to = who.user.Email
	}
	out := invitationSent{inv: saved}
	if r.Settings.InvitationMail != nil && to != "" {
		fromName := "docsd"
		if from != nil {
			fromName = from.Username
		}
		line := fmt.Sprintf("%s has invited you to join the %s", fromName, description)
		days := int(r.invitationLifetime().Round(24*time.Hour) / (24 * time.Hour))
		text := line + "\n\nYou can accept or decline this invitation using the following link:\n\n" + link + "\n\n" +
			fmt.Sprintf("This invitation will expire in %d days (%s).\n", days, saved.Expires.UTC().Format(time.DateOnly))
		if err := r.Settings.InvitationMail(ctx, to, line, text); err != nil {
			slog.ErrorContext(ctx, "sending an invitation", "invitation", saved.ID, "err", err)
		} else if err := r.Store.MarkInvitationEmailed(ctx, saved.ID); err != nil {
			slog.ErrorContext(ctx, "noting an invitation as emailed", "invitation", saved.ID, "err", err)
		} else {
			saved.Emailed = true
			out.emailSent = true
			return out, nil
		}
	}
	out.url = &link
	return out, nil
}

// inviteOrganizationOwner runs inviteOrganizationOwner.
func (r *Resolver) inviteOrganizationOwner(ctx context.Context, in InviteOrganizationOwnerInput) (invitationSent, error) {
	const op = "graph.inviteOrganizationOwner"
	o, err := r.ownedOrganization(ctx, in.Organization)
	if err != nil {
		return invitationSent{}, err
	}
	who, err := r.findInvitee(ctx, in.UsernameOrEmail, false)
	if err != nil {
		return invitationSent{}, err
	}
	owners, err := r.Store.FindOrganizationOwners(ctx, []int64{o.ID})
	if err != nil {
		return invitationSent{}, err
	}
	for _, ow := range owners {
		if ow.User.ID == who.user.ID {
			return invitationSent{}, errs.FieldError(op, "usernameOrEmail", fmt.Sprintf("User %s is already an owner", strings.TrimSpace(in.UsernameOrEmail)))
		}
	}
	return r.invite(ctx, store.InviteOrganization, o.ID, who, o.Slug+" organization", &audit.Ref{ID: o.ID, Slug: o.Slug}, nil)
}

// addTeamMember runs addTeamMember: a user already in the organization
// joins the team at once (member set), and so does any user added by the
// admin commands; anyone else is invited.
func (r *Resolver) addTeamMember(ctx context.Context, in AddTeamMemberInput) (*store.User, invitationSent, error) {
	const op = "graph.addTeamMember"
	o, t, err := r.ownedTeam(ctx, in.Organization, in.Team)
	if err != nil {
		return nil, invitationSent{}, err
	}
	who, err := r.findInvitee(ctx, in.UsernameOrEmail, true)
	if err != nil {
		return nil, invitationSent{}, err
	}
	if who.user != nil {
		members, err := r.Store.FindTeamMembers(ctx, []int64{t.ID})
		if err != nil {
			return nil, invitationSent{}, err
		}
		for _, m := range members {
			if m.User.ID == who.user.ID {
				return nil, invitationSent{}, errs.FieldError(op, "usernameOrEmail", "User is already a team member")
			}
		}
		in, err := r.Store.IsOrganizationMember(ctx, o.ID, who.user.ID)
		if err != nil {
			return nil, invitationSent{}, err
		}
		// The admin commands add at once, without an invitation.
		if in || access.ViewerFrom(ctx).System {
			if err := r.Store.AddTeamMember(ctx, t.ID, who.user.ID); err != nil {
				return nil, invitationSent{}, err
			}
			r.recordOrganization(ctx, store.AuditTeamMemberAdded, o, nil, map[string]any{"team": teamData(o, t), "member": audit.User(who.user)})
			return who.user, invitationSent{}, nil
		}
	}
	sent, err := r.invite(ctx, store.InviteTeam, t.ID, who, fmt.Sprintf("%s %s team", o.Slug, t.Slug), &audit.Ref{ID: o.ID, Slug: o.Slug}, nil)
	return nil, sent, err
}

// inviteMaintainer runs inviteMaintainer.
func (r *Resolver) inviteMaintainer(ctx context.Context, in InviteMaintainerInput) (invitationSent, error) {
	const op = "graph.inviteMaintainer"
	p, err := r.maintainedProject(ctx, in.Slug)
	if err != nil {
		return invitationSent{}, err
	}
	who, err := r.findInvitee(ctx, in.UsernameOrEmail, true)
	if err != nil {
		return invitationSent{}, err
	}
	if who.user != nil {
		ms, err := r.Store.FindMaintainers(ctx, []int64{p.ID})
		if err != nil {
			return invitationSent{}, err
		}
		for _, m := range ms {
			if m.User.ID == who.user.ID {
				return invitationSent{}, errs.FieldError(op, "usernameOrEmail", fmt.Sprintf("User %s is already a maintainer", strings.TrimSpace(in.UsernameOrEmail)))
			}
		}
	}
	return r.invite(ctx, store.InviteProject, p.ID, who, p.Slug+" project", nil, p)
}

// mayInviteTo checks that the viewer may invite to the invitation's
// target (and so revoke it), and returns the audit references.
func (r *Resolver) mayInviteTo(ctx context.Context, inv *store.Invitation) (*audit.Ref, *store.Project, error) {
	switch inv.ObjectType {
	case store.InviteProject:
		p, err := r.loaders(ctx).projectByID.Load(ctx, inv.ObjectID)
		if err != nil {
			return nil, nil, err
		}
		p, err = r.maintainedProject(ctx, p.Slug)
		return nil, p, err
	default:
		orgID := inv.ObjectID
		if inv.ObjectType == store.InviteTeam {
			ts, err := r.Store.FindTeams(ctx, store.TeamFilter{IDs: []int64{inv.ObjectID}})
			if err != nil {
				return nil, nil, err
			}
			if len(ts) == 0 {
				return nil, nil, errNotFound("graph.mayInviteTo")
			}
			orgID = ts[0].OrganizationID
		}
		os, err := r.Store.FindOrganizationsByIDs(ctx, []int64{orgID})
		if err != nil {
			return nil, nil, err
		}
		if len(os) == 0 {
			return nil, nil, errNotFound("graph.mayInviteTo")
		}
		o, err := r.ownedOrganization(ctx, os[0].Slug)
		if err != nil {
			return nil, nil, err
		}
		return &audit.Ref{ID: o.ID, Slug: o.Slug}, nil, nil
	}
}

// revokeInvitation runs revokeInvitation and returns the invitation's
// global id.
func (r *Resolver) revokeInvitation(ctx context.Context, in RevokeInvitationInput) (string, error) {
	const op = "graph.revokeInvitation"
	v := access.ViewerFrom(ctx)
	if v.User == nil && !v.System {
		return "", errAnonymous(op)
	}
	_, id, err := inputID(nodeInvitation, in.ID)
	if err != nil {
		return "", err
	}
	inv, err := r.Store.FindInvitation(ctx, id)
	if err != nil {
		return "", err
	}
	ref, p, err := r.mayInviteTo(ctx, inv)
	if errs.Is(err, errs.Forbidden) {
		return "", errNotFound(op) // who may not invite does not see invitations
	}
	if err != nil {
		return "", err
	}
	if err := r.Store.DeleteInvitation(ctx, inv.ID); err != nil {
		return "", err
	}
	r.record(ctx, audit.Event{Action: store.AuditInvitationRevoked, User: v.User, Project: p, Organization: ref,
		Data: audit.Invitation(inv)})
	return gid.Encode(nodeInvitation, inv.ID), nil
}

// invitationOrganization resolves Invitation.organization: the target, or
// the team's organization.
func (r *Resolver) invitationOrganization(ctx context.Context, inv *store.Invitation) (*store.Organization, error) {
	orgID := inv.OrganizationID
	if inv.TeamID != nil {
		t, err := r.invitationTeam(ctx, inv)
		if err != nil || t == nil {
			return nil, err
		}
		orgID = &t.OrganizationID
	}
	if orgID == nil {
		return nil, nil
	}
	os, err := r.Store.FindOrganizationsByIDs(ctx, []int64{*orgID})
	if err != nil || len(os) == 0 {
		return nil, err
	}
	return os[0], nil
}

// invitationTeam resolves Invitation.team.
func (r *Resolver) invitationTeam(ctx context.Context, inv *store.Invitation) (*store.Team, error) {
	if inv.TeamID == nil {
		return nil, nil
	}
	ts, err := r.Store.FindTeams(ctx, store.TeamFilter{IDs: []int64{*inv.TeamID}})
	if err != nil || len(ts) == 0 {
		return nil, err
	}
	return ts[0], nil
}

// invitationUser resolves fromUser and toUser.
func (r *Resolver) invitationUser(ctx context.Context, id *int64) (*store.User, error) {
	if id == nil {
		return nil, nil
	}
	u, err := r.loaders(ctx).userByID.Load(ctx, *id)
	if notFoundIs(err) {
		return nil, nil
	}
	return u, err
}

// invitationByToken returns the invitation of a link; an unknown token is
// NotFound.
func (r *Resolver) invitationByToken(ctx context.Context, token string) (*store.Invitation, error) {
	return r.Store.FindInvitationByToken(ctx, strings.TrimSpace(token))
}

// acceptInvitation runs acceptInvitation and returns the invitation (its
// target is what the viewer joined).
func (r *Resolver) acceptInvitation(ctx context.Context, in AcceptInvitationInput) (*store.Invitation, error) {
	const op = "graph.acceptInvitation"
	inv, err := r.invitationByToken(ctx, in.Token)
	if err != nil {
		return nil, err
	}
	u := access.ViewerFrom(ctx).User
	if u == nil {
		return nil, errAnonymous(op)
	}
	if inv.ToUserID != nil && *inv.ToUserID != u.ID {
		to, err := r.invitationUser(ctx, inv.ToUserID)
		if err != nil || to == nil {
			return nil, errNotFound(op)
		}
		return nil, errs.E(errs.Forbidden, op, fmt.Sprintf("This invitation is for another account. Sign out and sign in as %s.", to.Username))
	}
	if inv.Expired(r.Store.Now()) {
		return nil, errs.FieldError(op, "token", store.MsgInvitationExpired)
	}
	if err := r.Store.AcceptInvitation(ctx, inv, u.ID, false); err != nil {
		return nil, err
	}
	r.recordInvitation(ctx, store.AuditInvitationAccepted, inv)
	return inv, nil
}

// declineInvitation runs declineInvitation and returns the invitation's
// global id.
func (r *Resolver) declineInvitation(ctx context.Context, in DeclineInvitationInput) (string, error) {
	inv, err := r.invitationByToken(ctx, in.Token)
	if err != nil {
		return "", err
	}
	if err := r.Store.DeleteInvitation(ctx, inv.ID); err != nil {
		return "", err
	}
	r.recordInvitation(ctx, store.AuditInvitationDeclined, inv)
	return gid.Encode(nodeInvitation, inv.ID), nil
}

// recordInvitation audits an accepted or declined invitation by the
// viewer.
func (r *Resolver) recordInvitation(ctx context.Context, action string, inv *store.Invitation) {
	v := access.ViewerFrom(ctx)
	r.Audit.RecordInvitation(ctx, action, v.User, v.Auth.Backend(), inv)
}

// invitationConnection is connect for invitations.
func invitationConnection(p pager, rows []*store.Invitation, total int) *InvitationConnection {
	c := &InvitationConnection{TotalCount: int64(total)}
	c.Nodes, c.Edges, c.PageInfo = connect(nodeInvitation, p, rows, total, func(x *store.Invitation) int64 { return x.ID },
		func(cursor string, x *store.Invitation) *InvitationEdge {
			return &InvitationEdge{Cursor: cursor, Node: x}
		})
	return c
}

// pendingInvitations pages the invitations of a target; who may read
// them is the caller's to check.
func (r *Resolver) pendingInvitations(ctx context.Context, objectType string, objectID int64, a pageArgs) (*InvitationConnection, error) {
	invs, err := r.Store.FindInvitations(ctx, objectType, objectID)
	if err != nil {
		return nil, err
	}
	return wholeConnection(r, nodeInvitation, a, invs, func(i *store.Invitation) int64 { return i.ID }, invitationConnection)
}

// organizationInvitations pages the pending invitations of an
// organization (objectType organization) or of one of its teams (team),
// for the organization's owners: anyone else is Forbidden.
func (r *Resolver) organizationInvitations(ctx context.Context, orgID int64, objectType string, objectID int64, a pageArgs) (*InvitationConnection, error) {
	st, err := r.standing(ctx, orgID)
	if err != nil {
		return nil, err
	}
	if !access.CanManageOrganization(access.ViewerFrom(ctx), st) {
		return nil, errForbidden("graph.pendingInvitations")
	}
	return r.pendingInvitations(ctx, objectType, objectID, a)
}

// userInvitations pages the invitations to u, for u only (nil for
// anyone else): those naming u and those to an email address u has
// verified, as the viewer's own record says.
func (r *Resolver) userInvitations(ctx context.Context, u *store.User, a pageArgs) (*InvitationConnection, error) {
	v := access.ViewerFrom(ctx).User
	if v == nil || v.ID != u.ID {
		return nil, nil
	}
	invs, err := r.Store.FindInvitationsFor(ctx, v)
	if err != nil {
		return nil, err
	}
	return wholeConnection(r, nodeInvitation, a, invs, func(i *store.Invitation) int64 { return i.ID }, invitationConnection)
}

// invitationNode is the invitation with database id id for node(id:):
// its invitee (the user it names, or the user who has verified its email
// address) and whoever may invite to its target see it; for anyone else
// it is NotFound, as a missing one.
func (r *Resolver) invitationNode(ctx context.Context, id int64) (*store.Invitation, error) {
	const op = "graph.invitationNode"
	inv, err := r.Store.FindInvitation(ctx, id)
	if err != nil {
		return nil, err
	}
	if u := access.ViewerFrom(ctx).User; u != nil {
		if (inv.ToUserID != nil && *inv.ToUserID == u.ID) ||
			(inv.ToEmail != "" && u.EmailVerified && strings.EqualFold(inv.ToEmail, u.Email)) {
			return inv, nil
		}
	}
	switch _, _, err := r.mayInviteTo(ctx, inv); {
	case err == nil:
		return inv, nil
	case errs.KindOf(err) == errs.Internal || errs.KindOf(err) == errs.Unavailable:
		return nil, err
	}
	return nil, errNotFound(op)
}
