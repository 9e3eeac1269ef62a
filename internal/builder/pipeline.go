package builder

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"docsd/internal/errs"
	"docsd/internal/rtdconfig"
	"docsd/store"
)

// runBuild runs a claimed build to its end and finishes it, unless its
// lease was lost: then another party finished it and
// nothing is written.
func (p *Pool) runBuild(ctx context.Context, b *store.Build, owner string) {
	logger := p.logger.With("build", b.ID, "project_id", b.ProjectID)
	j := &job{pool: p, build: b, logger: logger, owner: owner}
	defer j.closeNet()
	p.observe(b.ID, b.State)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	err := j.recovered(func() error { return j.load(ctx) })
	if err == nil && j.project.Skip {
		err = fail(MsgSkip)
	}
	if err == nil {
		limit := p.cfg.BuildTimeLimit
		if j.project.BuildTimeLimit != nil && *j.project.BuildTimeLimit > 0 {
			limit = time.Duration(*j.project.BuildTimeLimit) * time.Second
		}
		started := time.Now()
		if b.Started != nil {
			started = *b.Started
		}
		var stopTimer context.CancelFunc
		ctx, stopTimer = p.timeLimit(ctx, started.Add(limit))
		defer stopTimer()
		stopRenewing := p.renewLease(ctx, cancel, func(ctx context.Context) error {
			return p.store.ExtendBuildLease(ctx, b.ID, owner, p.cfg.Lease)
		})
		stopWatching := p.watchCancel(ctx, b.ID, cancel)
		err = j.recovered(func() error { return j.pipeline(ctx, owner) })
		stopWatching()
		stopRenewing()
	}
	j.finish(ctx, err)
}

// renewLease extends a lease every RenewEvery until the returned function
// is called. When the lease is lost, it cancels the job with errLeaseLost,
// which kills the running command's process tree at once: when the store
// says the lease is someone else's, and when no extension succeeded for a
// whole Lease (the store is unreachable), since by then the sweeper may
// have finished the build.
func (p *Pool) renewLease(ctx context.Context, cancel context.CancelCauseFunc, extend func(context.Context) error) func() {
	held := time.Now() // the lease is ours until held + Lease
	return every(ctx, p.cfg.RenewEvery, func() bool {
		attempt := time.Now()
		err := extend(ctx)
		switch {
		case err == nil:
			held = attempt
		case errs.Is(err, errs.Conflict):
			cancel(errLeaseLost)
			return false
		case ctx.Err() != nil:
			return false
		case time.Since(held) >= p.cfg.Lease:
			p.logger.Warn("lease expired: no extension succeeded for a whole lease; stopping", "err", err)
			cancel(errLeaseLost)
			return false
		default:
			p.logger.Warn("extending lease", "err", err)
		}
		return true
	})
}

// load reads the build's project, version and variables and prepares the
// job's directories.
func (j *job) load(ctx context.Context) error {
	var err error
	if j.project, err = j.pool.store.FindProjectByID(ctx, j.build.ProjectID); err != nil {
		return err
	}
	if j.version, err = j.pool.store.FindVersionByID(ctx, j.build.VersionID); err != nil {
		return err
	}
	if j.stableFollows, err = j.findStableFollows(ctx); err != nil {
		return err
	}
	// Every value is masked in every build, and so are the credentials
	// of the package index URLs; a pull-request build is given only the
	// public variables.
	all, _, err := j.pool.store.FindEnvironmentVariables(ctx, j.project.ID, store.Page{})
	if err != nil {
		return err
	}
	values := make([]string, len(all))
	for i, v := range all {
		values[i] = v.Value
		if v.Public || j.version.Type != store.External {
			j.vars = append(j.vars, v)
		}
	}
	j.mask = newMasker(append(values, j.pool.cfg.indexSecrets()...))
	j.logger = j.logger.With("project", j.project.Slug, "version", j.version.Slug)
	j.setDirs()
	return nil
}

// setDirs names the job's directories under the data directory.
func (j *job) setDirs() {
	data := j.pool.cfg.DataDir
	j.ckout = filepath.Join(data, "checkouts", j.project.Slug)
	j.home = filepath.Join(data, "homes", j.project.Slug)
	if j.version != nil {
		j.envDir = filepath.Join(data, "envs", j.project.Slug, j.version.Slug)
	}
}

// prepareDirs creates the checkout directory and a fresh HOME.
func (j *job) prepareDirs() error {
	if err := resetDir(j.home); err != nil {
		return err
	}
	if j.pool.cfg.AllowLocalRepos {
		// git refuses local repositories of another user (the sandbox runs
		// git as nobody), and only reads safe.directory from the global
		// configuration in the process that serves a file:// clone. The
		// operator allowed local repositories.
		if err := os.WriteFile(filepath.Join(j.home, ".gitconfig"), []byte("[safe]\n\tdirectory = *\n"), 0o644); err != nil {
			return err
		}
	}
	return os.MkdirAll(j.ckout, 0o755)
}

