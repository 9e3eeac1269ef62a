package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// The shell examples of the documentation site are run here against a real
// docsd, and their answers checked, so that a page cannot show what docsd
// does not answer. A page marks a checked block with an HTML comment on the
// line before its fence:
//
//	<!-- example -->
//	```sh
//	curl -s http://127.0.0.1:8000/api/v3/projects/hello/ -H "Authorization: Token $TOKEN"
//	# → {"_links":…,"slug":"hello",…}
//	```
//
// A block's comment lines that begin with "# → " show what the commands
// above them print (consecutive such lines are consecutive lines of
// output; "…" stands for any text). Every page with checked blocks gets a
// server of its own, started by the test with an empty data directory, and
// runs first the block docs/api/index.md marks `<!-- example: setup -->`
// (a user, $TOKEN, the project hello, built), then its own blocks in order,
// in one shell (bash, `set -eu`). The pages' addresses and paths are those
// of a reader's machine; the test maps them to its own (docsURLs).

// docsDir is the documentation site's source from this package's directory.
var docsDir = filepath.Join("..", "..", "docs")

const (
	exampleMarker      = "<!-- example -->"
	exampleSetupMarker = "<!-- example: setup -->"
	expectPrefix       = "# → "
)

// exampleBlock is one checked code block of a page.
type exampleBlock struct {
	page     string // relative to docs/
	line     int    // of the fence
	setup    bool
	segments []exampleSegment
}

// exampleSegment is shell code and what it must print (want == nil: not
// checked).
type exampleSegment struct {
	line int // of the code's first line in the page
	code string
	want []string
}

// readExamples returns the checked blocks of one page, in order.
func readExamples(t *testing.T, page string) []exampleBlock {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(docsDir, page))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	var blocks []exampleBlock
	for i := 0; i < len(lines); i++ {
		marker := strings.TrimSpace(lines[i])
		if marker != exampleMarker && marker != exampleSetupMarker {
			continue
		}
		if i+1 >= len(lines) || strings.TrimSpace(lines[i+1]) != "```sh" {
			t.Fatalf("%s:%d: %s must be followed by a ```sh fence", page, i+1, marker)
		}
		blk := exampleBlock{page: page, line: i + 2, setup: marker == exampleSetupMarker}
		var seg exampleSegment
		flush := func() {
			if strings.TrimSpace(seg.code) != "" || seg.want != nil {
				blk.segments = append(blk.segments, seg)
			}
			seg = exampleSegment{}
		}
		j := i + 2
		for ; j < len(lines) && strings.TrimSpace(lines[j]) != "```"; j++ {
			line := lines[j]
			if want, ok := strings.CutPrefix(line, expectPrefix); ok {
				seg.want = append(seg.want, want)
				continue
			}
			if seg.want != nil {
				flush()
			}
			if seg.code == "" {
				seg.line = j + 1
			}
			seg.code += line + "\n"
		}
		if j == len(lines) {
			t.Fatalf("%s:%d: the example's fence is not closed", page, i+2)
		}
		flush()
		blocks = append(blocks, blk)
		i = j
	}
	return blocks
}

// examplePages lists the pages under docs/ with checked blocks.
func examplePages(t *testing.T) (pages []string, setup exampleBlock) {
	t.Helper()
	setups := 0
	err := filepath.WalkDir(docsDir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") {
			return err
		}
		rel, _ := filepath.Rel(docsDir, path)
		rel = filepath.ToSlash(rel)
		checked := false
		for _, blk := range readExamples(t, rel) {
			if blk.setup {
				setup, setups = blk, setups+1
			} else {
				checked = true
			}
		}
		if checked {
			pages = append(pages, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if setups != 1 {
		t.Fatalf("%d blocks are marked %s; want one", setups, exampleSetupMarker)
	}
	return pages, setup
}

// wantPattern turns a shown answer into a regular expression: "…" is any
// text, the rest is literal.
func wantPattern(want string) *regexp.Regexp {
	parts := strings.Split(want, "…")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile(`(?s)\A` + strings.Join(parts, `.*?`) + `\z`)
}

func TestWantPattern(t *testing.T) {
	for _, tc := range []struct {
		want, got string
		match     bool
	}{
		{`{"a":1}`, `{"a":1}`, true},
		{`{"a":1}`, `{"a":12}`, false},
		{`{"a":…,"b":2}`, `{"a":[1,2],"b":2}`, true},
		{`event: next…event: complete…`, "event: next\ndata: x\n\nevent: complete\ndata:", true},
		{`201`, "201\n200", false},
		{`a.b`, `axb`, false},
	} {
		if got := wantPattern(tc.want).MatchString(tc.got); got != tc.match {
			t.Errorf("wantPattern(%q).MatchString(%q) = %v, want %v", tc.want, tc.got, got, tc.match)
		}
	}
}

func TestReadExamples(t *testing.T) {
	dir := t.TempDir()
	page := "# P\n\n<!-- example -->\n```sh\nA=1\necho $A\n# → 1\n# a comment\necho 2; echo 3\n# → 2\n# → 3\ntrue\n```\n\n```sh\nnot checked\n```\n"
	if err := os.WriteFile(filepath.Join(dir, "p.md"), []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	old := docsDir
	docsDir = dir
	defer func() { docsDir = old }()
	got := readExamples(t, "p.md")
	want := []exampleSegment{
		{line: 5, code: "A=1\necho $A\n", want: []string{"1"}},
		{line: 8, code: "# a comment\necho 2; echo 3\n", want: []string{"2", "3"}},
		{line: 12, code: "true\n"},
	}
	if len(got) != 1 || got[0].line != 4 || got[0].setup || !slices.EqualFunc(got[0].segments, want, func(a, b exampleSegment) bool {
		return a.line == b.line && a.code == b.code && slices.Equal(a.want, b.want)
	}) {
		t.Errorf("readExamples: got %+v, want one block at line 4 with %+v", got, want)
	}
}

// docsdOnPath makes a directory holding `docsd`, this test binary under
// that name (TestMain runs the program when called so), for the examples'
// shell to find first on PATH.
func docsdOnPath(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	if err := os.Symlink(self, filepath.Join(bin, "docsd")); err != nil {
		t.Fatal(err)
	}
	return bin
}

// TestMain runs the docsd program when this test binary is called as
// `docsd` (docsdOnPath), and the tests otherwise.
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == "docsd" {
		main()
	}
	os.Exit(m.Run())
}

// exampleScript is the shell script of a page's blocks: each segment is
// preceded by a line that names it on standard output, so that each
// segment's output can be told apart.
func exampleScript(blocks []exampleBlock, mapping *strings.Replacer) (string, []exampleSegment) {
	var b strings.Builder
	b.WriteString("set -eu\n")
	var segs []exampleSegment
	for _, blk := range blocks {
		for _, seg := range blk.segments {
			fmt.Fprintf(&b, "printf '\\n@@example %d@@\\n'\n%s", len(segs), mapping.Replace(seg.code))
			segs = append(segs, seg)
		}
	}
	fmt.Fprintf(&b, "printf '\\n@@example %d@@\\n'\n", len(segs))
	return b.String(), segs
}

var segmentLine = regexp.MustCompile(`(?m)^@@example (\d+)@@\n`)

// segmentOutputs splits a script's output by segment; a segment that did
// not run has no entry.
func segmentOutputs(out string) map[int]string {
	got := map[int]string{}
	idx := segmentLine.FindAllStringSubmatchIndex(out, -1)
	for i, m := range idx {
		var n int
		fmt.Sscan(out[m[2]:m[3]], &n)
		if i+1 < len(idx) {
			got[n] = strings.TrimSpace(out[m[1]:idx[i+1][0]])
		}
	}
	return got
}

// envWithoutSettings is this process's environment without docsd's
// settings (DOCSD_*), for the commands a test runs to start from docsd's
// defaults.
func envWithoutSettings() []string {
	return slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "DOCSD_") })
}

