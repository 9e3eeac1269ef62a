package upload

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"docsd/internal/artifacts"
	"docsd/internal/builder"
	"docsd/internal/errs"
	"docsd/store"
)

// Archives is the storage archives are read from and removed in.
type Archives interface {
	// Fetch copies the archive of key to the local file dst.
	Fetch(ctx context.Context, key, dst string) error
	// Remove deletes the archive of key, if any.
	Remove(ctx context.Context, key string) error
}

// Processor turns a completed upload's archive into the version's hosted
// docs. Workers hand it every build they claim (RunUpload); it runs the
// ones the upload API created.
type Processor struct {
	Store     *store.Store
	Artifacts artifacts.Storage
	Archives  Archives
	Limits    Limits
	// WorkDir holds each build's extraction while it is processed.
	WorkDir string
	// Lease and RenewEvery are the workers' build lease settings.
	Lease, RenewEvery time.Duration
	// TimeLimit is build_time_limit; a project's own limit wins. 0: none.
	TimeLimit time.Duration
	// Published, when set, is called once the version's uploaded docs are
	// published and the version marked built: it indexes them for search,
	// as the build pool's hook of the same name does for built docs.
	Published func(ctx context.Context, p *store.Project, v *store.Version, configJSON string)
	Logger    *slog.Logger
}

// MaxAge is how long after its creation an upload build may stay
// unfinished before the sweeper fails it.
const MaxAge = 6 * time.Hour

// Step outputs (RTD's texts).
const (
	cmdDownload = "Downloading artifacts from storage"
	cmdExtract  = "Extracting artifacts"
	cmdValidate = "Validating artifacts"
	cmdSync     = "Syncing artifacts to storage"
)

// failure is a step that failed: the output recorded for its command, and
// the build's error and message id.
type failure struct {
	output, msg, id string
}

func (f *failure) Error() string { return f.msg }

// internalFailure is a failure of docsd itself at a step.
func internalFailure(output string, buildID int64) *failure {
	return &failure{output: output, id: "build:app:generic-with-build-id",
		msg: fmt.Sprintf("There was a problem with docsd while building your documentation. Please try again later. However, if this problem persists, please report this to us with your build id (%d).", buildID)}
}

// RunUpload processes b when the upload API created it and reports whether
// it did; any other build is left to the caller. b was claimed by owner
// (state cloning).
func (p *Processor) RunUpload(ctx context.Context, b *store.Build, owner string) (bool, error) {
	u, err := p.Store.FindUploadByBuildID(ctx, b.ID)
	if errs.Is(err, errs.NotFound) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go p.renew(ctx, b.ID, owner)
	if limit := p.timeLimit(ctx, b); limit > 0 {
		var stop context.CancelFunc
		ctx, stop = context.WithTimeout(ctx, limit)
		defer stop()
	}
	work := filepath.Join(p.WorkDir, fmt.Sprintf("upload-%d", b.ID))
	defer os.RemoveAll(work)
	res := store.BuildResult{Success: true, ExitCode: ptr(0)}
	if err := p.process(ctx, b, u, work); err != nil {
		var f *failure
		switch {
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			f = &failure{msg: builder.MsgTimeout, id: "build:user:time-out"}
		case !errors.As(err, &f):
			f = internalFailure("", b.ID)
			p.logger().Error("upload processing failed inside docsd", "build", b.ID, "err", err)
		}
		res = store.BuildResult{Error: f.msg, ErrorID: f.id, ExitCode: ptr(1)}
	}
	wctx, wcancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer wcancel()
	if _, err := p.Store.FinishUpload(wctx, b.ID, res, false); err != nil && !errs.Is(err, errs.Conflict) {
		return true, err
	}
	return true, p.Archives.Remove(wctx, u.StorageKey)
}

// timeLimit is the build time limit of b's project.
func (p *Processor) timeLimit(ctx context.Context, b *store.Build) time.Duration {
	if proj, err := p.Store.FindProjectByID(ctx, b.ProjectID); err == nil && proj.BuildTimeLimit != nil && *proj.BuildTimeLimit > 0 {
		return time.Duration(*proj.BuildTimeLimit) * time.Second
	}
	return p.TimeLimit
}

// process runs the four recorded steps.
func (p *Processor) process(ctx context.Context, b *store.Build, u *store.Upload, work string) error {
	if err := os.MkdirAll(work, 0o700); err != nil {
		return err
	}
	archive := filepath.Join(work, "artifacts.zip")
	err := p.Archives.Fetch(ctx, u.StorageKey, archive)
	if err := p.step(ctx, b, cmdDownload, "Artifacts downloaded from storage.", err,
		internalFailure("Unexpected error downloading artifacts from storage. Try again later.", b.ID)); err != nil {
		return err
	}
	if err := p.Store.SetBuildState(ctx, b.ID, store.Building); err != nil {
		return err
	}
	tree := filepath.Join(work, "tree")
	err = extract(archive, tree, p.Limits)
	const extractFailed = "Unexpected error extracting artifacts. Check your build artifacts are valid."
	if err := p.step(ctx, b, cmdExtract, "Artifacts extracted.", err, classified(err, extractFailed, b.ID, func(inv *invalid) *failure {
		return &failure{output: extractFailed, msg: inv.msg, id: inv.id}
	})); err != nil {
		return err
	}
	files, err := fileEntries(archive)
	var l *layout
	if err == nil {
		l, err = validate(tree, files)
	}
	if err := p.step(ctx, b, cmdValidate, "Artifacts validated successfully.", err, classified(err, "", b.ID, func(inv *invalid) *failure {
		return &failure{output: inv.msg, msg: inv.msg, id: inv.id}
	})); err != nil {
		return err
	}
	err = p.publish(ctx, b, l)
	return p.step(ctx, b, cmdSync, "Artifacts synced to storage.", err,
		internalFailure("Unexpected error syncing artifacts to storage. Try again later.", b.ID))
}

