package rtdconfig

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"docsd/internal/artifacts/artifactstest"
)

// checkout writes files into a temp dir standing for a checkout.
func checkout(t *testing.T, files map[string]string) string { return artifactstest.Dir(t, files) }

func defaultProject() ProjectSettings {
	return ProjectSettings{DocumentationType: "sphinx", PythonInterpreter: "python3"}
}

func load(t *testing.T, files map[string]string) (*Config, error) {
	t.Helper()
	return Load(Input{Ckout: checkout(t, files), Project: defaultProject(), ImagePrefix: "readthedocs/build"})
}

// compact re-encodes JSON without spaces, for comparing with a readable
// literal.
func compact(t *testing.T, s string) string {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(s)); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestConfigStoredShape(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{
			// A repository without a configuration file.
			name:  "no file, Sphinx detected",
			files: map[string]string{"docs/conf.py": "", "docs/index.rst": ""},
			want: `{
  "build": {"image": "readthedocs/build:latest"},
  "conda": null,
  "doctype": "sphinx",
  "formats": ["htmlzip"],
  "mkdocs": {"configuration": null, "fail_on_warning": false},
  "python": {"install": [{"requirements": null}], "use_system_site_packages": false, "version": 3},
  "sphinx": {"builder": "sphinx", "configuration": "docs/conf.py", "fail_on_warning": false},
  "submodules": {"exclude": [], "include": "all", "recursive": true},
  "version": "1"
}`,
		},
		{
			name:  "no file, mkdocs.yml",
			files: map[string]string{"mkdocs.yml": "site_name: x\n", "docs/index.md": "# x"},
			want:  `{"build":{"image":"readthedocs/build:latest"},"conda":null,"doctype":"mkdocs","formats":["htmlzip"],"mkdocs":{"configuration":null,"fail_on_warning":false},"python":{"install":[{"requirements":null}],"use_system_site_packages":false,"version":3},"sphinx":{"builder":"mkdocs","configuration":null,"fail_on_warning":false},"submodules":{"exclude":[],"include":"all","recursive":true},"version":"1"}`,
		},
		{
			name:  "no file, plain Markdown",
			files: map[string]string{"README.md": "# x"},
			want:  `{"build":{"image":"readthedocs/build:latest"},"conda":null,"doctype":"mkdocs","formats":["htmlzip"],"mkdocs":{"configuration":null,"fail_on_warning":false},"python":{"install":[{"requirements":null}],"use_system_site_packages":false,"version":3},"sphinx":{"builder":"mkdocs","configuration":null,"fail_on_warning":false},"submodules":{"exclude":[],"include":"all","recursive":true},"version":"1"}`,
		},
		{
			// A version 2 file with every format.
			name: "v2 Sphinx with all formats",
			files: map[string]string{"docs/conf.py": "", ".readthedocs.yaml": `version: 2
formats: all
sphinx:
  configuration: docs/conf.py
`},
			want: `{"build": {"image": "readthedocs/build:latest"}, "conda": null, "doctype": "sphinx", "formats": ["htmlzip", "pdf", "epub"], "mkdocs": null, "python": {"install": [], "use_system_site_packages": false, "version": 3}, "sphinx": {"builder": "sphinx", "configuration": "docs/conf.py", "fail_on_warning": false}, "submodules": {"exclude": "all", "include": [], "recursive": false}, "version": "2"}`,
		},
		{
			name: "v2 everything",
			files: map[string]string{"requirements.txt": "", "env.yml": "", "sub/x": "", "pkg/setup.py": "", ".readthedocs.yml": `version: "2"
formats: [epub]
build:
  image: 4.0
conda:
  environment: env.yml
python:
  version: "3.6"
  system_packages: true
  install:
    - requirements: ./requirements.txt
    - path: pkg
      extra_requirements: [docs]
    - path: .
      method: setuptools
mkdocs:
  configuration: requirements.txt
  fail_on_warning: 1
submodules:
  include: [sub]
  recursive: true
`},
			want: `{"build":{"image":"readthedocs/build:4.0"},"conda":{"environment":"env.yml"},"doctype":"mkdocs","formats":["epub"],"mkdocs":{"configuration":"requirements.txt","fail_on_warning":true},"python":{"install":[{"requirements":"requirements.txt"},{"extra_requirements":["docs"],"method":"pip","path":"pkg"},{"extra_requirements":[],"method":"setuptools","path":"."}],"use_system_site_packages":true,"version":3.6},"sphinx":null,"submodules":{"exclude":[],"include":["sub"],"recursive":true},"version":"2"}`,
		},
		{
			name: "v2 dirhtml",
			files: map[string]string{"doc/conf.py": "", "readthedocs.yml": `version: 2
sphinx:
  builder: dirhtml
  fail_on_warning: true
python:
  version: pypy3.5
`},
			want: `{"build":{"image":"readthedocs/build:latest"},"conda":null,"doctype":"sphinx_htmldir","formats":[],"mkdocs":null,"python":{"install":[],"use_system_site_packages":false,"version":"pypy3.5"},"sphinx":{"builder":"sphinx_htmldir","configuration":"doc/conf.py","fail_on_warning":true},"submodules":{"exclude":"all","include":[],"recursive":false},"version":"2"}`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := load(t, tc.files)
			if err != nil {
				t.Fatalf("loadConfig: %v", err)
			}
			if got, want := c.JSON(), compact(t, tc.want); got != want {
				t.Errorf("stored config\n got %s\nwant %s", got, want)
			}
		})
	}
}

