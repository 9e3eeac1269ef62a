package graph

import (
	"context"
	"fmt"

	"github.com/99designs/gqlgen/graphql"

	"docsd/graph/gid"
	"docsd/internal/access"
	"docsd/internal/errs"
	"docsd/store"
)

// Global object identification (Relay): each Node type's id is gid.Encode of
// its GraphQL type name and the keys node() needs to find it again through
// the typed query that shows it, so that node() sees exactly what the typed
// queries see.

const (
	nodeUser                = "User"
	nodeProject             = "Project"
	nodeVersion             = "Version"
	nodeBuild               = "Build"
	nodeRedirect            = "Redirect"
	nodeEnvironmentVariable = "EnvironmentVariable"
	nodeSubproject          = "Subproject"
)

// node returns the object with global id id as its typed query would: an
// id that names nothing, or an object the viewer may not see, is NotFound.
func (r *Resolver) node(ctx context.Context, id string) (gid.Node, error) {
	const op = "graph.node"
	typ, keys, ok := gid.Decode(id)
	if !ok {
		return nil, errNotFound(op)
	}
	q := &queryResolver{r}
	p := &projectResolver{r}
	switch {
	case typ == nodeProject && len(keys) == 1:
		return orNil(q.Project(ctx, nil, &keys[0], nil))
	case typ == nodeVersion && len(keys) == 1:
		return orNil(r.versionByID(ctx, keys[0]))
	case typ == nodeBuild && len(keys) == 1:
		return orNil(r.buildByID(ctx, keys[0]))
	case typ == nodeUser && len(keys) == 1:
		// Users are public as the maintainers of public projects.
		us, err := r.Store.FindUsersByIDs(ctx, keys)
		if err != nil || len(us) == 0 {
			return nil, firstErr(err, errNotFound(op))
		}
		return us[0], nil
	case typ == nodeRedirect && len(keys) == 2:
		return r.projectNode(ctx, keys[0], func(ctx context.Context, parent *ProjectView) (any, error) {
			return r.maintainersOnly(ctx, parent, func(ctx context.Context) (any, error) { return orNil(p.Redirect(ctx, parent, keys[1])) })
		})
	case typ == nodeEnvironmentVariable && len(keys) == 2:
		return r.projectNode(ctx, keys[0], func(ctx context.Context, parent *ProjectView) (any, error) {
			return r.maintainersOnly(ctx, parent, func(ctx context.Context) (any, error) {
				return orNil(p.EnvironmentVariable(ctx, parent, keys[1]))
			})
		})
	case typ == nodeSharingMethod && len(keys) == 2:
		return r.projectNode(ctx, keys[0], func(ctx context.Context, parent *ProjectView) (any, error) {
			return r.maintainersOnly(ctx, parent, func(ctx context.Context) (any, error) { return orNil(p.SharingMethod(ctx, parent, keys[1])) })
		})
	case typ == nodeInvitation && len(keys) == 1:
		return orNil(r.invitationNode(ctx, keys[0]))
	case typ == nodeAuditLogEntry && len(keys) == 1:
		return orNil(r.auditLog(ctx, keys[0]))
	case typ == nodeWebhook && len(keys) == 2:
		return r.projectNode(ctx, keys[0], func(ctx context.Context, parent *ProjectView) (any, error) {
			return r.maintainersOnly(ctx, parent, func(ctx context.Context) (any, error) {
				return orNil(r.Store.FindWebhook(ctx, parent.ID, keys[1]))
			})
		})
	case typ == nodeAutomationRule && len(keys) == 2:
		return r.projectNode(ctx, keys[0], func(ctx context.Context, parent *ProjectView) (any, error) {
			return r.maintainersOnly(ctx, parent, func(ctx context.Context) (any, error) {
				return orNil(r.Store.FindAutomationRule(ctx, parent.ID, keys[1]))
			})
		})
	case typ == nodeDomain && len(keys) == 2:
		return r.projectNode(ctx, keys[0], func(ctx context.Context, parent *ProjectView) (any, error) {
			return r.maintainersOnly(ctx, parent, func(ctx context.Context) (any, error) { return orNil(p.Domain(ctx, parent, keys[1])) })
		})
	case typ == nodeAPIToken && len(keys) == 1:
		// A key is the caller's own business: anyone else's is NotFound.
		if u := access.ViewerFrom(ctx).User; u != nil {
			return r.viewerToken(ctx, u, id)
		}
	case typ == nodeSubproject && len(keys) == 2:
		return r.projectNode(ctx, keys[0], func(ctx context.Context, parent *ProjectView) (any, error) {
			rels, _, err := r.Store.FindRelationships(ctx, store.RelationshipFilter{ParentIDs: []int64{parent.ID}})
			if err != nil {
				return nil, err
			}
			for _, rel := range rels {
				if rel.ID == keys[1] {
					return orNil(p.Subproject(ctx, parent, rel.Alias))
				}
			}
			return nil, errNotFound(op)
		})
	}
	return nil, errNotFound(op)
}

// projectNode finds the object of a Node type that is looked up within a
// project: the project as Query.project shows it, then get's answer.
func (r *Resolver) projectNode(ctx context.Context, projectID int64, get func(context.Context, *ProjectView) (any, error)) (gid.Node, error) {
	parent, err := (&queryResolver{r}).Project(ctx, nil, &projectID, nil)
	if err != nil {
		return nil, err
	}
	return get(ctx, parent)
}

// orNil turns a typed (nil pointer, nil error) answer into a NotFound, so
// that node() never returns a Node holding a nil pointer.
func orNil[T any](v *T, err error) (gid.Node, error) {
	if err != nil {
		return nil, err
	}
	if v == nil {
		return nil, errNotFound("graph.node")
	}
	return v, nil
}

// nodes resolves each id as node() does; a failure is an error entry at
// the list index and a null there, not a failure of the whole list.
func (r *Resolver) nodes(ctx context.Context, ids []string) ([]gid.Node, error) {
	if len(ids) > r.maxPage() {
		return nil, errs.FieldError("graph.nodes", "ids", fmt.Sprintf("Ensure this field has no more than %d elements.", r.maxPage()))
	}
	out := make([]gid.Node, len(ids))
	for i, id := range ids {
		n, err := r.node(ctx, id)
		if err != nil {
			if errs.KindOf(err) == errs.Internal {
				return nil, err
			}
			graphql.AddError(graphql.WithPathContext(ctx, graphql.NewPathWithIndex(i)), err)
			continue
		}
		out[i] = n
	}
	return out, nil
}

// versionByID is the version with database id id, if the caller can see
// it (`version(id:)`, `node(id:)`).
func (r *Resolver) versionByID(ctx context.Context, id int64) (*VersionView, error) {
	v, err := r.Store.FindVersionByID(ctx, id)
	if err != nil {
		return nil, err
	}
	ok, err := r.canSeeVersionOf(ctx, v)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errNotFound("graph.Query.version")
	}
	r.prefetchVersions(ctx, []*store.Version{v}, fieldSelection(ctx))
	return r.versionView(ctx, v), nil
}

// buildByID is the build with database id id, if the caller can see it
// (`build(id:)`, `node(id:)`).
func (r *Resolver) buildByID(ctx context.Context, id int64) (*BuildView, error) {
	b, err := r.Store.FindBuildByID(ctx, id)
	if err != nil {
		return nil, err
	}
	if b, err = r.visibleBuild(ctx, b, false); err != nil {
		return nil, err
	}
	r.prefetchBuilds(ctx, []*store.Build{b}, fieldSelection(ctx))
	return r.buildView(ctx, b), nil
}
