package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"docsd/graph"
	"docsd/graph/graphiql"
	"docsd/internal/access"
	"docsd/internal/analytics"
	"docsd/internal/artifacts"
	"docsd/internal/audit"
	"docsd/internal/builder"
	"docsd/internal/certs"
	"docsd/internal/docsurl"
	"docsd/internal/domains"
	"docsd/internal/hosting"
	"docsd/internal/metrics"
	"docsd/internal/notify"
	"docsd/internal/ratelimit"
	"docsd/internal/search"
	"docsd/rest"
	"docsd/store"
)

// app is docsd wired together: the store, artifact storage, the graph and
// the HTTP handlers.
type app struct {
	settings  Settings
	store     *store.Store
	artifacts artifacts.Backend
	notifier  notify.Notifier
	resolver  *graph.Resolver
	executor  *graph.Executor
	pool      *builder.Pool
	metrics   *metrics.Metrics
	logger    *slog.Logger
	indexer   *search.Indexer
	uploads   *uploads
	// users is the per-user request budget API v3 and /graphql share.
	users *ratelimit.Limiter
	// stopWatching ends the watch for other processes' commits and waits
	// for it; nil when there is none.
	stopWatching func()
	// liveBuilds wakes the build subscriptions of /graphql when any node
	// writes builds (BuildChanged signals).
	liveBuilds *graph.SignalledBuildChanges
	// audit records security events (sign-ins, sharing links, page views).
	audit *audit.Recorder
	// domains are projects' custom domains; domainChecker validates their
	// DNS (run by serve).
	domains       *domains.Registry
	domainChecker *domains.Checker
	// certs serves HTTPS (serve, with --tls-acme-email or --tls-cert);
	// nil otherwise.
	certs *certs.Manager
	// analytics counts page views and searches; nil when --analytics is
	// off.
	analytics *analytics.Recorder
}

// open connects to the database (applying migrations) and wires the graph.
// The data directory is created owner-only when missing.
func (c *command) open(ctx context.Context) (*app, error) {
	if err := os.MkdirAll(c.settings.DataDir, 0o700); err != nil {
		return nil, err
	}
	s, err := store.Open(ctx, c.settings.DatabaseURL)
	if err != nil {
		return nil, err
	}
	a, err := c.wire(s)
	if err != nil {
		s.Close()
		return nil, err
	}
	return a, nil
}

