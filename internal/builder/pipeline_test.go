package builder

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"docsd/graph"
	"docsd/store"
)

// markdownSite is a small plain-Markdown documentation tree.
var markdownSite = map[string]string{
	"docs/index.md":       "# Welcome\n\nSee [the guide](guide/usage.md#install).\n\n## Section A\n\ntext\n",
	"docs/guide/usage.md": "# Usage\n\n## Install\n\nRun it.\n",
	"docs/img/logo.svg":   "<svg/>",
}

// stateLog collects the states each build enters.
type stateLog struct {
	mu     sync.Mutex
	states map[int64][]string
}

func watchStates(p *Pool) *stateLog {
	l := &stateLog{states: map[int64][]string{}}
	p.onState = func(id int64, state string) {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.states[id] = append(l.states[id], state)
	}
	return l
}

func (l *stateLog) of(id int64) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.states[id])
}

func TestPipelineMarkdownEndToEnd(t *testing.T) {
	r := newRepo(t, "main")
	r.commit("docs", markdownSite)
	r.git("tag", "v1.0")
	v11 := r.commit("more", map[string]string{"docs/news.md": "# News\n"})
	r.git("tag", "-a", "-m", "release", "v1.1")
	r.git("tag", "v2.0rc1")
	r.git("branch", "dev")
	head := r.commit("head", map[string]string{"docs/index.md": "# Welcome\n\nHead of main.\n"})

	f := newFixture(t, store.SQLite, Config{GitCloneDepth: 50})
	states := watchStates(f.pool)
	imp := f.importProject("Plain Docs", r)
	f.drain()

	b := f.mustSucceed(imp.Build)
	if got, want := states.of(b.ID), []string{store.Cloning, store.Installing, store.Building, store.Finished}; !slices.Equal(got, want) {
		t.Errorf("states %v, want %v", got, want)
	}
	if b.Commit == nil || *b.Commit != head {
		t.Errorf("commit %v, want %s", deref2(b.Commit), head)
	}
	if b.ExitCode == nil || *b.ExitCode != 0 || b.Error != "" || b.FinishedAt == nil {
		t.Errorf("exit code %v, error %q, finished %v; want 0, none, set", deref(b.ExitCode), b.Error, b.FinishedAt)
	}
	env := filepath.Join(f.data, "envs", "plain-docs", "latest")
	wantCommands := []string{
		"git clone --no-single-branch --depth 50 " + r.URL() + " .",
		"git remote set-head origin --auto",
		"git checkout --force origin/main",
		"git clean -d -f -f",
		"git rev-parse HEAD",
		"/usr/bin/python3 -m venv --system-site-packages --without-pip " + env,
		"docsd build-markdown docs",
	}
	cmds := f.commands(b.ID)
	if got := commandLines(cmds); !slices.Equal(got, wantCommands) {
		t.Errorf("commands\n got %q\nwant %q", got, wantCommands)
	}
	for _, c := range cmds {
		if c.ExitCode == nil || *c.ExitCode != 0 || c.EndTime == nil || c.EndTime.Before(c.StartTime) {
			t.Errorf("command %q: exit %v, start %v, end %v", c.Command, deref(c.ExitCode), c.StartTime, c.EndTime)
		}
	}
	if last := cmds[len(cmds)-1]; last.Description != "Built-in Markdown builder" || !strings.Contains(last.Output, "docs/index.md") && !strings.Contains(last.Output, "index.md -> index.html") {
		t.Errorf("built-in builder command: description %q, output %q", last.Description, last.Output)
	}
	var cfg map[string]any
	if err := json.Unmarshal([]byte(b.Config), &cfg); err != nil || cfg["doctype"] != "mkdocs" {
		t.Errorf("stored config %s, want doctype mkdocs", b.Config)
	}

	// HTML on disk, with navigation and a table of contents.
	index := f.htmlFile("plain-docs", "latest", "index.html")
	for _, want := range []string{"Head of main.", `href="guide/usage.html"`, "<title>Welcome — Plain Docs</title>"} {
		if !strings.Contains(index, want) {
			t.Errorf("index.html lacks %q:\n%s", want, index)
		}
	}
	usage := f.htmlFile("plain-docs", "latest", "guide/usage.html")
	if !strings.Contains(usage, `href="#install"`) || !strings.Contains(usage, `href="../index.html"`) {
		t.Errorf("guide/usage.html lacks its table of contents or navigation:\n%s", usage)
	}
	f.htmlFile("plain-docs", "latest", "img/logo.svg")

	// Versions match the repository's branches and tags.
	p, err := f.store.FindProjectByID(context.Background(), imp.Project.ID)
	if err != nil {
		t.Fatal(err)
	}
	if p.DetectedDefaultBranch == nil || *p.DetectedDefaultBranch != "main" || p.DocumentationType != "mkdocs" || !p.Modified.Equal(imp.Project.Modified) {
		t.Errorf("project: detected %v, doctype %q, modified changed %v", deref2(p.DetectedDefaultBranch), p.DocumentationType, !p.Modified.Equal(imp.Project.Modified))
	}
	vs := f.versions(imp.Project.ID)
	want := map[string]string{"latest": "main", "main": "origin/main", "dev": "origin/dev", "v1.0": "", "v1.1": v11, "v2.0rc1": v11, "stable": v11}
	if len(vs) != len(want) {
		t.Errorf("%d versions, want %d: %v", len(vs), len(want), keys(vs))
	}
	for slug, id := range want {
		v := vs[slug]
		if v == nil {
			t.Errorf("version %q missing", slug)
			continue
		}
		if id != "" && v.Identifier != id {
			t.Errorf("version %q identifier %q, want %q", slug, v.Identifier, id)
		}
		active := slug == "latest" || slug == "stable"
		if v.Active != active {
			t.Errorf("version %q active %v, want %v", slug, v.Active, active)
		}
	}
	if !vs["latest"].Built || !vs["stable"].Built {
		t.Errorf("built: latest %v, stable %v; want both built", vs["latest"].Built, vs["stable"].Built)
	}
	stableBuilds := f.builds(vs["stable"].ID)
	if len(stableBuilds) != 1 {
		t.Fatalf("stable has %d builds, want 1 (queued by its promotion)", len(stableBuilds))
	}
	f.mustSucceed(stableBuilds[0])
	if news := f.htmlFile("plain-docs", "stable", "news.html"); !strings.Contains(news, "News") {
		t.Errorf("stable does not show v1.1's pages")
	}
	if strings.Contains(f.htmlFile("plain-docs", "stable", "index.html"), "Head of main.") {
		t.Errorf("stable shows main's index, want v1.1's")
	}

	// A second build fetches into the cached checkout and reuses the
	// environment.
	again := f.trigger(vs["latest"])
	f.drain()
	f.mustSucceed(again)
	got := commandLines(f.commands(again.ID))
	wantAgain := []string{
		"git remote set-url origin " + r.URL(),
		"git fetch origin --force --tags --prune --prune-tags --depth 50",
		"git remote set-head origin --auto",
		"git checkout --force origin/main",
		"git clean -d -f -f",
		"git rev-parse HEAD",
		"docsd build-markdown docs",
	}
	if !slices.Equal(got, wantAgain) {
		t.Errorf("second build's commands\n got %q\nwant %q", got, wantAgain)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func deref2(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}

// setupPy is a setup.py that the `setuptools` install method runs with the
// build environment: it prints what it is given and exits with code.
func setupPy(code int, lines ...string) string {
	return "import os, sys\n" + strings.Join(lines, "\n") + "\nsys.exit(" + strconv.Itoa(code) + ")\n"
}

// setuptoolsConfig installs the repository with setup.py and builds the
// Markdown docs with the built-in builder.
const setuptoolsConfig = "version: 2\nmkdocs: {}\npython:\n  install:\n    - path: .\n      method: setuptools\n"

// failureIDs are the notification ids of the
// failures of TestPipelineFailures.
var failureIDs = map[string]string{
	"Bad Yaml": "config:generic", "Unknown Key": "config:generic", "Missing Conf": "project:sphinx:conf-py-not-found",
	"Crashing Tool": "build:user:generic", "Two Latest": "project:repository:duplicated-reserved-versions",
	"Nothing To Build": "build:user:generic", "No Repo": "project:repository:public-clone-error",
	"Skipped": "build:app:project-builds-disabled", "Gone Ref": "project:repository:checkout-failed",
	"Removed Key": "config:python:system-packages-removed",
}

func TestPipelineFailures(t *testing.T) {
	f := newFixture(t, store.SQLite, Config{GitCloneDepth: 50})
	states := watchStates(f.pool)
	ctx := context.Background()
	env := func(slug string) string { return filepath.Join(f.data, "envs", slug, "latest", "bin", "python") }

	type tc struct {
		name  string
		files map[string]string
		setup func(r *repo)
		want  string
		code  int
	}
	cases := []tc{
		{name: "Bad Yaml", files: map[string]string{".readthedocs.yaml": "version: 2\nmkdocs: {}\npython:\n  version: 4\n"},
			want: `Problem in your project's configuration. Invalid "python.version": expected one of (2, 2.7, 3, 3.5, 3.6, 3.7, pypy3.5), got 4`, code: 1},
		{name: "Unknown Key", files: map[string]string{".readthedocs.yaml": "version: 2\nmkdocs: {}\nsphinxx: {}\n"},
			want: `Problem in your project's configuration. Invalid "sphinxx": .readthedocs.yaml: Invalid configuration option: sphinxx. Make sure the key name is correct.`, code: 1},
		{name: "Missing Conf", files: map[string]string{".readthedocs.yaml": "version: 2\nsphinx:\n  configuration: docs/conf.py\n"},
			want: MsgConfPyNotFound, code: 1},
		{name: "Crashing Tool", files: map[string]string{".readthedocs.yaml": setuptoolsConfig, "setup.py": setupPy(3, `print("boom")`)},
			want: fmt.Sprintf(MsgCommandFormat, env("crashing-tool")+" ./setup.py install --force", 3), code: 3},
		{name: "Two Latest", setup: func(r *repo) { r.git("branch", "latest"); r.git("tag", "latest") },
			want: MsgDuplicateMachine, code: 1},
		{name: "Nothing To Build", files: map[string]string{"src/main.c": "int main;"}, want: MsgNoDocumentation, code: 1},
		{name: "Removed Key", files: map[string]string{".readthedocs.yaml": "version: 2\nbuild: {os: ubuntu-24.04, tools: {python: \"3\"}}\nmkdocs: {}\npython:\n  system_packages: true\n"},
			want: "Problem in your project's configuration. The configuration key python.system_packages has been deprecated and removed. " +
				"Read our blog post to learn more about this change and how to upgrade your configuration file.", code: 1},
	}
	type started struct {
		tc
		build *store.Build
	}
	var all []started
	for _, c := range cases {
		r := newRepo(t, "master")
		files := c.files
		if files == nil {
			files = markdownSite
		}
		r.commit("initial", files)
		if c.setup != nil {
			c.setup(r)
		}
		imp := f.importProject(c.name, r)
		all = append(all, started{c, imp.Build})
	}

	// A repository that can't be cloned.
	imp := f.importProject("No Repo", &repo{t: t, dir: filepath.Join(t.TempDir(), "missing")})
	all = append(all, started{tc{name: "No Repo", want: MsgRepoPublic, code: 1}, imp.Build})

	// A project whose builds are disabled.
	skipRepo := newRepo(t, "master")
	skipRepo.commit("docs", markdownSite)
	imp = f.importProject("Skipped", skipRepo)
	if _, err := f.store.UpdateProject(ctx, imp.Project.ID, store.ProjectUpdate{Skip: ptr(true)}); err != nil {
		t.Fatal(err)
	}
	all = append(all, started{tc{name: "Skipped", want: MsgSkip, code: 1}, imp.Build})

	// A version whose ref is gone: checkout fails.
	goneRepo := newRepo(t, "master")
	goneRepo.commit("docs", markdownSite)
	imp = f.importProject("Gone Ref", goneRepo)
	gone, err := f.store.CreateVersion(ctx, &store.Version{ProjectID: imp.Project.ID, Slug: "gone", VerboseName: "gone", Identifier: "gone", Type: store.Branch, Active: true})
	if err != nil {
		t.Fatal(err)
	}
	all = append(all, started{tc{name: "Gone Ref", want: "Failed to checkout revision: gone", code: 1}, f.trigger(gone)})

	// And a good one after all of them: the worker goes on.
	good := newRepo(t, "master")
	good.commit("docs", markdownSite)
	goodBuild := f.importProject("Good", good).Build

	f.drain()
	for _, s := range all {
		t.Run(s.name, func(t *testing.T) {
			b := f.build(s.build.ID)
			if b.State != store.Finished || b.Success {
				t.Fatalf("state %s success %v, want a failed finished build", b.State, b.Success)
			}
			if b.Error != s.want {
				t.Errorf("error\n got %s\nwant %s", b.Error, s.want)
			}
			if b.ExitCode == nil || *b.ExitCode != s.code {
				t.Errorf("exit code %v, want %d", deref(b.ExitCode), s.code)
			}
			if want := failureIDs[s.name]; b.ErrorID != want {
				t.Errorf("error id %q, want %q", b.ErrorID, want)
			}
			if s.name == "Removed Key" && graph.NotificationHeader(b.ErrorID) != "Invalid configuration key" {
				t.Errorf("header %q, want Read the Docs' %q", graph.NotificationHeader(b.ErrorID), "Invalid configuration key")
			}
		})
	}
	f.mustSucceed(goodBuild)

	// A disabled project's build goes from triggered to finished.
	if got := states.of(all[len(cases)+1].build.ID); len(got) != 0 {
		t.Errorf("the skipped build went through %v", got)
	}

	// The clone failure is recorded with git's own exit code.
	cmds := f.commands(all[len(cases)].build.ID)
	if len(cmds) != 1 || !strings.HasPrefix(cmds[0].Command, "git clone ") || cmds[0].ExitCode == nil || *cmds[0].ExitCode == 0 {
		t.Errorf("clone failure commands %q", commandLines(cmds))
	}
}

func TestPipelineFailedBuildKeepsLastGoodHTML(t *testing.T) {
	r := newRepo(t, "master")
	r.commit("docs", markdownSite)
	f := newFixture(t, store.SQLite, Config{})
	imp := f.importProject("Keep", r)
	f.drain()
	f.mustSucceed(imp.Build)

	r.commit("break", map[string]string{".readthedocs.yaml": "version: 2\nformats: 3\n", "docs/index.md": "# Broken\n"})
	b := f.trigger(f.version(imp.Project.ID, "latest"))
	f.drain()
	if b = f.build(b.ID); b.Success || b.Error != `Problem in your project's configuration. Invalid "formats": expected list` {
		t.Fatalf("build: success %v error %q", b.Success, b.Error)
	}
	if index := f.htmlFile("keep", "latest", "index.html"); !strings.Contains(index, "Welcome") {
		t.Errorf("the failed build replaced the hosted HTML:\n%s", index)
	}
	if !f.version(imp.Project.ID, "latest").Built {
		t.Error("latest is no longer built")
	}
}

func TestPipelineEnvironmentVariablesMasked(t *testing.T) {
	const secret = "s3cr3t-t0ken-value"
	t.Setenv("DOCSD_TEST_LEAK", "docsd's own environment")
	r := newRepo(t, "master")
	files := map[string]string{".readthedocs.yaml": setuptoolsConfig, "setup.py": setupPy(0,
		`print("API_KEY=" + os.environ["API_KEY"])`,
		`print("SHORT=" + os.environ["SHORT"])`,
		`print("RTD=" + os.environ["READTHEDOCS"] + "/" + os.environ["READTHEDOCS_PROJECT"] + "/" + os.environ["READTHEDOCS_VERSION"] + "/" + os.environ["READTHEDOCS_LANGUAGE"])`,
		`print("LEAK=" + str(os.environ.get("DOCSD_TEST_LEAK")))`,
		`print("BIN=" + os.environ["BIN_PATH"] + " PATH=" + os.environ["PATH"].split(":")[0])`,
		`print("OVERRIDE=" + os.environ["READTHEDOCS_PROJECT"])`,
	)}
	for name, content := range markdownSite {
		files[name] = content
	}
	r.commit("docs", files)
	f := newFixture(t, store.SQLite, Config{})
	imp := f.importProject("Masked", r)
	ctx := context.Background()
	for name, value := range map[string]string{"API_KEY": secret, "SHORT": "abc", "READTHEDOCS_PROJECT": "hijack"} {
		if _, err := f.store.CreateEnvironmentVariable(ctx, imp.Project.ID, name, value, false); err != nil {
			t.Fatal(err)
		}
	}
	f.drain()
	b := f.mustSucceed(imp.Build)
	var out string
	for _, c := range f.commands(b.ID) {
		if strings.Contains(c.Output, secret) || strings.Contains(c.Command, secret) {
			t.Errorf("command %q records the secret:\n%s", c.Command, c.Output)
		}
		if strings.HasSuffix(c.Command, "setup.py install --force") {
			out = c.Output
		}
	}
	bin := filepath.Join(f.data, "envs", "masked", "latest", "bin")
	for _, want := range []string{"API_KEY=***\n", "SHORT=abc\n", "RTD=True/masked/latest/en\n", "LEAK=None\n", "BIN=" + bin + " PATH=" + bin + "\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("setup.py output lacks %q:\n%s", want, out)
		}
	}

	// A failing build's error and output are masked too.
	r.commit("fail", map[string]string{"setup.py": setupPy(2, `print(os.environ["API_KEY"])`)})
	failed := f.trigger(f.version(imp.Project.ID, "latest"))
	f.drain()
	failed = f.build(failed.ID)
	if failed.Success || strings.Contains(failed.Error, secret) {
		t.Errorf("failed build: success %v error %q", failed.Success, failed.Error)
	}
	for _, c := range f.commands(failed.ID) {
		if strings.Contains(c.Output, secret) {
			t.Errorf("failed build's command %q records the secret", c.Command)
		}
	}
}

// sleeper is a setup.py or conf.py that starts a child process, writes
// a file into its HOME and sleeps. The child's command line holds a token
// by which the test finds it among the machine's processes: in the
// sandbox, its pid is not the host's.
type sleeper struct {
	token   string
	started string // the file the script writes once its child runs
}

// newSleeper returns a sleeper for the project slug of f.
func newSleeper(f *fixture, slug string) *sleeper {
	return &sleeper{
		token:   "docsd-test-child-" + randomHex(8),
		started: filepath.Join(f.data, "homes", slug, "child.started"),
	}
}

// script is the Python code of the sleeper; a daemon child leaves the
// process group for a session of its own (setsid).
func (s *sleeper) script(daemon bool) string {
	session := "False"
	if daemon {
		session = "True"
	}
	return "import os, subprocess, sys, time\n" +
		"child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)', " + pyQuote(s.token) + "], start_new_session=" + session + ")\n" +
		"open(os.path.join(os.environ['HOME'], 'child.started'), 'w').write(str(child.pid))\n" +
		"print('sleeping', flush=True)\n" +
		"time.sleep(120)\n"
}

// pids returns the machine's live processes whose command line holds the
// sleeper's token.
func (s *sleeper) pids() []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil || !strings.Contains(string(cmdline), s.token) {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if f := strings.Fields(string(stat)); err == nil && len(f) > 2 && f[2] != "Z" {
			out = append(out, pid) // a zombie nobody reaped counts as exited
		}
	}
	return out
}

