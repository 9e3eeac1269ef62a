package main

import (
	"crypto/x509"
	"flag"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"docsd/graph"
	"docsd/internal/access"
	"docsd/internal/analytics"
	"docsd/internal/audit"
	"docsd/internal/builder"
	"docsd/internal/hosting"
	"docsd/internal/ratelimit"
	"docsd/internal/repocreds"
)

// Settings are the operator settings (see
// docs/operations/configuration.md). Each is a flag and an environment
// variable named alike
// (`public_url` is --public-url and DOCSD_PUBLIC_URL); a flag wins over the
// variable, the variable over the default.
type Settings struct {
	Addr                    string
	DataDir                 string
	DatabaseURL             string
	PublicURL               string
	DocsDomain              string
	DocsScheme              string
	DocsAddr                string // the docs listener: docs on an origin of their own (see docs/security.md#origins)
	DocsURL                 string // its public origin; "" in subdomain mode
	docsURLGuessed          bool   // DocsURL is the default made from a --public-url the operator gave
	ThrottleUserRate        string
	AbsoluteAPILinks        bool
	MaxPageSize             int
	BuildWorkers            int
	BuildTimeLimit          int
	GitCloneDepth           int
	InstallCoreRequirements bool
	BuildPython             string
	AllowPrivateRepos       bool
	AllowLocalRepos         bool
	BuildImagePrefix        string
	BuildSandbox            string
	LogFormat               string
	// HTTP connections, on both listeners (http.go).
	IdleTimeout    int // seconds; 0: no limit
	BodyTimeout    int // seconds; 0: no limit
	BodyMinRate    int // bytes per second; 0: none
	MaxHeaderBytes int

	// Operations (i15ops).
	SecretKey       string // key (or key file) sealing secrets at rest
	OldSecretKey    string // a previous key, still accepted for reading
	TrustedProxies  string // CIDRs whose X-Forwarded-For is believed
	AuthFailureRate string // failed token authentications allowed per client address

	secretKey, oldSecretKey string         // the keys themselves (read from files)
	trustedProxies          []netip.Prefix // parsed TrustedProxies
	// build.tools of .readthedocs.yaml: the versions this server offers.
	BuildTools       string
	BuildToolsStrict bool
	buildTools       builder.BuildTools
	// Build run-time limits and network rules.
	BuildMemoryLimit    int // MiB per process; 0: off
	BuildProcessLimit   int // processes; 0: off
	BuildCPULimit       int // seconds per process; 0: off
	BuildDiskLimit      int // MiB of checkout and output; 0: off
	BuildNetwork        string
	BuildPasta          string
	AllowPrivateNetwork bool
	// Where builds install packages from (packageindex.go).
	packageIndexSettings
	// Custom domains (domains.go) and HTTPS (tls.go).
	domainSettings
	tlsSettings
	// Reader side.
	AddonsInject    bool
	AddonsClientURL string
	// DocsFileCache is the MiB of published files the docs host keeps in
	// memory; 0: none.
	DocsFileCache int
	// DocsFront serves the docs listener with hosting.Front's fast path
	// (Linux only); false: net/http alone.
	DocsFront bool
	// GCHeapFloor is the MiB the heap may grow to before `serve` collects
	// garbage (gcfloor.go); 0: GOGC's pace alone.
	GCHeapFloor int
	// Search.
	SearchThrottleRate string
	// Traffic and search analytics.
	Analytics              bool
	AnalyticsRetentionDays int
	AnalyticsFlushInterval int
	// The public GraphQL endpoint.
	GraphQLAnonymousRate string
	GraphQLMaxBytes      int
	GraphQLMaxTokens     int
	GraphQLMaxDepth      int
	GraphQLMaxCost       int
	GraphQLMaxSubs       int
	CORSOrigins          string
	corsOrigins          []string // parsed CORSOrigins
	// The upload API (see docs/user-guide/uploads.md).
	UploadAPI              bool
	UploadStorage          string
	UploadMaxSize          int
	UploadURLTTL           int
	UploadMaxPending       int
	UploadMaxExtractedSize int
	UploadMaxEntries       int
	UploadMaxSpools        int
	// Scale-out: artifacts in S3-compatible object storage.
	ArtifactsURL string
	S3Endpoint   string
	S3Region     string
	s3AccessKey  string // AWS_ACCESS_KEY_ID
	s3SecretKey  string // AWS_SECRET_ACCESS_KEY
	// Sign-in with OpenID Connect, and who may use passwords (oidc.go).
	oidcSettings
	// Repository access: the operator's known_hosts file for SSH
	// repositories.
	SSHKnownHosts    string
	RepositoryCAFile string
	// Organizations and teams.
	OrganizationCreators string
	// Sharing links and the audit log.
	DocsPathSessions   bool
	AuditRetentionDays int
	AuditPageviews     string
	auditPageviews     audit.Pageviews
	// Build notifications: the mail relay and outgoing webhooks.
	mailSettings
	// Invitations.
	InvitationExpirationDays int
	InvitationSignup         bool
}

