package main

import (
	"bytes"
	"go/scanner"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The repository stands alone and names things by what they are: no file
// of it refers to a file outside it (a specification, an "issue N") or to
// a numbered section, and no file name or Go identifier carries the year
// of a rule or the order work was done in.

// referencesAllowed are the files that still refer outside the
// repository, each until the change named rewrites it. Empty it as they
// are cleaned: TestNoOutsideReferences fails for an entry that no longer
// refers to anything.
var referencesAllowed = map[string]string{}

// eraFileName and eraIdentifier find a year (19xx, 20xx) or a
// "more"/"new" in a file name, and a year in an identifier: the era of a
// rule or the order of work, not what it holds.
var (
	eraFileName   = regexp.MustCompile(`(?:^|[^0-9])(?:19|20)[0-9]{2}(?:[^0-9]|$)|(?:^|_)(?:more|new)(?:_|\.)`)
	eraIdentifier = regexp.MustCompile(`[A-Za-z_](?:19|20)[0-9]{2}(?:[^0-9]|$)`)
)

// identifiersAllowed are identifiers whose number is no year.
var identifiersAllowed = map[string]string{
	"fragments2000": "a query of 2,000 fragment spreads",
}

// repositoryFiles are the repository's text files, slash-separated and
// relative to its root; .git and binary files (those with a NUL byte in
// their first 8 KB) are left out.
func repositoryFiles(t *testing.T) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(repoRoot, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" || d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if bytes.IndexByte(b[:min(len(b), 8192)], 0) >= 0 {
			return nil
		}
		rel, err := filepath.Rel(repoRoot, p)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(rel)] = b
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := files["schema.graphqls"]; !ok {
		t.Fatalf("no schema.graphqls under %s: not the repository's root", repoRoot)
	}
	return files
}

// TestNoOutsideReferences: no text file of the repository (code, schema,
// configuration, scripts, docs, golden files) cites a file outside it, a
// section by its sign or an issue number; a comment states the rule or
// links a page of docs/.
func TestNoOutsideReferences(t *testing.T) {
	files := repositoryFiles(t)
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for name := range files {
			if !yield(name) {
				return
			}
		}
	}) {
		found := false
		for i, line := range strings.Split(string(files[name]), "\n") {
			m := outsideReferences.FindString(line)
			if m == "" {
				continue
			}
			found = true
			if _, allowed := referencesAllowed[name]; !allowed {
				t.Errorf("%s:%d refers to %q: state the rule, or link a page of docs/", name, i+1, m)
			}
		}
		if _, allowed := referencesAllowed[name]; allowed && !found {
			t.Errorf("%s no longer refers outside the repository: remove it from referencesAllowed", name)
		}
	}
	for name := range referencesAllowed {
		if _, ok := files[name]; !ok {
			t.Errorf("referencesAllowed names %s, which does not exist: remove it", name)
		}
	}
}

// TestNamesSayWhatThingsAre: no file name or Go identifier carries a year
// or a "more"/"new" that dates it instead of saying what it holds
// (string and number literals, such as test dates, are not names, and an
// identifier after a dot may be another module's: those declared here are
// found where they are declared).
func TestNamesSayWhatThingsAre(t *testing.T) {
	files := repositoryFiles(t)
	for name, src := range files {
		if eraFileName.MatchString(filepath.Base(name)) {
			t.Errorf("%s: the file name dates it; name it by what it holds", name)
		}
		if !strings.HasSuffix(name, ".go") {
			continue
		}
		fset := token.NewFileSet()
		var s scanner.Scanner
		s.Init(fset.AddFile(name, -1, len(src)), src, nil, 0)
		seen := map[string]bool{}
		for prev := token.ILLEGAL; ; {
			pos, tok, lit := s.Scan()
			if tok == token.EOF {
				break
			}
			qualified := prev == token.PERIOD
			prev = tok
			if _, ok := identifiersAllowed[lit]; ok || qualified {
				continue
			}
			if tok == token.IDENT && !seen[lit] && eraIdentifier.MatchString(lit) {
				seen[lit] = true
				t.Errorf("%s: identifier %s dates it; name it by what it is", fset.Position(pos), lit)
			}
		}
	}
}

func TestEraNames(t *testing.T) {
	for _, tc := range []struct {
		name string
		file bool // a file name, else an identifier
		bad  bool
	}{
		{"pipeline" + "2026.go", true, true},
		{"redirects" + "2023_test.go", true, true},
		{"dashboard_" + "more_test.go", true, true},
		{"current_pipeline.go", true, false},
		{"sha256.go", true, false},
		{"ubuntu-24.04.yaml", true, false},
		{"install" + "2019AndBuild", false, true},
		{"TestPipeline" + "2026", false, true},
		{"sha256", false, false},
		{"RFC3339", false, false},
		{"legacyPipeline", false, false},
	} {
		re := eraIdentifier
		if tc.file {
			re = eraFileName
		}
		if got := re.MatchString(tc.name); got != tc.bad {
			t.Errorf("%q: dated = %v, want %v", tc.name, got, tc.bad)
		}
	}
}
