package builder

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"sync"
	"testing"
	"time"

	"docsd/internal/storetest"
	"docsd/store"
)

// TestQueueManyWorkersNeverRunABuildTwice runs three pools ("machines"),
// each with its own store connections and four workers, against one
// database holding many builds and sync tasks of a few projects. Every
// build and task runs exactly once, and never two of one project at the
// same time.
func TestQueueManyWorkersNeverRunABuildTwice(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		url := storetest.DatabaseURL(t, d)
		stores := make([]*store.Store, 3)
		for i := range stores {
			s, err := store.Open(ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			stores[i] = s
		}
		s := stores[0]
		user, _ := storetest.MustUser(t, s, "alice")
		const projects, perProject = 8, 8
		total := 0
		for i := 0; i < projects; i++ {
			imp := storetest.MustImport(t, s, user, fmt.Sprintf("Project %d", i), "https://example.com/p.git")
			total++
			for j := 1; j < perProject; j++ {
				if _, err := s.CreateBuild(ctx, imp.Latest, nil); err != nil {
					t.Fatal(err)
				}
				if _, err := s.CreateSyncTask(ctx, imp.Project.ID); err != nil {
					t.Fatal(err)
				}
				total += 2
			}
		}

		var mu sync.Mutex
		runs := map[string]int{}
		running := map[int64]int{}
		var violations []string
		finished := 0
		done := make(chan struct{})
		var pools []*Pool
		// run is one build or sync task of a project: it checks that nothing
		// else of the project runs, works a little, and finishes.
		run := func(ctx context.Context, key string, projectID int64, finish func() error) {
			mu.Lock()
			runs[key]++
			running[projectID]++
			if running[projectID] > 1 {
				violations = append(violations, fmt.Sprintf("%s started while project %d had another build or sync running", key, projectID))
			}
			mu.Unlock()
			time.Sleep(time.Duration(2+rand.IntN(8)) * time.Millisecond)
			mu.Lock()
			running[projectID]--
			mu.Unlock()
			if err := finish(); err != nil {
				t.Errorf("finish %s: %v", key, err)
			}
			// Every idle worker rushes for the project's next piece of work.
			for _, p := range pools {
				p.Wake()
			}
			mu.Lock()
			finished++
			if finished == total {
				close(done)
			}
			mu.Unlock()
		}
		for _, ps := range stores {
			p := New(ps, nil, Config{DataDir: t.TempDir(), PollEvery: 20 * time.Millisecond}, slog.New(slog.DiscardHandler))
			p.execute = func(ctx context.Context, b *store.Build, owner string) {
				run(ctx, fmt.Sprintf("build %d", b.ID), b.ProjectID, func() error {
					_, err := ps.FinishBuild(ctx, b.ID, store.BuildResult{Success: true, ExitCode: ptr(0)})
					return err
				})
			}
			p.executeSync = func(ctx context.Context, task *store.SyncTask, owner string) {
				run(ctx, fmt.Sprintf("sync task %d", task.ID), task.ProjectID, func() error { return ps.FinishSyncTask(ctx, task.ID) })
			}
			pools = append(pools, p)
		}
		for _, p := range pools {
			p.Start(ctx, 4)
		}
		select {
		case <-done:
		case <-time.After(2 * time.Minute):
			t.Errorf("only %d of %d builds ran", finished, total)
		}
		for _, p := range pools {
			p.Stop()
		}
		for _, v := range violations {
			t.Error(v)
		}
		bs, n, err := s.FindBuilds(ctx, store.BuildFilter{})
		if err != nil || n != projects*perProject {
			t.Fatalf("%d builds, %v", n, err)
		}
		for _, b := range bs {
			if key := fmt.Sprintf("build %d", b.ID); runs[key] != 1 || b.State != store.Finished {
				t.Errorf("%s ran %d times, state %s", key, runs[key], b.State)
			}
		}
		if len(runs) != total {
			t.Errorf("%d builds and sync tasks ran, want %d", len(runs), total)
		}
		for key, n := range runs {
			if n != 1 {
				t.Errorf("%s ran %d times", key, n)
			}
		}
	})
}