// wire builds the app over an open store (tests wire stores of their own).
func (c *command) wire(s *store.Store) (*app, error) {
	sealer, err := c.settings.sealer()
	if err != nil {
		return nil, err
	}
	s.UseSealer(sealer)
	a := &app{settings: c.settings, store: s, logger: c.logger}
	if a.notifier, err = a.newNotifier(); err != nil {
		return nil, err
	}
	arts, err := a.newArtifacts()
	if err != nil {
		a.notifier.Close()
		return nil, err
	}
	a.artifacts = arts
	if a.domains, err = a.newDomainRegistry(); err != nil {
		a.notifier.Close()
		return nil, err
	}
	a.domainChecker = a.newDomainChecker()
	a.metrics = metrics.New(s, versionString(), c.logger)
	a.metrics.WatchCertificates(a.certificateExpiries)
	a.searchParts()
	a.uploads = a.newUploads()
	// The pool records the host keys its builds learn.
	a.audit = &audit.Recorder{Store: s, Logger: c.logger, Pageviews: c.settings.auditPageviews, RetentionDays: c.settings.AuditRetentionDays}
	a.pool = a.newPool()
	if a.users, err = ratelimit.New(c.settings.ThrottleUserRate); err != nil {
		return nil, fmt.Errorf("--throttle-user-rate: %v", err)
	}
	anonymous, err := ratelimit.New(c.settings.GraphQLAnonymousRate)
	if err != nil {
		return nil, fmt.Errorf("--graphql-anonymous-rate: %v", err)
	}
	a.liveBuilds = &graph.SignalledBuildChanges{}
	if a.analytics, err = a.newAnalytics(); err != nil {
		a.notifier.Close()
		return nil, err
	}
	invitationMail, err := a.invitationMail()
	if err != nil {
		return nil, err
	}
	a.resolver = &graph.Resolver{
		Store:   s,
		Changes: a.liveBuilds,
		Audit:   a.audit,
		Settings: graph.Settings{
			URLs:              a.urls(),
			AllowLocalRepos:   c.settings.AllowLocalRepos,
			AllowPrivateRepos: c.settings.AllowPrivateRepos,
			MaxPageSize:       c.settings.MaxPageSize,
			// Repository hosts on private networks.
			AllowPrivateNetwork:  c.settings.AllowPrivateNetwork,
			Uploads:              a.uploads.graph,
			BadgeKeys:            c.settings.badgeKeys(),
			OrganizationCreators: c.settings.OrganizationCreators,
			DocsPathSessions:     c.settings.DocsPathSessions,
			Domains:              c.settings.graphDomains(),
			// Traffic and search analytics.
			AnalyticsRetentionDays: c.settings.AnalyticsRetentionDays,
			AnalyticsOff:           !c.settings.Analytics,
			// Invitations.
			InvitationLifetime: time.Duration(c.settings.InvitationExpirationDays) * 24 * time.Hour,
			InvitationMail:     invitationMail,
			// Organizations may require single sign-on.
			SingleSignOn: c.settings.OIDCIssuer != "",
			Endpoint: graph.Endpoint{
				Users:       a.users,
				Anonymous:   anonymous,
				ClientAddr:  func(r *http.Request) string { return clientAddr(r, c.settings.trustedProxies) },
				Limits:      c.settings.graphQLLimits(),
				CORSOrigins: c.settings.corsOrigins,
			},
		},
		Hooks: graph.Hooks{
			BuildQueued:    a.buildQueued,
			DomainsChanged: a.domainChecker.Wake,
			ProjectDeleted: func(ctx context.Context, slug string) {
				if err := arts.RemoveProject(ctx, slug); err != nil {
					a.logger.ErrorContext(ctx, "removing hosted files", "project", slug, "err", err)
				}
				if err := a.pool.RemoveProject(slug); err != nil {
					a.logger.ErrorContext(ctx, "removing build files", "project", slug, "err", err)
				}
			},
			Searched: a.searchedHook(),
		},
	}
	a.executor = graph.NewExecutor(a.resolver)
	s.OnCommit(a.servedChanged)
	s.OnCommit(a.buildsChanged)
	if err := a.subscribe(); err != nil {
		a.notifier.Close()
		return nil, err
	}
	return a, nil
}

func (a *app) urls() docsurl.Config {
	return docsurl.Config{PublicURL: a.settings.PublicURL, DocsDomain: a.settings.DocsDomain, DocsScheme: a.settings.DocsScheme, DocsURL: a.settings.DocsURL,
		Domains: a.domains}
}

// docsApart reports whether docs have a listener and an origin of their
// own (the default): neither subdomain mode nor the single-origin layout.
func (a *app) docsApart() bool {
	u := a.urls()
	return !u.SubdomainMode() && !u.SharedOrigin()
}

func (a *app) close() {
	if a.stopWatching != nil {
		a.stopWatching()
	}
	a.notifier.Close()
	a.store.Close()
}

// handler routes every HTTP request the public origin answers.
func (a *app) handler() http.Handler {
	h, _, _ := a.handlers()
	return h
}

