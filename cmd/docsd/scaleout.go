package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"docsd/internal/artifacts"
	"docsd/internal/hosting"
	"docsd/internal/notify"
	"docsd/store"
)

// resolveArtifacts checks the artifact storage settings and reads the S3
// credentials from the standard AWS variables.
func (s *Settings) resolveArtifacts() error {
	if s.ArtifactsURL == "" {
		return nil
	}
	if _, _, err := artifacts.ParseS3URL(s.ArtifactsURL); err != nil {
		return fmt.Errorf("--artifacts-url: %v", err)
	}
	s.s3AccessKey, s.s3SecretKey = os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY")
	if s.s3AccessKey == "" || s.s3SecretKey == "" {
		return fmt.Errorf("--artifacts-url %s needs the bucket's credentials in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY", s.ArtifactsURL)
	}
	return nil
}

// newArtifacts opens artifact storage: the data directory, or the S3
// bucket, whose changes are announced to the other nodes.
func (a *app) newArtifacts() (artifacts.Backend, error) {
	s := a.settings
	if s.ArtifactsURL == "" {
		return artifacts.NewLocal(filepath.Join(s.DataDir, "artifacts"))
	}
	b, err := artifacts.NewS3(artifacts.S3Config{URL: s.ArtifactsURL, Endpoint: s.S3Endpoint, Region: s.S3Region,
		AccessKey: s.s3AccessKey, SecretKey: s.s3SecretKey, CacheDir: filepath.Join(s.DataDir, "artifacts-cache")}, a.store)
	if err != nil {
		return nil, err
	}
	b.Changed = func(ctx context.Context, project, version string) {
		a.signal(ctx, notify.DocsChanged, project+"/"+version)
	}
	return b, nil
}

// newNotifier returns the signals between nodes: LISTEN/NOTIFY on
// PostgreSQL, in process on SQLite.
func (a *app) newNotifier() (notify.Notifier, error) {
	if a.store.Dialect() == store.Postgres {
		return notify.NewPostgres(a.settings.DatabaseURL, a.logger)
	}
	return notify.NewLocal(), nil
}

// subscribe makes this node act on signals: a queued build wakes its
// workers; written builds wake its live build subscriptions; changed docs
// clean its cache of S3 trees.
func (a *app) subscribe() error {
	if err := a.notifier.Subscribe(notify.BuildQueued, func(string) { a.pool.Wake() }); err != nil {
		return err
	}
	if err := a.notifier.Subscribe(notify.BuildChanged, func(string) { a.liveBuilds.Signal() }); err != nil {
		return err
	}
	s3, ok := a.artifacts.(*artifacts.S3)
	if !ok {
		return nil
	}
	return a.notifier.Subscribe(notify.DocsChanged, func(payload string) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		project, version, ok := strings.Cut(payload, "/")
		if !ok {
			s3.ForgetAll(ctx) // signals may have been lost
			return
		}
		s3.Forget(ctx, project, version)
	})
}

// servedChanged tells every other node, after a commit, that rows their
// docs hosts cache changed (this node's own docs host has already
// forgotten them, hosting.New). It outlives the writing request: the
// signal must go even when the writer's reader has left.
func (a *app) servedChanged(ctx context.Context, tables []string) {
	if !hosting.Serves(tables) {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	a.signal(ctx, notify.ServedChanged, "")
}

// buildsChanged tells every node, this one included, after a commit that
// wrote builds or their commands (a worker's progress, wherever it runs),
// so that their live build subscriptions look at once.
func (a *app) buildsChanged(ctx context.Context, tables []string) {
	if !slices.Contains(tables, "builds") && !slices.Contains(tables, "build_commands") {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	a.signal(ctx, notify.BuildChanged, "")
}

// otherProcessesEvery is how often a SQLite node looks for commits of
// other processes on its database file.
const otherProcessesEvery = time.Second

// watchOtherProcesses makes commits of other processes on a SQLite file
// (`docsd project privacy …` while `docsd serve` runs) empty the docs
// cache within about otherProcessesEvery: they reach no hook of this
// process. PostgreSQL nodes hear of each other's commits by
// servedChanged.
func (a *app) watchOtherProcesses() {
	if a.stopWatching != nil || a.store.Dialect() != store.SQLite {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	a.stopWatching = func() { cancel(); <-done }
	go func() {
		defer close(done)
		a.store.WatchCommits(ctx, otherProcessesEvery, func() { a.signal(ctx, notify.ServedChanged, "") })
	}()
}

// buildQueued wakes this node's workers and tells every other node's.
func (a *app) buildQueued() {
	a.pool.Wake()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	a.signal(ctx, notify.BuildQueued, "")
}

// signal sends a signal to every node; a failure is logged (workers still
// poll, and caches only hold immutable trees).
func (a *app) signal(ctx context.Context, channel, payload string) {
	if err := a.notifier.Notify(ctx, channel, payload); err != nil {
		a.logger.WarnContext(ctx, "sending a signal to the other nodes", "channel", channel, "err", err)
	}
}

// collectLoop deletes retired S3 trees whose grace period is over, until
// ctx ends (publishes also collect; this catches removals and quiet times).
func (a *app) collectLoop(ctx context.Context, every time.Duration) {
	s3, ok := a.artifacts.(*artifacts.S3)
	if !ok {
		return
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := s3.Collect(ctx); err != nil && ctx.Err() == nil {
				a.logger.WarnContext(ctx, "deleting retired docs from the bucket", "err", err)
			}
		}
	}
}
