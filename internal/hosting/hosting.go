// Package hosting serves built documentation: the docs URLs (path mode
// under {public_url}/docs/ and subdomain mode on <project>.<docs_domain>),
// the downloads, the pull-request previews, and the redirects on the
// not-found path (see docs/concepts.md#hosted-docs-and-downloads and
// docs/user-guide/redirects.md).
//
// Files come from artifact storage, one published tree per version, taken
// once per request so that a concurrent publish never mixes two trees in one
// answer. Projects, versions, relationships, redirects and maintainers are
// looked up in the store once and then kept in a per-node cache, emptied
// whenever they change (see Serves and Forget): on the node that made the
// change before its request answers, on the others when they are told. The
// same cache keeps each version's current tree open, and whole answers to
// anonymous, unconditional GETs (answers.go), which go with the rest. What
// is known of a tree's files (found or not, and the bytes of small ones)
// is kept by tree ID (fileCache): a published tree never changes.
package hosting

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"

	"docsd/internal/analytics"
	"docsd/internal/artifacts"
	"docsd/internal/audit"
	"docsd/internal/docsurl"
	"docsd/internal/domains"
	"docsd/internal/redirects"
	"docsd/store"
)

// Files is what the docs host reads from artifact storage. Both artifacts
// backends (Local, S3) implement it.
type Files interface {
	// OpenHTML opens the version's published HTML tree (NotFound when
	// nothing was published).
	OpenHTML(ctx context.Context, project, version string) (artifacts.Tree, error)
	// OpenDownload opens the version's download of format (NotFound when
	// absent).
	OpenDownload(ctx context.Context, project, version, format string) (artifacts.File, error)
}

// Config is the operator configuration the docs host depends on.
type Config struct {
	URLs docsurl.Config
	// AddonsInject puts the reader client into served HTML pages
	// (the addons_inject setting, default true in cmd).
	AddonsInject bool
	// AddonsClientURL is the script injected instead of docsd's built-in
	// client when set (addons_client_url).
	AddonsClientURL string
	// NoCache looks everything up in the store on every request, for a
	// node that can't hear of the other nodes' changes.
	NoCache bool
	// FileCacheBytes bounds the memory of the published files kept in
	// memory (files up to 64 KB, what is known of larger ones and of
	// missing ones, compressed bodies): DefaultFileCacheBytes when zero,
	// nothing kept when negative. Published trees never change, so what
	// is kept is never stale, whatever NoCache says.
	FileCacheBytes int64
	// PathSessions allows browser sessions (/_/login/ and the sign-in
	// hand-off from the dashboard) and sharing links on the path-mode
	// docs origin (--docs-path-sessions); subdomain mode always has them,
	// the single-origin layout never.
	PathSessions bool
	// Audit records sign-ins with sharing links and, as its Pageviews
	// says, page views and downloads.
	Audit *audit.Recorder
	// Domains, when set, are projects' custom domains: a request for a
	// served domain is answered as the project's subdomain would be, and
	// requests for a project that has a canonical domain are sent there.
	Domains *domains.Registry
	// Analytics counts the HTML pages served whole (200) to readers whose
	// User-Agent is not a bot's, of projects that did not opt out; nil
	// counts nothing.
	Analytics *analytics.Recorder
}

// Handler serves docs requests. Build it with New.
type Handler struct {
	store      *store.Store
	files      Files
	urls       docsurl.Config
	publicHost string // host of the public URL, without port
	logger     *slog.Logger
	cache      *cache
	published  fileCache
	variants   variants
	inject     bool
	clientURL  string
	// sessionOrigin is the path-mode docs origin when it has browser
	// sessions and sharing links (Config.PathSessions), else "".
	sessionOrigin string
	audit         *audit.Recorder
	sharingFails  sharingFailures
	domains       *domains.Registry
	analytics     *analytics.Recorder
	bots          analytics.BotCache
	// fronted is set once a Front serves the Handler: only then are large
	// files' answers kept (as their open files, which only a Front sends).
	fronted atomic.Bool
}

