package builder

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"docsd/store"
)

// lumacheSite is a minimal Sphinx project under docs/.
var lumacheSite = map[string]string{
	"docs/conf.py":          "project = 'Lumache'\n",
	"docs/index.rst":        "Lumache\n=======\n\nHello from Sphinx.\n",
	"docs/requirements.txt": "sphinx\n",
}

// fakeConda stands for conda: it reports a version and "creates" an
// environment whose python is the system's.
const fakeConda = `#!/bin/sh
if [ "$1" = "--version" ]; then echo "conda 24.1.2"; exit 0; fi
mkdir -p "$CONDA_ENVS_PATH/$5/bin" && ln -s /usr/bin/python3 "$CONDA_ENVS_PATH/$5/bin/python"
`

// fakeMicromamba stands for micromamba: `env create --yes --prefix <env>
// --file <file>` makes the prefix, whose python is the system's.
const fakeMicromamba = `#!/bin/sh
if [ "$1" = "--version" ]; then echo "2.0.5"; exit 0; fi
[ "$1 $2 $3 $4" = "env create --yes --prefix" ] || exit 9
mkdir -p "$5/bin" && ln -s /usr/bin/python3 "$5/bin/python"
`

// fakeUV stands for uv: venv makes a venv, sync does nothing, run runs
// the command with the environment's Python.
const fakeUV = `#!/bin/sh
case "$1" in
--version) echo "uv 0.4.0" ;;
venv) exec "$3" -m venv --system-site-packages --without-pip "$4" ;;
sync) echo "synced $UV_PROJECT" ;;
run) shift 4; exec "$UV_PROJECT_ENVIRONMENT/bin/python" -m sphinx "$@" ;;
esac
`

// tutorialTemplate is readthedocs/tutorial-template's config, verbatim.
const tutorialTemplate = `version: "2"

build:
  os: "ubuntu-22.04"
  tools:
    python: "3.10"

python:
  install:
    - requirements: docs/requirements.txt

sphinx:
  configuration: docs/source/conf.py
`

// currentBuild is one project of TestCurrentPipeline.
type currentBuild struct {
	name  string
	files map[string]string
	build *store.Build
	slug  string
}

