package rtdconfig

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// keyExamples give each key of configKeys a valid use, as top-level
// sections merged into a file of either form.
var keyExamples = map[string]map[string]any{
	"version":                             {},
	"formats":                             {"formats": []any{"pdf"}},
	"build":                               {"build": map[string]any{}},
	"build.image":                         {"build": map[string]any{"image": "latest"}},
	"build.os":                            {"build": map[string]any{"os": "ubuntu-24.04", "tools": map[string]any{"python": "3.12"}}},
	"build.tools":                         {"build": map[string]any{"os": "ubuntu-24.04", "tools": map[string]any{"python": "3.12"}}},
	"build.jobs":                          {"build": map[string]any{"os": "ubuntu-24.04", "tools": map[string]any{"python": "3.12"}, "jobs": map[string]any{"post_checkout": []any{"true"}}}},
	"build.commands":                      {"build": map[string]any{"os": "ubuntu-24.04", "commands": []any{"true"}}},
	"build.apt_packages":                  {"build": map[string]any{"os": "ubuntu-24.04", "tools": map[string]any{"python": "3.12"}, "apt_packages": []any{"graphviz"}}},
	"conda":                               {"conda": map[string]any{"environment": "env.yml"}},
	"conda.environment":                   {"conda": map[string]any{"environment": "env.yml"}},
	"python":                              {"python": map[string]any{}},
	"python.version":                      {"python": map[string]any{"version": 3}},
	"python.system_packages":              {"python": map[string]any{"system_packages": true}},
	"python.install":                      {"python": map[string]any{"install": []any{}}},
	"python.install.*.requirements":       {"python": map[string]any{"install": []any{map[string]any{"requirements": "requirements.txt"}}}},
	"python.install.*.path":               {"python": map[string]any{"install": []any{map[string]any{"path": "."}}}},
	"python.install.*.method":             {"python": map[string]any{"install": []any{map[string]any{"path": ".", "method": "setuptools"}}}},
	"python.install.*.extra_requirements": {"python": map[string]any{"install": []any{map[string]any{"path": ".", "extra_requirements": []any{"docs"}}}}},
	"python.install.*.command":            {"python": map[string]any{"install": []any{map[string]any{"method": "uv", "command": "sync"}}}},
	"python.install.*.groups":             {"python": map[string]any{"install": []any{map[string]any{"method": "uv", "command": "sync", "groups": []any{"docs"}}}}},
	"python.install.*.extras":             {"python": map[string]any{"install": []any{map[string]any{"method": "uv", "command": "sync", "extras": "all"}}}},
	"sphinx":                              {"sphinx": map[string]any{}},
	"sphinx.builder":                      {"sphinx": map[string]any{"builder": "dirhtml"}},
	"sphinx.configuration":                {"sphinx": map[string]any{"configuration": "docs/conf.py"}},
	"sphinx.fail_on_warning":              {"sphinx": map[string]any{"fail_on_warning": true}},
	"mkdocs":                              {"mkdocs": map[string]any{}},
	"mkdocs.configuration":                {"mkdocs": map[string]any{"configuration": "mkdocs.yml"}},
	"mkdocs.fail_on_warning":              {"mkdocs": map[string]any{"fail_on_warning": true}},
	"submodules":                          {"submodules": map[string]any{}},
	"submodules.include":                  {"submodules": map[string]any{"include": []any{"sub"}}},
	"submodules.exclude":                  {"submodules": map[string]any{"exclude": []any{"sub"}}},
	"submodules.recursive":                {"submodules": map[string]any{"recursive": true}},
	"search":                              {"search": map[string]any{}},
	"search.ranking":                      {"search": map[string]any{"ranking": map[string]any{"api/*": -1}}},
	"search.ignore":                       {"search": map[string]any{"ignore": []any{"hidden.html"}}},
}

// merged deep-merges the mappings of add into base.
func merged(base, add map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range add {
		if b, ok := out[k].(map[string]any); ok {
			if a, ok := v.(map[string]any); ok {
				out[k] = merged(b, a)
				continue
			}
		}
		out[k] = v
	}
	return out
}

