// Package builder builds documentation: workers claim queued builds and
// version-sync tasks from the store, clone the repository with the git
// binary, sync its branches and tags into versions, run Sphinx, MkDocs or
// a built-in Markdown builder, and publish the HTML and downloads through
// artifact storage (see docs/user-guide/builds.md).
//
// Many pools may work on one database (`docsd serve` and any number of
// `docsd worker` processes): every build and sync task is claimed with a
// lease that its worker renews while it runs, and at most one build or
// sync task per project runs at a time.
package builder

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"time"

	"docsd/internal/artifacts"
	"docsd/internal/audit"
	"docsd/internal/errs"
	"docsd/store"
)

// Config is the operator configuration of the builder (see
// docs/operations/configuration.md).
// Zero values take the defaults noted.
type Config struct {
	DataDir                 string        // checkouts/, envs/, homes/ and conda/ are kept under it
	Lease                   time.Duration // how long a claim holds without renewal; 60 s
	RenewEvery              time.Duration // lease renewal period; 20 s
	PollEvery               time.Duration // how often idle workers look for work; 1.5 s
	SweepEvery              time.Duration // stale-build sweeper period; 1 min
	BuildTimeLimit          time.Duration // per build, unless the project overrides it; 600 s
	GitCloneDepth           int           // --depth of clone and fetch; 0 for full history
	BuildPython             string        // interpreter that creates environments; /usr/bin/python3 or python3
	InstallCoreRequirements bool          // pip-install Sphinx/MkDocs into each environment
	AllowPrivateRepos       bool          // changes the clone failure message; allows ssh submodules
	AllowLocalRepos         bool          // allows file:// submodules
	BuildImagePrefix        string        // prefix of build.image in stored configs; readthedocs/build
	BuildTools              BuildTools    // build_tools: extra tool versions this server offers
	BuildToolsStrict        bool          // build_tools_strict: fail instead of substituting a tool version
	PublicURL               string        // READTHEDOCS_PRODUCTION_DOMAIN is its host
	// PackageIndexURL is the PEP 503 index pip and uv install from, given
	// to every build command (PIP_INDEX_URL, UV_DEFAULT_INDEX); empty:
	// PyPI, their own default. It is checked before installing.
	PackageIndexURL string
	// PackageExtraIndexURLs are further indexes pip and uv look in
	// (PIP_EXTRA_INDEX_URL, UV_INDEX); PackageTrustedHosts are hosts
	// (host or host:port) they reach over plain HTTP or without checking
	// their certificate (PIP_TRUSTED_HOST, UV_INSECURE_HOST).
	PackageExtraIndexURLs []string
	PackageTrustedHosts   []string
	// OfflineBuilds lets builds go on without what they can't install:
	// requirements when the index does not answer or pip is missing,
	// build.apt_packages the machine lacks; each skipped step is recorded
	// naming it. Off, such builds fail.
	OfflineBuilds bool
	// CanonicalURL, when set, is a version's docs URL ending in "/"
	// (READTHEDOCS_CANONICAL_URL).
	CanonicalURL func(p *store.Project, v *store.Version) string
	// Sandbox says whether build commands run in a bubblewrap sandbox:
	// SandboxAuto (the default), SandboxBwrap or SandboxOff.
	Sandbox string
	// Network is how build commands that need the network get it:
	// NetworkAuto (the default), NetworkPasta or NetworkHost.
	Network string
	// Pasta names pasta's binary (a name looked up on PATH, or a path);
	// "pasta" by default.
	Pasta string
	// Limits are the resources every build command may use.
	Limits Limits
	// AllowPrivateNetwork lets repository URLs resolve to loopback,
	// private, link-local and unspecified addresses (clone time; import
	// time is the graph's), and lets build commands reach private (RFC
	// 1918) and shared (RFC 6598) networks from their namespace; never
	// this host's loopback or own addresses, nor link-local ones.
	AllowPrivateNetwork bool
	// SandboxHide are directories build commands must not see besides
	// DataDir: docsd's whole data directory, the SQLite database's
	// directory, artifact storage.
	SandboxHide []string
	// Published, when set, is called once after each successful build of
	// an internal version has published its HTML, before the build is
	// finished; the search indexer hangs here. It must
	// not fail the build: it handles its own errors.
	Published func(ctx context.Context, p *store.Project, v *store.Version, configJSON string)
	// SSHKnownHosts is the operator's OpenSSH known_hosts file, consulted
	// for every project's SSH repository besides the project's own lines
	// (--ssh-known-hosts); empty: none.
	SSHKnownHosts string
	// RepositoryCAFile is a PEM file of the certificate authorities git
	// trusts for HTTPS repositories instead of the system's
	// (http.sslCAInfo of VCS commands); empty: the system's.
	RepositoryCAFile string
	// CredentialsDir is where the VCS step's key directories are made
	// (each 0700, removed when the step ends and at Start); it must be
	// among the directories the sandbox hides. Empty: tmp under DataDir.
	CredentialsDir string
	// Uploads, when set, is offered every claimed build first: it runs the
	// builds the upload API created (see docs/user-guide/uploads.md).
	Uploads UploadRunner
	// Audit records the host keys VCS commands learned on first use
	// (known-hosts-changed); nil records nothing.
	Audit *audit.Recorder
}

