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
	"path/filepath"
	"strings"
	"testing"
	"time"

	"docsd/artifacts"
	"docsd/artifacts/artifactstest"
	"docsd/store"
)

// This file runs docsd as a user would: `docsd user create`, `docsd serve`
// on a loopback port, imports of real git repositories through the GraphQL
// API, and then every kind of docs URL fetched over HTTP, starting from the
// `urls.documentation` the API returns.
//
// Builds: the build pipeline is not part of this branch yet, so the servers
// run with --build-workers 0 and a stand-in (publishBuild) does what a
// successful build does: it clones the repository, publishes its prebuilt
// html/ folder (and a PDF) into the artifact storage and marks the version
// built. An end-to-end test of the real pipeline replaces e2eServer.build
// with "trigger a build through the API and wait for it to finish"; the
// repositories also carry docs/index.md for the built-in builder.

// e2eServer is a running `docsd serve`.
type e2eServer struct {
	url     string   // http://127.0.0.1:port
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
// ends, and waits until it answers.
func startServe(t *testing.T, dataDir string, extra ...string) *e2eServer {
	t.Helper()
	addr := freeAddr(t)
	s := &e2eServer{url: "http://" + addr, dataDir: dataDir, stderr: &bytes.Buffer{}}
	s.flags = append([]string{"--data-dir", dataDir, "--addr", addr, "--build-workers", "0", "--allow-local-repos", "--log-format", "json"}, extra...)
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
			Slug string
			Urls struct{ Documentation string }
		}
	}
	s.graphql(t, `mutation($in: ImportProjectInput!) { importProject(input: $in) { slug urls { documentation } } }`,
		map[string]any{"in": map[string]any{"name": name, "language": lang, "repository": map[string]any{"url": repo, "type": "git"}}}, &data)
	return data.ImportProject.Urls.Documentation
}

