package builder

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseBuildTools(t *testing.T) {
	tools, err := ParseBuildTools("python:3.10=/opt/py310/bin/python3.10, nodejs:18=/opt/node18/bin/node uv:latest=/usr/local/bin/uv")
	if err != nil || len(tools) != 3 || tools.lookup("nodejs", "18") != "/opt/node18/bin/node" {
		t.Fatalf("ParseBuildTools = %+v, %v", tools, err)
	}
	extra, _ := ParseBuildTools("python:3.15=/opt/py/bin/python3.15,python:3.10=/x/python")
	if got := extra.versions(); len(got["python"]) != 1 || got["python"][0] != "3.15" {
		t.Errorf("versions = %v, want only the version Read the Docs' choices lack", got)
	}
	if err := tools.CheckVisible("/srv/docsd"); err != nil {
		t.Errorf("CheckVisible: %v", err)
	}
	hidden, _ := ParseBuildTools("python:3.10=/srv/docsd/py/bin/python3.10")
	if err := hidden.CheckVisible("/srv/docsd"); err == nil {
		t.Errorf("CheckVisible accepted a path under the data directory")
	}
	for _, bad := range []string{"python:3.10", "java:21=/usr/bin/java", "python:3.10=bin/python"} {
		if _, err := ParseBuildTools(bad); err == nil {
			t.Errorf("ParseBuildTools(%q) accepted", bad)
		}
	}
}

// TestResolveTools checks tool resolution on this machine's real tools: a
// missing tool fails, another Python major fails, and Node.js is
// substituted with a note (or fails with build_tools_strict).
func TestResolveTools(t *testing.T) {
	ctx := context.Background()
	j := &job{pool: &Pool{cfg: Config{BuildPython: "/usr/bin/python3"}}}
	for _, tool := range []string{"go", "rustc", "ruby"} {
		if _, err := exec.LookPath(tool); err == nil {
			continue
		}
		name := map[string]string{"go": "golang", "rustc": "rust", "ruby": "ruby"}[tool]
		version := map[string]string{"go": "1.22", "rustc": "1.75", "ruby": "3.3"}[tool]
		r := j.resolveTool(ctx, name, version)
		want := `build.tools.` + name + ` "` + version + `": ` + toolNames[name] + ` is not installed on this server.`
		if r.failure == nil || r.failure.Error() != want {
			t.Errorf("%s: %v, want %s", name, r.failure, want)
		}
	}
	if r := j.resolveTool(ctx, "python", "2.7"); r.failure == nil || !strings.Contains(r.failure.Error(), `build.tools.python "2.7": this server has Python 3.`) {
		t.Errorf("python 2.7: %+v", r)
	}
	if r := j.resolveTool(ctx, "python", "3"); r.failure != nil || r.note != "" || !strings.HasPrefix(r.version, "3.") {
		t.Errorf("python 3: %+v", r)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node on this machine")
	}
	r := j.resolveTool(ctx, "nodejs", "14")
	if r.failure != nil || !strings.HasPrefix(r.note, "Node.js 14 is not installed on this server; Node.js ") || !strings.HasSuffix(r.note, "("+node+") is used instead.") {
		t.Errorf("nodejs 14: %+v", r)
	}
	j.pool.cfg.BuildToolsStrict = true
	if r := j.resolveTool(ctx, "nodejs", "14"); r.failure == nil || !strings.HasSuffix(r.failure.Error(), "("+node+"), not Node.js 14.") {
		t.Errorf("nodejs 14, strict: %+v", r)
	}
}

