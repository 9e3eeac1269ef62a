package store_test

import (
	"testing"
	"time"

	"docsd/internal/errs"
	"docsd/internal/storetest"
	"docsd/store"
)

// TestArtifactTrees: a swap makes the new tree current and retires the old
// one, which becomes due only after the grace period; retiring a version
// or a whole project unpublishes it.
func TestArtifactTrees(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		ctx := t.Context()
		now := t0
		s.Now = func() time.Time { return now }

		_, err := s.FindArtifactTree(ctx, "demo", "latest")
		wantKind(t, err, errs.NotFound)

		must(t, s.SwapArtifactTree(ctx, "demo", "latest", "t1", time.Minute))
		must(t, s.SwapArtifactTree(ctx, "demo", "latest", "t2", time.Minute))
		must(t, s.SwapArtifactTree(ctx, "demo", "1.0", "t3", time.Minute))
		must(t, s.SwapArtifactTree(ctx, "other", "latest", "t4", time.Minute))
		if got, err := s.FindArtifactTree(ctx, "demo", "latest"); err != nil || got != "t2" {
			t.Fatalf("current = %q, %v; want t2", got, err)
		}
		due, err := s.DueArtifactGarbage(ctx, 10)
		must(t, err)
		if len(due) != 0 {
			t.Fatalf("due before the grace period = %+v, want none", due)
		}

		now = now.Add(time.Minute)
		due, err = s.DueArtifactGarbage(ctx, 10)
		must(t, err)
		if len(due) != 1 || due[0].Tree != "t1" || due[0].Project != "demo" || due[0].Version != "latest" {
			t.Fatalf("due = %+v, want t1 of demo/latest", due)
		}
		must(t, s.DeleteArtifactGarbage(ctx, due[0].ID))

		must(t, s.RetireArtifactTrees(ctx, "demo", "", 0))
		for _, v := range []string{"latest", "1.0"} {
			_, err := s.FindArtifactTree(ctx, "demo", v)
			wantKind(t, err, errs.NotFound)
		}
		if got, err := s.FindArtifactTree(ctx, "other", "latest"); err != nil || got != "t4" {
			t.Fatalf("other project's tree = %q, %v; want t4 untouched", got, err)
		}
		due, err = s.DueArtifactGarbage(ctx, 10)
		must(t, err)
		var trees []string
		for _, g := range due {
			trees = append(trees, g.Tree)
		}
		if len(trees) != 2 || trees[0] == trees[1] {
			t.Fatalf("due after retiring demo = %v, want t2 and t3", trees)
		}
	})
}
