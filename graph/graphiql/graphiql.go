// Package graphiql serves an offline GraphiQL page for docsd's /graphql
// endpoint. Its scripts and styles (GraphiQL 3.8.3 and React 18.3.1, MIT
// licensed, see static/LICENSES.txt) are embedded: the page loads nothing
// from the network.
package graphiql

import (
	"embed"
	"encoding/json"
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
  // No header by default: a placeholder token would make the first query
  // fail with UNAUTHENTICATED. The default query says how to add one.
  const fetcher = GraphiQL.createFetcher({ url: {{endpoint}} });
  const root = ReactDOM.createRoot(document.getElementById('graphiql'));
  root.render(React.createElement(GraphiQL, {
    fetcher,
    defaultEditorToolsVisibility: true,
    defaultQuery: {{query}},
    shouldPersistHeaders: false,
  }));
</script>
</body>
</html>
`

// DefaultQuery opens the editor: how to act as a user, and a query that
// works without a token.
const DefaultQuery = `# docsd GraphQL
#
# Without a token you query as an anonymous reader: public data only.
# To act as a user, open "Headers" below and add
#
#   {"Authorization": "Token YOUR_API_TOKEN"}
#
# (get a token with "docsd user create NAME" or "docsd token create NAME").
# Ctrl-Enter runs the query; the Docs pane lists the schema.

{
  viewer { username }
  projects(limit: 10) { totalCount nodes { slug name } }
}
`

// Handler serves the page at base (which ends in "/") and its assets below
// it; the page sends queries to endpoint.
func Handler(base, endpoint string) http.Handler {
	query, _ := json.Marshal(DefaultQuery)
	html := strings.NewReplacer("{{base}}", base, "{{endpoint}}", `"`+endpoint+`"`, "{{query}}", string(query)).Replace(page)
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
