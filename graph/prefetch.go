package graph

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"docsd/store"
)

// The loaders batch the loads that arrive within their wait. Under load the
// per-row resolvers of a long list may reach their loaders more than one wait
// apart, which would split one batch into several. List resolvers therefore
// look ahead: they walk the selection under `nodes` and load every relation
// it asks for, for all rows at once, before the row resolvers run. The row
// resolvers then find everything in the loaders' caches, and a list costs a
// constant number of queries however long it is.

// selection is a tree of requested field names (aliases resolved away).
type selection map[string]selection

func (s selection) has(names ...string) bool {
	for _, n := range names {
		if _, ok := s[n]; ok {
			return true
		}
	}
	return false
}

// childSelection returns what the current field selects under `nodes`
// (or, for a connection, under `edges { node }`).
func childSelection(ctx context.Context) selection {
	fc := graphql.GetFieldContext(ctx)
	oc := graphql.GetOperationContext(ctx)
	if fc == nil || oc == nil {
		return nil
	}
	all := collect(oc, fc.Field.Selections)
	out := all["nodes"]
	if node, ok := all["edges"]["node"]; ok { // a connection's edges { node }
		if out == nil {
			return node
		}
		for k, v := range node {
			out[k] = v
		}
	}
	return out
}

func collect(oc *graphql.OperationContext, sel ast.SelectionSet) selection {
	out := selection{}
	for _, f := range graphql.CollectFields(oc, sel, nil) {
		sub := collect(oc, f.Selections)
		if prev, ok := out[f.Name]; ok {
			for k, v := range sub {
				prev[k] = v
			}
			continue
		}
		out[f.Name] = sub
	}
	return out
}

// fieldSelection returns what the current field selects (for a field whose
// type is an object or a list of objects).
func fieldSelection(ctx context.Context) selection {
	fc := graphql.GetFieldContext(ctx)
	oc := graphql.GetOperationContext(ctx)
	if fc == nil || oc == nil {
		return nil
	}
	return collect(oc, fc.Field.Selections)
}

// needsTarget reports whether a project selection builds docs URLs, which
// need the project's main project and parent relationship.
func needsTarget(s selection) bool { return s.has("urls", "canonicalUrl") }

// prefetchProjects loads what sel asks of the projects ps.
func (r *Resolver) prefetchProjects(ctx context.Context, ps []*store.Project, sel selection) {
	if len(ps) == 0 || sel == nil {
		return
	}
	l := r.loaders(ctx)
	ids := make([]int64, len(ps))
	for i, p := range ps {
		ids[i] = p.ID
		l.projectByID.Prime(p.ID, p)
	}
	if sel.has("users", "viewerIsMaintainer", "adminFields", "subprojectOf", "translationOf") {
		ms, _ := l.maintainersOf.LoadAll(ctx, ids)
		var userIDs []int64
		for _, m := range ms {
			userIDs = append(userIDs, m...)
		}
		if sel.has("users") {
			l.userByID.LoadAll(ctx, userIDs)
		}
	}
	if needsTarget(sel) || sel.has("subprojectOf") || sel["activeVersions"].has("urls", "downloads") {
		r.prefetchTargets(ctx, ps)
	}
	if needsTarget(sel) {
		var custom []int64
		for _, p := range ps {
			if p.DefaultVersion != store.Latest {
				custom = append(custom, p.ID)
			}
		}
		l.internalVersionsOf.LoadAll(ctx, custom)
	}
	if av, ok := sel["activeVersions"]; ok {
		var vs []*store.Version
		if activeFromInternal(av) {
			lists, _ := l.internalVersionsOf.LoadAll(ctx, ids)
			for _, list := range lists {
				vs = append(vs, activeOnly(list)...)
			}
		} else {
			lists, _ := l.activeVersionsOf.LoadAll(ctx, ids)
			for _, list := range lists {
				vs = append(vs, list...)
			}
		}
		r.prefetchVersions(ctx, vs, av)
	}
}

