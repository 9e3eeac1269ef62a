package rest

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"docsd/graph"
	"docsd/internal/errs"
)

// searchQuery is the one operation behind every search endpoint.
const searchQuery = `query Search($query: String!, $family: SearchFamilyInput, $offset: Int, $limit: Int) {
  search(query: $query, family: $family, offset: $offset, limit: $limit) {
    totalCount query scope { project version }
    nodes {
      project projectAlias version title domain path storedPath doctype docsUrl titleHighlights
      blocks { id title content titleHighlights contentHighlights }
    }
  }
}`

// searchOut is searchQuery's answer, decoded into the graph's own types
// (their JSON names are the GraphQL field names).
type searchOut struct {
	Search graph.SearchResults `json:"search"`
}

// searchPage is the envelope of the v2 search endpoints' answers.
type searchPage[T any] struct {
	Count    int     `json:"count"`
	Next     *string `json:"next"`
	Previous *string `json:"previous"`
	Results  []T     `json:"results"`
}

// newSearchPage starts the envelope for page of size over res.
func newSearchPage[T any](sr *searchReq, res *graph.SearchResults, page, size int) *searchPage[T] {
	p := &searchPage[T]{Count: int(res.TotalCount), Results: []T{}}
	p.Next, p.Previous = sr.pageLinks(page, size, p.Count)
	return p
}

// run executes searchQuery; family is nil for the v3 scope arguments.
func (sr *searchReq) run(text string, family map[string]any, offset, limit int) (*searchOut, error) {
	vars := map[string]any{"query": text, "offset": offset, "limit": limit}
	if family != nil {
		vars["family"] = family
	}
	var out searchOut
	err := sr.s.exec.Do(sr.ctx, searchQuery, vars, &out)
	return &out, err
}

// param is the last value of a query parameter and whether it was given.
func (sr *searchReq) param(name string) (string, bool) {
	vs, ok := sr.query[name]
	if !ok || len(vs) == 0 {
		return "", false
	}
	return vs[len(vs)-1], true
}

// pageParams reads page (1-based, default 1) and page_size (default 15, at
// most 30); ok is false when it has answered 400.
func (sr *searchReq) pageParams() (page, size int, ok bool) {
	size = 15
	if v, given := sr.param("page_size"); given {
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			size = min(n, 30)
		}
	}
	page = 1
	if v, given := sr.param("page"); given {
		n, err := strconv.Atoi(v)
		switch {
		case errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(v, "-"):
			n = tooHighPage
		case err != nil || n <= 0:
			writeJSON(sr.w, sr.r, http.StatusBadRequest, []string{"Invalid page"})
			return 0, 0, false
		}
		page = n
	}
	if page > 1000/size {
		writeJSON(sr.w, sr.r, http.StatusBadRequest, []string{"Page number is too high."})
		return 0, 0, false
	}
	return page, size, true
}

// tooHighPage stands for a page number too large to hold.
const tooHighPage = 1 << 31

// pageLinks are next and previous for page of size over count results,
// with RTD's clamping of a page past the end (as if the last page had been
// asked for).
func (sr *searchReq) pageLinks(page, size, count int) (next, previous *string) {
	last := max(1, (count+size-1)/size)
	if page > last {
		if last > 1 {
			previous = sr.link(last - 1)
		}
		return nil, previous
	}
	if page*size < count {
		next = sr.link(page + 1)
	}
	if page > 1 {
		previous = sr.link(page - 1)
	}
	return next, previous
}

// v3SearchResult is one result of /api/v3/search/, keys in RTD's order
// (search answers are not key-sorted).
type v3SearchResult struct {
	Type       string            `json:"type"`
	Project    v3SearchProject   `json:"project"`
	Version    v3SearchVersion   `json:"version"`
	Title      string            `json:"title"`
	Path       string            `json:"path"`
	Domain     string            `json:"domain"`
	Highlights searchTitleHL     `json:"highlights"`
	Blocks     []searchBlockBody `json:"blocks"`
}

type v3SearchProject struct {
	Slug  string  `json:"slug"`
	Alias *string `json:"alias"`
}

type v3SearchVersion struct {
	Slug string `json:"slug"`
}

type searchTitleHL struct {
	Title []string `json:"title"`
}

type searchBlockBody struct {
	Type       string `json:"type"`
	ID         string `json:"id"`
	Title      string `json:"title"`
	Content    string `json:"content"`
	Highlights struct {
		Title   []string `json:"title"`
		Content []string `json:"content"`
	} `json:"highlights"`
}

