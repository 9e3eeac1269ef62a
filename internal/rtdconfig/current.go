package rtdconfig

import (
	"strconv"
	"strings"
)

// Current is what a file under the current rules adds to Config.
type Current struct {
	OS          string
	Tools       []Tool // in file order
	AptPackages []string
	// Jobs holds the given jobs: "post_checkout", "install", … and
	// "build.html", "build.pdf", …; presence means given (even empty).
	Jobs     map[string][]string
	Commands []string
	// ConfPy is the conf.py every default Sphinx step uses (HTML and the
	// htmlzip, pdf and epub formats alike): sphinx.configuration, or the
	// file discovery found; "" when no default Sphinx step runs.
	ConfPy string
}

// Tool is one `build.tools` entry; FullVersion and Path are filled when
// the builder resolves it on this server (the exact version when the
// server has it, else a substitute of the same major version, noted in
// the build).
type Tool struct {
	Name        string
	Version     string
	FullVersion string
	Path        string
}

// Search is the `search` section: page ranks by path pattern and the paths
// not indexed, which the search indexer reads from the stored config.
type Search struct {
	Ranking []Rank
	Ignore  []string
}

// Rank is one `search.ranking` entry.
type Rank struct {
	Pattern string
	Rank    int64
}

// UVInstall is a `python.install` entry with `method: uv`.
type UVInstall struct {
	Command      string // "sync" or "pip"
	Requirements *string
	Path         *string
	GroupsAll    bool
	Groups       []string // nil: not given
	ExtrasAll    bool
	Extras       []string // nil: not given
}

// Tool returns the `build.tools` entry for name, nil when not requested.
func (c *Current) Tool(name string) *Tool {
	for i := range c.Tools {
		if c.Tools[i].Name == name {
			return &c.Tools[i]
		}
	}
	return nil
}

// Job returns the commands of a job and whether the file gives it.
func (c *Current) Job(name string) ([]string, bool) {
	cmds, ok := c.Jobs[name]
	return cmds, ok
}

// configCurrent validates a file under the current rules in Read the Docs'
// order, the first failing check winning: formats, build, conda, python,
// sphinx and mkdocs, submodules, search, then unknown keys (the first left
// over, depth-first in file order, list items by index).
func configCurrent(in Input, file string, raw *Map) (*Config, error) {
	v := &currentFile{in: in, raw: raw, known: knownTree(currentRules),
		c: &Config{Version: "2", File: file, imagePrefix: in.ImagePrefix, Current: &Current{Jobs: map[string][]string{}}, Search: &Search{}}}
	sections := []func() error{v.formats, v.build, v.conda, v.python, v.docs, v.submodules, v.search}
	for _, section := range sections {
		if err := section(); err != nil {
			return nil, err
		}
	}
	if key := unknownKey(raw, v.known, "", func(i int) string { return "." + strconv.Itoa(i) }); key != "" {
		return nil, unknownKeyError(key)
	}
	v.c.Doctype = v.doctype()
	if err := v.discoverConfPy(); err != nil {
		return nil, err
	}
	return v.c, nil
}

// discoverConfPy finds conf.py when a default Sphinx step (HTML, or a
// format of `formats` without its build.jobs.build override) will run
// without a configured one, by DiscoverConfPy; none found fails (no
// generated default project), for the formats as for HTML. The stored
// sphinx.configuration gets the discovered file only when the default HTML
// builder runs.
func (v *currentFile) discoverConfPy() error {
	if !IsSphinx(v.c.Doctype) {
		return nil
	}
	if c := v.c.Sphinx.Configuration; c != nil {
		v.c.Current.ConfPy = *c
		return nil
	}
	_, htmlJob := v.c.Current.Jobs["build.html"]
	if htmlJob && !v.defaultSphinxFormat() {
		return nil
	}
	conf, err := DiscoverConfPy(v.in.Ckout, v.in.Project.ConfPyFile)
	if err != nil {
		return err
	}
	if conf == "" {
		return fail(IDConfPyNotFound, MsgConfPyNotFound)
	}
	v.c.Current.ConfPy = conf
	if !htmlJob {
		v.c.Sphinx.Configuration = &conf
	}
	return nil
}