func TestConfigErrors(t *testing.T) {
	const p = "Problem in your project's configuration. "
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"not YAML", map[string]string{".readthedocs.yaml": "version: [2\n"}, p + "Parse error in .readthedocs.yaml: YAML: line 1: did not find expected ',' or ']'"},
		{"not a mapping", map[string]string{".readthedocs.yaml": "- 1\n"}, p + "Parse error in .readthedocs.yaml: Expected mapping"},
		{"empty mapping", map[string]string{".readthedocs.yaml": "{}\n"}, p + "Parse error in .readthedocs.yaml: Empty config"},
		{"bad version", map[string]string{".readthedocs.yaml": "version: 3\n"}, p + `Invalid "version": Invalid version of the configuration file`},
		{"unknown key", map[string]string{".readthedocs.yaml": "version: 2\npython:\n  version: 3\n  instal: []\n"}, p + `Invalid "python.instal": .readthedocs.yaml: Invalid configuration option: python.instal. Make sure the key name is correct.`},
		{"unknown nested key", map[string]string{".readthedocs.yaml": "version: 2\nfoo:\n  bar: 1\n"}, p + `Invalid "foo.bar": .readthedocs.yaml: Invalid configuration option: foo.bar. Make sure the key name is correct.`},
		{"bad format", map[string]string{".readthedocs.yaml": "version: 2\nformats: [pdf, docx]\n"}, p + `Invalid "formats": expected one of (htmlzip, pdf, epub), got docx`},
		{"formats not a list", map[string]string{".readthedocs.yaml": "version: 2\nformats: pdf\n"}, p + `Invalid "formats": expected list`},
		{"bad python version", map[string]string{".readthedocs.yaml": "version: 2\npython:\n  version: 3.4\n"}, p + `Invalid "python.version": expected one of (2, 2.7, 3, 3.5, 3.6, 3.7, pypy3.5), got 3.4`},
		{"unquoted 3.10", map[string]string{".readthedocs.yaml": "version: 2\npython:\n  version: 3.10\n"}, p + `Invalid "python.version": expected one of (2, 2.7, 3, 3.5, 3.6, 3.7, pypy3.5), got 3.1`},
		{"3.9 under image 4.0", map[string]string{".readthedocs.yaml": "version: 2\nbuild: {image: stable}\npython:\n  version: 3.9\n"}, p + `Invalid "python.version": expected one of (2, 2.7, 3, 3.5, 3.6, 3.7), got 3.9`},
		{"python not a dict", map[string]string{".readthedocs.yaml": "version: 2\npython: 3\n"}, p + `Invalid "python": 3 is not a dictionary`},
		{"bad image", map[string]string{".readthedocs.yaml": "version: 2\nbuild:\n  image: 9.0\n"}, p + `Invalid "build.image": expected one of (stable, latest, 1.0, 2.0, 3.0, 4.0, 5.0), got 9.0`},
		{"bad bool", map[string]string{".readthedocs.yaml": "version: 2\nsphinx:\n  fail_on_warning: yes please\n"}, p + `Invalid "sphinx.fail_on_warning": expected one of (0, 1, true, false), got yes please`},
		{"missing requirements", map[string]string{".readthedocs.yaml": "version: 2\npython:\n  install:\n    - requirements: nope.txt\n"}, p + `Invalid "python.install[0].requirements": path nope.txt does not exist`},
		{"install entry without a key", map[string]string{".readthedocs.yaml": "version: 2\npython:\n  install:\n    - method: pip\n"}, p + `Invalid "python.install[0]": .readthedocs.yaml: "path" or "requirements" key is required`},
		{"extras with setuptools", map[string]string{".readthedocs.yaml": "version: 2\npython:\n  install:\n    - path: .\n      method: setuptools\n      extra_requirements: [a]\n"}, p + `Invalid "python.install[0].extra_requirements": .readthedocs.yaml: You need to install your project with pip to use extra_requirements`},
		{"sphinx and mkdocs", map[string]string{".readthedocs.yaml": "version: 2\nsphinx: {}\nmkdocs: {}\n"}, p + "Invalid \".\": .readthedocs.yaml: You can not have the ``sphinx`` and ``mkdocs`` keys at the same time"},
		{"conda without environment", map[string]string{".readthedocs.yaml": "version: 2\nconda: {}\n"}, p + `Invalid "conda.environment": environment not found`},
		{"include and exclude", map[string]string{"a/x": "", ".readthedocs.yaml": "version: 2\nsubmodules:\n  include: [a]\n  exclude: all\n"}, p + `Invalid "submodules": .readthedocs.yaml: You can not exclude and include submodules at the same time`},
		{"missing mkdocs config", map[string]string{".readthedocs.yaml": "version: 2\nmkdocs:\n  configuration: site.yml\n"}, p + `Invalid "mkdocs.configuration": path site.yml does not exist`},
		{"configured conf.py missing", map[string]string{".readthedocs.yaml": "version: 2\nsphinx:\n  configuration: docs/conf.py\n"}, MsgConfPyNotFound},
		{"several conf.py", map[string]string{"a/conf.py": "", "b/conf.py": ""}, MsgConfPyMultiple},
		{"nothing to build", map[string]string{"src/main.go": ""}, MsgNoDocumentation},
		{"search not a dict", map[string]string{".readthedocs.yaml": "version: 2\nsearch: 3\n"}, p + `Invalid "search": 3 is not a dictionary`},
		{"search rank", map[string]string{".readthedocs.yaml": "version: 2\nsearch:\n  ranking: {api/*: 11}\n"},
			p + `Invalid "search.ranking": expected one of (-10, -9, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10), got 11`},
		{"search ranking pattern", map[string]string{".readthedocs.yaml": "version: 2\nsearch:\n  ranking: {/: 1}\n"}, p + `Invalid "search.ranking": invalid path pattern /`},
		{"search ignore not a list", map[string]string{".readthedocs.yaml": "version: 2\nsearch:\n  ignore: hidden.html\n"}, p + `Invalid "search.ignore": expected list`},
		{"search ignore item", map[string]string{".readthedocs.yaml": "version: 2\nsearch:\n  ignore: [a.html, 3]\n"}, p + `Invalid "search.ignore[1]": expected string`},
		{"search ignore pattern", map[string]string{".readthedocs.yaml": "version: 2\nsearch:\n  ignore: [\"/\"]\n"}, p + `Invalid "search.ignore[0]": invalid path pattern /`},
		{"search unknown key", map[string]string{".readthedocs.yaml": "version: 2\nsearch:\n  ignored: []\n"}, p + `Invalid "search.ignored": .readthedocs.yaml: Invalid configuration option: search.ignored. Make sure the key name is correct.`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := load(t, tc.files)
			f, ok := AsError(err)
			if !ok {
				t.Fatalf("err = %v, want a build failure %q", err, tc.want)
			}
			if f.Msg != tc.want {
				t.Errorf("error\n got %s\nwant %s", f.Msg, tc.want)
			}
		})
	}
}

