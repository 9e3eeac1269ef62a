package graph

import (
	"context"
	"net/url"
	"strings"

	"docsd/internal/errs"
	"docsd/internal/redirects"
	"docsd/store"
)

// resolveRedirect answers Project.resolveRedirect: a dry run
// of the docs host's redirects for one path of the project, with the docs
// host's own matching (package redirects) in the docs host's order: the
// forced redirects first (they apply even when the page exists), then all
// enabled ones (they apply when it does not). Whether the page or version
// exists is not looked at: the answer says which case it is for.
func (r *Resolver) resolveRedirect(ctx context.Context, obj *store.Project, path string) (*RedirectResolution, error) {
	const op = "graph.Project.resolveRedirect"
	t, err := r.target(ctx, obj)
	if err != nil {
		return nil, err
	}
	base := r.Settings.URLs.Base(t)
	rest, ok := namespacePath(base, path)
	if !ok {
		return nil, errs.FieldError(op, "path", "Enter a path starting with / or a docs URL of this project ("+base+"/…).")
	}
	version, err := r.effectiveDefaultVersion(ctx, obj)
	if err != nil {
		return nil, err
	}
	// The URL a reader would ask for: the loop guard compares against it.
	requested, err := url.Parse(base + redirects.EscapePath(rest))
	if err != nil {
		return nil, errs.FieldError(op, "path", errs.MsgInvalidURL)
	}
	origin := requested.Scheme + "://" + requested.Host
	in := redirects.Split(t.Scheme, obj.Language, rest)
	for _, forcedOnly := range []bool{true, false} {
		rds, err := r.Store.FindServedRedirects(ctx, obj.ID, forcedOnly)
		if err != nil {
			return nil, err
		}
		if m, ok := redirects.First(r.Settings.URLs, t, rds, in, obj.Language, version, origin, requested.Path); ok {
			return &RedirectResolution{Redirect: m.Redirect, Location: m.Location, HTTPStatus: int64(m.Status),
				OnlyWhenPageMissing: !forcedOnly}, nil
		}
	}
	return nil, nil
}

// namespacePath turns what a maintainer typed into the decoded path inside
// the namespace at base, as the docs host sees it: a path ("/en/latest/x")
// or a URL under base; the query and fragment are dropped.
func namespacePath(base, typed string) (string, bool) {
	typed = strings.TrimSpace(typed)
	if rest, ok := strings.CutPrefix(typed, base); ok {
		typed = rest
		if typed == "" {
			typed = "/"
		}
	}
	u, err := url.Parse(typed)
	if err != nil || u.Scheme != "" || u.Host != "" || !strings.HasPrefix(u.Path, "/") {
		return "", false
	}
	return u.Path, true
}
