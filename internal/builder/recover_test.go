package builder

import (
	"context"
	"fmt"
	"testing"
	"time"

	"docsd/store"
)

// TestPanicFailsOnlyItsBuild makes one build panic, inside the pipeline
// and outside it, under a real worker: that build ends finished and
// failed with the internal-error message and its notification id, and
// the same worker goes on to build the next one.
func TestPanicFailsOnlyItsBuild(t *testing.T) {
	for _, tc := range []struct {
		name  string
		panic func(f *fixture, bad int64)
	}{
		{"in the pipeline", func(f *fixture, bad int64) {
			f.pool.onState = func(id int64, state string) {
				if id == bad && state == store.Installing {
					panic("test: a bug in the installing step")
				}
			}
		}},
		{"outside the pipeline", func(f *fixture, bad int64) {
			f.pool.execute = func(ctx context.Context, b *store.Build, owner string) {
				if b.ID == bad {
					panic("test: a bug before the pipeline")
				}
				f.pool.runBuild(ctx, b, owner)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, store.SQLite, Config{})
			var builds []*store.Build
			for _, name := range []string{"Panics", "Builds"} {
				r := newRepo(t, "main")
				r.commit("initial", map[string]string{"README.md": "# " + name + "\n"})
				builds = append(builds, f.importProject(name, r).Build)
			}
			bad, good := builds[0], builds[1]
			tc.panic(f, bad.ID)
			f.pool.Start(context.Background(), 1)
			defer f.pool.Stop()
			deadline := time.Now().Add(3 * time.Minute)
			for f.build(good.ID).State != store.Finished || f.build(bad.ID).State != store.Finished {
				if time.Now().After(deadline) {
					t.Fatalf("builds not finished: %s, %s", f.build(bad.ID).State, f.build(good.ID).State)
				}
				time.Sleep(50 * time.Millisecond)
			}
			b := f.build(bad.ID)
			if want := fmt.Sprintf(MsgInternalFormat, bad.ID); b.Success || b.Error != want || b.ErrorID != IDInternal || deref(b.ExitCode) != 1 {
				for _, c := range f.commands(b.ID) {
					t.Logf("$ %s (exit %v)\n%s", c.Command, deref(c.ExitCode), c.Output)
				}
				t.Errorf("panicking build: success %v error %q id %q exit %v; want %q, %s, 1", b.Success, b.Error, b.ErrorID, deref(b.ExitCode), want, IDInternal)
			}
			f.mustSucceed(good)
		})
	}
}
