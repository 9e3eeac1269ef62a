// Package slashredirect answers API requests whose path lacks only its
// trailing slash, for every router that has such paths: v3, v2, search and
// the incoming webhooks.
//
// GET and HEAD get 301, other methods 308 Permanent Redirect with a JSON
// detail; both with Location = the path plus "/" plus the original query.
// 308 keeps the method and the body in the clients that follow redirects,
// so a write is neither lost nor turned into a GET; a client that does not
// follow it reads why in the detail.
package slashredirect

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/gorilla/mux"
)

// Answer writes the answer to r, whose path plus "/" matches a route. The
// request body is not read.
func Answer(w http.ResponseWriter, r *http.Request) {
	target := r.URL.EscapedPath() + "/"
	loc := target
	if r.URL.RawQuery != "" {
		loc += "?" + r.URL.RawQuery
	}
	w.Header().Set("Location", loc)
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		w.WriteHeader(http.StatusMovedPermanently)
		return
	}
	var body bytes.Buffer
	enc := json.NewEncoder(&body)
	enc.SetEscapeHTML(false)
	enc.Encode(map[string]string{"detail": "The URL must end with a slash: send " + r.Method + " to " + target + "."})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusPermanentRedirect)
	w.Write(bytes.TrimRight(body.Bytes(), "\n"))
}

// MissesSlash reports whether r's path lacks only its trailing slash:
// it does not end in "/" and matches reports that the path plus "/" is a
// route.
func MissesSlash(r *http.Request, matches func(slashed *http.Request) bool) bool {
	if len(r.URL.Path) == 0 || r.URL.Path[len(r.URL.Path)-1] == '/' {
		return false
	}
	slashed := r.Clone(r.Context())
	slashed.URL.Path += "/"
	slashed.URL.RawPath = ""
	return matches(slashed)
}

// MuxMatches is the matches of MissesSlash for a gorilla/mux router: the
// router has a route for the request (whatever its methods).
func MuxMatches(router *mux.Router) func(*http.Request) bool {
	return func(r *http.Request) bool {
		var m mux.RouteMatch
		return router.Match(r, &m) && m.MatchErr == nil
	}
}
