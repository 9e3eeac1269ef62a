package builder

import (
	"context"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"docsd/store"
)

// TestFormats runs real Sphinx builds of the epub and htmlzip formats
// of current files, and a pdf from its build.jobs.build.pdf override, and
// checks that their conf.py is found exactly as the HTML step's:
// configured, or discovered, also when build.jobs.build.html replaces the
// HTML step.
func TestFormats(t *testing.T) {
	toolsOrSkip(t, "sphinx")
	const head = "version: 2\nbuild:\n  os: ubuntu-24.04\n  tools:\n    python: \"3\"\n"
	site := func(dir string) map[string]string {
		return map[string]string{dir + "/conf.py": "project = 'Formats'\n", dir + "/index.rst": "Formats\n=======\n\nEvery format.\n"}
	}
	with := func(files map[string]string, yaml string) map[string]string {
		files[".readthedocs.yaml"] = yaml
		return files
	}
	cases := []struct {
		name    string
		files   map[string]string
		formats []string
	}{
		{"Discovered", with(site("docs"), head+"formats: all\n"), []string{"epub", "htmlzip"}},
		{"Configured", with(site("doc/source"), head+"formats: [epub]\nsphinx:\n  configuration: doc/source/conf.py\n"), []string{"epub"}},
		{"HTML Job", with(site("docs"), head+"  jobs:\n    build:\n      html:\n        - mkdir -p $READTHEDOCS_OUTPUT/html\n        - echo '<p>custom</p>' > $READTHEDOCS_OUTPUT/html/index.html\nformats: [epub, htmlzip]\nsphinx:\n  fail_on_warning: false\n"),
			[]string{"epub", "htmlzip"}},
		{"PDF Job", with(site("docs"), head+"  jobs:\n    build:\n      pdf:\n        - mkdir -p $READTHEDOCS_OUTPUT/pdf\n        - printf '%%PDF-1.4 made by a job' > $READTHEDOCS_OUTPUT/pdf/manual.pdf\nformats: [pdf, epub]\nsphinx:\n  configuration: docs/conf.py\n"),
			[]string{"pdf", "epub"}},
	}
	f := newFixture(t, store.SQLite, Config{GitCloneDepth: 50, BuildPython: "/usr/bin/python3"})
	builds := make([]*store.Build, len(cases))
	slugs := make([]string, len(cases))
	for i, c := range cases {
		r := newRepo(t, "main")
		r.commit("initial", c.files)
		imp := f.importProject(c.name, r)
		builds[i], slugs[i] = imp.Build, imp.Project.Slug
	}
	f.drain()
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := f.mustSucceed(builds[i])
			cmds := f.commands(b.ID)
			ckout := filepath.Join(f.data, "checkouts", slugs[i])
			for _, format := range c.formats {
				wantHead := "PK" // epub and htmlzip are zip files
				if builder, ok := map[string]string{"epub": "epub", "htmlzip": "singlehtml"}[format]; ok {
					want := " -m sphinx -T -E -b " + builder + " -d _build/doctrees -D language=en . " + filepath.Join(ckout, "_readthedocs", format)
					// Sphinx builds "." : it succeeds only in conf.py's directory.
					if !slices.ContainsFunc(cmds, func(c *store.BuildCommand) bool { return strings.HasSuffix(c.Command, want) }) {
						t.Fatalf("no %s step %q in %q", format, want, commandLines(cmds))
					}
				} else {
					wantHead = "%P" // the job's file, renamed
				}
				file, err := f.arts.OpenDownload(context.Background(), slugs[i], "latest", format)
				if err != nil {
					t.Fatalf("no %s download: %v", format, err)
				}
				head := make([]byte, 2)
				io.ReadFull(file, head)
				file.Close()
				if string(head) != wantHead {
					t.Errorf("%s download starts %q, want %q", format, head, wantHead)
				}
			}
			v := f.version(b.ProjectID, "latest")
			if v.HasEPUB != slices.Contains(c.formats, "epub") || v.HasHTMLZip != slices.Contains(c.formats, "htmlzip") || v.HasPDF != slices.Contains(c.formats, "pdf") {
				t.Errorf("flags epub %v htmlzip %v pdf %v, want formats %v", v.HasEPUB, v.HasHTMLZip, v.HasPDF, c.formats)
			}
			if c.name == "HTML Job" && !strings.Contains(f.htmlFile(slugs[i], "latest", "index.html"), "custom") {
				t.Errorf("the build.jobs.build.html output was not published")
			}
		})
	}
}