func envName(flagName string) string {
	return "DOCSD_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

func envString(name, def string) string {
	if v, ok := os.LookupEnv(envName(name)); ok {
		return v
	}
	return def
}

// envValues collects environment variables that failed to parse, so that a
// typo is an error instead of a silent default.
type envErrors []string

func (e *envErrors) int(name string, def int) int {
	v, ok := os.LookupEnv(envName(name))
	if !ok || v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		*e = append(*e, fmt.Sprintf("%s=%q is not an integer", envName(name), v))
		return def
	}
	return n
}

func (e *envErrors) bool(name string, def bool) bool {
	v, ok := os.LookupEnv(envName(name))
	if !ok || v == "" {
		return def
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		*e = append(*e, fmt.Sprintf("%s=%q is not a boolean", envName(name), v))
		return def
	}
	return b
}

func defaultBuildPython() string {
	if _, err := os.Stat("/usr/bin/python3"); err == nil {
		return "/usr/bin/python3"
	}
	return "python3"
}

// register declares every setting on fs with its environment default.
func (s *Settings) register(fs *flag.FlagSet, env *envErrors) {
	str := func(p *string, name, def, usage string) {
		fs.StringVar(p, name, envString(name, def), usage+" ("+envName(name)+")")
	}
	integer := func(p *int, name string, def int, usage string) {
		fs.IntVar(p, name, env.int(name, def), usage+" ("+envName(name)+")")
	}
	boolean := func(p *bool, name string, def bool, usage string) {
		fs.BoolVar(p, name, env.bool(name, def), usage+" ("+envName(name)+")")
	}
	str(&s.Addr, "addr", "127.0.0.1:8000", "address the HTTP server listens on")
	str(&s.DataDir, "data-dir", "./docsd-data", "directory for the SQLite database, checkouts and built docs")
	str(&s.DatabaseURL, "database-url", "", "postgres://… for PostgreSQL; a file path or sqlite://path for SQLite (default <data-dir>/docsd.db)")
	str(&s.PublicURL, "public-url", "", "scheme://host[:port] of every absolute URL docsd writes (default http:// + the listen address)")
	str(&s.DocsDomain, "docs-domain", "", "serve docs at <project>.<docs-domain> (subdomain mode); empty: under <public-url>/docs/")
	str(&s.DocsScheme, "docs-scheme", "", "scheme of subdomain-mode docs URLs (default: the public URL's)")
	str(&s.DocsAddr, "docs-addr", "", "address a second listener serves the built docs on, apart from the dashboard (default: --addr's host, the next port); not with --docs-domain")
	str(&s.DocsURL, "docs-url", "", "scheme://host[:port] readers reach --docs-addr at (default: the public URL's scheme and host, --docs-addr's port); "+
		"set to --public-url to serve docs on the main origin under /docs/, which turns dashboard sign-in off")
	str(&s.ThrottleUserRate, "throttle-user-rate", "60/minute", "per-user request budget of API v3 and /graphql together, N/second|minute|hour|day; 0 disables")
	boolean(&s.AbsoluteAPILinks, "absolute-api-links", false, "write v3 _links and next/previous as absolute URLs")
	integer(&s.MaxPageSize, "max-page-size", 100, "largest `limit` of API lists")
	integer(&s.BuildWorkers, "build-workers", 2, "builds that `serve` runs at once in process; 0: leave builds to `docsd worker`")
	integer(&s.BuildTimeLimit, "build-time-limit", 600, "seconds a build may run before it is killed")
	integer(&s.GitCloneDepth, "git-clone-depth", 50, "--depth of git clone and fetch; 0 for the full history")
	boolean(&s.InstallCoreRequirements, "install-core-requirements", false, "pip-install Sphinx/MkDocs into each build environment instead of using the system's")
	str(&s.BuildPython, "build-python", defaultBuildPython(), "interpreter that creates build environments")
	boolean(&s.AllowPrivateRepos, "allow-private-repos", false, "accept ssh:// and user@host:path repository URLs")
	boolean(&s.AllowLocalRepos, "allow-local-repos", false, "accept file:// repository URLs (development and tests)")
	str(&s.BuildImagePrefix, "build-image-prefix", "readthedocs/build", "prefix of build.image in stored build configurations")
	str(&s.BuildSandbox, "build-sandbox", builder.SandboxAuto, "run build commands in a bubblewrap sandbox: auto (when bwrap works), bwrap (required) or off")
	str(&s.LogFormat, "log-format", "text", "log format: text or json")
	integer(&s.IdleTimeout, "idle-timeout", defaultIdleTimeout, "seconds a kept-alive HTTP connection may wait for its next request before it is closed; 0: no limit")
	integer(&s.BodyTimeout, "body-timeout", defaultBodyTimeout, "seconds a request body may keep the server waiting for its next bytes, and the grace before --body-min-rate counts; 0: no limit")
	integer(&s.BodyMinRate, "body-min-rate", defaultBodyMinRate, "bytes per second a slow request body must deliver: it may keep the server waiting --body-timeout seconds plus one second per this many bytes it sent, and is cut after; 0: only --body-timeout between reads")
	integer(&s.MaxHeaderBytes, "max-header-bytes", defaultMaxHeaderBytes, "largest request line and header, bytes (net/http allows 4096 more); a larger one is answered 431")
	// Operations.
	str(&s.SecretKey, "secret-key", "", "key, or path of a file holding it, that encrypts environment variable values and webhook secrets in the database (AES-256-GCM) and signs docs badge tokens; empty: stored in plain text, and no badge tokens")
	str(&s.OldSecretKey, "old-secret-key", "", "previous --secret-key (value or file), still used to read values it sealed: for `docsd secrets rotate`")
	str(&s.TrustedProxies, "trusted-proxies", "", "comma-separated addresses or CIDRs of reverse proxies whose X-Forwarded-For names the client")
	str(&s.AuthFailureRate, "auth-failure-rate", "20/minute", "failed token authentications allowed per client address, N/second|minute|hour|day; 0 disables")
	// build.tools
	str(&s.BuildTools, "build-tools", "", "extra tool versions for build.tools: <tool>:<version>=<absolute path>, comma-separated (e.g. python:3.10=/opt/py310/bin/python3.10)")
	boolean(&s.BuildToolsStrict, "build-tools-strict", false, "fail builds whose build.tools version this server lacks instead of substituting its own with a note")
	integer(&s.BuildMemoryLimit, "build-memory-limit", 2048, "MiB of memory (address space) each build process may use; 0: no limit")
	integer(&s.BuildProcessLimit, "build-process-limit", 256, "processes a build's user may have; 0: no limit")
	integer(&s.BuildCPULimit, "build-cpu-limit", 600, "seconds of CPU time each build process may use; 0: no limit")
	integer(&s.BuildDiskLimit, "build-disk-limit", 1024, "MiB a build's checkout and output may hold (and the largest file it may write); 0: no limit")
	str(&s.BuildNetwork, "build-network", builder.NetworkAuto, "network of build commands that need one (cloning, installing, build commands): auto or pasta (a namespace of their own through pasta; when it can't be set up they fail, naming what is missing) or host (this machine's network, its loopback services included)")
	str(&s.BuildPasta, "build-pasta", "pasta", "pasta's binary (package passt), a name looked up on PATH or a path")
	boolean(&s.AllowPrivateNetwork, "allow-private-network", false, "accept repository URLs whose host resolves to loopback, private, link-local or unspecified addresses, and let build commands reach private networks (never this machine's loopback or own addresses, nor link-local ones)")
	s.packageIndexSettings.register(str, boolean)
	s.domainSettings.register(str, integer)
	s.tlsSettings.register(str)
	// Reader side.
	boolean(&s.AddonsInject, "addons-inject", true, "inject the reader client (version menu, banners, search) into served HTML pages")
	str(&s.AddonsClientURL, "addons-client-url", "", "absolute URL or path of a reader client to inject instead of docsd's built-in one")
	integer(&s.DocsFileCache, "docs-file-cache", hosting.DefaultFileCacheBytes>>20, "MiB of published files the docs host keeps in memory (files up to 64 KB, compressed bodies, what is known of larger and missing ones); 0: none")
	boolean(&s.DocsFront, "docs-front", true, "on Linux, answer the docs listener's anonymous repeated page requests from docsd's own HTTP/1.1 reading with writev(2) and sendfile(2), and give the rest to net/http; false: net/http alone (other systems always)")
	integer(&s.GCHeapFloor, "gc-heap-floor", defaultGCHeapFloor>>20, "MiB the heap may grow to before `serve` collects garbage, however small the live heap (a larger live heap is collected at GOGC's pace); 0, or GOGC set: GOGC's pace alone")

	// Search.
	str(&s.SearchThrottleRate, "search-throttle-rate", "100/minute", "search endpoints' budget per user (else per remote address), N/second|minute|hour|day; 0 disables")
	// Traffic and search analytics.
	boolean(&s.Analytics, "analytics", true, "count page views and searches per project, version and day (aggregate counters only: no address, cookie or user agent is kept); projects may opt out with analytics_disabled")
	integer(&s.AnalyticsRetentionDays, "analytics-retention-days", analytics.DefaultRetentionDays, "days of page view and search counters kept, today included; older ones are deleted every hour")
	integer(&s.AnalyticsFlushInterval, "analytics-flush-interval", int(analytics.DefaultFlushInterval/time.Second), "seconds between writes of the counters kept in memory (and at shutdown); a node that stops abruptly loses at most this long's counts")
	// The public GraphQL endpoint.
	str(&s.GraphQLAnonymousRate, "graphql-anonymous-rate", "60/minute", "/graphql budget of anonymous callers per client address, N/second|minute|hour|day; 0 disables")
	integer(&s.GraphQLMaxBytes, "graphql-max-bytes", graph.DefaultMaxBytes, "largest /graphql request body and operation document, bytes; 0: no limit")
	integer(&s.GraphQLMaxTokens, "graphql-max-tokens", graph.DefaultMaxTokens, "most lexical tokens of a /graphql operation document, counted before parsing; 0: no limit")
	integer(&s.GraphQLMaxDepth, "graphql-max-depth", graph.DefaultMaxDepth, "deepest field nesting of a /graphql operation, fragments expanded; 0: no limit")
	integer(&s.GraphQLMaxCost, "graphql-max-cost", graph.DefaultMaxCost, "highest cost of a /graphql operation (list fields count their page size; fragments and aliases expanded); 0: no limit")
	integer(&s.GraphQLMaxSubs, "graphql-max-subscriptions", graph.DefaultMaxSubscriptions, "most subscriptions one /graphql WebSocket connection may run at once; 0: no limit")
	str(&s.CORSOrigins, "cors-origins", "", "comma-separated origins (scheme://host[:port]) whose pages may call /graphql from a browser, or *; empty: none")
	boolean(&s.UploadAPI, "upload-api", true, "enable the upload API (/api/v3/upload/…) for every project's maintainers")
	str(&s.UploadStorage, "upload-storage", "", "where clients POST upload archives: local (docsd itself) or s3 (a presigned POST to the artifacts bucket; the default when --artifacts-url is s3://)")
	integer(&s.UploadMaxSize, "upload-max-size", defaultUploadMaxSize, "largest upload archive accepted, bytes")
	integer(&s.UploadURLTTL, "upload-url-ttl", defaultUploadURLTTL, "seconds an upload URL is valid; older pending uploads are failed")
	integer(&s.UploadMaxPending, "upload-max-pending", defaultUploadMaxPending, "upload builds per project awaiting complete")
	integer(&s.UploadMaxExtractedSize, "upload-max-extracted-size", defaultUploadMaxExtractedSize, "total uncompressed size of an upload archive's entries, bytes")
	integer(&s.UploadMaxEntries, "upload-max-entries", defaultUploadMaxEntries, "entries in an upload archive")
	integer(&s.UploadMaxSpools, "upload-max-spools", defaultUploadMaxSpools, "upload archives docsd writes to disk at once (local storage); more are answered 503 with Retry-After")
	// Scale-out: artifacts in S3-compatible object storage.
	str(&s.ArtifactsURL, "artifacts-url", "", "s3://BUCKET/PREFIX to keep built docs, downloads and upload archives in S3-compatible object storage (credentials: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY); empty: <data-dir>/artifacts")
	str(&s.S3Endpoint, "s3-endpoint", "", "URL of an S3-compatible server other than AWS (http://host:port); buckets are then addressed by path")
	str(&s.S3Region, "s3-region", "us-east-1", "region of the artifacts bucket")
	s.oidcSettings.register(str, boolean)
	// Repository access.
	str(&s.SSHKnownHosts, "ssh-known-hosts", "", "path of an OpenSSH known_hosts file whose host keys every project's SSH repository may have, besides the project's own known hosts; empty: none")
	str(&s.RepositoryCAFile, "repository-ca-file", "", "path of a PEM file of the certificate authorities git trusts for HTTPS repositories instead of the system's (Git servers with a private CA); empty: the system's")
	// Organizations and teams.
	str(&s.OrganizationCreators, "organization-creators", access.CreatorsSuperusers, "who may create organizations: superusers, or users (any active user)")
	// Sharing links and the audit log.
	boolean(&s.DocsPathSessions, "docs-path-sessions", false, "allow docs sessions (/_/login/, sign-in from the dashboard) and sharing links on the path-mode docs origin, --docs-url's host and port (every project's pages share that origin: a page of one project can read any non-public page its signed-in visitor may read)")
	integer(&s.AuditRetentionDays, "audit-retention-days", 90, "audit log entries older than this many days are deleted (hourly, and by `docsd audit prune`); 0 keeps them for ever")
	str(&s.AuditPageviews, "audit-pageviews", string(audit.PageviewsPrivate), "page views and downloads the audit log records: off, private (of versions anonymous readers cannot see) or all")
	// Build notifications: the mail relay and outgoing webhooks.
	s.mailSettings.register(str, integer)
	// Invitations.
	integer(&s.InvitationExpirationDays, "invitation-expiration-days", 15, "days an invitation (to an organization, a team or a project) can be accepted")
	boolean(&s.InvitationSignup, "invitation-signup", true, "an invitation to an email address may create an account on its link page (username and password; needs --password-sign-in=on)")
}

