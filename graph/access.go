package graph

import (
	"context"

	"github.com/99designs/gqlgen/graphql"

	"docsd/internal/access"
	"docsd/internal/docsurl"
	"docsd/internal/errs"
	"docsd/internal/pep440"
	"docsd/store"
)

// Who may see and change what is decided by package access; the
// functions here ask it with the operation's viewer, on the API surface,
// with the roles read through the operation's loaders.

func errNotFound(op string) error  { return errs.E(errs.NotFound, op, errs.MsgNotFound) }
func errForbidden(op string) error { return errs.E(errs.Forbidden, op, errs.MsgForbidden) }
func errAnonymous(op string) error { return errs.E(errs.Unauthenticated, op, errs.MsgNoCredentials) }
func notFoundIs(err error) bool    { return errs.Is(err, errs.NotFound) }
func ptr[T any](v T) *T            { return &v }

// convPtr converts an optional int to GraphQL's int64.
func convPtr(v *int) *int64 {
	if v == nil {
		return nil
	}
	n := int64(*v)
	return &n
}

// rights are the viewer's rights on the API, their roles read through
// the operation's maintainers and organization roles loaders.
func (r *Resolver) rights(ctx context.Context) access.Rights {
	return access.Rights{Viewer: access.ViewerFrom(ctx), Surface: access.API, Roles: access.Organizations{
		Maintainers: access.Maintainers(r.maintainerIDs),
		Grants:      r.loaders(ctx).organizationRolesOf.Load,
	}}
}

// maintainerIDs reads the maintainers of a project through the
// operation's loader, batched with the other reads of the operation.
func (r *Resolver) maintainerIDs(ctx context.Context, projectID int64) ([]int64, error) {
	return r.loaders(ctx).maintainersOf.Load(ctx, projectID)
}

// visibility is the store's list filter for the viewer on the API.
func visibility(ctx context.Context) *store.Visibility {
	return access.API.Visibility(access.ViewerFrom(ctx))
}

// isMaintainer reports whether the viewer may administer p
// (access.Rights.CanAdmin).
func (r *Resolver) isMaintainer(ctx context.Context, p *store.Project) (bool, error) {
	return r.rights(ctx).CanAdmin(ctx, p)
}

// isReader reports whether the viewer holds a reader's role on p (or
// more): superusers without a role are not readers.
func (r *Resolver) isReader(ctx context.Context, p *store.Project) (bool, error) {
	role, err := r.rights(ctx).Role(ctx, p)
	return role >= access.Reader, err
}

// canSeeProject reports whether the viewer may see p
// (access.Rights.CanRead).
func (r *Resolver) canSeeProject(ctx context.Context, p *store.Project) (bool, error) {
	return r.rights(ctx).CanRead(ctx, p)
}

// canSeeVersion reports whether the viewer may see version v of p
// (access.Rights.CanReadVersion).
func (r *Resolver) canSeeVersion(ctx context.Context, v *store.Version, p *store.Project) (bool, error) {
	return r.rights(ctx).CanReadVersion(ctx, p, v)
}

// visibleProjectOrNil returns the project with that id when the viewer can
// see it, nil otherwise (embedded subproject_of / translation_of / child).
func (r *Resolver) visibleProjectOrNil(ctx context.Context, id int64) (*store.Project, error) {
	p, err := r.loaders(ctx).projectByID.Load(ctx, id)
	if notFoundIs(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	ok, err := r.canSeeProject(ctx, p)
	if err != nil || !ok {
		return nil, err
	}
	return p, nil
}

// readMaintainersNow reads p's maintainers at once when the visibility
// check of a single object will read them: when public (the project's or
// version's privacy) does not settle it and the viewer is a signed-in user
// who does not see everything. Its loader would otherwise wait for more
// keys that a single object does not have.
func (r *Resolver) readMaintainersNow(ctx context.Context, p *store.Project, public bool) {
	if !public && readsMaintainers(ctx) && !access.ViewerFrom(ctx).SeesAll() {
		r.loaders(ctx).maintainersOf.prefetch(ctx, []int64{p.ID})
	}
}

// findVisibleProject looks a project up by slug; an invisible one is NotFound.
func (r *Resolver) findVisibleProject(ctx context.Context, slug string) (*store.Project, error) {
	const op = "graph.project"
	p, err := r.loaders(ctx).projectBySlug.Load(ctx, slug)
	if err != nil {
		return nil, err
	}
	r.readMaintainersNow(ctx, p, p.IsPublic())
	ok, err := r.canSeeProject(ctx, p)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errNotFound(op)
	}
	return p, nil
}

