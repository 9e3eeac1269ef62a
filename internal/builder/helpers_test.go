package builder

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"docsd/internal/artifacts"
	"docsd/internal/storetest"
	"docsd/store"
)

// gitEnv makes test commits reproducible without touching the test
// process's environment.
var gitEnv = []string{
	"GIT_AUTHOR_NAME=docsd test", "GIT_AUTHOR_EMAIL=test@docsd.local",
	"GIT_COMMITTER_NAME=docsd test", "GIT_COMMITTER_EMAIL=test@docsd.local",
	"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
}

// repo is a real git repository in a temp dir, the "remote" a test
// project clones from.
type repo struct {
	t   testing.TB
	dir string
}

// newRepo makes a repository whose default branch is branch.
func newRepo(t testing.TB, branch string) *repo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		msg := "builder: NO GIT BINARY, the pipeline tests are not run"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	r := &repo{t: t, dir: t.TempDir()}
	// The sandbox runs git as nobody when the tests run as root.
	if err := os.Chmod(r.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	r.git("init", "-q", "-b", branch)
	return r
}

// URL is the repository's file:// URL.
func (r *repo) URL() string { return "file://" + r.dir }

// git runs a git command in the repository and returns its output.
func (r *repo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), gitEnv...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// write writes files (path → content) into the work tree.
func (r *repo) write(files map[string]string) {
	r.t.Helper()
	for name, content := range files {
		p := filepath.Join(r.dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
}

// commit writes files and commits everything; it returns the commit SHA.
func (r *repo) commit(msg string, files map[string]string) string {
	r.t.Helper()
	r.write(files)
	r.git("add", "-A")
	r.git("commit", "-q", "--allow-empty", "-m", msg)
	return r.git("rev-parse", "HEAD")
}

// fixture is a store, artifact storage and pool for one test.
type fixture struct {
	t     testing.TB
	store *store.Store
	arts  *artifacts.Local
	pool  *Pool
	user  *store.User
	data  string
}

// newFixture opens a store of dialect d and a pool over a fresh data
// directory. cfg's zero fields take test-friendly defaults.
func newFixture(t testing.TB, d store.Dialect, cfg Config) *fixture {
	t.Helper()
	s := storetest.Open(t, d)
	data := t.TempDir()
	arts, err := artifacts.NewLocal(filepath.Join(data, "artifacts"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.DataDir = data
	cfg.AllowLocalRepos = true
	if cfg.PollEvery == 0 {
		cfg.PollEvery = 50 * time.Millisecond
	}
	if cfg.PackageIndexURL == "" {
		cfg.PackageIndexURL = "http://127.0.0.1:1/simple/" // refused at once: no index
	}
	logger := slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	user, _ := storetest.MustUser(t, s, "alice")
	return &fixture{t: t, store: s, arts: arts, pool: New(s, arts, cfg, logger), user: user, data: data}
}

// testWriter sends log lines to the test log.
type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// importProject imports a project on the repository the way the API does.
func (f *fixture) importProject(name string, r *repo) *store.ImportResult {
	f.t.Helper()
	return storetest.MustImport(f.t, f.store, f.user, name, r.URL())
}

// drain runs queued work until there is none left.
func (f *fixture) drain() {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	for {
		did, err := f.pool.RunNext(ctx, "test-worker")
		if err != nil {
			f.t.Fatalf("RunNext: %v", err)
		}
		if !did {
			return
		}
	}
}

// build re-reads a build.
func (f *fixture) build(id int64) *store.Build {
	f.t.Helper()
	b, err := f.store.FindBuildByID(context.Background(), id)
	if err != nil {
		f.t.Fatal(err)
	}
	return b
}

// commands returns a build's recorded commands.
func (f *fixture) commands(id int64) []*store.BuildCommand {
	f.t.Helper()
	cs, err := f.store.FindBuildCommands(context.Background(), []int64{id})
	if err != nil {
		f.t.Fatal(err)
	}
	return cs
}

// versions returns the project's versions by slug.
func (f *fixture) versions(projectID int64) map[string]*store.Version {
	f.t.Helper()
	return versionsBySlug(f.t, f.store, projectID)
}

// versionsBySlug returns a project's versions by slug.
func versionsBySlug(t testing.TB, s *store.Store, projectID int64) map[string]*store.Version {
	t.Helper()
	vs, err := s.FindAllVersions(context.Background(), store.VersionFilter{ProjectIDs: []int64{projectID}})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*store.Version{}
	for _, v := range vs {
		out[v.Slug] = v
	}
	return out
}

// version returns the project's version with that slug.
func (f *fixture) version(projectID int64, slug string) *store.Version {
	f.t.Helper()
	v, err := f.store.FindVersionBySlug(context.Background(), projectID, slug)
	if err != nil {
		f.t.Fatalf("version %q: %v", slug, err)
	}
	return v
}

// builds returns the builds of a version, oldest first.
func (f *fixture) builds(versionID int64) []*store.Build {
	f.t.Helper()
	bs, _, err := f.store.FindBuilds(context.Background(), store.BuildFilter{VersionID: &versionID})
	if err != nil {
		f.t.Fatal(err)
	}
	for i, j := 0, len(bs)-1; i < j; i, j = i+1, j-1 {
		bs[i], bs[j] = bs[j], bs[i]
	}
	return bs
}

// trigger queues a build of the version.
func (f *fixture) trigger(v *store.Version) *store.Build {
	f.t.Helper()
	b, err := f.store.CreateBuild(context.Background(), v, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	return b
}

// htmlFile reads a published file of a version.
func (f *fixture) htmlFile(project, version, name string) string {
	f.t.Helper()
	dir, err := f.arts.HTMLDir(project, version)
	if err != nil {
		f.t.Fatalf("no HTML published for %s/%s: %v", project, version, err)
	}
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		f.t.Fatalf("published HTML of %s/%s: %v", project, version, err)
	}
	return string(b)
}

// mustSucceed fails the test unless the build finished successfully, and
// shows its commands when it did not.
func (f *fixture) mustSucceed(b *store.Build) *store.Build {
	f.t.Helper()
	b = f.build(b.ID)
	if b.State != store.Finished || !b.Success {
		for _, c := range f.commands(b.ID) {
			f.t.Logf("$ %s (exit %v)\n%s", c.Command, deref(c.ExitCode), c.Output)
		}
		f.t.Fatalf("build %d: state %s success %v error %q, want a successful finished build", b.ID, b.State, b.Success, b.Error)
	}
	return b
}

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

// commandLines returns the commands of a build as strings.
func commandLines(cs []*store.BuildCommand) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Command
	}
	return out
}

// toolsOrSkip skips a test that needs a documentation tool when the
// machine lacks it, loudly, and fails it in CI, where the tools must be
// installed.
func toolsOrSkip(t testing.TB, module string) {
	t.Helper()
	py := "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		py = "python3"
	}
	if err := exec.Command(py, "-c", "import "+module).Run(); err != nil {
		msg := "builder: " + strings.ToUpper(module) + " IS NOT INSTALLED for " + py +
			", this test is not run (apt-get install python3-sphinx python3-sphinx-rtd-theme mkdocs)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
}
