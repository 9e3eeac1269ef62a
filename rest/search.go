package rest

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"docsd/graph"
	"docsd/internal/access"
	"docsd/internal/analytics"
	"docsd/internal/errs"
	"docsd/internal/ratelimit"
	"docsd/internal/slashredirect"
)

// The search endpoints: /api/v3/search/, /api/v2/search/ and
// /api/v2/docsearch/. Each is served on /api/ and, with the docs host's
// reader identity, on /_/api/ (on the docs origin of the page that asks).
type searchKind int

const (
	searchV3        searchKind = iota // /api/v3/search/ (RTD's current shape)
	searchV2                          // /api/v2/search/ (RTD's current v2 shape)
	searchDocsearch                   // /api/v2/docsearch/ (the older endpoint's shape)
)

var searchPaths = map[string]searchKind{
	"/api/v3/search/":    searchV3,
	"/api/v2/search/":    searchV2,
	"/api/v2/docsearch/": searchDocsearch,
}

// searchRoute returns the search endpoint of path: kind, whether it is the
// docs-host form (/_/api/…), and whether the path lacks only its trailing
// slash.
func searchRoute(path string) (kind searchKind, docsHost, noSlash, ok bool) {
	p, docsHost := strings.CutPrefix(path, "/_")
	if !strings.HasPrefix(p, "/api/") {
		return 0, false, false, false
	}
	if !strings.HasSuffix(p, "/") {
		p += "/"
		noSlash = true
	}
	kind, ok = searchPaths[p]
	return kind, docsHost, noSlash, ok
}

// IsSearchPath reports whether path is one of the search endpoints, in its
// /api/ or /_/api/ form, with or without the trailing slash. cmd routes the
// /_/api/ paths of every host (public and docs subdomains) here.
func IsSearchPath(path string) bool {
	_, _, _, ok := searchRoute(path)
	return ok
}

// searchAllow is the Allow header of the search endpoints' 405 answers.
const searchAllow = "GET, HEAD"

// corsAllowHeaders is the preflight's Access-Control-Allow-Headers.
const corsAllowHeaders = "accept, authorization, content-type, user-agent, x-csrftoken, x-requested-with"

// serveSearch answers a search endpoint: the slash rule (301 to the path
// plus `/`) and methods (GET and HEAD, else 405), CORS (`*`, never with
// credentials; /api/ forms only), the reader's identity, the search
// throttle, then the endpoint itself.
func (s *Server) serveSearch(w http.ResponseWriter, r *http.Request, kind searchKind, docsHost, noSlash bool) {
	h := w.Header()
	if !docsHost {
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
		if r.Method == http.MethodOptions && r.Header.Get("Origin") != "" && r.Header.Get("Access-Control-Request-Method") != "" {
			h.Set("Access-Control-Allow-Headers", corsAllowHeaders)
			h.Set("Access-Control-Max-Age", "86400")
			w.WriteHeader(http.StatusOK)
			return
		}
	}
	if noSlash {
		slashredirect.Answer(w, r)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", searchAllow)
		methodNotAllowed(w, r)
		return
	}
	if docsHost { // the reader may be named by a token or the docs session cookie
		h.Set("Vary", "Authorization, Cookie")
	}
	ctx, ok := s.searchReader(w, r, kind, docsHost)
	if !ok {
		return
	}
	if docsHost && access.ViewerFrom(ctx).User != nil {
		h.Set("Cache-Control", "private, no-cache")
	}
	if err := s.searchThrottle.Allow("rest.search", searchThrottleKey(ctx, r)); err != nil {
		writeError(w, r, err)
		return
	}
	if analytics.IsBot(r.UserAgent()) {
		ctx = graph.UncountedSearch(ctx) // a bot's searches are not readers'
	}
	sr := &searchReq{s: s, w: w, r: r, ctx: ctx, query: r.URL.Query(), base: s.searchBase(r, docsHost)}
	switch kind {
	case searchV3:
		sr.v3()
	case searchV2:
		sr.v2()
	default:
		sr.docsearch()
	}
}

