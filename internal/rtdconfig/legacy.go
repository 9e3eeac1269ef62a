package rtdconfig

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
)

// The legacy rules: version 1 files (and checkouts without a file), and
// version 2 files with `build.image` or without `build`, validated with
// the messages, defaults and image/Python table Read the Docs had for that
// form.

// imageChoices are the valid `build.image` values, in the order error
// messages list them.
var imageChoices = []string{"stable", "latest", "1.0", "2.0", "3.0", "4.0", "5.0"}

// imagePythons lists the `python.version` values each image allows;
// stable is 4.0 and latest 5.0.
var imagePythons = map[string][]string{
	"1.0": {"2", "2.7", "3", "3.4"},
	"2.0": {"2", "2.7", "3", "3.5"},
	"3.0": {"2", "2.7", "3", "3.3", "3.4", "3.5", "3.6"},
	"4.0": {"2", "2.7", "3", "3.5", "3.6", "3.7"},
	"5.0": {"2", "2.7", "3", "3.5", "3.6", "3.7", "pypy3.5"},
}

func pythonChoices(image string) []string {
	switch image {
	case "stable":
		image = "4.0"
	case "latest":
		image = "5.0"
	}
	return imagePythons[image]
}

// legacyJSON is the stored shape of a configuration under the legacy rules.
func (c *Config) legacyJSON() string {
	install := make([]any, 0, len(c.Install))
	for _, in := range c.Install {
		if in.IsRequirements {
			install = append(install, map[string]any{"requirements": in.Requirements})
			continue
		}
		extras := in.ExtraRequirements
		if extras == nil {
			extras = []string{}
		}
		install = append(install, map[string]any{"path": in.Path, "method": in.Method, "extra_requirements": extras})
	}
	var conda, sphinx, mkdocs any
	if c.Conda != nil {
		conda = map[string]any{"environment": *c.Conda}
	}
	if c.Sphinx != nil {
		sphinx = map[string]any{"builder": c.Doctype, "configuration": c.Sphinx.Configuration, "fail_on_warning": c.Sphinx.FailOnWarning}
	}
	if c.MkDocs != nil {
		mkdocs = map[string]any{"configuration": c.MkDocs.Configuration, "fail_on_warning": c.MkDocs.FailOnWarning}
	}
	formats := c.Formats
	if formats == nil {
		formats = []string{}
	}
	out := map[string]any{
		"version": c.Version,
		"formats": formats,
		"python": map[string]any{
			"version":                  c.PythonVersion,
			"install":                  install,
			"use_system_site_packages": c.SystemSite,
		},
		"conda":      conda,
		"build":      map[string]any{"image": c.imagePrefix + ":" + c.Image},
		"doctype":    c.Doctype,
		"sphinx":     sphinx,
		"mkdocs":     mkdocs,
		"submodules": c.Submodules.json(),
	}
	if c.Search != nil {
		out["search"] = c.Search.json()
	}
	b, _ := json.Marshal(out) // maps marshal with sorted keys
	return string(b)
}

// PythonMinor resolves `python.version` to the X.Y (or pypy name) it
// selects: 2 and 3 are the highest 2.x/3.x the image allows.
func (c *Config) PythonMinor() string {
	v := pyStr(c.PythonVersion)
	if v != "2" && v != "3" {
		return v
	}
	best := ""
	for _, choice := range pythonChoices(c.Image) {
		if strings.HasPrefix(choice, v+".") {
			best = choice
		}
	}
	return best
}

// validator checks values of one configuration against the checkout.
type validator struct {
	ckout string
	file  string
}

func (v *validator) dict(key string, x any) (*Map, error) {
	if x == nil {
		return &Map{vals: map[string]any{}}, nil
	}
	m, ok := x.(*Map)
	if !ok {
		return nil, invalidKey(key, reasonDict(x))
	}
	return m, nil
}

func (v *validator) boolean(key string, x any, def bool) (bool, error) {
	if x == nil {
		return def, nil
	}
	if b, ok := pyBool(x); ok {
		return b, nil
	}
	return false, invalidKey(key, reasonBool(x))
}