// resolve fills derived defaults and checks the settings.
func (s *Settings) resolve() error {
	// Relative paths are taken from the working directory at start; build
	// commands run elsewhere, so keep them absolute from here on.
	if abs, err := filepath.Abs(s.DataDir); err == nil {
		s.DataDir = abs
	}
	if s.DatabaseURL == "" {
		s.DatabaseURL = filepath.Join(s.DataDir, "docsd.db")
	}
	publicGiven := s.PublicURL != ""
	if s.PublicURL == "" {
		host, port, err := net.SplitHostPort(s.Addr)
		if err != nil {
			return fmt.Errorf("--addr %q: %v", s.Addr, err)
		}
		if host == "" || host == "0.0.0.0" || host == "::" {
			host = "localhost"
		}
		s.PublicURL = "http://" + net.JoinHostPort(host, port)
	}
	s.PublicURL = strings.TrimRight(s.PublicURL, "/")
	if !strings.HasPrefix(s.PublicURL, "http://") && !strings.HasPrefix(s.PublicURL, "https://") {
		return fmt.Errorf("--public-url %q must start with http:// or https://", s.PublicURL)
	}
	if err := s.resolveDocsOrigin(publicGiven); err != nil {
		return err
	}
	if _, _, err := ratelimit.ParseRate(s.ThrottleUserRate); err != nil {
		return fmt.Errorf("--throttle-user-rate: %v", err)
	}
	if _, _, err := ratelimit.ParseRate(s.GraphQLAnonymousRate); err != nil {
		return fmt.Errorf("--graphql-anonymous-rate: %v", err)
	}
	origins, err := parseOrigins(s.CORSOrigins)
	if err != nil {
		return err
	}
	s.corsOrigins = origins
	if c := s.AddonsClientURL; c != "" && !strings.HasPrefix(c, "/") && !strings.HasPrefix(c, "http://") && !strings.HasPrefix(c, "https://") {
		return fmt.Errorf("--addons-client-url %q must be an absolute URL or an absolute path", c)
	}
	if _, _, err := ratelimit.ParseRate(s.SearchThrottleRate); err != nil {
		return fmt.Errorf("--search-throttle-rate: %v", err)
	}
	if s.MaxPageSize <= 0 {
		return fmt.Errorf("--max-page-size must be positive")
	}
	if s.OrganizationCreators == "" {
		s.OrganizationCreators = access.CreatorsSuperusers
	}
	if s.OrganizationCreators != access.CreatorsSuperusers && s.OrganizationCreators != access.CreatorsUsers {
		return fmt.Errorf("--organization-creators: %q must be superusers or users", s.OrganizationCreators)
	}
	if s.DocsFileCache < 0 {
		return fmt.Errorf("--docs-file-cache must not be negative")
	}
	if s.GCHeapFloor < 0 {
		return fmt.Errorf("--gc-heap-floor must not be negative")
	}
	if s.BuildSandbox != "" && !slices.Contains(builder.SandboxModes, s.BuildSandbox) {
		return fmt.Errorf("--build-sandbox %q must be one of %s", s.BuildSandbox, strings.Join(builder.SandboxModes, ", "))
	}
	if err := s.resolveHTTP(); err != nil {
		return err
	}
	if err := s.resolveOps(); err != nil {
		return err
	}
	tools, err := builder.ParseBuildTools(s.BuildTools)
	if err == nil {
		home, _ := os.UserHomeDir()
		err = tools.CheckVisible(s.DataDir, home)
	}
	if err != nil {
		return fmt.Errorf("--build-tools: %v", err)
	}
	s.buildTools = tools
	if s.BuildNetwork != "" && !slices.Contains(builder.NetworkModes, s.BuildNetwork) {
		return fmt.Errorf("--build-network %q must be one of %s", s.BuildNetwork, strings.Join(builder.NetworkModes, ", "))
	}
	if err := s.resolvePackageIndex(); err != nil {
		return err
	}
	if s.SSHKnownHosts != "" {
		abs, err := filepath.Abs(s.SSHKnownHosts)
		if err == nil {
			err = repocreds.CheckKnownHostsFile(abs)
		}
		if err != nil {
			return fmt.Errorf("--ssh-known-hosts: %v", err)
		}
		s.SSHKnownHosts = abs
	}
	if s.RepositoryCAFile != "" {
		abs, err := filepath.Abs(s.RepositoryCAFile)
		if err == nil {
			err = checkCAFile(abs)
		}
		if err != nil {
			return fmt.Errorf("--repository-ca-file: %v", err)
		}
		s.RepositoryCAFile = abs
	}
	if s.BuildMemoryLimit < 0 || s.BuildProcessLimit < 0 || s.BuildCPULimit < 0 || s.BuildDiskLimit < 0 {
		return fmt.Errorf("--build-memory-limit, --build-process-limit, --build-cpu-limit and --build-disk-limit must not be negative (0 turns a limit off)")
	}
	if s.BuildWorkers < 0 || s.BuildTimeLimit <= 0 || s.GitCloneDepth < 0 {
		return fmt.Errorf("--build-workers and --git-clone-depth must not be negative, --build-time-limit must be positive")
	}
	if err := s.resolveArtifacts(); err != nil {
		return err
	}
	if err := s.resolveOIDC(); err != nil {
		return err
	}
	if err := s.resolveAudit(); err != nil {
		return err
	}
	if err := s.resolveMail(); err != nil {
		return err
	}
	if err := s.resolveDomains(); err != nil {
		return err
	}
	if err := s.resolveTLS(); err != nil {
		return err
	}
	switch {
	case s.InvitationExpirationDays < 0:
		return fmt.Errorf("--invitation-expiration-days: must be at least 1")
	case s.InvitationExpirationDays == 0: // settings made without flags
		s.InvitationExpirationDays = 15
	}
	return s.resolveUpload()
}

