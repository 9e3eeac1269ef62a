package graph

import (
	"context"

	"docsd/graph/gid"
	"docsd/store"
)

// The GraphQL Project, Version and Build types are bound to views: a store
// row seen by one request. A view carries the request (its context, with
// the request's viewer and loaders, and the resolver), so that the fields
// that read the row's relations are methods without a context. The executor
// runs such fields inline, where it gives every resolver field of every
// listed object a goroutine of its own: on the REST paths, whose relations
// the lookahead (prefetch.go) has read before the rows are marshalled, each
// goroutine cost more than the field's work.
//
// A view's field reads its relation through the request's loaders when the
// field runs: what the lookahead read is found at once, anything else is
// read then, batched with the other rows' reads (shapes nobody looks ahead
// for still cost one read per relation), and after a mutation or between
// a subscription's events it is read afresh, as the loaders are. A field
// that needs its own selection (activeVersions looks ahead for its
// versions) stays a resolver.
//
// Every value the executor gets as a Project, Version or Build is made by
// the request's view constructor (Resolver.projectView, versionView,
// buildView and their list forms); the store rows they embed may be shared
// (the loaders' cache) and are only read. A view is used by one request.

// view is what the views of one request share.
type view struct {
	ctx context.Context // the request's: its viewer and loaders
	r   *Resolver
}

// ProjectView is the GraphQL Project: a project seen by one request.
type ProjectView struct {
	*store.Project
	view
}

// VersionView is the GraphQL Version: a version seen by one request.
type VersionView struct {
	*store.Version
	view
}

// BuildView is the GraphQL Build: a build seen by one request.
type BuildView struct {
	*store.Build
	view
}

// projectView returns the view of p for the request of ctx, nil for nil;
// projectViews those of ps.
func (r *Resolver) projectView(ctx context.Context, p *store.Project) *ProjectView {
	return viewOf(p, ProjectView{p, view{ctx, r}})
}

func (r *Resolver) projectViews(ctx context.Context, ps []*store.Project) []*ProjectView {
	return viewsOf(ps, func(p *store.Project) ProjectView { return ProjectView{p, view{ctx, r}} })
}

// versionView returns the view of v for the request of ctx, nil for nil;
// versionViews those of vs.
func (r *Resolver) versionView(ctx context.Context, v *store.Version) *VersionView {
	return viewOf(v, VersionView{v, view{ctx, r}})
}

func (r *Resolver) versionViews(ctx context.Context, vs []*store.Version) []*VersionView {
	return viewsOf(vs, func(v *store.Version) VersionView { return VersionView{v, view{ctx, r}} })
}

// buildView returns the view of b for the request of ctx, nil for nil;
// buildViews those of bs.
func (r *Resolver) buildView(ctx context.Context, b *store.Build) *BuildView {
	return viewOf(b, BuildView{b, view{ctx, r}})
}

func (r *Resolver) buildViews(ctx context.Context, bs []*store.Build) []*BuildView {
	return viewsOf(bs, func(b *store.Build) BuildView { return BuildView{b, view{ctx, r}} })
}

// viewOf returns v, the view of row, or nil when row is nil.
func viewOf[T, V any](row *T, v V) *V {
	if row == nil {
		return nil
	}
	return &v
}

// viewsOf returns the views that mk makes of rows, made in one allocation
// (a list's views live as long as the list); nil rows stay nil.
func viewsOf[T, V any](rows []*T, mk func(*T) V) []*V {
	out := make([]*V, len(rows))
	views := make([]V, len(rows))
	for i, row := range rows {
		if row != nil {
			views[i] = mk(row)
			out[i] = &views[i]
		}
	}
	return out
}

// withView returns the view of a row loaded for the request of ctx.
func withView[T, V any](ctx context.Context, row *T, err error, mk func(context.Context, *T) *V) (*V, error) {
	if err != nil {
		return nil, err
	}
	return mk(ctx, row), nil
}

// projectByID returns the view of the project id, read through the
// request's loaders.
func (r *Resolver) projectByID(ctx context.Context, id int64) (*ProjectView, error) {
	p, err := r.loaders(ctx).projectByID.Load(ctx, id)
	return withView(ctx, p, err, r.projectView)
}

// visibleProjectByID returns the project with that id as a view where the
// viewer can see it, else nil.
func (r *Resolver) visibleProjectByID(ctx context.Context, id int64) (*ProjectView, error) {
	p, err := r.visibleProjectOrNil(ctx, id)
	return withView(ctx, p, err, r.projectView)
}

// The Project fields that read more than the row.

// GlobalID is the project's global id (the id field).
func (p *ProjectView) GlobalID() string { return gid.Encode(nodeProject, p.ID) }

// Users returns the project's maintainers.
func (p *ProjectView) Users() ([]*store.User, error) {
	l := p.r.loaders(p.ctx)
	ids, err := l.maintainersOf.Load(p.ctx, p.ID)
	if err != nil {
		return nil, err
	}
	users, err := l.userByID.LoadAll(p.ctx, ids)
	if users == nil {
		users = []*store.User{}
	}
	return users, err
}

// SubprojectOf returns the project's parent where the viewer can see it.
func (p *ProjectView) SubprojectOf() (*ProjectView, error) {
	if p.ParentID == nil {
		return nil, nil
	}
	return p.r.visibleProjectByID(p.ctx, *p.ParentID)
}

// TranslationOf returns the project's main project (of which it is a
// translation) where the viewer can see it.
func (p *ProjectView) TranslationOf() (*ProjectView, error) {
	if p.Project.TranslationOf == nil {
		return nil, nil
	}
	return p.r.visibleProjectByID(p.ctx, *p.Project.TranslationOf)
}

