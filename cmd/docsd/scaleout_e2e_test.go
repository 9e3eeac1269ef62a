package main

import (
	"bytes"
	"context"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"docsd/internal/artifacts/artifactstest"
	"docsd/internal/notify"
	"docsd/internal/storetest"
	"docsd/store"
)

// TestScaleOutEndToEnd runs docsd as the README's "Scaling out" section
// does: two `docsd serve --build-workers 0` nodes and one `docsd worker`,
// each with its own empty --data-dir, on one PostgreSQL database and one S3
// bucket (a real S3 server). A project imported through node A is built by
// the worker and served identically by A and B (pages, redirects, upload
// downloads); a privacy change made through A applies on B; a rebuild
// replaces the docs on B, whose cache of the old tree is cleaned on the
// docs_changed signal.
func TestScaleOutEndToEnd(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	bucket := artifactstest.StartS3(t)
	pg := storetest.DatabaseURL(t, store.Postgres)
	t.Setenv("AWS_ACCESS_KEY_ID", bucket.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", bucket.SecretKey)
	// The load balancer's two hostnames: the API and dashboard, and the docs
	// (each node's --docs-addr listener).
	const public, docsOrigin = "http://docs.example.test", "http://read.example.test"
	shared := []string{"--database-url", pg, "--artifacts-url", bucket.URL("docsd"), "--s3-endpoint", bucket.Endpoint,
		"--public-url", public, "--docs-url", docsOrigin, "--throttle-user-rate", "0"}

	if code, _, errOut := docsd(t, append([]string{"migrate"}, shared...)...); code != 0 {
		t.Fatalf("docsd migrate: exit %d: %s", code, errOut)
	}
	code, out, errOut := docsd(t, append([]string{"user", "create", "alice"}, shared...)...)
	if code != 0 {
		t.Fatalf("docsd user create: exit %d: %s", code, errOut)
	}
	token := strings.TrimSpace(out)

	dirA, dirB := t.TempDir(), t.TempDir()
	a := startServe(t, dirA, append([]string{"--build-workers", "0"}, shared...)...)
	b := startServe(t, dirB, append([]string{"--build-workers", "0"}, shared...)...)
	a.token, b.token = token, token
	worker := startWorker(t, t.TempDir(), shared...)

	repo := gitRepo(t, repoFiles("Scale"))
	docsURL := a.importProject(t, "scale", repo, "en")
	if want := docsOrigin + "/docs/scale/en/latest/"; docsURL != want {
		t.Fatalf("urls.documentation = %q, want %q", docsURL, want)
	}
	a.waitBuilt(t, "scale")
	if keys := bucket.Keys(t, "docsd/html/scale/latest/"); len(keys) == 0 {
		t.Fatal("no tree of scale/latest in the bucket")
	}
	for _, d := range []string{dirA, dirB} {
		if _, err := os.Stat(filepath.Join(d, "artifacts")); !os.IsNotExist(err) {
			t.Errorf("%s/artifacts: %v; want nothing on a serve node's disk but its cache", d, err)
		}
	}

	// sameOnBoth waits until A and B give the same answer (docs from their
	// docs listeners) and returns it: a change made through A reaches B's
	// docs cache by docsd_served_changed, within milliseconds; the deadline
	// only stops a hung run.
	sameOnBoth := func(t *testing.T, path string) (int, string, string) {
		t.Helper()
		baseA, baseB := a.url, b.url
		if strings.HasPrefix(path, "/docs/") {
			baseA, baseB = a.docs, b.docs
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			codeA, locA, bodyA := fetch(t, baseA+path, "")
			codeB, locB, bodyB := fetch(t, baseB+path, "")
			if codeA == codeB && locA == locB && bodyA == bodyB {
				return codeA, locA, bodyA
			}
			if time.Now().After(deadline) {
				t.Errorf("GET %s: A %d %q %.80q, B %d %q %.80q; want the same answer", path, codeA, locA, bodyA, codeB, locB, bodyB)
				return codeA, locA, bodyA
			}
			time.Sleep(20 * time.Millisecond)
		}
	}

	t.Run("Docs", func(t *testing.T) {
		for _, tc := range []struct {
			path, want string
			status     int
		}{
			{"/docs/scale/en/latest/", "Scale: index</h1>", 200},
			{"/docs/scale/en/latest/guide.html", "Scale: guide</h1>", 200},
			{"/docs/scale/en/latest/install/", "Scale: install</h1>", 200},
			{"/docs/scale/en/latest/examples/intro.html", "Scale: intro</h1>", 200},
			{"/docs/scale/en/latest/missing.html", "", 404},
		} {
			status, _, body := sameOnBoth(t, tc.path)
			if status != tc.status || !strings.Contains(body, tc.want) {
				t.Errorf("GET %s: %d %.80q, want %d with %q", tc.path, status, body, tc.status, tc.want)
			}
		}
		if status, loc, _ := sameOnBoth(t, "/docs/scale/en/latest/install"); status != 302 || loc != docsOrigin+"/docs/scale/en/latest/install/" {
			t.Errorf("directory redirect: %d %q", status, loc)
		}
	})

	t.Run("SearchIndexedFromTheBucket", func(t *testing.T) {
		// The worker indexed the published tree, read back from S3.
		status, _, body := sameOnBoth(t, "/api/v3/search/?q="+url.QueryEscape("project:scale/latest guide"))
		if status != 200 || !strings.Contains(body, `"title":"Scale: guide","path":"/docs/scale/en/latest/guide.html"`) {
			t.Errorf("search: %d %s", status, body)
		}
	})

	t.Run("Redirects", func(t *testing.T) {
		a.graphql(t, `mutation { createRedirect(input: {project: "scale", type: page, fromUrl: "/example.html", toUrl: "/examples/intro.html"}) { redirect { id } } }`, nil, nil)
		status, loc, _ := sameOnBoth(t, "/docs/scale/en/latest/example.html")
		if want := docsOrigin + "/docs/scale/en/latest/examples/intro.html"; status != 302 || loc != want {
			t.Errorf("page redirect: %d %q, want 302 %q", status, loc, want)
		}
	})

	t.Run("UploadAndDownloads", func(t *testing.T) {
		c := &uploadClient{api: a.url, token: token}
		var up uploadResult
		code, body := c.call(t, "/api/v3/upload/initiate/", map[string]any{
			"project": "scale", "version": map[string]any{"name": "prebuilt", "type": "branch", "commit": "9f2c0e1"}}, &up)
		if code != 201 {
			t.Fatalf("initiate: %d %s", code, body)
		}
		if !strings.HasPrefix(up.UploadURL.URL, bucket.Endpoint) || up.UploadURL.Fields["policy"] == "" ||
			up.UploadURL.Fields["x-amz-signature"] == "" || up.UploadURL.Fields["token"] != "" {
			t.Fatalf("initiate answer is not an S3 presigned POST: %s", body)
		}
		archive := zipOf(t, map[string]string{"html/index.html": "<html><body>Prebuilt docs</body></html>", "pdf/scale.pdf": "%PDF-1.4 fake"})
		if code := c.storagePost(t, up, archive); code != 204 {
			t.Fatalf("storage POST to S3: %d", code)
		}
		if code, body := c.call(t, "/api/v3/upload/complete/", map[string]any{"build": up.Build.ID, "status": "success"}, nil); code != 202 {
			t.Fatalf("complete: %d %s", code, body)
		}
		if got := waitUploadBuild(t, c, "scale", up.Build.ID); got["success"] != true {
			t.Fatalf("upload build: %v\nworker log:\n%s", got, worker.String())
		}
		if status, _, body := sameOnBoth(t, "/docs/scale/en/prebuilt/"); status != 200 || !strings.Contains(body, "Prebuilt docs") {
			t.Errorf("uploaded docs: %d %.80q", status, body)
		}
		if status, _, body := sameOnBoth(t, "/docs/scale/_/downloads/en/prebuilt/pdf/"); status != 200 || body != "%PDF-1.4 fake" {
			t.Errorf("pdf download: %d %.80q", status, body)
		}
		if keys := bucket.Keys(t, "docsd/uploads/"); len(keys) != 0 {
			t.Errorf("archives left in the bucket after processing: %v", keys)
		}
	})

	t.Run("RebuildReplacesDocsOnB", func(t *testing.T) {
		cached := filepath.Join(dirB, "artifacts-cache", "scale", "latest")
		before, _ := os.ReadDir(cached)
		if len(before) != 1 {
			t.Fatalf("B's cache of scale/latest: %v, want one tree", before)
		}
		dir := strings.TrimPrefix(repo, "file://")
		if err := os.WriteFile(filepath.Join(dir, "docs", "guide.md"), []byte("# Scale: guide, second edition\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"add", "."}, {"-c", "user.name=docsd", "-c", "user.email=docsd@example.com", "commit", "-q", "-m", "v2"}} {
			if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v\n%s", args, err, out)
			}
		}
		a.graphql(t, `mutation { triggerBuild(input: {project: "scale", version: "latest"}) { build { id } } }`, nil, nil)
		a.waitBuilt(t, "scale")
		if status, _, body := sameOnBoth(t, "/docs/scale/en/latest/guide.html"); status != 200 || !strings.Contains(body, "second edition") {
			t.Errorf("after the rebuild: %d %.80q", status, body)
		}
		// The docs_changed signal (LISTEN/NOTIFY) makes B drop the old tree
		// from its cache.
		deadline := time.Now().Add(30 * time.Second)
		for {
			if _, err := os.Stat(filepath.Join(cached, before[0].Name())); os.IsNotExist(err) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("B still caches the replaced tree %s", before[0].Name())
			}
			time.Sleep(20 * time.Millisecond)
		}
	})

	t.Run("PrivacyThroughAAppliesOnB", func(t *testing.T) {
		if status, _, _ := fetch(t, b.docs+"/docs/scale/en/latest/", ""); status != 200 {
			t.Fatalf("public docs on B: %d", status)
		}
		a.graphql(t, `mutation { setProjectPrivacy(input: {slug: "scale", privacyLevel: private}) { project { slug } } }`, nil, nil)
		// B caches visibility and forgets it when A's commit is signalled
		// (LISTEN/NOTIFY, meant to take well under 2 s); the
		// deadline only stops a hung run.
		deadline := time.Now().Add(30 * time.Second)
		for {
			status, _, _ := fetch(t, b.docs+"/docs/scale/en/latest/", "")
			if status != 200 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("B still serves the now private docs anonymously")
			}
			time.Sleep(20 * time.Millisecond)
		}
		sameOnBoth(t, "/docs/scale/en/latest/")
	})

	if status, _, body := fetch(t, b.url+"/readyz", ""); status != 200 || !strings.Contains(body, `"storage":"ok"`) {
		t.Errorf("B /readyz: %d %s", status, body)
	}
}

