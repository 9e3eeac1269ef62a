package rest

import (
	"net/http"
	"strconv"
	"strings"

	"docsd/graph"
	"docsd/internal/errs"
)

// docsearchResult is one result of /api/v2/docsearch/, the older endpoint
// Read the Docs' Sphinx search used, in its own shape.
type docsearchResult struct {
	Project   string           `json:"project"`
	Version   string           `json:"version"`
	Title     string           `json:"title"`
	Path      string           `json:"path"`
	Link      string           `json:"link"`
	Highlight *searchTitleHL   `json:"highlight"`
	InnerHits []docsearchInner `json:"inner_hits"`
}

type docsearchInner struct {
	Type   string `json:"type"`
	Source struct {
		ID      string `json:"id"`
		Title   string `json:"title"`
		Content string `json:"content"`
	} `json:"_source"`
	Highlight struct {
		Title   []string `json:"sections.title,omitempty"`
		Content []string `json:"sections.content,omitempty"`
	} `json:"highlight"`
}

// docsearch answers /api/v2/docsearch/: that endpoint's page-number
// pagination (page_size 50, at most 100; a page past the end is a 404).
func (sr *searchReq) docsearch() {
	if !sr.required("q", "project", "version") {
		return
	}
	size := 50
	if v, ok := sr.param("page_size"); ok {
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			size = min(n, 100)
		}
	}
	page := 1
	if v, ok := sr.param("page"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			writeJSON(sr.w, sr.r, http.StatusNotFound, map[string]any{"detail": "Invalid page."})
			return
		}
		page = n
	}
	q, _ := sr.param("q")
	project, _ := sr.param("project")
	version, _ := sr.param("version")
	family := map[string]any{"project": project, "version": version, "fallback": false, "requireVersion": false}
	offset := min(page-1, 1<<20/size) * size
	out, err := sr.run(q, family, offset, size)
	if err != nil {
		if errs.KindOf(err) == errs.NotFound {
			writeNotFound(sr.w, sr.r)
			return
		}
		writeError(sr.w, sr.r, err)
		return
	}
	res := &out.Search
	if page > 1 && page > (int(res.TotalCount)+size-1)/size {
		writeJSON(sr.w, sr.r, http.StatusNotFound, map[string]any{"detail": "Invalid page."})
		return
	}
	body := newSearchPage[docsearchResult](sr, res, page, size)
	for _, n := range res.Nodes {
		body.Results = append(body.Results, docsearchHit(n))
	}
	writeJSON(sr.w, sr.r, http.StatusOK, body)
}

func docsearchHit(n *graph.SearchHit) docsearchResult {
	name := docName(n.StoredPath, n.Doctype)
	r := docsearchResult{Project: n.Project, Version: n.Version, Title: n.Title, Path: name, Link: n.DocsURL + name, InnerHits: []docsearchInner{}}
	if len(n.TitleHighlights) > 0 {
		r.Highlight = &searchTitleHL{Title: n.TitleHighlights}
	}
	for _, b := range n.Blocks {
		in := docsearchInner{Type: "sections"}
		in.Source.ID, in.Source.Title, in.Source.Content = b.ID, b.Title, b.Content
		in.Highlight.Title, in.Highlight.Content = b.TitleHighlights, b.ContentHighlights
		r.InnerHits = append(r.InnerHits, in)
	}
	return r
}

// docName is the Sphinx document name of a stored path: the path
// minus `.html`; for sphinx_htmldir minus `/index.html`.
func docName(path, doctype string) string {
	if doctype == "sphinx_htmldir" {
		if path == "index.html" {
			return "index"
		}
		if p, ok := strings.CutSuffix(path, "/index.html"); ok {
			return p
		}
	}
	return strings.TrimSuffix(path, ".html")
}