// TestCurrentPipeline runs real builds of current files (a build mapping
// with os, tools, jobs or commands) through the pipeline: Sphinx and
// MkDocs with their defaults, build.jobs, build.commands with
// $READTHEDOCS_OUTPUT, exit code 183 and configuration failures with
// their message ids.
func TestCurrentPipeline(t *testing.T) {
	toolsOrSkip(t, "sphinx")
	toolsOrSkip(t, "mkdocs")
	// No package index here, and no apt: --offline-builds skips them.
	f := newFixture(t, store.SQLite, Config{GitCloneDepth: 50, BuildPython: "/usr/bin/python3", OfflineBuilds: true})
	withSphinx := func(extra map[string]string) map[string]string { return withFiles(lumacheSite, extra) }
	cases := []*currentBuild{
		{name: "Tutorial", files: map[string]string{".readthedocs.yaml": tutorialTemplate,
			"docs/requirements.txt": "sphinx==7.1.2\n", "docs/source/conf.py": "project = 'Lumache'\n",
			"docs/source/index.rst": "Lumache\n=======\n\nTutorial.\n"}},
		{name: "Post Checkout", files: withSphinx(map[string]string{".readthedocs.yaml": "version: 2\nbuild:\n  os: ubuntu-24.04\n  tools:\n    python: \"3\"\n  apt_packages: [graphviz]\n  jobs:\n    pre_checkout: [\"echo never\"]\n    post_checkout:\n      - git fetch --unshallow || true\n    post_build:\n      - echo \"$READTHEDOCS_VERSION_NAME:$READTHEDOCS_GIT_IDENTIFIER\" > $READTHEDOCS_OUTPUT/html/ident.txt\n"})},
		{name: "Commands", files: map[string]string{".readthedocs.yaml": "version: 2\nbuild:\n  os: ubuntu-20.04\n  tools:\n    python: \"3\"\n  commands:\n    - mkdir -p $READTHEDOCS_OUTPUT/html $READTHEDOCS_OUTPUT/pdf\n    - echo \"<p>$READTHEDOCS_VERSION_TYPE $READTHEDOCS_GIT_COMMIT_HASH $NO_COLOR</p>\" > $READTHEDOCS_OUTPUT/html/index.html\n    - echo pdf > $READTHEDOCS_OUTPUT/pdf/out.pdf\n    - test -x \"$READTHEDOCS_VIRTUALENV_PATH/bin/pip\"\n"}},
		{name: "MkDocs", files: map[string]string{".readthedocs.yaml": "version: 2\nbuild:\n  os: ubuntu-22.04\n  tools:\n    python: \"3.12\"\nmkdocs:\n  configuration: mkdocs.yml\n",
			"mkdocs.yml": "site_name: Real MkDocs\n", "docs/index.md": "# Hello MkDocs\n"}},
		{name: "Skip 183", files: withSphinx(map[string]string{".readthedocs.yaml": "version: 2\nbuild:\n  os: ubuntu-22.04\n  tools:\n    python: \"3\"\n  jobs:\n    post_checkout:\n      - |\n        if [ \"$READTHEDOCS_VERSION_TYPE\" = \"branch\" ]; then\n          exit 183;\n        fi\n    post_install: [\"echo must not run\"]\n"})},
		{name: "No Output", files: map[string]string{".readthedocs.yaml": "version: 2\nbuild:\n  os: ubuntu-24.04\n  commands: [\"echo nothing\"]\n"}},
		{name: "Bad Config", files: withSphinx(map[string]string{".readthedocs.yaml": "version: 2\nbuild:\n  os: ubuntu-24.04\n"})},
		{name: "Missing Conf", files: withSphinx(map[string]string{".readthedocs.yaml": "version: 2\nbuild: {os: ubuntu-24.04, tools: {python: \"3\"}}\nsphinx: {configuration: doc/conf.py}\n"})},
		{name: "Python Two", files: withSphinx(map[string]string{".readthedocs.yaml": "version: 2\nbuild: {os: ubuntu-24.04, tools: {python: \"2.7\"}}\n"})},
		{name: "Conda", files: withSphinx(map[string]string{".readthedocs.yaml": "version: 2\nbuild: {os: ubuntu-24.04, tools: {python: miniforge3-latest}}\nconda: {environment: environment.yml}\n",
			"environment.yml": "name: docs\n", "tools/conda": fakeConda})},
		{name: "Micromamba", files: withSphinx(map[string]string{".readthedocs.yaml": "version: 2\nbuild:\n  os: ubuntu-24.04\n  tools: {python: mambaforge-latest}\n  jobs:\n    post_install:\n      - test \"$(command -v python)\" = \"$CONDA_PREFIX/bin/python\"\nconda: {environment: environment.yml}\n",
			"environment.yml": "name: docs\n", "tools/micromamba": fakeMicromamba})},
		{name: "UV", files: withSphinx(map[string]string{".readthedocs.yaml": "version: 2\nbuild: {os: ubuntu-24.04, tools: {python: \"3\"}}\npython:\n  install:\n    - method: uv\n      command: sync\n      groups: [docs]\nsphinx: {configuration: docs/conf.py}\n",
			"tools/uv": fakeUV})},
		{name: "No Conda", files: withSphinx(map[string]string{".readthedocs.yaml": "version: 2\nbuild: {os: ubuntu-24.04, tools: {python: miniconda3-4.7}}\nconda: {environment: environment.yml}\n",
			"environment.yml": "name: docs\n"})},
		{name: "No Conda legacy", files: withSphinx(map[string]string{".readthedocs.yaml": "version: 2\nconda: {environment: environment.yml}\n",
			"environment.yml": "name: docs\n"})},
	}
	for _, c := range cases {
		r := newRepo(t, "main")
		r.write(c.files)
		for _, tool := range []string{"conda", "micromamba", "uv"} {
			if c.files["tools/"+tool] != "" {
				if err := os.Chmod(filepath.Join(r.dir, "tools", tool), 0o755); err != nil {
					t.Fatal(err)
				}
			}
		}
		r.commit("initial", nil)
		if c.name == "Post Checkout" {
			r.git("tag", "1.0")
		}
		imp := f.importProject(c.name, r)
		c.build, c.slug = imp.Build, imp.Project.Slug
	}
	// The fake conda lives in its checkout, which the sandbox shows.
	f.pool.cfg.BuildTools = BuildTools{{Tool: "python", Version: "miniforge3-latest",
		Path: filepath.Join(f.data, "checkouts", "conda", "tools", "conda")},
		{Tool: "python", Version: "mambaforge-latest", Path: filepath.Join(f.data, "checkouts", "micromamba", "tools", "micromamba")},
		{Tool: "uv", Version: "latest", Path: filepath.Join(f.data, "checkouts", "uv", "tools", "uv")}}
	f.drain()
	byName := map[string]*currentBuild{}
	for _, c := range cases {
		byName[c.name] = c
	}
	t.Run("tutorial template", func(t *testing.T) { checkTutorial(t, f, byName["Tutorial"]) })
	t.Run("jobs", func(t *testing.T) { checkJobs(t, f, byName["Post Checkout"]) })
	t.Run("stable identifier", func(t *testing.T) {
		c := byName["Post Checkout"]
		stable := f.trigger(f.version(c.build.ProjectID, "stable"))
		f.drain()
		f.mustSucceed(stable)
		if got := f.htmlFile(c.slug, "stable", "ident.txt"); got != "stable:1.0\n" {
			t.Errorf("post_build saw %q, want stable:1.0", got)
		}
	})
	t.Run("commands", func(t *testing.T) { checkCommands(t, f, byName["Commands"]) })
	t.Run("mkdocs", func(t *testing.T) {
		c := byName["MkDocs"]
		b := f.mustSucceed(c.build)
		lines := commandLines(f.commands(b.ID))
		if !slices.Contains(lines, "cat mkdocs.yml") || !strings.Contains(f.htmlFile(c.slug, "latest", "index.html"), "Hello MkDocs") {
			t.Errorf("commands %q", lines)
		}
	})
	t.Run("conda", func(t *testing.T) {
		c := byName["Conda"]
		b := f.mustSucceed(c.build)
		if lines := commandLines(f.commands(b.ID)); !slices.Contains(lines, "conda env create --quiet --name latest --file environment.yml") {
			t.Errorf("commands %q", lines)
		}
		if !strings.Contains(b.Config, `"version":"miniforge3-latest"`) || !strings.Contains(b.Config, `"full_version":"24.1.2"`) {
			t.Errorf("stored config %s", b.Config)
		}
	})
	t.Run("micromamba", func(t *testing.T) {
		c := byName["Micromamba"]
		b := f.mustSucceed(c.build)
		env := filepath.Join(f.data, "conda", c.slug, "latest")
		lines := commandLines(f.commands(b.ID))
		if want := "micromamba env create --yes --prefix " + env + " --file environment.yml"; !slices.Contains(lines, want) {
			t.Errorf("commands lack %q:\n%q", want, lines)
		}
		if want := env + "/bin/python -m sphinx -T -E -b html -d _build/doctrees -D language=en . " + filepath.Join(f.data, "checkouts", c.slug, "_readthedocs", "html"); !slices.Contains(lines, want) {
			t.Errorf("Sphinx did not run in the prefix: no %q in\n%q", want, lines)
		}
	})
	t.Run("uv", func(t *testing.T) {
		c := byName["UV"]
		b := f.mustSucceed(c.build)
		uv := filepath.Join(f.data, "checkouts", "uv", "tools", "uv")
		env := filepath.Join(f.data, "envs", "uv", "latest")
		lines := commandLines(f.commands(b.ID))
		for _, want := range []string{uv + " venv --python /usr/bin/python3 " + env, uv + " sync --group docs" + offlineSkipped,
			uv + " run --no-sync --no-dev sphinx-build -T -E -b html -d _build/doctrees -D language=en . " + filepath.Join(f.data, "checkouts", "uv", "_readthedocs", "html")} {
			if !slices.Contains(lines, want) {
				t.Errorf("commands lack %q:\n%q", want, lines)
			}
		}
	})
	t.Run("conda missing, legacy rules", func(t *testing.T) {
		b := f.build(byName["No Conda legacy"].build.ID)
		if b.Success || !strings.Contains(b.Error, "conda, mamba or micromamba") {
			t.Errorf("error %q", b.Error)
		}
	})
	t.Run("exit code 183", func(t *testing.T) {
		b := f.build(byName["Skip 183"].build.ID)
		if b.Success || b.State != store.Finished || b.Error != MsgExitCode183 || deref(b.ExitCode) != 183 || b.ErrorID != IDExitCode183 {
			t.Errorf("build: success %v state %s error %q exit %v id %q", b.Success, b.State, b.Error, deref(b.ExitCode), b.ErrorID)
		}
		for _, l := range commandLines(f.commands(b.ID)) {
			if strings.Contains(l, "must not run") {
				t.Errorf("a command ran after exit code 183: %q", l)
			}
		}
		if _, err := f.arts.HTMLDir(byName["Skip 183"].slug, "latest"); err == nil {
			t.Errorf("a skipped build published HTML")
		}
	})
	for _, tc := range []struct{ name, err, id string }{
		{"No Output", MsgOutputNoHTML, IDOutputNoHTML},
		{"Bad Config", "Problem in your project's configuration. At least one of the following configuration options is required: build.tools or build.commands.", "config:build:missing-build-tools-commands"},
		{"Missing Conf", "The file doc/conf.py doesn't exist. Make sure it's a valid file path.", IDFileNotFound},
		{"Python Two", `build.tools.python "2.7": this server has Python `, IDCommandFailed},
		{"No Conda", `build.tools.python "miniconda3-4.7": conda is not installed on this server.`, IDCommandFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := f.build(byName[tc.name].build.ID)
			if b.Success || !strings.HasPrefix(b.Error, tc.err) || b.ErrorID != tc.id || deref(b.ExitCode) != 1 {
				t.Errorf("error %q id %q exit %v; want %q, %q, 1", b.Error, b.ErrorID, deref(b.ExitCode), tc.err, tc.id)
			}
			if lines := commandLines(f.commands(b.ID)); !slices.Contains(lines, "cat .readthedocs.yaml") {
				t.Errorf("commands %q lack cat .readthedocs.yaml", lines)
			}
		})
	}
}

