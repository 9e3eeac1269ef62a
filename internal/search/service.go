// Package search is docsd's server-side search: it splits published HTML
// pages into titles and sections, keeps them in the store's full-text index
// (SQLite FTS5 or PostgreSQL tsvector), and answers queries with their
// scope, matching, ranking and highlighting.
//
// The database engines only find candidate pages; whether a page matches,
// its score and its highlights are decided here, from the stored text, so
// SQLite and PostgreSQL give the same results in the same order.
package search

import (
	"context"
	"net/url"
	"strings"

	"docsd/internal/docsurl"
	"docsd/internal/errs"
	"docsd/store"
)

// Service answers search queries. Build it with a store and the URL
// configuration; it is safe for concurrent use.
type Service struct {
	Store *store.Store
	URLs  docsurl.Config
}

// Reader is who searches: UserID 0 is anonymous. Only maintainership widens
// what a reader sees (superusers get nothing extra).
type Reader struct {
	UserID int64
}

func (r Reader) visibility() *store.Visibility { return &store.Visibility{UserID: r.UserID} }

// Pair is one (project, version) of a search scope.
type Pair struct {
	Project *store.Project
	Version *store.Version
	Target  docsurl.Target
}

// Result is one page of search results.
type Result struct {
	Count int   // matching pages in the whole scope
	Hits  []Hit // the asked window, best first
}

// Hit is one matching page.
type Hit struct {
	Pair       *Pair
	Title      string
	StoredPath string // relative to the version's tree, e.g. guide/install.html
	Doctype    string
	// URL is the page's absolute URL (the results' `domain` + `path`);
	// DocsURL is the URL of the version's docs root.
	URL, DocsURL    string
	TitleHighlights []string
	Blocks          []Block
}

// Block is one matching section of a hit.
type Block struct {
	ID, Title, Content                 string
	TitleHighlights, ContentHighlights []string
}

// maxBlocks is how many sections a hit shows.
const maxBlocks = 3

// Search runs q over the scope and returns the matches from offset on, at
// most limit of them. Scope comes from Scope or Family: it holds only
// pairs the reader may see.
func (s *Service) Search(ctx context.Context, q Query, scope []*Pair, offset, limit int) (*Result, error) {
	res := &Result{Hits: []Hit{}}
	if len(scope) == 0 || !q.Positive() {
		return res, nil
	}
	byVersion := map[int64]*Pair{}
	versionIDs := make([]int64, 0, len(scope))
	for _, p := range scope {
		byVersion[p.Version.ID] = p
		versionIDs = append(versionIDs, p.Version.ID)
	}
	pages, err := s.candidates(ctx, versionIDs, q)
	if err != nil {
		return nil, err
	}
	var evals []*pageEval
	for _, p := range pages {
		if e, ok := evaluate(p, q); ok {
			evals = append(evals, e)
		}
	}
	sortEvals(evals, func(p *store.SearchPage) string { return byVersion[p.VersionID].Project.Slug })
	res.Count = len(evals)
	for i := offset; i < len(evals) && i < offset+limit; i++ {
		res.Hits = append(res.Hits, s.hit(evals[i], byVersion[evals[i].page.VersionID], q))
	}
	return res, nil
}

// candidates are the pages of the versions that contain a non-excluded
// term, each with the sections that contain any term.
func (s *Service) candidates(ctx context.Context, versionIDs []int64, q Query) ([]*store.SearchPage, error) {
	// Single-word exclusions are exact in the engines, so they filter
	// there; excluded phrases are judged here, on the sections that hold
	// their words.
	var positive, exclude, sections []store.SearchTerm
	for _, t := range q.Terms {
		st := store.SearchTerm{Words: t.Words, Prefix: t.Prefix}
		switch {
		case t.Mode != MustNot:
			positive = append(positive, st)
			sections = append(sections, st)
		case len(t.Words) == 1:
			exclude = append(exclude, st)
		default:
			sections = append(sections, st)
		}
	}
	ids, err := s.Store.FindSearchCandidates(ctx, versionIDs, positive, exclude)
	if err != nil {
		return nil, err
	}
	pages, err := s.Store.FindSearchPages(ctx, ids)
	if err != nil {
		return nil, err
	}
	secs, err := s.Store.FindSearchSections(ctx, versionIDs, sections)
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]*store.SearchPage, len(pages))
	for _, p := range pages {
		byID[p.ID] = p
	}
	for _, sec := range secs {
		if p := byID[sec.PageID]; p != nil {
			p.Sections = append(p.Sections, sec)
		}
	}
	return pages, nil
}

func (s *Service) hit(e *pageEval, pair *Pair, q Query) Hit {
	docs := s.URLs.Docs(pair.Target, pair.Version.Slug, "")
	title := newField(e.page.Title)
	h := Hit{
		Pair: pair, Title: e.page.Title, StoredPath: e.page.Path, Doctype: e.page.Doctype,
		URL: docs + pagePath(e.page.Path, e.page.Doctype), DocsURL: docs,
		TitleHighlights: titleHighlight(title, matchField(title.words, q.Terms)),
		Blocks:          []Block{},
	}
	for _, se := range e.blocks(maxBlocks) {
		t, c := newField(se.sec.Title), newField(se.sec.Content)
		h.Blocks = append(h.Blocks, Block{
			ID: se.sec.Anchor, Title: se.sec.Title, Content: se.sec.Content,
			TitleHighlights:   titleHighlight(t, matchField(t.words, q.Terms)),
			ContentHighlights: contentHighlight(c, matchField(c.words, q.Terms)),
		})
	}
	return h
}

// pagePath is the stored path as a URL path: for the doctypes served with
// directory URLs a final index.html becomes the directory.
func pagePath(path, doctype string) string {
	if doctype == "sphinx_htmldir" || doctype == "mkdocs" {
		if path == "index.html" {
			return ""
		}
		if strings.HasSuffix(path, "/index.html") {
			return strings.TrimSuffix(path, "index.html")
		}
	}
	return path
}

// SplitURL returns the origin (scheme + host) and the path of an absolute
// URL, as the results' `domain` and `path`.
func SplitURL(u string) (domain, path string) {
	parsed, err := url.Parse(u)
	if err != nil {
		return "", u
	}
	return parsed.Scheme + "://" + parsed.Host, parsed.EscapedPath()
}

// errNotFound is a NotFound error with the message the APIs show.
func errNotFound(msg string) error {
	return &errs.Error{Kind: errs.NotFound, Op: "search", Message: msg}
}

// Alias is the project's alias inside its parent, "" when it has none (the
// results' `project.alias`).
func (p *Pair) Alias() string {
	if p.Target.ParentSlug != "" && p.Target.MainSlug == "" {
		return p.Target.Alias
	}
	return ""
}