// startWorker runs `docsd worker` with flags on dataDir until the test ends
// and returns its log.
func startWorker(t *testing.T, dataDir string, flags ...string) *bytes.Buffer {
	t.Helper()
	var log bytes.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	args := append([]string{"worker", "--data-dir", dataDir, "--allow-local-repos", "--log-format", "json"}, flags...)
	go func() { done <- run(ctx, args, io.Discard, &log) }()
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("docsd worker exited with %d", code)
		}
	})
	return &log
}

// TestReadyzChecksTheBucket: with artifacts on S3, /readyz is 200 only
// while the bucket answers.
func TestReadyzChecksTheBucket(t *testing.T) {
	bucket := artifactstest.StartS3(t)
	t.Setenv("AWS_ACCESS_KEY_ID", bucket.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", bucket.SecretKey)
	for _, tc := range []struct {
		name, url, want string
		status          int
	}{
		{"bucket", bucket.URL("docsd"), `"storage":"ok"`, 200},
		{"missing bucket", "s3://no-such-bucket/docsd", `"storage":"unavailable"`, 503},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, srv := testApp(t, storetest.Open(t, store.SQLite), "--artifacts-url", tc.url, "--s3-endpoint", bucket.Endpoint)
			if resp, body := get(t, srv.URL+"/readyz", ""); resp.StatusCode != tc.status || !strings.Contains(body, tc.want) {
				t.Errorf("/readyz: %d %s, want %d with %s", resp.StatusCode, body, tc.status, tc.want)
			}
		})
	}
}

