package builder

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"docsd/store"
)

// TestCorpusBuilds runs a few files of rtdconfig's corpus through real
// builds, with documentation trees shaped as those projects have them.
// It is long (every format of a real Sphinx project): not in -short mode.
func TestCorpusBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("long end-to-end builds: not in -short mode")
	}
	toolsOrSkip(t, "sphinx")
	slugs := make([]string, 4)
	corpus := func(name string) string {
		b, err := os.ReadFile(filepath.Join("..", "rtdconfig", "testdata", "corpus", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	index := "Project\n=======\n\n.. toctree::\n\n   usage\n"
	usage := "Usage\n=====\n\nIt works.\n"
	cases := []struct {
		name  string
		files map[string]string
		check func(t *testing.T, f *fixture, b *store.Build, lines []string)
	}{
		{"test-tool.yaml", map[string]string{"doc/en/conf.py": "project = 'Tester'\ncopyright = '2026, Tester'\nversion = '1.0'\n", "doc/en/index.rst": index,
			"doc/en/usage.rst": usage, "doc/en/requirements.txt": "sphinx\n", "setup.py": "raise SystemExit(1)\n"},
			func(t *testing.T, f *fixture, b *store.Build, lines []string) {
				for _, want := range []string{"git fetch --unshallow || true", "git fetch --tags || true", latexmkSkipped} {
					if !slices.Contains(lines, want) {
						t.Errorf("commands lack %q: %q", want, lines)
					}
				}
				mustSkip(t, lines, "apt-get install inkscape", " -m pip install ")
				v := f.version(b.ProjectID, "latest")
				if !v.HasEPUB || !v.HasHTMLZip || v.HasPDF {
					t.Errorf("downloads epub %v htmlzip %v pdf %v; want true true false (no latexmk)", v.HasEPUB, v.HasHTMLZip, v.HasPDF)
				}
			}},
		{"web-framework-dirhtml.yaml", map[string]string{"docs/conf.py": "project = 'Micro'\n", "docs/index.rst": index,
			"docs/usage.rst": usage, "requirements/docs.txt": "sphinx\n"},
			func(t *testing.T, f *fixture, b *store.Build, lines []string) {
				if !strings.Contains(f.htmlFile(slugs[1], "latest", "usage/index.html"), "It works.") {
					t.Errorf("dirhtml output missing")
				}
			}},
		{"diagram-extension-apt.yaml", map[string]string{"docs/conf.py": "project = 'Diagrams'\ncopyright = '2026, Diagrams'\nversion = '1.0'\n", "docs/index.rst": index, "docs/usage.rst": usage,
			"setup.py": "raise SystemExit(1)\n"},
			func(t *testing.T, f *fixture, b *store.Build, lines []string) {
				if !slices.Contains(lines, latexmkSkipped) {
					t.Errorf("commands lack %q: %q", latexmkSkipped, lines)
				}
				mustSkip(t, lines, "apt-get install graphviz plantuml fonts-noto-cjk", " -m pip install ")
				if v := f.version(b.ProjectID, "latest"); !v.HasEPUB || v.HasPDF || v.HasHTMLZip {
					t.Errorf("downloads epub %v pdf %v htmlzip %v; want true false false (no latexmk)", v.HasEPUB, v.HasPDF, v.HasHTMLZip)
				}
			}},
		{"notebook-tool-pr-skip.yaml", map[string]string{"docs/conf.py": "project = 'Notes'\n", "docs/index.rst": index, "docs/usage.rst": usage},
			func(t *testing.T, f *fixture, b *store.Build, lines []string) {
				if !slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, "exit 183;") }) {
					t.Errorf("the post_checkout script was not recorded: %q", lines)
				}
			}},
	}
	// No package index here, and no apt: --offline-builds skips them.
	f := newFixture(t, store.SQLite, Config{GitCloneDepth: 50, BuildPython: "/usr/bin/python3", OfflineBuilds: true})
	builds := make([]*store.Build, len(cases))
	for i, c := range cases {
		r := newRepo(t, "main")
		c.files[".readthedocs.yaml"] = corpus(c.name)
		r.commit("initial", c.files)
		imp := f.importProject(c.name, r)
		builds[i], slugs[i] = imp.Build, imp.Project.Slug
	}
	f.drain()
	for i, c := range cases {
		b := f.mustSucceed(builds[i])
		c.check(t, f, b, commandLines(f.commands(b.ID)))
	}
}

// mustSkip fails the test unless, for each of parts, some command holding
// it was recorded as skipped by --offline-builds.
func mustSkip(t *testing.T, lines []string, parts ...string) {
	t.Helper()
	for _, part := range parts {
		if !slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, part) && strings.HasSuffix(l, offlineSkipped) }) {
			t.Errorf("no %q step skipped by --offline-builds in %q", part, lines)
		}
	}
}
