package store_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"docsd/internal/errs"
	"docsd/internal/storetest"
	"docsd/store"
)

func TestFindBuilds(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		ctx := t.Context()
		clock := storetest.SetClock(s, t0)
		alice, _ := storetest.MustUser(t, s, "alice")
		bob, _ := storetest.MustUser(t, s, "bob")

		pImp := importProject(t, s, alice, "pub", store.Public)
		qImp := importProject(t, s, bob, "priv", store.Private)
		p := pImp.Project
		b0, bq := pImp.Build, qImp.Build // both created at t0, b0 first
		v1 := storetest.MustVersion(t, s, p.ID, "v1")
		hidden, err := s.CreateVersion(ctx, &store.Version{ProjectID: p.ID, Slug: "hidden", VerboseName: "hidden", PrivacyLevel: store.Private})
		must(t, err)
		ext, err := s.CreateVersion(ctx, &store.Version{ProjectID: p.ID, Slug: "7", VerboseName: "7", Type: store.External})
		must(t, err)

		clock.Advance(time.Minute)
		b1, err := s.CreateBuild(ctx, v1, nil)
		must(t, err)
		b2, err := s.CreateBuild(ctx, v1, nil) // same created as b1
		must(t, err)
		clock.Advance(time.Minute)
		b3, err := s.CreateBuild(ctx, ext, ptr("abc123"))
		must(t, err)
		clock.Advance(time.Minute)
		b4, err := s.CreateBuild(ctx, hidden, nil)
		must(t, err)
		for _, b := range []*store.Build{b0, b1} {
			_, err := s.FinishBuild(ctx, b.ID, store.BuildResult{Success: true})
			must(t, err)
		}
		if b3.Commit == nil || *b3.Commit != "abc123" {
			t.Errorf("CreateBuild commit = %v, want abc123", b3.Commit)
		}

		tests := []struct {
			name      string
			filter    store.BuildFilter
			want      []*store.Build
			wantTotal int
		}{
			{name: "all, newest first", filter: store.BuildFilter{}, want: []*store.Build{b4, b3, b2, b1, bq, b0}},
			{name: "project", filter: store.BuildFilter{ProjectID: &p.ID}, want: []*store.Build{b4, b3, b2, b1, b0}},
			{name: "project slug", filter: store.BuildFilter{ProjectSlug: ptr("priv")}, want: []*store.Build{bq}},
			{name: "version", filter: store.BuildFilter{VersionID: &v1.ID}, want: []*store.Build{b2, b1}},
			{name: "commit", filter: store.BuildFilter{Commit: ptr("abc123")}, want: []*store.Build{b3}},
			{name: "unknown commit", filter: store.BuildFilter{Commit: ptr("abc")}, want: []*store.Build{}},
			{name: "running", filter: store.BuildFilter{Running: ptr(true)}, want: []*store.Build{b4, b3, b2, bq}},
			{name: "finished", filter: store.BuildFilter{Running: ptr(false)}, want: []*store.Build{b1, b0}},
			{name: "internal", filter: store.BuildFilter{Internal: true}, want: []*store.Build{b4, b2, b1, bq, b0}},
			{name: "ids", filter: store.BuildFilter{IDs: []int64{b0.ID, b3.ID}}, want: []*store.Build{b3, b0}},
			{name: "anonymous", filter: store.BuildFilter{Visible: &store.Visibility{}}, want: []*store.Build{b3, b2, b1, b0}},
			{name: "maintainer of the private project", filter: store.BuildFilter{Visible: &store.Visibility{UserID: bob.ID}},
				want: []*store.Build{b3, b2, b1, bq, b0}},
			{name: "maintainer of the public project", filter: store.BuildFilter{Visible: &store.Visibility{UserID: alice.ID}},
				want: []*store.Build{b4, b3, b2, b1, b0}},
			{name: "superuser", filter: store.BuildFilter{Visible: &store.Visibility{All: true}}, want: []*store.Build{b4, b3, b2, b1, bq, b0}},
			{name: "page", filter: store.BuildFilter{Limit: 2, Offset: 1}, want: []*store.Build{b3, b2}, wantTotal: 6},
			{name: "past the end", filter: store.BuildFilter{Limit: 2, Offset: 6}, want: []*store.Build{}, wantTotal: 6},
			{name: "running commit of a project", filter: store.BuildFilter{ProjectID: &p.ID, Running: ptr(true), Commit: ptr("abc123")},
				want: []*store.Build{b3}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				bs, total, err := s.FindBuilds(ctx, tt.filter)
				must(t, err)
				wantInt64s(t, "build ids", buildIDs(bs), buildIDs(tt.want))
				wantTotal := tt.wantTotal
				if wantTotal == 0 {
					wantTotal = len(tt.want)
				}
				if total != wantTotal {
					t.Errorf("total = %d, want %d", total, wantTotal)
				}
			})
		}
	})
}

