package mdsite

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"docsd/internal/artifacts/artifactstest"
	"docsd/internal/search"
)

func TestBuiltinMarkdownBuilder(t *testing.T) {
	t.Run("mkdocs nav", func(t *testing.T) {
		root := checkout(t, map[string]string{
			"mkdocs.yml":        "site_name: Nav Site\ndocs_dir: src\nnav:\n  - Start: intro.md\n  - Reference:\n      - ref/api.md\n      - Python: https://python.org\n  - Missing: nope.md\n",
			"src/intro.md":      "# Introduction\n\n## First\n\n### Deeper\n",
			"src/ref/api.md":    "# API `v1`\n\nBack to [intro](../intro.md).\n",
			"src/unlisted.md":   "# Unlisted\n",
			"src/.hidden/x.md":  "# hidden\n",
			"src/_build/old.md": "# stale\n",
		})
		out := filepath.Join(root, "_build", "html")
		log, err := Build(context.Background(), Options{Root: root, Source: "mkdocs.yml", Out: out, SiteName: "Project", Language: "en"})
		if err != nil {
			t.Fatalf("Build: %v\n%s", err, log)
		}
		if !strings.Contains(log, "WARNING: nav entry \"Missing\" names nope.md") {
			t.Errorf("log lacks the warning for a missing nav page:\n%s", log)
		}
		intro := read(t, out, "intro.html")
		for _, want := range []string{"<title>Introduction — Nav Site</title>", `href="ref/api.html"`, `href="https://python.org"`,
			`class="current"`, `<li class="h2"><a href="#first">First</a>`, `<li class="h3"><a href="#deeper">Deeper</a>`, `rel="next" href="ref/api.html"`} {
			if !strings.Contains(intro, want) {
				t.Errorf("intro.html lacks %q", want)
			}
		}
		api := read(t, out, "ref/api.html")
		if !strings.Contains(api, `href="../intro.html"`) || !strings.Contains(api, "<title>API v1 — Nav Site</title>") {
			t.Errorf("ref/api.html:\n%s", api)
		}
		read(t, out, "unlisted.html")
		for _, gone := range []string{".hidden/x.html", "_build/old.html"} {
			if _, err := os.Stat(filepath.Join(out, gone)); err == nil {
				t.Errorf("%s was rendered", gone)
			}
		}

		// Strict mode fails on the warning.
		if _, err := Build(context.Background(), Options{Root: root, Source: "mkdocs.yml", Out: out, Strict: true}); err == nil {
			t.Error("strict mode passed a warning")
		}
	})

	t.Run("README only", func(t *testing.T) {
		root := checkout(t, map[string]string{"README.md": "# Readme Title\n\nbody\n", "other.md": "# not rendered\n"})
		out := filepath.Join(root, "_build", "html")
		if log, err := Build(context.Background(), Options{Root: root, Source: "README.md", Out: out, SiteName: "P"}); err != nil {
			t.Fatalf("%v\n%s", err, log)
		}
		if index := read(t, out, "index.html"); !strings.Contains(index, "<h1 id=\"readme-title\">Readme Title</h1>") {
			t.Errorf("index.html:\n%s", index)
		}
		if _, err := os.Stat(filepath.Join(out, "other.html")); err == nil {
			t.Error("other.md was rendered")
		}
	})

	t.Run("docs_dir outside the repository", func(t *testing.T) {
		root := checkout(t, map[string]string{"mkdocs.yml": "docs_dir: ../..\n"})
		if _, err := Build(context.Background(), Options{Root: root, Source: "mkdocs.yml", Out: filepath.Join(root, "out")}); err == nil {
			t.Error("a docs_dir outside the checkout was read")
		}
	})
}