// Urls returns the project's URLs.
func (p *ProjectView) Urls() (*ProjectUrls, error) {
	docs, err := p.r.projectDocsURL(p.ctx, p.Project)
	if err != nil {
		return nil, err
	}
	u := p.r.Settings.URLs
	return &ProjectUrls{Documentation: docs, Home: u.ProjectHome(p.Slug), Builds: u.ProjectBuilds(p.Slug), Versions: u.ProjectVersions(p.Slug)}, nil
}

// CanonicalURL returns the URL of the project's default version's docs.
func (p *ProjectView) CanonicalURL() (string, error) {
	return p.r.projectDocsURL(p.ctx, p.Project)
}

// The Version fields that read more than the row.

// GlobalID is the version's global id (the id field).
func (v *VersionView) GlobalID() string { return gid.Encode(nodeVersion, v.ID) }

// Project returns the version's project.
func (v *VersionView) Project() (*ProjectView, error) {
	return v.r.projectByID(v.ctx, v.ProjectID)
}

// Ref returns the commit or branch that the stable version builds, nil for
// other versions.
func (v *VersionView) Ref() (*string, error) {
	if v.Slug != store.Stable {
		return nil, nil
	}
	return v.r.stableRef(v.ctx, v.ProjectID)
}

// Aliases returns the versions that the version stands for or that stand
// for it.
func (v *VersionView) Aliases() ([]*VersionView, error) {
	as, err := v.r.versionAliases(v.ctx, v.Version)
	if err != nil {
		return nil, err
	}
	return v.r.versionViews(v.ctx, as), nil
}

// DocumentationType returns the documentation type of the version's docs.
func (v *VersionView) DocumentationType() (string, error) {
	return v.r.versionDocumentationType(v.ctx, v.Version)
}

// Downloads returns the URLs of the version's offline formats.
func (v *VersionView) Downloads() (*Downloads, error) {
	p, err := v.r.loaders(v.ctx).projectByID.Load(v.ctx, v.ProjectID)
	if err != nil {
		return nil, err
	}
	t, err := v.r.target(v.ctx, p)
	if err != nil {
		return nil, err
	}
	d := &Downloads{}
	u := v.r.Settings.URLs
	if v.HasPDF {
		d.PDF = ptr(u.Download(t, v.Slug, "pdf"))
	}
	if v.HasHTMLZip {
		d.Htmlzip = ptr(u.Download(t, v.Slug, "htmlzip"))
	}
	if v.HasEPUB {
		d.Epub = ptr(u.Download(t, v.Slug, "epub"))
	}
	return d, nil
}

// Urls returns the version's URLs.
func (v *VersionView) Urls() (*VersionUrls, error) {
	docs, err := v.r.versionDocsURL(v.ctx, v.Version)
	if err != nil {
		return nil, err
	}
	vcs, err := v.r.vcsURL(v.ctx, v.Version)
	if err != nil {
		return nil, err
	}
	p, err := v.r.loaders(v.ctx).projectByID.Load(v.ctx, v.ProjectID)
	if err != nil {
		return nil, err
	}
	edit := v.r.Settings.URLs.VersionPage(p.Slug, v.Slug)
	return &VersionUrls{Documentation: docs, Vcs: vcs, Dashboard: &VersionDashboardUrls{Edit: edit}}, nil
}

// LastBuild returns the version's last build, nil when it has none.
func (v *VersionView) LastBuild() (*BuildView, error) {
	b, err := v.r.loaders(v.ctx).lastBuildOf.Load(v.ctx, v.ID)
	return withView(v.ctx, b, err, v.r.buildView)
}

// The Build fields that read more than the row.

// GlobalID is the build's global id (the id field).
func (b *BuildView) GlobalID() string { return gid.Encode(nodeBuild, b.ID) }

// Project returns the build's project.
func (b *BuildView) Project() (*ProjectView, error) {
	return b.r.projectByID(b.ctx, b.ProjectID)
}

// Version returns the build's version.
func (b *BuildView) Version() (*VersionView, error) {
	v, err := b.r.loaders(b.ctx).versionByID.Load(b.ctx, b.VersionID)
	return withView(b.ctx, v, err, b.r.versionView)
}

// Commands returns the build's commands.
func (b *BuildView) Commands() ([]*store.BuildCommand, error) {
	cs, err := b.r.loaders(b.ctx).commandsOf.Load(b.ctx, b.ID)
	if cs == nil {
		cs = []*store.BuildCommand{}
	}
	return cs, err
}

// DocsURL returns the URL of the docs of the build's version.
func (b *BuildView) DocsURL() (string, error) {
	v, err := b.r.loaders(b.ctx).versionByID.Load(b.ctx, b.VersionID)
	if err != nil {
		return "", err
	}
	return b.r.versionDocsURL(b.ctx, v)
}

// Urls returns the build's URLs.
func (b *BuildView) Urls() (*BuildUrls, error) {
	p, v, err := b.r.buildProjectVersion(b.ctx, b.Build)
	if err != nil {
		return nil, err
	}
	u := b.r.Settings.URLs
	return &BuildUrls{Build: u.BuildPage(p.Slug, b.ID), Project: u.ProjectHome(p.Slug), Version: u.VersionPage(p.Slug, v.Slug)}, nil
}

// CommitURL returns the URL of the build's commit on its repository's
// host, nil when there is none.
func (b *BuildView) CommitURL() (*string, error) {
	if b.Commit == nil {
		return nil, nil
	}
	p, v, err := b.r.buildProjectVersion(b.ctx, b.Build)
	if err != nil {
		return nil, err
	}
	return commitURL(p.Repo, *b.Commit, v), nil
}

// ErrorIDOrNil returns the build's error id (the errorId field).
func (b *BuildView) ErrorIDOrNil() *string { return b.r.buildErrorID(b.Build) }