// step records a step's command: its success output, or the failure's
// output when err is set. It returns the failure (f when given, else err).
func (p *Processor) step(ctx context.Context, b *store.Build, command, ok string, err error, f *failure) error {
	start := time.Now()
	output, code := ok, 0
	if err != nil {
		code = 1
		if f != nil {
			output = f.output
		}
	}
	end := time.Now()
	if _, rerr := p.Store.AddBuildCommand(ctx, store.BuildCommand{BuildID: b.ID, Command: command, Output: output,
		ExitCode: &code, StartTime: start, EndTime: &end}); rerr != nil {
		return rerr
	}
	if err == nil || f == nil {
		return err
	}
	if !errors.As(err, new(*invalid)) {
		p.logger().Error("upload step failed inside docsd", "build", b.ID, "step", command, "err", err)
	}
	return f
}

// classified is the failure of a step whose error is either an archive
// problem (the user's: failure with the archive's message) or docsd's own
// (internal). It is nil when err is.
func classified(err error, output string, buildID int64, user func(*invalid) *failure) *failure {
	var inv *invalid
	switch {
	case err == nil:
		return nil
	case errors.As(err, &inv):
		return user(inv)
	}
	return internalFailure(output, buildID)
}

// publish replaces the version's docs with the archive's, atomically per
// file set, and marks the version built and uploaded.
func (p *Processor) publish(ctx context.Context, b *store.Build, l *layout) error {
	v, err := p.Store.FindVersionByID(ctx, b.VersionID)
	if err != nil {
		return err
	}
	proj, err := p.Store.FindProjectByID(ctx, b.ProjectID)
	if err != nil {
		return err
	}
	if err := p.Artifacts.PublishHTML(ctx, proj.Slug, v.Slug, l.html); err != nil {
		return err
	}
	for _, format := range formats {
		if file, ok := l.downloads[format]; ok {
			err = p.Artifacts.PublishDownload(ctx, proj.Slug, v.Slug, format, file)
		} else {
			err = p.Artifacts.RemoveDownload(ctx, proj.Slug, v.Slug, format)
		}
		if err != nil {
			return err
		}
	}
	has := func(f string) *bool { _, ok := l.downloads[f]; return &ok }
	v, err = p.Store.UpdateVersion(ctx, v.ID, store.VersionUpdate{Built: ptr(true), Uploaded: ptr(true),
		HasHTMLZip: has("htmlzip"), HasPDF: has("pdf"), HasEPUB: has("epub")})
	if err != nil {
		return err
	}
	if p.Published != nil {
		p.Published(ctx, proj, v, b.Config)
	}
	return nil
}

// renew extends the build's lease every RenewEvery until ctx ends.
func (p *Processor) renew(ctx context.Context, buildID int64, owner string) {
	every := p.RenewEvery
	if every <= 0 {
		every = time.Minute
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := p.Store.ExtendBuildLease(ctx, buildID, owner, p.Lease); err != nil && ctx.Err() == nil {
				p.logger().Warn("extending upload build lease", "build", buildID, "err", err)
			}
		}
	}
}

// Sweep fails the uploads that expired: pending ones past upload_url_ttl
// and queued ones unfinished MaxAge after creation, with the inactivity
// error, and discards their archives.
func (p *Processor) Sweep(ctx context.Context) error {
	ups, err := p.Store.ExpiredUploads(ctx, MaxAge)
	if err != nil {
		return err
	}
	for _, u := range ups {
		_, err := p.Store.FinishUpload(ctx, u.BuildID, store.BuildResult{Error: store.InactivityMessage(u.BuildID), ErrorID: store.InactivityErrorID}, false)
		if err != nil && !errs.Is(err, errs.Conflict) {
			return err
		}
		if err := p.Archives.Remove(ctx, u.StorageKey); err != nil {
			return err
		}
	}
	return nil
}

// SweepLoop runs Sweep every interval until ctx ends.
func (p *Processor) SweepLoop(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if err := p.Sweep(ctx); err != nil && ctx.Err() == nil {
			p.logger().Warn("sweeping expired uploads", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (p *Processor) logger() *slog.Logger {
	if p.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return p.Logger
}

func ptr[T any](v T) *T { return &v }
