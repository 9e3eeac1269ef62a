package graph

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"docsd/graph/gid"
	"docsd/internal/access"
	"docsd/internal/audit"
	"docsd/internal/errs"
	"docsd/internal/slug"
	"docsd/store"
)

// Organizations and teams. Who may see and change them is decided by
// package access (Standing, CanReadOrganization, CanManageOrganization);
// the functions here read the viewer's standing and ask it.

const (
	nodeOrganization = "Organization"
	nodeTeam         = "Team"
)

// standing reads the viewer's standing in the organization.
func (r *Resolver) standing(ctx context.Context, orgID int64) (access.Standing, error) {
	return access.ReadStanding(ctx, r.Store, access.ViewerFrom(ctx), orgID)
}

// visibleOrganization finds an organization the viewer may read; one
// they may not is NotFound, as a missing one.
func (r *Resolver) visibleOrganization(ctx context.Context, orgSlug string) (*store.Organization, access.Standing, error) {
	const op = "graph.organization"
	o, err := r.Store.FindOrganizationBySlug(ctx, orgSlug)
	if err != nil {
		return nil, access.Standing{}, err
	}
	st, err := r.standing(ctx, o.ID)
	if err != nil {
		return nil, st, err
	}
	if !access.CanReadOrganization(access.ViewerFrom(ctx), st) {
		return nil, st, errNotFound(op)
	}
	return o, st, nil
}

// ownedOrganization finds an organization for a write: anonymous callers
// are Unauthenticated, an organization they may not see NotFound, one
// they may not manage Forbidden.
func (r *Resolver) ownedOrganization(ctx context.Context, orgSlug string) (*store.Organization, error) {
	const op = "graph.ownedOrganization"
	v := access.ViewerFrom(ctx)
	if v.User == nil && !v.System {
		return nil, errAnonymous(op)
	}
	o, st, err := r.visibleOrganization(ctx, orgSlug)
	if err != nil {
		return nil, err
	}
	if !access.CanManageOrganization(v, st) {
		return nil, errForbidden(op)
	}
	return o, nil
}

// ownedTeam finds a team of an organization the viewer manages.
func (r *Resolver) ownedTeam(ctx context.Context, orgSlug, teamSlug string) (*store.Organization, *store.Team, error) {
	o, err := r.ownedOrganization(ctx, orgSlug)
	if err != nil {
		return nil, nil, err
	}
	t, err := r.Store.FindTeamBySlug(ctx, o.ID, teamSlug)
	if err != nil {
		return nil, nil, err
	}
	return o, t, nil
}

// The organization fields' rules (Read the Docs' organization form).
var orgSlugChars = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// reservedOrganizationSlugs are the dashboard's own paths under
// /organizations/.
var reservedOrganizationSlugs = []string{"create", "choose", "invite", "verify-email"}

// checkOrganizationFields validates the optional fields of a create or an
// update into f and returns them trimmed.
func checkOrganizationFields(f errs.Fields, email, description, url *string) (e, d, u *string) {
	trim := func(s *string) *string {
		if s == nil {
			return nil
		}
		t := strings.TrimSpace(*s)
		return &t
	}
	e, d, u = trim(email), trim(description), trim(url)
	if e != nil && *e != "" && (utf8.RuneCountInString(*e) > 255 || !validEmail(*e)) {
		f.Add("email", "Enter a valid email address.")
	}
	if d != nil && utf8.RuneCountInString(*d) > 1000 {
		f.Add("description", "Ensure this field has no more than 1000 characters.")
	}
	if u != nil && *u != "" && (utf8.RuneCountInString(*u) > 255 || !validWebURL(*u)) {
		f.Add("url", "Enter a valid URL.")
	}
	return e, d, u
}

// checkOrganizationName validates a name into f.
func checkOrganizationName(f errs.Fields, name string) string {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		f.Add("name", errs.MsgNotBlank)
	case utf8.RuneCountInString(name) > 32:
		f.Add("name", "Ensure this field has no more than 32 characters.")
	}
	return name
}

