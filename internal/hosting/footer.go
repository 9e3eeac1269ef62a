package hosting

import (
	"html"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"docsd/internal/pep440"
	"docsd/store"
)

// footerCORS are the CORS headers of footer_html on the public API path;
// the `/_/` form sends none.
var footerCORS = []string{"Access-Control-Allow-Origin", "*", "Access-Control-Allow-Methods", "GET, HEAD, OPTIONS"}

// serveFooterPreflight answers a CORS preflight of footer_html.
func (h *Handler) serveFooterPreflight(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	if r.URL.Path == FooterAPIPath && r.Header.Get("Origin") != "" && r.Header.Get("Access-Control-Request-Method") != "" {
		for i := 0; i+1 < len(footerCORS); i += 2 {
			hd.Set(footerCORS[i], footerCORS[i+1])
		}
		hd.Set("Access-Control-Allow-Headers", "accept, authorization, content-type, user-agent, x-csrftoken, x-requested-with")
		hd.Set("Access-Control-Max-Age", "86400")
		w.WriteHeader(http.StatusOK)
		return
	}
	hd.Set("Allow", "GET, HEAD")
	writeJSON(w, r, http.StatusMethodNotAllowed, nil, map[string]string{"detail": `Method "OPTIONS" not allowed.`})
}