func (v *validator) list(key string, x any) ([]any, error) {
	l, ok := x.([]any)
	if !ok {
		return nil, invalidKey(key, reasonList)
	}
	return l, nil
}

func (v *validator) stringList(key string, x any) ([]string, error) {
	l, err := v.list(key, x)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(l))
	for _, e := range l {
		s, ok := e.(string)
		if !ok {
			return nil, invalidKey(key, reasonString)
		}
		out = append(out, s)
	}
	return out, nil
}

func (v *validator) choice(key string, x any, choices []string) (string, error) {
	s := ""
	switch c := x.(type) {
	case string:
		s = c
	case yamlFloat, int64:
		s = pyStr(c) // build.image: 5.0 written without quotes
	default:
		return "", invalidKey(key, reasonChoice(choices, x))
	}
	for _, c := range choices {
		if c == s {
			return s, nil
		}
	}
	return "", invalidKey(key, reasonChoice(choices, x))
}

// pathKind says what a configured path must be.
type pathKind int

const (
	anyPath pathKind = iota
	filePath
	dirPath
)

// path validates a path relative to the checkout and returns it
// normalised.
func (v *validator) path(key string, x any, kind pathKind) (string, error) {
	s, ok := x.(string)
	if !ok {
		return "", invalidKey(key, reasonString)
	}
	rel := CleanRel(s)
	full := filepath.Join(v.ckout, rel)
	okKind := false
	switch {
	case rel == "":
	case kind == filePath:
		okKind = IsFile(full)
	case kind == dirPath:
		okKind = IsDir(full)
	default:
		okKind = Exists(full)
	}
	if !okKind {
		return "", invalidKey(key, reasonPath(s))
	}
	return rel, nil
}

// laterPythons are the `python.version` values RTD's later `latest` images
// accepted (up to 2023) and that its current images offer: accepted under
// the default/`latest` image beyond the image's own list, which messages
// keep listing.
var laterPythons = []string{"3.8", "3.9", "3.10", "3.11", "3.12", "3.13", "3.14"}

// laterPython matches x (normalised) against laterPythons; a quoted
// "3.10" matches 3.10, an unquoted 3.10 (the float 3.1) does not, as with
// RTD. The result is stored as that JSON number literal.
func laterPython(x any) (json.Number, bool) {
	var s string
	switch n := x.(type) {
	case yamlFloat:
		s = pyStr(n)
	case string:
		s = strings.TrimSpace(n)
	}
	for _, c := range laterPythons {
		if c == s {
			return json.Number(c), true
		}
	}
	return "", false
}

// pythonVersion validates `python.version` against the image's list.
func (v *validator) pythonVersion(key string, x any, image string) (any, error) {
	written := x
	x = normaliseNumber(x)
	choices := pythonChoices(image)
	if image == "latest" {
		if later, ok := laterPython(written); ok {
			return later, nil
		}
	}
	for _, c := range choices {
		match := false
		switch n := x.(type) {
		case int64:
			f, err := strconv.ParseFloat(c, 64)
			match = err == nil && f == float64(n)
		case yamlFloat:
			f, err := strconv.ParseFloat(c, 64)
			match = err == nil && f == float64(n)
		case string:
			match = n == c
		}
		if match {
			if f, ok := x.(yamlFloat); ok {
				return float64(f), nil
			}
			return x, nil
		}
	}
	return nil, invalidKey(key, reasonChoice(choices, x))
}

// configV2 validates a version 2 file in the order RTD did: formats,
// conda, build, python, the sphinx/mkdocs combination, mkdocs, sphinx,
// submodules, then search (which the current rules brought), then
// unknown keys.
func configV2(in Input, file string, raw *Map) (*Config, error) {
	v := &v2{validator: &validator{ckout: in.Ckout, file: file}, in: in, raw: raw,
		c: &Config{Version: "2", File: file, imagePrefix: in.ImagePrefix}, known: knownTree(legacyRules)}
	for _, section := range []func() error{v.formats, v.conda, v.build, v.python, v.docs, v.submodules, v.search} {
		if err := section(); err != nil {
			return nil, err
		}
	}
	if key := firstUnknownKey(raw, v.known, ""); key != "" {
		return nil, invalidFile(key, file, "Invalid configuration option: "+key+". Make sure the key name is correct.")
	}
	return v.c, nil
}

