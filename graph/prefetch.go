package graph

import (
	"context"
	"slices"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"docsd/internal/access"
	"docsd/store"
)

// The loaders batch the loads that arrive within their wait (loaderWait).
// That costs every level of a selection at least one wait, and under load
// the per-row resolvers of a long list may reach their loaders more than one
// wait apart, which would split one batch into several. List resolvers, and
// the resolvers of single objects, therefore look ahead: they walk their
// selection and read every relation it asks for, for all rows at once,
// directly from the store (batched.prefetch), before the row resolvers run.
// The row resolvers then find everything read, a list costs a constant
// number of queries however long it is, and no REST request waits for a
// loader's timer (TestRESTWaitsForNoLoader). Shapes nobody looks ahead for
// still batch.

// selection is what a field selects: the fields it asks for (aliases
// resolved away, fields asked under several aliases merged), read from the
// operation level by level as the lookahead asks, so that the levels it
// never looks at cost nothing. A nil selection selects nothing. A selection
// is used by the goroutine that made it.
type selection struct {
	oc     *graphql.OperationContext
	sets   []ast.SelectionSet
	fields []graphql.CollectedField // of every set, collected on first use
	done   bool
}

func (s *selection) collected() []graphql.CollectedField {
	if !s.done {
		for _, set := range s.sets {
			s.fields = append(s.fields, graphql.CollectFields(s.oc, set, nil)...)
		}
		s.done = true
	}
	return s.fields
}

// has reports whether s selects any of the fields names.
func (s *selection) has(names ...string) bool {
	if s == nil {
		return false
	}
	for _, f := range s.collected() {
		if slices.Contains(names, f.Name) {
			return true
		}
	}
	return false
}

// child returns what s selects under the field name, nil when s does not
// select it.
func (s *selection) child(name string) *selection {
	if s == nil {
		return nil
	}
	var out *selection
	for _, f := range s.collected() {
		if f.Name == name {
			if out == nil {
				out = &selection{oc: s.oc}
			}
			out.sets = append(out.sets, f.Selections)
		}
	}
	return out
}

// merge returns what a or b selects.
func merge(a, b *selection) *selection {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	return &selection{oc: a.oc, sets: append(slices.Clip(a.sets), b.sets...)}
}

// childSelection returns what the current field selects under `nodes`
// (or, for a connection, under `edges { node }`).
func childSelection(ctx context.Context) *selection {
	all := fieldSelection(ctx)
	return merge(all.child("nodes"), all.child("edges").child("node"))
}

// fieldSelection returns what the current field selects (for a field whose
// type is an object or a list of objects).
func fieldSelection(ctx context.Context) *selection {
	fc := graphql.GetFieldContext(ctx)
	oc := graphql.GetOperationContext(ctx)
	if fc == nil || oc == nil {
		return nil
	}
	return &selection{oc: oc, sets: []ast.SelectionSet{fc.Field.Selections}}
}

// needsTarget reports whether a project selection builds docs URLs, which
// need the project's main project and parent relationship.
func needsTarget(s *selection) bool { return s.has("urls", "canonicalUrl") }

// The fields whose resolvers read what the lookahead reads for them:
// project fields that read the project's maintainers whoever asks
// (maintainerFields) and those that read them (isMaintainer) when the
// viewer is a signed-in user (viewerCheckedFields: the lists narrowed to
// what the viewer may see, the @maintainersOnly fields); build fields that
// read the build's version and project; version fields that read the
// version's project.
var (
	maintainerFields     = []string{"users", "maintainers", "viewerIsMaintainer", "viewerCanAdminister", "adminFields"}
	viewerCheckedFields  = []string{"versions", "version", "builds", "build", "subprojects", "translations", "redirects", "redirect", "environmentVariables", "environmentVariable", "integrations", "notifications", "resolveRedirect"}
	buildRelationFields  = []string{"project", "version", "docsUrl", "commitUrl", "urls", "viewerCanCancel", "viewerCanRetry"}
	versionProjectFields = []string{"project", "urls", "downloads", "aliases", "documentationType"}
)

// readsMaintainers reports whether isMaintainer reads the maintainers for
// the viewer of ctx: it does for a signed-in user, not for the anonymous
// or the system viewer.
func readsMaintainers(ctx context.Context) bool {
	v := access.ViewerFrom(ctx)
	return v.User != nil && !v.System
}

