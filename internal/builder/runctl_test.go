package builder

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"docsd/internal/errs"
	"docsd/store"
)

// waitFor polls cond until it holds, failing the test after a generous
// deadline.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// setupPyProject imports a project whose setup.py (run with network by
// the install step) is script, beside the Markdown site.
func setupPyProject(t *testing.T, f *fixture, name, script string) (*store.ImportResult, *repo) {
	t.Helper()
	r := newRepo(t, "master")
	files := map[string]string{".readthedocs.yaml": setuptoolsConfig, "setup.py": script}
	for name, content := range markdownSite {
		files[name] = content
	}
	r.commit("docs", files)
	return f.importProject(name, r), r
}

// runInBackground runs the next queued work as worker owner and returns a
// channel closed when it ends.
func runInBackground(f *fixture, owner string) chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.pool.RunNext(context.Background(), owner)
	}()
	return done
}

// TestCancelRunningBuild: a cancel asked through the store (as another
// process would) stops the running build's whole process tree, finishes it
// as cancelled, publishes nothing and lets the next build of the project
// run.
func TestCancelRunningBuild(t *testing.T) {
	f := newFixture(t, store.SQLite, Config{})
	imp, child := sleeperProject(t, f, true)
	done := runInBackground(f, "worker-a")
	waitFile(t, child.started)
	b, err := f.store.CancelBuild(context.Background(), imp.Build.ID)
	if err != nil {
		t.Fatal(err)
	}
	if b.State == store.Finished {
		t.Fatalf("a running build was finished by the store, not its worker")
	}
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the worker kept running a cancelled build")
	}
	child.waitGone(t)
	b = f.build(imp.Build.ID)
	if b.State != store.Finished || b.Success || b.Error != store.CancelledMessage || b.ErrorID != store.CancelledErrorID || b.ExitCode != nil {
		t.Errorf("build: state %s success %v error %q id %q exit %v; want cancelled", b.State, b.Success, b.Error, b.ErrorID, deref(b.ExitCode))
	}
	if v := f.version(imp.Project.ID, "latest"); v.Built {
		t.Errorf("the cancelled build published its version")
	}
	if _, err := f.store.CancelBuild(context.Background(), imp.Build.ID); !errs.Is(err, errs.Conflict) {
		t.Errorf("cancelling a finished build: %v, want a Conflict", err)
	}
	next := f.trigger(f.version(imp.Project.ID, "latest"))
	claimed, err := f.store.ClaimBuild(context.Background(), "worker-b", time.Minute)
	if err != nil || claimed.ID != next.ID {
		t.Fatalf("the next build of the project could not be claimed: %v", err)
	}
}

// TestCancelQueuedBuild: a queued build is finished at once and never runs.
func TestCancelQueuedBuild(t *testing.T) {
	f := newFixture(t, store.SQLite, Config{})
	r := newRepo(t, "master")
	r.commit("docs", markdownSite)
	imp := f.importProject("Queued", r)
	b, err := f.store.CancelBuild(context.Background(), imp.Build.ID)
	if err != nil {
		t.Fatal(err)
	}
	if b.State != store.Finished || b.Success || b.Error != store.CancelledMessage || b.ExitCode != nil {
		t.Errorf("build: state %s success %v error %q exit %v", b.State, b.Success, b.Error, deref(b.ExitCode))
	}
	f.drain()
	if cmds := f.commands(b.ID); len(cmds) != 0 {
		t.Errorf("the cancelled build ran %q", commandLines(cmds))
	}
	if _, err := f.store.CancelBuild(context.Background(), 999999); !errs.Is(err, errs.NotFound) {
		t.Errorf("cancelling an unknown build: %v, want NotFound", err)
	}
}