// v2 is the validation of one version 2 file: each section fills c.
type v2 struct {
	*validator
	in  Input
	raw *Map
	c   *Config
	// known are the keys the legacy rules know (knownTree), with the
	// items of python.install filled in as they are validated.
	known knownKeys
}

func (v *v2) formats() error {
	v.c.Formats = []string{}
	f := valueOf(v.raw, "formats")
	switch {
	case f == nil:
		return nil
	case f == "all":
		v.c.Formats = append([]string(nil), formatChoices...)
		return nil
	}
	l, err := v.list("formats", f)
	if err != nil {
		return err
	}
	for _, x := range l {
		s, err := v.choice("formats", x, formatChoices)
		if err != nil {
			return err
		}
		v.c.Formats = append(v.c.Formats, s)
	}
	return nil
}

func (v *v2) conda() error {
	x := valueOf(v.raw, "conda")
	if x == nil {
		return nil
	}
	m, err := v.dict("conda", x)
	if err != nil {
		return err
	}
	env, ok := m.Get("environment")
	if !ok {
		return invalidKey("conda.environment", reasonNotFound("environment"))
	}
	p, err := v.path("conda.environment", env, filePath)
	if err != nil {
		return err
	}
	v.c.Conda = &p
	return nil
}

func (v *v2) build() error {
	build, err := v.dict("build", valueOf(v.raw, "build"))
	if err != nil {
		return err
	}
	v.c.Image = "latest"
	if x := valueOf(build, "image"); x != nil {
		v.c.Image, err = v.choice("build.image", x, imageChoices)
	}
	return err
}

func (v *v2) python() error {
	known := v.known.section("python")
	python, err := v.dict("python", valueOf(v.raw, "python"))
	if err != nil {
		return err
	}
	v.c.PythonVersion = int64(3)
	if x := valueOf(python, "version"); x != nil {
		if v.c.PythonVersion, err = v.pythonVersion("python.version", x, v.c.Image); err != nil {
			return err
		}
	}
	if x := valueOf(python, "install"); x != nil {
		l, err := v.list("python.install", x)
		if err != nil {
			return err
		}
		var items listKnown
		for i, item := range l {
			entry, ik, err := v.installEntry(i, item)
			if err != nil {
				return err
			}
			v.c.Install = append(v.c.Install, entry)
			items = append(items, ik)
		}
		known["install"] = items
	}
	v.c.SystemSite, err = v.boolean("python.system_packages", valueOf(python, "system_packages"), false)
	return err
}

// docs validates the `sphinx` or `mkdocs` section, which decides the
// doctype.
func (v *v2) docs() error {
	rawSphinx, hasSphinx := v.raw.Get("sphinx")
	rawMkDocs, hasMkDocs := v.raw.Get("mkdocs")
	if hasSphinx && hasMkDocs {
		return invalidFile(".", v.file, "You can not have the ``sphinx`` and ``mkdocs`` keys at the same time")
	}
	if hasMkDocs {
		return v.mkdocs(rawMkDocs)
	}
	return v.sphinx(rawSphinx)
}

func (v *v2) mkdocs(raw any) error {
	m, err := v.dict("mkdocs", raw)
	if err != nil {
		return err
	}
	v.c.Doctype = DoctypeMkDocs
	v.c.MkDocs = &MkDocsConfig{}
	if x := valueOf(m, "configuration"); x != nil {
		p, err := v.path("mkdocs.configuration", x, filePath)
		if err != nil {
			return err
		}
		v.c.MkDocs.Configuration = &p
	}
	v.c.MkDocs.FailOnWarning, err = v.boolean("mkdocs.fail_on_warning", valueOf(m, "fail_on_warning"), false)
	return err
}

