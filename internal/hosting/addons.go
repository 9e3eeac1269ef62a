package hosting

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"docsd/internal/choices"
	"docsd/internal/errs"
	"docsd/internal/pep440"
	"docsd/store"
)

// addonsQuery is what a `/_/addons/` request resolved to:
// the project P, the version V (nil when absent) and the filename (nil
// without `url` or without a version).
type addonsQuery struct {
	project  *store.Project
	version  *store.Version
	filename *string
	withURL  bool
}

// serveAddons answers `GET /_/addons/` (see
// docs/user-guide/reading.md#the-reader-client): its errors in the order
// Read the Docs checks them, else the api-version 1 response.
func (rq *request) serveAddons() error {
	q := rq.r.URL.Query()
	var aq *addonsQuery
	var err error
	if raw := q.Get("url"); raw != "" {
		aq, err = rq.resolveAddonsURL(raw)
		if err != nil {
			return err
		}
		if aq == nil {
			rq.addonsError(http.StatusNotFound, "detail", "There is no project with the 'project-slug' requested")
			return nil
		}
	} else {
		ps, vs := q.Get("project-slug"), q.Get("version-slug")
		if ps == "" || vs == "" {
			rq.addonsError(http.StatusBadRequest, "error", "'project-slug' and 'version-slug' GET attributes are required when not sending 'url'")
			return nil
		}
		aq, err = rq.resolveAddonsSlugs(ps, vs)
		if err != nil {
			return err
		}
		if aq == nil {
			rq.addonsError(http.StatusNotFound, "detail", "No Project matches the given query.")
			return nil
		}
	}
	apiVersion := q.Get("api-version")
	if apiVersion == "" {
		rq.addonsError(http.StatusBadRequest, "error", "'api-version' GET attribute is required")
		return nil
	}
	pv, err := pep440.Parse(apiVersion)
	if err != nil {
		rq.addonsError(http.StatusBadRequest, "error", "The version specifified in 'api-version' is invalid")
		return nil
	}
	switch pep440Major(pv) {
	case "1":
	case "2":
		rq.writeAddons(map[string]any{"api_version": "2", "comment": "Undefined yet. Use v1 for now"})
		return nil
	default:
		rq.addonsError(http.StatusBadRequest, "error", "The version specified in 'api-version' is currently not supported")
		return nil
	}
	resp, err := rq.addonsResponse(aq)
	if err != nil {
		return err
	}
	rq.writeAddons(resp)
	return nil
}

// pep440Major is the first release segment of v, without leading zeros.
func pep440Major(v pep440.Version) string {
	s := v.String()
	if _, after, ok := strings.Cut(s, "!"); ok {
		s = after
	}
	major, _, _ := strings.Cut(s, ".")
	major = strings.TrimLeft(major, "0")
	if major == "" {
		major = "0"
	}
	for i, c := range major {
		if c < '0' || c > '9' {
			return major[:i]
		}
	}
	return major
}

// addonsError writes one of `/_/addons/`'s error bodies: {key: msg}.
func (rq *request) addonsError(status int, key, msg string) {
	writeJSON(rq.w, rq.r, status, []string{"Cache-Control", "no-cache", "X-Content-Type-Options", "nosniff"}, map[string]string{key: msg})
}

// writeAddons writes a 200 answer: JSON, never cached without asking
// again (private for a signed-in reader), with a strong ETag.
func (rq *request) writeAddons(v any) {
	body := marshalJSON(v)
	h := rq.w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Vary", "Authorization, Cookie")
	h.Set("Cache-Control", "no-cache")
	if u, _ := rq.user(); u != nil {
		h.Set("Cache-Control", "private, no-cache")
	}
	tag := strongETag(body)
	h.Set("ETag", tag)
	if rq.r.Header.Get("If-None-Match") != "" && notModified(rq.r, tag, timeZero) {
		h.Del("Content-Type")
		rq.w.WriteHeader(http.StatusNotModified)
		return
	}
	rq.w.WriteHeader(http.StatusOK)
	if rq.r.Method != http.MethodHead {
		rq.w.Write(body)
	}
}

// resolveAddonsSlugs resolves `project-slug` and `version-slug`; nil when
// no visible project has that slug.
func (rq *request) resolveAddonsSlugs(projectSlug, versionSlug string) (*addonsQuery, error) {
	p, err := rq.visibleProject(projectSlug)
	if p == nil || err != nil {
		return nil, err
	}
	aq := &addonsQuery{project: p}
	v, err := rq.findVersion(p, versionSlug)
	if err != nil {
		return nil, err
	}
	if v == nil && versionSlug != "" && isDigits(versionSlug) {
		v, err = rq.externalVersion(p, versionSlug)
		if err != nil {
			return nil, err
		}
	}
	aq.version, err = rq.readable(p, v)
	return aq, err
}

