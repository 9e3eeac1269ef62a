package builder

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"docsd/internal/rtdconfig"
)

// ToolEntry is one entry of the build_tools setting: a tool version this
// server offers and its main executable.
type ToolEntry struct {
	Tool    string // python, nodejs, ruby, rust, golang or uv
	Version string
	Path    string // absolute
}

// BuildTools is the build_tools setting.
type BuildTools []ToolEntry

// ParseBuildTools reads `<tool>:<version>=<path>` entries separated by
// commas or white space. It rejects unknown tools and relative paths.
func ParseBuildTools(s string) (BuildTools, error) {
	var out BuildTools
	for _, e := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\t' }) {
		spec, path, ok := strings.Cut(e, "=")
		tool, version, ok2 := strings.Cut(spec, ":")
		if !ok || !ok2 || version == "" || path == "" {
			return nil, fmt.Errorf("build_tools entry %q: expected <tool>:<version>=<path>", e)
		}
		if tool != "uv" && !slices.Contains(rtdconfig.ToolNames, tool) {
			return nil, fmt.Errorf("build_tools entry %q: unknown tool %q (python, nodejs, ruby, rust, golang, uv)", e, tool)
		}
		if !filepath.IsAbs(path) {
			return nil, fmt.Errorf("build_tools entry %q: the path must be absolute", e)
		}
		out = append(out, ToolEntry{Tool: tool, Version: version, Path: filepath.Clean(path)})
	}
	return out, nil
}

// versions are the entries' versions that Read the Docs' choices do not
// list, per tool,
// in entry order: they extend the allowed values of build.tools.
func (b BuildTools) versions() map[string][]string {
	out := map[string][]string{}
	for _, e := range b {
		if !slices.Contains(rtdconfig.ToolVersions[e.Tool], e.Version) && !slices.Contains(out[e.Tool], e.Version) {
			out[e.Tool] = append(out[e.Tool], e.Version)
		}
	}
	return out
}

// lookup returns the entry's path for tool:version, "" when none.
func (b BuildTools) lookup(tool, version string) string {
	for _, e := range b {
		if e.Tool == tool && e.Version == version {
			return e.Path
		}
	}
	return ""
}

// CheckVisible rejects entries whose executable build commands cannot
// see: under /root, /run, or one of hidden (docsd's data directory and
// HOME), which the sandbox replaces with empty directories.
func (b BuildTools) CheckVisible(hidden ...string) error {
	for _, e := range b {
		for _, h := range append([]string{"/root", "/run"}, hidden...) {
			if h == "" {
				continue
			}
			h = filepath.Clean(h)
			if e.Path == h || strings.HasPrefix(e.Path, h+string(filepath.Separator)) {
				return fmt.Errorf("build_tools entry %s:%s=%s: build commands cannot see %s", e.Tool, e.Version, e.Path, h)
			}
		}
	}
	return nil
}
