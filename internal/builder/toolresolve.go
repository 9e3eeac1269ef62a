package builder

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"docsd/internal/rtdconfig"
)

// toolNames are the names messages give each tool.
var toolNames = map[string]string{"python": "Python", "nodejs": "Node.js", "ruby": "Ruby", "rust": "Rust", "golang": "Go", "uv": "uv"}

// toolCommands are the executables looked for on the build PATH.
var toolCommands = map[string][]string{"nodejs": {"node"}, "ruby": {"ruby"}, "rust": {"rustc"}, "golang": {"go"}, "uv": {"uv"}}

// versionPattern finds X.Y.Z (or X.Y) in a probe's output.
var versionPattern = regexp.MustCompile(`(\d+)\.(\d+)(?:\.(\d+))?`)

// resolution is how one requested tool is served on this server: the
// executable and the version it reported, the substitution note to
// record, or the failure (missing, or another version only) to end the
// build with at the tools step.
type resolution struct {
	path, version string
	note          string // the substitution note; "" when the request matched
	failure       error
}

// resolveTools resolves every build.tools entry without recording
// anything; it fills FullVersion and Path in the config.
func (j *job) resolveTools(ctx context.Context, cur *rtdconfig.Current) []resolution {
	out := make([]resolution, len(cur.Tools))
	for i := range cur.Tools {
		t := &cur.Tools[i]
		out[i] = j.resolveTool(ctx, t.Name, t.Version)
		t.Path, t.FullVersion = out[i].path, out[i].version
	}
	return out
}

// resolveTool finds one tool: the requested version when the server has
// it (build_tools first, then the build PATH), else this server's version
// with a note (for Python only of the same major), else a failure; every
// substitution fails under build_tools_strict (see
// docs/user-guide/builds.md#tools-what-the-machine-needs-and-substitution).
func (j *job) resolveTool(ctx context.Context, tool, want string) resolution {
	name := toolNames[tool]
	if configured := j.pool.cfg.BuildTools.lookup(tool, want); configured != "" {
		probe := tool
		if tool == "python" && rtdconfig.IsConda(want) {
			probe = "conda"
		}
		if v := probeVersion(ctx, probe, configured, want); v != "" {
			return resolution{path: configured, version: v}
		}
	}
	if tool == "python" && rtdconfig.IsConda(want) {
		return j.resolveConda(ctx, want)
	}
	var candidates []string
	if tool == "python" {
		if want == "3" || want == "latest" {
			return j.found(ctx, tool, want, j.pool.cfg.BuildPython, false)
		}
		candidates = j.pythonCandidates(want)
	} else {
		for _, c := range toolCommands[tool] {
			if p, ok := j.lookTool(c); ok {
				candidates = append(candidates, p)
			}
		}
	}
	for _, c := range candidates {
		if v := probeVersion(ctx, tool, c, ""); v != "" && (want == "latest" || matchesVersion(tool, v, want)) {
			return resolution{path: c, version: v}
		}
	}
	fallback := ""
	if tool == "python" {
		fallback = j.pool.cfg.BuildPython
	} else if len(candidates) > 0 {
		fallback = candidates[0]
	}
	if fallback == "" {
		return resolution{failure: failTool(tool, want, name+" is not installed on this server.")}
	}
	return j.found(ctx, tool, want, fallback, true)
}

// found serves want with exe: without a note when it matches (or when no
// match is needed), else as a substitution with a note, which
// build_tools_strict and another Python major turn into a failure.
func (j *job) found(ctx context.Context, tool, want, exe string, substitute bool) resolution {
	name := toolNames[tool]
	if p, err := j.pool.lookPath(exe); err == nil {
		exe = p
	}
	v := probeVersion(ctx, tool, exe, "")
	if v == "" {
		return resolution{failure: failTool(tool, want, name+" is not installed on this server.")}
	}
	if !substitute {
		return resolution{path: exe, version: v}
	}
	differs := fmt.Sprintf("this server has %s %s (%s), not %s %s.", name, v, exe, name, want)
	if j.pool.cfg.BuildToolsStrict || (tool == "python" && major(v) != major(want)) {
		return resolution{failure: failTool(tool, want, differs)}
	}
	return resolution{path: exe, version: v,
		note: fmt.Sprintf("%s %s is not installed on this server; %s %s (%s) is used instead.", name, want, name, v, exe)}
}