// checkTutorial checks the tutorial template's build: the substitution
// note, the venv, the pip install skipped by --offline-builds (no index
// here), Sphinx into $READTHEDOCS_OUTPUT/html and the stored config.
func checkTutorial(t *testing.T, f *fixture, c *currentBuild) {
	b := f.mustSucceed(c.build)
	env := filepath.Join(f.data, "envs", c.slug, "latest")
	ckout := filepath.Join(f.data, "checkouts", c.slug)
	cmds := f.commands(b.ID)
	lines := commandLines(cmds)[5:]
	want := []string{"cat .readthedocs.yaml", "build.tools.python 3.10 (substituted)",
		"/usr/bin/python3 -m venv --system-site-packages --without-pip " + env,
		env + "/bin/python -m pip install --exists-action=w --no-cache-dir -r docs/requirements.txt" + offlineSkipped,
		"cat docs/source/conf.py",
		env + "/bin/python -m sphinx -T -E -b html -d _build/doctrees -D language=en . " + ckout + "/_readthedocs/html"}
	if _, err := os.Stat("/usr/bin/python3.10"); err == nil {
		t.Skip("this machine has Python 3.10: no substitution to check")
	}
	if !slices.Equal(lines, want) {
		t.Fatalf("commands\n got %q\nwant %q", lines, want)
	}
	if out := cmds[6].Output; !strings.HasPrefix(out, "Python 3.10 is not installed on this server; Python 3.") || !strings.HasSuffix(out, "(/usr/bin/python3) is used instead.") {
		t.Errorf("note %q", out)
	}
	if !strings.Contains(f.htmlFile(c.slug, "latest", "index.html"), "Tutorial.") {
		t.Errorf("published HTML is not the tutorial's")
	}
	var cfg map[string]any
	if err := json.Unmarshal([]byte(b.Config), &cfg); err != nil {
		t.Fatal(err)
	}
	build := cfg["build"].(map[string]any)
	tools := build["tools"].(map[string]any)["python"].(map[string]any)
	if build["os"] != "ubuntu-22.04" || tools["version"] != "3.10" || !strings.HasPrefix(tools["full_version"].(string), "3.") || cfg["doctype"] != "sphinx" {
		t.Errorf("stored config %s", b.Config)
	}
}