// createOrganization runs createOrganization.
func (r *Resolver) createOrganization(ctx context.Context, in CreateOrganizationInput) (*store.Organization, error) {
	const op = "graph.createOrganization"
	v := access.ViewerFrom(ctx)
	if err := access.CanCreateOrganization(v, r.Settings.OrganizationCreators); err != nil {
		return nil, err
	}
	f := errs.Fields{}
	name := checkOrganizationName(f, in.Name)
	orgSlug := slug.Project(name)
	if in.Slug != nil && strings.TrimSpace(*in.Slug) != "" {
		given := strings.TrimSpace(*in.Slug)
		if s := slug.Project(given); s == "" {
			f.Add("slug", "Invalid slug, use more valid characters.")
		} else if s != given {
			f.Add("slug", fmt.Sprintf("Invalid slug, use suggested slug '%s' instead", s))
		}
		orgSlug = given
	} else if name != "" && orgSlug == "" {
		f.Add("slug", "Invalid slug, use more valid characters.")
	}
	if !f.Has("slug") && orgSlug != "" {
		switch {
		case utf8.RuneCountInString(orgSlug) > 63:
			f.Add("slug", "Ensure this field has no more than 63 characters.")
		case slices.Contains(reservedOrganizationSlugs, orgSlug):
			f.Add("slug", "This slug is reserved.")
		case !orgSlugChars.MatchString(orgSlug):
			f.Add("slug", "Invalid slug, use more valid characters.")
		default:
			if _, err := r.Store.FindOrganizationBySlug(ctx, orgSlug); err == nil {
				f.Add("slug", "Slug is already used by another organization")
			} else if !notFoundIs(err) {
				return nil, err
			}
		}
	}
	email, desc, url := checkOrganizationFields(f, in.Email, in.Description, in.URL)
	if err := f.Err(op); err != nil {
		return nil, err
	}
	if isTrue(in.ValidateOnly) {
		return nil, nil
	}
	if v.User == nil {
		return nil, errs.FieldError(op, "owner", "The admin commands name the owner of a new organization.")
	}
	o := &store.Organization{Slug: orgSlug, Name: name, Email: deref(email), Description: deref(desc), URL: deref(url)}
	if err := r.Store.CreateOrganization(ctx, o, v.User.ID); err != nil {
		return nil, err
	}
	r.recordOrganization(ctx, store.AuditOrganizationCreated, o, nil, map[string]any{"organization": orgData(o)})
	return o, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// updateOrganization runs updateOrganization.
func (r *Resolver) updateOrganization(ctx context.Context, in UpdateOrganizationInput) (*store.Organization, error) {
	const op = "graph.updateOrganization"
	o, err := r.ownedOrganization(ctx, in.Slug)
	if err != nil {
		return nil, err
	}
	f := errs.Fields{}
	var upd store.OrganizationUpdate
	if in.Name != nil {
		name := checkOrganizationName(f, *in.Name)
		upd.Name = &name
	}
	upd.Email, upd.Description, upd.URL = checkOrganizationFields(f, in.Email, in.Description, in.URL)
	if err := r.checkSSORequired(ctx, f, o, in.SsoRequired); err != nil {
		return nil, err
	}
	upd.SSORequired = in.SsoRequired
	if err := f.Err(op); err != nil {
		return nil, err
	}
	updated, err := r.Store.UpdateOrganization(ctx, o.ID, upd)
	if err != nil {
		return nil, err
	}
	changed := []string{}
	for _, c := range []struct {
		name string
		set  bool
	}{{"name", in.Name != nil}, {"email", in.Email != nil}, {"description", in.Description != nil}, {"url", in.URL != nil}, {"sso_required", in.SsoRequired != nil}} {
		if c.set {
			changed = append(changed, c.name)
		}
	}
	r.recordOrganization(ctx, store.AuditOrganizationChanged, updated, nil, map[string]any{"organization": orgData(updated), "changed": changed})
	return updated, nil
}

// deleteOrganization runs deleteOrganization and returns the deleted
// organization's global id.
func (r *Resolver) deleteOrganization(ctx context.Context, in DeleteOrganizationInput) (string, error) {
	o, err := r.ownedOrganization(ctx, in.Slug)
	if err != nil {
		return "", err
	}
	if err := r.Store.DeleteOrganization(ctx, o.ID); err != nil {
		return "", err
	}
	r.recordOrganization(ctx, store.AuditOrganizationDeleted, o, nil, map[string]any{"organization": orgData(o)})
	return gid.Encode(nodeOrganization, o.ID), nil
}

// userNamed finds a user for an organization write; a missing one is
// Invalid on field, with Read the Docs' message.
func (r *Resolver) userNamed(ctx context.Context, field, name string) (*store.User, error) {
	u, err := r.Store.FindUserByUsername(ctx, strings.TrimSpace(name))
	if notFoundIs(err) || (err == nil && !u.IsActive) {
		return nil, errs.FieldError("graph.userNamed", field, fmt.Sprintf("User %s does not exist", strings.TrimSpace(name)))
	}
	return u, err
}

// changeOwner adds (the admin commands only) or removes an owner.
func (r *Resolver) changeOwner(ctx context.Context, orgSlug, username string, add bool) (*store.Organization, error) {
	const op = "graph.changeOwner"
	o, err := r.ownedOrganization(ctx, orgSlug)
	if err != nil {
		return nil, err
	}
	if add && !access.ViewerFrom(ctx).System {
		return nil, errForbidden(op)
	}
	u, err := r.userNamed(ctx, "username", username)
	if err != nil {
		return nil, err
	}
	if add {
		// err is the outer one: the add's refusal (the owners limit) must
		// reach the check below.
		var owners []*store.OrganizationUser
		owners, err = r.Store.FindOrganizationOwners(ctx, []int64{o.ID})
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(owners, func(x *store.OrganizationUser) bool { return x.ID == u.ID }) {
			return nil, errs.FieldError(op, "username", fmt.Sprintf("User %s is already an owner", u.Username))
		}
		err = r.Store.AddOrganizationOwner(ctx, o.ID, u.ID)
	} else {
		err = r.Store.RemoveOrganizationOwner(ctx, o.ID, u.ID)
		if notFoundIs(err) {
			return nil, errs.FieldError(op, "username", fmt.Sprintf("User %s is not an owner", u.Username))
		}
	}
	if err != nil {
		return nil, err
	}
	action := store.AuditOwnerAdded
	if !add {
		action = store.AuditOwnerRemoved
	}
	r.recordOrganization(ctx, action, o, nil, map[string]any{"organization": orgData(o), "owner": audit.User(u)})
	return o, nil
}

// teamProjects reads project slugs of organization o for field; a slug
// that names no project of o is Invalid.
func (r *Resolver) teamProjects(ctx context.Context, f errs.Fields, field string, o *store.Organization, slugs []string) ([]int64, error) {
	var ids []int64
	for _, s := range slugs {
		p, err := r.Store.FindProjectBySlug(ctx, strings.TrimSpace(s))
		if err != nil && !notFoundIs(err) {
			return nil, err
		}
		if err != nil || p.OrganizationID == nil || *p.OrganizationID != o.ID {
			f.Add(field, fmt.Sprintf("Object with slug=%s does not exist.", s))
			continue
		}
		ids = append(ids, p.ID)
	}
	return ids, nil
}

// checkTeamName validates a team's name into f.
func checkTeamName(f errs.Fields, name string) string {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		f.Add("name", "This field is required.")
	case utf8.RuneCountInString(name) > 100:
		f.Add("name", "Ensure this field has no more than 100 characters.")
	}
	return name
}

