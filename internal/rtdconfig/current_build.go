package rtdconfig

import (
	"regexp"
	"strconv"
	"strings"
)

// aptName is Read the Docs' pattern for `build.apt_packages` items.
var aptName = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9.+-]*$`)

// build validates the `build` section in Read the Docs' order: a mapping,
// build.os, the keys of build.tools and build.jobs, build.commands a list,
// tools or commands given, not jobs and commands together, build.jobs.build,
// the other jobs in file order, each command, each tool's version, then
// build.apt_packages.
func (v *currentFile) build() error {
	build, err := vDict("build", valueOf(v.raw, "build"))
	if err != nil {
		return err
	}
	cur := v.c.Current
	if err := v.buildOS(build); err != nil {
		return err
	}
	tools, err := v.toolNames(build)
	if err != nil {
		return err
	}
	jobs, err := v.jobNames(build)
	if err != nil {
		return err
	}
	commands := []any{}
	if x, ok := build.Get("commands"); ok {
		if commands, err = vList("build.commands", x); err != nil {
			return err
		}
	}
	if tools.len() == 0 && len(commands) == 0 {
		return rule("config:build:missing-build-tools-commands", "At least one of the following configuration options is required: build.tools or build.commands.")
	}
	if jobs.len() > 0 && len(commands) > 0 {
		return rule("config:build:jobs-and-commands", "The keys build.jobs and build.commands can't be used together.")
	}
	if err := v.jobs(jobs); err != nil {
		return err
	}
	cur.Commands = []string{}
	for _, c := range commands {
		s, err := vString("build.commands", c)
		if err != nil {
			return err
		}
		cur.Commands = append(cur.Commands, s)
	}
	if err := v.toolVersions(tools); err != nil {
		return err
	}
	return v.aptPackages(build)
}

func (v *currentFile) buildOS(build *Map) error {
	x, ok := build.Get("os")
	if !ok {
		return notFound("build.os")
	}
	if x == RetiredOS {
		v.c.Current.OS, v.c.Image = RetiredOS, RetiredOS
		return nil
	}
	os, err := vChoice("build.os", x, OSChoices)
	v.c.Current.OS = os
	v.c.Image = osImageTag(os)
	return err
}

// toolNames validates that `build.tools` (when truthy) is a mapping of
// tool names.
func (v *currentFile) toolNames(build *Map) (*Map, error) {
	if x := valueOf(build, "tools"); truthy(x) {
		return namedMap("build.tools", x, ToolNames)
	}
	return &Map{vals: map[string]any{}}, nil
}

// jobNames validates that `build.jobs` is a mapping of job names.
func (v *currentFile) jobNames(build *Map) (*Map, error) {
	if x := valueOf(build, "jobs"); x != nil {
		return namedMap("build.jobs", x, JobNames)
	}
	return &Map{vals: map[string]any{}}, nil
}

// namedMap validates a mapping whose keys are among names.
func namedMap(key string, x any, names []string) (*Map, error) {
	m, err := vDict(key, x)
	if err != nil {
		return nil, err
	}
	for _, k := range m.keys {
		if _, err := vChoice(key, k, names); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// jobs validates build.jobs.build first, then every other job in file
// order, each a list of strings.
func (v *currentFile) jobs(jobs *Map) error {
	cur := v.c.Current
	if x, ok := jobs.Get("build"); ok {
		m, err := namedMap("build.jobs.build", x, BuildJobTypes)
		if err != nil {
			return err
		}
		for _, t := range m.keys {
			if t != "html" && !v.c.HasFormat(t) {
				return rule("config:build:jobs:build:missing-in-formats", "The "+t+" build type was defined in build.jobs.build, but it wasn't included in formats.")
			}
		}
		for _, t := range m.keys {
			cmds, err := vStrings("build.jobs.build."+t, m.vals[t])
			if err != nil {
				return err
			}
			cur.Jobs["build."+t] = cmds
		}
	}
	for _, j := range jobs.keys {
		if j == "build" {
			continue
		}
		cmds, err := vStrings("build.jobs."+j, jobs.vals[j])
		if err != nil {
			return err
		}
		cur.Jobs[j] = cmds
	}
	return nil
}

// toolVersions validates each tool's version against ToolVersions and the
// server's build_tools additions.
func (v *currentFile) toolVersions(tools *Map) error {
	for _, name := range tools.keys {
		choices := append(append([]string(nil), ToolVersions[name]...), v.in.ExtraToolVersions[name]...)
		version, err := vChoice("build.tools."+name, tools.vals[name], choices)
		if err != nil {
			return err
		}
		v.c.Current.Tools = append(v.c.Current.Tools, Tool{Name: name, Version: version})
	}
	return nil
}

func (v *currentFile) aptPackages(build *Map) error {
	cur := v.c.Current
	cur.AptPackages = []string{}
	x, ok := build.Get("apt_packages")
	if !ok {
		return nil
	}
	l, err := vList("build.apt_packages", x)
	if err != nil {
		return err
	}
	for i, e := range l {
		s, err := vString("build.apt_packages."+strconv.Itoa(i), e)
		if err != nil {
			return err
		}
		name := strings.TrimSpace(s)
		for _, prefix := range []string{"-", "/", "."} {
			if strings.HasPrefix(name, prefix) {
				return rule("config:apt:invalid-package-name-prefix", "The name of the packages (e.g. "+name+") can't start with "+prefix)
			}
		}
		if !aptName.MatchString(name) {
			return rule("config:apt:invalid-package-name", "The name of the package "+name+" is invalid.")
		}
		cur.AptPackages = append(cur.AptPackages, name)
	}
	return nil
}

// truthy is Python's truth value of a parsed value.
func truthy(x any) bool {
	switch t := x.(type) {
	case nil:
		return false
	case bool:
		return t
	case string:
		return t != ""
	case int64:
		return t != 0
	case yamlFloat:
		return t != 0
	case []any:
		return len(t) > 0
	case *Map:
		return t.len() > 0
	}
	return true
}
