package store

import (
	"context"
	"strconv"
	"strings"
	"time"

	"docsd/internal/errs"
)

// Organization groups projects under owners and teams. Email, Description
// and URL are "" when not given.
type Organization struct {
	ID          int64     `db:"id"`
	Slug        string    `db:"slug"`
	Name        string    `db:"name"`
	Email       string    `db:"email"`
	Description string    `db:"description"`
	URL         string    `db:"url"`
	Created     time.Time `db:"created"`
	Modified    time.Time `db:"modified"`
	// SSORequired keeps the people of the SSO domains (superusers
	// excepted) off passwords: they sign in through the identity provider.
	SSORequired bool `db:"sso_required"`
}

// Team access levels: an admin team's members administer the team's
// projects, a readonly team's members read them.
const (
	TeamAdmin    = "admin"
	TeamReadonly = "readonly"
)

// Team is a group of an organization's members with one access level on
// some of the organization's projects.
type Team struct {
	ID                 int64     `db:"id"`
	OrganizationID     int64     `db:"organization_id"`
	Slug               string    `db:"slug"`
	Name               string    `db:"name"`
	Access             string    `db:"access"`
	AutoJoinEmailUsers bool      `db:"auto_join_email_users"`
	Created            time.Time `db:"created"`
	Modified           time.Time `db:"modified"`
}

// The limits of an organization (a refusal is a Conflict with the message).
const (
	MaxTeamsPerOrganization  = 100
	MaxMembersPerTeam        = 1000
	MaxOwnersPerOrganization = 50

	msgTooManyTeams   = "An organization can have at most 100 teams."
	msgTooManyMembers = "A team can have at most 1000 members."
	msgTooManyOwners  = "An organization can have at most 50 owners."
)

var organizationRows = newRowType(
	col[Organization]{"o.id", func(o *Organization) any { return &o.ID }},
	col[Organization]{"o.slug", func(o *Organization) any { return &o.Slug }},
	col[Organization]{"o.name", func(o *Organization) any { return &o.Name }},
	col[Organization]{"o.email", func(o *Organization) any { return &o.Email }},
	col[Organization]{"o.description", func(o *Organization) any { return &o.Description }},
	col[Organization]{"o.url", func(o *Organization) any { return &o.URL }},
	col[Organization]{"o.created", func(o *Organization) any { return &o.Created }},
	col[Organization]{"o.modified", func(o *Organization) any { return &o.Modified }},
	col[Organization]{"o.sso_required", func(o *Organization) any { return &o.SSORequired }},
)

var teamRows = newRowType(
	col[Team]{"t.id", func(t *Team) any { return &t.ID }},
	col[Team]{"t.organization_id", func(t *Team) any { return &t.OrganizationID }},
	col[Team]{"t.slug", func(t *Team) any { return &t.Slug }},
	col[Team]{"t.name", func(t *Team) any { return &t.Name }},
	col[Team]{"t.access", func(t *Team) any { return &t.Access }},
	col[Team]{"t.auto_join_email_users", func(t *Team) any { return &t.AutoJoinEmailUsers }},
	col[Team]{"t.created", func(t *Team) any { return &t.Created }},
	col[Team]{"t.modified", func(t *Team) any { return &t.Modified }},
)

// memberOfOrganization is the SQL condition "user ? is a member of
// organization o.id": an owner, or in one of its teams.
const memberOfOrganization = `(o.id IN (SELECT organization_id FROM organization_owners WHERE user_id = ?)
	OR o.id IN (SELECT tt.organization_id FROM teams tt JOIN team_members tm ON tm.team_id = tt.id WHERE tm.user_id = ?))`

// readableProjectIDs and adminProjectIDs are the SQL sets of the projects
// user ? (three times) reads or administers: as a direct maintainer, an
// owner of the project's organization, or a member of a team that includes
// the project (an admin team for adminProjectIDs).
const (
	readableProjectIDs = `SELECT project_id FROM project_users WHERE user_id = ?
		UNION SELECT op.id FROM projects op JOIN organization_owners oo ON oo.organization_id = op.organization_id WHERE oo.user_id = ?
		UNION SELECT tp.project_id FROM team_projects tp JOIN team_members tm ON tm.team_id = tp.team_id WHERE tm.user_id = ?`
	adminProjectIDs = `SELECT project_id FROM project_users WHERE user_id = ?
		UNION SELECT op.id FROM projects op JOIN organization_owners oo ON oo.organization_id = op.organization_id WHERE oo.user_id = ?
		UNION SELECT tp.project_id FROM team_projects tp JOIN team_members tm ON tm.team_id = tp.team_id
			JOIN teams ta ON ta.id = tp.team_id WHERE tm.user_id = ? AND ta.access = 'admin'`
)