// createTeam runs createTeam.
func (r *Resolver) createTeam(ctx context.Context, in CreateTeamInput) (*store.Team, error) {
	const op = "graph.createTeam"
	o, err := r.ownedOrganization(ctx, in.Organization)
	if err != nil {
		return nil, err
	}
	f := errs.Fields{}
	name := checkTeamName(f, in.Name)
	teamSlug := slug.Project(name)
	if name != "" && teamSlug == "" {
		f.Add("name", "Invalid slug, use more valid characters.")
	}
	projects, err := r.teamProjects(ctx, f, "projects", o, in.Projects)
	if err != nil {
		return nil, err
	}
	if err := f.Err(op); err != nil {
		return nil, err
	}
	t := &store.Team{OrganizationID: o.ID, Slug: teamSlug, Name: name, Access: store.TeamReadonly}
	if in.Access != nil {
		t.Access = *in.Access
	}
	if in.AutoJoinEmailUsers != nil {
		t.AutoJoinEmailUsers = *in.AutoJoinEmailUsers
	}
	if err := r.Store.CreateTeam(ctx, t, projects); err != nil {
		return nil, err
	}
	r.recordOrganization(ctx, store.AuditTeamCreated, o, nil, map[string]any{"team": teamData(o, t)})
	r.recordTeamProjects(ctx, store.AuditTeamProjectAdded, o, t, projects)
	return t, nil
}