// sphinx validates the `sphinx` section; without a configured conf.py
// DiscoverConfPy picks one.
func (v *v2) sphinx(raw any) error {
	m, err := v.dict("sphinx", raw)
	if err != nil {
		return err
	}
	builder := "html"
	if x := valueOf(m, "builder"); x != nil {
		if builder, err = v.choice("sphinx.builder", x, []string{"html", "dirhtml", "singlehtml"}); err != nil {
			return err
		}
	}
	v.c.Doctype = map[string]string{"html": DoctypeSphinx, "dirhtml": DoctypeSphinxHTMLDir, "singlehtml": DoctypeSphinxSingleHTML}[builder]
	v.c.Sphinx = &SphinxConfig{}
	if x := valueOf(m, "configuration"); x != nil {
		s, isString := x.(string)
		if !isString {
			return invalidKey("sphinx.configuration", reasonString)
		}
		rel := CleanRel(s)
		if rel == "" || !IsFile(filepath.Join(v.ckout, rel)) {
			return fail(IDConfPyNotFound, MsgConfPyNotFound)
		}
		v.c.Sphinx.Configuration = &rel
	} else {
		conf, err := DiscoverConfPy(v.ckout, v.in.Project.ConfPyFile)
		if err != nil {
			return err
		}
		if conf != "" {
			v.c.Sphinx.Configuration = &conf
		}
	}
	v.c.Sphinx.FailOnWarning, err = v.boolean("sphinx.fail_on_warning", valueOf(m, "fail_on_warning"), false)
	return err
}

func (v *v2) submodules() error {
	sub, err := v.dict("submodules", valueOf(v.raw, "submodules"))
	if err != nil {
		return err
	}
	sc := &v.c.Submodules
	if sc.IncludeAll, sc.Include, err = v.submodulePaths("submodules.include", valueOf(sub, "include"), false); err != nil {
		return err
	}
	excludeDefault := !sc.IncludeAll && len(sc.Include) == 0
	if sc.ExcludeAll, sc.Exclude, err = v.submodulePaths("submodules.exclude", valueOf(sub, "exclude"), excludeDefault); err != nil {
		return err
	}
	including := sc.IncludeAll || len(sc.Include) > 0
	excluding := sc.ExcludeAll || len(sc.Exclude) > 0
	if including && excluding {
		return invalidFile("submodules", v.file, "You can not exclude and include submodules at the same time")
	}
	sc.Recursive, err = v.boolean("submodules.recursive", valueOf(sub, "recursive"), false)
	return err
}

// search validates the `search` section, which version 2 files share with
// the current rules, with the legacy rules' messages. A file without it
// stores none, so that its stored shape stays the legacy one.
func (v *v2) search() error {
	x, ok := v.raw.Get("search")
	if !ok {
		return nil
	}
	m, err := v.dict("search", x)
	if err != nil {
		return err
	}
	s := &Search{Ignore: append([]string(nil), DefaultSearchIgnore...)}
	if x := valueOf(m, "ranking"); x != nil {
		ranking, err := v.dict("search.ranking", x)
		if err != nil {
			return err
		}
		for _, k := range ranking.keys {
			p, ok := normalPattern(k)
			if !ok {
				return invalidKey("search.ranking", "invalid path pattern "+k)
			}
			rank, isInt := ranking.vals[k].(int64)
			if !isInt || rank < -10 || rank > 10 {
				return invalidKey("search.ranking", reasonChoice(rankChoices(), ranking.vals[k]))
			}
			s.Ranking = append(s.Ranking, Rank{Pattern: p, Rank: rank})
		}
	}
	if x, ok := m.Get("ignore"); ok {
		l, err := v.list("search.ignore", x)
		if err != nil {
			return err
		}
		s.Ignore = []string{}
		for i, e := range l {
			key := "search.ignore[" + strconv.Itoa(i) + "]"
			str, isString := e.(string)
			if !isString {
				return invalidKey(key, reasonString)
			}
			p, ok := normalPattern(str)
			if !ok {
				return invalidKey(key, "invalid path pattern "+str)
			}
			s.Ignore = append(s.Ignore, p)
		}
	}
	v.c.Search = s
	return nil
}