// UploadRunner processes builds created by the upload API. RunUpload
// reports whether b was one (and was run to its end).
type UploadRunner interface {
	RunUpload(ctx context.Context, b *store.Build, owner string) (bool, error)
}

func (c *Config) defaults() {
	if c.Lease <= 0 {
		c.Lease = 60 * time.Second
	}
	if c.RenewEvery <= 0 {
		c.RenewEvery = c.Lease / 3
	}
	if c.PollEvery <= 0 {
		c.PollEvery = 1500 * time.Millisecond
	}
	if c.SweepEvery <= 0 {
		c.SweepEvery = time.Minute
	}
	if c.BuildTimeLimit <= 0 {
		c.BuildTimeLimit = 600 * time.Second
	}
	if c.BuildPython == "" {
		c.BuildPython = "python3"
		if _, err := os.Stat("/usr/bin/python3"); err == nil {
			c.BuildPython = "/usr/bin/python3"
		}
	}
	if c.BuildImagePrefix == "" {
		c.BuildImagePrefix = "readthedocs/build"
	}
	if c.DataDir == "" {
		c.DataDir = "."
	}
	c.Limits.defaults()
	if c.Network == "" {
		c.Network = NetworkAuto
	}
	if c.Pasta == "" {
		c.Pasta = "pasta"
	}
	if c.Sandbox == "" {
		c.Sandbox = SandboxAuto
	}
	// Build commands run in the checkout, so every directory handed to them
	// must be absolute.
	if abs, err := filepath.Abs(c.DataDir); err == nil {
		c.DataDir = abs
	}
}

// Pool runs build workers against a store.
type Pool struct {
	store     *store.Store
	artifacts artifacts.Storage
	cfg       Config
	logger    *slog.Logger
	host      string
	wake      chan struct{}

	indexMu      sync.Mutex // guards indexOK and indexChecked
	indexOK      bool
	indexChecked time.Time

	prlimit string // prlimit's path; "" without limits

	sandboxOnce sync.Once
	sbx         *sandbox      // set by sandboxOnce; nil: commands run unsandboxed
	net         *netIsolation // set by sandboxOnce; nil: commands with network use the host's (NetworkHost)

	toolsMu sync.Mutex           // guards tools
	tools   map[string]time.Time // "tool\x00env kind" → when it was found to run

	mu      sync.Mutex // guards stop
	stop    context.CancelCauseFunc
	running sync.WaitGroup

	// execute runs a claimed build and executeSync a claimed sync task;
	// tests replace them to exercise the queue without the pipeline.
	execute     func(ctx context.Context, b *store.Build, owner string)
	executeSync func(ctx context.Context, t *store.SyncTask, owner string)
	// timeLimit ends a build's context with errTimeLimit at its deadline;
	// tests replace it to reach the time limit when they choose.
	timeLimit func(ctx context.Context, deadline time.Time) (context.Context, context.CancelFunc)
	// onState, when set, sees every state a build enters (tests).
	onState func(build int64, state string)
}

func (p *Pool) observe(build int64, state string) {
	if p.onState != nil {
		p.onState(build, state)
	}
}

// New returns a pool that is not running yet; Wake may be called on it at
// any time.
func New(s *store.Store, arts artifacts.Storage, cfg Config, logger *slog.Logger) *Pool {
	cfg.defaults()
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	host, _ := os.Hostname()
	if host == "" {
		host = "docsd"
	}
	p := &Pool{store: s, artifacts: arts, cfg: cfg, logger: logger.With("component", "builder"), host: host,
		wake: make(chan struct{}, 64)}
	p.execute, p.executeSync = p.runBuild, p.runSync
	p.timeLimit = func(ctx context.Context, deadline time.Time) (context.Context, context.CancelFunc) {
		return context.WithDeadlineCause(ctx, deadline, errTimeLimit)
	}
	p.lookPrlimit()
	return p
}

// sandbox returns the build sandbox, set up (and bwrap probed) on first
// use; nil when build commands run unsandboxed.
func (p *Pool) sandbox() *sandbox {
	p.sandboxOnce.Do(func() {
		p.sbx = newSandbox(p.cfg.Sandbox, append([]string{p.cfg.DataDir}, p.cfg.SandboxHide...), p.logger)
		p.net = newNetIsolation(p.cfg, p.sbx, p.logger)
	})
	return p.sbx
}

// Wake tells idle workers that work was queued, so they look at once
// instead of at their next poll.
func (p *Pool) Wake() {
	for {
		select {
		case p.wake <- struct{}{}:
		default:
			return
		}
	}
}