// checkJobs checks a pre_checkout note, post_checkout as a job command,
// the build.apt_packages note, and post_build seeing the READTHEDOCS_*
// variables.
func checkJobs(t *testing.T, f *fixture, c *currentBuild) {
	b := f.mustSucceed(c.build)
	cmds := f.commands(b.ID)
	byCommand := map[string]*store.BuildCommand{}
	for _, cmd := range cmds {
		byCommand[cmd.Command] = cmd
	}
	if n := byCommand["build.jobs.pre_checkout (skipped)"]; n == nil || n.Output != preCheckoutNote {
		t.Errorf("no pre_checkout note in %q", commandLines(cmds))
	}
	if j := byCommand["git fetch --unshallow || true"]; j == nil || j.Description != "build.jobs.post_checkout" || deref(j.ExitCode) != 0 {
		t.Errorf("post_checkout job %+v", j)
	}
	// Skipped by --offline-builds, or installed already on a machine with
	// graphviz.
	if !slices.ContainsFunc(cmds, func(c *store.BuildCommand) bool {
		return strings.HasPrefix(c.Command, "apt-get install graphviz (") && strings.Contains(c.Output, "graphviz") && deref(c.ExitCode) == 0
	}) {
		t.Errorf("no build.apt_packages note in %q", commandLines(cmds))
	}
	if got := f.htmlFile(c.slug, "latest", "ident.txt"); got != "latest:main\n" {
		t.Errorf("post_build saw %q, want latest:main", got)
	}
}