// visibleProject is the project with that slug when the reader may see it.
func (rq *request) visibleProject(slug string) (*store.Project, error) {
	p, err := rq.h.cache.projectBySlug(rq.ctx, slug)
	if errs.Is(err, errs.NotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if ok, err := rq.canSee(p); err != nil || !ok {
		return nil, err
	}
	return p, nil
}

// readable is v when it is active and the reader may see it, else nil.
func (rq *request) readable(p *store.Project, v *store.Version) (*store.Version, error) {
	if v == nil || !v.Active {
		return nil, nil
	}
	ok, err := rq.canSeeVersion(p, v)
	if err != nil || !ok {
		return nil, err
	}
	return v, nil
}

// externalVersion is p's active pull-request version number n, nil when
// there is none.
func (rq *request) externalVersion(p *store.Project, n string) (*store.Version, error) {
	external := store.External
	vs, err := rq.h.store.FindAllVersions(rq.ctx, store.VersionFilter{ProjectIDs: []int64{p.ID}, Type: &external, VerboseName: &n})
	if err != nil {
		return nil, err
	}
	for _, v := range vs {
		if v.Active {
			return v, nil
		}
	}
	return nil, nil
}

func isDigits(s string) bool {
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// resolveAddonsURL is the unresolver of the `url` parameter: the project,
// version and filename a page URL names; nil when it names no visible
// project.
func (rq *request) resolveAddonsURL(raw string) (*addonsQuery, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return nil, nil
	}
	rootSlug, rest, ok := rq.h.namespaceOf(u)
	if !ok {
		return nil, nil
	}
	root, err := rq.visibleProject(rootSlug)
	if root == nil || err != nil {
		return nil, err
	}
	aq := &addonsQuery{project: root, withURL: true}
	if after, ok := strings.CutPrefix(rest, "/_/external/"); ok {
		n, file, _ := strings.Cut(after, "/")
		v, err := rq.externalVersion(root, n)
		if err != nil {
			return nil, err
		}
		return rq.withVersion(aq, v, file)
	}
	if after, ok := strings.CutPrefix(rest, "/projects/"); ok {
		alias, remainder, hasSlash := strings.Cut(after, "/")
		child, _, err := rq.child(root, alias)
		if err != nil {
			return nil, err
		}
		if child == nil {
			return aq, nil
		}
		aq.project, rest = child, ""
		if hasSlash {
			rest = "/" + remainder
		}
	}
	target := aq.project
	if target.SingleVersion() {
		slug, err := rq.defaultVersion(target)
		if err != nil {
			return nil, err
		}
		v, err := rq.findVersion(target, slug)
		if err != nil {
			return nil, err
		}
		return rq.withVersion(aq, v, strings.TrimPrefix(rest, "/"))
	}
	// /<lang>/<version>/<file>, or /<version>/<file> for a project whose
	// versioning scheme is multiple_versions_without_translations.
	lang, afterLang := target.Language, strings.TrimPrefix(rest, "/")
	if target.VersioningScheme != choices.MultipleVersionsWithoutTranslations {
		lang, afterLang, _ = strings.Cut(afterLang, "/")
	}
	slug, file, hasFile := strings.Cut(afterLang, "/")
	if !hasFile {
		return aq, nil
	}
	served, err := rq.languageProject(target, lang)
	if err != nil || served == nil {
		return aq, err
	}
	aq.project = served
	v, err := rq.findVersion(served, slug)
	if err != nil {
		return nil, err
	}
	if v != nil && v.Type == store.External {
		v = nil
	}
	return rq.withVersion(aq, v, file)
}

// withVersion sets aq's version to v when the reader can read it, and the
// filename of file.
func (rq *request) withVersion(aq *addonsQuery, v *store.Version, file string) (*addonsQuery, error) {
	v, err := rq.readable(aq.project, v)
	if err != nil || v == nil {
		return aq, err
	}
	aq.version = v
	if file == "" || strings.HasSuffix(file, "/") {
		file += "index.html"
	}
	name := "/" + file
	aq.filename = &name
	return aq, nil
}

// namespaceOf splits a docs page URL into the slug of its namespace project
// and the path inside the namespace ("" or starting with "/"); ok is false
// when the URL is not on a docs root of this docsd.
func (h *Handler) namespaceOf(u *url.URL) (slug, rest string, ok bool) {
	if d, served := h.domains.Served(context.Background(), u.Host); served {
		return d.ProjectSlug, u.Path, true
	}
	if h.urls.SubdomainMode() {
		if !strings.EqualFold(u.Scheme, h.docsScheme()) {
			return "", "", false
		}
		slug, ok = h.subdomainProject(u.Host)
		return slug, u.Path, ok
	}
	pu, err := url.Parse(h.urls.DocsOrigin())
	if err != nil || !strings.EqualFold(u.Scheme, pu.Scheme) || !strings.EqualFold(u.Host, pu.Host) {
		return "", "", false
	}
	after, found := strings.CutPrefix(u.Path, "/docs/")
	if !found {
		return "", "", false
	}
	slug, rest, hasRest := strings.Cut(after, "/")
	if !slugShaped(slug) {
		return "", "", false
	}
	if hasRest {
		rest = "/" + rest
	}
	return slug, rest, true
}

// DocsScheme is the scheme of docs URLs (the dashboard's sign-in
// hand-off sends browsers back with it).
func (h *Handler) DocsScheme() string { return h.docsScheme() }

// docsScheme is the scheme of docs URLs: the docs origin's in path mode;
// in subdomain mode the docs scheme, else the public URL's.
func (h *Handler) docsScheme() string {
	if !h.urls.SubdomainMode() {
		s, _, _ := strings.Cut(h.urls.DocsOrigin(), "://")
		return s
	}
	if h.urls.DocsScheme != "" {
		return h.urls.DocsScheme
	}
	s, _, _ := strings.Cut(h.urls.PublicURL, "://")
	return s
}
