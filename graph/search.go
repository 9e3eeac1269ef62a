package graph

import (
	"context"

	"docsd/internal/access"
	"docsd/internal/search"
)

// Messages of a family search's NotFound errors (RTD's v2 search bodies).
const (
	msgSearchNoProject = "No Project matches the given query."
	msgSearchNoVersion = "No Version matches the given query."
)

// maxSearchLimit bounds one page of search results (docsearch's largest
// page_size).
const maxSearchLimit = 100

// search answers Query.search: scope from the query's arguments or from
// family, then one window of results, for the viewer as a docs reader.
func (r *Resolver) search(ctx context.Context, text string, family *SearchFamilyInput, offset, limit *int64) (*SearchResults, error) {
	svc := &search.Service{Store: r.Store, URLs: r.Settings.URLs}
	// Search results are docs: superusers find what their roles let them
	// read there, no more.
	vis := access.Docs.Visibility(access.ViewerFrom(ctx))
	reader := search.Reader{UserID: vis.UserID, Shared: vis.Shared, Projects: vis.Projects}
	q := search.ParseQuery(text)
	var scope []*search.Pair
	var err error
	if family != nil {
		q = search.ParseText(text)
		versionMsg := ""
		if family.RequireVersion {
			versionMsg = msgSearchNoVersion
		}
		scope, err = svc.Family(ctx, reader, family.Project, family.Version, family.Fallback, msgSearchNoProject, versionMsg)
	} else {
		scope, err = svc.Scope(ctx, reader, q.Args)
	}
	if err != nil {
		return nil, err
	}
	off, lim := 0, 15
	if offset != nil && *offset > 0 {
		off = int(min(*offset, 1<<20))
	}
	if limit != nil {
		lim = int(min(max(*limit, 0), maxSearchLimit))
	}
	res, err := svc.Search(ctx, q, scope, off, lim)
	if err != nil {
		return nil, err
	}
	if off == 0 {
		r.searched(ctx, q.Text, scope, res.Count)
	}
	return searchResults(q, scope, res), nil
}

// uncountedKey marks a context whose searches the Searched hook is not
// told of.
type uncountedKey struct{}

// UncountedSearch returns ctx marked so that the searches run in it are
// not counted in analytics: the REST search endpoints mark a bot's (by its
// User-Agent).
func UncountedSearch(ctx context.Context) context.Context {
	return context.WithValue(ctx, uncountedKey{}, true)
}

// searched tells the Searched hook of a search's first page, for each
// project and version searched whose project did not opt out of
// analytics, unless ctx is marked (UncountedSearch).
func (r *Resolver) searched(ctx context.Context, text string, scope []*search.Pair, total int) {
	if r.Hooks.Searched == nil || ctx.Value(uncountedKey{}) != nil {
		return
	}
	for _, p := range scope {
		if !p.Project.AnalyticsDisabled {
			r.Hooks.Searched(p.Project.ID, p.Version.Slug, text, total)
		}
	}
}

func searchResults(q search.Query, scope []*search.Pair, res *search.Result) *SearchResults {
	out := &SearchResults{TotalCount: int64(res.Count), Query: q.Text, Scope: []*SearchScopePair{}, Nodes: []*SearchHit{}}
	for _, p := range scope {
		out.Scope = append(out.Scope, &SearchScopePair{Project: p.Project.Slug, Version: p.Version.Slug})
	}
	for _, h := range res.Hits {
		domain, path := search.SplitURL(h.URL)
		hit := &SearchHit{
			Project: h.Pair.Project.Slug, Version: h.Pair.Version.Slug, Title: h.Title,
			Domain: domain, Path: path, StoredPath: h.StoredPath, Doctype: h.Doctype, DocsURL: h.DocsURL,
			TitleHighlights: h.TitleHighlights, Blocks: []*SearchBlock{},
		}
		if alias := h.Pair.Alias(); alias != "" {
			hit.ProjectAlias = &alias
		}
		for _, b := range h.Blocks {
			hit.Blocks = append(hit.Blocks, &SearchBlock{ID: b.ID, Title: b.Title, Content: b.Content,
				TitleHighlights: b.TitleHighlights, ContentHighlights: b.ContentHighlights})
		}
		out.Nodes = append(out.Nodes, hit)
	}
	return out
}
