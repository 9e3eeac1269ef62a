package builder

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Documentation types (behavior.md §10.5).
const (
	doctypeSphinx           = "sphinx"
	doctypeSphinxHTMLDir    = "sphinx_htmldir"
	doctypeSphinxSingleHTML = "sphinx_singlehtml"
	doctypeMkDocs           = "mkdocs"
)

// isSphinx reports whether a doctype is built with Sphinx.
func isSphinx(doctype string) bool {
	return doctype == doctypeSphinx || doctype == doctypeSphinxHTMLDir || doctype == doctypeSphinxSingleHTML
}

// sphinxBuilderName is the Sphinx builder that makes a doctype's HTML.
func sphinxBuilderName(doctype string) string {
	switch doctype {
	case doctypeSphinxHTMLDir:
		return "dirhtml"
	case doctypeSphinxSingleHTML:
		return "singlehtml"
	}
	return "html"
}

// exists reports whether path exists; isFile and isDir whether it is one.
func exists(path string) bool { _, err := os.Stat(path); return err == nil }

func isFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// docsDir returns the first of candidates that is a directory in ckout
// (relative path), or "." when none is.
func docsDir(ckout string, candidates ...string) string {
	for _, d := range candidates {
		if isDir(filepath.Join(ckout, d)) {
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

// discoverConfPy finds the project's conf.py by steps 2–3 of behavior.md
// §7.4's discovery (the configured file is checked by the config). It
// returns "" when there is none, and the "multiple conf.py" failure when
// several are found and none is under a path containing `doc`.
func discoverConfPy(ckout, projectConfPy string) (string, error) {
	if projectConfPy != "" {
		rel := cleanRel(projectConfPy)
		if rel != "" && isFile(filepath.Join(ckout, rel)) {
			return rel, nil
		}
	}
	for _, dir := range []string{docsDir(ckout, "docs", "doc", "Doc"), "."} {
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
			return "", fail(MsgConfPyMultiple)
		}
	}
	return "", nil
}

// cleanRel normalises a path given relative to the checkout root. It
// returns "" for a path that leaves the checkout.
func cleanRel(p string) string {
	c := filepath.Clean(filepath.FromSlash(strings.TrimPrefix(p, "/")))
	if c == ".." || strings.HasPrefix(c, ".."+string(filepath.Separator)) {
		return ""
	}
	return filepath.ToSlash(c)
}

// hasMarkdown reports whether the checkout has plain Markdown the built-in
// builder can render: Markdown files under docs/, or a root README.md.
func hasMarkdown(ckout string) bool {
	return hasMarkdownIn(filepath.Join(ckout, "docs")) || isFile(filepath.Join(ckout, "README.md"))
}

func isMarkdownName(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	return ext == ".md" || ext == ".markdown"
}

// detectDoctype decides the doctype of a checkout without a configuration
// file (behavior.md §7.5, v1 doctype): mkdocs.yml → mkdocs; a conf.py →
// the project's doctype when it is a Sphinx one, else sphinx; Markdown →
// mkdocs (the built-in builder); else no documentation.
func detectDoctype(ckout, projectDoctype, projectConfPy string) (doctype, confPy string, err error) {
	if isFile(filepath.Join(ckout, "mkdocs.yml")) {
		return doctypeMkDocs, "", nil
	}
	confPy, err = discoverConfPy(ckout, projectConfPy)
	if err != nil {
		return "", "", err
	}
	if confPy != "" {
		if isSphinx(projectDoctype) {
			return projectDoctype, confPy, nil
		}
		return doctypeSphinx, confPy, nil
	}
	if hasMarkdown(ckout) {
		return doctypeMkDocs, "", nil
	}
	return "", "", fail(MsgNoDocumentation)
}

// writeDefaultSphinxProject writes the default Sphinx project of behavior.md
// §7.4 (discovery step 4) and returns its conf.py path relative to ckout.
func writeDefaultSphinxProject(ckout, projectName string) (string, error) {
	dir := docsDir(ckout, "docs", "doc", "Doc", "book")
	abs := filepath.Join(ckout, dir)
	master := "index"
	switch {
	case isFile(filepath.Join(abs, "index.rst")):
	case isFile(filepath.Join(abs, "README.rst")):
		master = "README"
	default:
		placeholder := "Welcome to " + projectName + "\n" + strings.Repeat("=", len("Welcome to "+projectName)) + "\n\n" +
			"This page was generated by docsd because the project has no ``index.rst``.\n" +
			"Add your own ``index.rst`` to the documentation directory to replace it.\n"
		if err := os.WriteFile(filepath.Join(abs, "index.rst"), []byte(placeholder), 0o644); err != nil {
			return "", err
		}
	}
	conf := "# Generated by docsd: the repository has no conf.py.\n" +
		"project = " + pyQuote(projectName) + "\n" +
		"master_doc = " + pyQuote(master) + "\n" +
		"root_doc = master_doc\n" +
		"exclude_patterns = ['_build']\n"
	if err := os.WriteFile(filepath.Join(abs, "conf.py"), []byte(conf), 0o644); err != nil {
		return "", err
	}
	return filepath.ToSlash(filepath.Join(dir, "conf.py")), nil
}

// pyQuote writes s as a Python string literal.
func pyQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, "'", `\'`, "\n", `\n`, "\r", `\r`).Replace(s) + "'"
}
