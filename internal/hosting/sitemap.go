package hosting

import (
	"cmp"
	"encoding/xml"
	"fmt"
	"slices"
	"strings"
	"time"

	"docsd/internal/docsurl"
	"docsd/internal/pep440"
	"docsd/store"
)

// sitemapHeader opens every sitemap: the XML declaration first (a comment
// before it, as Read the Docs writes, makes the document ill-formed), then
// what the file is.
const sitemapHeader = `<?xml version="1.0" encoding="UTF-8"?>
<!--
This sitemap is made by docsd. It lists the public versions of the
project's documentation, the stable and latest versions first, then the
others from the highest version number down.
-->
`

// sitemapURLSet is a sitemap (sitemaps.org protocol 0.9) with the
// xhtml:link alternates search engines read for translations.
type sitemapURLSet struct {
	XMLName xml.Name     `xml:"urlset"`
	NS      string       `xml:"xmlns,attr"`
	XHTML   string       `xml:"xmlns:xhtml,attr"`
	URLs    []sitemapURL `xml:"url"`
}

// sitemapURL is one version's entry. The alternates come last: the
// protocol's schema allows other namespaces' elements only after
// priority.
type sitemapURL struct {
	Loc        string        `xml:"loc"`
	LastMod    string        `xml:"lastmod,omitempty"`
	ChangeFreq string        `xml:"changefreq"`
	Priority   string        `xml:"priority"`
	Alternates []sitemapLink `xml:"xhtml:link"`
}

// sitemapLink is an hreflang alternate of an entry.
type sitemapLink struct {
	Rel      string `xml:"rel,attr"`
	Hreflang string `xml:"hreflang,attr"`
	Href     string `xml:"href,attr"`
}

// serveSitemap answers SitemapPath of project x as Read the Docs does: an
// entry for each of x's internal versions that is public, active, built
// and not hidden (a single-version project has one: its default version,
// at its root), stable first, then latest, then by version number
// descending. Priorities fall from 1.0 by 0.1 to 0.1; changefreq is
// weekly, daily, then monthly; lastmod is the time of the version's last
// build. Each entry lists the same version of x's public translations as
// hreflang alternates, and x itself. No such version: 404.
func (rq *request) serveSitemap(x *store.Project) error {
	active, built, hidden := true, true, false
	all, err := rq.h.store.FindAllVersions(rq.ctx, store.VersionFilter{ProjectIDs: []int64{x.ID}, Internal: true,
		Active: &active, Built: &built, Hidden: &hidden})
	if err != nil {
		return err
	}
	t, err := rq.target(x)
	if err != nil {
		return err
	}
	def := ""
	if t.SingleVersion() {
		if def, err = rq.defaultVersion(x); err != nil {
			return err
		}
	}
	var vs []*store.Version
	for _, v := range all {
		if x.VersionIsPublic(v) && (def == "" || v.Slug == def) {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		return rq.notFoundPage()
	}
	sortSitemap(vs)
	ids := make([]int64, len(vs))
	for i, v := range vs {
		ids[i] = v.ID
	}
	last, err := rq.h.store.FindLastBuilds(rq.ctx, ids)
	if err != nil {
		return err
	}
	alternates, err := rq.sitemapAlternates(x, t)
	if err != nil {
		return err
	}
	set := sitemapURLSet{NS: "http://www.sitemaps.org/schemas/sitemap/0.9", XHTML: "http://www.w3.org/1999/xhtml"}
	for i, v := range vs {
		u := sitemapURL{Loc: rq.urls.Docs(t, v.Slug, ""), Priority: sitemapPriority(i), ChangeFreq: sitemapChangeFreq(i)}
		if b := last[v.ID]; b != nil {
			u.LastMod = b.Created.UTC().Format(time.RFC3339)
		}
		if alts := alternates[v.Slug]; len(alts) > 0 {
			u.Alternates = append(alts, sitemapLink{Rel: "alternate", Hreflang: hreflang(x.Language), Href: u.Loc})
		}
		set.URLs = append(set.URLs, u)
	}
	body, err := xml.MarshalIndent(set, "", "  ")
	if err != nil {
		return err
	}
	rq.sendGenerated("application/xml; charset=utf-8", append([]byte(sitemapHeader), append(body, '\n')...))
	return nil
}

// sitemapAlternates returns, by version slug, the docs URLs of that
// version in x's translations that are public, with the version public,
// active and built.
func (rq *request) sitemapAlternates(x *store.Project, t docsurl.Target) (map[string][]sitemapLink, error) {
	out := map[string][]sitemapLink{}
	if t.SingleVersion() || x.TranslationOf != nil {
		return out, nil
	}
	ps, _, err := rq.h.store.FindProjects(rq.ctx, store.ProjectFilter{TranslationOf: &x.ID})
	if err != nil {
		return nil, err
	}
	active, built := true, true
	for _, p := range ps {
		if !p.IsPublic() {
			continue
		}
		pt, err := rq.target(p)
		if err != nil {
			return nil, err
		}
		vs, err := rq.h.store.FindAllVersions(rq.ctx, store.VersionFilter{ProjectIDs: []int64{p.ID}, Internal: true, Active: &active, Built: &built})
		if err != nil {
			return nil, err
		}
		for _, v := range vs {
			if p.VersionIsPublic(v) {
				out[v.Slug] = append(out[v.Slug], sitemapLink{Rel: "alternate", Hreflang: hreflang(p.Language), Href: rq.urls.Docs(pt, v.Slug, "")})
			}
		}
	}
	return out, nil
}

// sortSitemap orders versions for the sitemap: stable, latest, versions
// whose names parse as PEP 440 from the highest down, then the others by
// slug.
func sortSitemap(vs []*store.Version) {
	rank := func(v *store.Version) (int, pep440.Version) {
		switch v.Slug {
		case store.Stable:
			return 3, pep440.Version{}
		case store.Latest:
			return 2, pep440.Version{}
		}
		if pv, ok := pep440.ParseVerboseName(v.VerboseName); ok {
			return 1, pv
		}
		return 0, pep440.Version{}
	}
	slices.SortStableFunc(vs, func(a, b *store.Version) int {
		ra, pa := rank(a)
		rb, pb := rank(b)
		if c := cmp.Compare(rb, ra); c != 0 {
			return c
		}
		if ra == 1 {
			if c := pep440.Compare(pb, pa); c != 0 {
				return c
			}
		}
		return strings.Compare(a.Slug, b.Slug)
	})
}

// sitemapPriority is the priority of the i-th entry: 1.0 down by 0.1 to
// 0.1, then 0.1.
func sitemapPriority(i int) string {
	return fmt.Sprintf("%.1f", float64(max(10-i, 1))/10)
}

// sitemapChangeFreq is the changefreq of the i-th entry: weekly, daily,
// then monthly (never would be too strong: a tag can be deleted and a
// branch of the same name made).
func sitemapChangeFreq(i int) string {
	switch i {
	case 0:
		return "weekly"
	case 1:
		return "daily"
	}
	return "monthly"
}

// hreflang writes a language code as hreflang wants it: pt_BR is pt-BR.
func hreflang(lang string) string { return strings.ReplaceAll(lang, "_", "-") }
