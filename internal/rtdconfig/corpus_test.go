package rtdconfig

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// referenced finds the files a configuration names, so that the corpus
// checkouts have them (the legacy rules check that they exist).
var referenced = regexp.MustCompile(`(?m)^\s*-?\s*(?:requirements|configuration|environment|requirements_file):\s*(\S+)\s*$`)

// TestCorpus validates realistic configuration files written the way
// well-known projects write theirs (testdata/corpus): each must be
// accepted with the doctype its first line names, or refused with the
// exact message Read the Docs gives.
func TestCorpus(t *testing.T) {
	files, err := filepath.Glob("testdata/corpus/*.yaml")
	if err != nil || len(files) < 28 {
		t.Fatalf("corpus: %d files, %v", len(files), err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			first, _, _ := strings.Cut(string(data), "\n")
			want, ok := strings.CutPrefix(first, "# want: ")
			if !ok {
				t.Fatalf("first line %q lacks # want:", first)
			}
			tree := map[string]string{".readthedocs.yaml": string(data), "docs/conf.py": "", "setup.py": ""}
			for _, m := range referenced.FindAllStringSubmatch(string(data), -1) {
				tree[strings.Trim(m[1], `"'`)] = ""
			}
			c, err := Load(Input{Ckout: checkout(t, tree), Project: defaultProject(), ImagePrefix: "readthedocs/build"})
			if msg, isError := strings.CutPrefix(want, "error "); isError {
				if e, ok := AsError(err); !ok || e.Msg != msg {
					t.Fatalf("err = %v\nwant %s", err, msg)
				}
				return
			}
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if doctype := strings.TrimPrefix(want, "ok "); c.Doctype != doctype {
				t.Errorf("doctype %q, want %q", c.Doctype, doctype)
			}
		})
	}
}