// handlers returns the handler of the public origin and, when docs have an
// origin of their own (docsApart), the docs listener's (nil otherwise),
// and the docs host both use.
func (a *app) handlers() (public, docsOrigin http.Handler, docsHost *hosting.Handler) {
	mux := http.NewServeMux()
	mux.Handle("/graphql", a.resolver.Handler())
	mux.Handle("/graphiql/", graphiql.Handler("/graphiql/", "/graphql"))
	docsConfig := hosting.Config{
		URLs:            a.urls(),
		AddonsInject:    a.settings.AddonsInject,
		AddonsClientURL: a.settings.AddonsClientURL,
		FileCacheBytes:  int64(a.settings.DocsFileCache) << 20,
		PathSessions:    a.settings.DocsPathSessions,
		Audit:           a.audit,
		Domains:         a.domains,
		Analytics:       a.analytics,
	}
	if docsConfig.FileCacheBytes == 0 {
		docsConfig.FileCacheBytes = -1 // none (zero is the default to hosting)
	}
	docs := hosting.New(a.store, a.artifacts, docsConfig, a.logger)
	if err := a.notifier.Subscribe(notify.ServedChanged, func(string) { docs.Forget() }); err != nil {
		// Without the other nodes' signals a cache could serve what they
		// made private.
		a.logger.Warn("not listening for the other nodes' changes: docs are served without a cache", "err", err)
		docsConfig.NoCache = true
		docs = hosting.New(a.store, a.artifacts, docsConfig, a.logger)
	}
	a.watchOtherProcesses()
	api := rest.New(a.executor, rest.Config{
		PublicURL:        a.settings.PublicURL,
		AbsoluteAPILinks: a.settings.AbsoluteAPILinks,
		UserLimiter:      a.users,
		MaxPageSize:      a.settings.MaxPageSize,

		DocsDomain:         a.settings.DocsDomain,
		DocsScheme:         a.settings.DocsScheme,
		DocsURL:            a.settings.DocsURL,
		SearchThrottleRate: a.settings.SearchThrottleRate,
		UploadReceiver:     a.uploads.receiver(),
		DocsSessionReader: func(r *http.Request) (context.Context, error) {
			v, err := docs.Reader(r.Context(), r)
			return access.WithViewer(r.Context(), v), err
		},
	})
	apart := a.docsApart()
	var docsHere http.Handler = docs
	if apart {
		docsHere = a.docsMoved(docs)
	}
	mux.Handle("/api/", api)
	mux.Handle("/docs/", docsHere)
	mux.Handle("/api/v2/webhook/", a.webhooks())
	mux.Handle("/metrics", a.metrics.Handler())
	mux.Handle("/readyz", a.readyz())
	a.mountDashboard(mux, docs)
	// Browsers ask every origin for its icon; a project's own is served
	// on its docs (the docs host).
	mux.HandleFunc(hosting.FaviconPath, hosting.ServeFavicon)
	// Liveness: the process answers. Whether it can serve is /readyz.
	mux.HandleFunc("/healthz", healthz)
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintf(w, "docsd\n\nAPI v3:   %s/api/v3/\nAPI v2:   %s/api/v2/\nGraphQL:  %s/graphql\nGraphiQL: %s/graphiql/\n",
			a.settings.PublicURL, a.settings.PublicURL, a.settings.PublicURL, a.settings.PublicURL)
		if u := a.urls(); !u.SubdomainMode() {
			fmt.Fprintf(w, "Docs:     %s/docs/<project>/\n", u.DocsOrigin())
		}
	})
	// API and docs paths go to their handlers as sent: ServeMux would answer
	// `//` or `..` in a path with a redirect, which must never happen to a
	// write; the docs host refuses such paths itself.
	root := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch p := r.URL.Path; {
		case hosting.IsReaderPath(p): // /_/addons/, footer_html, the client
			docs.ServeHTTP(w, r)
		case strings.HasPrefix(p, "/api/") && !strings.HasPrefix(p, "/api/v2/webhook/"):
			api.ServeHTTP(w, r)
		case strings.HasPrefix(p, "/docs/"):
			docsHere.ServeHTTP(w, r)
		default:
			mux.ServeHTTP(w, r)
		}
	})
	throttle := newAuthThrottle(a.settings.AuthFailureRate, a.settings.trustedProxies)
	serve := func(h http.Handler, docsListener bool) http.Handler {
		h = audit.Middleware(func(r *http.Request) string { return clientAddr(r, a.settings.trustedProxies) }, h)
		return a.logRequests(a.guardBodies(throttle.middleware(searchFirst(api, h)), docsListener))
	}
	public = serve(docs.Hosts(root), false)
	if apart {
		docsOrigin = serve(a.docsOriginRoot(docs), true)
	}
	return public, docsOrigin, docs
}