// pipeline is the cloning, installing and building steps and publishing.
func (j *job) pipeline(ctx context.Context, owner string) error {
	s := j.pool.store
	internal := j.version.Type != store.External

	// Cloning (the claim moved the build to `cloning`). The repository's
	// credentials last until the submodules are checked out, never into
	// the installing and building steps.
	if err := j.prepareDirs(); err != nil {
		return err
	}
	defer j.closeRepoAccess(ctx)
	branch, err := j.getCode(ctx)
	if err != nil {
		return err
	}
	if internal {
		if err := j.recordDefaultBranch(ctx, branch); err != nil {
			return err
		}
	}
	if err := j.checkout(ctx, j.checkoutRef(ctx, j.version.Identifier)); err != nil {
		return err
	}
	if internal {
		if err := j.syncVersions(ctx); err != nil {
			return err
		}
	}
	commit, err := j.headCommit(ctx)
	if err != nil {
		return err
	}
	j.commit = commit
	if err := s.SetBuildCommit(ctx, j.build.ID, commit); err != nil {
		return err
	}
	cfg, err := j.configure(ctx)
	if err != nil {
		return err
	}
	if err := j.updateSubmodules(ctx, cfg.Submodules); err != nil {
		return err
	}
	j.closeRepoAccess(ctx)
	var out *outputs
	if cfg.Current != nil {
		out, err = j.currentPipeline(ctx, cfg)
	} else {
		out, err = j.legacyPipeline(ctx, cfg)
	}
	if err != nil {
		return err
	}

	// Publishing, only while the build is still ours and not cancelled.
	if err := j.cancelRequested(ctx); err != nil {
		return err
	}
	if err := s.ExtendBuildLease(ctx, j.build.ID, owner, j.pool.cfg.Lease); err != nil {
		if errs.Is(err, errs.Conflict) {
			return errLeaseLost
		}
		return err
	}
	if err := j.publish(ctx, out); err != nil {
		return err
	}
	if internal && j.pool.cfg.Published != nil {
		j.pool.cfg.Published(ctx, j.project, j.version, cfg.JSON())
	}
	if internal && cfg.Doctype != doctypeGeneric {
		return s.RecordBuildFacts(ctx, j.project.ID, nil, &cfg.Doctype)
	}
	return nil
}

// legacyPipeline installs and builds for a legacy file (version 1, or
// version 2 without the current build keys) or no file: the environment,
// the requirements, then HTML and the formats.
func (j *job) legacyPipeline(ctx context.Context, cfg *BuildConfig) (*outputs, error) {
	if err := j.setState(ctx, store.Installing); err != nil {
		return nil, err
	}
	if err := j.prepareEnv(ctx, cfg); err != nil {
		return nil, err
	}
	if err := j.install(ctx, cfg); err != nil {
		return nil, err
	}
	if err := j.setState(ctx, store.Building); err != nil {
		return nil, err
	}
	return j.buildDocs(ctx, cfg)
}

// setState moves the build to its next state.
func (j *job) setState(ctx context.Context, state string) error {
	if err := j.pool.store.SetBuildState(ctx, j.build.ID, state); err != nil {
		return err
	}
	j.pool.observe(j.build.ID, state)
	return nil
}

// recordDefaultBranch stores the repository's default branch, as git
// found it after the clone or fetch, and re-reads the version, whose
// identifier follows it for a machine `latest`.
func (j *job) recordDefaultBranch(ctx context.Context, branch string) error {
	if branch == "" {
		return nil
	}
	if j.project.DetectedDefaultBranch == nil || *j.project.DetectedDefaultBranch != branch {
		if err := j.pool.store.RecordBuildFacts(ctx, j.project.ID, &branch, nil); err != nil {
			return err
		}
	}
	var err error
	if j.project, err = j.pool.store.FindProjectByID(ctx, j.project.ID); err != nil {
		return err
	}
	if j.version != nil {
		j.version, err = j.pool.store.FindVersionByID(ctx, j.version.ID)
	}
	return err
}

// syncVersions turns the repository's refs into versions.
func (j *job) syncVersions(ctx context.Context) error {
	refs, err := j.listRefs(ctx)
	if err != nil {
		return err
	}
	res, err := SyncVersions(ctx, j.pool.store, j.project.ID, refs)
	if err != nil {
		return err
	}
	if len(res.Added)+len(res.Deleted) > 0 || res.Promoted != "" {
		j.logger.Info("versions synced", "added", res.Added, "deleted", res.Deleted, "stable", res.Promoted, "builds", len(res.Builds))
	}
	if len(res.Builds) > 0 {
		j.pool.Wake()
	}
	return nil
}

// publish makes the build's output the version's: the HTML replaces the
// hosted tree atomically, the downloads are replaced or removed so that
// exactly this build's formats exist, and the version's flags say so.
func (j *job) publish(ctx context.Context, out *outputs) error {
	arts := j.pool.artifacts
	project, version := j.project.Slug, j.version.Slug
	if err := arts.PublishHTML(ctx, project, version, out.html); err != nil {
		return err
	}
	for _, format := range rtdconfig.FormatChoices {
		var err error
		if file, ok := out.downloads[format]; ok {
			err = arts.PublishDownload(ctx, project, version, format, file)
		} else {
			err = arts.RemoveDownload(ctx, project, version, format)
		}
		if err != nil {
			return err
		}
	}
	has := func(f string) *bool { _, ok := out.downloads[f]; return &ok }
	_, err := j.pool.store.UpdateVersion(ctx, j.version.ID, store.VersionUpdate{
		Built: ptr(true), HasHTMLZip: has("htmlzip"), HasPDF: has("pdf"), HasEPUB: has("epub"),
	})
	return err
}