// New returns the docs host. Mount it on `/docs/` of the docs origin
// (cfg.URLs.DocsOrigin: the public host in the single-origin layout), and,
// in subdomain mode, put Hosts in front of the other handlers so that
// requests to <project>.<docs_domain> reach it.
func New(s *store.Store, files Files, cfg Config, logger *slog.Logger) *Handler {
	if logger == nil {
		logger = slog.Default()
	}
	h := &Handler{store: s, files: files, urls: cfg.URLs, logger: logger, cache: &cache{s: s, off: cfg.NoCache}, inject: cfg.AddonsInject, clientURL: cfg.AddonsClientURL,
		audit: cfg.Audit, domains: cfg.Domains, analytics: cfg.Analytics}
	h.published.max = cfg.FileCacheBytes
	if h.published.max == 0 {
		h.published.max = DefaultFileCacheBytes
	}
	// Kept answers hold published files' bytes too: none when the
	// operator keeps none, and no more than the files' bound.
	// Every page view recorded (--audit-pageviews=all): none is answered
	// from a kept answer.
	if !cfg.NoCache && h.published.max > 0 && !cfg.Audit.RecordsPageview(true) {
		h.cache.answerMax = int(min(maxAnswerBytes, h.published.max))
	}
	// This node's writes empty the cache before the writing request
	// answers; cmd forwards the other nodes' writes to Forget.
	if s != nil {
		s.OnCommit(func(_ context.Context, tables []string) {
			if Serves(tables) {
				h.cache.Forget()
			}
		})
	}
	if u, err := url.Parse(cfg.URLs.PublicURL); err == nil {
		h.publicHost = u.Hostname()
	}
	if cfg.PathSessions && !cfg.URLs.SubdomainMode() && !cfg.URLs.SharedOrigin() {
		h.sessionOrigin = cfg.URLs.DocsOrigin()
	}
	return h
}