// OrganizationFilter selects organizations. Nil fields do not filter.
type OrganizationFilter struct {
	IDs      []int64
	MemberID *int64 // organizations this user owns or is in a team of
	OwnerID  *int64
	Limit    int
	Offset   int
}

// FindOrganizations returns the matching organizations by name, then
// slug, and how many match regardless of Limit and Offset.
func (s *Store) FindOrganizations(ctx context.Context, f OrganizationFilter) ([]*Organization, int, error) {
	const op = "store.FindOrganizations"
	w := &where{}
	if f.IDs != nil {
		if len(f.IDs) == 0 {
			w.add("1=0")
		} else {
			w.add("o.id IN (?)", f.IDs)
		}
	}
	if f.MemberID != nil {
		w.add(memberOfOrganization, *f.MemberID, *f.MemberID)
	}
	if f.OwnerID != nil {
		w.add("o.id IN (SELECT organization_id FROM organization_owners WHERE user_id = ?)", *f.OwnerID)
	}
	var total int
	if err := s.read().getIn(ctx, &total, `SELECT COUNT(*) FROM organizations o`+w.String(), w.args...); err != nil {
		return nil, 0, classify(op, err)
	}
	q := `SELECT ` + organizationRows.cols + ` FROM organizations o` + w.String() + ` ORDER BY o.name, o.slug, o.id`
	if f.Limit > 0 || f.Offset > 0 {
		q = s.page(q, f.Limit, f.Offset)
	}
	orgs := []*Organization{}
	err := scanAll(ctx, s.read(), &orgs, organizationRows.next, q, w.args...)
	return orgs, total, classify(op, err)
}

// FindOrganizationBySlug returns the organization with that slug.
func (s *Store) FindOrganizationBySlug(ctx context.Context, slug string) (*Organization, error) {
	if !storable(slug) {
		return nil, errNotStorable("store.FindOrganizationBySlug")
	}
	var o Organization
	err := getRow(ctx, s.read(), organizationRows, &o, `SELECT `+organizationRows.cols+` FROM organizations o WHERE o.slug = ?`, slug)
	return &o, classify("store.FindOrganizationBySlug", err)
}

// FindOrganizationsByIDs returns the organizations with those ids, in no
// order.
func (s *Store) FindOrganizationsByIDs(ctx context.Context, ids []int64) ([]*Organization, error) {
	orgs, _, err := s.FindOrganizations(ctx, OrganizationFilter{IDs: ids})
	return orgs, err
}