// updateTeam runs updateTeam.
func (r *Resolver) updateTeam(ctx context.Context, in UpdateTeamInput) (*store.Team, error) {
	const op = "graph.updateTeam"
	o, t, err := r.ownedTeam(ctx, in.Organization, in.Slug)
	if err != nil {
		return nil, err
	}
	f := errs.Fields{}
	upd := store.TeamUpdate{Access: in.Access, AutoJoinEmailUsers: in.AutoJoinEmailUsers}
	if in.Name != nil {
		name := checkTeamName(f, *in.Name)
		upd.Name = &name
	}
	if in.Projects != nil {
		if upd.Projects, err = r.teamProjects(ctx, f, "projects", o, in.Projects); err != nil {
			return nil, err
		}
		if upd.Projects == nil {
			upd.Projects = []int64{}
		}
	}
	if err := f.Err(op); err != nil {
		return nil, err
	}
	var before []int64
	if upd.Projects != nil {
		tps, err := r.Store.FindTeamProjects(ctx, []int64{t.ID})
		if err != nil {
			return nil, err
		}
		for _, tp := range tps {
			before = append(before, tp.ProjectID)
		}
	}
	updated, err := r.Store.UpdateTeam(ctx, t.ID, upd)
	if err != nil {
		return nil, err
	}
	changed := []string{}
	for _, c := range []struct {
		name string
		set  bool
	}{{"name", in.Name != nil}, {"access", in.Access != nil}, {"auto_join_email_users", in.AutoJoinEmailUsers != nil}, {"projects", in.Projects != nil}} {
		if c.set {
			changed = append(changed, c.name)
		}
	}
	r.recordOrganization(ctx, store.AuditTeamChanged, o, nil, map[string]any{"team": teamData(o, updated), "changed": changed})
	if upd.Projects != nil {
		var added, removed []int64
		for _, id := range upd.Projects {
			if !slices.Contains(before, id) {
				added = append(added, id)
			}
		}
		for _, id := range before {
			if !slices.Contains(upd.Projects, id) {
				removed = append(removed, id)
			}
		}
		r.recordTeamProjects(ctx, store.AuditTeamProjectAdded, o, updated, added)
		r.recordTeamProjects(ctx, store.AuditTeamProjectRemoved, o, updated, removed)
	}
	return updated, nil
}

// deleteTeam runs deleteTeam and returns the team's global id.
func (r *Resolver) deleteTeam(ctx context.Context, in DeleteTeamInput) (string, error) {
	o, t, err := r.ownedTeam(ctx, in.Organization, in.Slug)
	if err != nil {
		return "", err
	}
	if err := r.Store.DeleteTeam(ctx, t.ID); err != nil {
		return "", err
	}
	r.recordOrganization(ctx, store.AuditTeamDeleted, o, nil, map[string]any{"team": teamData(o, t)})
	return gid.Encode(nodeTeam, t.ID), nil
}

// removeTeamMember removes a member from a team.
func (r *Resolver) removeTeamMember(ctx context.Context, in RemoveTeamMemberInput) (*store.Team, error) {
	const op = "graph.removeTeamMember"
	o, t, err := r.ownedTeam(ctx, in.Organization, in.Team)
	if err != nil {
		return nil, err
	}
	u, err := r.userNamed(ctx, "username", in.Username)
	if err != nil {
		return nil, err
	}
	err = r.Store.RemoveTeamMember(ctx, t.ID, u.ID)
	if notFoundIs(err) {
		return nil, errs.FieldError(op, "username", fmt.Sprintf("User %s is not a member of this team", u.Username))
	}
	if err != nil {
		return nil, err
	}
	r.recordOrganization(ctx, store.AuditTeamMemberRemoved, o, nil, map[string]any{"team": teamData(o, t), "member": audit.User(u)})
	return t, nil
}

