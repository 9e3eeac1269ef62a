package builder

import (
	"archive/zip"
	"context"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"docsd/store"
)

// sphinxSite is a small Sphinx project in docs/.
var sphinxSite = map[string]string{
	"docs/conf.py":     "project = 'Sphinx Demo'\nhtml_theme = 'sphinx_rtd_theme'\nexclude_patterns = ['_build']\n",
	"docs/index.rst":   "Sphinx Demo\n===========\n\nHello from Sphinx.\n\n.. toctree::\n\n   usage\n",
	"docs/usage.rst":   "Usage\n=====\n\nUse it.\n",
	"requirements.txt": "sphinx\n",
}

func TestSphinxProject(t *testing.T) {
	toolsOrSkip(t, "sphinx")
	toolsOrSkip(t, "sphinx_rtd_theme")
	r := newRepo(t, "master")
	files := map[string]string{".readthedocs.yaml": "version: 2\nformats: all\npython:\n  install:\n    - requirements: requirements.txt\n"}
	for k, v := range sphinxSite {
		files[k] = v
	}
	r.commit("docs", files)
	f := newFixture(t, store.SQLite, Config{OfflineBuilds: true}) // no package index here
	imp := f.importProject("Sphinx Demo", r)
	f.drain()
	b := f.mustSucceed(imp.Build)

	py := filepath.Join(f.data, "envs", "sphinx-demo", "latest", "bin", "python")
	want := []string{
		"git clone --no-single-branch " + r.URL() + " .",
		"git remote set-head origin --auto",
		"git checkout --force origin/master",
		"git clean -d -f -f",
		"git rev-parse HEAD",
		"/usr/bin/python3 -m venv --system-site-packages --without-pip " + filepath.Dir(filepath.Dir(py)),
		py + " -m pip install --exists-action=w --no-cache-dir -r requirements.txt" + offlineSkipped,
		py + " -m sphinx -T -E -b html -d _build/doctrees-html -D language=en . _build/html",
		py + " -m sphinx -T -E -b singlehtml -d _build/doctrees-singlehtml -D language=en . _build/localmedia",
		"latexmk (skipped)",
		py + " -m sphinx -T -E -b epub -D language=en -d _build/doctrees . _build/epub",
	}
	cmds := f.commands(b.ID)
	if got := commandLines(cmds); !slices.Equal(got, want) {
		t.Errorf("commands\n got %q\nwant %q", got, want)
	}
	for _, c := range cmds {
		switch c.Command {
		case want[6]:
			if !strings.HasPrefix(c.Output, "The package index http://127.0.0.1:1/simple/ is not reachable from this server; --offline-builds:") {
				t.Errorf("pip note output %q", c.Output)
			}
		case "latexmk (skipped)":
			if c.Output != latexmkSkippedOutput {
				t.Errorf("latexmk note output %q", c.Output)
			}
		}
	}
	if index := f.htmlFile("sphinx-demo", "latest", "index.html"); !strings.Contains(index, "Hello from Sphinx.") {
		t.Errorf("index.html:\n%s", index)
	}
	f.htmlFile("sphinx-demo", "latest", "usage.html")

	v := f.version(imp.Project.ID, "latest")
	if !v.Built || !v.HasHTMLZip || !v.HasEPUB || v.HasPDF {
		t.Errorf("flags built %v htmlzip %v epub %v pdf %v; want htmlzip and epub without LaTeX", v.Built, v.HasHTMLZip, v.HasEPUB, v.HasPDF)
	}
	ctx := context.Background()
	zf, err := f.arts.OpenDownload(ctx, "sphinx-demo", "latest", "htmlzip")
	if err != nil {
		t.Fatalf("htmlzip download: %v", err)
	}
	defer zf.Close()
	st, _ := zf.Stat()
	zr, err := zip.NewReader(zf.(io.ReaderAt), st.Size())
	if err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for _, e := range zr.File {
		names = append(names, e.Name)
	}
	if !slices.Contains(names, "sphinx-demo-latest/index.html") {
		t.Errorf("zip entries %v lack sphinx-demo-latest/index.html", names)
	}
	ef, err := f.arts.OpenDownload(ctx, "sphinx-demo", "latest", "epub")
	if err != nil {
		t.Fatalf("epub download: %v", err)
	}
	ef.Close()
	p, _ := f.store.FindProjectByID(ctx, imp.Project.ID)
	if p.DocumentationType != "sphinx" {
		t.Errorf("documentation_type %q", p.DocumentationType)
	}

	// fail_on_warning turns a warning into a failed build; dirhtml
	// builds directories.
	r.commit("warn", map[string]string{
		".readthedocs.yaml": "version: 2\nsphinx:\n  builder: dirhtml\n  fail_on_warning: true\n",
		"docs/usage.rst":    "Usage\n=====\n\nSee :ref:`nowhere`.\n",
	})
	warn := f.trigger(v)
	f.drain()
	warn = f.build(warn.ID)
	wantErr := `Command "` + py + ` -m sphinx -T -E -W -b dirhtml -d _build/doctrees-dirhtml -D language=en . _build/html" failed with exit code `
	if warn.Success || !strings.HasPrefix(warn.Error, wantErr) {
		t.Errorf("fail_on_warning build: success %v error %q, want %q…", warn.Success, warn.Error, wantErr)
	}
	if warn.ExitCode == nil || *warn.ExitCode <= 0 {
		t.Errorf("exit code %v, want Sphinx's", deref(warn.ExitCode))
	}
	// The previous HTML and downloads stay.
	if _, err := f.arts.OpenDownload(ctx, "sphinx-demo", "latest", "htmlzip"); err != nil {
		t.Errorf("the failed build removed the htmlzip: %v", err)
	}
}

