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
)

// TestServeBuildsImportedProject runs the real program: `docsd serve`
// with in-process workers imports a project from a git repository through
// the graph and, without anyone touching the database, ends with finished
// builds and HTML on disk; the project's generic webhook builds again.
func TestServeBuildsImportedProject(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("NO GIT BINARY: the build test needs git")
	}
	repoDir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = repoDir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	if err := os.MkdirAll(filepath.Join(repoDir, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repoDir, "docs", "index.md"), []byte("# Served\n\nBuilt by docsd.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", "-A")
	git("commit", "-q", "-m", "docs")
	git("tag", "1.0")

	data := t.TempDir()
	migrated(t, data)
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"user", "create", "alice", "--data-dir", data}, &out, &errOut); code != 0 {
		t.Fatalf("user create: %d %s", code, errOut.String())
	}
	token := strings.TrimSpace(out.String())

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	exited := make(chan int, 1)
	var serveLog bytes.Buffer
	go func() {
		exited <- run(ctx, []string{"serve", "--data-dir", data, "--addr", addr, "--docs-addr", freeAddr(t), "--allow-local-repos", "--build-workers", "2"}, io.Discard, &syncWriter{w: &serveLog})
	}()
	defer func() {
		cancel()
		select {
		case code := <-exited:
			if code != 0 {
				t.Errorf("serve exited with %d", code)
			}
		case <-time.After(2 * time.Minute):
			t.Error("serve did not stop")
		}
		if t.Failed() {
			t.Logf("serve log:\n%s", serveLog.String())
		}
	}()
	base := "http://" + addr
	waitFor(t, func() bool {
		resp, err := http.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil && resp.StatusCode == 200
	})

	gql := func(query string) map[string]any {
		t.Helper()
		body, _ := json.Marshal(map[string]any{"query": query})
		req, _ := http.NewRequest("POST", base+"/graphql", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Token "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var res struct {
			Data   map[string]any `json:"data"`
			Errors []any          `json:"errors"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&res); err != nil || len(res.Errors) > 0 {
			t.Fatalf("graphql %s: %v %v", query, err, res.Errors)
		}
		return res.Data
	}
	gql(`mutation { importProject(input: {name: "Demo", repository: {url: "file://` + repoDir + `", type: git}}) { project { slug } } }`)

	// latest, then stable (promoted to tag 1.0 by the first sync).
	finished := func(want int) []any {
		var nodes []any
		waitFor(t, func() bool {
			d := gql(`{ builds(filter: {projectSlug: "demo"}) { nodes { id success error state { code } version { slug } } } }`)
			nodes = d["builds"].(map[string]any)["nodes"].([]any)
			if len(nodes) < want {
				return false
			}
			for _, n := range nodes {
				if n.(map[string]any)["state"].(map[string]any)["code"] != "finished" {
					return false
				}
			}
			return true
		})
		for _, n := range nodes {
			if b := n.(map[string]any); b["success"] != true {
				t.Errorf("build %v of %v failed: %v", b["id"], b["version"], b["error"])
			}
		}
		return nodes
	}
	finished(2)
	for _, v := range []string{"latest", "stable"} {
		index, err := os.ReadFile(filepath.Join(data, "artifacts", "html", "demo", v, "index.html"))
		if err != nil || !strings.Contains(string(index), "Built by docsd.") {
			t.Errorf("%s/index.html: %v\n%s", v, err, index)
		}
	}
	checkSearch(t, base, data)

	// The import's integration is readable by the maintainer and works.
	d := gql(`{ project(slug: "demo") { integrations { type secret webhookUrl } } }`)
	ins := d["project"].(map[string]any)["integrations"].([]any)
	if len(ins) != 1 {
		t.Fatalf("integrations %v", ins)
	}
	in := ins[0].(map[string]any)
	if in["type"] != "api_webhook" || len(in["secret"].(string)) < 64 {
		t.Fatalf("integration %v", in)
	}
	resp, err := http.Post(in["webhookUrl"].(string), "application/json", strings.NewReader(fmt.Sprintf(`{"token": %q}`, in["secret"])))
	if err != nil {
		t.Fatal(err)
	}
	answer, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(answer) != `{"build_triggered":true,"project":"demo","versions":["latest"]}` {
		t.Errorf("webhook answer %d %s", resp.StatusCode, answer)
	}
	finished(3)
}

// waitFor polls cond until it holds; the deadline only ends a hung run, so
// it is generous for a busy machine.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatal("timed out")
}

// TestRelativeDataDir runs the whole pipeline with a relative --data-dir,
// the way the README's `go run ./cmd/docsd serve` does (./docsd-data):
// build commands run in the checkout, so relative paths must not leak
// into them.
func TestRelativeDataDir(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("NO GIT BINARY: the build test needs git")
	}
	repo := gitRepo(t, repoFiles("Relative"))
	t.Chdir(t.TempDir())
	token := createUser(t, "docsd-data", "alice")
	srv := startServe(t, "docsd-data")
	srv.token = token
	srv.importProject(t, "Relative", repo, "en")
	srv.waitBuilt(t, "relative")
	if status, _, body := fetch(t, srv.docs+"/docs/relative/en/latest/", ""); status != 200 || !strings.Contains(body, "Relative: index</h1>") {
		t.Errorf("docs: %d %.80q", status, body)
	}
}
