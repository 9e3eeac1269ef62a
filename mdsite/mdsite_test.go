package mdsite

import (
	"context"
	"docsd/artifacts/artifactstest"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