func TestSphinxTimeLimitInConfPy(t *testing.T) {
	toolsOrSkip(t, "sphinx")
	r := newRepo(t, "master")
	f := newFixture(t, store.SQLite, Config{})
	child := newSleeper(f, "sleepy")
	timeLimitWhenSleeping(f, child)
	r.commit("docs", map[string]string{"docs/conf.py": child.script(false), "docs/index.rst": "X\n=\n"})
	imp := f.importProject("Sleepy", r)
	f.drain()
	b := f.build(imp.Build.ID)
	if b.Success || b.Error != MsgTimeout {
		t.Errorf("build: success %v error %q, want %q", b.Success, b.Error, MsgTimeout)
	}
	child.waitGone(t)
}

func TestMkDocsProject(t *testing.T) {
	toolsOrSkip(t, "mkdocs")
	r := newRepo(t, "master")
	r.commit("docs", map[string]string{
		"mkdocs.yml":     "site_name: MkDocs Demo\nnav:\n  - Home: index.md\n  - Usage: usage.md\n",
		"docs/index.md":  "# MkDocs Demo\n\nHello from MkDocs.\n",
		"docs/usage.md":  "# Usage\n",
		"docs/README.md": "",
	})
	f := newFixture(t, store.SQLite, Config{})
	imp := f.importProject("MkDocs Demo", r)
	f.drain()
	b := f.mustSucceed(imp.Build)
	py := filepath.Join(f.data, "envs", "mkdocs-demo", "latest", "bin", "python")
	cmds := commandLines(f.commands(b.ID))
	if got, want := cmds[len(cmds)-1], py+" -m mkdocs build --clean --site-dir _build/html --config-file mkdocs.yml"; got != want {
		t.Errorf("build command %q, want %q", got, want)
	}
	if index := f.htmlFile("mkdocs-demo", "latest", "index.html"); !strings.Contains(index, "Hello from MkDocs.") {
		t.Errorf("index.html:\n%s", index)
	}
	if v := f.version(imp.Project.ID, "latest"); v.HasHTMLZip || v.HasEPUB || !v.Built {
		t.Errorf("MkDocs flags: built %v htmlzip %v epub %v; MkDocs projects get no downloads", v.Built, v.HasHTMLZip, v.HasEPUB)
	}

	// --strict fails on a broken link.
	r.commit("strict", map[string]string{
		".readthedocs.yaml": "version: 2\nmkdocs:\n  fail_on_warning: true\n",
		"docs/usage.md":     "# Usage\n\n[missing](nowhere.md)\n",
	})
	strict := f.trigger(f.version(imp.Project.ID, "latest"))
	f.drain()
	strict = f.build(strict.ID)
	wantErr := `Command "` + py + ` -m mkdocs build --clean --site-dir _build/html --config-file mkdocs.yml --strict" failed with exit code 1.`
	if strict.Success || strict.Error != wantErr {
		t.Errorf("strict build: success %v error %q, want %q", strict.Success, strict.Error, wantErr)
	}
}