// build is the stand-in for a successful build of a version (see the top
// of this file): clone, publish html/ and the PDF pdf/doc.pdf when the
// repository has one, mark the version built.
func (s *e2eServer) build(t *testing.T, slug, version, repo string) {
	t.Helper()
	ctx := t.Context()
	checkout := filepath.Join(t.TempDir(), "checkout")
	if out, err := exec.Command("git", "clone", "-q", "--depth", "1", repo, checkout).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	arts, err := artifacts.NewLocal(filepath.Join(s.dataDir, "artifacts"))
	if err != nil {
		t.Fatal(err)
	}
	if err := arts.PublishHTML(ctx, slug, version, filepath.Join(checkout, "html")); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, filepath.Join(s.dataDir, "docsd.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	p, err := st.FindProjectBySlug(ctx, slug)
	if err != nil {
		t.Fatal(err)
	}
	v, err := st.FindVersionBySlug(ctx, p.ID, version)
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	upd := store.VersionUpdate{Built: &yes}
	if pdf := filepath.Join(checkout, "pdf", "doc.pdf"); fileExists(pdf) {
		if err := arts.PublishDownload(ctx, slug, version, "pdf", pdf); err != nil {
			t.Fatal(err)
		}
		upd.HasPDF = &yes
	}
	if _, err := st.UpdateVersion(ctx, v.ID, upd); err != nil {
		t.Fatal(err)
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
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

// repoFiles is a repository with prebuilt HTML (for the stand-in build) and
// its Markdown source (for the real one).
func repoFiles(title string) map[string]string {
	page := func(name string) string {
		return fmt.Sprintf("<!DOCTYPE html><title>%s</title><h1>%s: %s</h1>", title, title, name)
	}
	return map[string]string{
		"docs/index.md":            "# " + title + "\n",
		"html/index.html":          page("index"),
		"html/install/index.html":  page("install"),
		"html/guide.html":          page("guide"),
		"html/examples/intro.html": page("intro"),
		"pdf/doc.pdf":              "%PDF-1.4 " + title,
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
		srv.build(t, p.name, "latest", repos[p.name])
	}
	srv.graphql(t, `mutation { setTranslationOf(slug: "demo-es", main: "demo") { slug } }`, nil, nil)
	srv.graphql(t, `mutation { createSubproject(project: "demo", input: {child: "lib", alias: "library"}) { alias } }`, nil, nil)

	// urls.documentation as the API returns it now, for each project.
	var data struct {
		Demo, Es, Lib struct {
			Urls    struct{ Documentation string }
			Version struct {
				Downloads struct{ PDF string }
			}
		}
	}
	srv.graphql(t, `{
		demo: project(slug: "demo") { urls { documentation } version(slug: "latest") { downloads { pdf } } }
		es: project(slug: "demo-es") { urls { documentation } version(slug: "latest") { downloads { pdf } } }
		lib: project(slug: "lib") { urls { documentation } version(slug: "latest") { downloads { pdf } } }
	}`, nil, &data)
	for _, tc := range []struct{ name, url, wantURL, wantBody string }{
		{"project", data.Demo.Urls.Documentation, srv.url + "/docs/demo/en/latest/", "<h1>Demo: index</h1>"},
		{"translation", data.Es.Urls.Documentation, srv.url + "/docs/demo/es/latest/", "<h1>Demo en español: index</h1>"},
		{"subproject", data.Lib.Urls.Documentation, srv.url + "/docs/demo/projects/library/en/latest/", "<h1>Library: index</h1>"},
		{"dirhtml page", data.Demo.Urls.Documentation + "install/", "", "<h1>Demo: install</h1>"},
		{"html page", data.Lib.Urls.Documentation + "guide.html", "", "<h1>Library: guide</h1>"},
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
	if docs["demo"] != srv.url+"/docs/demo/en/latest/" {
		t.Errorf("importProject urls.documentation: got %q", docs["demo"])
	}

	t.Run("ProjectRootRedirects", func(t *testing.T) {
		status, loc, _ := fetch(t, srv.url+"/docs/demo/", "")
		if status != 302 || loc != srv.url+"/docs/demo/en/latest/" {
			t.Errorf("got %d %q, want 302 to the default version", status, loc)
		}
	})

	t.Run("Downloads", func(t *testing.T) {
		for _, tc := range []struct{ url, want, body string }{
			{data.Demo.Version.Downloads.PDF, srv.url + "/docs/demo/_/downloads/en/latest/pdf/", "%PDF-1.4 Demo"},
			{data.Es.Version.Downloads.PDF, srv.url + "/docs/demo/_/downloads/es/latest/pdf/", "%PDF-1.4 Demo en español"},
			{data.Lib.Version.Downloads.PDF, srv.url + "/docs/demo/_/downloads/library/en/latest/pdf/", "%PDF-1.4 Library"},
		} {
			if tc.url != tc.want {
				t.Errorf("downloads.pdf: got %q, want %q", tc.url, tc.want)
			}
			status, _, got := fetch(t, tc.url, "")
			if status != 200 || got != tc.body {
				t.Errorf("GET %s: got %d %q, want 200 %q", tc.url, status, got, tc.body)
			}
		}
	})

	t.Run("Redirects", func(t *testing.T) {
		root := srv.url + "/docs/demo/en/latest/"
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
				var created struct{ CreateRedirect struct{ ID int } }
				srv.graphql(t, `mutation($in: RedirectInput!) { createRedirect(project: "demo", input: $in) { id } }`,
					map[string]any{"in": map[string]any{"type": tc.typ, "fromUrl": tc.from, "toUrl": tc.to}}, &created)
				defer srv.graphql(t, fmt.Sprintf(`mutation { deleteRedirect(project: "demo", id: %d) }`, created.CreateRedirect.ID), nil, nil)
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
		sub := startServe(t, dataDir, "--docs-domain", "docs.test", "--docs-scheme", "http")
		status, _, got := fetch(t, sub.url+"/en/latest/install/", "demo.docs.test")
		if status != 200 || !strings.Contains(got, "<h1>Demo: install</h1>") {
			t.Errorf("demo.docs.test: got %d %.80q", status, got)
		}
		status, _, got = fetch(t, sub.url+"/projects/library/en/latest/", "demo.docs.test")
		if status != 200 || !strings.Contains(got, "<h1>Library: index</h1>") {
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