// resolveAudit checks the audit log's settings.
func (s *Settings) resolveAudit() error {
	if s.AuditRetentionDays < 0 {
		return fmt.Errorf("--audit-retention-days must not be negative (0 keeps entries for ever)")
	}
	if s.AuditPageviews == "" {
		s.AuditPageviews = string(audit.PageviewsPrivate)
	}
	p, ok := audit.ParsePageviews(s.AuditPageviews)
	if !ok {
		return fmt.Errorf("--audit-pageviews %q must be one of off, private, all", s.AuditPageviews)
	}
	s.auditPageviews = p
	return nil
}

// parseOrigins reads --cors-origins: comma-separated origins
// (scheme://host[:port], no path) or "*".
func parseOrigins(list string) ([]string, error) {
	var out []string
	for _, o := range strings.Split(list, ",") {
		o = strings.TrimSpace(o)
		if o == "" {
			continue
		}
		if o != "*" {
			u, err := url.Parse(o)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
				return nil, fmt.Errorf("--cors-origins: %q is not an origin (scheme://host[:port])", o)
			}
			o = u.Scheme + "://" + u.Host
		}
		out = append(out, o)
	}
	return out, nil
}

// resolveDocsOrigin fills the docs listener's defaults (user-built docs
// never share an origin with the dashboard unless the operator says so,
// see docs/security.md):
// --docs-addr is --addr's host with the next port, --docs-url the public
// URL's scheme and host with --docs-addr's port. Subdomain mode serves docs
// on <project>.<docs-domain> and takes neither.
func (s *Settings) resolveDocsOrigin(publicGiven bool) error {
	if s.DocsDomain != "" {
		if s.DocsURL != "" {
			return fmt.Errorf("--docs-url and --docs-domain exclude each other: with --docs-domain docs are served on <project>.<docs-domain>")
		}
		if s.DocsAddr != "" {
			return fmt.Errorf("--docs-addr and --docs-domain exclude each other: with --docs-domain docs are served by --addr's listener on <project>.<docs-domain>")
		}
		return nil
	}
	if s.DocsAddr == "" {
		host, port, err := net.SplitHostPort(s.Addr)
		n, perr := strconv.Atoi(port)
		if err != nil || perr != nil || n >= 65535 {
			return fmt.Errorf("--docs-addr: no next port after --addr %q; set --docs-addr", s.Addr)
		}
		if n != 0 {
			n++
		}
		s.DocsAddr = net.JoinHostPort(host, strconv.Itoa(n))
	}
	if s.DocsURL == "" {
		_, port, err := net.SplitHostPort(s.DocsAddr)
		if err != nil {
			return fmt.Errorf("--docs-addr %q: %v", s.DocsAddr, err)
		}
		pu, err := url.Parse(s.PublicURL)
		if err != nil {
			return fmt.Errorf("--public-url %q: %v", s.PublicURL, err)
		}
		s.DocsURL = pu.Scheme + "://" + net.JoinHostPort(pu.Hostname(), port)
		s.docsURLGuessed = publicGiven
	}
	s.DocsURL = strings.TrimRight(s.DocsURL, "/")
	if u, err := url.Parse(s.DocsURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" || u.RawQuery != "" || u.User != nil {
		return fmt.Errorf("--docs-url %q must be an origin: http(s)://host[:port], no path", s.DocsURL)
	}
	return nil
}

// checkCAFile checks that path holds at least one PEM certificate.
func checkCAFile(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if !x509.NewCertPool().AppendCertsFromPEM(b) {
		return fmt.Errorf("%s holds no PEM certificate", path)
	}
	return nil
}
