package access

import (
	"context"

	"docsd/internal/errs"
	"docsd/store"
)

// Standing is a user's place in one organization: an owner (who is also a
// member), a member (an owner, or in at least one of its teams), or
// neither.
type Standing struct {
	Owner  bool
	Member bool
}

// ReadStanding reads v's standing in organization orgID from the store.
// Anonymous viewers and the system have none (the system passes every
// check anyway).
func ReadStanding(ctx context.Context, s *store.Store, v Viewer, orgID int64) (Standing, error) {
	if v.User == nil || !v.User.IsActive {
		return Standing{}, nil
	}
	member, err := s.IsOrganizationMember(ctx, orgID, v.User.ID)
	if err != nil || !member {
		return Standing{}, err
	}
	owners, err := s.FindOrganizationOwners(ctx, []int64{orgID})
	if err != nil {
		return Standing{}, err
	}
	st := Standing{Member: true}
	for _, o := range owners {
		if o.ID == v.User.ID {
			st.Owner = true
		}
	}
	return st, nil
}

// CanReadOrganization reports whether v may see the organization (its
// detail, its projects list, the members of their own teams): its members,
// superusers (read only) and the system. Anyone else is told it does not
// exist.
func CanReadOrganization(v Viewer, st Standing) bool {
	return v.System || v.SeesAll() || st.Member
}

// CanManageOrganization reports whether v may change the organization,
// its owners and its teams: its owners and the system (the admin commands).
// Superusers are no exception: they act through the admin commands.
func CanManageOrganization(v Viewer, st Standing) bool {
	return v.System || st.Owner
}

// SeesAllTeams reports whether v sees every team and member of the
// organization (owners, superusers, the system); other members see their
// own teams, their members and the owners.
func SeesAllTeams(v Viewer, st Standing) bool {
	return v.System || v.SeesAll() || st.Owner
}

// Who may create organizations (--organization-creators).
const (
	CreatorsSuperusers = "superusers"
	CreatorsUsers      = "users"
)

// CanCreateOrganization answers whether v may create an organization
// under the creators setting: superusers and the system always, any
// active user with CreatorsUsers. A refusal is Forbidden (Unauthenticated
// for an anonymous viewer).
func CanCreateOrganization(v Viewer, creators string) error {
	const op = "access.CanCreateOrganization"
	switch {
	case v.System || (v.User != nil && v.User.IsSuperuser):
		return nil
	case v.User == nil:
		return errs.E(errs.Unauthenticated, op, errs.MsgNoCredentials)
	case creators == CreatorsUsers && v.User.IsActive:
		return nil
	}
	return errs.E(errs.Forbidden, op, errs.MsgForbidden)
}

// CanMoveProject reports whether v may move a project it administers out
// of organization from (nil: none) into organization to (nil: none): an
// owner of every organization concerned, or the system.
func CanMoveProject(v Viewer, from, to *Standing) bool {
	if v.System {
		return true
	}
	return (from == nil || from.Owner) && (to == nil || to.Owner)
}

// CanChangeMaintainers reports whether v may add or remove (other than
// themself) the direct maintainers of a project it administers: anyone
// who administers a project outside organizations; inside one, its owners
// and the system.
func CanChangeMaintainers(v Viewer, p *store.Project, st Standing) bool {
	return p.OrganizationID == nil || v.System || st.Owner
}