func TestConfPyDiscovery(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"docs dir first", map[string]string{"docs/conf.py": "", "other/conf.py": ""}, "docs/conf.py"},
		{"one anywhere", map[string]string{"src/site/conf.py": ""}, "src/site/conf.py"},
		{"several, one under doc", map[string]string{"a/conf.py": "", "mydocs/conf.py": ""}, "mydocs/conf.py"},
		{"project setting", map[string]string{"a/conf.py": "", "b/conf.py": ""}, "b/conf.py"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			setting := ""
			if tc.name == "project setting" {
				setting = "b/conf.py"
			}
			got, err := DiscoverConfPy(checkout(t, tc.files), setting)
			if err != nil || got != tc.want {
				t.Errorf("discoverConfPy = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// TestLegacyConfigAccepts checks what Read the Docs built from legacy
// files beyond the image tables: later Pythons under the default image and
// install paths written with pip extras.
func TestLegacyConfigAccepts(t *testing.T) {
	type accept struct{ name, yaml, want string }
	var later []accept
	// Every later Python, quoted, under the default image and `latest`
	// (accepted as Read the Docs' later images did, though the messages
	// keep listing the image's own versions), and the numbers YAML reads
	// as themselves.
	for _, v := range []string{"3.8", "3.9", "3.10", "3.11", "3.12", "3.13", "3.14"} {
		later = append(later, accept{"python \"" + v + "\" default image", "version: 2\npython:\n  version: \"" + v + "\"\n", `"version":` + v},
			accept{"python \"" + v + "\" latest image", "version: 2\nbuild:\n  image: latest\npython:\n  version: \"" + v + "\"\n", `"version":` + v})
		if v != "3.10" {
			later = append(later, accept{"python " + v + " unquoted", "version: 2\nbuild:\n  image: latest\npython:\n  version: " + v + "\n", `"version":` + v})
		}
	}
	for _, tc := range append(later, []accept{
		{"python 3.8 default image", "version: 2\npython:\n  version: 3.8\n", `"version":3.8`},
		{"v1 python 3.9", "python:\n  version: 3.9\n", `"version":3.9`},
		{"python \"3.12\" latest image", "version: 2\nbuild: {image: latest}\npython:\n  version: \"3.12\"\n", `"version":3.12`},
		{"python \"3.10\"", "version: 2\npython:\n  version: \"3.10\"\n", `"version":3.10`},
		{"extras path", "version: 2\npython:\n  install:\n    - method: pip\n      path: .[docs]\n", `"path":".[docs]"`},
		{"search", "version: 2\nsearch:\n  ranking: {/api/*: -1, changelog.html: 2}\n  ignore: [hidden.html]\n",
			`"search":{"ignore":["hidden.html"],"ranking":{"api/*":-1,"changelog.html":2}}`},
		{"search defaults", "version: 2\nsearch: {}\n", `"search":{"ignore":["search.html","search/index.html","404.html","404/index.html"],"ranking":{}}`},
	}...) {
		t.Run(tc.name, func(t *testing.T) {
			c, err := load(t, map[string]string{".readthedocs.yaml": tc.yaml, "docs/conf.py": ""})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(c.JSON(), tc.want) {
				t.Errorf("stored %s lacks %s", c.JSON(), tc.want)
			}
		})
	}
}