// prefetchProjects reads what sel asks of the projects ps, for a list or a
// single project.
func (r *Resolver) prefetchProjects(ctx context.Context, ps []*store.Project, sel *selection) {
	if len(ps) == 0 || sel == nil {
		return
	}
	l := r.loaders(ctx)
	ids := make([]int64, len(ps))
	for i, p := range ps {
		ids[i] = p.ID
		l.projectByID.Prime(p.ID, p)
	}
	if sel.has(maintainerFields...) || (readsMaintainers(ctx) && sel.has(viewerCheckedFields...)) {
		// The maintainers come with their users (primed).
		l.maintainersOf.prefetch(ctx, ids)
	}
	if needsTarget(sel) || sel.child("activeVersions").has("urls", "downloads") {
		r.prefetchTargets(ctx, ps)
	}
	if needsTarget(sel) {
		var custom []int64
		for _, p := range ps {
			if p.DefaultVersion != store.Latest {
				custom = append(custom, p.ID)
			}
		}
		l.internalVersionsOf.prefetch(ctx, custom)
	}
	if sub := sel.child("subprojectOf"); sub != nil {
		r.prefetchEmbedded(ctx, related(ps, parentOf), sub)
	}
	if sub := sel.child("translationOf"); sub != nil {
		r.prefetchEmbedded(ctx, related(ps, translationOf), sub)
	}
	if av := sel.child("activeVersions"); av != nil {
		var vs []*store.Version
		if activeFromInternal(av) {
			for _, list := range l.internalVersionsOf.prefetch(ctx, ids) {
				vs = append(vs, activeOnly(list)...)
			}
		} else {
			for _, list := range l.activeVersionsOf.prefetch(ctx, ids) {
				vs = append(vs, list...)
			}
		}
		r.prefetchVersions(ctx, vs, av)
	}
}

func parentOf(p *store.Project) *int64      { return p.ParentID }
func translationOf(p *store.Project) *int64 { return p.TranslationOf }

// related returns the ids that id gives for ps, where it gives one.
func related(ps []*store.Project, id func(*store.Project) *int64) []int64 {
	var out []int64
	for _, p := range ps {
		if n := id(p); n != nil {
			out = append(out, *n)
		}
	}
	return out
}

// prefetchEmbedded reads the projects ids that are shown where the viewer
// can see them (visibleProjectOrNil: subprojectOf, translationOf, a
// subproject's child), what their visibility check reads, and what sel asks
// of the visible ones.
func (r *Resolver) prefetchEmbedded(ctx context.Context, ids []int64, sel *selection) {
	if len(ids) == 0 {
		return
	}
	l := r.loaders(ctx)
	ps := nonNil(l.projectByID.prefetch(ctx, ids))
	if readsMaintainers(ctx) && !access.ViewerFrom(ctx).SeesAll() {
		var private []int64
		for _, p := range ps {
			if !p.IsPublic() {
				private = append(private, p.ID)
			}
		}
		l.maintainersOf.prefetch(ctx, private)
	}
	visible := make([]*store.Project, 0, len(ps))
	for _, p := range ps {
		if ok, err := r.canSeeProject(ctx, p); err == nil && ok {
			visible = append(visible, p)
		}
	}
	r.prefetchProjects(ctx, visible, sel)
}

// prefetchTargets reads the main projects and parent projects the URL
// resolver needs for ps.
func (r *Resolver) prefetchTargets(ctx context.Context, ps []*store.Project) {
	l := r.loaders(ctx)
	mains := nonNil(l.projectByID.prefetch(ctx, related(ps, translationOf)))
	l.projectByID.prefetch(ctx, append(related(ps, parentOf), related(mains, parentOf)...))
}