// waitGone fails the test unless the sleeper's child started and has
// exited within a few seconds.
func (s *sleeper) waitGone(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(s.started); err != nil {
		t.Fatalf("the build never started its child: %v", err)
	}
	var left []int
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if left = s.pids(); len(left) == 0 {
			return
		}
	}
	for _, pid := range left {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	t.Errorf("child processes %v outlived their build", left)
}

func TestPipelineTimeLimitKillsProcessTree(t *testing.T) {
	f := newFixture(t, store.SQLite, Config{})
	imp, child := sleeperProject(t, f, false)
	timeLimitWhenSleeping(f, child)
	next := newRepo(t, "master")
	next.commit("docs", markdownSite)
	nextBuild := f.importProject("Next", next).Build
	f.drain()
	b := f.build(imp.Build.ID)
	if b.State != store.Finished || b.Success || b.Error != MsgTimeout || b.ExitCode == nil || *b.ExitCode != 1 {
		t.Errorf("build: state %s success %v error %q exit %v; want the time-out failure", b.State, b.Success, b.Error, deref(b.ExitCode))
	}
	cmds := f.commands(b.ID)
	last := cmds[len(cmds)-1]
	if !strings.HasSuffix(last.Command, "setup.py install --force") || last.ExitCode == nil || *last.ExitCode != -9 || !strings.Contains(last.Output, "sleeping") {
		t.Errorf("killed command %q: exit %v output %q; want exit -9 with its partial output", last.Command, deref(last.ExitCode), last.Output)
	}
	child.waitGone(t)
	f.mustSucceed(nextBuild)
}

