package store_test

import (
	"testing"
	"time"

	"docsd/internal/errs"
	"docsd/internal/storetest"
	"docsd/store"
)

func TestCancelBuild(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		ctx := t.Context()
		clock := storetest.SetClock(s, t0)
		alice, _ := storetest.MustUser(t, s, "alice")
		imp := storetest.MustImport(t, s, alice, "Cancel", "https://example.com/c.git")

		// Running: only requested, until its worker finishes it.
		b, err := s.ClaimBuild(ctx, "worker-1", time.Minute)
		must(t, err)
		if requested, err := s.BuildCancelRequested(ctx, b.ID); err != nil || requested {
			t.Fatalf("requested before the cancel: %v %v", requested, err)
		}
		got, err := s.CancelBuild(ctx, b.ID)
		must(t, err)
		if got.State != store.Cloning || got.Error != "" {
			t.Fatalf("a running build changed at once: %+v", got)
		}
		if requested, err := s.BuildCancelRequested(ctx, b.ID); err != nil || !requested {
			t.Fatalf("cancel not requested: %v %v", requested, err)
		}
		// Shutdown of the worker does not requeue a cancelled build.
		must(t, s.RequeueBuild(ctx, b.ID, "worker-1"))
		got, err = s.FindBuildByID(ctx, b.ID)
		must(t, err)
		if got.State != store.Finished || got.Success || got.Error != store.CancelledMessage || got.ErrorID != store.CancelledErrorID || got.ExitCode != nil {
			t.Fatalf("cancelled build = %+v", got)
		}
		_, err = s.CancelBuild(ctx, b.ID)
		wantKind(t, err, errs.Conflict)
		_, err = s.CancelBuild(ctx, 424242)
		wantKind(t, err, errs.NotFound)

		// A running build whose lease expired is finished at once.
		v, err := s.FindVersionByID(ctx, imp.Build.VersionID)
		must(t, err)
		next, err := s.CreateBuild(ctx, v, nil)
		must(t, err)
		_, err = s.ClaimBuild(ctx, "worker-2", time.Minute)
		must(t, err)
		clock.Advance(2 * time.Minute)
		got, err = s.CancelBuild(ctx, next.ID)
		must(t, err)
		if got.State != store.Finished || got.Error != store.CancelledMessage || got.LeaseOwner != nil {
			t.Fatalf("cancel of an abandoned build = %+v", got)
		}
	})
}

func TestRequeueBuild(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		ctx := t.Context()
		storetest.SetClock(s, t0)
		alice, _ := storetest.MustUser(t, s, "alice")
		imp := storetest.MustImport(t, s, alice, "Requeue", "https://example.com/r.git")
		b, err := s.ClaimBuild(ctx, "worker-1", time.Minute)
		must(t, err)
		must(t, s.SetBuildCommit(ctx, b.ID, "abc123"))
		c, err := s.AddBuildCommand(ctx, store.BuildCommand{BuildID: b.ID, Command: "git clone", StartTime: t0})
		must(t, err)
		code, end := 0, t0.Add(time.Second)
		c.Output, c.ExitCode, c.EndTime = "cloned", &code, &end
		must(t, s.UpdateBuildCommand(ctx, *c))
		cmds, err := s.FindBuildCommands(ctx, []int64{b.ID})
		must(t, err)
		if len(cmds) != 1 || cmds[0].Output != "cloned" || cmds[0].ExitCode == nil || cmds[0].EndTime == nil {
			t.Fatalf("updated command = %+v", cmds)
		}

		wantKind(t, s.RequeueBuild(ctx, b.ID, "worker-2"), errs.Conflict)
		must(t, s.RequeueBuild(ctx, b.ID, "worker-1"))
		got, err := s.FindBuildByID(ctx, b.ID)
		must(t, err)
		if got.State != store.Triggered || got.Started != nil || got.LeaseOwner != nil || got.Commit != nil || got.Builder != "" || !got.Success {
			t.Fatalf("requeued build = %+v", got)
		}
		if cmds, _ := s.FindBuildCommands(ctx, []int64{b.ID}); len(cmds) != 0 {
			t.Errorf("requeued build kept %d commands", len(cmds))
		}
		again, err := s.ClaimBuild(ctx, "worker-2", time.Minute)
		must(t, err)
		if again.ID != imp.Build.ID {
			t.Errorf("claimed %d, want the requeued build %d", again.ID, imp.Build.ID)
		}
		_, err = s.FinishBuild(ctx, again.ID, store.BuildResult{Success: true})
		must(t, err)
		wantKind(t, s.UpdateBuildCommand(ctx, *c), errs.Conflict)
	})
}
