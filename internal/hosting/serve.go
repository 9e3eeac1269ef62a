package hosting

import (
	"context"
	"html"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"docsd/internal/access"
	"docsd/internal/artifacts"
	"docsd/internal/choices"
	"docsd/internal/docsurl"
	"docsd/internal/errs"
	"docsd/internal/redirects"
	"docsd/store"
)

// request is one docs request being answered. It remembers who the reader
// is and what they maintain, so that each is looked up at most once.
type request struct {
	h      *Handler
	w      http.ResponseWriter
	r      *http.Request
	ctx    context.Context
	origin string // scheme://host of the URL the reader asked for
	// urls are the docs URLs answers write: the host's, with the
	// project's root on the custom domain the request came to (urlsFor).
	urls docsurl.Config

	viewerDone bool
	viewer     access.Viewer
	roles      access.Roles
	// page is the served page when it gets the reader client.
	page *page
	// private is set once something non-public was shown to a maintainer:
	// the answer must not be stored by shared caches.
	private bool
	// keyed: the answer may be kept (answerKeyOf gave a key and the cache
	// keeps answers). kept is the answer written, when its writer says it
	// may be replayed (keep); keepSpoiled when a second writer ran.
	keyed       bool
	kept        *answer
	keepSpoiled bool
	// view is the page view to count (notePageView); wroteWhole is set
	// once a whole 200 was written (writeWholeHeader).
	view       *pageView
	wroteWhole bool
}

// serve answers a request in the namespace of project rootSlug, in the
// numbered steps below; rest is the path inside it ("" or starting with
// "/"). A returned error is a server failure; every other outcome has
// been written.
func (rq *request) serve(rootSlug, rest string) error {
	root, err := rq.h.cache.projectBySlug(rq.ctx, rootSlug)
	if errs.Is(err, errs.NotFound) { // step 1
		return rq.notFoundPage()
	}
	if err != nil {
		return err
	}
	if ok, err := rq.canSee(root); err != nil || !ok { // step 1a
		return rq.notFoundPageOr(err)
	}

	switch rest {
	case FaviconPath:
		return rq.serveFavicon(root)
	case RobotsPath:
		return rq.serveRobots(root)
	case SitemapPath:
		return rq.serveSitemap(root)
	}

	// Step 2: /page/<file> and /projects/<alias>/page/<file>.
	if file, ok := strings.CutPrefix(rest, "/page/"); ok {
		return rq.redirectToDocs(root, file)
	}
	if after, ok := strings.CutPrefix(rest, "/projects/"); ok {
		if alias, file, ok := strings.Cut(after, "/page/"); ok && !strings.Contains(alias, "/") {
			child, _, err := rq.child(root, alias)
			if err != nil || child == nil {
				return rq.notFoundPageOr(err)
			}
			return rq.redirectToDocs(child, file)
		}
	}

	// Step 3: downloads, and the pull-request previews.
	if after, ok := strings.CutPrefix(rest, "/_/downloads/"); ok {
		return rq.serveDownload(root, after)
	}
	if after, ok := strings.CutPrefix(rest, "/_/external/"); ok {
		return rq.serveExternal(root, after)
	}

	// Step 4: a subproject's namespace.
	target, restT := root, rest
	if after, ok := strings.CutPrefix(rest, "/projects/"); ok {
		alias, remainder, hasSlash := strings.Cut(after, "/")
		child, _, err := rq.child(root, alias)
		if err != nil || child == nil {
			return rq.notFoundPageOr(err)
		}
		target, restT = child, ""
		if hasSlash {
			restT = "/" + remainder
		}
	}

	// Step 5: single-version projects have no <lang>/<version>/; projects
	// without translations no <lang>/.
	if target.VersioningScheme == choices.MultipleVersionsWithoutTranslations {
		return rq.serveWithoutTranslations(target, restT)
	}
	if target.SingleVersion() {
		if restT == "" {
			// (docsd) /docs/<p> and /docs/<p>/projects/<alias> go to the
			// namespace with its slash, so relative links resolve.
			return rq.redirectToDocs(target, "")
		}
		version, err := rq.defaultVersion(target)
		if err != nil {
			return err
		}
		return rq.serveVersion(target, version, restT[1:], redirects.Split(target.VersioningScheme, target.Language, restT))
	}

	// Step 6: /<lang>/<version>/<file> and the redirects around it.
	if restT == "" || restT == "/" {
		return rq.redirectToDocs(target, "")
	}
	in := redirects.Split(target.VersioningScheme, target.Language, restT)
	lang, afterLang, hasSlash := strings.Cut(restT[1:], "/")
	version, file, hasFile := strings.Cut(afterLang, "/")
	if !hasFile { // /<lang>, /<lang>/ or /<lang>/<version>
		p, err := rq.languageProject(target, lang)
		if err != nil {
			return err
		}
		switch {
		case p == nil:
			return rq.notFound(target, nil, nil, "", in, true)
		case hasSlash && afterLang == "":
			return rq.redirectToDocs(p, "")
		default: // (docsd) the same URL with its slash
			rq.redirectKeepingQuery(rq.requestedURL() + "/")
			return nil
		}
	}
	if !choices.Languages.Has(lang) {
		return rq.notFound(target, nil, nil, "", in, true)
	}
	served, err := rq.languageProject(target, lang)
	if err != nil {
		return err
	}
	if served == nil {
		return rq.notFound(target, nil, nil, file, in, true)
	}
	return rq.serveVersion(served, version, file, in)
}

