package builder

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"docsd/internal/storetest"
	"docsd/store"
)

// BenchmarkPipelineOverhead measures what docsd adds to building a small
// MkDocs project: each iteration imports a new project on the same
// repository and times trigger → finished (claim, clone, ref sync,
// environment, `mkdocs build`, publishing, every command recorded), then
// times the same work done by hand: `git clone` plus `mkdocs build`. It
// reports both and their ratio.
//
//	go test ./internal/builder/ -bench BenchmarkPipelineOverhead -run '^$'
func BenchmarkPipelineOverhead(b *testing.B) {
	toolsOrSkip(b, "mkdocs")
	r := newRepo(b, "main")
	r.commit("docs", map[string]string{
		"mkdocs.yml":        "site_name: Bench\nnav:\n  - Home: index.md\n  - Guide: guide.md\n  - API: api.md\n",
		"docs/index.md":     "# Bench\n\nA small MkDocs project.\n",
		"docs/guide.md":     "# Guide\n\n## Install\n\nRun it.\n",
		"docs/api.md":       "# API\n\n```python\nprint('hi')\n```\n",
		".readthedocs.yaml": "version: 2\nmkdocs:\n  configuration: mkdocs.yml\n",
	})
	f := newFixture(b, store.SQLite, Config{GitCloneDepth: 50})
	finished := make(chan int64, 16)
	f.pool.onState = func(id int64, state string) {
		if state == store.Finished {
			finished <- id
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f.pool.Start(ctx, 1)
	defer f.pool.Stop()
	python := f.pool.cfg.BuildPython

	var docsd, hand time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		imp := storetest.MustImport(b, f.store, f.user, fmt.Sprintf("Bench %d", i), r.URL())
		f.pool.Wake()
		if id := <-finished; id != imp.Build.ID {
			b.Fatalf("build %d finished, want %d", id, imp.Build.ID)
		}
		docsd += time.Since(start)
		b.StopTimer()
		f.mustSucceed(imp.Build)
		dir := filepath.Join(b.TempDir(), "clone")
		b.StartTimer()

		start = time.Now()
		for _, argv := range [][]string{
			{"git", "clone", "--no-single-branch", "--depth", "50", r.URL(), dir},
			{python, "-m", "mkdocs", "build", "--clean", "--site-dir", "_build/html", "--config-file", "mkdocs.yml"},
		} {
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Dir = filepath.Dir(dir)
			if argv[0] == python {
				cmd.Dir = dir
			}
			cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%v: %v\n%s", argv, err, out)
			}
		}
		hand += time.Since(start)
	}
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(float64(docsd.Milliseconds())/n, "docsd-ms/op")
	b.ReportMetric(float64(hand.Milliseconds())/n, "by-hand-ms/op")
	b.ReportMetric(float64(docsd)/float64(hand), "ratio")
}