// prefetchVersions reads what sel asks of the versions vs, for a list or a
// single version.
func (r *Resolver) prefetchVersions(ctx context.Context, vs []*store.Version, sel *selection) {
	if len(vs) == 0 || sel == nil {
		return
	}
	l := r.loaders(ctx)
	ids := make([]int64, 0, len(vs))
	projectIDs := make([]int64, 0, len(vs))
	for _, v := range vs {
		ids = append(ids, v.ID)
		projectIDs = append(projectIDs, v.ProjectID)
		l.versionByID.Prime(v.ID, v)
	}
	if sel.has(versionProjectFields...) {
		ps := nonNil(l.projectByID.prefetch(ctx, projectIDs))
		if sel.has("urls", "downloads") {
			r.prefetchTargets(ctx, ps)
		}
		if sel.has("aliases") && readsMaintainers(ctx) {
			l.maintainersOf.prefetch(ctx, projectIDs) // an alias's visibility
		}
		r.prefetchProjects(ctx, ps, sel.child("project"))
	}
	if sel.has("ref", "urls", "aliases") {
		l.internalVersionsOf.prefetch(ctx, projectIDs)
	}
	if sel.has("documentationType") {
		l.lastSuccessOf.prefetch(ctx, ids)
	}
	if lb := sel.child("lastBuild"); lb != nil {
		r.prefetchBuilds(ctx, nonNil(l.lastBuildOf.prefetch(ctx, ids)), lb)
	}
	if as := sel.child("aliases"); as != nil {
		var aliases []*store.Version
		for _, v := range vs {
			if a, err := r.versionAliases(ctx, v); err == nil {
				aliases = append(aliases, a...)
			}
		}
		r.prefetchVersions(ctx, aliases, as)
	}
}

// activeFromInternal reports whether a selection of a project's active
// versions needs the project's internal versions anyway (ref, urls): the
// active ones are then picked from those, one statement fewer.
func activeFromInternal(sel *selection) bool { return sel.has("ref", "urls") }

// activeOnly returns the versions of vs (internal, in list order) that are
// active versions: active, built and public (a project's active_versions,
// the activeVersionsOf loader's filter).
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
func (r *Resolver) activeVersions(ctx context.Context, projectID int64, sel *selection) ([]*store.Version, error) {
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
// reads what sel asks of its builds.
func (r *Resolver) prefetchBuildPage(ctx context.Context, page store.BuildPage, sel *selection) {
	l := r.loaders(ctx)
	for _, v := range page.Versions {
		l.versionByID.Prime(v.ID, v)
	}
	r.prefetchBuilds(ctx, page.Builds, sel)
}

// prefetchBuilds reads what sel asks of the builds bs, for a list or a
// single build.
func (r *Resolver) prefetchBuilds(ctx context.Context, bs []*store.Build, sel *selection) {
	if len(bs) == 0 || sel == nil {
		return
	}
	l := r.loaders(ctx)
	ids := make([]int64, 0, len(bs))
	versionIDs := make([]int64, 0, len(bs))
	projectIDs := make([]int64, 0, len(bs))
	for _, b := range bs {
		ids = append(ids, b.ID)
		versionIDs = append(versionIDs, b.VersionID)
		projectIDs = append(projectIDs, b.ProjectID)
	}
	if sel.has("commands") {
		l.commandsOf.prefetch(ctx, ids)
	}
	if sel.has(buildRelationFields...) {
		vs := nonNil(l.versionByID.prefetch(ctx, versionIDs))
		ps := nonNil(l.projectByID.prefetch(ctx, projectIDs))
		if sel.has("docsUrl") {
			r.prefetchTargets(ctx, ps)
		}
		if sel.has("viewerCanCancel", "viewerCanRetry") && readsMaintainers(ctx) {
			l.maintainersOf.prefetch(ctx, projectIDs)
		}
		r.prefetchProjects(ctx, ps, sel.child("project"))
		r.prefetchVersions(ctx, vs, sel.child("version"))
	}
}

// prefetchRelationships reads the children of the subproject relationships
// rels and what sel asks of them.
func (r *Resolver) prefetchRelationships(ctx context.Context, rels []*store.Relationship, sel *selection) {
	if len(rels) == 0 || sel == nil {
		return
	}
	if sel.has("parent") {
		parentIDs := make([]int64, 0, len(rels))
		for _, rel := range rels {
			parentIDs = append(parentIDs, rel.ParentID)
		}
		r.loaders(ctx).projectByID.prefetch(ctx, parentIDs)
	}
	if child := sel.child("child"); child != nil {
		childIDs := make([]int64, 0, len(rels))
		for _, rel := range rels {
			childIDs = append(childIDs, rel.ChildID)
		}
		r.prefetchEmbedded(ctx, childIDs, child)
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
