package access

import (
	"context"
	"slices"

	"docsd/store"
)

// Role is what a user may do with one project.
type Role int

const (
	// NoRole: the project's public objects only, as anyone.
	NoRole Role = iota
	// Reader: also reads the project's non-public objects (project,
	// versions, builds, docs pages, downloads, addons data, search
	// results); writes nothing.
	Reader
	// Admin: reads everything of the project and changes it: its direct
	// maintainers, the owners of its organization and the members of the
	// organization's admin teams that include it.
	Admin
)

// Roles tells a user's role on a project, computed from the database for
// each request (a removal takes effect at once). Implementations may
// batch (graph's per-operation loaders) or cache (the docs host's cache,
// emptied when the data changes).
type Roles interface {
	Role(ctx context.Context, userID, projectID int64) (Role, error)
}

// Maintainers is the Roles whose admins of a project are its maintainers,
// as the function reads them (user ids); nobody else has a role.
type Maintainers func(ctx context.Context, projectID int64) ([]int64, error)

// Role implements Roles.
func (m Maintainers) Role(ctx context.Context, userID, projectID int64) (Role, error) {
	ids, err := m(ctx, projectID)
	if err != nil || !slices.Contains(ids, userID) {
		return NoRole, err
	}
	return Admin, nil
}

// Organizations is docsd's Roles: a project's direct maintainers are its
// admins (Maintainers), and so are the owners of its organization and the
// members of the organization's admin teams that include it; members of
// its readonly teams are its readers. Grants reads the roles a project's
// organization gives (store.FindOrganizationRoles); it may answer nothing
// without reading when the project is in no organization.
type Organizations struct {
	Maintainers Maintainers
	Grants      func(ctx context.Context, projectID int64) ([]store.RoleGrant, error)
}

// Role implements Roles: the highest role any source gives.
func (o Organizations) Role(ctx context.Context, userID, projectID int64) (Role, error) {
	return o.role(ctx, userID, projectID, true)
}

// RoleOn implements ProjectRoles: Grants is read only for a project in an
// organization.
func (o Organizations) RoleOn(ctx context.Context, userID int64, p *store.Project) (Role, error) {
	return o.role(ctx, userID, p.ID, p.OrganizationID != nil)
}

func (o Organizations) role(ctx context.Context, userID, projectID int64, inOrganization bool) (Role, error) {
	role, err := o.Maintainers.Role(ctx, userID, projectID)
	if err != nil || role == Admin || !inOrganization {
		return role, err
	}
	grants, err := o.Grants(ctx, projectID)
	if err != nil {
		return NoRole, err
	}
	for _, g := range grants {
		if g.UserID != userID {
			continue
		}
		if g.Admin {
			return Admin, nil
		}
		role = Reader
	}
	return role, nil
}

// ProjectRoles is a Roles that can use the project's row, to skip reads
// the row makes needless (a project in no organization has no team).
// Rights asks RoleOn when its Roles has it.
type ProjectRoles interface {
	Roles
	RoleOn(ctx context.Context, userID int64, p *store.Project) (Role, error)
}

// Memo remembers the roles r answered, so that one request asks at most
// once per user and project. Not safe for concurrent use.
func Memo(r Roles) Roles { return &memo{roles: r, seen: map[[2]int64]Role{}} }

// RoleOn implements ProjectRoles, asking r's RoleOn when it has one.
func (m *memo) RoleOn(ctx context.Context, userID int64, p *store.Project) (Role, error) {
	k := [2]int64{userID, p.ID}
	if r, ok := m.seen[k]; ok {
		return r, nil
	}
	pr, ok := m.roles.(ProjectRoles)
	if !ok {
		return m.Role(ctx, userID, p.ID)
	}
	r, err := pr.RoleOn(ctx, userID, p)
	if err == nil {
		m.seen[k] = r
	}
	return r, err
}

type memo struct {
	roles Roles
	seen  map[[2]int64]Role
}

func (m *memo) Role(ctx context.Context, userID, projectID int64) (Role, error) {
	k := [2]int64{userID, projectID}
	if r, ok := m.seen[k]; ok {
		return r, nil
	}
	r, err := m.roles.Role(ctx, userID, projectID)
	if err == nil {
		m.seen[k] = r
	}
	return r, err
}

// Surface is where an object is shown. Superusers read every object on
// the API and nothing more than their roles give anywhere else.
type Surface int

const (
	// API: GraphQL, REST (through GraphQL) and the dashboard (through
	// GraphQL).
	API Surface = iota
	// Docs: the docs host (pages, downloads, the addons and footer data)
	// and search results, wherever they are asked for.
	Docs
)

// readsAll reports whether v reads every object on surface s: the system
// on any, superusers on the API.
func (s Surface) readsAll(v Viewer) bool {
	return v.System || (s == API && v.SeesAll())
}

