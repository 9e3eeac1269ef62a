package rest

import (
	"net/http"
	"net/url"
	"slices"

	"github.com/gorilla/mux"
)

// v2Allow is the Allow header of every v2 read route.
const v2Allow = "GET, HEAD, OPTIONS"

// v2Route is one route of the v2 table.
type v2Route struct {
	path        string // gorilla/mux template
	name        string // OPTIONS `name`
	description string // OPTIONS `description`
	get         v2Handle
}

// v2Routes is the whole v2 read API, the read routes of Read the Docs'
// v2, nothing more. Path ids match `[^/.]+`; a non-integer one is a 404 at
// lookup.
var v2Routes = []v2Route{
	{"/api/v2/project/", "Project List",
		"Public projects, ordered by slug. Filter: slug.",
		v2List(v2ProjectShape, v2ProjectListQuery, func(q url.Values) v2Filters {
			return v2Filters{"slug": v2Text(q, "slug")}
		})},
	{"/api/v2/project/{id:[^/.]+}/", "Project Instance",
		"One public project.",
		v2Detail(v2ProjectShape, v2ProjectQuery)},
	{"/api/v2/project/{id:[^/.]+}/active_versions/", "Active Versions",
		"The public, active versions of a public project, by verbose name descending.",
		(*Server).v2ActiveVersions},
	{"/api/v2/version/", "Version List",
		"Public versions of public projects, by verbose name descending. Filters: project__slug, active.",
		v2List(v2VersionShape, v2VersionListQuery, func(q url.Values) v2Filters {
			return v2Filters{"projectSlug": v2Text(q, "project__slug"), "active": v2Bool(q, "active")}
		})},
	{"/api/v2/version/{id:[^/.]+}/", "Version Instance",
		"One public version of a public project.",
		v2Detail(v2VersionShape, v2VersionQuery)},
	{"/api/v2/build/", "Build List",
		"Builds of public versions of public projects, most recent first. Filters: project__slug, commit.",
		v2List(v2BuildShape, v2BuildListQuery, func(q url.Values) v2Filters {
			return v2Filters{"projectSlug": v2Text(q, "project__slug"), "commit": v2Text(q, "commit")}
		})},
	{"/api/v2/build/{id:[^/.]+}/", "Build Instance",
		"One build of a public version of a public project.",
		v2Detail(v2BuildShape, v2BuildQuery)},
}

// v2Table is every route of /api/v2/ the REST handler serves: the read
// API, the raw build logs and the OpenAPI description.
func v2Table() []v2Route { return slices.Concat(v2Routes, v2LogRoutes, v2OpenAPIRoutes) }

// v2Handler serves /api/v2/, except the webhooks, which cmd mounts on a
// more specific prefix. v2 is public and read-only: every request runs as
// an anonymous caller whatever credentials it carries, so it sees what the
// graph shows to anyone (public data only), and it is never throttled.
func (s *Server) v2Handler() http.Handler {
	routes := mux.NewRouter().SkipClean(true)
	for _, rt := range v2Table() {
		routes.Handle(rt.path, s.v2Serve(rt))
	}
	routes.NotFoundHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		unrouted(routes, w, r)
	})
	return routes
}

// v2Serve answers on a matched route, in the order of v3's pipeline as far
// as it applies to v2 (no authentication, permission or throttle): the
// `format` parameter, the method, then the route's own work.
func (s *Server) v2Serve(rt v2Route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", v2Allow)
		get := rt.get
		if f := lastValue(r.URL.Query(), "format"); f != "" && f != "json" {
			if get = v2Formats[rt.path][f]; get == nil {
				writeNotFound(w, r)
				return
			}
		}
		switch r.Method {
		case http.MethodGet, http.MethodHead:
			get(s, w, r)
		case http.MethodOptions:
			writeOptions(w, r, rt.name, rt.description)
		default:
			methodNotAllowed(w, r)
		}
	})
}
