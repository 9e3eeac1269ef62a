package hosting

import (
	"net/http"
	"net/url"
	"strings"

	"docsd/docsurl"
	"docsd/store"
)

// redirectInput is what a redirect is matched against (behavior.md §8.6,
// api-2026.md §A2.5), relative to the served project's namespace.
type redirectInput struct {
	lang, version string // "" when the request did not have the form /<lang>/<version>/<file>
	path          string // "/<file>", or the whole remaining path
	full          string // "/<lang>/<version>/<file>", or the whole remaining path
}

// applyRedirects tries x's enabled redirects in position order (only the
// forced ones when forcedOnly: the pass before an existing file is served)
// and answers with the first target unless it is the requested path
// itself. It reports whether it answered.
func (rq *request) applyRedirects(x *store.Project, in redirectInput, forcedOnly bool) (bool, error) {
	rds, err := rq.h.cache.servedRedirects(rq.ctx, x.ID, forcedOnly)
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
		to, ok := matchURL(rd, in.path)
		if !ok {
			return "", false
		}
		if isAbsoluteURL(to) {
			return to, true
		}
		return docs(strings.TrimPrefix(to, "/")), true
	case "exact":
		if !strings.Contains(rd.FromURL, "*") {
			if before, _, ok := strings.Cut(rd.FromURL, "$rest"); ok {
				if strings.HasPrefix(in.full, before) {
					return rd.ToURL + escapePath(in.full[len(before):]), true
				}
				return "", false
			}
		}
		to, ok := matchURL(rd, in.full)
		if ok && !isAbsoluteURL(to) && !strings.HasPrefix(to, "/") {
			to = "/" + to
		}
		return to, ok
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
	case "clean_url_to_html":
		if in.path == "/" || in.path == "/index.html" {
			return "", false
		}
		stem, ok := strings.CutSuffix(in.path, "/index.html")
		if !ok {
			stem, ok = strings.CutSuffix(in.path, "/")
		}
		if ok {
			return docs(escapePath(strings.TrimPrefix(stem, "/") + ".html")), true
		}
	case "html_to_clean_url":
		if in.path == "/index.html" || strings.HasSuffix(in.path, "/index.html") {
			return "", false
		}
		if stem, ok := strings.CutSuffix(in.path, ".html"); ok {
			return docs(escapePath(strings.TrimPrefix(stem, "/") + "/")), true
		}
	}
	return "", false
}

// matchURL matches a page or exact redirect's from_url against p (`path`
// or `full`) as api-2026.md §A2.5 says, and returns its to_url with
// `:splat` replaced: a from_url ending in `*` matches every p under its
// prefix (unless the loop guard stops it); any other matches p with
// trailing slashes ignored.
func matchURL(rd *store.Redirect, p string) (string, bool) {
	prefix, wildcard := strings.CutSuffix(rd.FromURL, "*")
	if !wildcard {
		return rd.ToURL, normURL(p) == normURL(rd.FromURL)
	}
	if !strings.HasPrefix(prefix, "/") {
		prefix = "/" + prefix
	}
	if !strings.HasPrefix(p, prefix) {
		return "", false
	}
	// Loop guard: a target under the same prefix that p already is under.
	if before, _, ok := strings.Cut(rd.ToURL, ":splat"); ok && strings.HasPrefix(before, prefix) && strings.HasPrefix(p, before) {
		return "", false
	}
	return strings.ReplaceAll(rd.ToURL, ":splat", escapePath(p[len(prefix):])), true
}

// normURL is norm(u) of §A2.5: a leading `/` added, trailing `/`s removed,
// `/` when nothing is left.
func normURL(u string) string {
	u = strings.TrimRight(u, "/")
	if !strings.HasPrefix(u, "/") {
		u = "/" + u
	}
	return u
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