// defaultSphinxFormat reports whether a format of `formats` is built by
// Sphinx's default step: it has no build.jobs.build override.
func (v *currentFile) defaultSphinxFormat() bool {
	for _, f := range v.c.Formats {
		if _, given := v.c.Current.Jobs["build."+f]; !given {
			return true
		}
	}
	return false
}

// currentFile is the validation of one file under the current rules.
type currentFile struct {
	in  Input
	raw *Map
	c   *Config
	// known are the keys the current rules know (knownTree), with the
	// items of python.install filled in as they are validated.
	known knownKeys
}

// section returns a top-level mapping. An absent section is empty; so is
// one written without a value (`mkdocs:`), which a file may use to select
// a doctype with its defaults.
func (v *currentFile) section(key string) (*Map, bool, error) {
	x, ok := v.raw.Get(key)
	if !ok || x == nil {
		return &Map{vals: map[string]any{}}, ok, nil
	}
	m, err := vDict(key, x)
	return m, true, err
}

func (v *currentFile) formats() error {
	v.c.Formats = []string{}
	f, ok := v.raw.Get("formats")
	if !ok {
		return nil
	}
	if f == "all" {
		v.c.Formats = append([]string(nil), formatChoices...)
		return nil
	}
	l, err := vList("formats", f)
	if err != nil {
		return err
	}
	for _, x := range l {
		s, err := vChoice("formats", x, formatChoices)
		if err != nil {
			return err
		}
		v.c.Formats = append(v.c.Formats, s)
	}
	return nil
}

func (v *currentFile) conda() error {
	if t := v.c.Current.Tool("python"); t != nil && IsConda(t.Version) && len(v.c.Current.Commands) == 0 && !v.raw.has("conda") {
		return rule("config:conda:required", "The key conda.environment is required when using Conda or Mamba.")
	}
	m, present, err := v.section("conda")
	if err != nil || !present {
		return err
	}
	env, ok := m.Get("environment")
	if !ok {
		return notFound("conda.environment")
	}
	p, err := vPath("conda.environment", env)
	if err != nil {
		return err
	}
	v.c.Conda = &p
	return nil
}

func (v *currentFile) docs() error {
	if v.raw.has("sphinx") && v.raw.has("mkdocs") {
		return rule("config:base:sphinx-mkdocs-together", "You can not have sphinx and mkdocs keys at the same time.")
	}
	if err := v.mkdocs(); err != nil {
		return err
	}
	return v.sphinx()
}

func (v *currentFile) mkdocs() error {
	m, present, err := v.section("mkdocs")
	if err != nil || !present {
		return err
	}
	v.c.MkDocs = &MkDocsConfig{}
	if x, ok := m.Get("configuration"); ok && x != nil {
		p, err := vPath("mkdocs.configuration", x)
		if err != nil {
			return err
		}
		v.c.MkDocs.Configuration = &p
	}
	v.c.MkDocs.FailOnWarning, err = vBool("mkdocs.fail_on_warning", m, false)
	return err
}

func (v *currentFile) sphinx() error {
	if v.raw.has("mkdocs") {
		return nil
	}
	m, _, err := v.section("sphinx")
	if err != nil {
		return err
	}
	builder := "html"
	if x, ok := m.Get("builder"); ok {
		if builder, err = vChoice("sphinx.builder", x, []string{"html", "htmldir", "dirhtml", "singlehtml"}); err != nil {
			return err
		}
	}
	v.c.Sphinx = &SphinxConfig{Builder: map[string]string{"html": DoctypeSphinx, "htmldir": DoctypeSphinxHTMLDir,
		"dirhtml": DoctypeSphinxHTMLDir, "singlehtml": DoctypeSphinxSingleHTML}[builder]}
	if x, ok := m.Get("configuration"); ok && x != nil {
		p, err := vPath("sphinx.configuration", x)
		if err != nil {
			return err
		}
		if p != "conf.py" && !strings.HasSuffix(p, "/conf.py") {
			return rule("config:sphinx:invalid-config-file", "The sphinx.configuration key must point to a file named conf.py.")
		}
		v.c.Sphinx.Configuration = &p
	}
	v.c.Sphinx.FailOnWarning, err = vBool("sphinx.fail_on_warning", m, false)
	return err
}