// CreateOrganization stores a new organization with ownerID as its only
// owner and its two default teams: Admins (admin access, the owner as its
// member) and Read Only (readonly). A taken slug is a Conflict.
func (s *Store) CreateOrganization(ctx context.Context, o *Organization, ownerID int64) error {
	const op = "store.CreateOrganization"
	err := s.InTx(ctx, op, func(tx *Tx) error {
		o.Created, o.Modified = tx.Now, tx.Now
		id, err := tx.insert(ctx, `INSERT INTO organizations (slug, name, email, description, url, created, modified)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, o.Slug, o.Name, o.Email, o.Description, o.URL, tx.Now, tx.Now)
		if err != nil {
			return err
		}
		o.ID = id
		if _, err := tx.exec(ctx, `INSERT INTO organization_owners (organization_id, user_id) VALUES (?, ?)`, id, ownerID); err != nil {
			return err
		}
		admins, err := tx.insert(ctx, `INSERT INTO teams (organization_id, slug, name, access, created, modified) VALUES (?, 'admins', 'Admins', 'admin', ?, ?)`, id, tx.Now, tx.Now)
		if err != nil {
			return err
		}
		if _, err := tx.exec(ctx, `INSERT INTO team_members (team_id, user_id) VALUES (?, ?)`, admins, ownerID); err != nil {
			return err
		}
		_, err = tx.exec(ctx, `INSERT INTO teams (organization_id, slug, name, access, created, modified) VALUES (?, 'read-only', 'Read Only', 'readonly', ?, ?)`, id, tx.Now, tx.Now)
		return err
	})
	if errs.Is(err, errs.Conflict) {
		return &errs.Error{Kind: errs.Conflict, Op: op, Fields: errs.Fields{"slug": {"Slug is already used by another organization"}}, Err: err}
	}
	return err
}

// OrganizationUpdate lists the fields to change; nil fields stay.
type OrganizationUpdate struct {
	Name, Email, Description, URL *string
	// SSORequired turned on also ends the password-made dashboard
	// sessions of the people it concerns (requireSSO).
	SSORequired *bool
}

// UpdateOrganization changes an organization's fields and returns it.
func (s *Store) UpdateOrganization(ctx context.Context, id int64, upd OrganizationUpdate) (*Organization, error) {
	const op = "store.UpdateOrganization"
	var o Organization
	err := s.InTx(ctx, op, func(tx *Tx) error {
		set := &setter{}
		if upd.Name != nil {
			set.set("name", *upd.Name)
		}
		if upd.Email != nil {
			set.set("email", *upd.Email)
		}
		if upd.Description != nil {
			set.set("description", *upd.Description)
		}
		if upd.URL != nil {
			set.set("url", *upd.URL)
		}
		if upd.SSORequired != nil {
			set.set("sso_required", *upd.SSORequired)
			if *upd.SSORequired {
				if err := tx.requireSSO(ctx, id); err != nil {
					return err
				}
			}
		}
		set.set("modified", tx.Now)
		res, err := tx.exec(ctx, `UPDATE organizations SET `+strings.Join(set.cols, ", ")+` WHERE id = ?`, append(set.args, id)...)
		if err := mustAffect(op, res, err); err != nil {
			return err
		}
		return getRow(ctx, tx.conn, organizationRows, &o, `SELECT `+organizationRows.cols+` FROM organizations o WHERE o.id = ?`, id)
	})
	return &o, err
}

// DeleteOrganization removes an organization with its teams. An
// organization that still has projects is a Conflict.
func (s *Store) DeleteOrganization(ctx context.Context, id int64) error {
	const op = "store.DeleteOrganization"
	return s.InTx(ctx, op, func(tx *Tx) error {
		var n int
		if err := tx.get(ctx, &n, `SELECT COUNT(*) FROM projects WHERE organization_id = ?`, id); err != nil {
			return err
		}
		if n > 0 {
			return errs.E(errs.Conflict, op, "The organization still has projects: move or delete them first.")
		}
		res, err := tx.exec(ctx, `DELETE FROM organizations WHERE id = ?`, id)
		return mustAffect(op, res, err)
	})
}

// OrganizationUser is a user in an organization's list of owners, or in a
// team's list of members (TeamID set).
type OrganizationUser struct {
	OrganizationID int64
	TeamID         int64
	User
}

// FindOrganizationOwners returns the owners of the organizations in the
// order they were added.
func (s *Store) FindOrganizationOwners(ctx context.Context, orgIDs []int64) ([]*OrganizationUser, error) {
	if len(orgIDs) == 0 {
		return nil, nil
	}
	var out []*OrganizationUser
	err := scanAll(ctx, s.read(), &out, func(buf []any) (*OrganizationUser, []any) {
		m := new(OrganizationUser)
		return m, userRows.dests(append(buf, &m.OrganizationID), &m.User)
	}, `SELECT m.organization_id, `+userRows.cols+` FROM organization_owners m JOIN users u ON u.id = m.user_id
		WHERE m.organization_id IN (?) ORDER BY m.id`, orgIDs)
	return out, classify("store.FindOrganizationOwners", err)
}

// AddOrganizationOwner makes the user an owner of the organization. An
// owner already is a Conflict, and so is a 51st owner.
func (s *Store) AddOrganizationOwner(ctx context.Context, orgID, userID int64) error {
	const op = "store.AddOrganizationOwner"
	return s.InTx(ctx, op, func(tx *Tx) error {
		if err := tx.lockOrganization(ctx, orgID); err != nil {
			return err
		}
		var n int
		if err := tx.get(ctx, &n, `SELECT COUNT(*) FROM organization_owners WHERE organization_id = ?`, orgID); err != nil {
			return err
		}
		if n >= MaxOwnersPerOrganization {
			return errs.E(errs.Conflict, op, msgTooManyOwners)
		}
		_, err := tx.exec(ctx, `INSERT INTO organization_owners (organization_id, user_id) VALUES (?, ?)`, orgID, userID)
		return err
	})
}

// RemoveOrganizationOwner removes an owner. The last owner can't be
// removed (Conflict); a user who is no owner is NotFound.
func (s *Store) RemoveOrganizationOwner(ctx context.Context, orgID, userID int64) error {
	const op = "store.RemoveOrganizationOwner"
	return s.InTx(ctx, op, func(tx *Tx) error {
		if err := tx.lockOrganization(ctx, orgID); err != nil {
			return err
		}
		var n int
		if err := tx.get(ctx, &n, `SELECT COUNT(*) FROM organization_owners WHERE organization_id = ?`, orgID); err != nil {
			return err
		}
		res, err := tx.exec(ctx, `DELETE FROM organization_owners WHERE organization_id = ? AND user_id = ?`, orgID, userID)
		if err := mustAffect(op, res, err); err != nil {
			return err
		}
		if n <= 1 {
			return errs.E(errs.Conflict, op, "User is the last owner, can't be removed")
		}
		return nil
	})
}

// lockOrganization serialises writes that count an organization's rows
// (owners, teams) on PostgreSQL; SQLite's single writer already does.
func (tx *Tx) lockOrganization(ctx context.Context, orgID int64) error {
	if tx.s.dialect != Postgres {
		return nil
	}
	_, err := tx.exec(ctx, `SELECT id FROM organizations WHERE id = ? FOR UPDATE`, orgID)
	return err
}

// TeamFilter selects teams. Nil fields do not filter.
type TeamFilter struct {
	OrganizationIDs []int64
	IDs             []int64
	MemberID        *int64 // teams this user is a member of
	ProjectIDs      []int64
}

// FindTeams returns the matching teams in creation order.
func (s *Store) FindTeams(ctx context.Context, f TeamFilter) ([]*Team, error) {
	w := &where{}
	for _, in := range []struct {
		ids  []int64
		cond string
	}{
		{f.OrganizationIDs, "t.organization_id IN (?)"},
		{f.IDs, "t.id IN (?)"},
		{f.ProjectIDs, "t.id IN (SELECT team_id FROM team_projects WHERE project_id IN (?))"},
	} {
		if in.ids == nil {
			continue
		}
		if len(in.ids) == 0 {
			w.add("1=0")
		} else {
			w.add(in.cond, in.ids)
		}
	}
	if f.MemberID != nil {
		w.add("t.id IN (SELECT team_id FROM team_members WHERE user_id = ?)", *f.MemberID)
	}
	teams := []*Team{}
	err := scanAll(ctx, s.read(), &teams, teamRows.next, `SELECT `+teamRows.cols+` FROM teams t`+w.String()+` ORDER BY t.id`, w.args...)
	return teams, classify("store.FindTeams", err)
}

// FindTeamBySlug returns the team of the organization with that slug.
func (s *Store) FindTeamBySlug(ctx context.Context, orgID int64, slug string) (*Team, error) {
	if !storable(slug) {
		return nil, errNotStorable("store.FindTeamBySlug")
	}
	var t Team
	err := getRow(ctx, s.read(), teamRows, &t, `SELECT `+teamRows.cols+` FROM teams t WHERE t.organization_id = ? AND t.slug = ?`, orgID, slug)
	return &t, classify("store.FindTeamBySlug", err)
}

// CreateTeam stores a new team. Its slug is t.Slug, or t.Slug-2, -3… when
// taken in the organization. A taken name is a Conflict on the name field;
// a 101st team a Conflict.
func (s *Store) CreateTeam(ctx context.Context, t *Team, projectIDs []int64) error {
	const op = "store.CreateTeam"
	return s.InTx(ctx, op, func(tx *Tx) error {
		if err := tx.lockOrganization(ctx, t.OrganizationID); err != nil {
			return err
		}
		var n int
		if err := tx.get(ctx, &n, `SELECT COUNT(*) FROM teams WHERE organization_id = ?`, t.OrganizationID); err != nil {
			return err
		}
		if n >= MaxTeamsPerOrganization {
			return errs.E(errs.Conflict, op, msgTooManyTeams)
		}
		if err := tx.get(ctx, &n, `SELECT COUNT(*) FROM teams WHERE organization_id = ? AND name = ?`, t.OrganizationID, t.Name); err != nil {
			return err
		}
		if n > 0 {
			return &errs.Error{Kind: errs.Invalid, Op: op, Fields: errs.Fields{"name": {"Team already exists"}}}
		}
		var slugs []string
		if err := tx.sel(ctx, &slugs, `SELECT slug FROM teams WHERE organization_id = ?`, t.OrganizationID); err != nil {
			return err
		}
		t.Slug = freeSlug(t.Slug, slugs)
		t.Created, t.Modified = tx.Now, tx.Now
		if t.Access == "" {
			t.Access = TeamReadonly
		}
		id, err := tx.insert(ctx, `INSERT INTO teams (organization_id, slug, name, access, auto_join_email_users, created, modified)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, t.OrganizationID, t.Slug, t.Name, t.Access, t.AutoJoinEmailUsers, tx.Now, tx.Now)
		if err != nil {
			return err
		}
		t.ID = id
		return tx.setTeamProjects(ctx, id, projectIDs)
	})
}

