package rest

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"

	"github.com/gorilla/mux"

	"docsd/graph"
	"docsd/internal/access"
	"docsd/internal/errs"
	"docsd/internal/ratelimit"
)

// The v3 API. Every request goes through one pipeline in v3Serve: route
// match (with the trailing-slash rule), authentication, permission,
// throttle, method, then the route's handler, which validates filters,
// looks its object up, parses the body and acts — each by running one
// GraphQL operation through the in-process executor.

// v3Rule says who may use a route. Every rule but v3Open first requires
// an authenticated user (401 otherwise); a superuser passes a maintainer
// check only where it maintains the project.
type v3Rule int

const (
	// v3Open: the root; no authentication, no throttle.
	v3Open v3Rule = iota
	// v3AnyUser: projects list, project detail, superproject, upload.
	// Every authenticated user may list, create, read and reach the 405
	// of an unmapped method; the methods in maintainerWrites need a
	// maintainer of the project.
	v3AnyUser
	// v3PublicDetail: the other routes nested under a project (versions,
	// builds, subprojects, translations, notifications). Reading one object
	// on a detail route is open to every authenticated user, and the
	// object's visibility then decides (invisible: 404); everything else
	// (lists, writes, unmapped methods, OPTIONS) needs a maintainer of the
	// project (403 otherwise, 404 for a missing project).
	v3PublicDetail
	// v3Maintainers: redirects and environment variables; every method
	// needs a maintainer of the project.
	v3Maintainers
)

// v3Route is one route of /api/v3/.
type v3Route struct {
	path   string
	name   string // the OPTIONS name and description
	desc   string
	rule   v3Rule
	detail bool   // reading it returns one object (see v3PublicDetail)
	allow  string // the Allow header, methods in v3MethodOrder
	// methods maps each mapped method (HEAD excluded: it runs GET) to its
	// handler.
	methods map[string]func(q *v3Req)
	// maintainerWrites are the methods that require a maintainer on a
	// v3AnyUser route (PUT and PATCH of a project).
	maintainerWrites []string
	// org is what the caller must be in the route's {organization}.
	org v3OrgNeed
	// readerLists: on a v3PublicDetail route, reading the list needs a
	// reader of the project (not a maintainer): versions, builds,
	// subprojects and translations.
	readerLists bool
}

// needsMaintainer reports whether method requires the caller to maintain
// the route's project.
func (rt *v3Route) needsMaintainer(method string) bool {
	switch rt.rule {
	case v3Maintainers:
		return true
	case v3PublicDetail:
		return !rt.detail || (method != http.MethodGet && method != http.MethodHead)
	case v3AnyUser:
		for _, m := range rt.maintainerWrites {
			if m == method {
				return true
			}
		}
	}
	return false
}

// v3Req is one request on a matched route, after authentication.
type v3Req struct {
	s     *Server
	w     http.ResponseWriter
	r     *http.Request
	ctx   context.Context // carries the viewer
	route *v3Route
	vars  map[string]string
	query url.Values
	docs  []*jdoc // the answers run read, released when the request ends
}

// project is the {project} path parameter.
func (q *v3Req) project() string { return q.vars["project"] }

// get reports whether the request reads (GET or HEAD).
func (q *v3Req) get() bool { return q.r.Method == http.MethodGet || q.r.Method == http.MethodHead }

// ctxFor is the rendering context of objects belonging to project.
func (q *v3Req) ctxFor(project string) v3Ctx {
	c := v3Ctx{project: project, get: q.get(), urls: q.s.exec.URLs()}
	if q.s.cfg.AbsoluteAPILinks {
		c.links = q.s.cfg.PublicURL
	}
	return c
}

// fail answers with err: a *v3Status as it is, anything else through the
// shared error table.
func (q *v3Req) fail(err error) {
	var st *v3Status
	if errors.As(err, &st) {
		writeJSON(q.w, q.r, st.code, st.body)
		return
	}
	writeError(q.w, q.r, err)
}

// run executes an operation as the caller and returns its data, read in
// place (valid until the request ends).
func (q *v3Req) run(op string, vars map[string]any) (*jdoc, error) {
	resp := q.s.exec.Run(q.ctx, op, vars)
	if err := graph.ResponseError(resp); err != nil {
		return nil, err
	}
	d, err := parseDoc(resp.Data)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, "rest.v3", err)
	}
	q.docs = append(q.docs, d)
	return d, nil
}

