package metrics

import "testing"

func TestRoute(t *testing.T) {
	for path, want := range map[string]string{
		"/":                                        "/",
		"/graphql":                                 "/graphql",
		"/graphiql/static/graphiql.min.js":         "/graphiql/",
		"/docs/demo/en/latest/index.html":          RouteDocs,
		"/api/v3/projects/":                        "/api/v3/projects/",
		"/api/v3/projects/demo/versions/1.0/":      "/api/v3/projects/{id}/versions/{id}/",
		"/api/v3/projects/demo/builds/12/":         "/api/v3/projects/{id}/builds/{id}/",
		"/api/v2/build/12.txt":                     "/api/v2/build/{id}.txt",
		"/api/v2/project/":                         "/api/v2/project/",
		"/api/v3/random-word-attacker-chose/":      "/api/v3/{id}/",
		"/api/v3/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/": "/api/v3/{deep}",
		"/_/addons/":                               "/_/addons/",
		"/_/whatever":                              "/_/{name}",
		"/wp-login.php":                            RouteOther,
	} {
		if got := Route(path); got != want {
			t.Errorf("Route(%q) = %q, want %q", path, got, want)
		}
	}
}
