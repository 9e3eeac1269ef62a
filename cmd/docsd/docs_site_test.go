package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// The repository explains itself: its documentation site (docs/,
// mkdocs.yml, .readthedocs.yaml) is a project docsd builds and hosts, its
// README is short and its commands work as written, and the package layout
// page lists every package. These tests keep that true.

// repoRoot is the repository's root from this package's directory.
var repoRoot = filepath.Join("..", "..")

// requireTool skips a test that needs an optional tool the machine lacks,
// loudly, and fails it under CI=true, where the tools must be installed.
func requireTool(t *testing.T, err error, msg string) {
	t.Helper()
	if err == nil {
		return
	}
	msg = fmt.Sprintf("%s: %v", msg, err)
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// gitIn runs git in dir and fails the test when it fails.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// siteFiles are what the documentation site is built from.
var siteFiles = []string{"docs", "mkdocs.yml", ".readthedocs.yaml"}

// cloneWithWorkingSite clones the repository into a temp dir, on a branch
// main, with the site's files as they are in the working tree (committed
// there when they differ), and returns the clone's directory.
func cloneWithWorkingSite(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	_, err = exec.Command("git", "-C", root, "rev-parse", "--git-dir").Output()
	requireTool(t, err, "THE REPOSITORY IS NOT A GIT CHECKOUT: the site test imports a clone of it")
	clone := filepath.Join(t.TempDir(), "docsd")
	if out, err := exec.Command("git", "clone", "-q", root, clone).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	gitIn(t, clone, "checkout", "-q", "-B", "main")
	for _, ref := range strings.Fields(gitIn(t, clone, "for-each-ref", "--format=%(refname:short)", "refs/heads/")) {
		if ref != "main" {
			gitIn(t, clone, "branch", "-q", "-D", ref)
		}
	}
	for _, f := range siteFiles {
		from, to := filepath.Join(root, f), filepath.Join(clone, f)
		if err := os.RemoveAll(to); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(from)
		if err != nil {
			t.Fatal(err)
		}
		if fi.IsDir() {
			err = os.CopyFS(to, os.DirFS(from))
		} else {
			err = copyFile(from, to)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	gitIn(t, clone, append([]string{"add", "-A", "--"}, siteFiles...)...)
	if strings.TrimSpace(gitIn(t, clone, "status", "--porcelain")) != "" {
		gitIn(t, clone, "-c", "user.name=docsd", "-c", "user.email=docsd@example.com", "commit", "-q", "-m", "the working tree's site")
	}
	return clone
}

// copyFile copies one file.
func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o644)
}

// navPages lists the Markdown files of mkdocs.yml's nav, in order.
func navPages(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, "mkdocs.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Nav []any `yaml:"nav"`
	}
	if err := yaml.Unmarshal(b, &cfg); err != nil {
		t.Fatalf("mkdocs.yml: %v", err)
	}
	var pages []string
	var walk func(any)
	walk = func(n any) {
		switch n := n.(type) {
		case string:
			pages = append(pages, n)
		case []any:
			for _, e := range n {
				walk(e)
			}
		case map[string]any:
			for _, e := range n {
				walk(e)
			}
		}
	}
	walk(cfg.Nav)
	if len(pages) == 0 {
		t.Fatal("mkdocs.yml has no nav")
	}
	return pages
}

// pageURL is where MkDocs (use_directory_urls) puts a page, relative to
// the site's root.
func pageURL(page string) string {
	switch {
	case page == "index.md":
		return ""
	case path.Base(page) == "index.md":
		return path.Dir(page) + "/"
	}
	return strings.TrimSuffix(page, ".md") + "/"
}

// pageTitle is a page's first heading.
func pageTitle(t *testing.T, page string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(docsDir, filepath.FromSlash(page)))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if title, ok := strings.CutPrefix(line, "# "); ok {
			return title
		}
	}
	t.Fatalf("%s has no title", page)
	return ""
}