// visible reports whether build commands can run an executable found on
// a PATH: neither it nor the file it links to is under a directory the
// sandbox hides (/root, /run, /tmp, /var/tmp, /dev/shm, docsd's data
// directory and HOME).
func (j *job) visible(path string) bool {
	home, _ := os.UserHomeDir()
	hidden := append(append([]string{j.pool.cfg.DataDir, home}, publicTmp...), j.pool.cfg.SandboxHide...)
	paths := BuildTools{{Path: path}}
	if real, err := filepath.EvalSymlinks(path); err == nil && real != path {
		paths = append(paths, ToolEntry{Path: real})
	}
	return paths.CheckVisible(hidden...) == nil
}

// lookTool finds a tool's executable for build commands: the first one
// named name on docsd's own PATH, then on the
// build PATH, that build commands can see. One that lives only under
// /tmp, /root, /run, HOME or the data directory counts as missing, so
// that leftovers there (a test machine's, a user's own install) never
// satisfy build.tools: the sandbox hides them.
func (j *job) lookTool(name string) (string, bool) {
	for _, dir := range append(filepath.SplitList(os.Getenv("PATH")), filepath.SplitList(systemPath)...) {
		if !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 && j.visible(p) {
			return p, true
		}
	}
	return "", false
}

// pythonCandidates are the interpreters tried for Python X.Y after
// build_tools: pythonX.Y next to build_python, on the build PATH, then
// build_python itself.
func (j *job) pythonCandidates(want string) []string {
	base := j.pool.cfg.BuildPython
	var out []string
	if filepath.IsAbs(base) {
		out = append(out, filepath.Join(filepath.Dir(base), "python"+want))
	}
	for _, dir := range filepath.SplitList(systemPath) {
		out = append(out, filepath.Join(dir, "python"+want))
	}
	if p, err := j.pool.lookPath(base); err == nil {
		out = append(out, p)
	}
	return out
}

// resolveConda finds conda (or mamba for mambaforge) on the build PATH.
func (j *job) resolveConda(ctx context.Context, want string) resolution {
	names := condaNames
	if strings.HasPrefix(want, "mambaforge") {
		names = []string{"mamba", "conda", "micromamba"}
	}
	for _, n := range names {
		if p, ok := j.lookTool(n); ok {
			return resolution{path: p, version: probeVersion(ctx, "conda", p, "")}
		}
	}
	return resolution{failure: failTool("python", want, "conda is not installed on this server.")}
}

// condaNames are the conda implementations looked for on the build PATH,
// in order.
var condaNames = []string{"conda", "mamba", "micromamba"}

// condaExe finds conda, mamba or micromamba for a legacy-file conda build;
// without one the build fails naming what is missing.
func (j *job) condaExe() (string, error) {
	for _, n := range condaNames {
		if p, ok := j.lookTool(n); ok {
			return p, nil
		}
	}
	return "", Failure(IDCommandFailed, "conda.environment needs conda, mamba or micromamba, and none is installed on this server.")
}

// failTool is the failure of a tool that is missing, or that this server
// has only in another version.
func failTool(tool, want, text string) error {
	return Failure(IDCommandFailed, fmt.Sprintf("build.tools.%s %q: %s", tool, want, text))
}

// probeVersion runs the tool's version probe (not recorded) and returns
// the X.Y.Z it reports, "" when it does not run. A build_tools path probed
// for a wanted version must report it.
func probeVersion(ctx context.Context, tool, exe, want string) string {
	if st, err := os.Stat(exe); err != nil || st.IsDir() {
		return ""
	}
	args := map[string][]string{"python": {"-c", `import sys; print("%d.%d.%d" % sys.version_info[:3])`},
		"golang": {"version"}}[tool]
	if args == nil {
		args = []string{"--version"}
	}
	cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(cctx, exe, args...).Output()
	if err != nil {
		return ""
	}
	m := versionPattern.FindStringSubmatch(string(out))
	if m == nil {
		return ""
	}
	v := m[1] + "." + m[2]
	if m[3] != "" {
		v += "." + m[3]
	}
	if want != "" && want != "latest" && !rtdconfig.IsConda(want) && !matchesVersion(tool, v, want) {
		return ""
	}
	return v
}

// matchesVersion reports whether a reported X.Y.Z is the requested
// version: the major for Node.js and `3`, else major.minor.
func matchesVersion(tool, got, want string) bool {
	if tool == "nodejs" || !strings.Contains(want, ".") {
		return major(got) == want
	}
	return got == want || strings.HasPrefix(got, want+".")
}

func major(v string) string {
	m, _, _ := strings.Cut(v, ".")
	return m
}