// TestLeaseExpiry: a worker that died mid-build (it claimed a build and
// never renewed its lease) blocks its project until the lease expires; the
// sweep that docsd runs on start then finishes the build as failed, and
// the project's next build runs.
func TestLeaseExpiry(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		f := newFixture(t, d, Config{})
		clock := storetest.SetClock(f.store, time.Now())
		imp := storetest.MustImport(t, f.store, f.user, "Demo", "https://example.com/demo.git")
		next := f.trigger(imp.Latest)
		dead, err := f.store.ClaimBuild(ctx, "dead-worker", time.Minute)
		if err != nil || dead.ID != imp.Build.ID {
			t.Fatalf("claim: %v, %v", dead, err)
		}
		ran := make(chan int64, 10)
		f.pool.execute = func(ctx context.Context, b *store.Build, owner string) {
			ran <- b.ID
			f.store.FinishBuild(ctx, b.ID, store.BuildResult{Success: true, ExitCode: ptr(0)})
		}
		if did, err := f.pool.RunNext(ctx, "live-worker"); did || err != nil {
			t.Fatalf("RunNext = %v, %v; want nothing to run while the project's build holds a live lease", did, err)
		}
		if err := f.pool.Sweep(ctx); err != nil {
			t.Fatal(err)
		}
		if b := f.build(dead.ID); b.State == store.Finished {
			t.Fatal("a build with a live lease was swept")
		}

		clock.Advance(61 * time.Second)
		runCtx, cancel := context.WithCancel(ctx)
		defer cancel()
		f.pool.Start(runCtx, 1) // sweeps at once
		defer f.pool.Stop()
		select {
		case id := <-ran:
			if id != next.ID {
				t.Errorf("ran build %d, want %d", id, next.ID)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("the project's next build never ran")
		}
		b := f.build(dead.ID)
		if b.State != store.Finished || b.Success || b.Error != store.InactivityMessage(dead.ID) || b.ExitCode != nil {
			t.Errorf("dead build: state %s success %v error %q exit %v", b.State, b.Success, b.Error, deref(b.ExitCode))
		}
	})
}

// sleeperProject imports a project whose install step sleeps with a child
// process; it returns the import and the sleeper.
func sleeperProject(t *testing.T, f *fixture, daemon bool) (*store.ImportResult, *sleeper) {
	t.Helper()
	child := newSleeper(f, "sleeper")
	imp, _ := setupPyProject(t, f, "Sleeper", child.script(daemon))
	return imp, child
}

// waitFile waits until a file exists.
func waitFile(t *testing.T, path string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
	}
	t.Fatalf("%s never appeared", path)
}

// TestLeaseLostStopsTheBuild: when a build is taken from its worker (the
// sweeper finished it after its lease expired), the worker kills its
// processes and writes nothing more.
func TestLeaseLostStopsTheBuild(t *testing.T) {
	f := newFixture(t, store.SQLite, Config{RenewEvery: 50 * time.Millisecond})
	imp, child := sleeperProject(t, f, false)
	ctx := context.Background()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.pool.RunNext(ctx, "worker")
	}()
	waitFile(t, child.started)
	const swept = "taken away"
	if _, err := f.store.FinishBuild(ctx, imp.Build.ID, store.BuildResult{Error: swept}); err != nil {
		t.Fatal(err)
	}
	n := len(f.commands(imp.Build.ID))
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the worker kept running a build it no longer held")
	}
	child.waitGone(t)
	b := f.build(imp.Build.ID)
	if b.Error != swept || b.Success {
		t.Errorf("build: success %v error %q; the worker overwrote the sweeper's result", b.Success, b.Error)
	}
	if m := len(f.commands(imp.Build.ID)); m != n {
		t.Errorf("%d commands recorded after the lease was lost", m-n)
	}
}

// TestRenewLeaseGivesUpWhenTheStoreIsUnreachable: a worker that could not
// extend its lease for a whole lease stops the build, since the sweeper
// may have finished it by then.
func TestRenewLeaseGivesUpWhenTheStoreIsUnreachable(t *testing.T) {
	const lease = 300 * time.Millisecond
	f := newFixture(t, store.SQLite, Config{Lease: lease, RenewEvery: 50 * time.Millisecond})
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	start := time.Now()
	stop := f.pool.renewLease(ctx, cancel, func(context.Context) error { return errors.New("connection refused") })
	defer stop()
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the worker kept a lease it could not extend")
	}
	if took := time.Since(start); took < lease {
		t.Errorf("stopped after %v, before the lease of %v ran out", took, lease)
	}
	if cause := context.Cause(ctx); !errors.Is(cause, errLeaseLost) {
		t.Errorf("cause %v, want errLeaseLost", cause)
	}
}
