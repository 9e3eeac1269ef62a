// Package redirects decides where a project's redirects send a docs path:
// the docs host answers readers with it, and the graph's
// Project.resolveRedirect answers a maintainer's dry run with the same
// functions, so the two never disagree.
package redirects

import (
	"net/http"
	"net/url"
	"strings"

	"docsd/internal/choices"
	"docsd/internal/docsurl"
	"docsd/store"
)

// Input is what a redirect is matched against, relative to the served
// project's namespace.
type Input struct {
	Lang, Version string // "" when the path did not have the form /<lang>/<version>/<file>
	Path          string // "/<file>", or the whole remaining path
	Full          string // "/<lang>/<version>/<file>", or the whole remaining path
}

// Split is how the docs host reads rest, a path inside a namespace ("" or
// starting with "/"), for redirects: by the namespace's versioning scheme,
// /<lang>/<version>/<file> with a known language code, /<version>/<file>
// (language lang, the namespace project's) without translations, and
// anything else — a single-version namespace, or a path too short or with
// an unknown language — matched whole.
func Split(scheme, lang, rest string) Input {
	whole := Input{Path: rest, Full: rest}
	if choices.IsSingleVersion(scheme) || rest == "" || rest == "/" {
		return whole
	}
	if scheme == choices.MultipleVersionsWithoutTranslations {
		version, file, hasFile := strings.Cut(rest[1:], "/")
		if !hasFile {
			return whole
		}
		return Input{Lang: lang, Version: version, Path: slashFile(rest, file), Full: rest}
	}
	reqLang, afterLang, _ := strings.Cut(rest[1:], "/")
	version, file, hasFile := strings.Cut(afterLang, "/")
	if !hasFile || !choices.Languages.Has(reqLang) {
		return whole
	}
	return Input{Lang: reqLang, Version: version, Path: slashFile(rest, file), Full: rest}
}

// slashFile is "/" + file, where file is what follows a slash at the end
// of p: a part of p rather than a new string (the docs host splits every
// request's path; hosting's benchmarks count its allocations).
func slashFile(p, file string) string { return p[len(p)-len(file)-1:] }

// Match is a redirect that applies: the redirect, the absolute URL it sends
// the reader to (without the request's query) and the HTTP status.
type Match struct {
	Redirect *store.Redirect
	Location string
	Status   int
}

// First tries rds (enabled redirects in position order) on in and returns
// the first one that matches; ok is false when none does, or when the first
// match leads back to the requested path itself on the host the reader
// asked (origin, requestPath): that is a loop, which stops the search
// rather than trying the next redirect. lang and version fill in what in
// lacks: the namespace project's language and its effective default
// version.
func First(urls docsurl.Config, t docsurl.Target, rds []*store.Redirect, in Input, lang, version, origin, requestPath string) (Match, bool) {
	if in.Lang != "" {
		lang = in.Lang
	}
	if in.Version != "" {
		version = in.Version
	}
	for _, rd := range rds {
		loc, ok := target(urls, t, rd, in, lang, version)
		if !ok {
			continue
		}
		if !IsAbsoluteURL(loc) {
			loc = urls.Base(t) + loc
		}
		if sameLocation(loc, origin, requestPath) {
			return Match{}, false
		}
		status := http.StatusFound
		if rd.HTTPStatus == http.StatusMovedPermanently {
			status = http.StatusMovedPermanently
		}
		return Match{Redirect: rd, Location: loc, Status: status}, true
	}
	return Match{}, false
}

