package rtdconfig

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Documentation types; generic (the build's own commands build the docs)
// exists only under the current rules.
const (
	DoctypeSphinx           = "sphinx"
	DoctypeSphinxHTMLDir    = "sphinx_htmldir"
	DoctypeSphinxSingleHTML = "sphinx_singlehtml"
	DoctypeMkDocs           = "mkdocs"
	DoctypeGeneric          = "generic"
)

// IsSphinx reports whether a doctype is built with Sphinx.
func IsSphinx(doctype string) bool {
	return doctype == DoctypeSphinx || doctype == DoctypeSphinxHTMLDir || doctype == DoctypeSphinxSingleHTML
}

// SphinxBuilderName is the Sphinx builder that makes a doctype's HTML.
func SphinxBuilderName(doctype string) string {
	switch doctype {
	case DoctypeSphinxHTMLDir:
		return "dirhtml"
	case DoctypeSphinxSingleHTML:
		return "singlehtml"
	}
	return "html"
}

// Exists reports whether path exists; IsFile and IsDir whether it is one.
func Exists(path string) bool { _, err := os.Stat(path); return err == nil }

func IsFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

func IsDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// DocsDir returns the first of candidates that is a directory in ckout
// (relative path), or "." when none is.
func DocsDir(ckout string, candidates ...string) string {
	for _, d := range candidates {
		if IsDir(filepath.Join(ckout, d)) {
			return d
		}
	}
	return "."
}

// findFiles returns the paths (relative to ckout, slash-separated, sorted)
// of the files named name under dir, skipping the .git directory and
// docsd's own _build output.
func findFiles(ckout, dir, name string) []string {
	var out []string
	root := filepath.Join(ckout, dir)
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && path != root && (d.Name() == ".git" || d.Name() == "_build") {
			return filepath.SkipDir
		}
		if !d.IsDir() && d.Name() == name {
			if rel, err := filepath.Rel(ckout, path); err == nil {
				out = append(out, filepath.ToSlash(rel))
			}
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// DiscoverConfPy finds the project's conf.py when the configuration names
// none (a configured one is checked by the configuration): the project's
// conf_py_file if it exists; else the conf.py files under the docs
// directory (the first of docs/, doc/, Doc/ that exists), then under the
// whole checkout, in sorted order: one is it, of several the first whose
// path contains `doc`. It returns "" when there is none, and the "multiple
// conf.py" failure when several are found and none has `doc` in its path.
func DiscoverConfPy(ckout, projectConfPy string) (string, error) {
	if projectConfPy != "" {
		rel := CleanRel(projectConfPy)
		if rel != "" && IsFile(filepath.Join(ckout, rel)) {
			return rel, nil
		}
	}
	for _, dir := range []string{DocsDir(ckout, "docs", "doc", "Doc"), "."} {
		found := findFiles(ckout, dir, "conf.py")
		switch {
		case len(found) == 1:
			return found[0], nil
		case len(found) > 1:
			for _, f := range found {
				if strings.Contains(f, "doc") {
					return f, nil
				}
			}
			return "", fail(IDConfPyMultiple, MsgConfPyMultiple)
		}
	}
	return "", nil
}

// CleanRel normalises a path given relative to the checkout root. It
// returns "" for a path that leaves the checkout.
func CleanRel(p string) string {
	c := filepath.Clean(filepath.FromSlash(strings.TrimPrefix(p, "/")))
	if c == ".." || strings.HasPrefix(c, ".."+string(filepath.Separator)) {
		return ""
	}
	return filepath.ToSlash(c)
}

// HasMarkdown reports whether the checkout has plain Markdown the built-in
// builder can render: Markdown files under docs/, or a root README.md.
func HasMarkdown(ckout string) bool {
	return HasMarkdownIn(filepath.Join(ckout, "docs")) || IsFile(filepath.Join(ckout, "README.md"))
}

// IsMarkdownName reports whether name is a Markdown file name.
func IsMarkdownName(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	return ext == ".md" || ext == ".markdown"
}

// detectDoctype decides the doctype of a checkout without a configuration
// file: mkdocs.yml → mkdocs; a conf.py → the project's doctype when it is a
// Sphinx one, else sphinx; Markdown → mkdocs (the built-in builder); else
// no documentation.
func detectDoctype(ckout, projectDoctype, projectConfPy string) (doctype, confPy string, err error) {
	if IsFile(filepath.Join(ckout, "mkdocs.yml")) {
		return DoctypeMkDocs, "", nil
	}
	confPy, err = DiscoverConfPy(ckout, projectConfPy)
	if err != nil {
		return "", "", err
	}
	if confPy != "" {
		if IsSphinx(projectDoctype) {
			return projectDoctype, confPy, nil
		}
		return DoctypeSphinx, confPy, nil
	}
	if HasMarkdown(ckout) {
		return DoctypeMkDocs, "", nil
	}
	return "", "", fail(IDNoDocumentation, MsgNoDocumentation)
}

// HasMarkdownIn reports whether dir holds a Markdown file at any depth.
func HasMarkdownIn(dir string) bool {
	found := false
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && IsMarkdownName(d.Name()) {
			found = true
			return filepath.SkipAll
		}
		return nil
	})
	return found
}