// searchReader returns the request's context with the reader as viewer: on
// /api/v3/search/ bad credentials are a 401; on the /_/ forms they are
// anonymous; the /api/v2/ forms ignore credentials.
func (s *Server) searchReader(w http.ResponseWriter, r *http.Request, kind searchKind, docsHost bool) (context.Context, bool) {
	if !docsHost && kind != searchV3 {
		return access.WithUser(r.Context(), nil), true
	}
	ctx, err := s.exec.Authenticate(r.Context(), r.Header.Get("Authorization"))
	switch {
	case err == nil && (!docsHost || access.ViewerFrom(ctx).User != nil):
		return ctx, true
	case err != nil && !(docsHost && errs.KindOf(err) == errs.Unauthenticated):
		writeError(w, r, err)
		return nil, false
	}
	// A /_/ form without a valid token: the docs session cookie, if any,
	// names the reader; else the reader is anonymous.
	if s.cfg.DocsSessionReader == nil {
		return access.WithUser(r.Context(), nil), true
	}
	if ctx, err = s.cfg.DocsSessionReader(r); err != nil {
		writeError(w, r, err)
		return nil, false
	}
	return ctx, true
}

// searchThrottleKey identifies whom the search throttle counts: the user,
// else the connection's remote address.
func searchThrottleKey(ctx context.Context, r *http.Request) string {
	if id := access.ViewerFrom(ctx).UserID(); id != 0 {
		return ratelimit.UserKey(id)
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return ratelimit.AddrKey(host)
}

// searchBase is what next/previous links start with: the public URL for
// /api/ forms; for /_/ forms the docs origin of the request, which is a
// project's docs subdomain or, in path mode, the docs URL.
func (s *Server) searchBase(r *http.Request, docsHost bool) string {
	origin := s.cfg.PublicURL
	if docsHost && s.cfg.DocsURL != "" {
		origin = s.cfg.DocsURL
	}
	if docsHost && s.cfg.DocsDomain != "" {
		host := strings.ToLower(r.Host)
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		domain := strings.ToLower(s.cfg.DocsDomain)
		if d, _, err := net.SplitHostPort(domain); err == nil {
			domain = d
		}
		if label, ok := strings.CutSuffix(host, "."+domain); ok && label != "" && !strings.Contains(label, ".") {
			scheme := s.cfg.DocsScheme
			if scheme == "" {
				scheme, _, _ = strings.Cut(s.cfg.PublicURL, "://")
			}
			origin = scheme + "://" + r.Host
		}
	}
	return origin + r.URL.EscapedPath()
}

// searchReq is one search request being answered.
type searchReq struct {
	s     *Server
	w     http.ResponseWriter
	r     *http.Request
	ctx   context.Context
	query url.Values
	base  string // the endpoint's absolute URL, for next/previous
}

// link is the endpoint's URL with the request's parameters, page set to
// page (removed for page 1), encoded sorted by name.
func (sr *searchReq) link(page int) *string {
	q := url.Values{}
	for k, v := range sr.query {
		q[k] = append([]string(nil), v...)
	}
	if page <= 1 {
		q.Del("page")
	} else {
		q.Set("page", strconv.Itoa(page))
	}
	u := sr.base
	if enc := q.Encode(); enc != "" {
		u += "?" + enc
	}
	return &u
}

// newSearchThrottle is the search endpoints' throttle (per user when the
// reader is identified, else per client address), nil when rate turns it
// off; a malformed rate is logged and turns it off (cmd validates the
// setting before).
func newSearchThrottle(rate string) *ratelimit.Limiter {
	th, err := ratelimit.New(rate)
	if err != nil {
		slog.Error("search: throttling is off", "err", err)
	}
	return th
}