// installEntry validates `python.install[i]` and returns the keys it used.
func (v *validator) installEntry(i int, item any) (Install, knownKeys, error) {
	key := "python.install[" + strconv.Itoa(i) + "]"
	m, ok := item.(*Map)
	if !ok {
		return Install{}, nil, invalidKey(key, reasonDict(item))
	}
	switch {
	case m.has("requirements"):
		p, err := v.path(key+".requirements", valueOf(m, "requirements"), filePath)
		if err != nil {
			return Install{}, nil, err
		}
		return Install{IsRequirements: true, Requirements: &p}, itemKeys(legacyRules, "python.install", "requirements"), nil
	case m.has("path"):
		p, err := v.installPath(key+".path", valueOf(m, "path"))
		if err != nil {
			return Install{}, nil, err
		}
		in := Install{Path: p, Method: "pip"}
		if x, ok := m.Get("method"); ok && x != nil {
			if in.Method, err = v.choice(key+".method", x, []string{"pip", "setuptools"}); err != nil {
				return Install{}, nil, err
			}
		}
		if x, ok := m.Get("extra_requirements"); ok && x != nil {
			if in.ExtraRequirements, err = v.stringList(key+".extra_requirements", x); err != nil {
				return Install{}, nil, err
			}
			if len(in.ExtraRequirements) > 0 && in.Method != "pip" {
				return Install{}, nil, invalidFile(key+".extra_requirements", v.file, "You need to install your project with pip to use extra_requirements")
			}
		}
		if in.ExtraRequirements == nil {
			in.ExtraRequirements = []string{}
		}
		return in, itemKeys(legacyRules, "python.install", "path", "method", "extra_requirements"), nil
	}
	return Install{}, nil, invalidFile(key, v.file, `"path" or "requirements" key is required`)
}

// installPath validates an install path: an existing directory,
// optionally written with pip extras (`.[docs]`), which RTD passes to pip
// as written.
func (v *validator) installPath(key string, x any) (string, error) {
	s, ok := x.(string)
	if i := strings.LastIndex(s, "["); ok && i > 0 && strings.HasSuffix(s, "]") {
		base, err := v.path(key, s[:i], dirPath)
		if err != nil {
			return "", err
		}
		return base + s[i:], nil
	}
	return v.path(key, x, dirPath)
}

// submodulePaths validates `submodules.include`/`exclude`: "all" or a list
// of existing paths.
func (v *validator) submodulePaths(key string, x any, defaultAll bool) (bool, []string, error) {
	if x == nil {
		return defaultAll, []string{}, nil
	}
	if x == "all" {
		return true, nil, nil
	}
	l, err := v.list(key, x)
	if err != nil {
		return false, nil, err
	}
	out := []string{}
	for _, e := range l {
		p, err := v.path(key, e, anyPath)
		if err != nil {
			return false, nil, err
		}
		out = append(out, p)
	}
	return false, out, nil
}

// configV1 resolves a legacy (or absent) configuration: defaults come from
// the project, the doctype is detected when there is no file. Sections
// are read in Read the Docs' order: build.image first (python.version
// depends on it), formats, python, conda, then the doctype.
func configV1(in Input, file string, raw *Map) (*Config, error) {
	v := &v1{validator: &validator{ckout: in.Ckout, file: file}, in: in, raw: raw,
		c: &Config{Version: "1", File: file, imagePrefix: in.ImagePrefix, Image: "latest",
			Submodules: SubmoduleConfig{IncludeAll: true, Exclude: []string{}, Recursive: true}}}
	for _, section := range []func() error{v.image, v.formats, v.python, v.conda, v.doctype} {
		if err := section(); err != nil {
			return nil, err
		}
	}
	return v.c, nil
}

// v1 is the resolution of one version 1 (or absent) file.
type v1 struct {
	*validator
	in  Input
	raw *Map
	c   *Config
}

func (v *v1) image() error {
	build, err := v.dict("build", valueOf(v.raw, "build"))
	if err != nil {
		return err
	}
	if x, ok := build.Get("image"); ok && x != nil {
		v.c.Image, err = v.choice("build.image", x, imageChoices)
	}
	return err
}

