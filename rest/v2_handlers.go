package rest

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/gorilla/mux"

	"docsd/graph"
)

// The operations behind the v2 routes. Their text is fixed, so the
// executor's query cache always hits; filters that were not given are left
// out of the variables (null: no filtering). The graph decides visibility
// for the anonymous caller (behavior.md §5.1): public projects; public
// versions of public projects, external ones included; builds of those.
const (
	v2ProjectListQuery = `query V2ProjectList($slug: String, $limit: Int, $offset: Int) {
  list: projects(filter: {slug: $slug}, limit: $limit, offset: $offset) {
    count: totalCount results: nodes { ...v2Project }
  }
}` + v2ProjectFragment

	v2ProjectQuery = `query V2Project($id: Int!) {
  object: project(id: $id) { ...v2Project }
}` + v2ProjectFragment

	// Only internal versions, whether built or not (§5.1); the project
	// itself must be visible, or project is NOT_FOUND.
	v2ActiveVersionsQuery = `query V2ActiveVersions($id: Int!, $limit: Int, $offset: Int) {
  object: project(id: $id) {
    versions(filter: {active: true, privacyLevel: "public", includeExternal: false}, limit: $limit, offset: $offset) {
      count: totalCount results: nodes { ...v2Version }
    }
  }
}` + v2VersionFragment

	v2VersionListQuery = `query V2VersionList($projectSlug: String, $active: Boolean, $limit: Int, $offset: Int) {
  list: versions(filter: {projectSlug: $projectSlug, active: $active, includeExternal: true}, limit: $limit, offset: $offset) {
    count: totalCount results: nodes { ...v2Version }
  }
}` + v2VersionFragment

	v2VersionQuery = `query V2Version($id: Int!) {
  object: version(id: $id) { ...v2Version }
}` + v2VersionFragment

	v2BuildListQuery = `query V2BuildList($projectSlug: String, $commit: String, $limit: Int, $offset: Int) {
  list: builds(filter: {projectSlug: $projectSlug, commit: $commit, includeExternal: true}, limit: $limit, offset: $offset) {
    count: totalCount results: nodes { ...v2Build }
  }
}` + v2BuildFragment

	v2BuildQuery = `query V2Build($id: Int!) {
  object: build(id: $id) { ...v2Build }
}` + v2BuildFragment
)

// v2ActiveVersions serves GET /api/v2/project/{id}/active_versions/: every
// public, active, internal version of a public project, unpaginated
// (behavior.md §5.1). The graph pages its lists, so the pages are gathered
// here.
func (s *Server) v2ActiveVersions(w http.ResponseWriter, r *http.Request) {
	id, ok := v2ID(r)
	if !ok {
		writeNotFound(w, r)
		return
	}
	versions := []v2Version{}
	for offset := 0; ; {
		var out struct {
			Object *struct {
				Versions v2Envelope[v2Version] `json:"versions"`
			} `json:"object"`
		}
		vars := map[string]any{"id": id, "limit": s.cfg.MaxPageSize, "offset": offset}
		if err := s.exec.Do(v2Context(r), v2ActiveVersionsQuery, vars, &out); err != nil {
			writeError(w, r, err)
			return
		}
		if out.Object == nil {
			writeNotFound(w, r)
			return
		}
		page := out.Object.Versions
		versions = append(versions, page.Results...)
		offset += len(page.Results)
		if len(page.Results) == 0 || offset >= page.Count {
			break
		}
	}
	writeJSON(w, r, http.StatusOK, struct {
		Versions []v2Version `json:"versions"`
	}{versions})
}

// v2Handle is the work of one v2 route once method and format are checked.
type v2Handle func(s *Server, w http.ResponseWriter, r *http.Request)

// v2Detail returns the handler of a detail route: the object with the
// path's id, or 404 when the id is not an integer or names nothing the graph
// shows.
func v2Detail[T any](query string) v2Handle {
	return func(s *Server, w http.ResponseWriter, r *http.Request) {
		if obj, ok := v2Fetch[T](s, w, r, query); ok {
			writeJSON(w, r, http.StatusOK, obj)
		}
	}
}

// v2Fetch runs a detail operation for the path's id and returns its
// object; it answers 404 itself (and reports false) when the id is not an
// integer or names nothing the graph shows.
func v2Fetch[T any](s *Server, w http.ResponseWriter, r *http.Request, query string) (*T, bool) {
	id, ok := v2ID(r)
	if !ok {
		writeNotFound(w, r)
		return nil, false
	}
	var out struct {
		Object *T `json:"object"`
	}
	if err := s.exec.Do(v2Context(r), query, map[string]any{"id": id}, &out); err != nil {
		writeError(w, r, err)
		return nil, false
	}
	if out.Object == nil {
		writeNotFound(w, r)
		return nil, false
	}
	return out.Object, true
}

// v2Filters are the filter variables of a list operation; nil values are
// filters that were not given, left out of the variables.
type v2Filters map[string]any

// v2List returns the handler of a list route: one page of the operation's
// list, in the envelope of behavior.md §3.4, filtered by the variables that
// filters reads from the query.
func v2List[T any](query string, filters func(url.Values) v2Filters) v2Handle {
	return func(s *Server, w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		p := s.pageOf(q)
		vars := map[string]any{"limit": p.limit, "offset": p.offset}
		for name, v := range filters(q) {
			if v != nil {
				vars[name] = v
			}
		}
		var out struct {
			List v2Envelope[T] `json:"list"`
		}
		if err := s.exec.Do(v2Context(r), query, vars, &out); err != nil {
			writeError(w, r, err)
			return
		}
		list := out.List
		list.Next, list.Previous = pageLinks(s.cfg.PublicURL+r.URL.EscapedPath(), q, p, list.Count)
		writeJSON(w, r, http.StatusOK, list)
	}
}

// v2Context is the request's context with an anonymous viewer: v2 ignores
// credentials (behavior.md §1.2), so it can only see public data.
func v2Context(r *http.Request) context.Context {
	return graph.WithUser(r.Context(), nil)
}

// v2ID is the route's `{id}` when it is a base-10 integer.
func v2ID(r *http.Request) (int64, bool) {
	id, err := strconv.ParseInt(mux.Vars(r)["id"], 10, 64)
	return id, err == nil
}

// v2Text is an exact-match filter's value; absent or empty means no
// filtering, as in Read the Docs' filters.
func v2Text(q url.Values, name string) any {
	if v := lastValue(q, name); v != "" {
		return v
	}
	return nil
}

// v2Bool is a boolean filter's variable: true, false, or nil (no
// filtering) by boolParam.
func v2Bool(q url.Values, name string) any {
	if v, ok := boolParam(q, name); ok {
		return v
	}
	return nil
}