// maintainedProject returns the project a write addresses: anonymous callers
// are Unauthenticated, a missing project NotFound, a non-maintainer
// Forbidden.
func (r *Resolver) maintainedProject(ctx context.Context, slug string) (*store.Project, error) {
	const op = "graph.maintainedProject"
	v := access.ViewerFrom(ctx)
	if v.User == nil && !v.System {
		return nil, errAnonymous(op)
	}
	p, err := r.Store.FindProjectBySlug(ctx, slug)
	if err != nil {
		return nil, err
	}
	ok, err := r.isMaintainer(ctx, p)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errForbidden(op)
	}
	return p, nil
}

// requireMaintainer is maintainedProject for a project already loaded.
func (r *Resolver) requireMaintainer(ctx context.Context, p *store.Project) error {
	ok, err := r.isMaintainer(ctx, p)
	if err != nil {
		return err
	}
	if !ok {
		if access.ViewerFrom(ctx).User == nil {
			return errAnonymous("graph")
		}
		return errForbidden("graph")
	}
	return nil
}

// viewerMaintainsProjectID is isMaintainer for the project with that id.
func (r *Resolver) viewerMaintainsProjectID(ctx context.Context, id int64) (bool, error) {
	p, err := r.loaders(ctx).projectByID.Load(ctx, id)
	if err != nil {
		return false, err
	}
	return r.isMaintainer(ctx, p)
}

// maintainersOnly implements the schema's @maintainersOnly directive, the
// one place where a project field is kept from non-maintainers: the field
// resolves to null with the error, and the rest of the project is answered.
func (r *Resolver) maintainersOnly(ctx context.Context, obj any, next graphql.Resolver) (any, error) {
	p, ok := obj.(*ProjectView)
	if !ok {
		return nil, errs.Internalf("graph.maintainersOnly", "@maintainersOnly on %T", obj)
	}
	if err := r.requireMaintainer(ctx, p.Project); err != nil {
		return nil, err
	}
	return next(ctx)
}

// target describes p for the URL resolver: its main project and the
// relationship nesting that main project, if any (read with the project's
// row, store.Project.ParentID).
func (r *Resolver) target(ctx context.Context, p *store.Project) (docsurl.Target, error) {
	t := docsurl.Target{Slug: p.Slug, Language: p.Language, Scheme: p.VersioningScheme}
	main := p
	if p.TranslationOf != nil {
		m, err := r.loaders(ctx).projectByID.Load(ctx, *p.TranslationOf)
		if err != nil && !notFoundIs(err) {
			return t, err
		}
		if err == nil {
			t.MainSlug, t.Scheme, main = m.Slug, m.VersioningScheme, m
		}
	}
	if main.ParentID != nil {
		parent, err := r.loaders(ctx).projectByID.Load(ctx, *main.ParentID)
		if err != nil {
			return t, err
		}
		t.ParentSlug = parent.Slug
		if main.ParentAlias != nil {
			t.Alias = *main.ParentAlias
		}
	}
	return t, nil
}

// effectiveDefaultVersion is the stored default_version when a version with
// that slug exists and is active, else `latest`.
func (r *Resolver) effectiveDefaultVersion(ctx context.Context, p *store.Project) (string, error) {
	if p.DefaultVersion == store.Latest {
		return store.Latest, nil
	}
	vs, err := r.loaders(ctx).internalVersionsOf.Load(ctx, p.ID)
	if err != nil {
		return "", err
	}
	for _, v := range vs {
		if v.Slug == p.DefaultVersion && v.Active {
			return v.Slug, nil
		}
	}
	return store.Latest, nil
}

// stableRef is the slug of the version the stable rule picks now among the
// project's internal versions (package pep440), or nil.
func (r *Resolver) stableRef(ctx context.Context, projectID int64) (*string, error) {
	vs, err := r.loaders(ctx).internalVersionsOf.Load(ctx, projectID)
	if err != nil {
		return nil, err
	}
	cands := make([]pep440.Candidate, 0, len(vs))
	slugs := map[int64]string{}
	for _, v := range vs {
		cands = append(cands, pep440.Candidate{ID: v.ID, VerboseName: v.VerboseName, Type: v.Type})
		slugs[v.ID] = v.Slug
	}
	c, ok := pep440.StableCandidate(cands)
	if !ok {
		return nil, nil
	}
	return ptr(slugs[c.ID]), nil
}
