package metrics

import "strings"

// RouteDocs is the route label of every request the documentation host
// answers (under /docs/ or on a docs subdomain); their response bytes are
// counted in docsd_docs_bytes_served_total.
const RouteDocs = "docs"

// RouteOther labels requests outside every known route.
const RouteOther = "other"

// apiWords are the path segments kept as they are in API route labels; any
// other segment in a name position becomes "{name}", so that labels stay a
// small, fixed set whatever paths clients send.
var apiWords = map[string]bool{
	// v3
	"projects": true, "versions": true, "builds": true, "subprojects": true, "superproject": true,
	"translations": true, "redirects": true, "environmentvariables": true, "notifications": true,
	"sync-versions": true, "users": true, "organizations": true, "remote": true, "repositories": true,
	"embed": true, "search": true, "config": true, "logs": true,
	// v2
	"project": true, "version": true, "build": true, "footer_html": true, "active_versions": true,
	"sync_versions": true, "docsearch": true, "webhook": true, "github": true, "gitlab": true,
	"bitbucket": true, "generic": true, "upload": true,
}

// Route returns the label of a request path on the main host: the fixed
// endpoints by name, API paths as templates (`/api/v3/projects/{id}/versions/`),
// anything else RouteOther.
func Route(path string) string {
	switch {
	case path == "/":
		return "/"
	case path == "/graphql", path == "/healthz", path == "/readyz", path == "/metrics":
		return path
	case strings.HasPrefix(path, "/graphiql/"):
		return "/graphiql/"
	case strings.HasPrefix(path, "/docs/"):
		return RouteDocs
	case strings.HasPrefix(path, "/_/"):
		return "/_/" + firstSegment(strings.TrimPrefix(path, "/_/"))
	case strings.HasPrefix(path, "/api/v3/"), strings.HasPrefix(path, "/api/v2/"):
		return apiRoute(path)
	}
	return RouteOther
}

// firstSegment returns the first path segment of p when it is a known
// word, "{name}" otherwise.
func firstSegment(p string) string {
	seg, _, _ := strings.Cut(p, "/")
	if seg == "addons" || seg == "api" {
		return seg + "/"
	}
	return "{name}"
}

// apiRoute templates an API path: after /api/vN/, known resource words are
// kept and every other segment (slugs, ids, `1.txt`) becomes {id}.
func apiRoute(path string) string {
	prefix, rest := path[:len("/api/v3/")], path[len("/api/v3/"):]
	segs := strings.Split(rest, "/")
	if len(segs) > 12 {
		return prefix + "{deep}"
	}
	for i, s := range segs {
		switch {
		case s == "" || apiWords[s]:
		case strings.HasSuffix(s, ".txt"):
			segs[i] = "{id}.txt"
		default:
			segs[i] = "{id}"
		}
	}
	return prefix + strings.Join(segs, "/")
}