func TestBuildLifecycle(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		ctx := t.Context()
		clock := storetest.SetClock(s, t0)
		alice, _ := storetest.MustUser(t, s, "alice")
		imp := storetest.MustImport(t, s, alice, "Life", "https://example.com/life.git")

		// Leaving `triggered`: started=now, length=0, state=cloning, leased.
		started := clock.Advance(10 * time.Second)
		b, err := s.ClaimBuild(ctx, "worker-1", time.Minute)
		must(t, err)
		if b.ID != imp.Build.ID || b.State != store.Cloning || b.Length == nil || *b.Length != 0 || b.Builder != "worker-1" ||
			b.LeaseOwner == nil || *b.LeaseOwner != "worker-1" || b.FinishedAt != nil || !b.Success {
			t.Fatalf("claimed build = %+v", b)
		}
		wantTime(t, "started", *b.Started, started)
		wantTime(t, "lease expires", *b.LeaseExpires, started.Add(time.Minute))

		// Only the holder can extend the lease.
		clock.Advance(20 * time.Second)
		wantKind(t, s.ExtendBuildLease(ctx, b.ID, "worker-2", time.Minute), errs.Conflict)
		must(t, s.ExtendBuildLease(ctx, b.ID, "worker-1", time.Minute))
		got, err := s.FindBuildByID(ctx, b.ID)
		must(t, err)
		wantTime(t, "extended lease", *got.LeaseExpires, started.Add(80*time.Second))

		// Each state change updates length to whole seconds since started.
		steps := []struct {
			after time.Duration
			state string
			want  int
		}{
			{3700 * time.Millisecond, store.Installing, 23},
			{10 * time.Second, store.Building, 33},
		}
		for _, st := range steps {
			clock.Advance(st.after)
			must(t, s.SetBuildState(ctx, b.ID, st.state))
			got, err := s.FindBuildByID(ctx, b.ID)
			must(t, err)
			if got.State != st.state || got.Length == nil || *got.Length != st.want {
				t.Errorf("after SetBuildState(%s): state %s, length %v; want length %d", st.state, got.State, got.Length, st.want)
			}
		}

		// The commit is recorded once; the config replaced.
		must(t, s.SetBuildCommit(ctx, b.ID, "abc"))
		must(t, s.SetBuildCommit(ctx, b.ID, "def"))
		must(t, s.SetBuildConfig(ctx, b.ID, `{"version":2}`))
		got, err = s.FindBuildByID(ctx, b.ID)
		must(t, err)
		if got.Commit == nil || *got.Commit != "abc" || got.Config != `{"version":2}` {
			t.Errorf("commit %v, config %q; want abc and the config", got.Commit, got.Config)
		}

		// Recorded commands come back by start time, then id.
		cmdStart := clock.Now()
		for i, off := range []time.Duration{2 * time.Second, time.Second, time.Second} {
			_, err := s.AddBuildCommand(ctx, store.BuildCommand{
				BuildID: b.ID, Command: fmt.Sprintf("cmd %d", i), Description: "d", Output: "out",
				ExitCode: ptr(i), StartTime: cmdStart.Add(off), EndTime: ptr(cmdStart.Add(off + time.Second)),
			})
			must(t, err)
		}
		cmds, err := s.FindBuildCommands(ctx, []int64{b.ID})
		must(t, err)
		gotCmds := []string{}
		for _, c := range cmds {
			gotCmds = append(gotCmds, c.Command)
		}
		wantStrings(t, "commands", gotCmds, []string{"cmd 1", "cmd 2", "cmd 0"})
		if c := cmds[2]; c.Output != "out" || c.Description != "d" || c.ExitCode == nil || *c.ExitCode != 0 || c.EndTime == nil {
			t.Errorf("command = %+v", c)
		}

		// Finishing records the result and releases the lease.
		end := clock.Advance(1500 * time.Millisecond)
		fin, err := s.FinishBuild(ctx, b.ID, store.BuildResult{Success: false, Error: "boom", ExitCode: ptr(1)})
		must(t, err)
		got, err = s.FindBuildByID(ctx, b.ID)
		must(t, err)
		for _, x := range []*store.Build{fin, got} {
			if x.State != store.Finished || x.Success || x.Error != "boom" || x.ExitCode == nil || *x.ExitCode != 1 ||
				x.Length == nil || *x.Length != 35 || x.LeaseOwner != nil || x.LeaseExpires != nil || x.Builder != "worker-1" {
				t.Errorf("finished build = %+v", x)
			}
			wantTime(t, "finished_at", *x.FinishedAt, end)
			wantTime(t, "started", *x.Started, started)
		}

		// A finished build stays finished.
		_, err = s.FinishBuild(ctx, b.ID, store.BuildResult{Success: true})
		wantKind(t, err, errs.Conflict)
		wantKind(t, s.SetBuildState(ctx, b.ID, store.Building), errs.Conflict)
		wantKind(t, s.ExtendBuildLease(ctx, b.ID, "worker-1", time.Minute), errs.Conflict)
		_, err = s.ClaimBuild(ctx, "worker-1", time.Minute)
		wantKind(t, err, errs.NotFound)
	})
}

