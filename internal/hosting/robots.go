package hosting

import (
	"bytes"
	"net/http"
	"net/url"
	"strings"
	"time"

	"docsd/internal/artifacts"
	"docsd/store"
)

// RobotsPath and SitemapPath are answered at the root of every project's
// docs namespace (its docs subdomain, or /docs/<project>/ in path mode), as
// Read the Docs answers them at the root of a project's domain.
const (
	RobotsPath  = "/robots.txt"
	SitemapPath = "/sitemap.xml"
)

// serveRobots answers RobotsPath of project x: the robots.txt at the root
// of x's default version when that version is public (and so the same
// for every reader), active and published; else a generated one that
// allows everything but the public hidden versions (Disallow lines, as
// Read the Docs writes them) and names the project's sitemap. Versions
// that are not public are not named: their slugs are not public either,
// and crawlers get a 404 for them anyway.
func (rq *request) serveRobots(x *store.Project) error {
	def, tree, err := rq.defaultTree(x)
	if err != nil {
		return err
	}
	if tree != nil {
		defer tree.Close()
		if x.VersionIsPublic(def) {
			if sent, err := rq.sendRootFile(tree, RobotsPath); sent || err != nil {
				return err
			}
		}
	}
	t, err := rq.target(x)
	if err != nil {
		return err
	}
	var hidden []string
	if !t.SingleVersion() { // one version, at the root: nothing to leave out
		active, yes := true, true
		vs, err := rq.h.store.FindAllVersions(rq.ctx, store.VersionFilter{ProjectIDs: []int64{x.ID}, Internal: true, Active: &active, Hidden: &yes})
		if err != nil {
			return err
		}
		for _, v := range vs {
			if !x.VersionIsPublic(v) {
				continue
			}
			if u, err := url.Parse(rq.urls.Docs(t, v.Slug, "")); err == nil {
				hidden = append(hidden, u.EscapedPath())
			}
		}
	}
	var b strings.Builder
	b.WriteString("User-agent: *\n")
	for _, p := range hidden {
		b.WriteString("Disallow: " + p + " # Hidden version\n")
	}
	if len(hidden) == 0 {
		b.WriteString("Disallow: # Allow everything\n")
	}
	b.WriteString("Sitemap: " + rq.urls.Root(x.Slug) + SitemapPath + "\n")
	rq.sendGenerated("text/plain; charset=utf-8", []byte(b.String()))
	return nil
}

// sendRootFile sends the file at path (from the root) of a published tree
// when it has one, and reports whether it did.
func (rq *request) sendRootFile(tree artifacts.Tree, path string) (bool, error) {
	name := path[1:]
	pf, err := rq.h.published.lookup(tree, name)
	if err != nil || !pf.regular {
		return false, err
	}
	rq.sendFile(tree, name, pf)
	return true, nil
}

// sendGenerated answers 200 with a body docsd made (not a published
// file), with a strong ETag so that crawlers revalidate cheaply; private
// when something non-public was shown to make it.
func (rq *request) sendGenerated(contentType string, body []byte) {
	h := rq.w.Header()
	h.Set("Content-Type", contentType)
	h["X-Content-Type-Options"] = hNosniff
	h.Set("ETag", `"`+shortHash(body)+`"`)
	if rq.private {
		h["Cache-Control"] = hPrivate
	}
	http.ServeContent(rq.w, rq.r, "", time.Time{}, bytes.NewReader(body))
}
