package builder

import (
	"context"
	"os/exec"
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
		t.Errorf("versions = %v, want only the version §C9.2 lacks", got)
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

// TestResolveTools checks §C4.2 on this machine's real tools: a missing
// tool (F1), another Python major (F2), and Node.js substitution (N1, or
// F2 with build_tools_strict).
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
