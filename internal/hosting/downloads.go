package hosting

import (
	"net/http"
	"strings"

	"docsd/internal/artifacts"
	"docsd/internal/errs"
	"docsd/store"
)

// downloadTypes are the Content-Types of the download formats.
var downloadTypes = map[string]string{
	"pdf":     "application/pdf",
	"htmlzip": "application/zip",
	"epub":    "application/epub+zip",
}

// serveDownload serves `/_/downloads/[<alias>/]<lang>/<version>/<type>/`
// of root's namespace. Anything missing, inactive, invisible or not
// built in that format answers the generic 404.
func (rq *request) serveDownload(root *store.Project, after string) error {
	parts := strings.Split(strings.TrimSuffix(after, "/"), "/")
	base, alias := root, ""
	switch len(parts) {
	case 3:
	case 4:
		child, rel, err := rq.child(root, parts[0])
		if err != nil || child == nil {
			return rq.notFoundPageOr(err)
		}
		base, alias, parts = child, rel.Alias, parts[1:]
	default:
		return rq.notFoundPage()
	}
	lang, versionSlug, format := parts[0], parts[1], parts[2]
	ext, ok := artifacts.DownloadExtensions[format]
	if !ok {
		return rq.notFoundPage()
	}
	served, err := rq.languageProject(base, lang)
	if err != nil || served == nil {
		return rq.notFoundPageOr(err)
	}
	ver, err := rq.findVersion(served, versionSlug)
	if err != nil || ver == nil || ver.Type == store.External || !ver.Active || !hasFormat(ver, format) {
		return rq.notFoundPageOr(err)
	}
	if ok, err := rq.canSeeVersion(served, ver); err != nil || !ok {
		return rq.notFoundPageOr(err)
	}
	f, err := rq.h.files.OpenDownload(rq.ctx, served.Slug, ver.Slug, format)
	if errs.Is(err, errs.NotFound) {
		return rq.notFoundPage()
	}
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	name := served.Slug + "-" + lang + "-" + ver.Slug + "." + ext
	if alias != "" {
		name = root.Slug + "-" + alias + "-" + lang + "-" + ver.Slug + "." + ext
	}
	h := rq.w.Header()
	h.Set("Content-Type", downloadTypes[format])
	h.Set("Content-Disposition", `inline; filename="`+name+`"`)
	h.Set("X-Content-Type-Options", "nosniff")
	if rq.private {
		h["Cache-Control"] = rq.privateCacheControl()
	}
	h.Set("ETag", entityTag(format, info.Size(), info.ModTime()))
	serveContent(rq.w, rq.r, info.ModTime(), f, info.Size())
	if rq.r.Method == http.MethodGet {
		rq.auditRead(store.AuditDownload, served, ver, rq.r.URL.Path)
	}
	return nil
}

// hasFormat reports whether the version's last builds produced format.
func hasFormat(v *store.Version, format string) bool {
	switch format {
	case "pdf":
		return v.HasPDF
	case "htmlzip":
		return v.HasHTMLZip
	case "epub":
		return v.HasEPUB
	}
	return false
}