// TestDocsSiteBuiltByDocsd imports this repository (a clone, with the
// working tree's site) into a docsd started by the test, lets it build the
// site from .readthedocs.yaml with the real MkDocs, and checks that every
// page of the navigation is served.
func TestDocsSiteBuiltByDocsd(t *testing.T) {
	_, err := exec.LookPath("git")
	requireTool(t, err, "NO GIT BINARY: the site test imports a git repository")
	err = exec.Command(defaultBuildPython(), "-c", "import mkdocs").Run()
	requireTool(t, err, "MKDOCS IS NOT INSTALLED for "+defaultBuildPython()+", docsd's own site is not built (apt-get install mkdocs)")

	clone := cloneWithWorkingSite(t)
	dataDir := t.TempDir()
	token := createUser(t, dataDir, "alice")
	// The site's requirements come from PyPI when it answers; without it
	// the machine's MkDocs builds it.
	srv := startServe(t, dataDir, "--offline-builds")
	srv.token = token
	docs := srv.importProject(t, "docsd", "file://"+clone, "en")
	srv.waitBuilt(t, "docsd")

	// The site was built by MkDocs, strictly, not by the built-in builder
	// that stands in when MkDocs is missing.
	var b struct {
		Project struct {
			Version struct {
				LastBuild struct {
					Commands []struct{ Command string }
				}
			}
		}
	}
	srv.graphql(t, `{ project(slug: "docsd") { version(slug: "latest") { lastBuild { commands { command } } } } }`, nil, &b)
	var commands []string
	for _, c := range b.Project.Version.LastBuild.Commands {
		commands = append(commands, c.Command)
	}
	if !slices.ContainsFunc(commands, func(c string) bool {
		return strings.Contains(c, "-m mkdocs build") && strings.Contains(c, "--config-file mkdocs.yml") && strings.Contains(c, "--strict")
	}) {
		t.Fatalf("the build ran no `mkdocs build --strict` of mkdocs.yml; its commands:\n%s", strings.Join(commands, "\n"))
	}

	for _, page := range navPages(t) {
		url := docs + pageURL(page)
		status, _, body := fetch(t, url, "")
		title := pageTitle(t, page)
		if status != http.StatusOK || !strings.Contains(body, ">"+title+"<") || !strings.Contains(body, `>MkDocs</a>`) {
			t.Errorf("%s (%s): %d, want 200 and a MkDocs page titled %q; got %.200q", page, url, status, title, body)
		}
	}
	// A screenshot the pages show.
	if status, _, _ := fetch(t, docs+"screenshots/dashboard.png", ""); status != http.StatusOK {
		t.Errorf("screenshots/dashboard.png: %d, want 200", status)
	}
}

// readmeBlock returns the one command of the README's code block marked
// `<!-- readme: NAME -->`.
func readmeBlock(t *testing.T, readme, name string) string {
	t.Helper()
	marker := "<!-- readme: " + name + " -->\n```sh\n"
	_, rest, ok := strings.Cut(readme, marker)
	if !ok {
		t.Fatalf("README.md has no block marked %q", strings.TrimSuffix(marker, "\n```sh\n"))
	}
	block, _, ok := strings.Cut(rest, "```")
	if !ok {
		t.Fatalf("README.md: the %s block is not closed", name)
	}
	lines := strings.Split(strings.TrimSpace(block), "\n")
	if len(lines) != 1 {
		t.Fatalf("README.md: the %s block has %d lines; it must be one command (CI runs it)", name, len(lines))
	}
	return lines[0]
}

// outsideReferences are references to files outside the repository, or to
// the order work was done in, which the README and the site must not make.
// The pattern spells its words so that it does not match itself.
var outsideReferences = regexp.MustCompile(`\.\./shared|shared/spe[c]|behavior\.md|(?:api|config|teams)-20\d\d|(?:^|[^/\w])reader\.md|\x{a7}|(?i:\bissue [0-9])`)

func TestREADME(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	if n := strings.Count(readme, "\n"); n > 250 {
		t.Errorf("README.md has %d lines; keep it at most 250 and put the rest in docs/", n)
	}
	if got := readmeBlock(t, readme, "test"); got != "go test ./..." {
		t.Errorf("README's test command is %q, want %q", got, "go test ./...")
	}
	readmeBlock(t, readme, "run")

	// Relative links point at files of the repository.
	for _, m := range regexp.MustCompile(`\]\(([^)#:]+)(?:#[^)]*)?\)`).FindAllStringSubmatch(readme, -1) {
		if _, err := os.Stat(filepath.Join(repoRoot, filepath.FromSlash(m[1]))); err != nil {
			t.Errorf("README.md links to %s, which does not exist", m[1])
		}
	}

	// Neither the README nor the site refers outside the repository.
	files := []string{filepath.Join(repoRoot, "README.md"), filepath.Join(repoRoot, "mkdocs.yml"), filepath.Join(repoRoot, ".readthedocs.yaml")}
	filepath.WalkDir(docsDir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			files = append(files, p)
		}
		return err
	})
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if m := outsideReferences.FindString(line); m != "" {
				t.Errorf("%s:%d refers to %q: state the rule, or link a page of docs/", f, i+1, m)
			}
		}
	}
}

