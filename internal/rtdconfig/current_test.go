package rtdconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func loadCurrent(t *testing.T, yaml string, files ...string) (*Config, error) {
	t.Helper()
	fs := map[string]string{".readthedocs.yaml": yaml}
	for _, f := range files {
		fs[f] = ""
	}
	return Load(Input{Ckout: checkout(t, fs), Project: defaultProject(), ImagePrefix: "readthedocs/build",
		ExtraToolVersions: map[string][]string{"python": {"3.15"}}})
}

// TestCurrentConfigMessages checks every message of the current rules and
// its id, on the failing files Read the Docs users write most.
func TestCurrentConfigMessages(t *testing.T) {
	const p = "Problem in your project's configuration. "
	const os = "build:\n  os: ubuntu-24.04\n  tools: {python: \"3.12\"}\n"
	const dbl = ` Double check the type of the value. A string may be required (e.g. "3.10" instead of 3.10)`
	for _, tc := range []struct {
		name, yaml, id, want string
	}{
		{"build job not in formats", "version: 2\nformats: [pdf]\nbuild:\n  os: ubuntu-24.04\n  tools: {python: \"3\"}\n  jobs:\n    build:\n      epub: [\"make epub\"]\n",
			"config:build:jobs:build:missing-in-formats", "The epub build type was defined in build.jobs.build, but it wasn't included in formats."},
		{"unquoted 3.10", "build: {os: ubuntu-24.04, tools: {python: 3.10}}\n", "config:validation:invalid-choice",
			"Config validation error in build.tools.python. Expected one of (2.7, 3.6, 3.7, 3.8, 3.9, 3.10, 3.11, 3.12, 3.13, 3.14, miniconda3-4.7, miniconda3-3.12-24.1, miniconda3-3.12-24.9, mambaforge-4.10, mambaforge-22.9, mambaforge-23.11, miniforge3-25.11, miniforge3-26.3, 3, latest, miniconda-latest, mambaforge-latest, miniforge3-latest, 3.15), got type float (3.1)." + dbl},
		{"unknown OS", "build: {os: ubuntu-18.04, tools: {python: \"3.8\"}}\n", "config:validation:invalid-choice",
			"Config validation error in build.os. Expected one of (ubuntu-22.04, ubuntu-24.04, ubuntu-26.04, ubuntu-lts-latest), got type str (ubuntu-18.04)." + dbl},
		{"python.version", "version: 2\nbuild:\n  os: ubuntu-22.04\n  tools:\n    python: \"3.11\"\npython:\n  version: \"3.11\"\n  install:\n    - requirements: docs/requirements.txt\n",
			"config:base:invalid-key-name", "Make sure the key name python.version is correct."},
		{"build.image", "version: 2\nbuild:\n  os: ubuntu-22.04\n  image: latest\n  tools:\n    python: \"3.11\"\n",
			"config:base:invalid-key-name", "Make sure the key name build.image is correct."},
		{"tools without os", "version: 2\nbuild: {tools: {python: \"3.12\"}}\n", "config:validation:value-not-found", "Config validation error in build.os. Value os not found."},
		{"jobs without os", "version: 2\nbuild: {jobs: {post_checkout: [ls]}}\n", "config:validation:value-not-found", "Config validation error in build.os. Value os not found."},
		{"no tools or commands", "version: 2\nbuild: {os: ubuntu-24.04}\n", "config:build:missing-build-tools-commands", "At least one of the following configuration options is required: build.tools or build.commands."},
		{"apt prefix", "version: 2\nbuild: {os: ubuntu-24.04, tools: {python: \"3.12\"}, apt_packages: [graphviz, \" --allow-unauthenticated\"]}\n",
			"config:apt:invalid-package-name-prefix", "The name of the packages (e.g. --allow-unauthenticated) can't start with -"},
		{"apt name", "version: 2\nbuild: {os: ubuntu-24.04, tools: {python: \"3.12\"}, apt_packages: [libfoo=1.2]}\n",
			"config:apt:invalid-package-name", "The name of the package libfoo=1.2 is invalid."},
		{"apt item not a string", "version: 2\nbuild: {os: ubuntu-24.04, tools: {python: \"3.12\"}, apt_packages: [a, 3]}\n",
			"config:validation:invalid-string", "Config validation error in build.apt_packages.1. Expected a string, got type int (3)."},
		{"apt not a list", "version: 2\nbuild: {os: ubuntu-24.04, tools: {python: \"3.12\"}, apt_packages: graphviz}\n",
			"config:validation:invalid-list", "Config validation error in build.apt_packages. Expected a list, got type str (graphviz)."},
		{"conda required", "build: {os: ubuntu-24.04, tools: {python: miniforge3-latest}}\n", "config:conda:required", "The key conda.environment is required when using Conda or Mamba."},
		{"conf file name", "version: 2\n" + os + "sphinx: {configuration: docs/source/config.py}\n", "config:sphinx:invalid-config-file", "The sphinx.configuration key must point to a file named conf.py."},
		{"nodejs number", "version: 2\nbuild: {os: ubuntu-24.04, tools: {nodejs: 20}}\n", "config:validation:invalid-choice",
			"Config validation error in build.tools.nodejs. Expected one of (14, 16, 18, 19, 20, 22, 23, 24, 25, 26, latest), got type int (20)." + dbl},
		{"unknown tool", "version: 2\nbuild: {os: ubuntu-24.04, tools: {java: \"21\"}}\n", "config:validation:invalid-choice",
			"Config validation error in build.tools. Expected one of (python, nodejs, ruby, rust, golang), got type str (java)." + dbl},
		{"unknown job", "version: 2\nbuild: {os: ubuntu-24.04, tools: {python: \"3\"}, jobs: {post_clone: [ls]}}\n", "config:validation:invalid-choice",
			"Config validation error in build.jobs. Expected one of (pre_checkout, post_checkout, pre_system_dependencies, post_system_dependencies, pre_create_environment, create_environment, post_create_environment, pre_install, install, post_install, pre_build, build, post_build), got type str (post_clone)." + dbl},
		{"unknown build type", "version: 2\nbuild: {os: ubuntu-24.04, tools: {python: \"3\"}, jobs: {build: {man: [ls]}}}\n", "config:validation:invalid-choice",
			"Config validation error in build.jobs.build. Expected one of (html, pdf, epub, htmlzip), got type str (man)." + dbl},
		{"build types before formats", "version: 2\nbuild: {os: ubuntu-24.04, tools: {python: \"3\"}, jobs: {build: {pdf: [ls], man: [ls]}}}\n", "config:validation:invalid-choice",
			"Config validation error in build.jobs.build. Expected one of (html, pdf, epub, htmlzip), got type str (man)." + dbl},
		{"job not a list", "version: 2\nbuild: {os: ubuntu-24.04, tools: {python: \"3\"}, jobs: {post_install: ls}}\n", "config:validation:invalid-list",
			"Config validation error in build.jobs.post_install. Expected a list, got type str (ls)."},
		{"job item not a string", "version: 2\nbuild: {os: ubuntu-24.04, tools: {python: \"3\"}, jobs: {build: {html: [1]}}}\n", "config:validation:invalid-string",
			"Config validation error in build.jobs.build.html. Expected a string, got type int (1)."},
		{"jobs and commands", "version: 2\nbuild: {os: ubuntu-24.04, tools: {python: \"3\"}, jobs: {post_install: [ls]}, commands: [ls]}\n",
			"config:build:jobs-and-commands", "The keys build.jobs and build.commands can't be used together."},
		{"commands not a list", "version: 2\nbuild: {os: ubuntu-24.04, commands: {a: 1}}\n", "config:validation:invalid-list",
			"Config validation error in build.commands. Expected a list, got type dict ({'a': 1})."},
		{"build not a dict", "version: 2\nbuild: [os]\nsearch: {}\n", "", ""},
		{"bad format", "version: 2\nformats: [pdf, docx]\n" + os, "config:validation:invalid-choice",
			"Config validation error in formats. Expected one of (htmlzip, pdf, epub), got type str (docx)." + dbl},
		{"formats string", "version: 2\nformats: pdf\n" + os, "config:validation:invalid-list", "Config validation error in formats. Expected a list, got type str (pdf)."},
		{"conda environment missing", "version: 2\n" + os + "conda: {}\n", "config:validation:value-not-found", "Config validation error in conda.environment. Value environment not found."},
		{"conda not a dict", "version: 2\n" + os + "conda: env.yml\n", "config:validation:invalid-dict", "Config validation error in conda. Expected a dictionary, got type str (env.yml)."},
		{"empty path", "version: 2\n" + os + "python:\n  install:\n    - requirements: \"\"\n", "config:validation:invalid-path", "Config validation error in python.install.0.requirements. The path does not exist."},
		{"path leaving", "version: 2\n" + os + "python:\n  install:\n    - requirements: ../x.txt\n", "config:validation:invalid-path", "Config validation error in python.install.0.requirements. The path ../x.txt does not exist."},
		{"install entry not a dict", "version: 2\n" + os + "python:\n  install:\n    - docs/requirements.txt\n", "config:validation:invalid-dict",
			"Config validation error in python.install.0. Expected a dictionary, got type str (docs/requirements.txt)."},
		{"install without path", "version: 2\n" + os + "python:\n  install:\n    - method: pip\n", "config:python:pip-path-requirement-required",
			"When using python.install, one of the following keys are required: python.install.path or python.install.requirements."},
		{"bad method", "version: 2\n" + os + "python:\n  install:\n    - path: .\n      method: conda\n", "config:validation:invalid-choice",
			"Config validation error in python.install.0.method. Expected one of (pip, setuptools, uv), got type str (conda)." + dbl},
		{"extras with setuptools", "version: 2\n" + os + "python:\n  install:\n    - path: .\n      method: setuptools\n      extra_requirements: [docs]\n", "config:python:pip-required",
			"You need to install your project with python.install.method: pip to use python.install.extra_requirements."},
		{"requirements with method", "version: 2\n" + os + "python:\n  install:\n    - requirements: r.txt\n      method: pip\n", "config:base:invalid-key-name", "Make sure the key name python.install.0.method is correct."},
		{"uv no command", "version: 2\n" + os + "python:\n  install:\n    - method: uv\n", "config:python:uv-command-required", "The key python.install.command is required when using method: uv. Allowed values are sync or pip."},
		{"uv bad command", "version: 2\n" + os + "python:\n  install:\n    - method: uv\n      command: run\n", "config:validation:invalid-choice",
			"Config validation error in python.install.0.command. Expected one of (sync, pip), got type str (run)." + dbl},
		{"uv several entries", "version: 2\n" + os + "python:\n  install:\n    - method: uv\n      command: sync\n    - requirements: r.txt\n", "config:python:uv-multiple-install-entries-invalid", "When using method: uv, only one entry is allowed under python.install."},
		{"uv sync requirements", "version: 2\n" + os + "python:\n  install:\n    - method: uv\n      command: sync\n      requirements: r.txt\n", "config:python:uv-sync-requirements-invalid",
			"The key python.install.requirements is not allowed with command: sync. Use command: pip instead when specifying a requirements file."},
		{"uv pip neither", "version: 2\n" + os + "python:\n  install:\n    - method: uv\n      command: pip\n", "config:python:uv-pip-requirements-or-path-required",
			"When using method: uv with command: pip, one of the following keys is required: python.install.path or python.install.requirements."},
		{"uv pip both", "version: 2\n" + os + "python:\n  install:\n    - method: uv\n      command: pip\n      path: .\n      requirements: r.txt\n", "config:python:uv-pip-requirements-and-path-mutually-exclusive",
			"When using method: uv with command: pip, both python.install.path and python.install.requirements cannot be specified at the same time."},
		{"uv pip groups", "version: 2\n" + os + "python:\n  install:\n    - method: uv\n      command: pip\n      path: .\n      groups: [docs]\n", "config:python:uv-pip-groups-not-allowed",
			"The key python.install.groups is not allowed with command: pip. Use command: sync instead when you need to select dependency groups."},
		{"uv groups empty", "version: 2\n" + os + "python:\n  install:\n    - method: uv\n      command: sync\n      groups: []\n", "config:python:uv-groups-extras-empty",
			"The python.install.groups list cannot be empty. Either remove the key or provide a non-empty list or the value all."},
		{"uv extras type", "version: 2\n" + os + "python:\n  install:\n    - method: uv\n      command: sync\n      extras: 3\n", "config:python:uv-groups-extras-invalid-type",
			"The python.install.extras must be a list of strings or the value all. Got type int."},
		{"sphinx and mkdocs", "version: 2\n" + os + "sphinx: {}\nmkdocs: {}\n", "config:base:sphinx-mkdocs-together", "You can not have sphinx and mkdocs keys at the same time."},
		{"bad builder", "version: 2\n" + os + "sphinx: {builder: latex}\n", "config:validation:invalid-choice",
			"Config validation error in sphinx.builder. Expected one of (html, htmldir, dirhtml, singlehtml), got type str (latex)." + dbl},
		{"bad bool", "version: 2\n" + os + "mkdocs: {fail_on_warning: \"true\"}\n", "config:validation:invalid-bool",
			"Config validation error in mkdocs.fail_on_warning. Expected one of [0, 1, true, false], got type str (true). Make sure the type of the value is not a string."},
		{"submodules together", "version: 2\n" + os + "submodules: {include: [a], exclude: all}\n", "config:submodules:include-exclude-together",
			"You can not have submodules.exclude and submodules.include at the same time."},
		{"search pattern", "version: 2\n" + os + "search:\n  ignore: [\"/\"]\n", "config:validation:invalid-path-pattern", "Config validation error in search.ignore. The path / is not a valid path pattern."},
		{"search rank", "version: 2\n" + os + "search:\n  ranking: {api/*: 11}\n", "config:validation:invalid-choice",
			"Config validation error in search.ranking. Expected one of (-10, -9, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10), got type int (11)." + dbl},
		{"unknown nested", "version: 2\n" + os + "foo: {bar: 1}\n", "config:base:invalid-key-name", "Make sure the key name foo.bar is correct."},
		{"system_packages", "version: 2\n" + os + "python: {system_packages: true}\n", "config:python:system-packages-removed",
			"The configuration key python.system_packages has been deprecated and removed. Read our blog post to learn more about this change and how to upgrade your configuration file."},
		{"use_system_site_packages", "version: 2\n" + os + "python:\n  install: []\n  use_system_site_packages: true\n", "config:python:use-system-site-packages-removed",
			"The configuration key python.use_system_site_packages has been deprecated and removed. Read our blog post to learn more about this change and how to upgrade your configuration file."},
		{"under a removed key", "version: 2\n" + os + "python: {system_packages: {on: 1}}\n", "config:python:system-packages-removed",
			"The configuration key python.system_packages has been deprecated and removed. Read our blog post to learn more about this change and how to upgrade your configuration file."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := loadCurrent(t, tc.yaml)
			if tc.want == "" {
				// build not a mapping: the file keeps the legacy rules.
				if e, ok := AsError(err); !ok || !strings.Contains(e.Msg, `Invalid "build"`) {
					t.Fatalf("err = %v, want the legacy build message", err)
				}
				return
			}
			e, ok := AsError(err)
			if !ok {
				t.Fatalf("err = %v, want %q", err, p+tc.want)
			}
			if e.Msg != p+tc.want || e.ID != tc.id {
				t.Errorf("error\n got %s [%s]\nwant %s [%s]", e.Msg, e.ID, p+tc.want, tc.id)
			}
		})
	}
}