func blockBodies(bs []*graph.SearchBlock) []searchBlockBody {
	out := make([]searchBlockBody, len(bs))
	for i, b := range bs {
		out[i] = searchBlockBody{Type: "section", ID: b.ID, Title: b.Title, Content: b.Content}
		out[i].Highlights.Title, out[i].Highlights.Content = b.TitleHighlights, b.ContentHighlights
	}
	return out
}

// v3 answers /api/v3/search/.
func (sr *searchReq) v3() {
	q, _ := sr.param("q")
	if q == "" {
		writeJSON(sr.w, sr.r, http.StatusBadRequest, map[string]any{"q": []string{"This query parameter is required"}})
		return
	}
	page, size, ok := sr.pageParams()
	if !ok {
		return
	}
	out, err := sr.run(q, nil, (page-1)*size, size)
	if err != nil {
		writeError(sr.w, sr.r, err)
		return
	}
	res := out.Search
	type project struct {
		Slug     string            `json:"slug"`
		Versions []v3SearchVersion `json:"versions"`
	}
	body := struct {
		Count    int              `json:"count"`
		Next     *string          `json:"next"`
		Previous *string          `json:"previous"`
		Results  []v3SearchResult `json:"results"`
		Projects []project        `json:"projects"`
		Query    string           `json:"query"`
	}{Count: int(res.TotalCount), Results: []v3SearchResult{}, Projects: []project{}, Query: res.Query}
	body.Next, body.Previous = sr.pageLinks(page, size, body.Count)
	for _, p := range res.Scope {
		body.Projects = append(body.Projects, project{Slug: p.Project, Versions: []v3SearchVersion{{Slug: p.Version}}})
	}
	for _, n := range res.Nodes {
		body.Results = append(body.Results, v3SearchResult{
			Type: "page", Project: v3SearchProject{Slug: n.Project, Alias: n.ProjectAlias}, Version: v3SearchVersion{Slug: n.Version},
			Title: n.Title, Path: n.Path, Domain: n.Domain, Highlights: searchTitleHL{Title: n.TitleHighlights}, Blocks: blockBodies(n.Blocks),
		})
	}
	writeJSON(sr.w, sr.r, http.StatusOK, body)
}

// required answers 400 naming every absent parameter of names and reports
// whether all were present.
func (sr *searchReq) required(names ...string) bool {
	missing := map[string]any{}
	for _, n := range names {
		if _, ok := sr.param(n); !ok {
			missing[n] = []string{"This query param is required"}
		}
	}
	if len(missing) > 0 {
		writeJSON(sr.w, sr.r, http.StatusBadRequest, missing)
		return false
	}
	return true
}

// v2SearchResult is one result of /api/v2/search/.
type v2SearchResult struct {
	Type         string            `json:"type"`
	Project      string            `json:"project"`
	ProjectAlias *string           `json:"project_alias"`
	Version      string            `json:"version"`
	Title        string            `json:"title"`
	Path         string            `json:"path"`
	Domain       string            `json:"domain"`
	Highlights   searchTitleHL     `json:"highlights"`
	Blocks       []searchBlockBody `json:"blocks"`
}

// v2 answers /api/v2/search/.
func (sr *searchReq) v2() {
	if !sr.required("q", "project", "version") {
		return
	}
	page, size, ok := sr.pageParams()
	if !ok {
		return
	}
	q, _ := sr.param("q")
	project, _ := sr.param("project")
	version, _ := sr.param("version")
	family := map[string]any{"project": project, "version": version, "fallback": true, "requireVersion": true}
	out, err := sr.run(q, family, (page-1)*size, size)
	if err != nil {
		sr.writeNotFoundDetail(err)
		return
	}
	res := &out.Search
	body := newSearchPage[v2SearchResult](sr, res, page, size)
	for _, n := range res.Nodes {
		body.Results = append(body.Results, v2SearchResult{
			Type: "page", Project: n.Project, ProjectAlias: n.ProjectAlias, Version: n.Version,
			Title: n.Title, Path: n.Path, Domain: n.Domain, Highlights: searchTitleHL{Title: n.TitleHighlights}, Blocks: blockBodies(n.Blocks),
		})
	}
	writeJSON(sr.w, sr.r, http.StatusOK, body)
}

// writeNotFoundDetail answers a NotFound with its own message as detail
// (RTD's "No Project matches the given query."), anything else as usual.
func (sr *searchReq) writeNotFoundDetail(err error) {
	var e *errs.Error
	if errors.As(err, &e) && e.Kind == errs.NotFound && e.Message != "" {
		writeJSON(sr.w, sr.r, http.StatusNotFound, map[string]any{"detail": e.Message})
		return
	}
	writeError(sr.w, sr.r, err)
}
