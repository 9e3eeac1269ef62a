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

// fixedPage is one of docsd's own pages, with its header values made
// once.
type fixedPage struct {
	status  int
	body    []byte
	hLength []string
}

func newFixedPage(status int, body string) *fixedPage {
	return &fixedPage{status: status, body: []byte(body), hLength: []string{strconv.Itoa(len(body))}}
}

var (
	notFoundFixed    = newFixedPage(http.StatusNotFound, notFoundHTML)
	serverErrorFixed = newFixedPage(http.StatusInternalServerError, serverErrorHTML)
)

// notFoundPage writes the generic 404 page.
func notFoundPage(w http.ResponseWriter, r *http.Request) {
	writePage(w, r, notFoundFixed)
}

// serverErrorPage writes the generic 500 page.
func serverErrorPage(w http.ResponseWriter, r *http.Request) {
	writePage(w, r, serverErrorFixed)
}

func writePage(w http.ResponseWriter, r *http.Request, p *fixedPage) {
	h := w.Header()
	for _, k := range [...]string{"Content-Encoding", "Etag", "Last-Modified", "Content-Disposition"} {
		delete(h, k)
	}
	h["Content-Type"] = hHTML
	h["Content-Length"] = p.hLength
	h["Cache-Control"] = hNoCache
	h["X-Content-Type-Options"] = hNosniff
	w.WriteHeader(p.status)
	if r.Method != http.MethodHead {
		w.Write(p.body)
	}
}
