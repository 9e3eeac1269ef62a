// Package rest serves docsd's REST APIs, compatible with Read the Docs: v3
// (token, read/write) under /api/v3/ and the deprecated v2 (public,
// read-only) under /api/v2/. Handlers answer by running GraphQL operations
// through the in-process executor; rest never imports store.
//
// Files: rest.go, errors.go and json.go are shared; v3_*.go serve /api/v3/,
// v2_*.go serve /api/v2/.
package rest

import (
	"context"
	"net/http"
	"strings"

	"docsd/graph"
	"docsd/internal/ratelimit"
)

// Config is the operator configuration the REST APIs need.
type Config struct {
	PublicURL        string // base of absolute URLs, no trailing slash
	AbsoluteAPILinks bool   // v3 _links and next/previous as absolute URLs
	// UserLimiter is the per-user request budget, shared with /graphql;
	// nil: v3 is not throttled.
	UserLimiter *ratelimit.Limiter
	MaxPageSize int // upper bound of `limit`; default 100

	// The search endpoints (/api/v3/search/, /api/v2/search/,
	// /api/v2/docsearch/ and their /_/ forms on the docs host).
	DocsDomain         string // subdomain mode when set: /_/api/ links use the request's docs host
	DocsScheme         string // scheme of docs subdomains; default: PublicURL's
	DocsURL            string // path mode: origin of the docs pages, whose /_/api/ links start with it; "": PublicURL
	SearchThrottleRate string // per reader budget, e.g. "100/minute"; "0" or "" disables
	// DocsSessionReader returns r's context with the reader of its docs
	// session cookie as viewer (anonymous when none): the /_/api/ search
	// forms use it when the request carries no valid token. nil: docs
	// sessions are not used.
	DocsSessionReader func(r *http.Request) (context.Context, error)
	// UploadReceiver is the storage POST of local upload storage
	// (`/api/v3/upload/artifacts/`); nil answers 404.
	UploadReceiver http.Handler
}

// Server holds what the REST handlers need.
type Server struct {
	exec    *graph.Executor
	cfg     Config
	handler http.Handler

	searchThrottle *ratelimit.Limiter // nil when search throttling is off
}

// New returns the handler of everything under /api/ (except the incoming
// webhooks, which cmd mounts at /api/v2/webhook/).
func New(exec *graph.Executor, cfg Config) *Server {
	if cfg.MaxPageSize <= 0 {
		cfg.MaxPageSize = 100
	}
	s := &Server{exec: exec, cfg: cfg}
	s.searchThrottle = newSearchThrottle(cfg.SearchThrottleRate)
	v3, v2 := s.v3Handler(), s.v2Handler()
	// Dispatch by prefix, not with http.ServeMux: ServeMux would clean `//`
	// and `..` out of paths with a 301, even for writes, which a client
	// would then send again as GET. Paths are matched as sent.
	s.handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if kind, docsHost, noSlash, ok := searchRoute(r.URL.Path); ok {
			s.serveSearch(w, r, kind, docsHost, noSlash)
			return
		}
		switch p := r.URL.Path; {
		case p == "/api/v3" || strings.HasPrefix(p, "/api/v3/"):
			v3.ServeHTTP(w, r) // `/api/v3` gets the trailing-slash rule
		case p == "/api/v2" || strings.HasPrefix(p, "/api/v2/"):
			v2.ServeHTTP(w, r)
		default:
			writeNotFound(w, r)
		}
	})
	return s
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Frame-Options", "DENY")
	s.handler.ServeHTTP(w, r)
}
