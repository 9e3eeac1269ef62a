package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"docsd/internal/artifacts/artifactstest"
)

// This file runs docsd as a user would: `docsd user create`, `docsd serve`
// on a loopback port, imports of real git repositories through the GraphQL
// API, and then every kind of docs URL fetched over HTTP, starting from the
// `urls.documentation` the API returns.
//
// Builds are real: the server's in-process workers clone each repository,
// build its Markdown with the built-in builder (or, for the downloads,
// a Sphinx project with Sphinx) and publish the result; the test only waits
// for the build of `latest` to finish.

// e2eServer is a running `docsd serve`.
type e2eServer struct {
	url     string   // http://127.0.0.1:port
	docs    string   // the docs listener, http://127.0.0.1:port (--docs-addr)
	dataDir string   // --data-dir
	flags   []string // the settings flags every command gets
	token   string   // API key of the user who imports the projects
	stderr  *bytes.Buffer
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startServe runs `docsd serve` with extra flags on dataDir until the test
// ends, and waits until it answers. Docs get a free port of their own
// (--docs-addr; the port after --addr's may be taken) unless extra names one
// or serves docs on subdomains of --addr's listener (--docs-domain).
func startServe(t *testing.T, dataDir string, extra ...string) *e2eServer {
	t.Helper()
	addr, docs := freeAddr(t), ""
	if i := slices.Index(extra, "--docs-addr"); i >= 0 && i+1 < len(extra) {
		docs = extra[i+1]
	} else if slices.Contains(extra, "--docs-domain") {
		docs = addr
	} else {
		docs = freeAddr(t)
		extra = append([]string{"--docs-addr", docs}, extra...)
	}
	return serveAt(t, dataDir, addr, docs, extra...)
}

// serveAt runs `docsd serve --addr addr` with extra flags on dataDir until
// the test ends, and waits until it answers; docs is the address its docs
// listener has (by extra or by default).
func serveAt(t *testing.T, dataDir, addr, docs string, extra ...string) *e2eServer {
	t.Helper()
	s := &e2eServer{url: "http://" + addr, docs: "http://" + docs, dataDir: dataDir, stderr: &bytes.Buffer{}}
	// The tests drive the APIs faster than a person would: no request
	// budgets unless extra sets them (TestServeThrottle).
	s.flags = append([]string{"--data-dir", dataDir, "--addr", addr, "--allow-local-repos", "--log-format", "json",
		"--throttle-user-rate", "0", "--graphql-anonymous-rate", "0"}, extra...)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() { done <- run(ctx, append([]string{"serve"}, s.flags...), io.Discard, s.stderr) }()
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("docsd serve exited with %d", code)
		}
	})
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get(s.url + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return s
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("docsd serve did not answer on %s: %v", addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// createUser runs `docsd user create` and returns the printed token.
func createUser(t *testing.T, dataDir, username string) string {
	t.Helper()
	migrated(t, dataDir)
	var out, errOut bytes.Buffer
	if code := run(t.Context(), []string{"user", "create", username, "--data-dir", dataDir}, &out, &errOut); code != 0 {
		t.Fatalf("docsd user create: exit %d: %s", code, errOut.String())
	}
	return strings.TrimSpace(out.String())
}

// gitRepo makes a git repository whose one commit holds files and returns
// its file:// URL.
func gitRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := artifactstest.Dir(t, files)
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"add", "."},
		{"-c", "user.name=docsd", "-c", "user.email=docsd@example.com", "commit", "-q", "-m", "docs"},
	} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return "file://" + dir
}

