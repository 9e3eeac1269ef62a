package rest

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/gorilla/mux"

	"docsd/internal/slashredirect"
)

// The request rules v2 and v3 share, each written once.

// lastValue returns the last value of a query parameter ("" when absent),
// the one Read the Docs' filters and pagination read.
func lastValue(q url.Values, name string) string {
	vs := q[name]
	if len(vs) == 0 {
		return ""
	}
	return vs[len(vs)-1]
}

// boolParam reads a boolean filter: true/false/1/0, any case; anything else
// (or absence) means no filtering (ok false).
func boolParam(q url.Values, name string) (value bool, ok bool) {
	switch strings.ToLower(lastValue(q, name)) {
	case "true", "1":
		return true, true
	case "false", "0":
		return false, true
	}
	return false, false
}

// page is the effective `limit` and `offset` of a list request: limit 10
// unless a positive integer is given, at most MaxPageSize (`max_page_size`
// bounds every page); offset 0 unless a positive integer is given.
type page struct{ limit, offset int }

func (s *Server) pageOf(q url.Values) page {
	p := page{limit: 10}
	if n, ok := pageNumber(lastValue(q, "limit")); ok && n > 0 {
		p.limit = n
	}
	p.limit = min(p.limit, s.cfg.MaxPageSize)
	if n, ok := pageNumber(lastValue(q, "offset")); ok && n > 0 {
		p.offset = n
	}
	return p
}

// pageLinks returns the `next` and `previous` of a page: the request's
// query with `limit` set to the effective limit and `offset` moved (removed
// at 0), encoded sorted by name (a name's values in their order), after
// base (the request path, with the public URL before it where links are
// absolute). nil is JSON null.
func pageLinks(base string, q url.Values, p page, count int) (next, previous *string) {
	link := func(offset int) *string {
		vals := make(url.Values, len(q)+2)
		for k, v := range q {
			vals[k] = v
		}
		vals["limit"] = []string{strconv.Itoa(p.limit)}
		if offset > 0 {
			vals["offset"] = []string{strconv.Itoa(offset)}
		} else {
			delete(vals, "offset")
		}
		u := base + "?" + vals.Encode() // sorted by name, values in order
		return &u
	}
	if p.offset < count-p.limit { // offset+limit < count, without overflow
		next = link(p.offset + p.limit)
	}
	if p.offset > 0 {
		previous = link(max(p.offset-p.limit, 0))
	}
	return next, previous
}

// unrouted answers a path no route of router matches: a path that lacks
// only its trailing slash gets the answer of package slashredirect anything
// else is 404.
func unrouted(router *mux.Router, w http.ResponseWriter, r *http.Request) {
	if slashredirect.MissesSlash(r, slashredirect.MuxMatches(router)) {
		slashredirect.Answer(w, r)
		return
	}
	writeNotFound(w, r)
}

// methodNotAllowed answers a method the route does not map: 405 with Read
// the Docs' detail.
func methodNotAllowed(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, r, http.StatusMethodNotAllowed, map[string]any{"detail": `Method "` + strings.ToUpper(r.Method) + `" not allowed.`})
}

// routeOptions is the OPTIONS body, keys in this order.
type routeOptions struct {
	Description string   `json:"description"`
	Name        string   `json:"name"`
	Parses      []string `json:"parses"`
	Renders     []string `json:"renders"`
}

// writeOptions answers OPTIONS on a route named name.
func writeOptions(w http.ResponseWriter, r *http.Request, name, description string) {
	writeJSON(w, r, http.StatusOK, routeOptions{
		Description: description,
		Name:        name,
		Parses:      []string{"application/json", "application/x-www-form-urlencoded", "multipart/form-data"},
		Renders:     []string{"application/json"},
	})
}
