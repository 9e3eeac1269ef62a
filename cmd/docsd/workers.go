package main

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"docsd/internal/access"
	"docsd/internal/builder"
	"docsd/internal/docsurl"
	"docsd/internal/webhook"
	"docsd/store"
)

// newPool makes the build pool from the settings. It runs nothing until
// startWorkers; until then Wake is harmless.
func (a *app) newPool() *builder.Pool {
	s := a.settings
	return builder.New(a.store, a.artifacts, builder.Config{
		DataDir:                 filepath.Join(s.DataDir, "builds"),
		BuildTimeLimit:          time.Duration(s.BuildTimeLimit) * time.Second,
		GitCloneDepth:           s.GitCloneDepth,
		BuildPython:             s.BuildPython,
		InstallCoreRequirements: s.InstallCoreRequirements,
		AllowPrivateRepos:       s.AllowPrivateRepos,
		AllowLocalRepos:         s.AllowLocalRepos,
		BuildImagePrefix:        s.BuildImagePrefix,
		BuildTools:              s.buildTools,
		BuildToolsStrict:        s.BuildToolsStrict,
		PublicURL:               s.PublicURL,
		CanonicalURL:            a.canonicalURL,
		Sandbox:                 s.BuildSandbox,
		SandboxHide:             append([]string{s.DataDir}, sqliteFiles(s.DatabaseURL)...),
		Limits:                  buildLimits(s),
		Network:                 s.BuildNetwork,
		Pasta:                   s.BuildPasta,
		AllowPrivateNetwork:     s.AllowPrivateNetwork,
		PackageIndexURL:         s.PackageIndexURL,
		PackageExtraIndexURLs:   s.packageExtraIndexURLs,
		PackageTrustedHosts:     s.packageTrustedHosts,
		OfflineBuilds:           s.OfflineBuilds,
		Published:               a.indexer.Published,
		Uploads:                 a.uploads.processor,
		SSHKnownHosts:           s.SSHKnownHosts,
		RepositoryCAFile:        s.RepositoryCAFile,
		CredentialsDir:          filepath.Join(s.DataDir, "tmp"),
		Audit:                   a.audit,
	}, a.logger)
}

// canonicalURL is READTHEDOCS_CANONICAL_URL: the
// version's docs URL, for the project's own namespace.
func (a *app) canonicalURL(p *store.Project, v *store.Version) string {
	return a.urls().Docs(docsurl.Target{Slug: p.Slug, Language: p.Language, Scheme: p.VersioningScheme}, v.Slug, "")
}

// sqliteFiles are the files of a SQLite database URL (as store.Open reads
// it), which build commands must not see; none for PostgreSQL.
func sqliteFiles(databaseURL string) []string {
	if strings.HasPrefix(databaseURL, "postgres://") || strings.HasPrefix(databaseURL, "postgresql://") {
		return nil
	}
	path := strings.TrimPrefix(strings.TrimPrefix(databaseURL, "sqlite://"), "file:")
	path, _, _ = strings.Cut(path, "?")
	if path == "" {
		return nil
	}
	return []string{path, path + "-wal", path + "-shm", path + "-journal"}
}

// startWorkers finishes the builds whose workers died (always, even with
// no workers here: that happens on every service start), starts the build
// notification sender, then n in-process build workers and the stale-build
// sweeper. The returned
// function stops them: a running build is killed and queued again.
func (a *app) startWorkers(ctx context.Context, n int) (func(), error) {
	if err := a.pool.Sweep(ctx); err != nil {
		return nil, err
	}
	go a.collectLoop(ctx, time.Minute)
	go a.upgradeSearchIndex(ctx)
	stopNotifications, err := a.startNotifications(ctx)
	if err != nil {
		return nil, err
	}
	if n <= 0 {
		return stopNotifications, nil
	}
	a.pool.Start(ctx, n)
	go a.uploads.processor.SweepLoop(ctx, time.Minute)
	return func() { a.pool.Stop(); stopNotifications() }, nil
}

// webhooks is the incoming-webhook handler, mounted at
// /api/v2/webhook/.
func (a *app) webhooks() http.Handler {
	return &webhook.Handler{
		Store:     a.store,
		Artifacts: a.artifacts,
		Authenticate: func(ctx context.Context, header string) (*store.User, error) {
			v, err := access.Authenticate(ctx, a.store, header)
			return v.User, err
		},
		Wake:   a.buildQueued,
		Logger: a.logger,
	}
}