// visibleTempDir makes a directory that build commands could see (not under
// /tmp, HOME or another directory the sandbox hides) and returns it with
// its parent: under the source tree, or under /var/cache when the checkout
// itself lives in a hidden directory (a clone under /tmp or /root). It
// skips the test, saying why, when neither can be made.
func visibleTempDir(t *testing.T, j *job) (dir, parent string) {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for _, parent := range []string{wd, "/var/cache"} {
		dir, err := os.MkdirTemp(parent, ".docsd-tools-")
		if err != nil {
			continue
		}
		if !j.visible(filepath.Join(dir, "tool")) {
			os.RemoveAll(dir)
			continue
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		return dir, parent
	}
	t.Skipf("SKIPPED: no directory build commands could see is writable here (tried %s and /var/cache)", wd)
	return "", ""
}

// TestToolsOnDocsdPath checks where tools are looked for, with real
// executables on docsd's own PATH: a tool there gives a substitution note
// (or is used as is when it matches), and one that lives only under /tmp
// (or links there) counts as missing, like one under /root, /run, HOME
// or the data directory, which the sandbox hides. conda flavours find
// conda, mamba or micromamba the same way, and so does a uv install entry.
func TestToolsOnDocsdPath(t *testing.T) {
	j := &job{pool: &Pool{cfg: Config{BuildPython: "/usr/bin/python3", DataDir: t.TempDir()}}}
	visible, base := visibleTempDir(t, j)
	hidden := t.TempDir() // under /tmp
	linked := filepath.Join(base, filepath.Base(visible)+"-links")
	if err := os.Mkdir(linked, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(linked) })
	scripts := map[string]string{"ruby": "echo 'ruby 3.4.1 (2024-12-25 revision 48d4efcb85) +PRISM [x86_64-linux]'",
		"micromamba": "echo 2.0.5", "uv": "echo 'uv 0.5.0'"}
	for name, body := range scripts {
		if _, err := os.Stat(filepath.Join("/usr/bin", name)); err == nil {
			t.Skipf("this machine has %s on the build PATH", name)
		}
		for _, dir := range []string{visible, hidden} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Symlink(filepath.Join(hidden, name), filepath.Join(linked, name)); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	for _, tc := range []struct {
		name, dir, tool, want string
		note, failure         string
	}{
		{"substituted", visible, "ruby", "3.3", "Ruby 3.3 is not installed on this server; Ruby 3.4.1 (" + visible + "/ruby) is used instead.", ""},
		{"matching", visible, "ruby", "3.4", "", ""},
		{"under /tmp", hidden, "ruby", "3.3", "", `build.tools.ruby "3.3": Ruby is not installed on this server.`},
		{"linked to /tmp", linked, "ruby", "latest", "", `build.tools.ruby "latest": Ruby is not installed on this server.`},
		{"micromamba", visible, "python", "miniforge3-latest", "", ""},
		{"micromamba under /tmp", hidden, "python", "mambaforge-latest", "", `build.tools.python "mambaforge-latest": conda is not installed on this server.`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("PATH", tc.dir+":"+os.Getenv("PATH"))
			r := j.resolveTool(ctx, tc.tool, tc.want)
			if got := fmt.Sprint(r.failure); (tc.failure == "" && r.failure != nil) || (tc.failure != "" && got != tc.failure) {
				t.Fatalf("failure %v, want %q", r.failure, tc.failure)
			}
			if r.note != tc.note {
				t.Errorf("note %q, want %q", r.note, tc.note)
			}
			if tc.failure == "" && filepath.Dir(r.path) != tc.dir {
				t.Errorf("path %q, want one in %s", r.path, tc.dir)
			}
		})
	}
	t.Run("uv", func(t *testing.T) {
		t.Setenv("PATH", visible+":"+os.Getenv("PATH"))
		if p, err := j.uvPath(); err != nil || p != filepath.Join(visible, "uv") {
			t.Errorf("uvPath = %q, %v", p, err)
		}
	})
	t.Run("uv under /tmp", func(t *testing.T) {
		t.Setenv("PATH", hidden+":"+os.Getenv("PATH"))
		if _, err := j.uvPath(); fmt.Sprint(err) != `python.install method "uv": uv is not installed on this server.` {
			t.Errorf("uvPath err = %v", err)
		}
	})
}

// TestCondaCreateArgv checks the command that creates a conda
// environment with each implementation docsd runs.
func TestCondaCreateArgv(t *testing.T) {
	for _, tc := range []struct{ exe, want string }{
		{"/opt/conda/bin/conda", "/opt/conda/bin/conda env create --quiet --name latest --file environment.yml"},
		{"/usr/local/bin/mamba", "/usr/local/bin/mamba env create --quiet --name latest --file environment.yml"},
		{"/usr/local/bin/micromamba", "/usr/local/bin/micromamba env create --yes --prefix /data/conda/p/latest --file environment.yml"},
	} {
		if got := strings.Join(condaCreateArgv(tc.exe, "/data/conda/p/latest", "latest", "environment.yml"), " "); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.exe, got, tc.want)
		}
	}
}