var jsonpCallback = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*(\.[A-Za-z_$][A-Za-z0-9_$]*)*$`)

// serveFooter answers footer_html: older themes' flyout HTML and version
// facts for project and version.
func (rq *request) serveFooter() error {
	if footerAnonymous(rq.r) {
		rq.viewerDone = true
	}
	q := rq.r.URL.Query()
	format := q.Get("format")
	if format != "" && format != "json" && format != "jsonp" {
		rq.footerWrite(http.StatusNotFound, "", ordered{{"detail", "Not found."}})
		return nil
	}
	callback := ""
	if format == "jsonp" {
		callback = q.Get("callback")
		if callback == "" {
			callback = "callback"
		}
		if !jsonpCallback.MatchString(callback) {
			rq.footerWrite(http.StatusBadRequest, "", ordered{{"detail", "Invalid callback."}})
			return nil
		}
	}
	p, err := rq.visibleProject(q.Get("project"))
	if err != nil {
		return err
	}
	var v *store.Version
	if p != nil {
		if v, err = rq.footerVersion(p, q.Get("version")); err != nil {
			return err
		}
	}
	if p == nil || v == nil {
		rq.footerWrite(http.StatusNotFound, callback, ordered{{"detail", "Not found."}})
		return nil
	}
	body, err := rq.footerBody(p, v, q)
	if err != nil {
		return err
	}
	rq.footerWrite(http.StatusOK, callback, body)
	return nil
}

// footerVersion is p's visible version with that slug (case-insensitive,
// "" meaning latest), nil when there is none.
func (rq *request) footerVersion(p *store.Project, slug string) (*store.Version, error) {
	if slug == "" {
		slug = store.Latest
	}
	vs, err := rq.h.store.FindAllVersions(rq.ctx, store.VersionFilter{ProjectIDs: []int64{p.ID}})
	if err != nil {
		return nil, err
	}
	for _, v := range vs {
		if strings.EqualFold(v.Slug, slug) {
			ok, err := rq.canSeeVersion(p, v)
			if err != nil || !ok {
				return nil, err
			}
			return v, nil
		}
	}
	return nil, nil
}

// footerAnonymous reports whether footer_html answers r as anonymous
// whoever asks: on the public path, and as JSONP on either path — a
// JSONP answer is a script that any page may load with the reader's
// cookies and read, so it never reads a session or a token.
func footerAnonymous(r *http.Request) bool {
	return r.URL.Path == FooterAPIPath || r.URL.Query().Get("format") == "jsonp"
}

// footerWrite writes a footer_html answer, JSONP-wrapped when callback is
// set. An answer of the `/_/` form that may read the reader's credentials
// varies on them, and one computed for someone is private.
func (rq *request) footerWrite(status int, callback string, body ordered) {
	var header []string
	if rq.r.URL.Path == FooterAPIPath {
		header = append(header, footerCORS...)
	} else if !footerAnonymous(rq.r) {
		header = append(header, "Vary", "Authorization, Cookie")
	}
	if rq.viewer.User != nil {
		header = append(header, "Cache-Control", "private")
	}
	b := body.marshal()
	ctype := "application/json"
	if callback != "" {
		b = append(append([]byte(callback+"("), b...), ");"...)
		ctype = "application/javascript; charset=utf-8"
	}
	h := rq.w.Header()
	h.Set("Content-Type", ctype)
	for i := 0; i+1 < len(header); i += 2 {
		h.Set(header[i], header[i+1])
	}
	rq.w.WriteHeader(status)
	if rq.r.Method != http.MethodHead {
		rq.w.Write(b)
	}
}

// ordered is a JSON object whose keys keep their order.
type ordered []struct {
	key   string
	value any
}

func (o ordered) marshal() []byte {
	var b []byte
	b = append(b, '{')
	for i, kv := range o {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, marshalJSON(kv.key)...)
		b = append(b, ':')
		if sub, ok := kv.value.(ordered); ok {
			b = append(b, sub.marshal()...)
		} else {
			b = append(b, marshalJSON(kv.value)...)
		}
	}
	return append(b, '}')
}

// footerBody is footer_html's answer for version v of p.
func (rq *request) footerBody(p *store.Project, v *store.Version, q map[string][]string) (ordered, error) {
	get := func(k string) string {
		if vs := q[k]; len(vs) > 0 {
			return vs[0]
		}
		return ""
	}
	markup, err := rq.footerHTML(p, v, footerParams{page: get("page"), theme: get("theme"), docroot: get("docroot"), sourceSuffix: get("source_suffix")})
	if err != nil {
		return nil, err
	}
	compare, err := rq.versionCompare(p, v)
	if err != nil {
		return nil, err
	}
	return ordered{
		{"html", markup},
		{"show_version_warning", p.ShowVersionWarning},
		{"version_active", v.Active},
		{"version_compare", compare},
		{"version_supported", true},
	}, nil
}

// versionCompare is the answer's `version_compare`: whether v is the
// highest active built version, and which is, when the project shows a
// version warning.
func (rq *request) versionCompare(p *store.Project, v *store.Version) (ordered, error) {
	if !p.ShowVersionWarning {
		return ordered{{"is_highest", false}}, nil
	}
	active, built := true, true
	vs, err := rq.h.store.FindAllVersions(rq.ctx, store.VersionFilter{ProjectIDs: []int64{p.ID}, Internal: true, Active: &active, Built: &built})
	if err != nil {
		return nil, err
	}
	var cands []*store.Version
	tagsOnly := false
	for _, x := range vs {
		if p.IsPublic() && x.IsPublic() {
			cands = append(cands, x)
			tagsOnly = tagsOnly || x.Type == store.Tag
		}
	}
	var highest *store.Version
	var hv pep440.Version
	for _, x := range cands {
		if tagsOnly && x.Type != store.Tag {
			continue
		}
		pv, ok := pep440.ParseVerboseName(x.VerboseName)
		if ok && (highest == nil || pep440.Compare(pv, hv) > 0) {
			highest, hv = x, pv
		}
	}
	if highest == nil {
		return ordered{{"project", "None"}, {"version", "None"}, {"is_highest", true}}, nil
	}
	isHighest := true
	if cur, ok := pep440.ParseVerboseName(v.VerboseName); ok && v.Slug != store.Latest {
		isHighest = pep440.Compare(cur, hv) >= 0
	}
	t, err := rq.target(p)
	if err != nil {
		return nil, err
	}
	return ordered{
		{"project", "Version " + highest.VerboseName + " of " + p.Name + " (" + itoa64(highest.ID) + ")"},
		{"version", hv.String()},
		{"is_highest", isHighest},
		{"url", rq.urls.Docs(t, highest.Slug, "")},
		{"slug", highest.Slug},
	}, nil
}

// footerParams are the page-describing parameters of footer_html.
type footerParams struct{ page, theme, docroot, sourceSuffix string }

// footerHTML is the answer's `html`: the flyout.
func (rq *request) footerHTML(p *store.Project, v *store.Version, fp footerParams) (string, error) {
	path, err := rq.footerPath(p, fp.page)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	w := func(s ...string) {
		for _, x := range s {
			b.WriteString(x)
		}
	}
	e := html.EscapeString
	newTheme := fp.theme == "sphinx_rtd_theme"
	w("<!-- Inserted RTD Footer -->\n<div class=\"injected\">\n")
	if !newTheme {
		w(`<div class="rst-versions rst-badge" data-toggle="rst-versions">`, "\n",
			`<span class="rst-current-version" data-toggle="rst-current-version"><span class="fa fa-book">&nbsp;</span> v: `, e(v.VerboseName), ` <span class="fa fa-caret-down"></span></span>`, "\n",
			`<div class="rst-other-versions">`, "\n")
	}
	if err := rq.footerLanguages(&b, p, path); err != nil {
		return "", err
	}
	if err := rq.footerVersions(&b, p, v, path); err != nil {
		return "", err
	}
	t, err := rq.target(p)
	if err != nil {
		return "", err
	}
	u := rq.urls
	var dls []string
	for _, d := range []struct {
		has        bool
		typ, label string
	}{{v.HasPDF, "pdf", "PDF"}, {v.HasHTMLZip, "htmlzip", "HTML"}, {v.HasEPUB, "epub", "Epub"}} {
		if d.has {
			dls = append(dls, `<dd><a href="`+e(u.Download(t, v.Slug, d.typ))+`">`+d.label+`</a></dd>`)
		}
	}
	if len(dls) > 0 {
		w("<dl><dt>Downloads</dt>", strings.Join(dls, ""), "</dl>\n")
	}
	w(`<dl><dt>On docsd</dt><dd><a href="`, e(u.ProjectHome(p.Slug)), `">Project Home</a></dd><dd><a href="`, e(u.ProjectBuilds(p.Slug)),
		`">Builds</a></dd><dd><a href="`, e(u.ProjectHome(p.Slug)+"downloads/"), `">Downloads</a></dd></dl>`, "\n")
	if fp.docroot != "" {
		w(footerVCS(p, v, fp))
	}
	if strings.HasPrefix(p.DocumentationType, "sphinx") {
		search := "search.html"
		if p.DocumentationType == "sphinx_htmldir" {
			search = "search/"
		}
		w(`<dl><dt>Search</dt><dd><div style="padding: 6px;"><form id="flyout-search-form" class="wy-form" target="_blank" action="`,
			e(u.Docs(t, v.Slug, search)), `" method="get"><input type="text" name="q" placeholder="Search docs"></form></div></dd></dl>`, "\n")
	}
	w(`<hr/>`, "\n", `<small><span>Hosted by <a href="`, e(u.PublicURL+"/"), `">docsd</a></span></small>`, "\n")
	if !newTheme {
		w("</div>\n</div>\n")
	}
	w("</div>\n")
	return b.String(), nil
}

