package rtdconfig

import (
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ConfigFileNames are the configuration files looked for at the checkout
// root (not in subdirectories), in this order: the first that exists is
// used.
var ConfigFileNames = []string{".readthedocs.yaml", ".readthedocs.yml", "readthedocs.yaml", "readthedocs.yml"}

// formatChoices are the extra formats a build may produce.
var formatChoices = FormatChoices

// FormatChoices are the extra formats a build may produce, in message order.
var FormatChoices = []string{"htmlzip", "pdf", "epub"}

// Install is one `python.install` entry: a requirements file, or a package
// path installed with pip or setuptools.
type Install struct {
	Requirements      *string // set for a requirements entry (nil path: v1 auto-discovery)
	IsRequirements    bool
	Path              string
	Method            string // "pip", "setuptools" or (current rules) "uv"
	ExtraRequirements []string
	UV                *UVInstall // set for a `method: uv` entry (current rules)
}

// Config is a validated build configuration.
type Config struct {
	Version       string // "1" or "2"
	File          string // the configuration file's name, "" when there is none
	Formats       []string
	PythonVersion any // int64, float64 or string ("pypy3.5")
	Install       []Install
	SystemSite    bool
	Conda         *string // conda environment file
	Image         string  // e.g. "latest"
	Doctype       string
	Sphinx        *SphinxConfig
	MkDocs        *MkDocsConfig
	Submodules    SubmoduleConfig
	// Current is set for a file under the current rules: its build
	// section and resolved tools.
	Current *Current
	// Search is the `search` section: always set under the current
	// rules, set under the legacy rules for a version 2 file that has one.
	Search      *Search
	imagePrefix string
}

// SphinxConfig is the `sphinx` section.
type SphinxConfig struct {
	Builder       string // current rules: the doctype sphinx.builder selects
	Configuration *string
	FailOnWarning bool
}

// MkDocsConfig is the `mkdocs` section.
type MkDocsConfig struct {
	Configuration *string
	FailOnWarning bool
}

// SubmoduleConfig is the `submodules` section; All means "all".
type SubmoduleConfig struct {
	IncludeAll bool
	Include    []string
	ExcludeAll bool
	Exclude    []string
	Recursive  bool
}

// Wanted reports whether submodules are checked out at all: `include`
// non-empty or `exclude` not `all`.
func (s SubmoduleConfig) Wanted() bool {
	return s.IncludeAll || len(s.Include) > 0 || !s.ExcludeAll
}

// HasFormat reports whether the config lists an extra format.
func (c *Config) HasFormat(f string) bool {
	for _, x := range c.Formats {
		if x == f {
			return true
		}
	}
	return false
}

// JSON is the stored shape of the configuration, which the APIs show
// (v3's expand=config, v2's config): keys sorted, numbers in their JSON
// form. A legacy file stores nine keys (version, formats, python, conda,
// build, doctype, sphinx, mkdocs, submodules), and search when a version 2
// file has that section; a current one always adds search and widens
// build.
func (c *Config) JSON() string {
	if c.Current != nil {
		return c.currentJSON()
	}
	return c.legacyJSON()
}

// Input is what resolving a configuration needs.
type Input struct {
	Ckout       string          // the checkout root
	Project     ProjectSettings // the project's settings the configuration reads
	ImagePrefix string          // the build_image_prefix setting
	// ExtraToolVersions are the build_tools versions this server adds
	// to ToolVersions, per tool, in entry order.
	ExtraToolVersions map[string][]string
}

// ProjectSettings are the settings of a project that reading its
// configuration uses: where the file and conf.py are when the project names
// them, and the defaults of version 1 files and of builds without a file.
type ProjectSettings struct {
	ReadthedocsYamlPath *string // the configuration file, relative to the checkout; nil: discovery
	ConfPyFile          string  // the project's conf.py, "" when unset
	DocumentationType   string
	PythonInterpreter   string
	RequirementsFile    *string
	InstallProject      bool
	UseSystemPackages   bool
	EnablePDFBuild      bool
	EnableEPUBBuild     bool
}

// parseConfigFile parses YAML into a non-empty mapping.
func parseConfigFile(file string, data []byte) (*Map, error) {
	parseError := func(msg string) error { return configFailure("Parse error in " + file + ": " + msg) }
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, parseError("YAML: " + strings.TrimPrefix(err.Error(), "yaml: "))
	}
	v, err := fromNode(&doc)
	if err != nil {
		return nil, parseError("YAML: " + err.Error())
	}
	m, ok := v.(*Map)
	if !ok {
		return nil, parseError("Expected mapping")
	}
	if m.len() == 0 {
		return nil, parseError("Empty config")
	}
	return m, nil
}

// normaliseNumber turns strings that are numbers into numbers, as RTD did
// for `version` and `python.version`; integral floats stay floats.
func normaliseNumber(v any) any {
	s, ok := v.(string)
	if !ok {
		return v
	}
	if i, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64); err == nil {
		return i
	}
	if f, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
		return yamlFloat(f)
	}
	return v
}

// pyBool reads a boolean as RTD's validate_bool does: true, false, 0, 1.
func pyBool(x any) (bool, bool) {
	switch b := x.(type) {
	case bool:
		return b, true
	case int64:
		return b == 1, b == 0 || b == 1
	case yamlFloat:
		return b == 1, b == 0 || b == 1
	}
	return false, false
}

// valueOf returns m[key], nil when absent.
func valueOf(m *Map, key string) any {
	v, _ := m.Get(key)
	return v
}

// knownKeys describes the keys a configuration may have: a nil value is a
// leaf, a knownKeys value a nested mapping, listKnown the items of a list.
type knownKeys map[string]any

type listKnown []knownKeys

// firstUnknownKey returns the dotted path of the first key of raw (in file
// order, depth-first) that the schema does not know, "" when there is
// none. Under an unknown key, every nested key is unknown too.
func firstUnknownKey(raw any, known knownKeys, prefix string) string {
	return unknownKey(raw, known, prefix, func(i int) string { return "[" + strconv.Itoa(i) + "]" })
}

// unknownKey is firstUnknownKey with list items named by index(i) after
// the list's key: "[0]" in the legacy messages, ".0" in the current ones.
func unknownKey(raw any, known knownKeys, prefix string, index func(int) string) string {
	m, ok := raw.(*Map)
	if !ok {
		return ""
	}
	join := func(k string) string {
		if prefix == "" {
			return k
		}
		return prefix + "." + k
	}
	for _, k := range m.keys {
		sub, isKnown := known[k]
		if !isKnown {
			return deepestFirstKey(m.vals[k], join(k))
		}
		switch s := sub.(type) {
		case knownKeys:
			if key := unknownKey(m.vals[k], s, join(k), index); key != "" {
				return key
			}
		case listKnown:
			items, _ := m.vals[k].([]any)
			for i, item := range items {
				if i < len(s) {
					if key := unknownKey(item, s[i], join(k)+index(i), index); key != "" {
						return key
					}
				}
			}
		}
	}
	return ""
}

// deepestFirstKey follows the first key of nested mappings.
func deepestFirstKey(v any, path string) string {
	if m, ok := v.(*Map); ok && m.len() > 0 {
		return deepestFirstKey(m.vals[m.keys[0]], path+"."+m.keys[0])
	}
	return path
}