// Visibility is the store's list filter for v on surface s: the SQL form
// of Rights.CanRead and Rights.CanReadVersion (store.Visibility reads the
// roles as Organizations does, and on the docs surface v's sharing grants
// as Viewer.SharedRead does).
func (s Surface) Visibility(v Viewer) *store.Visibility {
	vis := &store.Visibility{UserID: v.UserID(), All: s.readsAll(v), Projects: v.Projects}
	if s == Docs {
		for _, m := range v.Shares {
			vis.Shared = append(vis.Shared, store.SharedRead{ProjectID: m.ProjectID, AllVersions: m.AllowAll, Versions: m.Versions})
		}
	}
	return vis
}

// Rights are a viewer's rights on a surface: the one place that answers
// "may this viewer see, or change, this?".
type Rights struct {
	Viewer Viewer
	// Identify, when set, names the viewer instead of Viewer. It is called
	// only when a decision depends on who the viewer is (the object is not
	// public), so the docs host reads a key or a session cookie only then;
	// it should remember its answer.
	Identify func() (Viewer, error)
	Surface  Surface
	Roles    Roles
}

// who is the viewer the decisions are about.
func (r Rights) who() (Viewer, error) {
	if r.Identify != nil {
		return r.Identify()
	}
	return r.Viewer, nil
}

// Role is the viewer's role on p: Admin for the system, NoRole for an
// anonymous viewer, else what Roles says. Superusers hold only the roles
// given to them.
func (r Rights) Role(ctx context.Context, p *store.Project) (Role, error) {
	v, err := r.who()
	switch {
	case err != nil:
		return NoRole, err
	case v.System:
		return Admin, nil
	case v.User == nil:
		return NoRole, nil
	case v.Projects != nil && !slices.Contains(v.Projects, p.ID):
		return NoRole, nil
	}
	if pr, ok := r.Roles.(ProjectRoles); ok {
		return pr.RoleOn(ctx, v.User.ID, p)
	}
	return r.Roles.Role(ctx, v.User.ID, p.ID)
}

// CanRead reports whether the viewer may see project p: a public project,
// one they are a reader (or admin) of, or, when the viewer reads all on
// this surface, any.
func (r Rights) CanRead(ctx context.Context, p *store.Project) (bool, error) {
	if p.IsPublic() {
		return true, nil
	}
	ok, err := r.readsAllOr(ctx, p, Reader)
	if ok || err != nil {
		return ok, err
	}
	return r.shared(p, nil)
}

// CanReadVersion reports whether the viewer may see version v of project
// p: a public version of a public project (a pull-request version's level
// is p's external_builds_privacy_level; a hidden version is only left out
// of listings, never refused), any version of a project they are a reader
// of, or any when the viewer reads all on this surface. A public version
// of a non-public project is not public.
func (r Rights) CanReadVersion(ctx context.Context, p *store.Project, v *store.Version) (bool, error) {
	if p.VersionIsPublic(v) {
		return true, nil
	}
	ok, err := r.readsAllOr(ctx, p, Reader)
	if ok || err != nil {
		return ok, err
	}
	return r.shared(p, v)
}

// shared reports whether a sharing grant of the viewer lets it read
// project p (v nil) or its version v, on the docs surface only: a grant
// covers its own project's versions (every active one, or those listed),
// never its subprojects or translations, the API or the dashboard.
func (r Rights) shared(p *store.Project, v *store.Version) (bool, error) {
	if r.Surface != Docs {
		return false, nil
	}
	who, err := r.who()
	if err != nil {
		return false, err
	}
	return who.SharedRead(p, v), nil
}

// SharedRead reports whether one of the viewer's sharing grants covers
// project p (v nil) or its version v.
func (v Viewer) SharedRead(p *store.Project, ver *store.Version) bool {
	for _, m := range v.Shares {
		if m.ProjectID == p.ID && (ver == nil || m.Covers(ver.Slug, ver.Active)) {
			return true
		}
	}
	return false
}

// CanAdmin reports whether the viewer may change project p and read what
// only its admins read (settings, redirects, variables, integrations):
// the system, and admins of p. Superusers administer only where they
// are admins.
func (r Rights) CanAdmin(ctx context.Context, p *store.Project) (bool, error) {
	return r.atLeast(ctx, p, Admin)
}

// atLeast reports whether the viewer's role on p is want or more.
func (r Rights) atLeast(ctx context.Context, p *store.Project, want Role) (bool, error) {
	role, err := r.Role(ctx, p)
	return role >= want, err
}

// readsAllOr reports whether the viewer reads everything on this surface
// or holds at least role want on p.
func (r Rights) readsAllOr(ctx context.Context, p *store.Project, want Role) (bool, error) {
	v, err := r.who()
	if err != nil || r.Surface.readsAll(v) {
		return err == nil, err
	}
	return r.atLeast(ctx, p, want)
}