func TestOutsideReferences(t *testing.T) {
	for _, tc := range []struct {
		line string
		bad  bool
	}{
		{"see ../sha" + "red/spec/", true},
		{"see shared/" + "spec/api.md", true},
		{"as behavior" + ".md says", true},
		{"api-" + "2026.md A6", true},
		{"config-" + "2026.md", true},
		{"\u00a7 4.2", true},
		{"fixed in issue " + "14", true},
		{"Issue " + "13, Security", true},
		{"see [reading](user-guide/reading.md)", false},
		{"the reader" + ".md contract", true},
		{"docs/user-guide/reader" + ".md", false},
		{"an issue with 3 parts", false},
		{"copyright = '2026, Tester'", false},
	} {
		if got := outsideReferences.MatchString(tc.line); got != tc.bad {
			t.Errorf("outsideReferences.MatchString(%q) = %v, want %v", tc.line, got, tc.bad)
		}
	}
}

// TestREADMERunCommand runs the README's command that starts docsd, as
// written, in the repository (with the listeners and the data directory
// moved out of the way by their environment variables), and checks that
// the service answers.
func TestREADMERunCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the README's run command compiles docsd")
	}
	_, err := exec.LookPath("go")
	requireTool(t, err, "NO GO COMMAND on PATH: the README's run command is `go run`")
	b, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	command := readmeBlock(t, string(b), "run")
	addr, docsAddr := freeAddr(t), freeAddr(t)
	cmd := exec.Command("bash", "-c", command)
	cmd.Dir = repoRoot
	cmd.Env = append(envWithoutSettings(), "DOCSD_DATA_DIR="+t.TempDir(), "DOCSD_ADDR="+addr, "DOCSD_DOCS_ADDR="+docsAddr)
	var buf bytes.Buffer
	out := &syncWriter{w: &buf}
	cmd.Stdout, cmd.Stderr = out, out
	output := func() string {
		out.mu.Lock()
		defer out.mu.Unlock()
		return buf.String()
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // go run's child too
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(2 * time.Minute):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
	}()

	// The first `go run` compiles: the deadline is for a busy machine.
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	for {
		resp, err := http.Get("http://" + addr + "/readyz")
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"status":"ok"`) {
				t.Fatalf("/readyz: %d %s", resp.StatusCode, body)
			}
			break
		}
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("%q exited before it answered: %v\n%s", command, err, output())
		case <-ctx.Done():
			t.Fatalf("%q did not answer on %s: %v\n%s", command, addr, err, output())
		case <-time.After(500 * time.Millisecond):
		}
	}
	if status, _, _ := fetch(t, "http://"+addr+"/accounts/login/", ""); status != http.StatusOK {
		t.Errorf("the dashboard's sign-in page: %d, want 200", status)
	}
	if status, _, _ := fetch(t, "http://"+docsAddr+"/docs/nothing/", ""); status != http.StatusNotFound {
		t.Errorf("the docs listener, an unknown project: %d, want 404", status)
	}
}

// TestLayoutListsEveryPackage fails when docs/contributing/layout.md does not
// list exactly the module's packages.
func TestLayoutListsEveryPackage(t *testing.T) {
	_, err := exec.LookPath("go")
	requireTool(t, err, "NO GO COMMAND on PATH: the layout test lists packages with `go list`")
	cmd := exec.Command("go", "list", "./...")
	cmd.Dir = repoRoot
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var packages []string
	for _, p := range strings.Fields(string(out)) {
		packages = append(packages, strings.TrimPrefix(p, "docsd/"))
	}
	b, err := os.ReadFile(filepath.Join(docsDir, "contributing", "layout.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(b), "\n## Packages\n")
	section, _, _ = strings.Cut(section, "\n## ")
	var listed []string
	for _, m := range regexp.MustCompile("(?m)^\\| `([^`]+)` \\|").FindAllStringSubmatch(section, -1) {
		listed = append(listed, m[1])
	}
	for _, p := range packages {
		if !slices.Contains(listed, p) {
			t.Errorf("docs/contributing/layout.md does not list the package %s", p)
		}
	}
	for _, p := range listed {
		if !slices.Contains(packages, p) {
			t.Errorf("docs/contributing/layout.md lists %s, which is not a package", p)
		}
	}
}