// changeTeamProject adds a project of the organization to a team, or
// removes it.
func (r *Resolver) changeTeamProject(ctx context.Context, orgSlug, teamSlug, projectSlug string, add bool) (*store.Team, error) {
	const op = "graph.changeTeamProject"
	o, t, err := r.ownedTeam(ctx, orgSlug, teamSlug)
	if err != nil {
		return nil, err
	}
	f := errs.Fields{}
	ids, err := r.teamProjects(ctx, f, "project", o, []string{projectSlug})
	if err != nil {
		return nil, err
	}
	if err := f.Err(op); err != nil {
		return nil, err
	}
	action := store.AuditTeamProjectAdded
	if add {
		err = r.Store.AddTeamProject(ctx, t.ID, ids[0])
	} else if err = r.Store.RemoveTeamProject(ctx, t.ID, ids[0]); notFoundIs(err) {
		err = errs.FieldError(op, "project", fmt.Sprintf("Object with slug=%s does not exist.", projectSlug))
	}
	if err != nil {
		return nil, err
	}
	if !add {
		action = store.AuditTeamProjectRemoved
	}
	r.recordTeamProjects(ctx, action, o, t, ids)
	return t, nil
}

// Messages of project moves and project creation in organizations.
const (
	msgMoveParent         = "Move the parent project instead: subprojects and translations follow it."
	msgNoOwnMaintainers   = "The project has no maintainers of its own: add one before it leaves the organization."
	msgNeedAdminTeam      = "You must be on a team with admin permissions in order to add a new project to your organization."
	msgTeamsNeedOrg       = "Teams require an organization."
	msgSelectAdminTeam    = "Select at least one admin team you are a member of."
	msgChildSameOrg       = "Project must belong to the same organization as its parent."
	msgTranslationSameOrg = "Project must belong to the same organization as its main project."
)

// setProjectOrganization moves a project with its subprojects and
// translations.
func (r *Resolver) setProjectOrganization(ctx context.Context, in SetProjectOrganizationInput) (*store.Project, error) {
	const op = "graph.setProjectOrganization"
	p, err := r.maintainedProject(ctx, in.Slug)
	if err != nil {
		return nil, err
	}
	v := access.ViewerFrom(ctx)
	if p.ParentID != nil || p.TranslationOf != nil {
		return nil, errs.E(errs.Conflict, op, msgMoveParent)
	}
	var from, to *access.Standing
	if p.OrganizationID != nil {
		st, err := r.standing(ctx, *p.OrganizationID)
		if err != nil {
			return nil, err
		}
		from = &st
	}
	var target *store.Organization
	if in.Organization != nil {
		o, st, err := r.visibleOrganization(ctx, *in.Organization)
		if err != nil {
			return nil, err
		}
		target, to = o, &st
	}
	if !access.CanMoveProject(v, from, to) {
		return nil, errForbidden(op)
	}
	moved, err := r.projectFamily(ctx, p)
	if err != nil {
		return nil, err
	}
	var ids []int64
	for _, m := range moved {
		if ok, err := r.isMaintainer(ctx, m); err != nil || !ok {
			if err == nil {
				err = errForbidden(op)
			}
			return nil, err
		}
		ids = append(ids, m.ID)
	}
	f := errs.Fields{}
	var teamIDs []int64
	if target == nil {
		if len(in.Teams) > 0 {
			f.Add("teams", msgTeamsNeedOrg)
		}
		ms, err := r.Store.FindMaintainerships(ctx, ids)
		if err != nil {
			return nil, err
		}
		for _, m := range moved {
			if !slices.ContainsFunc(ms, func(x store.Maintainership) bool { return x.ProjectID == m.ID }) {
				return nil, errs.E(errs.Conflict, op, msgNoOwnMaintainers)
			}
		}
	} else {
		for _, s := range in.Teams {
			t, err := r.Store.FindTeamBySlug(ctx, target.ID, strings.TrimSpace(s))
			if notFoundIs(err) {
				f.Add("teams", fmt.Sprintf("Object with slug=%s does not exist.", s))
				continue
			}
			if err != nil {
				return nil, err
			}
			teamIDs = append(teamIDs, t.ID)
		}
	}
	if err := f.Err(op); err != nil {
		return nil, err
	}
	var orgID *int64
	if target != nil {
		orgID = &target.ID
	}
	var source *store.Organization
	if p.OrganizationID != nil {
		orgs, err := r.Store.FindOrganizationsByIDs(ctx, []int64{*p.OrganizationID})
		if err != nil {
			return nil, err
		}
		if len(orgs) == 1 {
			source = orgs[0]
		}
	}
	if err := r.Store.SetProjectsOrganization(ctx, ids, orgID, teamIDs); err != nil {
		return nil, err
	}
	r.recordProjectMoves(ctx, moved, source, target, teamIDs)
	return r.Store.FindProjectByID(ctx, p.ID)
}