// TestStopRequeuesTheRunningBuild: stopping the pool (docsd's shutdown)
// kills the running build's processes and puts it back in the queue, and
// the next worker runs it again from the start.
func TestStopRequeuesTheRunningBuild(t *testing.T) {
	f := newFixture(t, store.SQLite, Config{})
	imp, child := sleeperProject(t, f, false)
	f.pool.Start(context.Background(), 2)
	waitFile(t, child.started)
	f.pool.Stop()
	child.waitGone(t)
	b := f.build(imp.Build.ID)
	if b.State != store.Triggered || !b.Success || b.Error != "" || b.LeaseOwner != nil || b.Started != nil {
		t.Fatalf("build: state %s success %v error %q owner %v; want it queued again", b.State, b.Success, b.Error, b.LeaseOwner)
	}
	if cmds := f.commands(b.ID); len(cmds) != 0 {
		t.Errorf("the requeued build kept the commands %q of its interrupted run", commandLines(cmds))
	}
	// The next worker runs it again (and is stopped again by a cancel).
	if err := os.Remove(child.started); err != nil {
		t.Fatal(err)
	}
	done := runInBackground(f, "worker-next")
	waitFile(t, child.started)
	if _, err := f.store.CancelBuild(context.Background(), b.ID); err != nil {
		t.Fatal(err)
	}
	<-done
	child.waitGone(t)
	if b := f.build(b.ID); b.State != store.Finished || b.Error != store.CancelledMessage {
		t.Errorf("rerun: state %s error %q", b.State, b.Error)
	}
}

// TestLiveOutput: the output of a running command is recorded while it
// runs, masked, without an ending that could be the start of a secret.
func TestLiveOutput(t *testing.T) {
	f := newFixture(t, store.SQLite, Config{})
	release := filepath.Join(f.data, "homes", "live", "release")
	script := "import os, sys, time\n" +
		"print('step one of ' + os.environ['SECRET'], flush=True)\n" +
		"sys.stdout.write(os.environ['SECRET'][:5]); sys.stdout.flush()\n" +
		"while not os.path.exists(os.path.join(os.environ['HOME'], 'release')):\n" +
		"    time.sleep(0.05)\n" +
		"print(os.environ['SECRET'][5:] + ' done', flush=True)\n"
	imp, _ := setupPyProject(t, f, "Live", script)
	if _, err := f.store.CreateEnvironmentVariable(context.Background(), imp.Project.ID, "SECRET", "hunter2-secret-value", false); err != nil {
		t.Fatal(err)
	}
	done := runInBackground(f, "worker")
	var live *store.BuildCommand
	waitFor(t, "the running command's output", func() bool {
		for _, c := range f.commands(imp.Build.ID) {
			if strings.Contains(c.Output, "step one") {
				live = c
				return true
			}
		}
		return false
	})
	if live.EndTime != nil || live.ExitCode != nil {
		t.Errorf("the running command has end %v exit %v", live.EndTime, deref(live.ExitCode))
	}
	if live.Output != "step one of ***\n" {
		t.Errorf("live output %q, want the secret masked and its partial start left out", live.Output)
	}
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	<-done
	f.mustSucceed(f.build(imp.Build.ID))
	for _, c := range f.commands(imp.Build.ID) {
		if c.ID == live.ID && (c.Output != "step one of ***\n*** done\n" || c.EndTime == nil || c.ExitCode == nil) {
			t.Errorf("final record %q end %v exit %v", c.Output, c.EndTime, deref(c.ExitCode))
		}
	}
}

// timeLimitWhenSleeping makes builds reach their time limit once the
// sleeper's child runs and its "sleeping" shows in the live output,
// instead of after a fixed time that a busy machine may spend on the steps
// before it.
func timeLimitWhenSleeping(f *fixture, child *sleeper) {
	running := true
	sleeping := func(ctx context.Context) bool {
		if _, err := os.Stat(child.started); err != nil {
			return false
		}
		builds, _, err := f.store.FindBuilds(ctx, store.BuildFilter{Running: &running})
		if err != nil {
			return false
		}
		for _, b := range builds {
			cmds, _ := f.store.FindBuildCommands(ctx, []int64{b.ID})
			for _, c := range cmds {
				if strings.Contains(c.Output, "sleeping") {
					return true
				}
			}
		}
		return false
	}
	f.pool.timeLimit = func(ctx context.Context, _ time.Time) (context.Context, context.CancelFunc) {
		ctx, cancel := context.WithCancelCause(ctx)
		go func() {
			for ctx.Err() == nil {
				if sleeping(ctx) {
					cancel(errTimeLimit)
					return
				}
				time.Sleep(50 * time.Millisecond)
			}
		}()
		return ctx, func() { cancel(context.Canceled) }
	}
}