// TestFinishTriggeredBuild covers `triggered` → `finished` (a project with
// skip): the build gets started = finished_at = now and length 0.
func TestFinishTriggeredBuild(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		clock := storetest.SetClock(s, t0)
		alice, _ := storetest.MustUser(t, s, "alice")
		imp := storetest.MustImport(t, s, alice, "Skip", "https://example.com/skip.git")
		now := clock.Advance(time.Hour)
		b, err := s.FinishBuild(t.Context(), imp.Build.ID, store.BuildResult{Error: "Builds for this project are temporarily disabled", ExitCode: ptr(1)})
		must(t, err)
		if b.State != store.Finished || b.Success || b.Length == nil || *b.Length != 0 || b.Started == nil || b.FinishedAt == nil {
			t.Fatalf("finished build = %+v", b)
		}
		wantTime(t, "started", *b.Started, now)
		wantTime(t, "finished_at", *b.FinishedAt, now)
	})
}

// TestClaimBuildOrder checks the queue's order: the oldest triggered build
// (by created, then id) whose project has no build or sync task in progress
// is claimed; a project's next build waits until its running one finishes.
func TestClaimBuildOrder(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s, db := openWithSQL(t, d)
		ctx := t.Context()
		clock := storetest.SetClock(s, t0)
		alice, _ := storetest.MustUser(t, s, "alice")

		a := storetest.MustImport(t, s, alice, "A", "https://example.com/a.git") // a0 at t0
		clock.Advance(time.Second)
		b := storetest.MustImport(t, s, alice, "B", "https://example.com/b.git") // b0 at t0+1s
		clock.Advance(time.Second)
		a1, err := s.CreateBuild(ctx, a.Latest, nil) // t0+2s
		must(t, err)
		c := storetest.MustImport(t, s, alice, "C", "https://example.com/c.git") // c0 at t0+2s, after a1
		// Created earlier than everything though made last: it goes first.
		clock.Advance(-time.Hour)
		early, err := s.CreateBuild(ctx, c.Latest, nil)
		must(t, err)
		clock.Advance(time.Hour + time.Second)
		// D is busy with a version sync (a started sync task): not claimable.
		dImp := storetest.MustImport(t, s, alice, "D", "https://example.com/d.git")
		clock.Advance(-2 * time.Hour)
		_, err = db.ExecContext(ctx, rebind(d, `INSERT INTO sync_tasks (project_id, created, started) VALUES (?, ?, ?)`),
			dImp.Project.ID, clock.Now(), clock.Now())
		must(t, err)
		clock.Advance(2 * time.Hour)

		claim := func(owner string) *store.Build {
			t.Helper()
			got, err := s.ClaimBuild(ctx, owner, time.Minute)
			if errs.Is(err, errs.NotFound) {
				return nil
			}
			must(t, err)
			return got
		}
		finish := func(b *store.Build) {
			t.Helper()
			_, err := s.FinishBuild(ctx, b.ID, store.BuildResult{Success: true})
			must(t, err)
		}
		name := func(b *store.Build) string {
			if b == nil {
				return "nothing"
			}
			return fmt.Sprint(b.ID)
		}
		want := func(what string, got *store.Build, want *store.Build) {
			t.Helper()
			if name(got) != name(want) {
				t.Errorf("%s: claimed %s, want %s", what, name(got), name(want))
			}
		}

		first := claim("w1")
		want("oldest by created", first, early) // C's early build
		second := claim("w2")
		want("next oldest", second, a.Build) // a0
		third := claim("w3")
		want("A busy: B's", third, b.Build) // b0
		want("A, B and C busy, D syncing", claim("w4"), nil)
		finish(second)
		want("A idle again: a1", claim("w4"), a1)
		finish(first)
		want("C idle again: c0", claim("w5"), c.Build)
		want("all busy", claim("w6"), nil)
	})
}