// loadForm loads a version 2 file of the legacy form (no build.os) or the
// current form (build.os and build.tools) with example merged in.
func loadForm(t *testing.T, current bool, example map[string]any) (*Config, error) {
	t.Helper()
	base := map[string]any{"version": 2}
	if current {
		base["build"] = map[string]any{"os": "ubuntu-24.04", "tools": map[string]any{"python": "3.12"}}
	}
	data, err := yaml.Marshal(merged(base, example))
	if err != nil {
		t.Fatal(err)
	}
	return load(t, map[string]string{".readthedocs.yaml": string(data), "docs/conf.py": "", "env.yml": "",
		"requirements.txt": "", "mkdocs.yml": "", "sub/README": ""})
}

// TestConfigKeysBothForms walks configKeys: a key both rule sets read is
// accepted in a file of either form; a key of one rule set is refused, or
// selects the other rules, in a file of the other form, with the message
// of an unknown or a removed key under the current rules.
func TestConfigKeysBothForms(t *testing.T) {
	for _, k := range configKeys {
		t.Run(k.path, func(t *testing.T) {
			example, ok := keyExamples[k.path]
			if !ok {
				t.Fatalf("no example for %s: add one to keyExamples", k.path)
			}
			legacy, legacyErr := loadForm(t, false, example)
			current, currentErr := loadForm(t, true, example)
			if k.rules&legacyRules != 0 {
				if legacyErr != nil || legacy.Current != nil {
					t.Errorf("legacy form refused %s: %v", k.path, legacyErr)
				}
			} else if legacyErr == nil && legacy.Current == nil {
				t.Errorf("legacy form accepted %s as legacy", k.path)
			}
			if k.rules&currentRules != 0 {
				if currentErr != nil || current.Current == nil {
					t.Errorf("current form refused %s: %v", k.path, currentErr)
				}
				return
			}
			e, ok := AsError(currentErr)
			if !ok {
				t.Fatalf("current form: err = %v, want a refusal of %s", currentErr, k.path)
			}
			wantID := IDInvalidKeyName
			if id, removed := removedKeys[k.path]; removed {
				wantID = id
			}
			if e.ID != wantID || !strings.Contains(e.Msg, " "+k.path+" ") {
				t.Errorf("current form: %s [%s], want id %s naming %s", e.Msg, e.ID, wantID, k.path)
			}
		})
	}
}

// TestConfigKeysSelectCurrentRules checks that the build keys only the
// current rules read are exactly those that select them.
func TestConfigKeysSelectCurrentRules(t *testing.T) {
	for _, k := range configKeys {
		name, isBuildKey := strings.CutPrefix(k.path, "build.")
		if !isBuildKey {
			continue
		}
		raw, err := parseConfigFile("f", []byte("build: {"+name+": x}\n"))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := usesCurrentKeys(raw), k.rules == currentRules; got != want {
			t.Errorf("build.%s selects the current rules: %v, want %v", name, got, want)
		}
	}
}

// TestConfigHeaders checks the notification headers of configuration
// failures: Read the Docs' text by id, the key named for an unknown one.
func TestConfigHeaders(t *testing.T) {
	const os = "build: {os: ubuntu-24.04, tools: {python: \"3.12\"}}\n"
	for _, tc := range []struct{ name, yaml, header string }{
		{"removed", "version: 2\n" + os + "python: {system_packages: true}\n", "Invalid configuration key"},
		{"removed site packages", "version: 2\n" + os + "python: {use_system_site_packages: true}\n", "Invalid configuration key"},
		{"unknown key", "version: 2\n" + os + "sphinx: {builder: html, fail_on_warnings: true}\n", "Invalid configuration key: sphinx.fail_on_warnings"},
		{"validation", "version: 2\n" + os + "formats: pdf\n", "Config file validation error"},
		{"legacy", "version: 2\nbuild: {image: latest}\nsphinxx: {}\n", "There was an unexpected problem in your config file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := loadCurrent(t, tc.yaml)
			e, ok := AsError(err)
			if !ok {
				t.Fatalf("err = %v, want a configuration failure", err)
			}
			if got, ok := Header(e.ID, e.Msg); !ok || got != tc.header {
				t.Errorf("Header(%s) = %q, %v; want %q", e.ID, got, ok, tc.header)
			}
		})
	}
	if _, ok := Header("build:user:generic", "x"); ok {
		t.Error("Header knows an id this package does not report")
	}
}
