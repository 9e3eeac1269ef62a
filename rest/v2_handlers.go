package rest

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/gorilla/mux"

	"docsd/graph"
	"docsd/internal/access"
	"docsd/internal/errs"
)

// The operations behind the v2 routes. Their text is fixed, so the
// executor's query cache always hits; filters that were not given are left
// out of the variables (null: no filtering). The graph decides visibility
// for the anonymous caller: public projects; public versions of public
// projects, external ones included; builds of those.
const (
	v2ProjectListQuery = `query V2ProjectList($slug: String, $limit: Int, $offset: Int) {
  list: projects(filter: {slug: $slug}, limit: $limit, offset: $offset) {
    count: totalCount results: nodes { ...v2Project }
  }
}` + v2ProjectFragment

	v2ProjectQuery = `query V2Project($id: Int!) {
  object: project(id: $id) { ...v2Project }
}` + v2ProjectFragment

	// Only internal versions, whether built or not; the project
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

	v2VersionQuery = `query V2Version($id: ID!) {
  object: version(id: $id) { ...v2Version }
}` + v2VersionFragment

	v2BuildListQuery = `query V2BuildList($projectSlug: String, $commit: String, $limit: Int, $offset: Int) {
  list: builds(filter: {projectSlug: $projectSlug, commit: $commit, includeExternal: true}, limit: $limit, offset: $offset) {
    count: totalCount results: nodes { ...v2Build }
  }
}` + v2BuildFragment

	v2BuildQuery = `query V2Build($id: ID!) {
  object: build(id: $id) { ...v2Build }
}` + v2BuildFragment
)

// v2ActiveVersions serves GET /api/v2/project/{id}/active_versions/: every
// public, active, internal version of a public project, unpaginated
// (Read the Docs' v2 does not page it). The graph pages its lists, so the
// pages are gathered here.
func (s *Server) v2ActiveVersions(rw http.ResponseWriter, r *http.Request) {
	id, ok := v2ID(r)
	if !ok {
		writeNotFound(rw, r)
		return
	}
	w := newWriter(nil)
	defer w.done()
	w.raw(`{"versions":[`)
	first := true
	for offset := 0; ; {
		vars := map[string]any{"id": id, "limit": s.cfg.MaxPageSize, "offset": offset}
		d, obj, ok := s.v2Object(rw, r, v2ActiveVersionsQuery, vars)
		if !ok {
			return
		}
		w.d = d
		page := d.field(obj, "versions")
		count, countOK := v2Count(d, d.field(page, "count"))
		results := d.field(page, "results")
		if !countOK || (!w.null(page) && !d.isObject(page)) || (!w.null(results) && d.kind(results) != '[') {
			w.fail()
		}
		n := 0
		for c, end := d.members(results); c < end; c = d.next(c) {
			w.comma(&first)
			v2VersionShape.write(w, c)
			n++
		}
		d.release()
		offset += n
		if w.err != nil || n == 0 || offset >= count {
			break
		}
	}
	w.raw("]}")
	writeRendered(rw, r, http.StatusOK, w)
}

// v2Handle is the work of one v2 route once method and format are checked.
type v2Handle func(s *Server, w http.ResponseWriter, r *http.Request)

// v2Detail returns the handler of a detail route: the object with the
// path's id, or 404 when the id is not an integer or names nothing the graph
// shows.
func v2Detail(shape v2Shape, query string) v2Handle {
	return func(s *Server, rw http.ResponseWriter, r *http.Request) {
		d, obj, ok := s.v2Fetch(rw, r, query)
		if !ok {
			return
		}
		defer d.release()
		w := newWriter(d)
		defer w.done()
		shape.write(w, obj)
		writeRendered(rw, r, http.StatusOK, w)
	}
}

// v2Fetch runs a detail operation for the path's id and returns its data
// (release it) and `object` in it; it answers 404 itself (and reports
// false) when the id is not an integer or names nothing the graph shows.
func (s *Server) v2Fetch(w http.ResponseWriter, r *http.Request, query string) (*jdoc, int, bool) {
	id, ok := v2ID(r)
	if !ok {
		writeNotFound(w, r)
		return nil, none, false
	}
	return s.v2Object(w, r, query, map[string]any{"id": id})
}

// v2Object runs an operation as the anonymous caller and returns its data
// (release it) and `object` in it; it answers itself (and reports false)
// when the graph fails or finds nothing.
func (s *Server) v2Object(w http.ResponseWriter, r *http.Request, query string, vars map[string]any) (*jdoc, int, bool) {
	d, ok := s.v2Run(w, r, query, vars)
	if !ok {
		return nil, none, false
	}
	obj := d.field(0, "object")
	switch d.kind(obj) {
	case '{':
		return d, obj, true
	case 0, 'n':
		writeNotFound(w, r)
	default:
		writeError(w, r, errs.Wrap(errs.Internal, "rest.v2", errV2Type))
	}
	d.release()
	return nil, none, false
}

// v2Run runs an operation as the anonymous caller and returns its data
// (release it); it answers the graph's error itself (and reports false).
func (s *Server) v2Run(w http.ResponseWriter, r *http.Request, query string, vars map[string]any) (*jdoc, bool) {
	resp := s.exec.Run(v2Context(r), query, vars)
	if err := graph.ResponseError(resp); err != nil {
		writeError(w, r, err)
		return nil, false
	}
	data := []byte(resp.Data)
	if len(data) == 0 {
		data = []byte("null") // no data: nothing found
	}
	d, err := parseDoc(data)
	if err != nil {
		writeError(w, r, errs.Wrap(errs.Internal, "rest.v2", err))
		return nil, false
	}
	return d, true
}

// v2Count reads a list's count as an int (null is 0); ok is false when it
// is not an integer.
func v2Count(d *jdoc, n int) (count int, ok bool) {
	switch d.kind(n) {
	case 0, 'n':
		return 0, true
	case '0':
		i, err := strconv.ParseInt(string(d.text(n)), 10, 64)
		return int(i), err == nil
	}
	return 0, false
}

// v2Filters are the filter variables of a list operation; nil values are
// filters that were not given, left out of the variables.
type v2Filters map[string]any

// v2List returns the handler of a list route: one page of the operation's
// list, in the paginated envelope, filtered by the variables that filters
// reads from the query.
func v2List(shape v2Shape, query string, filters func(url.Values) v2Filters) v2Handle {
	return func(s *Server, rw http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		p := s.pageOf(q)
		vars := map[string]any{"limit": p.limit, "offset": p.offset}
		for name, v := range filters(q) {
			if v != nil {
				vars[name] = v
			}
		}
		d, ok := s.v2Run(rw, r, query, vars)
		if !ok {
			return
		}
		defer d.release()
		w := newWriter(d)
		defer w.done()
		l := d.field(0, "list")
		count, countOK := v2Count(d, d.field(l, "count"))
		if !countOK || (!w.null(l) && !d.isObject(l)) {
			w.fail()
		}
		next, previous := pageLinks(s.cfg.PublicURL+r.URL.EscapedPath(), q, p, count)
		w.listHead(count, next, previous)
		v2Array(shape.write)(w, d.field(l, "results"))
		w.byte('}')
		writeRendered(rw, r, http.StatusOK, w)
	}
}

// v2Context is the request's context with an anonymous viewer: v2 ignores
// credentials, so it can only see public data.
func v2Context(r *http.Request) context.Context {
	return access.WithUser(r.Context(), nil)
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
