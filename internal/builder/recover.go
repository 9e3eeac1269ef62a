package builder

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"docsd/store"
)

// errPanic is the error of a build whose pipeline panicked: docsd's own
// fault, so the build ends with the internal-error message
// and the worker goes on with the next build.
var errPanic = errors.New("builder: panic")

// recovered runs f and turns a panic in it into an error wrapping
// errPanic; the panic's value and stack go to the log.
func (j *job) recovered(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			j.logger.Error("build panicked", "panic", j.mask.Mask(fmt.Sprint(r)), "stack", string(debug.Stack()))
			err = fmt.Errorf("%w: %v", errPanic, r)
		}
	}()
	return f()
}

// runGuarded runs a claimed build with execute and recovers a panic that
// escaped it (execute's own recovery covers the pipeline; this one covers
// the rest), so that the worker lives on. A build still held by owner is
// then finished as failed with the internal-error message.
func (p *Pool) runGuarded(ctx context.Context, b *store.Build, owner string) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		p.logger.Error("worker recovered from a panic", "build", b.ID, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
		wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		cur, err := p.store.FindBuildByID(wctx, b.ID)
		if err != nil || cur.State == store.Finished || cur.LeaseOwner == nil || *cur.LeaseOwner != owner {
			return
		}
		res := store.BuildResult{Error: fmt.Sprintf(MsgInternalFormat, b.ID), ErrorID: IDInternal, ExitCode: ptr(1)}
		if _, err := p.store.FinishBuild(wctx, b.ID, res); err != nil {
			p.logger.Warn("finishing a build after a panic", "build", b.ID, "err", err)
		}
	}()
	p.execute(ctx, b, owner)
}

// syncGuarded runs a claimed sync task with executeSync and recovers a
// panic that escaped it; the task is dropped by the sweeper when its
// lease expires.
func (p *Pool) syncGuarded(ctx context.Context, t *store.SyncTask, owner string) {
	defer func() {
		if r := recover(); r != nil {
			p.logger.Error("worker recovered from a panic", "sync_task", t.ID, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
		}
	}()
	p.executeSync(ctx, t, owner)
}
