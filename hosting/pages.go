package hosting

import (
	"net/http"
	"strconv"
)

// notFoundHTML is docsd's generic 404 page. It names nothing: the same page
// answers for a missing project, a private one, and a missing file.
const notFoundHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>404 Not Found</title>
<style>body{font-family:sans-serif;max-width:40em;margin:4em auto;padding:0 1em;color:#333}</style>
</head>
<body>
<h1>404 Not Found</h1>
<p>The page you asked for does not exist.</p>
</body>
</html>
`

const serverErrorHTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>500 Server Error</title>
</head>
<body>
<h1>500 Server Error</h1>
<p>Something went wrong on our side. Please try again later.</p>
</body>
</html>
`

// notFoundPage writes the generic 404 page.
func notFoundPage(w http.ResponseWriter, r *http.Request) {
	writePage(w, r, http.StatusNotFound, notFoundHTML)
}

// serverErrorPage writes the generic 500 page.
func serverErrorPage(w http.ResponseWriter, r *http.Request) {
	writePage(w, r, http.StatusInternalServerError, serverErrorHTML)
}

func writePage(w http.ResponseWriter, r *http.Request, status int, body string) {
	h := w.Header()
	for _, k := range []string{"Content-Encoding", "ETag", "Last-Modified", "Content-Disposition"} {
		h.Del(k)
	}
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write([]byte(body))
	}
}