func TestPipelineExternalVersion(t *testing.T) {
	r := newRepo(t, "master")
	r.commit("docs", markdownSite)
	f := newFixture(t, store.SQLite, Config{GitCloneDepth: 50})
	imp := f.importProject("Previews", r)
	f.drain()
	f.mustSucceed(imp.Build)
	before := keys(f.versions(imp.Project.ID))

	// Pull request 7 exists only as refs/pull/7/head on the remote.
	// Its setup.py reports which project variables the build was given: a
	// pull-request build gets the public ones only.
	r.git("checkout", "-q", "-b", "feature")
	sha := r.commit("feature", map[string]string{"docs/index.md": "# Preview of 7\n", ".readthedocs.yaml": setuptoolsConfig,
		"setup.py": setupPy(0, `print("PUBLIC=" + os.environ.get("PUBLIC_VAR", "absent"))`, `print("SECRET=" + os.environ.get("SECRET", "absent"))`)})
	r.git("update-ref", "refs/pull/7/head", sha)
	r.git("checkout", "-q", "master")
	r.git("branch", "-D", "feature")
	ctx := context.Background()
	if _, err := f.store.CreateEnvironmentVariable(ctx, imp.Project.ID, "SECRET", "not-for-previews", false); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.CreateEnvironmentVariable(ctx, imp.Project.ID, "PUBLIC_VAR", "shown-in-previews", true); err != nil {
		t.Fatal(err)
	}
	v, err := f.store.CreateVersion(ctx, &store.Version{ProjectID: imp.Project.ID, Slug: "7", VerboseName: "7", Identifier: sha, Type: store.External, Active: true})
	if err != nil {
		t.Fatal(err)
	}
	b, err := f.store.CreateBuild(ctx, v, &sha)
	if err != nil {
		t.Fatal(err)
	}
	f.drain()
	f.mustSucceed(b)
	got := commandLines(f.commands(b.ID))
	if !slices.Contains(got, "git fetch origin --force pull/7/head:external-7 --depth 50") || !slices.Contains(got, "git checkout --force "+sha) {
		t.Errorf("commands %q lack the pull request fetch and checkout", got)
	}
	var out string
	for _, c := range f.commands(b.ID) {
		if strings.HasSuffix(c.Command, "setup.py install --force") {
			out = c.Output
		}
		if strings.Contains(c.Output, "shown-in-previews") {
			t.Errorf("command %q records the public value unmasked", c.Command)
		}
	}
	if !strings.Contains(out, "PUBLIC=***\n") || !strings.Contains(out, "SECRET=absent\n") {
		t.Errorf("setup.py output %q; want the public variable (masked) and not the other", out)
	}
	if index := f.htmlFile("previews", "7", "index.html"); !strings.Contains(index, "Preview of 7") {
		t.Errorf("preview HTML:\n%s", index)
	}
	wantAfter := append(slices.Clone(before), "7")
	slices.Sort(wantAfter)
	if after := keys(f.versions(imp.Project.ID)); !slices.Equal(after, wantAfter) {
		t.Errorf("versions %v after a preview build, want %v plus 7 (no sync)", after, before)
	}
}

