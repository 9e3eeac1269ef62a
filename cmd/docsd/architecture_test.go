package main

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The import rules are the table "Import rules" of
// docs/contributing/architecture.md: the test reads them from there, so
// the page and the test cannot disagree, and a rule is changed in one
// place.

// importRule is one row of the table: the packages Subjects never import
// any of Others (onlyBy false), or are imported by none but Others
// (onlyBy true). A pattern is a package's name (importName) or `name/...`
// for it and the packages under it.
type importRule struct {
	Subjects, Others []string
	onlyBy           bool
	row              string // the row as written, for messages
}

var (
	ruleRow   = regexp.MustCompile("(?m)^\\| (.+?) \\| (never import|are imported only by) \\| (.+?) \\|$")
	ruleNames = regexp.MustCompile("`([^`]+)`")
)

// readImportRules parses the rows of the table under "## Import rules".
func readImportRules(t *testing.T) []importRule {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(docsDir, "contributing", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Import rules\n")
	if !ok {
		t.Fatal(`docs/contributing/architecture.md has no "## Import rules" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var rules []importRule
	for _, m := range ruleRow.FindAllStringSubmatch(section, -1) {
		r := importRule{onlyBy: m[2] == "are imported only by", row: m[0]}
		for _, n := range ruleNames.FindAllStringSubmatch(m[1], -1) {
			r.Subjects = append(r.Subjects, n[1])
		}
		for _, n := range ruleNames.FindAllStringSubmatch(m[3], -1) {
			r.Others = append(r.Others, n[1])
		}
		if len(r.Subjects) == 0 || (len(r.Others) == 0 && (!r.onlyBy || strings.TrimSpace(m[3]) != "nothing")) {
			t.Fatalf("import rule %q: name packages in backquotes (or `nothing` after \"are imported only by\")", m[0])
		}
		rules = append(rules, r)
	}
	if len(rules) == 0 {
		t.Fatal("docs/contributing/architecture.md: no import rules found")
	}
	return rules
}

// importName is the name rules use for the package at importPath of
// module mod: its path inside the module without `internal` elements, so
// that a rule holds when a package moves under internal/.
func importName(mod, importPath string) (string, bool) {
	rel, ok := strings.CutPrefix(importPath, mod+"/")
	if !ok {
		return "", false
	}
	parts := slices.DeleteFunc(strings.Split(rel, "/"), func(s string) bool { return s == "internal" })
	return strings.Join(parts, "/"), true
}

// matches reports whether pattern names the package name.
func matches(pattern, name string) bool {
	if prefix, ok := strings.CutSuffix(pattern, "/..."); ok {
		return name == prefix || strings.HasPrefix(name, prefix+"/")
	}
	return pattern == name
}

func matchesAny(patterns []string, name string) bool {
	return slices.ContainsFunc(patterns, func(p string) bool { return matches(p, name) })
}

// brokenImportRules lists how imports (a package's name → the names of
// the module's packages it imports) break rules: one line per offending
// import, and one per pattern that names no package (a rule made void by
// a rename).
func brokenImportRules(rules []importRule, imports map[string][]string) []string {
	var broken []string
	names := slices.Sorted(maps.Keys(imports))
	for _, r := range rules {
		for _, p := range append(slices.Clone(r.Subjects), r.Others...) {
			if !slices.ContainsFunc(names, func(n string) bool { return matches(p, n) }) {
				broken = append(broken, fmt.Sprintf("%s names %s, which is no package", r.row, p))
			}
		}
		for _, from := range names {
			for _, to := range imports[from] {
				switch {
				case !r.onlyBy && matchesAny(r.Subjects, from) && matchesAny(r.Others, to):
					broken = append(broken, fmt.Sprintf("%s imports %s, breaking %s", from, to, r.row))
				case r.onlyBy && matchesAny(r.Subjects, to) && !matchesAny(r.Subjects, from) && !matchesAny(r.Others, from):
					broken = append(broken, fmt.Sprintf("%s imports %s, breaking %s", from, to, r.row))
				}
			}
		}
	}
	return broken
}

// moduleImports is the import graph of the module's packages, without
// tests (tests may import what they need to set up a fixture): a
// package's name → the names of the module's packages it imports
// directly. Rules are about direct imports: rest reaches store through
// graph, as it should.
func moduleImports(t *testing.T) map[string][]string {
	t.Helper()
	_, err := exec.LookPath("go")
	requireTool(t, err, "NO GO COMMAND on PATH: the import rules are checked with `go list`")
	cmd := exec.Command("go", "list", "-f", "{{.Module.Path}} {{.ImportPath}} {{join .Imports \" \"}}", "./...")
	cmd.Dir = repoRoot
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	imports := map[string][]string{}
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		from, ok := importName(f[0], f[1])
		if !ok {
			t.Fatalf("go list: %q is not in module %s", f[1], f[0])
		}
		imports[from] = []string{}
		for _, p := range f[2:] {
			if to, ok := importName(f[0], p); ok {
				imports[from] = append(imports[from], to)
			}
		}
	}
	return imports
}

// TestImportRules: the packages import one another as
// docs/contributing/architecture.md says.
func TestImportRules(t *testing.T) {
	rules, imports := readImportRules(t), moduleImports(t)
	for _, b := range brokenImportRules(rules, imports) {
		t.Error(b)
	}
}

// TestImportRulesCatchBreaks: each rule of the page, and each kind of
// rule, fails on an import graph that breaks it, and holds on one that
// keeps it.
func TestImportRulesCatchBreaks(t *testing.T) {
	rules, real := readImportRules(t), moduleImports(t)
	for _, r := range rules {
		broken := clone(real)
		from, to := r.Subjects[0], r.Others
		if r.onlyBy {
			// Some package that is neither a subject nor allowed imports a subject.
			from = "a/new/package"
			broken[from] = []string{firstMatch(real, r.Subjects[0])}
		} else {
			from = firstMatch(real, r.Subjects[0])
			broken[from] = append(slices.Clone(broken[from]), firstMatch(real, to[0]))
		}
		if got := brokenImportRules([]importRule{r}, broken); len(got) != 1 {
			t.Errorf("%s, with %s importing %v: got %q, want one broken import", r.row, from, broken[from], got)
		}
	}

	synthetic := map[string][]string{
		"cmd/docsd": {"rest", "store", "hosting"}, "rest": {"graph"}, "graph": {"store", "graph/gid"},
		"graph/gid": {}, "hosting": {"store"}, "store": {}, "internal/x": {},
	}
	never := importRule{Subjects: []string{"rest"}, Others: []string{"store"}, row: "rest never imports store"}
	onlyCmd := importRule{Subjects: []string{"hosting", "rest"}, Others: []string{"cmd/..."}, onlyBy: true, row: "only cmd"}
	noCmd := importRule{Subjects: []string{"cmd/..."}, onlyBy: true, row: "nothing imports cmd"}
	within := importRule{Subjects: []string{"graph/..."}, Others: []string{"rest"}, onlyBy: true, row: "graph only by rest"}
	stale := importRule{Subjects: []string{"builder"}, Others: []string{"store"}, row: "builder never imports store"}
	for _, tc := range []struct {
		name  string
		rule  importRule
		edit  func(map[string][]string)
		broke int
	}{
		{"never: kept", never, func(map[string][]string) {}, 0},
		{"never: broken", never, func(g map[string][]string) { g["rest"] = append(g["rest"], "store") }, 1},
		{"only by: kept", onlyCmd, func(map[string][]string) {}, 0},
		{"only by: broken", onlyCmd, func(g map[string][]string) { g["graph"] = append(g["graph"], "hosting") }, 1},
		{"imported by nothing: broken", noCmd, func(g map[string][]string) { g["store"] = []string{"cmd/docsd"} }, 1},
		{"a group imports within itself", within, func(map[string][]string) {}, 0},
		{"a renamed package voids no rule silently", stale, func(map[string][]string) {}, 1},
	} {
		g := clone(synthetic)
		tc.edit(g)
		if got := brokenImportRules([]importRule{tc.rule}, g); len(got) != tc.broke {
			t.Errorf("%s: got %q, want %d broken", tc.name, got, tc.broke)
		}
	}

	for _, tc := range []struct{ path, want string }{
		{"docsd/store", "store"},
		{"docsd/internal/store", "store"},
		{"docsd/internal/graph/internal/execpatch", "graph/execpatch"},
		{"docsd/cmd/docsd", "cmd/docsd"},
	} {
		if got, _ := importName("docsd", tc.path); got != tc.want {
			t.Errorf("importName(%q): got %q, want %q", tc.path, got, tc.want)
		}
	}
}

func clone(g map[string][]string) map[string][]string {
	c := make(map[string][]string, len(g))
	for k, v := range g {
		c[k] = slices.Clone(v)
	}
	return c
}

// firstMatch is the first package name (in order) that pattern names.
func firstMatch(g map[string][]string, pattern string) string {
	for _, n := range slices.Sorted(maps.Keys(g)) {
		if matches(pattern, n) {
			return n
		}
	}
	return pattern
}
