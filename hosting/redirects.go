package hosting

import (
	"net/http"
	"net/url"
	"strings"

	"docsd/docsurl"
	"docsd/store"
)

// redirectInput is what a redirect is matched against (behavior.md §8.6),
// relative to the served project's namespace.
type redirectInput struct {
	lang, version string // "" when the request did not have the form /<lang>/<version>/<file>
	path          string // "/<file>", or the whole remaining path
	full          string // "/<lang>/<version>/<file>", or the whole remaining path
}

// applyRedirects tries x's redirects, most recently modified first, and
// answers with the first target unless it is the requested path itself. It
// reports whether it answered.
func (rq *request) applyRedirects(x *store.Project, in redirectInput) (bool, error) {
	rds, _, err := rq.h.store.FindRedirects(rq.ctx, x.ID, 0, 0)
	if err != nil || len(rds) == 0 {
		return false, err
	}
	t, err := rq.target(x)
	if err != nil {
		return false, err
	}
	lang, version := in.lang, in.version
	if lang == "" {
		lang = x.Language
	}
	if version == "" {
		if version, err = rq.defaultVersion(x); err != nil {
			return false, err
		}
	}
	for _, rd := range rds {
		loc, ok := redirectTarget(rq.h.urls, t, rd, in, lang, version)
		if !ok {
			continue
		}
		if !isAbsoluteURL(loc) {
			loc = rq.h.urls.Base(t) + loc
		}
		if sameLocation(loc, rq.origin, rq.r.URL.Path) {
			return false, nil
		}
		status := http.StatusFound
		if rd.HTTPStatus == http.StatusMovedPermanently {
			status = http.StatusMovedPermanently
		}
		redirect(rq.w, rq.r, withQuery(loc, rq.r.URL.RawQuery), status)
		return true, nil
	}
	return false, nil
}

// redirectTarget is the target one redirect yields for in, ok false when it
// does not match. lang and version are the known ones or x's language and
// effective default version. The target of an `exact` redirect may be a
// path relative to x's namespace; every other target is absolute.
func redirectTarget(urls docsurl.Config, t docsurl.Target, rd *store.Redirect, in redirectInput, lang, version string) (string, bool) {
	docs := func(name string) string { return urls.DocsWithLanguage(t, lang, version, name) }
	switch rd.Type {
	case "prefix":
		if rd.FromURL != "" && strings.HasPrefix(in.path, rd.FromURL) {
			return docs(escapePath(in.path[len(rd.FromURL):])), true
		}
	case "page":
		if in.path == rd.FromURL {
			if isAbsoluteURL(rd.ToURL) {
				return rd.ToURL, true
			}
			return docs(strings.TrimPrefix(rd.ToURL, "/")), true
		}
	case "exact":
		if in.full == rd.FromURL {
			return rd.ToURL, true
		}
		if before, _, ok := strings.Cut(rd.FromURL, "$rest"); ok && strings.HasPrefix(in.full, before) {
			return rd.ToURL + escapePath(in.full[len(before):]), true
		}
	case "sphinx_html":
		stem, ok := strings.CutSuffix(in.path, "/")
		if !ok {
			stem, ok = strings.CutSuffix(in.path, "/index.html")
		}
		if name := strings.TrimPrefix(stem, "/"); ok && name != "" {
			return docs(escapePath(name + ".html")), true
		}
	case "sphinx_htmldir":
		stem, ok := strings.CutSuffix(in.path, ".html")
		if name := strings.TrimPrefix(stem, "/"); ok && name != "" && !strings.HasSuffix(name, "/") {
			return docs(escapePath(name + "/")), true
		}
	}
	return "", false
}

// isAbsoluteURL reports whether s starts with http:// or https://.
func isAbsoluteURL(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
}

// sameLocation reports whether loc, ignoring its query, is the requested
// path on the docs host the reader asked (origin): the loop guard of §8.6.
func sameLocation(loc, origin, requestPath string) bool {
	u, err := url.Parse(loc)
	if err != nil {
		return false
	}
	o, err := url.Parse(origin)
	if err != nil {
		return false
	}
	return strings.EqualFold(u.Host, o.Host) && u.Path == requestPath
}