// healthz answers liveness probes: the process answers. Whether it can
// serve is /readyz.
func healthz(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok\n")) }

// docsOriginRoot routes the docs listener: the docs host (/docs/…, the
// reader endpoints, a 404 page for anything else) and the
// probes. Nothing here reads the dashboard's session cookie, which browsers
// send to every port of a host: the docs origin has no /graphql, no /api/
// and no dashboard.
func (a *app) docsOriginRoot(docs http.Handler) http.Handler {
	readyz := a.readyz()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/healthz":
			healthz(w, r)
		case "/readyz":
			readyz.ServeHTTP(w, r)
		default:
			docs.ServeHTTP(w, r)
		}
	})
}

// docsOriginOwnPaths reports the paths the docs listener answers before
// the docs host: the probes (docsOriginRoot) and search (searchFirst).
func docsOriginOwnPaths(p string) bool {
	return p == "/healthz" || p == "/readyz" || searchFirstPath(p)
}

// docsMoved answers /docs/… on the public origin when docs have their own:
// GET and HEAD are sent to the same path and query on the docs origin with
// 302 Found, not 301, because where docs live is an operator setting
// (--docs-url, or --addr's next port) that may change again, and browsers
// keep a 301 forever; other methods get the docs host's 405.
func (a *app) docsMoved(docs http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			docs.ServeHTTP(w, r)
			return
		}
		loc := a.settings.DocsURL + r.URL.EscapedPath()
		if r.URL.RawQuery != "" {
			loc += "?" + r.URL.RawQuery
		}
		w.Header().Set("Location", loc)
		w.WriteHeader(http.StatusFound)
	})
}

// statusRecorder remembers the status a handler wrote, for the access log.
type statusRecorder struct {
	http.ResponseWriter
	status int
	bytes  int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	n, err := s.ResponseWriter.Write(b)
	s.bytes += n
	return n, err
}

// ReadFrom passes io.Copy through to the connection's own ReadFrom, which
// sends files with sendfile(2) (the docs host copies files this way).
func (s *statusRecorder) ReadFrom(r io.Reader) (int64, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	n, err := io.Copy(s.ResponseWriter, r)
	s.bytes += int(n)
	return n, err
}

func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// Flush lets streaming answers (GraphQL over SSE) send each event at once.
func (s *statusRecorder) Flush() {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	http.NewResponseController(s.ResponseWriter).Flush()
}

// statusReaderGone is logged for a request whose reader closed the
// connection before anything was answered (nginx's 499).
const statusReaderGone = 499

// logRequests writes one structured log line per request (remote: the
// connection's peer; client: the client behind trusted proxies) and records
// it in the metrics.
func (a *app) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		switch {
		case rec.status == 0 && r.Context().Err() != nil:
			rec.status = statusReaderGone
		case rec.status == 0:
			rec.status = http.StatusOK
		}
		d := time.Since(start)
		a.logAccess(r.Context(), r.Host, &accessLine{time: start.Add(d), method: r.Method, path: r.URL.Path,
			status: rec.status, bytes: rec.bytes, duration: d, remote: r.RemoteAddr},
			forwardedFor(r))
	})
}

// logFront logs a request the docs listener's Front answered, as
// logRequests does the others.
func (a *app) logFront(r *hosting.FrontRequest) {
	a.logAccess(context.Background(), r.Host, &accessLine{time: r.Start.Add(r.Duration), method: r.Method, path: r.Path,
		status: r.Status, bytes: r.Bytes, duration: r.Duration, remote: r.Remote}, r.ForwardedFor)
}