// exampleEnv is the environment of the examples' shell: without docsd's
// settings, with `docsd` first on PATH and the server's data directory as
// the admin commands' default.
func exampleEnv(bin, dataDir string) []string {
	env := slices.DeleteFunc(envWithoutSettings(), func(kv string) bool { return strings.HasPrefix(kv, "PATH=") })
	return append(env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "DOCSD_DATA_DIR="+dataDir)
}

// TestDocsExamples runs every checked example of the documentation site
// against a docsd of its page's own.
func TestDocsExamples(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("NO GIT BINARY: the documentation's examples need git")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("NO BASH: the documentation's examples are bash")
	}
	pages, setup := examplePages(t)
	if len(pages) == 0 {
		t.Fatal("no page has checked examples")
	}
	bin := docsdOnPath(t)
	for _, page := range pages {
		t.Run(strings.TrimSuffix(page, ".md"), func(t *testing.T) {
			work := t.TempDir()
			// The sandbox may run build commands as nobody: the
			// repositories the examples make must be readable.
			if err := os.Chmod(work, 0o755); err != nil {
				t.Fatal(err)
			}
			dataDir := filepath.Join(work, "docsd-data")
			srv := startServe(t, dataDir)
			mapping := strings.NewReplacer(
				"http://127.0.0.1:8000", srv.url,
				"http://127.0.0.1:8001", srv.docs,
				"/tmp/docsd-examples", dataDir,
				"/tmp/", work+"/",
			)
			// pageTerms maps the test's addresses back, to show answers as
			// the page would.
			pageTerms := strings.NewReplacer(srv.url, "http://127.0.0.1:8000", srv.docs, "http://127.0.0.1:8001",
				dataDir, "/tmp/docsd-examples", work+"/", "/tmp/")
			blocks := append([]exampleBlock{setup}, readExamples(t, page)...)
			script, segs := exampleScript(blocks, mapping)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "bash", "-c", script)
			cmd.Dir = work
			cmd.Env = exampleEnv(bin, dataDir)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			got := segmentOutputs(stdout.String())
			for i, seg := range segs {
				where := page
				if i < len(setup.segments) {
					where = setup.page
				}
				out, ran := got[i]
				if !ran {
					t.Fatalf("%s:%d: the example failed (%v) here:\n%s\nits output:\n%s\nstderr:\n%s\nThe server's log:\n%s",
						where, seg.line, err, seg.code, lastLines(stdout.String(), 20), lastLines(stderr.String(), 20), lastLines(srv.stderr.String(), 20))
				}
				if testing.Verbose() {
					t.Logf("%s:%d answered:\n%s", where, seg.line, pageTerms.Replace(out))
				}
				if seg.want == nil {
					continue
				}
				want := mapping.Replace(strings.Join(seg.want, "\n"))
				if !wantPattern(want).MatchString(out) {
					t.Errorf("%s:%d: the page shows\n\t%s\nfor\n%s\nbut docsd answered (in the page's terms)\n\t%s", where, seg.line,
						strings.Join(seg.want, "\n\t"), seg.code, strings.ReplaceAll(pageTerms.Replace(out), "\n", "\n\t"))
				}
			}
			if err != nil {
				t.Errorf("%s: the examples' shell: %v\n%s", page, err, stderr.String())
			}
		})
	}
}

// lastLines is the end of s, at most n lines.
func lastLines(s string, n int) string {
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