// finish writes the build's result: success, or the failure's message,
// id and exit code. A build whose lease
// was lost is left to whoever took it; a build deleted while it ran (with
// its project or version) has nothing to write to.
func (j *job) finish(ctx context.Context, err error) {
	cause := context.Cause(ctx)
	leaseLost := errors.Is(err, errLeaseLost) || errors.Is(cause, errLeaseLost)
	if (leaseLost || errs.Is(err, errs.NotFound)) && j.deletedWhileRunning(ctx) {
		return
	}
	if leaseLost {
		j.logger.Warn("build lease lost; another worker or the sweeper finished it")
		return
	}
	res := store.BuildResult{Success: true, ExitCode: ptr(0)}
	if err != nil {
		res.Success = false
		res.ExitCode = ptr(1)
		f, isFailure := asFailure(err)
		handled, requeued := j.runEnd(ctx, err, &res)
		switch {
		case requeued:
			return
		case handled:
		case isFailure:
			res.Error, res.ErrorID = f.msg, f.ID()
			if f.fromCommand {
				res.ExitCode = ptr(maxCode(j.exitCodes))
			}
			if f.exitCode != 0 {
				res.ExitCode = ptr(f.exitCode)
			}
		default:
			res.Error, res.ErrorID = fmt.Sprintf(MsgInternalFormat, j.build.ID), IDInternal
			j.logger.Error("build failed inside docsd", "err", j.mask.Mask(fmt.Sprint(err)), "cause", fmt.Sprint(cause))
		}
		res.Error = j.mask.Mask(res.Error)
	}
	if ferr := j.finishRetrying(ctx, res); ferr != nil {
		j.logger.Warn("finishing build", "err", ferr)
		return
	}
	j.pool.observe(j.build.ID, store.Finished)
	if res.Success {
		j.logger.Info("build finished", "success", true)
	} else {
		j.logger.Info("build finished", "success", false, "error", res.Error)
	}
}

// deletedWhileRunning reports whether the build's row is gone, which
// happens when its project (or version) is deleted while it runs: an
// expected race, logged at info, not a failure inside docsd. Its writes
// then fail with NotFound (or its lease cannot be extended).
func (j *job) deletedWhileRunning(ctx context.Context) bool {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if _, err := j.pool.store.FindBuildByID(rctx, j.build.ID); !errs.Is(err, errs.NotFound) {
		return false
	}
	if _, err := j.pool.store.FindProjectByID(rctx, j.build.ProjectID); errs.Is(err, errs.NotFound) {
		j.logger.Info("project deleted during build; nothing to record")
	} else {
		j.logger.Info("version deleted during build; nothing to record")
	}
	return true
}

// maxCode is the highest exit code of the recorded commands (1 when none
// is above zero, which only happens for failures that are not commands).
func maxCode(codes []int) int {
	m := 0
	for _, c := range codes {
		m = max(m, c)
	}
	if m <= 0 {
		return 1
	}
	return m
}

// runSync runs a claimed sync task: fetch the repository and sync its refs
// into versions, recording nothing and using no project
// variables. It always removes the task.
func (p *Pool) runSync(ctx context.Context, t *store.SyncTask, owner string) {
	logger := p.logger.With("sync_task", t.ID, "project_id", t.ProjectID)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	err := func() error {
		project, err := p.store.FindProjectByID(ctx, t.ProjectID)
		if err != nil {
			return err
		}
		if project.Skip {
			return nil
		}
		j := &job{pool: p, project: project, mask: newMasker(p.cfg.indexSecrets()), logger: logger.With("project", project.Slug)}
		defer j.closeNet()
		j.setDirs()
		ctx, stopTimer := context.WithTimeoutCause(ctx, p.cfg.BuildTimeLimit, errTimeLimit)
		defer stopTimer()
		stop := p.renewLease(ctx, cancel, func(ctx context.Context) error {
			return p.store.ExtendSyncTaskLease(ctx, t.ID, owner, p.cfg.Lease)
		})
		defer stop()
		if err := j.prepareDirs(); err != nil {
			return err
		}
		defer j.closeRepoAccess(ctx)
		branch, err := j.getCode(ctx)
		if err != nil {
			return err
		}
		if err := j.recordDefaultBranch(ctx, branch); err != nil {
			return err
		}
		return j.syncVersions(ctx)
	}()
	if err != nil {
		logger.Warn("version sync failed", "err", err, "cause", fmt.Sprint(context.Cause(ctx)))
	}
	if errors.Is(context.Cause(ctx), errLeaseLost) {
		return
	}
	wctx, wcancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer wcancel()
	if err := p.store.FinishSyncTask(wctx, t.ID); err != nil {
		logger.Warn("finishing sync task", "err", err)
	}
}