// TestCurrentConfigStoredShape checks the stored shape of a current file
// with Read the Docs' tutorial template.
func TestCurrentConfigStoredShape(t *testing.T) {
	c, err := loadCurrent(t, "version: \"2\"\n\nbuild:\n  os: \"ubuntu-22.04\"\n  tools:\n    python: \"3.10\"\n\npython:\n  install:\n    - requirements: docs/requirements.txt\n\nsphinx:\n  configuration: docs/source/conf.py\n")
	if err != nil {
		t.Fatal(err)
	}
	c.Current.Tool("python").FullVersion = "3.12.3"
	want := `{
  "build": {"apt_packages": [], "commands": [], "image": "readthedocs/build:ubuntu-22.04",
            "jobs": {"build": {"epub": null, "html": null, "htmlzip": null, "pdf": null},
                     "create_environment": null, "install": null, "post_build": [], "post_checkout": [],
                     "post_create_environment": [], "post_install": [], "post_system_dependencies": [],
                     "pre_build": [], "pre_checkout": [], "pre_create_environment": [], "pre_install": [],
                     "pre_system_dependencies": []},
            "os": "ubuntu-22.04", "tools": {"python": {"full_version": "3.12.3", "version": "3.10"}}},
  "conda": null,
  "doctype": "sphinx",
  "formats": [],
  "mkdocs": null,
  "python": {"install": [{"requirements": "docs/requirements.txt"}], "use_system_site_packages": false, "version": 3.10},
  "search": {"ignore": ["search.html", "search/index.html", "404.html", "404/index.html"], "ranking": {}},
  "sphinx": {"builder": "sphinx", "configuration": "docs/source/conf.py", "fail_on_warning": false},
  "submodules": {"exclude": "all", "include": [], "recursive": false},
  "version": "2"
}`
	if got := c.JSON(); got != compact(t, want) {
		t.Errorf("stored config\n got %s\nwant %s", got, compact(t, want))
	}
}