// target is the target one redirect yields for in, ok false when it does
// not match. lang and version are the known ones or the project's language
// and effective default version. The target of an `exact` redirect may be
// a path relative to the namespace; every other target is absolute.
func target(urls docsurl.Config, t docsurl.Target, rd *store.Redirect, in Input, lang, version string) (string, bool) {
	docs := func(name string) string { return urls.DocsWithLanguage(t, lang, version, name) }
	switch rd.Type {
	case "prefix":
		if rd.FromURL != "" && strings.HasPrefix(in.Path, rd.FromURL) {
			return docs(EscapePath(in.Path[len(rd.FromURL):])), true
		}
	case "page":
		to, ok := matchURL(rd, in.Path)
		if !ok {
			return "", false
		}
		if IsAbsoluteURL(to) {
			return to, true
		}
		return docs(strings.TrimPrefix(to, "/")), true
	case "exact":
		if !strings.Contains(rd.FromURL, "*") {
			if before, _, ok := strings.Cut(rd.FromURL, "$rest"); ok {
				if strings.HasPrefix(in.Full, before) {
					return rd.ToURL + EscapePath(in.Full[len(before):]), true
				}
				return "", false
			}
		}
		to, ok := matchURL(rd, in.Full)
		if ok && !IsAbsoluteURL(to) && !strings.HasPrefix(to, "/") {
			to = "/" + to
		}
		return to, ok
	case "sphinx_html":
		stem, ok := strings.CutSuffix(in.Path, "/")
		if !ok {
			stem, ok = strings.CutSuffix(in.Path, "/index.html")
		}
		if name := strings.TrimPrefix(stem, "/"); ok && name != "" {
			return docs(EscapePath(name + ".html")), true
		}
	case "sphinx_htmldir":
		stem, ok := strings.CutSuffix(in.Path, ".html")
		if name := strings.TrimPrefix(stem, "/"); ok && name != "" && !strings.HasSuffix(name, "/") {
			return docs(EscapePath(name + "/")), true
		}
	case "clean_url_to_html":
		if in.Path == "/" || in.Path == "/index.html" {
			return "", false
		}
		stem, ok := strings.CutSuffix(in.Path, "/index.html")
		if !ok {
			stem, ok = strings.CutSuffix(in.Path, "/")
		}
		if ok {
			return docs(EscapePath(strings.TrimPrefix(stem, "/") + ".html")), true
		}
	case "html_to_clean_url":
		if in.Path == "/index.html" || strings.HasSuffix(in.Path, "/index.html") {
			return "", false
		}
		if stem, ok := strings.CutSuffix(in.Path, ".html"); ok {
			return docs(EscapePath(strings.TrimPrefix(stem, "/") + "/")), true
		}
	}
	return "", false
}

// matchURL matches a page or exact redirect's from_url against p (`Path`
// or `Full`: the path inside the version for page redirects, the whole path
// for exact ones) and returns its to_url with `:splat` replaced: a from_url
// ending in `*` matches every p under its prefix (unless the loop guard
// stops it: a to_url whose part before `:splat` starts with that prefix
// yields nothing for a p already under that part); any other matches p
// with trailing slashes ignored, so one redirect serves a moved page with
// and without its slash.
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
	return strings.ReplaceAll(rd.ToURL, ":splat", EscapePath(p[len(prefix):])), true
}

// normURL is the form page and exact redirects compare: a leading `/`
// added, trailing `/`s removed, `/` when nothing is left.
func normURL(u string) string {
	u = strings.TrimRight(u, "/")
	if !strings.HasPrefix(u, "/") {
		u = "/" + u
	}
	return u
}

// plainURL splits an absolute http(s) URL made only of printable ASCII,
// with no escapes (`%`) and no user information (`@`), into its host and
// its path (up to a query or fragment): what url.Parse would make of it,
// without its allocations (the docs host checks every redirect it answers
// with sameLocation). ok is false for any other URL, which url.Parse reads.
func plainURL(s string) (host, path string, ok bool) {
	rest, ok := strings.CutPrefix(s, "http://")
	if !ok {
		if rest, ok = strings.CutPrefix(s, "https://"); !ok {
			return "", "", false
		}
	}
	end := len(rest)
	for i := 0; i < len(rest); i++ {
		switch c := rest[i]; {
		case c <= ' ' || c >= 0x7f || c == '%' || c == '@' || c == '\\':
			return "", "", false
		case (c == '?' || c == '#') && end == len(rest):
			end = i
		}
	}
	host, path = rest[:end], ""
	if i := strings.IndexByte(host, '/'); i >= 0 {
		host, path = host[:i], host[i:]
	}
	return host, path, true
}

// IsAbsoluteURL reports whether s starts with http:// or https://.
func IsAbsoluteURL(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
}

// EscapePath escapes a decoded path for a URL.
func EscapePath(p string) string { return (&url.URL{Path: p}).EscapedPath() }

// sameLocation reports whether loc, ignoring its query, is the requested
// path on the docs host the reader asked (origin): a redirect there would
// loop, so it counts as no redirect.
func sameLocation(loc, origin, requestPath string) bool {
	if host, path, ok := plainURL(loc); ok {
		if oHost, _, ok := plainURL(origin); ok {
			return strings.EqualFold(host, oHost) && path == requestPath
		}
	}
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
