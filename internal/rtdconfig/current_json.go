package rtdconfig

import (
	"encoding/json"
	"strings"
)

// currentJSON is the stored shape of a file under the current rules: the
// legacy shape's nine keys, build widened with os, tools, jobs (all
// thirteen, each null or [] unless given), commands and apt_packages, plus
// search.
func (c *Config) currentJSON() string {
	cur := c.Current
	var conda, sphinx, mkdocs any
	if c.Conda != nil {
		conda = map[string]any{"environment": *c.Conda}
	}
	if c.Sphinx != nil {
		sphinx = map[string]any{"builder": c.Sphinx.Builder, "configuration": c.Sphinx.Configuration, "fail_on_warning": c.Sphinx.FailOnWarning}
	}
	if c.MkDocs != nil {
		mkdocs = map[string]any{"configuration": c.MkDocs.Configuration, "fail_on_warning": c.MkDocs.FailOnWarning}
	}
	out := map[string]any{
		"version": "2",
		"formats": c.Formats,
		"python":  map[string]any{"version": c.storedPythonVersion(), "install": c.installJSON(), "use_system_site_packages": false},
		"conda":   conda,
		"build": map[string]any{"image": c.imagePrefix + ":" + c.Image, "os": cur.OS, "tools": c.toolsJSON(),
			"jobs": cur.jobsJSON(), "commands": cur.Commands, "apt_packages": cur.AptPackages},
		"doctype":    c.Doctype,
		"sphinx":     sphinx,
		"mkdocs":     mkdocs,
		"submodules": c.Submodules.json(),
		"search":     c.Search.json(),
	}
	b, _ := json.Marshal(out) // maps marshal with sorted keys
	return string(b)
}

// storedPythonVersion is the stored python.version: X.Y as that JSON number
// literal, `latest` as the resolved X.Y, conda flavours as strings.
func (c *Config) storedPythonVersion() any {
	t := c.Current.Tool("python")
	switch {
	case t == nil:
		return nil
	case IsConda(t.Version):
		return t.Version
	case t.Version == "latest":
		if parts := strings.SplitN(t.FullVersion, ".", 3); len(parts) >= 2 {
			return json.Number(parts[0] + "." + parts[1])
		}
		return "latest"
	}
	return json.Number(t.Version)
}

func (c *Config) toolsJSON() map[string]any {
	tools := map[string]any{}
	for _, t := range c.Current.Tools {
		var full any
		if t.FullVersion != "" {
			full = t.FullVersion
		}
		tools[t.Name] = map[string]any{"version": t.Version, "full_version": full}
	}
	return tools
}

func (cur *Current) jobsJSON() map[string]any {
	jobs := map[string]any{}
	for _, j := range JobNames {
		cmds, ok := cur.Jobs[j]
		switch {
		case j == "build":
			build := map[string]any{}
			for _, t := range BuildJobTypes {
				var v any
				if cmds, ok := cur.Jobs["build."+t]; ok {
					v = cmds
				}
				build[t] = v
			}
			jobs[j] = build
		case j == "create_environment" || j == "install":
			var v any
			if ok {
				v = cmds
			}
			jobs[j] = v
		default:
			if cmds == nil {
				cmds = []string{}
			}
			jobs[j] = cmds
		}
	}
	return jobs
}

func (c *Config) installJSON() []any {
	install := make([]any, 0, len(c.Install))
	for _, in := range c.Install {
		switch {
		case in.UV != nil:
			install = append(install, in.UV.json())
		case in.IsRequirements:
			install = append(install, map[string]any{"requirements": in.Requirements})
		default:
			install = append(install, map[string]any{"path": in.Path, "method": in.Method, "extra_requirements": in.ExtraRequirements})
		}
	}
	return install
}

func (u *UVInstall) json() map[string]any {
	list := func(all bool, l []string) any {
		if all {
			return "all"
		}
		if l == nil {
			return nil
		}
		return l
	}
	return map[string]any{"method": "uv", "command": u.Command, "path": u.Path, "requirements": u.Requirements,
		"groups": list(u.GroupsAll, u.Groups), "extras": list(u.ExtrasAll, u.Extras)}
}

func (s SubmoduleConfig) json() map[string]any {
	all := func(isAll bool, list []string) any {
		if isAll {
			return "all"
		}
		if list == nil {
			return []string{}
		}
		return list
	}
	return map[string]any{"include": all(s.IncludeAll, s.Include), "exclude": all(s.ExcludeAll, s.Exclude), "recursive": s.Recursive}
}

// json is the stored `search`: ranking as a mapping of pattern to rank,
// ignore as a list.
func (s *Search) json() map[string]any {
	ranking := map[string]any{}
	for _, r := range s.Ranking {
		ranking[r.Pattern] = r.Rank
	}
	return map[string]any{"ranking": ranking, "ignore": s.Ignore}
}