// TestTriggerOnOneNodeSignalsTheOthers: on PostgreSQL, a build queued
// through node A (an import) reaches the docsd_build_queued subscribers of
// another node at once, which wake their workers on it, rather than at
// their next poll.
func TestTriggerOnOneNodeSignalsTheOthers(t *testing.T) {
	url := storetest.DatabaseURL(t, store.Postgres)
	if code, _, errOut := docsd(t, "migrate", "--database-url", url); code != 0 {
		t.Fatalf("docsd migrate: exit %d: %s", code, errOut)
	}
	code, out, errOut := docsd(t, "user", "create", "alice", "--database-url", url)
	if code != 0 {
		t.Fatalf("docsd user create: exit %d: %s", code, errOut)
	}
	open := func() *store.Store {
		s, err := store.Open(t.Context(), url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	_, a := testApp(t, open(), "--database-url", url, "--allow-local-repos", "--build-workers", "0")
	other, _ := testApp(t, open(), "--database-url", url)
	woken := make(chan struct{}, 8)
	if err := other.notifier.Subscribe(notify.BuildQueued, func(string) { woken <- struct{}{} }); err != nil {
		t.Fatal(err)
	}
	srv := &e2eServer{url: a.URL, token: strings.TrimSpace(out)}
	srv.importProject(t, "demo", gitRepo(t, repoFiles("Demo")), "en")
	select {
	case <-woken:
	case <-time.After(30 * time.Second): // a deadline for a hung run, not a measure
		t.Fatal("the other node got no docsd_build_queued signal")
	}
}