// freeSlug is base, or base-2, base-3… whichever is not in taken.
func freeSlug(base string, taken []string) string {
	used := map[string]bool{}
	for _, s := range taken {
		used[s] = true
	}
	s := base
	for i := 2; used[s]; i++ {
		s = base + "-" + strconv.Itoa(i)
	}
	return s
}

// TeamUpdate lists a team's fields to change; nil fields stay. Projects,
// when not nil, replaces the team's projects.
type TeamUpdate struct {
	Name               *string
	Access             *string
	AutoJoinEmailUsers *bool
	Projects           []int64
}

// UpdateTeam changes a team and returns it. A name taken by another team
// of the organization is Invalid on the name field.
func (s *Store) UpdateTeam(ctx context.Context, id int64, upd TeamUpdate) (*Team, error) {
	const op = "store.UpdateTeam"
	var t Team
	err := s.InTx(ctx, op, func(tx *Tx) error {
		if upd.Name != nil {
			var n int
			if err := tx.get(ctx, &n, `SELECT COUNT(*) FROM teams WHERE organization_id = (SELECT organization_id FROM teams WHERE id = ?) AND name = ? AND id <> ?`, id, *upd.Name, id); err != nil {
				return err
			}
			if n > 0 {
				return &errs.Error{Kind: errs.Invalid, Op: op, Fields: errs.Fields{"name": {"Team already exists"}}}
			}
		}
		set := &setter{}
		if upd.Name != nil {
			set.set("name", *upd.Name)
		}
		if upd.Access != nil {
			set.set("access", *upd.Access)
		}
		if upd.AutoJoinEmailUsers != nil {
			set.set("auto_join_email_users", *upd.AutoJoinEmailUsers)
		}
		set.set("modified", tx.Now)
		res, err := tx.exec(ctx, `UPDATE teams SET `+strings.Join(set.cols, ", ")+` WHERE id = ?`, append(set.args, id)...)
		if err := mustAffect(op, res, err); err != nil {
			return err
		}
		if upd.Projects != nil {
			if _, err := tx.exec(ctx, `DELETE FROM team_projects WHERE team_id = ?`, id); err != nil {
				return err
			}
			if err := tx.setTeamProjects(ctx, id, upd.Projects); err != nil {
				return err
			}
		}
		return getRow(ctx, tx.conn, teamRows, &t, `SELECT `+teamRows.cols+` FROM teams t WHERE t.id = ?`, id)
	})
	return &t, err
}