// serveWithoutTranslations is step 6 for a project whose scheme is
// multiple_versions_without_translations: restT is
// `/<version>/<file>`; a version slug that looks like a language code is
// just a version.
func (rq *request) serveWithoutTranslations(target *store.Project, restT string) error {
	if restT == "" || restT == "/" {
		return rq.redirectToDocs(target, "")
	}
	version, file, hasFile := strings.Cut(restT[1:], "/")
	if !hasFile {
		ver, err := rq.findVersion(target, version)
		if err != nil {
			return err
		}
		if ver == nil || ver.Type == store.External {
			return rq.notFound(target, nil, nil, "", redirects.Split(target.VersioningScheme, target.Language, restT), true)
		}
		rq.redirectKeepingQuery(rq.requestedURL() + "/")
		return nil
	}
	in := redirects.Split(target.VersioningScheme, target.Language, restT)
	return rq.serveVersion(target, version, file, in)
}

// serveVersion runs steps 7–9 for a file of a version of project x.
func (rq *request) serveVersion(x *store.Project, versionSlug, file string, in redirects.Input) error {
	ver, err := rq.findVersion(x, versionSlug)
	if err != nil {
		return err
	}
	if ver != nil && (ver.Type == store.External || !ver.Active) {
		ver = nil
	}
	return rq.serveFromVersion(x, ver, file, in, true)
}

// serveFromVersion runs steps 7 (privacy), 8 and 9 for a file of version
// ver (nil when there is no such version) of x.
func (rq *request) serveFromVersion(x *store.Project, ver *store.Version, file string, in redirects.Input, tryRedirects bool) error {
	if ver != nil {
		if ok, err := rq.canSeeVersion(x, ver); err != nil || !ok {
			return rq.notFoundPageOr(err)
		}
		// The forced pass (redirects with force set): only for a version the
		// reader may see, before an existing file is served.
		if tryRedirects {
			if done, err := rq.applyRedirects(x, in, true); err != nil || done {
				return err
			}
		}
	}
	tree, err := rq.openTree(x, ver)
	if err != nil {
		return err
	}
	if tree != nil {
		defer tree.Close()
		name := file
		if name == "" || strings.HasSuffix(name, "/") {
			name += "index.html"
		}
		pf, err := rq.h.published.lookup(tree, name)
		if err != nil {
			return err
		}
		if pf.regular {
			rq.setPage(x, ver, file, http.StatusOK)
			rq.notePageView(x, ver, name, pf)
			rq.sendFile(tree, name, pf)
			if recordedPage(name) && rq.r.Method == http.MethodGet {
				rq.auditRead(store.AuditPageview, x, ver, rq.r.URL.Path)
			}
			return nil
		}
	}
	return rq.notFound(x, ver, tree, file, in, tryRedirects)
}