// TestConfigClassification checks which rules apply to a file, and files
// the current rules accept.
func TestConfigClassification(t *testing.T) {
	for _, tc := range []struct {
		name, yaml    string
		current       bool
		doctype, json string // json: a fragment the stored config must contain
	}{
		{"no version, current file", "build: {os: ubuntu-24.04, tools: {python: \"3.12\"}}\nsphinx: {configuration: docs/conf.py}\n", true, "sphinx", `"version":"2"`},
		{"no version, image", "build: {image: latest}\n", false, "sphinx", `"version":"1"`},
		{"legacy form", "version: 2\nbuild:\n  image: latest\n", false, "sphinx", `"build":{"image":"readthedocs/build:latest"}`},
		{"commands", "version: 2\nbuild:\n  os: ubuntu-24.04\n  tools:\n    python: \"3.12\"\n  commands:\n    - pip install pelican\n    - pelican --output $READTHEDOCS_OUTPUT/html/ docs/\n", true, "generic", `"commands":["pip install pelican",`},
		{"mkdocs", "version: 2\nbuild:\n  os: ubuntu-22.04\n  tools:\n    python: \"3.12\"\nmkdocs:\n  configuration: mkdocs.yml\n", true, "mkdocs", `"sphinx":null`},
		{"lts latest", "version: 2\nbuild: {os: ubuntu-lts-latest, tools: {python: \"3\"}}\n", true, "sphinx", `"image":"readthedocs/build:ubuntu-26.04"`},
		{"retired os", "version: 2\nbuild: {os: ubuntu-20.04, tools: {python: \"3.8\"}}\n", true, "sphinx", `"image":"readthedocs/build:ubuntu-20.04"`},
		{"search", "version: 2\nbuild: {os: ubuntu-24.04, tools: {python: \"3\"}}\nsearch:\n  ranking:\n    /api/*: -1\n    changelog.html: -10\n  ignore: [404.html]\n", true, "sphinx", `"search":{"ignore":["404.html"],"ranking":{"api/*":-1,"changelog.html":-10}}`},
		{"extras path", "version: 2\nbuild: {os: ubuntu-24.04, tools: {python: \"3.12\"}}\npython:\n  install:\n    - method: pip\n      path: .[docs]\n", true, "sphinx", `{"extra_requirements":[],"method":"pip","path":".[docs]"}`},
		{"generic by job", "version: 2\nbuild: {os: ubuntu-24.04, tools: {python: \"3.12\"}, jobs: {install: []}}\n", true, "generic", `"install":[]`},
		{"mkdocs without a value", "version: 2\nbuild: {os: ubuntu-24.04, tools: {python: \"3\"}}\nmkdocs:\n", true, "mkdocs", `"mkdocs":{"configuration":null,"fail_on_warning":false}`},
		{"htmldir", "version: 2\nbuild: {os: ubuntu-24.04, tools: {python: \"3\"}}\nsphinx: {builder: htmldir}\n", true, "sphinx_htmldir", `"python":{"install":[],"use_system_site_packages":false,"version":3}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := loadCurrent(t, tc.yaml, "docs/conf.py")
			if err != nil {
				t.Fatal(err)
			}
			if (c.Current != nil) != tc.current || c.Doctype != tc.doctype {
				t.Errorf("current rules %v, doctype %q; want %v, %q", c.Current != nil, c.Doctype, tc.current, tc.doctype)
			}
			if !strings.Contains(c.JSON(), tc.json) {
				t.Errorf("stored config %s lacks %s", c.JSON(), tc.json)
			}
		})
	}
}

// TestReadthedocsYamlPath checks a project's readthedocs_yaml_path: only
// the named file is read; a missing one, or one leaving the checkout,
// fails.
func TestReadthedocsYamlPath(t *testing.T) {
	files := map[string]string{".readthedocs.yaml": "version: 2\nformats: [pdf]\n", "docs/conf.py": "",
		"config/rtd.yml": "version: 2\nbuild: {os: ubuntu-24.04, tools: {python: \"3\"}}\n"}
	for _, tc := range []struct{ path, want, file string }{
		{"config/rtd.yml", "", "config/rtd.yml"},
		{"./config//rtd.yml", "", "config/rtd.yml"},
		{"config/missing.yml", "Problem in your project's configuration. Configuration file not found in config/missing.yml.", ""},
		{"../outside.yml", "Problem in your project's configuration. Configuration file not found in ../outside.yml.", ""},
		{"link.yml", "Problem in your project's configuration. Configuration file not found in link.yml.", ""},
	} {
		t.Run(tc.path, func(t *testing.T) {
			dir := checkout(t, files)
			outside := filepath.Join(t.TempDir(), "x.yml")
			if err := os.WriteFile(outside, []byte("version: 2\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, filepath.Join(dir, "link.yml")); err != nil {
				t.Fatal(err)
			}
			p := defaultProject()
			p.ReadthedocsYamlPath = &tc.path
			c, err := Load(Input{Ckout: dir, Project: p, ImagePrefix: "readthedocs/build"})
			if tc.want != "" {
				if e, ok := AsError(err); !ok || e.Msg != tc.want || e.ID != IDConfigPathNotFound {
					t.Fatalf("err = %v, want %q (%s)", err, tc.want, IDConfigPathNotFound)
				}
				return
			}
			if err != nil || c.File != tc.file || c.Current == nil {
				t.Fatalf("config %+v, %v; want the current-rule file %s", c, err, tc.file)
			}
		})
	}
}

// TestYAML11Booleans checks that plain yes/no/on/off are booleans, as
// PyYAML reads them, and quoted ones strings.
func TestYAML11Booleans(t *testing.T) {
	v, err := ParseYAML([]byte("a: yes\nb: Off\nc: 'yes'\nd: \"on\"\ne: y\non: 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	m := v.(*Map)
	for key, want := range map[string]any{"a": true, "b": false, "c": "yes", "d": "on", "e": "y", "True": int64(1)} {
		if got, _ := m.Get(key); got != want {
			t.Errorf("%s = %#v, want %#v", key, got, want)
		}
	}
	c, err := loadCurrent(t, "version: 2\nbuild: {os: ubuntu-24.04, tools: {python: \"3\"}}\nsphinx:\n  fail_on_warning: yes\nsubmodules:\n  include: all\n  recursive: on\n", "docs/conf.py")
	if err != nil || !c.Sphinx.FailOnWarning || !c.Submodules.Recursive {
		t.Errorf("config %+v, %v; want fail_on_warning and recursive true", c, err)
	}
}

// TestCurrentConfigConfPyForFormats checks that the default htmlzip, pdf and
// epub steps get their conf.py the way the HTML step does: configured,
// else discovered, and that discovery fails alike when no conf.py exists.
// The stored sphinx.configuration names a discovered file only when the
// default HTML builder runs.
func TestCurrentConfigConfPyForFormats(t *testing.T) {
	const head = "version: 2\nbuild:\n  os: ubuntu-24.04\n  tools: {python: \"3\"}\n"
	const htmlJob = "  jobs:\n    build:\n      html: [\"mkdir -p $READTHEDOCS_OUTPUT/html\"]\n"
	// A sphinx key keeps the Sphinx doctype with an html job.
	const sphinx = "sphinx: {fail_on_warning: false}\n"
	for _, tc := range []struct {
		name, yaml string
		files      []string
		confPy     string // Current.ConfPy
		stored     string // fragment of the stored config
		err        string
	}{
		{"default html", head, []string{"docs/conf.py"}, "docs/conf.py", `"configuration":"docs/conf.py"`, ""},
		{"configured", head + "formats: [epub]\nsphinx: {configuration: doc/src/conf.py}\n", []string{"docs/conf.py"}, "doc/src/conf.py", `"configuration":"doc/src/conf.py"`, ""},
		{"html job, default epub", head + htmlJob + "formats: [epub]\n" + sphinx, []string{"docs/conf.py"}, "docs/conf.py", `"configuration":null`, ""},
		{"html job, formats all", head + htmlJob + "formats: all\n" + sphinx, []string{"book/conf.py"}, "book/conf.py", `"configuration":null`, ""},
		{"html and epub jobs", head + htmlJob + "      epub: [\"true\"]\nformats: [epub]\n" + sphinx, nil, "", `"configuration":null`, ""},
		{"html job, no formats", head + htmlJob + sphinx, nil, "", `"configuration":null`, ""},
		{"html job, generic", head + htmlJob + "formats: [epub]\n", nil, "", `"doctype":"generic"`, ""},
		{"html job, default pdf, no conf.py", head + htmlJob + "formats: [pdf]\n" + sphinx, nil, "", "", MsgConfPyNotFound},
		{"default html, no conf.py", head, nil, "", "", MsgConfPyNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := loadCurrent(t, tc.yaml, tc.files...)
			if tc.err != "" {
				if e, ok := AsError(err); !ok || e.Msg != tc.err || e.ID != IDConfPyNotFound {
					t.Fatalf("err = %v, want %q (%s)", err, tc.err, IDConfPyNotFound)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Current.ConfPy != tc.confPy {
				t.Errorf("ConfPy = %q, want %q", c.Current.ConfPy, tc.confPy)
			}
			if !strings.Contains(c.JSON(), tc.stored) {
				t.Errorf("stored config %s lacks %s", c.JSON(), tc.stored)
			}
		})
	}
}
