package rest

import (
	"net/http"
	"strconv"

	apidocs "docsd/docs/api"
)

// The OpenAPI descriptions of the APIs (package docs/api embeds them),
// answered on a route of each API like its other reads: v3's is open to
// anyone, as the root is.

// openAPIContentType is the media type of the YAML descriptions (RFC 9512).
const openAPIContentType = "application/yaml"

// v3OpenAPIRoute is the route of v3's description.
func (s *Server) v3OpenAPIRoute() *v3Route {
	return &v3Route{path: "/api/v3/openapi.yaml", name: "OpenAPI Description", desc: "The OpenAPI description of API v3.",
		rule: v3Open, methods: map[string]func(q *v3Req){http.MethodGet: func(q *v3Req) { writeYAML(q.w, q.r, apidocs.V3) }}}
}

// v2OpenAPIRoutes is the route of v2's description.
var v2OpenAPIRoutes = []v2Route{
	{"/api/v2/openapi.yaml", "OpenAPI Description", "The OpenAPI description of API v2.",
		func(_ *Server, w http.ResponseWriter, r *http.Request) { writeYAML(w, r, apidocs.V2) }},
}

// writeYAML answers 200 with doc (no body for HEAD).
func writeYAML(w http.ResponseWriter, r *http.Request, doc string) {
	w.Header().Set("Content-Type", openAPIContentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(doc)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write([]byte(doc))
	}
}