// checkCommands checks command mode: the commands recorded as written,
// the variables, the published HTML and the renamed PDF download.
func checkCommands(t *testing.T, f *fixture, c *currentBuild) {
	b := f.mustSucceed(c.build)
	cmds := f.commands(b.ID)
	if cat := cmds[5]; cat.Command != "cat .readthedocs.yaml" || !strings.HasSuffix(cat.Output, retiredOSNote+"\n") {
		t.Errorf("first setup command %q lacks the retired build.os note:\n%s", cat.Command, cat.Output)
	}
	last := cmds[len(cmds)-1]
	if last.Command != `test -x "$READTHEDOCS_VIRTUALENV_PATH/bin/pip"` || last.Description != "build.commands" {
		t.Errorf("last command %q (%q)", last.Command, last.Description)
	}
	if got, want := f.htmlFile(c.slug, "latest", "index.html"), "<p>branch "+deref2s(b.Commit)+" 1</p>\n"; got != want {
		t.Errorf("index.html %q, want %q", got, want)
	}
	if v := f.version(c.build.ProjectID, "latest"); !v.HasPDF || v.HasEPUB {
		t.Errorf("version flags pdf %v epub %v, want true false", v.HasPDF, v.HasEPUB)
	}
}

// deref2s is *p, "" for nil.
func deref2s(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// TestToolStepFailures runs real builds whose tools are missing on this
// server: they fail at the tools step with the missing-tool message (for
// Go, and for uv with a uv install entry), before any job that follows and
// any environment. docsd's own
// PATH is the build PATH here, so nothing outside it can satisfy them.
func TestToolStepFailures(t *testing.T) {
	t.Setenv("PATH", systemPath)
	f := newFixture(t, store.SQLite, Config{GitCloneDepth: 50, BuildPython: "/usr/bin/python3"})
	j := &job{pool: f.pool}
	cases := []struct{ name, missing, yaml, want string }{
		{"E16 Go", "go", "version: 2\nbuild: {os: ubuntu-24.04, tools: {python: \"3.12\", golang: \"1.22\"}, jobs: {pre_create_environment: [echo must not run]}}\n",
			`build.tools.golang "1.22": Go is not installed on this server.`},
		{"No UV", "uv", "version: 2\nbuild: {os: ubuntu-24.04, tools: {python: \"3\"}, jobs: {pre_create_environment: [echo must not run]}}\npython:\n  install:\n    - method: uv\n      command: pip\n      path: .[docs]\n",
			`python.install method "uv": uv is not installed on this server.`},
	}
	builds := make([]*store.Build, len(cases))
	for i, c := range cases {
		if _, ok := j.lookTool(c.missing); ok {
			t.Skipf("this machine has %s on the build PATH", c.missing)
		}
		r := newRepo(t, "main")
		r.commit("initial", withFiles(lumacheSite, map[string]string{".readthedocs.yaml": c.yaml}))
		builds[i] = f.importProject(c.name, r).Build
	}
	f.drain()
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := f.build(builds[i].ID)
			if b.State != store.Finished || b.Success || b.Error != c.want || b.ErrorID != IDCommandFailed || deref(b.ExitCode) != 1 {
				t.Errorf("build: state %s success %v error %q id %q exit %v; want %q", b.State, b.Success, b.Error, b.ErrorID, deref(b.ExitCode), c.want)
			}
			for _, l := range commandLines(f.commands(b.ID)) {
				if strings.Contains(l, "venv") || strings.Contains(l, "must not run") {
					t.Errorf("a later step ran after the tool step failed: %q", l)
				}
			}
		})
	}
}

// withFiles returns the union of file trees, later ones winning.
func withFiles(trees ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, tree := range trees {
		for k, v := range tree {
			out[k] = v
		}
	}
	return out
}