// projectFamily is p with its subprojects and the translations of each.
func (r *Resolver) projectFamily(ctx context.Context, p *store.Project) ([]*store.Project, error) {
	out := []*store.Project{p}
	rels, _, err := r.Store.FindRelationships(ctx, store.RelationshipFilter{ParentIDs: []int64{p.ID}})
	if err != nil {
		return nil, err
	}
	for _, rel := range rels {
		c, err := r.Store.FindProjectByID(ctx, rel.ChildID)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	for _, m := range slices.Clone(out) {
		ts, _, err := r.Store.FindProjects(ctx, store.ProjectFilter{TranslationOf: &m.ID})
		if err != nil {
			return nil, err
		}
		out = append(out, ts...)
	}
	return out, nil
}

// projectPlacement checks importProject's organization and teams fields
// (in this order: organization, then teams) into f and returns the
// organization's id and the teams' ids.
func (r *Resolver) projectPlacement(ctx context.Context, f errs.Fields, orgSlug *string, teamSlugs []string, teamsGiven bool) (*int64, []int64, error) {
	v := access.ViewerFrom(ctx)
	if orgSlug == nil || strings.TrimSpace(*orgSlug) == "" {
		if teamsGiven && len(teamSlugs) > 0 {
			f.Add("teams", msgTeamsNeedOrg)
		}
		return nil, nil, nil
	}
	given := strings.TrimSpace(*orgSlug)
	o, err := r.Store.FindOrganizationBySlug(ctx, given)
	if err != nil && !notFoundIs(err) {
		return nil, nil, err
	}
	var st access.Standing
	if err == nil {
		if st, err = r.standing(ctx, o.ID); err != nil {
			return nil, nil, err
		}
	}
	if o == nil || o.ID == 0 || !(st.Member || v.System) {
		f.Add("organization", fmt.Sprintf("Object with slug=%s does not exist.", given))
		return nil, nil, nil
	}
	var adminTeams []*store.Team
	if v.User != nil {
		mine, err := r.Store.FindTeams(ctx, store.TeamFilter{OrganizationIDs: []int64{o.ID}, MemberID: &v.User.ID})
		if err != nil {
			return nil, nil, err
		}
		for _, t := range mine {
			if t.Access == store.TeamAdmin {
				adminTeams = append(adminTeams, t)
			}
		}
	}
	owner := st.Owner || v.System
	if !owner && len(adminTeams) == 0 {
		f.Add("organization", msgNeedAdminTeam)
		return nil, nil, nil
	}
	var ids []int64
	chosenAdmin := false
	for _, s := range teamSlugs {
		t, err := r.Store.FindTeamBySlug(ctx, o.ID, strings.TrimSpace(s))
		if notFoundIs(err) {
			f.Add("teams", fmt.Sprintf("Object with slug=%s does not exist.", s))
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		ids = append(ids, t.ID)
		if slices.ContainsFunc(adminTeams, func(a *store.Team) bool { return a.ID == t.ID }) {
			chosenAdmin = true
		}
	}
	if !owner && !chosenAdmin && !f.Has("teams") {
		f.Add("teams", msgSelectAdminTeam)
	}
	return &o.ID, ids, nil
}

// sameOrganization reports whether two projects are in the same
// organization (or both in none).
func sameOrganization(a, b *store.Project) bool {
	if a.OrganizationID == nil || b.OrganizationID == nil {
		return a.OrganizationID == nil && b.OrganizationID == nil
	}
	return *a.OrganizationID == *b.OrganizationID
}

// Reads.

// organizationAccess answers organizationAccess.
func (r *Resolver) organizationAccess(ctx context.Context, orgSlug string) (*OrganizationAccess, error) {
	if access.ViewerFrom(ctx).User == nil {
		return &OrganizationAccess{}, nil
	}
	o, err := r.Store.FindOrganizationBySlug(ctx, orgSlug)
	if notFoundIs(err) {
		return &OrganizationAccess{}, nil
	}
	if err != nil {
		return nil, err
	}
	st, err := r.standing(ctx, o.ID)
	return &OrganizationAccess{Exists: true, Member: st.Member, Owner: st.Owner}, err
}

// organizationConnection is connect for organizations.
func organizationConnection(p pager, rows []*store.Organization, total int) *OrganizationConnection {
	c := &OrganizationConnection{TotalCount: int64(total)}
	c.Nodes, c.Edges, c.PageInfo = connect(nodeOrganization, p, rows, total, func(x *store.Organization) int64 { return x.ID },
		func(cursor string, x *store.Organization) *OrganizationEdge {
			return &OrganizationEdge{Cursor: cursor, Node: x}
		})
	return c
}

// teamConnection is connect for teams.
func teamConnection(p pager, rows []*store.Team, total int) *TeamConnection {
	c := &TeamConnection{TotalCount: int64(total)}
	c.Nodes, c.Edges, c.PageInfo = connect(nodeTeam, p, rows, total, func(x *store.Team) int64 { return x.ID },
		func(cursor string, x *store.Team) *TeamEdge { return &TeamEdge{Cursor: cursor, Node: x} })
	return c
}

// organizations lists the viewer's organizations.
func (r *Resolver) organizations(ctx context.Context, a pageArgs) (*OrganizationConnection, error) {
	v := access.ViewerFrom(ctx)
	if v.User == nil {
		return nil, errAnonymous("graph.organizations")
	}
	pg, err := r.page(nodeOrganization, pageArgs{limit: a.limit, offset: a.offset})
	if a.first != nil || a.last != nil || a.after != nil || a.before != nil {
		pg, err = r.page(nodeOrganization, a)
	}
	if err != nil {
		return nil, err
	}
	all, total, err := r.Store.FindOrganizations(ctx, store.OrganizationFilter{MemberID: &v.User.ID})
	if err != nil {
		return nil, err
	}
	rows := all
	if pg.Keyset != nil {
		if rows, err = pageSlice(pg, all, func(o *store.Organization) int64 { return o.ID }); err != nil {
			return nil, err
		}
	} else {
		rows = all[min(pg.Offset, len(all)):min(pg.Offset+pg.Limit, len(all))]
	}
	return organizationConnection(pg, rows, total), nil
}

// visibleTeams are the teams of o the viewer sees, in creation order;
// filter narrows them further.
func (r *Resolver) visibleTeams(ctx context.Context, o *store.Organization, f store.TeamFilter) ([]*store.Team, error) {
	st, err := r.standing(ctx, o.ID)
	if err != nil {
		return nil, err
	}
	v := access.ViewerFrom(ctx)
	if !access.CanReadOrganization(v, st) {
		return []*store.Team{}, nil
	}
	f.OrganizationIDs = []int64{o.ID}
	if !access.SeesAllTeams(v, st) {
		id := v.UserID()
		f.MemberID = &id
	}
	return r.Store.FindTeams(ctx, f)
}

// organizationMembers are the people of o the viewer sees, by username.
func (r *Resolver) organizationMembers(ctx context.Context, o *store.Organization) ([]*store.User, error) {
	teams, err := r.visibleTeams(ctx, o, store.TeamFilter{})
	if err != nil {
		return nil, err
	}
	ids := make([]int64, len(teams))
	for i, t := range teams {
		ids[i] = t.ID
	}
	members, err := r.Store.FindTeamMembers(ctx, ids)
	if err != nil {
		return nil, err
	}
	owners, err := r.Store.FindOrganizationOwners(ctx, []int64{o.ID})
	if err != nil {
		return nil, err
	}
	seen := map[int64]bool{}
	users := []*store.User{}
	for _, m := range append(owners, members...) {
		if !seen[m.ID] {
			seen[m.ID] = true
			u := m.User
			users = append(users, &u)
		}
	}
	slices.SortFunc(users, func(a, b *store.User) int { return strings.Compare(a.Username, b.Username) })
	return users, nil
}

// teamMembers are a team's members when the viewer sees the team.
func (r *Resolver) teamMembers(ctx context.Context, t *store.Team) ([]*store.User, error) {
	ms, err := r.Store.FindTeamMembers(ctx, []int64{t.ID})
	if err != nil {
		return nil, err
	}
	users := make([]*store.User, len(ms))
	for i, m := range ms {
		u := m.User
		users[i] = &u
	}
	return users, nil
}

// projectOrganization is p's organization when the viewer may read it.
func (r *Resolver) projectOrganization(ctx context.Context, p *store.Project) (*store.Organization, error) {
	if p.OrganizationID == nil {
		return nil, nil
	}
	os, err := r.Store.FindOrganizationsByIDs(ctx, []int64{*p.OrganizationID})
	if err != nil || len(os) == 0 {
		return nil, err
	}
	st, err := r.standing(ctx, os[0].ID)
	if err != nil || !access.CanReadOrganization(access.ViewerFrom(ctx), st) {
		return nil, err
	}
	return os[0], nil
}

// organizationSlug is the slug of p's organization, nil outside one.
func (r *Resolver) organizationSlug(ctx context.Context, p *store.Project) (*string, error) {
	if p.OrganizationID == nil {
		return nil, nil
	}
	os, err := r.Store.FindOrganizationsByIDs(ctx, []int64{*p.OrganizationID})
	if err != nil || len(os) == 0 {
		return nil, err
	}
	return &os[0].Slug, nil
}

// projectTeams are the teams including p that the viewer sees.
func (r *Resolver) projectTeams(ctx context.Context, p *store.Project) ([]*store.Team, error) {
	if p.OrganizationID == nil {
		return []*store.Team{}, nil
	}
	return r.visibleTeams(ctx, &store.Organization{ID: *p.OrganizationID}, store.TeamFilter{ProjectIDs: []int64{p.ID}})
}

// userOrganizations are the organizations of u, for u themself.
func (r *Resolver) userOrganizations(ctx context.Context, u *store.User) ([]*store.Organization, error) {
	if access.ViewerFrom(ctx).UserID() != u.ID {
		return nil, nil
	}
	os, _, err := r.Store.FindOrganizations(ctx, store.OrganizationFilter{MemberID: &u.ID})
	return os, err
}

// orgProjects lists the projects of o that the viewer may see.
func (r *Resolver) orgProjects(ctx context.Context, o *store.Organization, teamID *int64, a pageArgs) (*ProjectConnection, error) {
	pg, err := r.page(nodeProject, a)
	if err != nil {
		return nil, err
	}
	f := store.ProjectFilter{OrganizationID: &o.ID, Visible: visibility(ctx), Limit: pg.Limit, Offset: pg.Offset, Keyset: pg.Keyset}
	if teamID != nil {
		tps, err := r.Store.FindTeamProjects(ctx, []int64{*teamID})
		if err != nil {
			return nil, err
		}
		f.IDs = []int64{}
		for _, tp := range tps {
			f.IDs = append(f.IDs, tp.ProjectID)
		}
	}
	ps, total, err := r.Store.FindProjects(ctx, f)
	if err != nil {
		return nil, err
	}
	r.prefetchProjects(ctx, ps, childSelection(ctx))
	return projectConnection(pg, r.projectViews(ctx, ps), total), nil
}

// nullIfEmpty is s, or nil when empty (an optional field not given).
func nullIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
