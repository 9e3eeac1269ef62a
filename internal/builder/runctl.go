package builder

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"docsd/internal/errs"
	"docsd/store"
)

// errCancelled ends a build a maintainer cancelled (store.CancelBuild).
var errCancelled = errors.New("build cancelled")

// cancelPollEvery is how often a worker asks the store whether the build
// it runs was cancelled: a cancel asked through another process (`docsd
// worker`, the admin CLI) is seen within it.
const cancelPollEvery = time.Second

// watchCancel polls the store every cancelPollEvery until the returned
// function is called; when the build's cancel was requested, it cancels
// the job with errCancelled, which kills the running command's process
// tree at once.
func (p *Pool) watchCancel(ctx context.Context, id int64, cancel context.CancelCauseFunc) func() {
	return every(ctx, cancelPollEvery, func() bool {
		requested, err := p.store.BuildCancelRequested(ctx, id)
		if err != nil {
			if ctx.Err() == nil {
				p.logger.Warn("checking for a cancel", "build", id, "err", err)
			}
			return true
		}
		if requested {
			cancel(errCancelled)
			return false
		}
		return true
	})
}

// every calls fn every period, on a goroutine of its own, until fn
// returns false, ctx ends or the returned function is called; that
// function waits for a call in progress to end.
func every(ctx context.Context, period time.Duration, fn func() bool) func() {
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				if !fn() {
					return
				}
			}
		}
	}()
	return func() {
		close(done)
		<-stopped
	}
}

// cancelRequested reports whether the build's cancel was requested; it
// is checked once more right before publishing, so that a build cancelled
// in its last second publishes nothing.
func (j *job) cancelRequested(ctx context.Context) error {
	requested, err := j.pool.store.BuildCancelRequested(ctx, j.build.ID)
	if err != nil {
		return err
	}
	if requested {
		return errCancelled
	}
	return nil
}

// runEnd fills res for the ends of a build other than its commands' exit
// codes: cancelled, requeued because docsd is shutting down, stopped by a
// limit, timed out.
// It reports whether it handled err; requeued is true when the build went
// back to the queue and must not be finished.
func (j *job) runEnd(ctx context.Context, err error, res *store.BuildResult) (handled, requeued bool) {
	cause := context.Cause(ctx)
	var lim *limitError
	switch {
	case errors.Is(cause, errCancelled) || errors.Is(err, errCancelled):
		res.Error, res.ErrorID, res.ExitCode = store.CancelledMessage, store.CancelledErrorID, nil
		j.logger.Info("build cancelled")
	case errors.Is(cause, errStopping) || errors.Is(cause, context.Canceled):
		if j.requeue(ctx) {
			return true, true
		}
		res.Error, res.ErrorID = fmt.Sprintf(MsgInternalFormat, j.build.ID), IDInternal
		j.logger.Warn("build stopped with its worker")
	case errors.Is(cause, errTimeLimit) || errors.Is(err, errTimeLimit):
		res.Error, res.ErrorID = MsgTimeout, IDTimeOut
	case errors.As(err, &lim):
		res.Error, res.ErrorID = lim.Error(), lim.errorID
		if lim.name == "disk" {
			// The checkout is only a cache; emptying it frees the disk
			// for docsd's own writes, and the next build clones again.
			if rerr := os.RemoveAll(j.ckout); rerr != nil {
				j.logger.Warn("removing the checkout of a build over its disk limit", "err", rerr)
			}
		}
	default:
		return false, false
	}
	return true, false
}

// requeue puts the build back in the queue after docsd's own shutdown
// stopped it (its processes are dead by now), so that the next worker
// runs it again. It reports whether it did.
func (j *job) requeue(ctx context.Context) bool {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err := j.pool.store.RequeueBuild(wctx, j.build.ID, j.owner); err != nil {
		j.logger.Warn("requeueing a build stopped by shutdown", "err", err)
		return errs.Is(err, errs.Conflict) // someone else's now: nothing to finish
	}
	j.logger.Info("build stopped by shutdown; queued again")
	j.pool.observe(j.build.ID, store.Triggered)
	return true
}

// finishRetrying writes the build's result, retrying for up to half a
// lease while the store fails (a full disk that the build's removal is
// freeing, a database restarting), so that the build does not stay
// running until the sweeper finds it.
func (j *job) finishRetrying(ctx context.Context, res store.BuildResult) error {
	deadline := time.Now().Add(j.pool.cfg.Lease / 2)
	for {
		wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		_, err := j.pool.store.FinishBuild(wctx, j.build.ID, res)
		cancel()
		if err == nil || errs.Is(err, errs.Conflict) || errs.Is(err, errs.NotFound) || time.Now().After(deadline) {
			return err
		}
		j.logger.Warn("finishing build; retrying", "err", err)
		time.Sleep(time.Second)
	}
}