// Start runs n workers and the stale-build sweeper until Stop is called or
// ctx ends.
func (p *Pool) Start(ctx context.Context, n int) {
	p.sandbox() // says at once whether builds are sandboxed
	if err := p.RemoveStaleCredentials(); err != nil {
		p.logger.Warn("removing SSH key directories left by a stopped process", "err", err)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	p.mu.Lock()
	p.stop = cancel
	p.mu.Unlock()
	p.running.Add(1)
	go func() {
		defer p.running.Done()
		p.sweepLoop(ctx)
	}()
	for i := 0; i < n; i++ {
		owner := fmt.Sprintf("%s:%d:%d:%s", p.host, os.Getpid(), i, randomHex(4))
		p.running.Add(1)
		go func() {
			defer p.running.Done()
			p.work(ctx, owner)
		}()
	}
}

// Stop stops the workers and waits for them. A build that is running is
// killed (its whole process tree) and put back in the queue, so that
// nothing stays running behind a stopped worker and the next worker runs
// it again; a sync task in progress is dropped.
func (p *Pool) Stop() {
	p.mu.Lock()
	stop := p.stop
	p.mu.Unlock()
	if stop != nil {
		stop(errStopping)
	}
	p.running.Wait()
}

// work is one worker's loop: run whatever can be claimed, else wait for a
// wake-up or the next poll.
func (p *Pool) work(ctx context.Context, owner string) {
	for ctx.Err() == nil {
		did, err := p.RunNext(ctx, owner)
		if err != nil && ctx.Err() == nil {
			p.logger.Warn("claiming work", "err", err)
		}
		if did {
			continue
		}
		// Jitter keeps many idle workers from polling in step.
		wait := p.cfg.PollEvery/2 + time.Duration(mrand.Int64N(int64(p.cfg.PollEvery)))
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
		case <-p.wake:
		case <-t.C:
		}
		t.Stop()
	}
}

// RunNext claims one queued sync task or build for owner and runs it to
// its end. It reports whether there was anything to run.
func (p *Pool) RunNext(ctx context.Context, owner string) (bool, error) {
	t, err := p.store.ClaimSyncTask(ctx, owner, p.cfg.Lease)
	switch {
	case err == nil:
		p.syncGuarded(ctx, t, owner)
		return true, nil
	case !errs.Is(err, errs.NotFound):
		return false, err
	}
	b, err := p.store.ClaimBuild(ctx, owner, p.cfg.Lease)
	switch {
	case err == nil:
		if p.cfg.Uploads != nil {
			if done, err := p.cfg.Uploads.RunUpload(ctx, b, owner); done || err != nil {
				return true, err
			}
		}
		p.runGuarded(ctx, b, owner)
		return true, nil
	case errs.Is(err, errs.NotFound):
		return false, nil
	}
	return false, err
}

// sweepLoop sweeps at once and then every SweepEvery.
func (p *Pool) sweepLoop(ctx context.Context) {
	t := time.NewTicker(p.cfg.SweepEvery)
	defer t.Stop()
	for {
		if err := p.Sweep(ctx); err != nil && ctx.Err() == nil {
			p.logger.Warn("sweeping stale builds", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Sweep finishes as failed the running builds whose lease expired or that
// ran far past their time limit, and drops
// started sync tasks whose lease expired. docsd calls it on start and the
// sweeper every minute.
func (p *Pool) Sweep(ctx context.Context) error {
	ids, err := p.store.SweepStaleBuilds(ctx, p.cfg.BuildTimeLimit)
	if len(ids) > 0 {
		p.logger.Warn("finished stale builds", "builds", ids)
	}
	n, serr := p.store.SweepStaleSyncTasks(ctx)
	if n > 0 {
		p.logger.Warn("dropped stale sync tasks", "count", n)
	}
	return errors.Join(err, serr)
}

// toolTTL is how long a tool found in an environment kind is trusted.
const toolTTL = 5 * time.Minute

// toolKnown reports whether tool was recently found to run in an
// environment of kind envKind with nothing installed into it.
func (p *Pool) toolKnown(tool, envKind string) bool {
	p.toolsMu.Lock()
	defer p.toolsMu.Unlock()
	at, ok := p.tools[tool+"\x00"+envKind]
	return ok && time.Since(at) < toolTTL
}

func (p *Pool) rememberTool(tool, envKind string) {
	p.toolsMu.Lock()
	defer p.toolsMu.Unlock()
	if p.tools == nil {
		p.tools = map[string]time.Time{}
	}
	p.tools[tool+"\x00"+envKind] = time.Now()
}

// RemoveProject deletes the project's checkout, environments and other
// working files (its hosted files are the artifact storage's).
func (p *Pool) RemoveProject(slug string) error {
	if slug == "" || slug == "." || slug == ".." || filepath.Base(slug) != slug {
		return nil
	}
	var errList []error
	for _, d := range []string{"checkouts", "envs", "homes", "conda"} {
		errList = append(errList, os.RemoveAll(filepath.Join(p.cfg.DataDir, d, slug)))
	}
	return errors.Join(errList...)
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b) // never fails (crypto/rand)
	return hex.EncodeToString(b)
}
