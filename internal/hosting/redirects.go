package hosting

import (
	"docsd/internal/redirects"
	"docsd/store"
)

// applyRedirects tries x's enabled redirects in position order (only the
// forced ones when forcedOnly: the pass before an existing file is served)
// and answers with the first target unless it is the requested path
// itself. It reports whether it answered. The matching is package
// redirects', which the graph's dry run (Project.resolveRedirect) uses too.
func (rq *request) applyRedirects(x *store.Project, in redirects.Input, forcedOnly bool) (bool, error) {
	rds, err := rq.h.cache.servedRedirects(rq.ctx, x.ID, forcedOnly)
	if err != nil || len(rds) == 0 {
		return false, err
	}
	t, err := rq.target(x)
	if err != nil {
		return false, err
	}
	version := in.Version
	if version == "" {
		if version, err = rq.defaultVersion(x); err != nil {
			return false, err
		}
	}
	m, ok := redirects.First(rq.urls, t, rds, in, x.Language, version, rq.origin, rq.r.URL.Path)
	if !ok {
		return false, nil
	}
	rq.redirect(withQuery(m.Location, rq.r.URL.RawQuery), m.Status)
	return true, nil
}