// footerPath is the path of a page in the flyout's links: "" for the
// index, else the page with `/` (when the main project's doctype is
// sphinx_htmldir) or `.html`.
func (rq *request) footerPath(p *store.Project, page string) (string, error) {
	if page == "" || page == "index" {
		return "", nil
	}
	main := p
	if p.TranslationOf != nil {
		m, err := rq.h.store.FindProjectByID(rq.ctx, *p.TranslationOf)
		if err != nil {
			return "", err
		}
		main = m
	}
	if main.DocumentationType == "sphinx_htmldir" {
		return page + "/", nil
	}
	return page + ".html", nil
}

// footerLanguages writes the flyout's Languages list.
func (rq *request) footerLanguages(b *strings.Builder, p *store.Project, path string) error {
	family, err := rq.translationFamily(p)
	if err != nil || len(family) < 2 {
		return err
	}
	main := family[0]
	for _, x := range family {
		if x.TranslationOf == nil {
			main = x
		}
	}
	others := []*store.Project{}
	for _, x := range family {
		if x.ID != main.ID && x.Language != main.Language {
			others = append(others, x)
		}
	}
	slices.SortFunc(others, func(a, c *store.Project) int { return strings.Compare(a.Slug, c.Slug) })
	b.WriteString("<dl><dt>Languages</dt>")
	for _, x := range append([]*store.Project{main}, others...) {
		t, err := rq.target(x)
		if err != nil {
			return err
		}
		def, err := rq.defaultVersion(x)
		if err != nil {
			return err
		}
		dd := `<dd><a href="` + html.EscapeString(rq.urls.Docs(t, def, path)) + `">` + html.EscapeString(x.Language) + `</a></dd>`
		if x.Language == p.Language {
			dd = "<strong>" + dd + "</strong>"
		}
		b.WriteString(dd)
	}
	b.WriteString("</dl>\n")
	return nil
}