func (v *v1) formats() error {
	c, p := v.c, v.in.Project
	x, ok := v.raw.Get("formats")
	if !ok || x == nil {
		c.Formats = []string{"htmlzip"}
		if p.EnableEPUBBuild {
			c.Formats = append(c.Formats, "epub")
		}
		if p.EnablePDFBuild {
			c.Formats = append(c.Formats, "pdf")
		}
		return nil
	}
	l, err := v.list("formats", x)
	if err != nil {
		return err
	}
	c.Formats = []string{}
	if len(l) == 1 && l[0] == "none" {
		return nil
	}
	for _, e := range l {
		s, err := v.choice("formats", e, formatChoices)
		if err != nil {
			return err
		}
		c.Formats = append(c.Formats, s)
	}
	return nil
}

func (v *v1) python() error {
	c, p := v.c, v.in.Project
	python, err := v.dict("python", valueOf(v.raw, "python"))
	if err != nil {
		return err
	}
	c.PythonVersion = int64(3)
	if p.PythonInterpreter == "python" || p.PythonInterpreter == "python2" {
		c.PythonVersion = int64(2)
	}
	if x, ok := python.Get("version"); ok && x != nil {
		if c.PythonVersion, err = v.pythonVersion("python.version", x, c.Image); err != nil {
			return err
		}
	}
	requirements, err := v.requirements()
	if err != nil {
		return err
	}
	c.Install = []Install{{IsRequirements: true, Requirements: requirements}}
	if err := v.projectInstall(python); err != nil {
		return err
	}
	c.SystemSite, err = v.boolean("python.use_system_site_packages", valueOf(python, "use_system_site_packages"), p.UseSystemPackages)
	return err
}

// requirements is the project's requirements file, overridden by the
// file's requirements_file.
func (v *v1) requirements() (*string, error) {
	var requirements *string
	if p := v.in.Project; p.RequirementsFile != nil && *p.RequirementsFile != "" {
		r := CleanRel(*p.RequirementsFile)
		requirements = &r
	}
	if x, ok := v.raw.Get("requirements_file"); ok && x != nil {
		r, err := v.path("requirements_file", x, filePath)
		if err != nil {
			return nil, err
		}
		requirements = &r
	}
	return requirements, nil
}

// projectInstall is python.pip_install / setup_py_install.
func (v *v1) projectInstall(python *Map) error {
	pipInstall, err := v.boolean("python.pip_install", valueOf(python, "pip_install"), false)
	if err != nil {
		return err
	}
	extras := []string{}
	if x, ok := python.Get("extra_requirements"); ok && x != nil {
		if extras, err = v.stringList("python.extra_requirements", x); err != nil {
			return err
		}
	}
	setupPy, err := v.boolean("python.setup_py_install", valueOf(python, "setup_py_install"), v.in.Project.InstallProject)
	if err != nil {
		return err
	}
	switch {
	case pipInstall:
		v.c.Install = append(v.c.Install, Install{Path: ".", Method: "pip", ExtraRequirements: extras})
	case setupPy:
		v.c.Install = append(v.c.Install, Install{Path: ".", Method: "setuptools", ExtraRequirements: []string{}})
	}
	return nil
}

func (v *v1) conda() error {
	x, ok := v.raw.Get("conda")
	if !ok || x == nil {
		return nil
	}
	m, err := v.dict("conda", x)
	if err != nil {
		return err
	}
	if f, ok := m.Get("file"); ok && f != nil {
		path, err := v.path("conda.file", f, filePath)
		if err != nil {
			return err
		}
		v.c.Conda = &path
	}
	return nil
}

// doctype is detected without a file; a legacy file keeps the project's.
func (v *v1) doctype() error {
	c, p := v.c, v.in.Project
	var confPy string
	var err error
	if v.file == "" {
		c.Doctype, confPy, err = detectDoctype(v.in.Ckout, p.DocumentationType, p.ConfPyFile)
	} else {
		c.Doctype = p.DocumentationType
		if !IsSphinx(c.Doctype) && c.Doctype != DoctypeMkDocs {
			c.Doctype = DoctypeSphinx
		}
		if IsSphinx(c.Doctype) {
			confPy, err = DiscoverConfPy(v.in.Ckout, p.ConfPyFile)
		}
	}
	if err != nil {
		return err
	}
	c.Sphinx = &SphinxConfig{}
	if confPy != "" {
		c.Sphinx.Configuration = &confPy
	}
	c.MkDocs = &MkDocsConfig{}
	return nil
}
