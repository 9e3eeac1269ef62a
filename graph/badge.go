package graph

import (
	"context"
	"net/url"

	"docsd/internal/badge"
	"docsd/store"
)

// badgeStatus is Query.badgeStatus: the state of the most recent finished
// build of a version the caller may see (or any version of the project,
// with its valid badge token). Whatever is missing or hidden is Unknown,
// never an error, so the answer is the same for "no such project" and
// "not yours to see".
func (r *Resolver) badgeStatus(ctx context.Context, projectSlug string, versionSlug, token *string) (string, error) {
	p, err := r.loaders(ctx).projectBySlug.Load(ctx, projectSlug)
	if notFoundIs(err) {
		return badge.Unknown, nil
	}
	if err != nil {
		return "", err
	}
	slug := p.DefaultVersion
	if versionSlug != nil && *versionSlug != "" {
		slug = *versionSlug
	}
	v, err := r.Store.FindVersionBySlug(ctx, p.ID, slug)
	if notFoundIs(err) {
		return badge.Unknown, nil
	}
	if err != nil {
		return "", err
	}
	if !v.Active {
		// Read the Docs draws inactive versions as unknown: they are not
		// built any more, so their last state says nothing of today's.
		return badge.Unknown, nil
	}
	if token == nil || !badge.ValidToken(r.Settings.BadgeKeys, p.ID, p.Slug, *token) {
		ok, err := r.canSeeVersion(ctx, v, p)
		if err != nil || !ok {
			return badge.Unknown, err
		}
	}
	return r.lastFinishedBuildStatus(ctx, v)
}

// lastFinishedBuildStatus is Passing or Failing by the success of v's most
// recent finished build, Unknown when it has none.
func (r *Resolver) lastFinishedBuildStatus(ctx context.Context, v *store.Version) (string, error) {
	finished := false
	builds, _, err := r.Store.FindBuilds(ctx, store.BuildFilter{VersionID: &v.ID, Running: &finished, Limit: 1})
	switch {
	case err != nil:
		return "", err
	case len(builds) == 0:
		return badge.Unknown, nil
	case builds[0].Success:
		return badge.Passing, nil
	}
	return badge.Failing, nil
}

// projectBadge is Project.badge: the badge of p's default version (as
// set) with its image and link URLs. The image URL carries p's badge token
// when the version is not public, the caller maintains p and a key makes
// tokens.
func (r *Resolver) projectBadge(ctx context.Context, p *store.Project) (*ProjectBadge, error) {
	slug := p.DefaultVersion
	out := &ProjectBadge{Version: slug, Status: badge.Unknown}
	query := "version=" + url.QueryEscape(slug)
	status, err := r.badgeStatus(ctx, p.Slug, &slug, nil)
	if err != nil {
		return nil, err
	}
	out.Status = status
	v, err := r.Store.FindVersionBySlug(ctx, p.ID, slug)
	if err != nil && !notFoundIs(err) {
		return nil, err
	}
	if v != nil && !p.VersionIsPublic(v) && len(r.Settings.BadgeKeys) > 0 {
		ok, err := r.isMaintainer(ctx, p)
		if err != nil {
			return nil, err
		}
		if tok := badge.Token(r.Settings.BadgeKeys[0], p.ID, p.Slug); ok && tok != "" {
			query += "&token=" + tok
		}
	}
	// version before token, as Read the Docs writes them.
	out.ImageURL = r.Settings.URLs.PublicURL + "/projects/" + url.PathEscape(p.Slug) + "/badge/?" + query
	t, err := r.target(ctx, p)
	if err != nil {
		return nil, err
	}
	out.LinkURL = r.Settings.URLs.Docs(t, slug, "") + "?" + url.Values{"badge": {slug}}.Encode()
	return out, nil
}