// footerVersions writes the footer's Versions list: visible internal
// active versions, built or not, that are not hidden,
// in the flyout order, ties by verbose name descending.
func (rq *request) footerVersions(b *strings.Builder, p *store.Project, v *store.Version, path string) error {
	if p.SingleVersion() {
		return nil
	}
	active, hidden := true, false
	vs, err := rq.h.store.FindAllVersions(rq.ctx, store.VersionFilter{ProjectIDs: []int64{p.ID}, Internal: true, Active: &active, Hidden: &hidden})
	if err != nil {
		return err
	}
	var list []*store.Version
	for _, x := range vs {
		if ok, err := rq.canSeeVersion(p, x); err != nil {
			return err
		} else if ok {
			list = append(list, x)
		}
	}
	if len(list) == 0 {
		return nil
	}
	sortVersions(list, store.VCSFallbackBranch(p.RepoType), func(a, c *store.Version) int { return strings.Compare(c.VerboseName, a.VerboseName) })
	t, err := rq.target(p)
	if err != nil {
		return err
	}
	b.WriteString("<dl><dt>Versions</dt>")
	for _, x := range list {
		dd := `<dd><a href="` + html.EscapeString(rq.urls.Docs(t, x.Slug, path)) + `">` + html.EscapeString(x.Slug) + `</a></dd>`
		if x.VerboseName == v.VerboseName {
			dd = "<strong>" + dd + "</strong>"
		}
		b.WriteString(dd)
	}
	b.WriteString("</dl>\n")
	return nil
}

var footerRepo = regexp.MustCompile(`(github\.com|gitlab\.com|bitbucket\.org)[/:]([^/]+)/([^/]+?)(?:\.git)?/?$`)

// footerVCS is the flyout's "On GitHub" (GitLab, Bitbucket) list, "" for
// other hosts.
func footerVCS(p *store.Project, v *store.Version, fp footerParams) string {
	m := footerRepo.FindStringSubmatch(p.Repo)
	if m == nil {
		return ""
	}
	ref := v.VerboseName
	switch {
	case v.Slug == store.Latest && v.Machine:
		ref = p.EffectiveDefaultBranch()
	case v.Slug == store.Stable && v.Machine, v.Type == store.External:
		ref = strings.TrimPrefix(v.Identifier, "origin/")
	}
	docroot := "/" + strings.Trim(fp.docroot, "/") + "/"
	if docroot == "//" {
		docroot = "/"
	}
	file := fp.page
	if file != "" {
		suffix := fp.sourceSuffix
		if suffix == "" {
			suffix = ".rst"
		}
		file += suffix
	}
	e := html.EscapeString
	tail := ref + docroot + file
	switch m[1] {
	case "bitbucket.org":
		return `<dl><dt>On Bitbucket</dt><dd><a href="` + e("https://bitbucket.org/"+m[2]+"/"+m[3]+"/src/"+tail) + `">Edit</a></dd></dl>` + "\n"
	}
	base := "https://" + m[1] + "/" + m[2] + "/" + m[3]
	name := "GitHub"
	if m[1] == "gitlab.com" {
		name = "GitLab"
	}
	out := `<dl><dt>On ` + name + `</dt><dd><a href="` + e(base+"/blob/"+tail) + `">View</a></dd>`
	if v.Type == store.Branch {
		out += `<dd><a href="` + e(base+"/edit/"+tail) + `">Edit</a></dd>`
	}
	return out + "</dl>\n"
}
