// Package graphiql serves an offline GraphiQL page for docsd's /graphql
// endpoint. Its scripts and styles (GraphiQL 3.8.3 and React 18.3.1, MIT
// licensed, see static/LICENSES.txt) are embedded: the page loads nothing
// from the network.
package graphiql

import (
	"embed"
	"io/fs"
	"net/http"
	"strings"
)

//go:embed static
var static embed.FS

const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>docsd GraphQL</title>
<link rel="stylesheet" href="{{base}}static/graphiql.min.css">
<style>body { margin: 0; height: 100vh; } #graphiql { height: 100vh; }</style>
</head>
<body>
<div id="graphiql">Loading…</div>
<script src="{{base}}static/react.production.min.js"></script>
<script src="{{base}}static/react-dom.production.min.js"></script>
<script src="{{base}}static/graphiql.min.js"></script>
<script>
  // Paste an API token to act as its user; without one the endpoint answers
  // as an anonymous reader (public data only).
  const fetcher = GraphiQL.createFetcher({ url: {{endpoint}} });
  const root = ReactDOM.createRoot(document.getElementById('graphiql'));
  root.render(React.createElement(GraphiQL, {
    fetcher,
    defaultEditorToolsVisibility: true,
    defaultHeaders: '{"Authorization": "Token <your API token>"}',
    shouldPersistHeaders: false,
  }));
</script>
</body>
</html>
`

// Handler serves the page at base (which ends in "/") and its assets below
// it; the page sends queries to endpoint.
func Handler(base, endpoint string) http.Handler {
	html := strings.NewReplacer("{{base}}", base, "{{endpoint}}", `"`+endpoint+`"`).Replace(page)
	sub, _ := fs.Sub(static, "static")
	files := http.StripPrefix(base+"static/", http.FileServer(http.FS(sub)))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, base+"static/") {
			w.Header().Set("Cache-Control", "public, max-age=86400")
			files.ServeHTTP(w, r)
			return
		}
		if r.URL.Path != base {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(html))
	})
}
