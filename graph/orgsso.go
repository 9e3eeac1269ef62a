package graph

import (
	"context"
	"slices"
	"strings"

	"docsd/internal/access"
	"docsd/internal/audit"
	"docsd/internal/domains"
	"docsd/internal/errs"
	"docsd/store"
)

// Organization single sign-on: the SSO domains superusers attach to an
// organization, the owners' ssoRequired, and the auto-join of a user's
// first single sign-on.

// msgSSORequiredNeeds is the refusal of ssoRequired where it could not
// be enforced.
const msgSSORequiredNeeds = "Single sign-on can be required only when this server has an OIDC provider and the organization has an SSO domain."

// CleanSSODomain checks one SSO domain as Read the Docs' domain name
// validator does and returns it lower-cased in its ASCII form; msg is ""
// when it is accepted. An email domain is a bare name: no scheme, port,
// path or address.
func CleanSSODomain(input string) (name, msg string) {
	s := strings.TrimSpace(input)
	if strings.ContainsAny(s, ":/@?# ") {
		return "", domains.MsgInvalidName
	}
	name, msg = domains.Clean(s)
	if msg != "" {
		return "", domains.MsgInvalidName
	}
	return name, ""
}

// ssoDomains resolves Organization.ssoDomains.
func (r *Resolver) ssoDomains(ctx context.Context, o *store.Organization) ([]string, error) {
	byOrg, err := r.Store.FindOrganizationSSODomains(ctx, []int64{o.ID})
	if err != nil {
		return nil, err
	}
	if byOrg[o.ID] == nil {
		return []string{}, nil
	}
	return byOrg[o.ID], nil
}

// setOrganizationSsoDomains runs setOrganizationSsoDomains: superusers
// (and the admin commands) only; others who may read the organization are
// Forbidden, the rest get NotFound as for a missing one.
func (r *Resolver) setOrganizationSsoDomains(ctx context.Context, in SetOrganizationSsoDomainsInput) (*store.Organization, error) {
	const op = "graph.setOrganizationSsoDomains"
	v := access.ViewerFrom(ctx)
	if v.User == nil && !v.System {
		return nil, errAnonymous(op)
	}
	o, _, err := r.visibleOrganization(ctx, in.Organization)
	if err != nil {
		return nil, err
	}
	if !v.SeesAll() {
		return nil, errForbidden(op)
	}
	var names []string
	f := errs.Fields{}
	for _, d := range in.Domains {
		name, msg := CleanSSODomain(d)
		if msg != "" {
			f.Add("domains", msg)
			break
		}
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	if err := f.Err(op); err != nil {
		return nil, err
	}
	slices.Sort(names)
	before, err := r.ssoDomains(ctx, o)
	if err != nil {
		return nil, err
	}
	if err := r.Store.SetOrganizationSSODomains(ctx, o.ID, names); err != nil {
		return nil, err
	}
	if !slices.Equal(before, names) {
		r.recordOrganization(ctx, store.AuditOrganizationChanged, o, nil,
			map[string]any{"organization": orgData(o), "changed": []string{"sso_domains"}, "sso_domains": names})
	}
	return r.Store.FindOrganizationBySlug(ctx, o.Slug)
}

// checkSSORequired validates updateOrganization's ssoRequired into f:
// turning it on needs the server's identity provider and at least one SSO
// domain of o.
func (r *Resolver) checkSSORequired(ctx context.Context, f errs.Fields, o *store.Organization, on *bool) error {
	if on == nil || !*on {
		return nil
	}
	if !r.Settings.SingleSignOn {
		f.Add("sso_required", msgSSORequiredNeeds)
		return nil
	}
	names, err := r.ssoDomains(ctx, o)
	if err != nil {
		return err
	}
	if len(names) == 0 {
		f.Add("sso_required", msgSSORequiredNeeds)
	}
	return nil
}

// JoinAutoJoinTeams runs at a user's first single sign-on (the identity
// was created or linked just now): u joins the auto-join teams of the
// organization whose SSO domains hold email's domain, and each join is
// audited as team-member-added by u through oidc. Later sign-ins never
// call it, so a member an owner removed stays removed.
func (r *Resolver) JoinAutoJoinTeams(ctx context.Context, u *store.User, email string) error {
	teams, err := r.Store.JoinAutoJoinTeams(ctx, u.ID, email)
	if err != nil || len(teams) == 0 {
		return err
	}
	ids := make([]int64, 0, len(teams))
	for _, t := range teams {
		ids = append(ids, t.OrganizationID)
	}
	orgs, err := r.Store.FindOrganizationsByIDs(ctx, ids)
	if err != nil {
		return err
	}
	for _, t := range teams {
		for _, o := range orgs {
			if o.ID == t.OrganizationID {
				r.Audit.Record(ctx, audit.Event{Action: store.AuditTeamMemberAdded, User: u, AuthBackend: store.SessionByOIDC,
					Organization: &audit.Ref{ID: o.ID, Slug: o.Slug},
					Data:         map[string]any{"team": teamData(o, t), "member": audit.User(u)}})
			}
		}
	}
	return nil
}