func (v *currentFile) submodules() error {
	m, _, err := v.section("submodules")
	if err != nil {
		return err
	}
	sc := &v.c.Submodules
	if sc.IncludeAll, sc.Include, err = allOrStrings("submodules.include", m, false); err != nil {
		return err
	}
	including := sc.IncludeAll || len(sc.Include) > 0
	if sc.ExcludeAll, sc.Exclude, err = allOrStrings("submodules.exclude", m, !including); err != nil {
		return err
	}
	if including && (sc.ExcludeAll || len(sc.Exclude) > 0) {
		return rule("config:submodules:include-exclude-together", "You can not have submodules.exclude and submodules.include at the same time.")
	}
	sc.Recursive, err = vBool("submodules.recursive", m, false)
	return err
}

// allOrStrings reads a key that is "all" or a list of strings.
func allOrStrings(key string, m *Map, defaultAll bool) (bool, []string, error) {
	x, ok := m.Get(key[strings.LastIndex(key, ".")+1:])
	if !ok {
		return defaultAll, []string{}, nil
	}
	if x == "all" {
		return true, nil, nil
	}
	l, err := vStrings(key, x)
	return false, l, err
}

func (v *currentFile) search() error {
	m, _, err := v.section("search")
	if err != nil {
		return err
	}
	s := v.c.Search
	if x, ok := m.Get("ranking"); ok {
		r, err := vDict("search.ranking", x)
		if err != nil {
			return err
		}
		for _, k := range r.keys {
			p, err := pathPattern("search.ranking", k)
			if err != nil {
				return err
			}
			rank, err := searchRank(r.vals[k])
			if err != nil {
				return err
			}
			s.Ranking = append(s.Ranking, Rank{Pattern: p, Rank: rank})
		}
	}
	s.Ignore = append([]string(nil), DefaultSearchIgnore...)
	if x, ok := m.Get("ignore"); ok {
		l, err := vList("search.ignore", x)
		if err != nil {
			return err
		}
		s.Ignore = []string{}
		for _, e := range l {
			p, err := pathPattern("search.ignore", e)
			if err != nil {
				return err
			}
			s.Ignore = append(s.Ignore, p)
		}
	}
	return nil
}

// searchRank validates a `search.ranking` value: an integer −10…10.
func searchRank(x any) (int64, error) {
	if n, ok := x.(int64); ok && n >= -10 && n <= 10 {
		return n, nil
	}
	return 0, choiceError("search.ranking", rankChoices(), x)
}

// rankChoices are the values of `search.ranking`, −10…10, in message
// order.
func rankChoices() []string {
	choices := make([]string, 0, 21)
	for i := -10; i <= 10; i++ {
		choices = append(choices, strconv.Itoa(i))
	}
	return choices
}

// doctype is Read the Docs' doctype: generic when build.commands is
// non-empty, or when the file has neither a sphinx nor an mkdocs key and
// overrides create_environment, install or a build.jobs.build entry; else
// mkdocs when an mkdocs key exists; else the Sphinx doctype of
// sphinx.builder.
func (v *currentFile) doctype() string {
	cur := v.c.Current
	if len(cur.Commands) > 0 {
		return DoctypeGeneric
	}
	if !v.raw.has("sphinx") && !v.raw.has("mkdocs") {
		for _, j := range []string{"create_environment", "install", "build.html", "build.pdf", "build.epub", "build.htmlzip"} {
			if _, ok := cur.Jobs[j]; ok {
				return DoctypeGeneric
			}
		}
	}
	if v.raw.has("mkdocs") {
		return DoctypeMkDocs
	}
	return v.c.Sphinx.Builder
}
