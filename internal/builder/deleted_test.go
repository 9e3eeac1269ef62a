package builder

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"docsd/internal/storetest"
	"docsd/store"
)

// lockedBuffer is a log sink safe for the pool's goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestProjectDeletedDuringBuild: deleting a project while its build runs
// (the build row goes with it) is an expected race: the worker ends the
// build with an info line and logs no error, though the command it was
// running finishes after the deletion and cannot be recorded.
func TestProjectDeletedDuringBuild(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		f := newFixture(t, d, Config{})
		var logs lockedBuffer
		f.pool = New(f.store, f.arts, f.pool.cfg, slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo})))
		home := filepath.Join(f.data, "homes", "waiter")
		// The install step runs until the test lets it go, then ends.
		script := "import os, time\n" +
			"open(os.path.join(os.environ['HOME'], 'started'), 'w').write('1')\n" +
			"while not os.path.exists(os.path.join(os.environ['HOME'], 'proceed')):\n" +
			"    time.sleep(0.05)\n" +
			"print('done', flush=True)\n"
		imp, _ := setupPyProject(t, f, "Waiter", script)
		done := runInBackground(f, "worker")
		waitFile(t, filepath.Join(home, "started"))
		if err := f.store.DeleteProject(context.Background(), imp.Project.ID); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, "proceed"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the worker to end the build", func() bool {
			select {
			case <-done:
				return true
			default:
				return false
			}
		})
		out := logs.String()
		if strings.Contains(out, "level=ERROR") || !strings.Contains(out, "project deleted during build") {
			t.Errorf("logs:\n%s\nwant no error and %q", out, "project deleted during build")
		}
	})
}
