package graph

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"docsd/internal/errs"
	"docsd/store"
)

func isTrue(b *bool) bool { return b != nil && *b }

func firstErr(errors ...error) error {
	for _, err := range errors {
		if err != nil {
			return err
		}
	}
	return nil
}

func fieldRequired(field string) error { return errs.FieldError("graph", field, errs.MsgRequired) }

func fieldInvalid(field, value string) error {
	return errs.FieldError("graph", field, errs.BadChoice(value))
}

// narrowToViewer sets *vis so that lists under p show everything to its
// maintainers and the visible subset to anyone else.
func (r *Resolver) narrowToViewer(ctx context.Context, p *store.Project, vis **store.Visibility) error {
	ok, err := r.isMaintainer(ctx, p)
	if err != nil {
		return err
	}
	if ok {
		*vis = nil
	} else {
		*vis = visibility(ctx)
	}
	return nil
}

// findBuilds lists builds of p matching f, as the viewer may see them.
func (r *Resolver) findBuilds(ctx context.Context, p *store.Project, f store.BuildFilter, a pageArgs) (*BuildConnection, error) {
	if err := r.narrowToViewer(ctx, p, &f.Visible); err != nil {
		return nil, err
	}
	return r.pageBuilds(ctx, f, a)
}

// pageBuilds reads one page of the builds matching f (visibility already
// set) with its total, and prefetches what the selection asks of them.
func (r *Resolver) pageBuilds(ctx context.Context, f store.BuildFilter, a pageArgs) (*BuildConnection, error) {
	pg, err := r.page(nodeBuild, a)
	if err != nil {
		return nil, err
	}
	f.Limit, f.Offset, f.Keyset = pg.Limit, pg.Offset, pg.Keyset
	page, err := r.Store.FindBuildPage(ctx, f)
	if err != nil {
		return nil, err
	}
	r.prefetchBuildPage(ctx, page, childSelection(ctx))
	return buildConnection(pg, r.buildViews(ctx, page.Builds), page.Total), nil
}

// visibleBuild returns b when the viewer can see its version (and, with
// internalOnly, the version is not a pull-request version), else NotFound.
func (r *Resolver) visibleBuild(ctx context.Context, b *store.Build, internalOnly bool) (*store.Build, error) {
	v, err := r.loaders(ctx).versionByID.LoadNow(ctx, b.VersionID)
	if err != nil {
		return nil, err
	}
	ok, err := r.canSeeVersionOf(ctx, v)
	if err != nil {
		return nil, err
	}
	if !ok || (internalOnly && v.Type == store.External) {
		return nil, errNotFound("graph.build")
	}
	return b, nil
}

// canSeeVersionOf reports whether the viewer can see v, reading its project
// (and, when v is not public, the project's maintainers) at once.
func (r *Resolver) canSeeVersionOf(ctx context.Context, v *store.Version) (bool, error) {
	p, err := r.loaders(ctx).projectByID.LoadNow(ctx, v.ProjectID)
	if err != nil {
		return false, err
	}
	r.readMaintainersNow(ctx, p, p.VersionIsPublic(v))
	return r.canSeeVersion(ctx, v, p)
}

// projectDocsURL is the docs URL of p's effective default version.
func (r *Resolver) projectDocsURL(ctx context.Context, p *store.Project) (string, error) {
	t, err := r.target(ctx, p)
	if err != nil {
		return "", err
	}
	version, err := r.effectiveDefaultVersion(ctx, p)
	if err != nil {
		return "", err
	}
	return r.Settings.URLs.Docs(t, version, ""), nil
}

// versionDocsURL is the docs URL of v (under _/external/ for a pull
// request's version).
func (r *Resolver) versionDocsURL(ctx context.Context, v *store.Version) (string, error) {
	p, err := r.loaders(ctx).projectByID.Load(ctx, v.ProjectID)
	if err != nil {
		return "", err
	}
	if v.Type == store.External {
		return r.Settings.URLs.External(p.Slug, v.VerboseName), nil
	}
	t, err := r.target(ctx, p)
	if err != nil {
		return "", err
	}
	return r.Settings.URLs.Docs(t, v.Slug, ""), nil
}

// vcsURL is a version's urls.vcs: its tree on GitHub or GitLab (stable and
// latest as the refs they stand for), its source on Bitbucket, else the
// repository URL.
func (r *Resolver) vcsURL(ctx context.Context, v *store.Version) (string, error) {
	p, err := r.loaders(ctx).projectByID.Load(ctx, v.ProjectID)
	if err != nil {
		return "", err
	}
	repo := p.Repo
	if strings.HasPrefix(repo, "git://") {
		repo = "https://" + strings.TrimPrefix(repo, "git://")
	}
	repo = strings.TrimSuffix(repo, ".git")
	switch {
	case strings.Contains(repo, "github") || strings.Contains(repo, "gitlab"):
		x := v.Slug
		switch v.Slug {
		case store.Stable:
			ref, err := r.stableRef(ctx, v.ProjectID)
			if err != nil {
				return "", err
			}
			x = store.Stable
			if ref != nil {
				x = *ref
			}
		case store.Latest:
			x = p.EffectiveDefaultBranch()
		}
		return repo + "/tree/" + x + "/", nil
	case strings.Contains(repo, "bitbucket"):
		return repo + "/src/" + v.Identifier, nil
	}
	return repo, nil
}

var repoHosts = regexp.MustCompile(`(github\.com|gitlab\.com|bitbucket\.org)[/:]([^/]+)/([^/]+?)(?:\.git)?/?$`)

// commitURL is a build's v2 commit_url on GitHub, GitLab or Bitbucket (a
// pull request's commit for a pull-request build), nil for other hosts.
func commitURL(repo, commit string, v *store.Version) *string {
	m := repoHosts.FindStringSubmatch(repo)
	if m == nil {
		return nil
	}
	base := "https://" + m[1] + "/" + m[2] + "/" + m[3]
	external := v.Type == store.External
	switch m[1] {
	case "github.com":
		if external {
			return ptr(fmt.Sprintf("%s/pull/%s/commits/%s", base, v.VerboseName, commit))
		}
		return ptr(base + "/commit/" + commit)
	case "gitlab.com":
		if external {
			return ptr(fmt.Sprintf("%s/commit/%s?merge_request_iid=%s", base, commit, v.VerboseName))
		}
		return ptr(base + "/commit/" + commit)
	default:
		return ptr(base + "/commits/" + commit)
	}
}

// webhookURL is the unambiguous incoming-webhook URL of an integration:
// `/api/v2/webhook/<project>/<id>/`.
func webhookURL(publicURL, slug string, in *store.Integration) string {
	return fmt.Sprintf("%s/api/v2/webhook/%s/%d/", publicURL, slug, in.ID)
}