// openTree opens the published tree of ver; nil when ver is nil, was never
// built, or has nothing published.
func (rq *request) openTree(x *store.Project, ver *store.Version) (artifacts.Tree, error) {
	if ver == nil || !ver.Built {
		return nil, nil
	}
	tree, err := rq.h.cache.openHTML(rq.ctx, rq.h.files, x.Slug, ver.Slug)
	if errs.Is(err, errs.NotFound) {
		return nil, nil
	}
	return tree, err
}

// notFound is the last step, when no file answers: redirects (unless
// turned off), the directory redirects, the custom 404 pages, and the
// generic 404 page.
func (rq *request) notFound(x *store.Project, ver *store.Version, tree artifacts.Tree, file string, in redirects.Input, tryRedirects bool) error {
	if tryRedirects {
		if done, err := rq.applyRedirects(x, in, false); err != nil || done {
			return err
		}
	}
	if tree != nil && file != "" && !strings.HasSuffix(file, "/") {
		if rq.h.published.isFile(tree, file+"/index.html") {
			rq.redirectKeepingQuery(rq.requestedURL() + "/")
			return nil
		}
		if rq.h.published.isFile(tree, file+"/README.html") {
			rq.redirectKeepingQuery(rq.requestedURL() + "/README.html")
			return nil
		}
	}
	if ver != nil && tree == nil { // nothing published yet: the unbuilt page
		return rq.sendUnbuiltPage(x, ver)
	}
	rq.setPage(x, ver, file, http.StatusNotFound)
	if tree != nil && rq.sendNotFoundFile(tree, x, ver) {
		return nil
	}
	defSlug, err := rq.defaultVersion(x)
	if err != nil {
		return err
	}
	if ver == nil || ver.Slug != defSlug {
		def, defTree, err := rq.defaultTree(x)
		if err != nil {
			return err
		}
		if defTree != nil {
			defer defTree.Close()
			if ver == nil {
				rq.setPage(x, def, file, http.StatusNotFound)
			}
			if rq.sendNotFoundFile(defTree, x, def) {
				return nil
			}
		}
	}
	return rq.notFoundPage()
}

// defaultTree returns x's default version and its published tree when
// that version is active, not a pull-request preview, visible to the
// reader and published; the tree is nil otherwise. The caller closes it.
func (rq *request) defaultTree(x *store.Project) (*store.Version, artifacts.Tree, error) {
	defSlug, err := rq.defaultVersion(x)
	if err != nil {
		return nil, nil, err
	}
	def, err := rq.findVersion(x, defSlug)
	if err != nil || def == nil || !def.Active || def.Type == store.External {
		return nil, nil, err
	}
	if ok, err := rq.canSeeVersion(x, def); err != nil || !ok {
		return nil, nil, err
	}
	tree, err := rq.openTree(x, def)
	return def, tree, err
}

// serveExternal serves a pull-request preview, `/_/external/<n>/<file>`:
// a version's file rules (the file, else the not-found answer) without
// redirects.
func (rq *request) serveExternal(x *store.Project, after string) error {
	number, file, hasSlash := strings.Cut(after, "/")
	if number == "" {
		return rq.notFoundPage()
	}
	if !hasSlash {
		rq.redirectKeepingQuery(rq.requestedURL() + "/")
		return nil
	}
	vs, err := rq.h.cache.externalVersions(rq.ctx, x.ID, number)
	if err != nil {
		return err
	}
	var ver *store.Version
	for _, v := range vs {
		if v.Active {
			ver = v
			break
		}
	}
	return rq.serveFromVersion(x, ver, file, redirects.Input{}, false)
}

