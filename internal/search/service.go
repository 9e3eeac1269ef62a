// Package search is docsd's server-side search: it splits published HTML
// pages into titles and sections, keeps them in the store's index, and
// answers queries with their scope, matching, ranking and highlighting.
//
// The index holds, per version, the pages' text, a dictionary of their
// words and, per word, the pages holding it with an impact (the page's
// score for that word alone, computed here when indexing), read best
// first. A query reads the best pages of its words and judges those on
// their text: whether a page matches, its score and its highlights are
// decided here, so SQLite and PostgreSQL give the same results in the same
// order. Versions indexed before the postings existed are searched through
// the engines' full-text tables (SQLite FTS5, PostgreSQL tsvector), every
// candidate page judged, until they are indexed again.
package search

import (
	"context"
	"fmt"
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

// Reader is who searches: UserID 0 is anonymous. Only roles and sharing
// grants (Shared) widen what a reader sees (superusers get nothing
// extra); Projects, when not nil, are the only projects on which the
// reader's roles count (store.Visibility).
type Reader struct {
	UserID   int64
	Shared   []store.SharedRead
	Projects []int64
}

func (r Reader) visibility() *store.Visibility {
	return &store.Visibility{UserID: r.UserID, Shared: r.Shared, Projects: r.Projects}
}

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
	matchers := map[string]*matcher{}
	for _, p := range scope {
		if matchers[p.Project.Language] == nil {
			matchers[p.Project.Language] = newMatcher(q, p.Project.Language)
		}
	}
	langOf := func(p *store.SearchPage) string { return byVersion[p.VersionID].Project.Language }
	// The reads of one search see the index as of one moment: a version
	// indexed again meanwhile is seen before or after, never half.
	var evals []*pageEval
	err := s.Store.InReadSnapshot(ctx, func(ctx context.Context) error {
		indexed, err := s.Store.FindSearchIndexed(ctx, versionIDs)
		if err != nil {
			return err
		}
		if len(indexed) == len(versionIDs) {
			pages := 0
			for _, n := range indexed {
				pages += n
			}
			evals, res.Count, err = s.searchIndexed(ctx, versionIDs, pages, q, matchers, langOf, offset+limit)
			return err
		}
		evals, err = s.searchFullText(ctx, versionIDs, q, matchers, langOf)
		res.Count = len(evals)
		return err
	})
	if err != nil {
		return nil, err
	}
	sortEvals(evals, func(p *store.SearchPage) string { return byVersion[p.VersionID].Project.Slug })
	for i := offset; i < len(evals) && i < offset+limit; i++ {
		pair := byVersion[evals[i].page.VersionID]
		res.Hits = append(res.Hits, s.hit(evals[i], pair, matchers[pair.Project.Language]))
	}
	return res, nil
}

// searchFullText answers q through the engines' full-text tables, for
// versions not indexed in the current format yet: every page holding a
// query word is judged. It returns the matching pages, scored.
func (s *Service) searchFullText(ctx context.Context, versionIDs []int64, q Query, matchers map[string]*matcher, langOf func(*store.SearchPage) string) ([]*pageEval, error) {
	pages, err := s.candidates(ctx, versionIDs, q, matchers)
	if err != nil {
		return nil, err
	}
	var evals []*pageEval
	df := make([]int, len(q.Terms))
	for _, p := range pages {
		if e, ok := evaluate(p, matchers[langOf(p)]); ok {
			evals = append(evals, e)
			for ti, n := range e.seen {
				if n > 0 {
					df[ti]++
				}
			}
		}
	}
	n, err := s.Store.CountSearchPagesOf(ctx, versionIDs)
	if err != nil {
		return nil, err
	}
	for _, m := range matchers {
		m.setRarity(n, df)
	}
	for _, e := range evals {
		e.score(matchers[langOf(e.page)])
	}
	return evals, nil
}

// candidates are the pages of the versions that contain a non-excluded
// term, each with the sections that contain any term. The engines find
// words by the part every word of the same stem starts with, in each of
// the matchers' languages; the matchers decide.
func (s *Service) candidates(ctx context.Context, versionIDs []int64, q Query, matchers map[string]*matcher) ([]*store.SearchPage, error) {
	// Single-word exclusions are exact in the engines, so they filter
	// there; excluded phrases are judged here, on the sections that hold
	// their words.
	var positive, exclude, sections []store.SearchTerm
	seen := map[string]bool{}
	for ti, t := range q.Terms {
		switch {
		case t.Mode != MustNot:
			for _, st := range engineTerms(ti, t, matchers) {
				if key := fmt.Sprint(st); !seen[key] {
					seen[key] = true
					positive = append(positive, st)
					sections = append(sections, st)
				}
			}
		case len(t.Words) == 1:
			exclude = append(exclude, store.SearchTerm{Words: t.Words, Prefix: t.Prefix})
		default:
			sections = append(sections, store.SearchTerm{Words: t.Words})
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
	attachSections(pages, secs)
	return pages, nil
}

// attachSections appends each section to its page's Sections.
func attachSections(pages []*store.SearchPage, secs []store.SearchSection) {
	byID := make(map[int64]*store.SearchPage, len(pages))
	for _, p := range pages {
		byID[p.ID] = p
	}
	for _, sec := range secs {
		if p := byID[sec.PageID]; p != nil {
			p.Sections = append(p.Sections, sec)
		}
	}
}

// engineTerms is how the engines look for term ti: as typed, or by the
// words' stem prefixes in each language that stems.
func engineTerms(ti int, t Term, matchers map[string]*matcher) []store.SearchTerm {
	var out []store.SearchTerm
	for _, m := range matchers {
		if m.stem == nil {
			out = append(out, store.SearchTerm{Words: t.Words, Prefix: t.Prefix})
			continue
		}
		out = append(out, store.SearchTerm{Words: m.prefixes[ti], Prefix: true})
	}
	return out
}

func (s *Service) hit(e *pageEval, pair *Pair, m *matcher) Hit {
	docs := s.URLs.Docs(pair.Target, pair.Version.Slug, "")
	title := newField(e.page.Title)
	h := Hit{
		Pair: pair, Title: e.page.Title, StoredPath: e.page.Path, Doctype: e.page.Doctype,
		URL: docs + pagePath(e.page.Path, e.page.Doctype), DocsURL: docs,
		TitleHighlights: titleHighlight(title, m.matchField(title.words)),
		Blocks:          []Block{},
	}
	for _, se := range e.blocks(maxBlocks) {
		t, c := newField(se.sec.Title), newField(se.sec.Content)
		h.Blocks = append(h.Blocks, Block{
			ID: se.sec.Anchor, Title: se.sec.Title, Content: se.sec.Content,
			TitleHighlights:   titleHighlight(t, m.matchField(t.words)),
			ContentHighlights: contentHighlight(c, m.matchField(c.words)),
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
