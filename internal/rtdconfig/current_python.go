package rtdconfig

import "strconv"

// python validates the `python` section: a mapping, python.install a list,
// each entry in order, then the rule that a uv entry is the only one.
func (v *currentFile) python() error {
	known := v.known.section("python")
	m, _, err := v.section("python")
	if err != nil {
		return err
	}
	x, ok := m.Get("install")
	if !ok {
		return nil
	}
	l, err := vList("python.install", x)
	if err != nil {
		return err
	}
	var items listKnown
	uv := false
	for i, item := range l {
		entry, ik, err := v.installEntry(i, item)
		if err != nil {
			return err
		}
		uv = uv || entry.UV != nil
		v.c.Install = append(v.c.Install, entry)
		items = append(items, ik)
	}
	known["install"] = items
	if uv && len(l) > 1 {
		return rule("config:python:uv-multiple-install-entries-invalid", "When using method: uv, only one entry is allowed under python.install.")
	}
	return nil
}

// installEntry validates `python.install.<i>` as Read the Docs'
// validate_python_install does.
func (v *currentFile) installEntry(i int, item any) (Install, knownKeys, error) {
	key := "python.install." + strconv.Itoa(i)
	m, err := vDict(key, item)
	if err != nil {
		return Install{}, nil, err
	}
	if valueOf(m, "method") == "uv" {
		return v.uvEntry(key, m)
	}
	switch {
	case m.has("requirements"):
		p, err := vPath(key+".requirements", valueOf(m, "requirements"))
		if err != nil {
			return Install{}, nil, err
		}
		return Install{IsRequirements: true, Requirements: &p}, itemKeys(currentRules, "python.install", "requirements"), nil
	case m.has("path"):
		in, err := pathEntry(key, m)
		return in, itemKeys(currentRules, "python.install", "path", "method", "extra_requirements"), err
	}
	return Install{}, nil, rule("config:python:pip-path-requirement-required",
		"When using python.install, one of the following keys are required: python.install.path or python.install.requirements.")
}

// pathEntry validates a `path` install entry. A path written with extras
// (`.[docs]`, pip's own syntax) is accepted as RTD accepts it: pip gets it
// as written.
func pathEntry(key string, m *Map) (Install, error) {
	p, err := vPath(key+".path", valueOf(m, "path"))
	if err != nil {
		return Install{}, err
	}
	in := Install{Path: p, Method: "pip", ExtraRequirements: []string{}}
	if x, ok := m.Get("method"); ok {
		if in.Method, err = vChoice(key+".method", x, []string{"pip", "setuptools", "uv"}); err != nil {
			return Install{}, err
		}
	}
	if x, ok := m.Get("extra_requirements"); ok {
		if in.ExtraRequirements, err = vStrings(key+".extra_requirements", x); err != nil {
			return Install{}, err
		}
		if len(in.ExtraRequirements) > 0 && in.Method != "pip" {
			return Install{}, rule("config:python:pip-required", "You need to install your project with python.install.method: pip to use python.install.extra_requirements.")
		}
	}
	return in, nil
}

// uvEntry validates a `method: uv` entry.
func (v *currentFile) uvEntry(key string, m *Map) (Install, knownKeys, error) {
	known := itemKeys(currentRules, "python.install", "method", "command", "path", "requirements", "groups", "extras")
	x, ok := m.Get("command")
	if !ok {
		return Install{}, nil, rule("config:python:uv-command-required", "The key python.install.command is required when using method: uv. Allowed values are sync or pip.")
	}
	cmd, err := vChoice(key+".command", x, []string{"sync", "pip"})
	if err != nil {
		return Install{}, nil, err
	}
	uv := &UVInstall{Command: cmd}
	in := Install{Method: "uv", UV: uv}
	if cmd == "sync" && m.has("requirements") {
		return in, nil, rule("config:python:uv-sync-requirements-invalid", "The key python.install.requirements is not allowed with command: sync. Use command: pip instead when specifying a requirements file.")
	}
	if cmd == "pip" {
		if err := uvPipRules(m); err != nil {
			return in, nil, err
		}
	}
	for _, k := range []string{"requirements", "path"} {
		if x, ok := m.Get(k); ok {
			p, err := vPath(key+"."+k, x)
			if err != nil {
				return in, nil, err
			}
			if k == "path" {
				uv.Path, in.Path = &p, p
			} else {
				uv.Requirements = &p
			}
		}
	}
	if uv.GroupsAll, uv.Groups, err = uvList(m, "groups"); err != nil {
		return in, nil, err
	}
	uv.ExtrasAll, uv.Extras, err = uvList(m, "extras")
	return in, known, err
}

// uvPipRules are the rules of `command: pip`.
func uvPipRules(m *Map) error {
	switch {
	case m.has("groups"):
		return rule("config:python:uv-pip-groups-not-allowed", "The key python.install.groups is not allowed with command: pip. Use command: sync instead when you need to select dependency groups.")
	case !m.has("requirements") && !m.has("path"):
		return rule("config:python:uv-pip-requirements-or-path-required", "When using method: uv with command: pip, one of the following keys is required: python.install.path or python.install.requirements.")
	case m.has("requirements") && m.has("path"):
		return rule("config:python:uv-pip-requirements-and-path-mutually-exclusive", "When using method: uv with command: pip, both python.install.path and python.install.requirements cannot be specified at the same time.")
	}
	return nil
}

// uvList reads `groups`/`extras`: "all" or a non-empty list of strings.
func uvList(m *Map, name string) (bool, []string, error) {
	x, ok := m.Get(name)
	if !ok {
		return false, nil, nil
	}
	if x == "all" {
		return true, nil, nil
	}
	l, isList := x.([]any)
	if isList && len(l) == 0 {
		return false, nil, rule("config:python:uv-groups-extras-empty", "The python.install."+name+" list cannot be empty. Either remove the key or provide a non-empty list or the value all.")
	}
	out := make([]string, 0, len(l))
	for _, e := range l {
		s, ok := e.(string)
		if !ok {
			isList = false
			break
		}
		out = append(out, s)
	}
	if !isList {
		return false, nil, rule("config:python:uv-groups-extras-invalid-type", "The python.install."+name+" must be a list of strings or the value all. Got type "+pyType(x)+".")
	}
	return false, out, nil
}