// redirectToDocs answers 302 with docs_url(x, its default version, file),
// the request's query kept (steps 2, 5 and 6). file is a path as the reader
// sent it, unescaped.
func (rq *request) redirectToDocs(x *store.Project, file string) error {
	t, err := rq.target(x)
	if err != nil {
		return err
	}
	version, err := rq.defaultVersion(x)
	if err != nil {
		return err
	}
	rq.redirectKeepingQuery(rq.urls.Docs(t, version, redirects.EscapePath(file)))
	return nil
}

// requestedURL is the URL the reader asked for, without its query, on the
// configured docs root (never the request's own Host).
func (rq *request) requestedURL() string { return rq.origin + rq.r.URL.EscapedPath() }

// redirectKeepingQuery answers 302 to loc with the reader's query
// appended.
func (rq *request) redirectKeepingQuery(loc string) {
	rq.redirect(withQuery(loc, rq.r.URL.RawQuery), http.StatusFound)
}

// redirect answers code with Location loc (absolute), and keeps the answer
// when it was written directly. A redirect shown to a maintainer only is
// private: a shared cache keeping a 301 would show it to anyone.
func (rq *request) redirect(loc string, code int) {
	if rq.private {
		rq.w.Header()["Cache-Control"] = hPrivate
	}
	if body, direct := redirect(rq.w, rq.r, loc, code); direct {
		rq.keep(code, body)
	}
}

// redirect writes a redirect to an absolute URL: what http.Redirect
// writes, without its parse of the URL when loc is an absolute ASCII URL,
// which it would leave as it is. It reports whether it wrote the answer
// itself, and the body it wrote then (in one write).
func redirect(w http.ResponseWriter, r *http.Request, loc string, code int) (body []byte, direct bool) {
	if !redirects.IsAbsoluteURL(loc) || !isASCII(loc) {
		http.Redirect(w, r, loc, code)
		return nil, false
	}
	h := w.Header()
	_, hadType := h["Content-Type"]
	h["Location"] = []string{loc}
	if !hadType && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		h["Content-Type"] = hHTML
	}
	if !hadType && r.Method == http.MethodGet {
		text := http.StatusText(code)
		esc := html.EscapeString(loc)
		body = make([]byte, 0, len(`<a href="">`)+len(esc)+len(text)+len("</a>.\n\n"))
		body = append(append(append(append(append(body, `<a href="`...), esc...), `">`...), text...), "</a>.\n\n"...)
		// Set, not left to net/http, which sends a body over 2 KB (a long
		// query in loc) chunked: the Front replays it with this length.
		h["Content-Length"] = []string{strconv.Itoa(len(body))}
	}
	w.WriteHeader(code)
	if body != nil {
		w.Write(body)
	}
	return body, true
}

// hHTML is the Content-Type of HTML answers, shared by every answer.
var hHTML = []string{"text/html; charset=utf-8"}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// withQuery appends a raw query to a URL, with `&` when it already has one,
// before any fragment.
func withQuery(loc, rawQuery string) string {
	if rawQuery == "" {
		return loc
	}
	loc, frag, hasFrag := strings.Cut(loc, "#")
	if strings.Contains(loc, "?") {
		loc += "&" + rawQuery
	} else {
		loc += "?" + rawQuery
	}
	if hasFrag {
		loc += "#" + frag
	}
	return loc
}

// notFoundPageOr returns err when it is set, else writes the generic 404.
func (rq *request) notFoundPageOr(err error) error {
	if err != nil {
		return err
	}
	return rq.notFoundPage()
}

func (rq *request) notFoundPage() error {
	rq.keep(http.StatusNotFound, rq.h.notFoundPage(rq.w, rq.r))
	return nil
}