// prefetchTargets loads the main projects and parent projects the URL
// resolver needs for ps.
func (r *Resolver) prefetchTargets(ctx context.Context, ps []*store.Project) {
	l := r.loaders(ctx)
	var mainIDs, parentIDs []int64
	for _, p := range ps {
		if p.TranslationOf != nil {
			mainIDs = append(mainIDs, *p.TranslationOf)
		}
		if p.ParentID != nil {
			parentIDs = append(parentIDs, *p.ParentID)
		}
	}
	mains, _ := l.projectByID.LoadAll(ctx, mainIDs)
	for _, m := range mains {
		if m != nil && m.ParentID != nil {
			parentIDs = append(parentIDs, *m.ParentID)
		}
	}
	l.projectByID.LoadAll(ctx, parentIDs)
}

// prefetchVersions loads what sel asks of the versions vs.
func (r *Resolver) prefetchVersions(ctx context.Context, vs []*store.Version, sel selection) {
	if len(vs) == 0 || sel == nil {
		return
	}
	l := r.loaders(ctx)
	var ids, projectIDs []int64
	for _, v := range vs {
		ids = append(ids, v.ID)
		projectIDs = append(projectIDs, v.ProjectID)
		l.versionByID.Prime(v.ID, v)
	}
	if sel.has("project", "urls", "downloads", "ref") {
		ps, _ := l.projectByID.LoadAll(ctx, projectIDs)
		if sel.has("urls", "downloads") {
			r.prefetchTargets(ctx, nonNil(ps))
		}
	}
	if sel.has("ref", "urls") {
		l.internalVersionsOf.LoadAll(ctx, projectIDs)
	}
	if lb, ok := sel["lastBuild"]; ok {
		builds, _ := l.lastBuildOf.LoadAll(ctx, ids)
		r.prefetchBuilds(ctx, nonNil(builds), lb)
	}
}

// activeFromInternal reports whether a selection of a project's active
// versions needs the project's internal versions anyway (ref, urls): the
// active ones are then picked from those, one statement fewer.
func activeFromInternal(sel selection) bool { return sel.has("ref", "urls") }

// activeOnly returns the versions of vs (internal, in list order) that are
// active versions: active, built and public (behavior.md §4.1.1's
// active_versions, the activeVersionsOf loader's filter).
func activeOnly(vs []*store.Version) []*store.Version {
	out := []*store.Version{}
	for _, v := range vs {
		if v.Active && v.Built && v.PrivacyLevel == store.Public {
			out = append(out, v)
		}
	}
	return out
}

// activeVersions returns the project's active versions for a selection sel
// of them.
func (r *Resolver) activeVersions(ctx context.Context, projectID int64, sel selection) ([]*store.Version, error) {
	l := r.loaders(ctx)
	if activeFromInternal(sel) {
		vs, err := l.internalVersionsOf.Load(ctx, projectID)
		return activeOnly(vs), err
	}
	vs, err := l.activeVersionsOf.Load(ctx, projectID)
	if vs == nil {
		vs = []*store.Version{}
	}
	return vs, err
}

// prefetchBuildPage primes the versions read with a page of builds and
// loads what sel asks of its builds.
func (r *Resolver) prefetchBuildPage(ctx context.Context, page store.BuildPage, sel selection) {
	l := r.loaders(ctx)
	for _, v := range page.Versions {
		l.versionByID.Prime(v.ID, v)
	}
	r.prefetchBuilds(ctx, page.Builds, sel)
}

// prefetchBuilds loads what sel asks of the builds bs.
func (r *Resolver) prefetchBuilds(ctx context.Context, bs []*store.Build, sel selection) {
	if len(bs) == 0 || sel == nil {
		return
	}
	l := r.loaders(ctx)
	var ids, versionIDs, projectIDs []int64
	for _, b := range bs {
		ids = append(ids, b.ID)
		versionIDs = append(versionIDs, b.VersionID)
		projectIDs = append(projectIDs, b.ProjectID)
	}
	if sel.has("commands") {
		l.commandsOf.LoadAll(ctx, ids)
	}
	if sel.has("project", "version", "docsUrl", "commitUrl") {
		l.versionByID.LoadAll(ctx, versionIDs)
		ps, _ := l.projectByID.LoadAll(ctx, projectIDs)
		if sel.has("docsUrl") {
			r.prefetchTargets(ctx, nonNil(ps))
		}
	}
}

func nonNil[T any](in []*T) []*T {
	out := make([]*T, 0, len(in))
	for _, v := range in {
		if v != nil {
			out = append(out, v)
		}
	}
	return out
}