func TestPipelineSubmodules(t *testing.T) {
	sub := newRepo(t, "master")
	sub.commit("extra", map[string]string{"extra.md": "# From the submodule\n"})
	r := newRepo(t, "master")
	files := map[string]string{".readthedocs.yaml": "version: 2\nmkdocs: {}\nsubmodules:\n  include: all\n"}
	for name, content := range markdownSite {
		files[name] = content
	}
	r.write(files)
	r.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", sub.URL(), "docs/ext")
	r.commit("docs with a submodule", nil)

	f := newFixture(t, store.SQLite, Config{})
	imp := f.importProject("Subs", r)
	f.drain()
	b := f.mustSucceed(imp.Build)
	got := commandLines(f.commands(b.ID))
	for _, want := range []string{"git submodule sync", "git submodule update --init --force docs/ext"} {
		if !slices.Contains(got, want) {
			t.Errorf("commands %q lack %q", got, want)
		}
	}
	if page := f.htmlFile("subs", "latest", "ext/extra.html"); !strings.Contains(page, "From the submodule") {
		t.Errorf("the submodule's page:\n%s", page)
	}

	// A submodule on an SSH URL is refused.
	r.write(map[string]string{".gitmodules": "[submodule \"docs/ext\"]\n\tpath = docs/ext\n\turl = git@github.com:acme/ext.git\n"})
	r.commit("ssh submodule", nil)
	bad := f.trigger(f.version(imp.Project.ID, "latest"))
	f.drain()
	if bad = f.build(bad.ID); bad.Error != "One or more submodule URLs are not valid: docs/ext, git/ssh URL schemas for submodules are not supported." {
		t.Errorf("error %q", bad.Error)
	}
}