// setTeamProjects adds the projects to the team (each once).
func (tx *Tx) setTeamProjects(ctx context.Context, teamID int64, projectIDs []int64) error {
	seen := map[int64]bool{}
	for _, pid := range projectIDs {
		if seen[pid] {
			continue
		}
		seen[pid] = true
		if _, err := tx.exec(ctx, `INSERT INTO team_projects (team_id, project_id) VALUES (?, ?)`, teamID, pid); err != nil {
			return err
		}
	}
	return nil
}

// DeleteTeam removes a team; its members keep their other teams.
func (s *Store) DeleteTeam(ctx context.Context, id int64) error {
	const op = "store.DeleteTeam"
	return s.InTx(ctx, op, func(tx *Tx) error {
		res, err := tx.exec(ctx, `DELETE FROM teams WHERE id = ?`, id)
		return mustAffect(op, res, err)
	})
}

// FindTeamMembers returns the members of the teams, by username.
func (s *Store) FindTeamMembers(ctx context.Context, teamIDs []int64) ([]*OrganizationUser, error) {
	if len(teamIDs) == 0 {
		return nil, nil
	}
	var out []*OrganizationUser
	err := scanAll(ctx, s.read(), &out, func(buf []any) (*OrganizationUser, []any) {
		m := new(OrganizationUser)
		return m, userRows.dests(append(buf, &m.TeamID, &m.OrganizationID), &m.User)
	}, `SELECT m.team_id, t.organization_id, `+userRows.cols+` FROM team_members m JOIN users u ON u.id = m.user_id
		JOIN teams t ON t.id = m.team_id WHERE m.team_id IN (?) ORDER BY `+s.codepoint("u.username")+`, u.id`, teamIDs)
	return out, classify("store.FindTeamMembers", err)
}

