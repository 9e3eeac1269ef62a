// Command setup prepares the data directory of serve-bench.sh: a database
// (SQLite in the data directory, or the PostgreSQL database -database-url
// names) with one public project, `bench`, whose `latest` version is built
// and published as a successful Sphinx build would leave it — a 20 KB
// page, a 2 KB page, a 290 KB script (with the .gz beside it that nginx's
// gzip_static serves), a custom 404 page (404.html) — and one page
// redirect, /old.html → /index.html; and a second public project,
// `plain`, whose latest version has the same files but no 404 page. It
// prints shell assignments for the script: the published trees' folders
// (for nginx) and five free loopback ports: docsd's docs listener,
// nginx's, docsd's public listener, and the docs and public listeners of
// a second docsd (the "before" build the script may compare).
package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	"docsd/internal/artifacts"
	"docsd/store"
)

func main() {
	dataDir := flag.String("data-dir", "", "docsd data directory to create")
	dbURL := flag.String("database-url", "", "database (default: SQLite in the data directory)")
	flag.Parse()
	if *dataDir == "" {
		fmt.Fprintln(os.Stderr, "usage: setup -data-dir DIR [-database-url URL]")
		os.Exit(2)
	}
	if *dbURL == "" {
		*dbURL = filepath.Join(*dataDir, "docsd.db")
	}
	if err := setup(context.Background(), *dataDir, *dbURL); err != nil {
		fmt.Fprintln(os.Stderr, "setup:", err)
		os.Exit(1)
	}
}

func setup(ctx context.Context, dataDir, dbURL string) error {
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return err
	}
	s, err := store.Open(ctx, dbURL)
	if err != nil {
		return err
	}
	defer s.Close()
	u, err := s.CreateUser(ctx, "bench", "bench@example.com", false)
	if err != nil {
		return err
	}
	imp, err := s.ImportProject(ctx, store.ProjectImport{
		Name: "bench", Slug: "bench", Repo: "https://github.com/example/bench", RepoType: "git",
		Language: "en", ProgrammingLanguage: "words", MaintainerID: u.ID, IntegrationType: store.GitHubWebhook,
	})
	if err != nil {
		return err
	}
	if _, err := s.CreateRedirect(ctx, store.Redirect{ProjectID: imp.Project.ID, Type: "page",
		FromURL: "/old.html", ToURL: "/index.html", HTTPStatus: 302, Enabled: true}); err != nil {
		return err
	}
	src, err := os.MkdirTemp("", "docsd-bench-page-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(src)
	js := script()
	files := map[string][]byte{
		"index.html":        []byte(page(20000)),
		"small.html":        []byte(page(2000)),
		"_static/app.js":    js,
		"_static/app.js.gz": gzipped(js),
	}
	if err := writeFiles(src, files); err != nil {
		return err
	}
	arts, err := artifacts.NewLocal(filepath.Join(dataDir, "artifacts"))
	if err != nil {
		return err
	}
	// A project of its own, not a second version of bench: a missing page
	// of a version without a 404 page gets its project's default
	// version's 404 page, so only a project
	// with none anywhere gets docsd's own 404 page.
	plain, err := s.ImportProject(ctx, store.ProjectImport{
		Name: "plain", Slug: "plain", Repo: "https://github.com/example/plain", RepoType: "git",
		Language: "en", ProgrammingLanguage: "words", MaintainerID: u.ID, IntegrationType: store.GitHubWebhook,
	})
	if err != nil {
		return err
	}
	if err := publish(ctx, s, arts, "plain", plain.Latest, src); err != nil {
		return err
	}
	if err := writeFiles(src, map[string][]byte{"404.html": []byte(page(3000))}); err != nil {
		return err
	}
	if err := publish(ctx, s, arts, "bench", imp.Latest, src); err != nil {
		return err
	}
	tree, err := arts.HTMLDir("bench", store.Latest)
	if err != nil {
		return err
	}
	plainTree, err := arts.HTMLDir("plain", store.Latest)
	if err != nil {
		return err
	}
	ports, err := freePorts(5)
	if err != nil {
		return err
	}
	fmt.Printf("TREE=%s\nPLAIN_TREE=%s\nDOCSD_PORT=%d\nNGINX_PORT=%d\nAPI_PORT=%d\nBEFORE_PORT=%d\nBEFORE_API_PORT=%d\n",
		tree, plainTree, ports[0], ports[1], ports[2], ports[3], ports[4])
	return nil
}

// writeFiles writes files (name → content) under dir.
func writeFiles(dir string, files map[string][]byte) error {
	for name, b := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// publish publishes dir as the tree of v, a version of project, and marks
// v built, as a successful build does.
func publish(ctx context.Context, s *store.Store, arts *artifacts.Local, project string, v *store.Version, dir string) error {
	if err := arts.PublishHTML(ctx, project, v.Slug, dir); err != nil {
		return err
	}
	built := true
	_, err := s.UpdateVersion(ctx, v.ID, store.VersionUpdate{Built: &built})
	return err
}

// script is a minified-looking JavaScript file of about 290 KB, like the
// search index or theme bundle of a Sphinx site.
func script() []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < 290000; i++ {
		fmt.Fprintf(&b, "var Search%d={index:%d,terms:[\"docsd\",\"serve\",\"page%d\"],score:function(a,b){return a.length*%d-b.length}};\n", i, i, i, i%97)
	}
	return b.Bytes()
}

// gzipped is b compressed as `gzip -9` would, for nginx's gzip_static.
func gzipped(b []byte) []byte {
	var out bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&out, gzip.BestCompression)
	zw.Write(b)
	zw.Close()
	return out.Bytes()
}

// page is a documentation page of about size bytes, like one Sphinx
// writes.
func page(size int) string {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>bench — docsd</title>` +
		`<link rel="stylesheet" href="_static/pygments.css"><link rel="stylesheet" href="_static/theme.css">` +
		`<script src="_static/searchtools.js"></script></head><body><div class="document"><div class="body">`)
	for i := 1; b.Len() < size; i++ {
		fmt.Fprintf(&b, `<section id="s%d"><h2>Section %d<a class="headerlink" href="#s%d">¶</a></h2>`+
			`<p>docsd imports a project's repository, builds its documentation and serves the HTML. `+
			`This paragraph stands for the prose of a real page, section %d.</p>`+
			`<div class="highlight"><pre><span class="n">docsd</span> serve --addr 127.0.0.1:8000</pre></div></section>`, i, i, i, i)
	}
	b.WriteString(`</div></div></body></html>`)
	return b.String()
}

// freePorts returns n distinct free TCP ports on 127.0.0.1.
func freePorts(n int) ([]int, error) {
	var ports []int
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			ln.Close()
		}
	}()
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		lns = append(lns, ln)
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