// id parses a numeric path parameter; a value that is not a base-10 integer
// is not found.
func (q *v3Req) id(name string) (int64, bool) {
	n, err := strconv.ParseInt(q.vars[name], 10, 64)
	if err != nil {
		writeNotFound(q.w, q.r)
		return 0, false
	}
	return n, true
}

// v3Handler serves /api/v3/.
func (s *Server) v3Handler() http.Handler {
	router := mux.NewRouter().SkipClean(true)
	for _, rt := range s.v3Routes() {
		router.Path(rt.path).Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			s.v3Serve(w, r, rt, mux.Vars(r))
		}))
	}
	router.NotFoundHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		unrouted(router, w, r)
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Vary", "Accept")
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				slog.ErrorContext(r.Context(), "api v3: panic", "method", r.Method, "path", r.URL.Path, "panic", p)
				writeJSON(w, r, http.StatusInternalServerError, map[string]any{"detail": errs.MsgServerError})
			}
		}()
		router.ServeHTTP(w, r)
	})
}

// v3Serve runs the pipeline on a matched route.
func (s *Server) v3Serve(w http.ResponseWriter, r *http.Request, rt *v3Route, vars map[string]string) {
	w.Header().Set("Allow", rt.allow)
	query := r.URL.Query()
	if f := lastValue(query, "format"); f != "" && f != "json" {
		writeNotFound(w, r)
		return
	}
	// The request's operations (the access check, then the route's) share
	// what they read.
	q := &v3Req{s: s, w: w, r: r, ctx: graph.ShareReads(r.Context()), route: rt, vars: vars, query: query}
	defer func() {
		for _, d := range q.docs {
			d.release()
		}
	}()
	if rt.rule != v3Open {
		ctx, err := s.exec.Authenticate(q.ctx, r.Header.Get("Authorization"))
		if err != nil {
			writeError(w, r, err)
			return
		}
		q.ctx = ctx
		viewer := access.ViewerFrom(ctx)
		if viewer.User == nil {
			writeError(w, r, errs.E(errs.Unauthenticated, "rest.v3", errs.MsgNoCredentials))
			return
		}
		if rt.needsMaintainer(r.Method) && !q.allowed(rt.readerLists && (r.Method == http.MethodGet || r.Method == http.MethodHead)) {
			return
		}
		if rt.org != v3OrgNone && !q.orgAllowed(rt.org) {
			return
		}
		if err := s.cfg.UserLimiter.Allow("rest.v3", ratelimit.UserKey(viewer.UserID())); err != nil {
			writeError(w, r, err)
			return
		}
	}
	method := r.Method
	if method == http.MethodHead {
		method = http.MethodGet
	}
	if method == http.MethodOptions {
		writeOptions(w, r, rt.name, rt.desc)
		return
	}
	handle, ok := rt.methods[method]
	if !ok {
		methodNotAllowed(w, r)
		return
	}
	handle(q)
}

const v3AccessOp = `query($slug: String!) { viewer { username } projectAccess(slug: $slug) { exists maintainer reader } }`

// allowed asks the graph whether the route's project exists and the caller
// maintains it (with reader, reads it), and answers 401, 404 or 403 when
// not.
func (q *v3Req) allowed(reader bool) bool {
	need := "maintainer"
	if reader {
		need = "reader"
	}
	data, err := q.run(v3AccessOp, map[string]any{"slug": q.project()})
	if err != nil {
		q.fail(err)
		return false
	}
	access := data.at(0, []string{"projectAccess"})
	switch viewer := data.field(0, "viewer"); {
	case viewer == none || data.kind(viewer) == 'n':
		q.fail(errs.E(errs.Unauthenticated, "rest.v3", errs.MsgNoCredentials))
		return false
	case !data.isTrue(data.field(access, "exists")):
		writeNotFound(q.w, q.r)
		return false
	case !data.isTrue(data.field(access, need)):
		writeJSON(q.w, q.r, http.StatusForbidden, map[string]any{"detail": errs.MsgForbidden})
		return false
	}
	return true
}
