package graph

import (
	"context"

	"docsd/internal/audit"
	"docsd/store"
)

// The audit entries of organization and team writes: the data shapes of
// Read the Docs' audit serializers (an organization {"id", "slug"}, a team
// {"id", "slug", "organization"}, a project {"id", "slug",
// "organization"}, a user {"id", "username"}).

func orgData(o *store.Organization) map[string]any {
	if o == nil {
		return nil
	}
	return map[string]any{"id": o.ID, "slug": o.Slug}
}

func teamData(o *store.Organization, t *store.Team) map[string]any {
	return map[string]any{"id": t.ID, "slug": t.Slug, "organization": orgData(o)}
}

func projectData(o *store.Organization, p *store.Project) map[string]any {
	d := audit.Project(p)
	if o != nil {
		d["organization"] = orgData(o)
	}
	return d
}

// recordOrganization records action on organization o (and project p,
// when the event concerns one) with data.
func (r *Resolver) recordOrganization(ctx context.Context, action string, o *store.Organization, p *store.Project, data map[string]any) {
	r.record(ctx, audit.Event{Action: action, Organization: &audit.Ref{ID: o.ID, Slug: o.Slug}, Project: p, Data: data})
}

// recordTeamProjects records team-project-added (or -removed) for each of
// the projects of organization o the team t gained (or lost).
func (r *Resolver) recordTeamProjects(ctx context.Context, action string, o *store.Organization, t *store.Team, projectIDs []int64) {
	for _, id := range projectIDs {
		p, err := r.Store.FindProjectByID(ctx, id)
		if err != nil {
			continue
		}
		r.recordOrganization(ctx, action, o, p, map[string]any{"team": teamData(o, t), "project": projectData(o, p)})
	}
}

// recordProjectMoves records project-organization-changed for each moved
// project (from organization source to target, either nil outside
// organizations), and team-project-added for the teams of target it
// joined.
func (r *Resolver) recordProjectMoves(ctx context.Context, moved []*store.Project, source, target *store.Organization, teamIDs []int64) {
	for _, p := range moved {
		ev := audit.Event{Action: store.AuditProjectOrgChanged, Project: p,
			Data: map[string]any{"project": projectData(target, p), "from": orgData(source), "to": orgData(target)}}
		if target != nil {
			ev.Organization = &audit.Ref{ID: target.ID, Slug: target.Slug}
		}
		r.record(ctx, ev)
	}
	if target == nil || len(teamIDs) == 0 {
		return
	}
	teams, err := r.Store.FindTeams(ctx, store.TeamFilter{IDs: teamIDs})
	if err != nil {
		return
	}
	ids := make([]int64, 0, len(moved))
	for _, p := range moved {
		ids = append(ids, p.ID)
	}
	for _, t := range teams {
		r.recordTeamProjects(ctx, store.AuditTeamProjectAdded, target, t, ids)
	}
}