// AddTeamMember adds the user to the team. A member already is a
// Conflict, and so is a 1001st member.
func (s *Store) AddTeamMember(ctx context.Context, teamID, userID int64) error {
	const op = "store.AddTeamMember"
	return s.InTx(ctx, op, func(tx *Tx) error {
		if room, err := tx.teamHasRoom(ctx, teamID); err != nil {
			return err
		} else if !room {
			return errs.E(errs.Conflict, op, msgTooManyMembers)
		}
		_, err := tx.exec(ctx, `INSERT INTO team_members (team_id, user_id) VALUES (?, ?)`, teamID, userID)
		if err = classify(op, err); errs.Is(err, errs.Conflict) {
			return errs.E(errs.Conflict, op, "User is already a team member")
		}
		return err
	})
}

// teamHasRoom reports whether the team has fewer than MaxMembersPerTeam
// members; on PostgreSQL it locks the team until the transaction ends, so
// two additions cannot both take the last place.
func (tx *Tx) teamHasRoom(ctx context.Context, teamID int64) (bool, error) {
	if tx.s.dialect == Postgres {
		if _, err := tx.exec(ctx, `SELECT id FROM teams WHERE id = ? FOR UPDATE`, teamID); err != nil {
			return false, err
		}
	}
	var n int
	err := tx.get(ctx, &n, `SELECT COUNT(*) FROM team_members WHERE team_id = ?`, teamID)
	return n < MaxMembersPerTeam, err
}

// RemoveTeamMember removes the user from the team; one who is not a
// member is NotFound.
func (s *Store) RemoveTeamMember(ctx context.Context, teamID, userID int64) error {
	const op = "store.RemoveTeamMember"
	return s.InTx(ctx, op, func(tx *Tx) error {
		res, err := tx.exec(ctx, `DELETE FROM team_members WHERE team_id = ? AND user_id = ?`, teamID, userID)
		return mustAffect(op, res, err)
	})
}

// TeamProject links a team to a project it includes.
type TeamProject struct {
	TeamID    int64 `db:"team_id"`
	ProjectID int64 `db:"project_id"`
}

// FindTeamProjects returns the projects of the teams.
func (s *Store) FindTeamProjects(ctx context.Context, teamIDs []int64) ([]TeamProject, error) {
	if len(teamIDs) == 0 {
		return nil, nil
	}
	var out []TeamProject
	err := s.read().selIn(ctx, &out, `SELECT team_id, project_id FROM team_projects WHERE team_id IN (?) ORDER BY id`, teamIDs)
	return out, classify("store.FindTeamProjects", err)
}