func TestSweepStaleBuilds(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		ctx := t.Context()
		clock := storetest.SetClock(s, t0)
		alice, _ := storetest.MustUser(t, s, "alice")
		const defaultLimit = 10 * time.Minute

		imp := func(name string) *store.ImportResult {
			return storetest.MustImport(t, s, alice, name, "https://example.com/"+name+".git")
		}
		expired := imp("expired")     // lease never renewed
		live := imp("live")           // lease renewed, young
		overLimit := imp("overlimit") // lease renewed, but older than 1.2 × its 60 s limit
		young := imp("young")         // lease renewed, default limit
		done := imp("done")           // finished before the sweep
		_, err := s.UpdateProject(ctx, overLimit.Project.ID, store.ProjectUpdate{BuildTimeLimit: ptr(60)})
		must(t, err)
		for range 5 {
			_, err := s.ClaimBuild(ctx, "w", time.Minute)
			must(t, err)
		}
		_, err = s.FinishBuild(ctx, done.Build.ID, store.BuildResult{Error: "own error", ExitCode: ptr(2)})
		must(t, err)
		queued := imp("queued") // still triggered, and old by the end

		clock.Advance(4*time.Minute + 50*time.Second)
		for _, b := range []*store.Build{live.Build, overLimit.Build, young.Build} {
			must(t, s.ExtendBuildLease(ctx, b.ID, "w", time.Minute))
		}
		now := clock.Advance(10 * time.Second) // t0+5m

		swept, err := s.SweepStaleBuilds(ctx, defaultLimit)
		must(t, err)
		wantInt64s(t, "swept", swept, []int64{expired.Build.ID})

		// The build over its limit still has a live lease: its processes may
		// still run in the checkout, so it is not finished (the project stays
		// busy) but its lease is revoked, which tells its worker to stop.
		wantKind(t, s.ExtendBuildLease(ctx, overLimit.Build.ID, "w", time.Minute), errs.Conflict)
		if b, _ := s.FindBuildByID(ctx, overLimit.Build.ID); b.State != store.Cloning {
			t.Errorf("over-limit build with a live lease: state %s, want cloning", b.State)
		}
		clock.Advance(30 * time.Second)
		for _, b := range []*store.Build{live.Build, young.Build} {
			must(t, s.ExtendBuildLease(ctx, b.ID, "w", time.Minute))
		}
		now = clock.Advance(30 * time.Second) // t0+6m: the revoked lease has run out
		swept, err = s.SweepStaleBuilds(ctx, defaultLimit)
		must(t, err)
		wantInt64s(t, "swept once the revoked lease ran out", swept, []int64{overLimit.Build.ID})
		swept = []int64{expired.Build.ID, overLimit.Build.ID}

		for _, id := range swept {
			b, err := s.FindBuildByID(ctx, id)
			must(t, err)
			if b.State != store.Finished || b.Success || b.Error != store.InactivityMessage(id) || b.ExitCode != nil ||
				b.Length == nil || b.LeaseOwner != nil || b.LeaseExpires != nil {
				t.Errorf("swept build = %+v", b)
			}
			// A finished build's record is closed.
			_, err = s.AddBuildCommand(ctx, store.BuildCommand{BuildID: id, Command: "late", StartTime: now})
			wantKind(t, err, errs.Conflict)
			// The worker learns that it lost the build.
			wantKind(t, s.ExtendBuildLease(ctx, id, "w", time.Minute), errs.Conflict)
			_, err = s.FinishBuild(ctx, id, store.BuildResult{Success: true})
			wantKind(t, err, errs.Conflict)
		}
		states := map[int64]string{live.Build.ID: store.Cloning, young.Build.ID: store.Cloning, queued.Build.ID: store.Triggered, done.Build.ID: store.Finished}
		for id, want := range states {
			b, err := s.FindBuildByID(ctx, id)
			must(t, err)
			if b.State != want {
				t.Errorf("build %d state = %s, want %s", id, b.State, want)
			}
		}
		if b, _ := s.FindBuildByID(ctx, done.Build.ID); b.Error != "own error" {
			t.Errorf("finished build's error = %q, want it untouched", b.Error)
		}

		// Nothing more now; once their leases lapse the others go too, but
		// never the queued build.
		swept, err = s.SweepStaleBuilds(ctx, defaultLimit)
		must(t, err)
		wantInt64s(t, "swept again", swept, nil)
		clock.Advance(time.Hour)
		swept, err = s.SweepStaleBuilds(ctx, defaultLimit)
		must(t, err)
		slices.Sort(swept)
		wantInt64s(t, "swept after the leases lapsed", swept, []int64{live.Build.ID, young.Build.ID})
		b, err := s.FindBuildByID(ctx, queued.Build.ID)
		must(t, err)
		if b.State != store.Triggered {
			t.Errorf("queued build state = %s, want triggered", b.State)
		}
	})
}