// graphql runs one GraphQL operation as the server's user and decodes its
// data into out; errors fail the test.
func (s *e2eServer) graphql(t *testing.T, query string, vars map[string]any, out any) {
	t.Helper()
	payload, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, _ := http.NewRequest(http.MethodPost, s.url+"/graphql", bytes.NewReader(payload))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Token "+s.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var result struct {
		Data   json.RawMessage `json:"data"`
		Errors []any           `json:"errors"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&result); err != nil {
		t.Fatalf("graphql: %v", err)
	}
	if len(result.Errors) > 0 {
		t.Fatalf("graphql %s: %v", query, result.Errors)
	}
	if out != nil {
		if err := json.Unmarshal(result.Data, out); err != nil {
			t.Fatalf("graphql data: %v", err)
		}
	}
}

// importProject imports a repository through the API and returns the
// project's urls.documentation.
func (s *e2eServer) importProject(t *testing.T, name, repo, lang string) string {
	t.Helper()
	var data struct {
		ImportProject struct {
			Project struct {
				Slug string
				Urls struct{ Documentation string }
			}
		}
	}
	s.graphql(t, `mutation($in: ImportProjectInput!) { importProject(input: $in) { project { slug urls { documentation } } } }`,
		map[string]any{"in": map[string]any{"name": name, "language": lang, "repository": map[string]any{"url": repo, "type": "git"}}}, &data)
	return data.ImportProject.Project.Urls.Documentation
}

// waitBuilt waits until the first build of the project's `latest` has
// finished and fails the test unless it succeeded. It waits for the
// condition, not for a time: the deadline is only there to end a hung run,
// so it is generous for a busy machine. A failure shows the build's
// commands and their output.
func (s *e2eServer) waitBuilt(t *testing.T, slug string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Minute)
	for {
		var data struct {
			Project struct {
				Version struct {
					Built     bool
					LastBuild struct {
						State    struct{ Code string }
						Success  *bool
						Error    *string
						Commands []struct {
							Command  string
							Output   string
							ExitCode *int
						}
					}
				}
			}
		}
		s.graphql(t, `query($p: String!) { project(slug: $p) { version(slug: "latest") { built
			lastBuild { state { code } success error commands { command output exitCode } } } } }`,
			map[string]any{"p": slug}, &data)
		b := data.Project.Version.LastBuild
		// One query reads the version and its last build separately: under
		// load the build may finish between the two reads, showing a
		// finished, successful build of a version not yet built. That is a
		// moment to wait through, not a failure.
		if b.State.Code == "finished" && (b.Success == nil || *b.Success) && !data.Project.Version.Built {
			b.State.Code = "finishing"
		}
		if b.State.Code == "finished" {
			if b.Success == nil || !*b.Success {
				var log strings.Builder
				for _, c := range b.Commands {
					fmt.Fprintf(&log, "$ %s (exit %v)\n%s\n", c.Command, derefInt(c.ExitCode), c.Output)
				}
				t.Fatalf("build of %s/latest failed (success %v, built %v): %v\ncommands:\n%s\nserver log:\n%s",
					slug, b.Success != nil && *b.Success, data.Project.Version.Built, deref(b.Error), log.String(), s.stderr.String())
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("build of %s/latest still %s after 10 minutes", slug, b.State.Code)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func derefInt(n *int) any {
	if n == nil {
		return "<nil>"
	}
	return *n
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// noFollow is an HTTP client that shows redirects instead of following them.
var noFollow = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// fetch GETs url (with host as the Host header when not "") and returns the
// status, the Location and the body.
func fetch(t *testing.T, url, host string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	resp, err := noFollow.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Location"), string(b)
}

// repoFiles is a Markdown repository for the built-in builder, whose pages
// come out as index.html, install/index.html (dirhtml style), guide.html
// and examples/intro.html.
func repoFiles(title string) map[string]string {
	return map[string]string{
		"docs/index.md":          "# " + title + ": index\n\nSee [the guide](guide.md).\n",
		"docs/install/index.md":  "# " + title + ": install\n",
		"docs/guide.md":          "# " + title + ": guide\n",
		"docs/examples/intro.md": "# " + title + ": intro\n",
	}
}

// sphinxFiles is a Sphinx repository whose configuration asks for the
// htmlzip and epub downloads.
func sphinxFiles(title string) map[string]string {
	return map[string]string{
		".readthedocs.yaml": "version: 2\nformats: [htmlzip, epub]\nsphinx:\n  configuration: docs/conf.py\n",
		"docs/conf.py":      "project = " + fmt.Sprintf("%q", title) + "\nmaster_doc = 'index'\n",
		"docs/index.rst":    title + "\n" + strings.Repeat("=", len(title)) + "\n\nThe manual.\n",
	}
}

func TestDocsEndToEnd(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dataDir := t.TempDir()
	token := createUser(t, dataDir, "alice")
	srv := startServe(t, dataDir)
	srv.token = token

	repos := map[string]string{}
	docs := map[string]string{}
	for _, p := range []struct{ name, lang, title string }{
		{"demo", "en", "Demo"}, {"demo-es", "es", "Demo en español"}, {"lib", "en", "Library"},
	} {
		repos[p.name] = gitRepo(t, repoFiles(p.title))
		docs[p.name] = srv.importProject(t, p.name, repos[p.name], p.lang)
	}
	for name := range repos {
		srv.waitBuilt(t, name)
	}
	srv.graphql(t, `mutation { setTranslationOf(input: {slug: "demo-es", main: "demo"}) { project { slug } } }`, nil, nil)
	srv.graphql(t, `mutation { createSubproject(input: {project: "demo", child: "lib", alias: "library"}) { subproject { alias } } }`, nil, nil)

	// urls.documentation as the API returns it now, for each project.
	var data struct {
		Demo, Es, Lib struct {
			Urls struct{ Documentation string }
		}
	}
	srv.graphql(t, `{
		demo: project(slug: "demo") { urls { documentation } }
		es: project(slug: "demo-es") { urls { documentation } }
		lib: project(slug: "lib") { urls { documentation } }
	}`, nil, &data)
	for _, tc := range []struct{ name, url, wantURL, wantBody string }{
		{"project", data.Demo.Urls.Documentation, srv.docs + "/docs/demo/en/latest/", "Demo: index</h1>"},
		{"translation", data.Es.Urls.Documentation, srv.docs + "/docs/demo/es/latest/", "Demo en español: index</h1>"},
		{"subproject", data.Lib.Urls.Documentation, srv.docs + "/docs/demo/projects/library/en/latest/", "Library: index</h1>"},
		{"dirhtml page", data.Demo.Urls.Documentation + "install/", "", "Demo: install</h1>"},
		{"html page", data.Lib.Urls.Documentation + "guide.html", "", "Library: guide</h1>"},
	} {
		t.Run("Open/"+tc.name, func(t *testing.T) {
			if tc.wantURL != "" && tc.url != tc.wantURL {
				t.Errorf("urls.documentation: got %q, want %q", tc.url, tc.wantURL)
			}
			status, _, got := fetch(t, tc.url, "")
			if status != 200 || !strings.Contains(got, tc.wantBody) {
				t.Errorf("GET %s: got %d %.80q, want 200 with %q", tc.url, status, got, tc.wantBody)
			}
		})
	}
	if docs["demo"] != srv.docs+"/docs/demo/en/latest/" {
		t.Errorf("importProject urls.documentation: got %q", docs["demo"])
	}

	t.Run("ProjectRootRedirects", func(t *testing.T) {
		status, loc, _ := fetch(t, srv.docs+"/docs/demo/", "")
		if status != 302 || loc != srv.docs+"/docs/demo/en/latest/" {
			t.Errorf("got %d %q, want 302 to the default version", status, loc)
		}
	})

	t.Run("Downloads", func(t *testing.T) {
		if err := exec.Command("/usr/bin/python3", "-m", "sphinx", "--version").Run(); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("Sphinx is not installed (python3 -m sphinx): %v", err)
			}
			t.Skip("SPHINX NOT INSTALLED: the htmlzip/epub downloads need python3-sphinx")
		}
		srv.importProject(t, "Manual", gitRepo(t, sphinxFiles("Manual")), "en")
		srv.waitBuilt(t, "manual")
		var dl struct {
			Project struct {
				Version struct {
					Downloads struct{ Htmlzip, Epub, PDF *string }
				}
			}
		}
		srv.graphql(t, `{ project(slug: "manual") { version(slug: "latest") { downloads { htmlzip epub pdf } } } }`, nil, &dl)
		d := dl.Project.Version.Downloads
		for _, tc := range []struct {
			got                      *string
			want, magic, contentType string
		}{
			{d.Htmlzip, srv.docs + "/docs/manual/_/downloads/en/latest/htmlzip/", "PK", "application/zip"},
			{d.Epub, srv.docs + "/docs/manual/_/downloads/en/latest/epub/", "PK", "application/epub+zip"},
		} {
			if tc.got == nil || *tc.got != tc.want {
				t.Errorf("download URL: got %v, want %q", deref(tc.got), tc.want)
				continue
			}
			resp, err := http.Get(*tc.got)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || !strings.HasPrefix(string(body), tc.magic) || resp.Header.Get("Content-Type") != tc.contentType {
				t.Errorf("GET %s: %d %q %.4q", *tc.got, resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
		}
		if d.PDF != nil {
			t.Errorf("a PDF without LaTeX: %q", *d.PDF)
		}
	})

	t.Run("Redirects", func(t *testing.T) {
		root := srv.docs + "/docs/demo/en/latest/"
		for _, tc := range []struct {
			typ, from, to string
			request, want string
		}{
			{"prefix", "/old/", "", root + "old/guide.html", root + "guide.html"},
			{"page", "/example.html", "/examples/intro.html", root + "example.html", root + "examples/intro.html"},
			{"exact", "/en/latest/was/$rest", "/en/latest/", root + "was/install/", root + "install/"},
			{"sphinx_html", "", "", root + "examples/intro/", root + "examples/intro.html"},
			{"sphinx_htmldir", "", "", root + "install.html", root + "install/"},
		} {
			t.Run(tc.typ, func(t *testing.T) {
				var created struct {
					CreateRedirect struct{ Redirect struct{ ID string } }
				}
				srv.graphql(t, `mutation($in: CreateRedirectInput!) { createRedirect(input: $in) { redirect { id } } }`,
					map[string]any{"in": map[string]any{"project": "demo", "type": tc.typ, "fromUrl": tc.from, "toUrl": tc.to}}, &created)
				defer srv.graphql(t, `mutation($id: ID!) { deleteRedirect(input: {project: "demo", id: $id}) { deletedId } }`,
					map[string]any{"id": created.CreateRedirect.Redirect.ID}, nil)
				status, loc, _ := fetch(t, tc.request, "")
				if status != 302 || loc != tc.want {
					t.Fatalf("GET %s: got %d %q, want 302 %q", tc.request, status, loc, tc.want)
				}
				if status, _, _ := fetch(t, loc, ""); status != 200 {
					t.Errorf("GET %s (the target): got %d, want 200", loc, status)
				}
			})
		}
	})

	t.Run("SubdomainMode", func(t *testing.T) {
		sub := startServe(t, dataDir, "--docs-domain", "docs.test", "--docs-scheme", "http", "--build-workers", "0")
		status, _, got := fetch(t, sub.url+"/en/latest/install/", "demo.docs.test")
		if status != 200 || !strings.Contains(got, "Demo: install</h1>") {
			t.Errorf("demo.docs.test: got %d %.80q", status, got)
		}
		status, _, got = fetch(t, sub.url+"/projects/library/en/latest/", "demo.docs.test")
		if status != 200 || !strings.Contains(got, "Library: index</h1>") {
			t.Errorf("subproject on demo.docs.test: got %d %.80q", status, got)
		}
		status, loc, _ := fetch(t, sub.url+"/docs/demo/en/latest/", "")
		if status != 301 || loc != "http://demo.docs.test/en/latest/" {
			t.Errorf("path URL in subdomain mode: got %d %q, want 301 to the subdomain", status, loc)
		}
		if status, _, _ := fetch(t, sub.url+"/healthz", ""); status != 200 {
			t.Errorf("the API host still answers: got %d", status)
		}
	})
}