// target describes x for the URL resolver: its main project and the
// relationship that nests the main project, if any.
func (rq *request) target(x *store.Project) (docsurl.Target, error) {
	c := rq.h.cache
	t := docsurl.Target{Slug: x.Slug, Language: x.Language, Scheme: x.VersioningScheme}
	mainID := x.ID
	if x.TranslationOf != nil {
		main, err := c.projectByID(rq.ctx, *x.TranslationOf)
		if err != nil && !errs.Is(err, errs.NotFound) {
			return t, err
		}
		if err == nil {
			t.MainSlug, t.Scheme, mainID = main.Slug, main.VersioningScheme, main.ID
		}
	}
	rel, err := c.parent(rq.ctx, mainID)
	if err != nil {
		return t, err
	}
	if rel != nil {
		parent, err := c.projectByID(rq.ctx, rel.ParentID)
		if err != nil {
			return t, err
		}
		t.ParentSlug, t.Alias = parent.Slug, rel.Alias
	}
	return t, nil
}

// defaultVersion is x's effective default version: default_version when an
// active internal version has that slug, else `latest`.
func (rq *request) defaultVersion(x *store.Project) (string, error) {
	if x.DefaultVersion == store.Latest {
		return store.Latest, nil
	}
	v, err := rq.findVersion(x, x.DefaultVersion)
	if err != nil {
		return "", err
	}
	if v != nil && v.Active && v.Type != store.External {
		return v.Slug, nil
	}
	return store.Latest, nil
}

// findVersion returns x's version with that slug, nil when there is none.
func (rq *request) findVersion(x *store.Project, slug string) (*store.Version, error) {
	v, err := rq.h.cache.versionBySlug(rq.ctx, x.ID, slug)
	if errs.Is(err, errs.NotFound) {
		return nil, nil
	}
	return v, err
}

// child returns the child of root's relationship with that alias, else of
// its relationship whose child has that slug (step 4), with the
// relationship. It is nil when there is none or the reader may not see it.
func (rq *request) child(root *store.Project, alias string) (*store.Project, *store.Relationship, error) {
	c := rq.h.cache
	rels, err := c.children(rq.ctx, root.ID)
	if err != nil {
		return nil, nil, err
	}
	var rel *store.Relationship
	for _, r := range rels {
		if r.Alias == alias {
			rel = r
			break
		}
	}
	if rel == nil {
		for _, r := range rels {
			p, err := c.projectByID(rq.ctx, r.ChildID)
			if err != nil {
				return nil, nil, err
			}
			if p.Slug == alias {
				rel = r
				break
			}
		}
	}
	if rel == nil {
		return nil, nil, nil
	}
	p, err := c.projectByID(rq.ctx, rel.ChildID)
	if err != nil {
		return nil, nil, err
	}
	if ok, err := rq.canSee(p); err != nil || !ok {
		return nil, nil, err
	}
	return p, rel, nil
}

// languageProject is target when lang is its language, else its
// translation in lang that the reader may see, else nil. A translation the
// reader may not see is as absent as one that does not exist.
func (rq *request) languageProject(target *store.Project, lang string) (*store.Project, error) {
	if lang == target.Language {
		return target, nil
	}
	if lang == "" || !choices.Languages.Has(lang) {
		return nil, nil
	}
	ps, err := rq.h.cache.translations(rq.ctx, target.ID, lang)
	if err != nil {
		return nil, err
	}
	for _, p := range ps {
		ok, err := rq.canSee(p)
		if err != nil {
			return nil, err
		}
		if ok {
			return p, nil
		}
	}
	return nil, nil
}

// recordedPage reports whether serving the file name is a page view for
// the audit log: HTML pages, and the PDF, EPUB and zip files a build may
// publish among them.
func recordedPage(name string) bool {
	for _, ext := range []string{".html", ".pdf", ".epub", ".zip"} {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	return false
}