// TestSiteTitleOnce: the sidebar names the site once. Its first line is
// the site's name, linking to the home page; a navigation entry for the
// home page titled like the site (a docs/ folder whose index.md starts
// with the project's name) is not listed again below it, and the name is
// marked as the current page there instead. An entry titled otherwise
// ("Home") stays.
func TestSiteTitleOnce(t *testing.T) {
	sidebar := func(t *testing.T, page string) string {
		t.Helper()
		_, after, _ := strings.Cut(page, `<nav class="site"`)
		nav, _, _ := strings.Cut(after, "</nav>")
		return nav
	}
	t.Run("docs folder", func(t *testing.T) {
		root := checkout(t, map[string]string{"docs/index.md": "# Demo\n\nWelcome.\n", "docs/guide.md": "# Guide\n"})
		out := filepath.Join(root, "_build", "html")
		if log, err := Build(context.Background(), Options{Root: root, Source: "docs", Out: out, SiteName: "Demo", Language: "en"}); err != nil {
			t.Fatalf("Build: %v\n%s", err, log)
		}
		index := read(t, out, "index.html")
		nav := sidebar(t, index)
		if n := strings.Count(nav, ">Demo<"); n != 1 || !strings.Contains(nav, `href="guide.html"`) {
			t.Errorf("index.html's sidebar names the site %d times (want once) or lacks the guide:\n%s", n, nav)
		}
		if !strings.Contains(nav, `<a href="index.html" class="current" aria-current="page"><strong>Demo</strong></a>`) {
			t.Errorf("index.html's sidebar does not mark the site's name as the current page:\n%s", nav)
		}
		if !strings.Contains(index, "<title>Demo</title>") {
			t.Errorf("index.html's title is not the site's name alone:\n%s", index)
		}
		guide := read(t, out, "guide.html")
		if nav := sidebar(t, guide); strings.Count(nav, ">Demo<") != 1 || strings.Contains(nav, `aria-current="page"><strong>`) {
			t.Errorf("guide.html's sidebar:\n%s", nav)
		}
		if !strings.Contains(guide, "<title>Guide — Demo</title>") {
			t.Errorf("guide.html's title:\n%s", guide)
		}
	})
	t.Run("nav names the home page", func(t *testing.T) {
		root := checkout(t, map[string]string{"mkdocs.yml": "site_name: Demo\nnav:\n  - Home: index.md\n  - guide.md\n",
			"docs/index.md": "# Demo\n", "docs/guide.md": "# Guide\n"})
		out := filepath.Join(root, "_build", "html")
		if log, err := Build(context.Background(), Options{Root: root, Source: "mkdocs.yml", Out: out, SiteName: "P"}); err != nil {
			t.Fatalf("Build: %v\n%s", err, log)
		}
		if nav := sidebar(t, read(t, out, "index.html")); !strings.Contains(nav, `<a href="index.html" class="current" aria-current="page">Home</a>`) {
			t.Errorf("the nav's Home entry is gone or not current:\n%s", nav)
		}
	})
}

// TestPagesIndexWithoutNavigation: the search indexer, which splits a
// built page into a title and sections, keeps the page's own text and none of the builder's navigation — the
// previous/next links and the table of contents are marked as navigation,
// so the indexer's rule for <nav> removes them as it does Sphinx's and
// MkDocs' themes'.
func TestPagesIndexWithoutNavigation(t *testing.T) {
	root := checkout(t, map[string]string{
		"mkdocs.yml":    "site_name: Pager\nnav:\n  - Hello: index.md\n  - setup.md\n  - Farewell: bye.md\n",
		"docs/index.md": "# Hello\n\nWelcome text.\n",
		"docs/setup.md": "# Setup\n\nInstall the tool.\n\n## Configure\n\nEdit the file.\n",
		"docs/bye.md":   "# Farewell\n\nThe end.\n",
	})
	out := filepath.Join(root, "_build", "html")
	if log, err := Build(context.Background(), Options{Root: root, Source: "mkdocs.yml", Out: out, SiteName: "Pager"}); err != nil {
		t.Fatalf("Build: %v\n%s", err, log)
	}
	f, err := os.Open(filepath.Join(out, "setup.html"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := search.ParsePage(f, "setup.html")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range p.Sections {
		got = append(got, s.Title+": "+s.Content)
	}
	want := []string{"Setup: Install the tool.", "Configure: Edit the file."}
	if p.Title != "Setup" || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("indexed setup.html: title %q, sections\n%s\nwant title \"Setup\", sections\n%s", p.Title, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The links are still on the page, for readers.
	page := read(t, out, "setup.html")
	for _, want := range []string{`rel="prev" href="index.html"`, `rel="next" href="bye.html"`, `href="#configure"`} {
		if !strings.Contains(page, want) {
			t.Errorf("setup.html lacks %q", want)
		}
	}
}

func read(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkout writes files into a temp dir standing for a checkout.
func checkout(t *testing.T, files map[string]string) string { return artifactstest.Dir(t, files) }
