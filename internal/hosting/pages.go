package hosting

import (
	"html"
	"net/http"
	"net/url"
	"strconv"
)

// notFoundHTML is docsd's generic 404 page. It names nothing: the same page
// answers for a missing project, a private one, and a missing file.
const notFoundHTML = notFoundHead + pageEnd

// notFoundHead is notFoundHTML up to its end, which the sign-in link may
// follow.
const notFoundHead = `<!DOCTYPE html>
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
`

// pageEnd closes docsd's own pages.
const pageEnd = `</body>
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

// notFoundPage writes the generic 404 page and returns its body. On a
// host with docs sessions, read without one, the page links "Sign in" to
// `/_/login/?next=<the requested path>`: on every 404, whatever is
// missing, so that the link tells nothing about what exists.
func (h *Handler) notFoundPage(w http.ResponseWriter, r *http.Request) []byte {
	if !h.offersSignIn(r) {
		notFoundPage(w, r)
		return notFoundFixed.body
	}
	p := signInNotFound(r.URL.EscapedPath())
	writePage(w, r, p)
	return p.body
}

// offersSignIn reports whether r's 404 page links "Sign in": r's host has
// docs sessions and r has none (a cookie of an ended session is none).
func (h *Handler) offersSignIn(r *http.Request) bool {
	if _, ok := h.sessionKey(r.Context(), r.Host); !ok {
		return false
	}
	if _, err := r.Cookie(sessionName); err != nil {
		return true
	}
	v, err := h.sessionViewer(r.Context(), r)
	return err == nil && v.User == nil
}

// signInNotFound is the generic 404 page linking "Sign in" to the sign-in
// page, which comes back to path (as sent, escaped) afterwards.
func signInNotFound(path string) *fixedPage {
	return newFixedPage(http.StatusNotFound, notFoundHead+signInParagraph(path)+pageEnd)
}

// signInParagraph is the "Sign in" link of 404 pages, back to path (as
// sent, escaped), in a paragraph of its own.
func signInParagraph(path string) string {
	href := loginPath + "?" + url.Values{"next": {path}}.Encode()
	return `<p id="docsd-sign-in"><a href="` + html.EscapeString(href) + `">Sign in</a> to read documentation that is not public.</p>` + "\n"
}

// withSignIn returns a project's own 404 page doc with the "Sign in" link
// at the start of its body when r's reader is offered one
// (offersSignIn); doc unchanged otherwise, or when it has no `<body>` tag.
func (h *Handler) withSignIn(r *http.Request, doc []byte) []byte {
	at := afterBodyStart(doc)
	if at < 0 || !h.offersSignIn(r) {
		return doc
	}
	link := signInParagraph(r.URL.EscapedPath())
	out := make([]byte, 0, len(doc)+len(link))
	return append(append(append(out, doc[:at]...), link...), doc[at:]...)
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