// logAccess records a request in the metrics and writes its access log
// line, l with its client (from l.remote and the X-Forwarded-For values).
func (a *app) logAccess(ctx context.Context, host string, l *accessLine, forwardedFor string) {
	a.metrics.Observe(a.routeOf(host, l.path), l.method, l.status, l.bytes, l.duration)
	// The handler directly, with no caller's PC: Logger.LogAttrs would
	// walk the stack for one on every request (it showed in profiles).
	h := a.logger.Handler()
	if !h.Enabled(ctx, slog.LevelInfo) {
		return
	}
	l.client = clientAddrOf(l.remote, forwardedFor, a.settings.trustedProxies)
	logRequest(ctx, h, l)
}

// parseAndOpen parses a subcommand's flags (it takes no positional
// arguments) and opens the app.
func (c *command) parseAndOpen(ctx context.Context, name string, args []string) (*app, error) {
	fs, env := c.flags(name, name+" [flags]")
	if _, err := c.parse(fs, env, args); err != nil {
		return nil, err
	}
	a, err := c.open(ctx)
	if err == nil {
		a.warnPlaintextSecrets()
	}
	return a, err
}

func (c *command) serve(ctx context.Context, args []string) error {
	a, err := c.parseAndOpen(ctx, "serve", args)
	if err != nil {
		return err
	}
	defer a.close()
	defer startHeapFloor(uint64(a.settings.GCHeapFloor) << 20)()
	stopWorkers, err := a.startWorkers(ctx, a.settings.BuildWorkers)
	if err != nil {
		return err
	}
	defer stopWorkers()
	checkCtx, stopChecks := context.WithCancel(ctx)
	defer stopChecks()
	go a.domainChecker.Run(checkCtx)

	stopAnalytics := a.runAnalytics()
	defer stopAnalytics() // after the listeners stopped: the last views are written
	public, docs, docsHost := a.handlers()
	plain := public
	if a.settings.tlsOn() {
		if a.certs, err = a.newCerts(); err != nil {
			return err
		}
		defer a.certs.Stop()
		a.warnNoWildcard()
		if a.certs.ACME() {
			a.resolver.Hooks.RenewCertificate = a.certs.Renew
		}
		_, tlsPort, _ := net.SplitHostPort(a.settings.TLSAddr)
		plain = a.certs.HTTPChallenge(a.certs.RedirectToHTTPS(tlsPort, public))
	}
	servers := []server{a.httpServer(plain)}
	ln, err := net.Listen("tcp", a.settings.Addr)
	if err != nil {
		return listenError("--addr", a.settings.Addr, err)
	}
	listeners := []net.Listener{jsonErrorListener{ln}} // net/http's own 400/431 answers under /api/ in JSON
	if a.certs != nil {
		tln, err := net.Listen("tcp", a.settings.TLSAddr)
		if err != nil {
			ln.Close()
			return listenError("--tls-addr", a.settings.TLSAddr, err)
		}
		srv := a.httpServer(a.tlsHandler(public, docs))
		srv.TLSConfig = a.certs.TLSConfig()
		servers, listeners = append(servers, tlsServer{srv}), append(listeners, tln)
		if err := a.certs.Start(ctx); err != nil {
			a.logger.Error("starting certificate orders", "err", err)
		}
		a.logger.Info("docsd serving HTTPS", "addr", tln.Addr().String(), "acme", a.certs.ACME(), "wildcard", a.certs.Wildcard(),
			"acme_directory", a.settings.TLSACMEDirectory, "certificate", a.settings.TLSCert)
	}
	if docs != nil {
		dl, err := net.Listen("tcp", a.settings.DocsAddr)
		if err != nil {
			ln.Close()
			return listenError("--docs-addr", a.settings.DocsAddr, err)
		}
		// The Front answers what the docs host keeps whole, and hands
		// anything else to net/http (--docs-front).
		listeners = append(listeners, dl)
		if a.settings.DocsFront {
			servers = append(servers, &hosting.Front{Handler: docsHost, Reserved: docsOriginOwnPaths, Log: a.logFront,
				Server: a.httpServer(docs)})
		} else {
			servers = append(servers, a.httpServer(docs))
		}
		a.logger.Info("docsd serving docs", "addr", dl.Addr().String(), "docs_url", a.settings.DocsURL,
			"front", a.settings.DocsFront && hosting.FrontAvailable)
		if a.settings.docsURLGuessed {
			a.logger.Warn("--docs-url is not set: docs URLs are the public URL's host with --docs-addr's port; "+
				"behind a reverse proxy, set --docs-url to the hostname that serves the docs", "docs_url", a.settings.DocsURL)
		}
	} else if a.urls().SharedOrigin() {
		a.logger.Warn("docs share the public origin (--docs-url is --public-url): dashboard sign-in is turned off; " +
			"remove --docs-url, or set it to another origin that reaches --docs-addr, to turn it on")
	}
	if a.settings.DocsPathSessions && docs != nil {
		a.logger.Warn("--docs-path-sessions: every project's pages share " + a.settings.DocsURL +
			"; a page of one project can read any non-public page its signed-in visitor may read")
	}
	go a.audit.PruneEvery(ctx, time.Hour)
	a.logger.Info("docsd serving", "addr", ln.Addr().String(), "public_url", a.settings.PublicURL,
		"database", store.Redact(a.settings.DatabaseURL), "build_workers", a.settings.BuildWorkers)
	errc := make(chan error, len(servers))
	for i, srv := range servers {
		go func() { errc <- srv.Serve(listeners[i]) }()
	}
	select {
	case err := <-errc:
		for _, srv := range servers {
			srv.Close()
		}
		return err
	case <-ctx.Done():
	}
	a.logger.Info("docsd shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	shutdown := make(chan error, len(servers))
	for _, srv := range servers {
		go func() { shutdown <- srv.Shutdown(shutdownCtx) }()
	}
	var first error
	for range servers {
		if err := <-shutdown; err != nil && !errors.Is(err, http.ErrServerClosed) && first == nil {
			first = err
		}
	}
	return first
}

// tlsServer serves HTTPS on a plain listener with the server's TLSConfig
// (HTTP/2 included).
type tlsServer struct{ *http.Server }

func (s tlsServer) Serve(ln net.Listener) error { return s.ServeTLS(ln, "", "") }

// server is an http.Server or the docs listener's hosting.Front.
type server interface {
	Serve(net.Listener) error
	Shutdown(context.Context) error
	Close() error
}

func (c *command) worker(ctx context.Context, args []string) error {
	a, err := c.parseAndOpen(ctx, "worker", args)
	if err != nil {
		return err
	}
	defer a.close()
	n := a.settings.BuildWorkers
	if n <= 0 {
		n = 1
	}
	stop, err := a.startWorkers(ctx, n)
	if err != nil {
		return err
	}
	a.logger.Info("docsd worker running", "workers", n, "database", store.Redact(a.settings.DatabaseURL))
	<-ctx.Done()
	stop()
	return nil
}

func (c *command) migrate(ctx context.Context, args []string) error {
	fs, env := c.flags("migrate", "migrate [flags]")
	if _, err := c.parse(fs, env, args); err != nil {
		return err
	}
	s, err := store.Open(ctx, c.settings.DatabaseURL)
	if err != nil {
		return err
	}
	defer s.Close()
	fmt.Fprintf(c.stdout, "migrations applied to %s\n", store.Redact(c.settings.DatabaseURL))
	return nil
}

// graphQLLimits are the /graphql operation limits; a setting of 0 turns
// its limit off.
func (s Settings) graphQLLimits() graph.Limits {
	off := func(n int) int {
		if n <= 0 {
			return -1
		}
		return n
	}
	return graph.Limits{MaxBytes: off(s.GraphQLMaxBytes), MaxTokens: off(s.GraphQLMaxTokens), MaxDepth: off(s.GraphQLMaxDepth), MaxCost: off(s.GraphQLMaxCost),
		MaxSubscriptions: off(s.GraphQLMaxSubs)}
}