// Hosts returns a handler that sends requests whose Host is a project's
// docs subdomain or one of its served custom domains to h and every other
// request to next. Without a docs domain or custom domains it returns
// next.
func (h *Handler) Hosts(next http.Handler) http.Handler {
	if !h.urls.SubdomainMode() && h.domains == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := h.hostProject(r.Context(), r.Host); ok {
			h.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// IsDocsHost reports whether host (with any port) is a docs host served
// here that has browser sessions: where the dashboard may hand a sign-in
// off to. These are the projects' docs subdomains, and the path-mode docs
// origin's host with Config.PathSessions.
func (h *Handler) IsDocsHost(host string) bool {
	_, ok := h.subdomainProject(host)
	return ok || h.onSessionOrigin(host)
}

// onSessionOrigin reports whether host (as a request's Host names it) is
// the path-mode docs origin's and that origin has browser sessions.
// Browsers send a host's cookies to each of its ports, so the port must
// match too: the public listener on the same host name never honours a
// docs cookie.
func (h *Handler) onSessionOrigin(host string) bool {
	if h.sessionOrigin == "" || host == "" {
		return false
	}
	scheme, _, _ := strings.Cut(h.sessionOrigin, "://")
	return docsurl.SameOrigin(scheme+"://"+host, h.sessionOrigin)
}

// subdomainProject returns the project slug of a docs subdomain host
// (`<slug>.<docs_domain>`, any port, any case). The public host is never
// one, even when it lies under the docs domain.
func (h *Handler) subdomainProject(host string) (string, bool) {
	if !h.urls.SubdomainMode() {
		return "", false
	}
	if hp, _, err := net.SplitHostPort(host); err == nil {
		host = hp
	}
	if strings.EqualFold(host, h.publicHost) {
		return "", false
	}
	domain := h.urls.DocsDomain
	if dh, _, err := net.SplitHostPort(domain); err == nil {
		domain = dh // a docs domain with a port, for development
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	label, ok := strings.CutSuffix(host, "."+strings.ToLower(domain))
	if !ok || label == "" || strings.Contains(label, ".") {
		return "", false
	}
	return label, true
}

// hostProject returns the project slug of a host that serves one project:
// a docs subdomain, or a served custom domain.
func (h *Handler) hostProject(ctx context.Context, host string) (string, bool) {
	if slug, ok := h.subdomainProject(host); ok {
		return slug, true
	}
	if d, ok := h.domains.Served(ctx, host); ok {
		return d.ProjectSlug, true
	}
	return "", false
}

// ServeHTTP answers a docs request: on a docs subdomain or a served custom
// domain the whole path is the project's namespace; on any other host the
// path must start with /docs/<project>. A request for a project that has a
// canonical domain, anywhere else, is redirected there.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.serveReader(w, r) {
		return
	}
	if d, ok := h.domains.Served(r.Context(), r.Host); ok {
		h.serveDomain(w, r, d)
		return
	}
	if slug, ok := h.subdomainProject(r.Host); ok {
		if h.serveSession(w, r, slug) || h.serveSharing(w, r, slug) || h.redirectToCanonical(w, r, slug, "") {
			return
		}
		h.serveDocs(w, r, slug, r.URL.Path, h.urls.HostRoot(slug))
		return
	}
	if r.URL.Path == FaviconPath {
		ServeFavicon(w, r)
		return
	}
	if h.onSessionOrigin(r.Host) && (h.serveSession(w, r, originSessions) || h.serveSharing(w, r, "")) {
		return
	}
	after, ok := strings.CutPrefix(r.URL.Path, "/docs/")
	if !ok {
		h.notFoundPage(w, r)
		return
	}
	slug, _, _ := strings.Cut(after, "/")
	if !slugShaped(slug) {
		// No project has such a slug, and it must never reach a Location
		// (`/docs/evil.example%3F/` would name another host).
		h.notFoundPage(w, r)
		return
	}
	rest := after[len(slug):] // "" or from the slash on
	// Keep the request's own escaping only when the slug is followed by
	// a real "/" (or nothing): an escaped `%2F` right after the slug
	// would otherwise end up in the Location's host part
	// (`demo.docs.test%2F@evil.example`).
	escRest, ok := strings.CutPrefix(r.URL.EscapedPath(), "/docs/"+slug)
	if !ok || (escRest != "" && !strings.HasPrefix(escRest, "/")) {
		escRest = redirects.EscapePath(rest)
	}
	if escRest == "" {
		escRest = "/"
	}
	if h.redirectToCanonical(w, r, slug, escRest) {
		return
	}
	if h.urls.SubdomainMode() {
		// In subdomain mode the public host answers for docs only with a
		// pointer to the project's subdomain.
		redirect(w, r, withQuery(h.urls.HostRoot(slug)+escRest, r.URL.RawQuery), http.StatusMovedPermanently)
		return
	}
	h.serveDocs(w, r, slug, rest, h.urls.DocsOrigin())
}

// slugShaped reports whether s could be a project slug (lower-case
// letters, digits and "-"; "_" is accepted too).
func slugShaped(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// serveDocs answers for the namespace of project rootSlug; rest is the path
// inside it ("" or starting with "/") and origin is what, followed by the
// request's path, gives the URL the reader asked for.
func (h *Handler) serveDocs(w http.ResponseWriter, r *http.Request, rootSlug, rest, origin string) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "Method not allowed.", http.StatusMethodNotAllowed)
		return
	}
	// An answer kept for the same request is replayed (answers.go).
	var key answerKey
	var keyed bool
	if h.cache.answerMax > 0 {
		key, keyed = answerKeyOf(w, r)
	}
	var gen uint64
	if keyed {
		a, g, ok := h.cache.answer(key)
		if ok && a.file == nil { // a file's answer is the Front's (answers.go)
			a.write(w, r)
			h.countReplay(a, r.Header["User-Agent"])
			return
		}
		gen = g
	}
	rq := &request{h: h, w: w, r: r, ctx: r.Context(), origin: origin, keyed: keyed, urls: h.urlsFor(r)}
	err := rq.serve(rootSlug, rest)
	if err == nil {
		rq.countView()
	}
	if err != nil {
		rq.dropUnkept()
		if !readerGone(r) {
			h.logger.ErrorContext(r.Context(), "serving docs", "path", r.URL.Path, "err", err)
			failurePage(w, r, err)
		}
		return
	}
	if keyed {
		if a := rq.keptAnswer(); a == nil || !h.cache.keepAnswer(key, gen, a) {
			rq.dropUnkept()
		}
	}
}

// readerGone reports whether the reader closed the connection (or the
// server is shutting down): what failed then is not a server error, and
// nobody is left to read an answer, so none is written and nothing is
// logged (a load generator's closed connections were once logged as 500s).
func readerGone(r *http.Request) bool { return r.Context().Err() != nil }