// TestClaimBuildConcurrent runs many claimers against one queue: no build is
// claimed twice, no project ever has two builds running, every build runs,
// and each project's builds run oldest first.
func TestClaimBuildConcurrent(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		ctx := t.Context()
		alice, _ := storetest.MustUser(t, s, "alice")
		const projects, perProject, workers = 15, 4, 8
		var all []int64
		for i := range projects {
			imp := storetest.MustImport(t, s, alice, fmt.Sprintf("Concurrent %02d", i), "https://example.com/c.git")
			all = append(all, imp.Build.ID)
			for range perProject - 1 {
				b, err := s.CreateBuild(ctx, imp.Latest, nil)
				must(t, err)
				all = append(all, b.ID)
			}
		}
		total := int64(len(all))

		var (
			mu         sync.Mutex
			claimedBy  = map[int64]string{}  // build → worker
			running    = map[int64]int64{}   // project → build
			order      = map[int64][]int64{} // project → builds in claim order
			problems   []string
			finished   atomic.Int64
			maxRunning int
		)
		problem := func(format string, args ...any) {
			mu.Lock()
			defer mu.Unlock()
			problems = append(problems, fmt.Sprintf(format, args...))
		}
		deadline := time.Now().Add(2 * time.Minute)
		var wg sync.WaitGroup
		for w := range workers {
			owner := fmt.Sprintf("worker-%d", w)
			wg.Go(func() {
				for finished.Load() < total {
					if time.Now().After(deadline) {
						problem("%s: gave up with %d of %d builds finished", owner, finished.Load(), total)
						return
					}
					b, err := s.ClaimBuild(ctx, owner, time.Minute)
					if errs.Is(err, errs.NotFound) {
						time.Sleep(time.Millisecond)
						continue
					}
					if err != nil {
						problem("%s: ClaimBuild: %v", owner, err)
						return
					}
					mu.Lock()
					if prev, ok := claimedBy[b.ID]; ok {
						problems = append(problems, fmt.Sprintf("build %d claimed by %s and %s", b.ID, prev, owner))
					}
					claimedBy[b.ID] = owner
					if other, ok := running[b.ProjectID]; ok {
						problems = append(problems, fmt.Sprintf("project %d runs builds %d and %d at once", b.ProjectID, other, b.ID))
					}
					running[b.ProjectID] = b.ID
					maxRunning = max(maxRunning, len(running))
					order[b.ProjectID] = append(order[b.ProjectID], b.ID)
					mu.Unlock()

					time.Sleep(time.Duration(rand.IntN(2000)) * time.Microsecond) // the work

					// Unmark before finishing: the store may hand the project
					// out again once the finish commits.
					mu.Lock()
					if running[b.ProjectID] == b.ID {
						delete(running, b.ProjectID)
					}
					mu.Unlock()
					if _, err := s.FinishBuild(ctx, b.ID, store.BuildResult{Success: true}); err != nil {
						problem("%s: FinishBuild(%d): %v", owner, b.ID, err)
						return
					}
					finished.Add(1)
				}
			})
		}
		wg.Wait()
		for _, p := range problems {
			t.Error(p)
		}
		if len(claimedBy) != len(all) {
			t.Errorf("%d builds claimed, want %d", len(claimedBy), len(all))
		}
		for project, ids := range order {
			if !slices.IsSorted(ids) {
				t.Errorf("project %d builds ran in order %v, want oldest first", project, ids)
			}
		}
		left, n, err := s.FindBuilds(ctx, store.BuildFilter{Running: ptr(true)})
		must(t, err)
		if n != 0 {
			t.Errorf("%d builds not finished: %v", n, buildIDs(left))
		}
		t.Logf("%d builds, %d workers, up to %d projects building at once", len(all), workers, maxRunning)
	})
}