// AddTeamProject adds a project to a team (nothing when it is there).
func (s *Store) AddTeamProject(ctx context.Context, teamID, projectID int64) error {
	const op = "store.AddTeamProject"
	return s.InTx(ctx, op, func(tx *Tx) error {
		var n int
		if err := tx.get(ctx, &n, `SELECT COUNT(*) FROM team_projects WHERE team_id = ? AND project_id = ?`, teamID, projectID); err != nil || n > 0 {
			return err
		}
		return tx.setTeamProjects(ctx, teamID, []int64{projectID})
	})
}

// RemoveTeamProject removes a project from a team; NotFound when the team
// does not include it.
func (s *Store) RemoveTeamProject(ctx context.Context, teamID, projectID int64) error {
	const op = "store.RemoveTeamProject"
	return s.InTx(ctx, op, func(tx *Tx) error {
		res, err := tx.exec(ctx, `DELETE FROM team_projects WHERE team_id = ? AND project_id = ?`, teamID, projectID)
		return mustAffect(op, res, err)
	})
}

// SetProjectsOrganization moves the projects into organization orgID (nil:
// out of every organization), takes them out of the teams of any other
// organization, and adds them to teamIDs (teams of orgID).
func (s *Store) SetProjectsOrganization(ctx context.Context, projectIDs []int64, orgID *int64, teamIDs []int64) error {
	const op = "store.SetProjectsOrganization"
	if len(projectIDs) == 0 {
		return nil
	}
	return s.InTx(ctx, op, func(tx *Tx) error {
		for _, pid := range projectIDs {
			res, err := tx.exec(ctx, `UPDATE projects SET organization_id = ?, modified = ? WHERE id = ?`, orgID, tx.Now, pid)
			if err := mustAffect(op, res, err); err != nil {
				return err
			}
			if _, err := tx.exec(ctx, `DELETE FROM team_projects WHERE project_id = ?
				AND team_id NOT IN (SELECT id FROM teams WHERE organization_id = ?)`, pid, orgID); err != nil {
				return err
			}
			for _, tid := range teamIDs {
				var n int
				if err := tx.get(ctx, &n, `SELECT COUNT(*) FROM team_projects WHERE team_id = ? AND project_id = ?`, tid, pid); err != nil {
					return err
				}
				if n == 0 {
					if err := tx.setTeamProjects(ctx, tid, []int64{pid}); err != nil {
						return err
					}
				}
			}
		}
		return nil
	})
}

// RoleGrant is a role a user holds on a project through an organization:
// as an owner or a member of an admin team (Admin), or as a member of a
// readonly team including the project.
type RoleGrant struct {
	ProjectID int64 `db:"project_id"`
	UserID    int64 `db:"user_id"`
	Admin     bool  `db:"admin"`
}

// FindOrganizationRoles returns the roles users hold on the projects
// through the projects' organizations (direct maintainers are
// FindMaintainerships'). A user may appear more than once.
func (s *Store) FindOrganizationRoles(ctx context.Context, projectIDs []int64) ([]RoleGrant, error) {
	if len(projectIDs) == 0 {
		return nil, nil
	}
	var out []RoleGrant
	err := s.read().selIn(ctx, &out, `SELECT p.id AS project_id, oo.user_id, TRUE AS admin
		FROM projects p JOIN organization_owners oo ON oo.organization_id = p.organization_id WHERE p.id IN (?)
		UNION ALL SELECT tp.project_id, tm.user_id, t.access = 'admin'
		FROM team_projects tp JOIN teams t ON t.id = tp.team_id JOIN team_members tm ON tm.team_id = t.id WHERE tp.project_id IN (?)`,
		projectIDs, projectIDs)
	return out, classify("store.FindOrganizationRoles", err)
}

// IsOrganizationMember reports whether the user owns the organization or
// belongs to one of its teams.
func (s *Store) IsOrganizationMember(ctx context.Context, orgID, userID int64) (bool, error) {
	var n int
	err := s.read().get(ctx, &n, `SELECT COUNT(*) FROM organizations o WHERE o.id = ? AND `+memberOfOrganization, orgID, userID, userID)
	return n > 0, classify("store.IsOrganizationMember", err)
}
