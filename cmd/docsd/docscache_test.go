package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"docsd/internal/artifacts/artifactstest"
	"docsd/internal/storetest"
	"docsd/store"
)

// docsNode is one docsd node of a test: its store, app, and the URLs of
// its public and docs listeners.
type docsNode struct {
	s    *store.Store
	a    *app
	url  string
	docs string
}

// openNode starts a node on the database at dbURL, with artifacts under
// dataDir and the extra flags given.
func openNode(t *testing.T, dbURL, dataDir string, extra ...string) *docsNode {
	t.Helper()
	s, err := store.Open(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	a, srv := testApp(t, s, append([]string{"--database-url", dbURL, "--data-dir", dataDir, "--build-workers", "0"}, extra...)...)
	return &docsNode{s: s, a: a, url: srv.URL, docs: testDocs(t, a).URL}
}

// publishDemo imports project demo for a new user and publishes its
// latest version on node n; it returns the user's API key.
func publishDemo(t *testing.T, n *docsNode) string {
	t.Helper()
	u, key := storetest.MustUser(t, n.s, "alice")
	p := storetest.MustImport(t, n.s, u, "demo", "https://github.com/example/demo").Project
	v, err := n.s.FindVersionBySlug(t.Context(), p.ID, store.Latest)
	if err != nil {
		v = storetest.MustVersion(t, n.s, p.ID, store.Latest)
	}
	dir := artifactstest.Dir(t, map[string]string{"index.html": "<p>demo</p>"})
	if err := n.a.artifacts.PublishHTML(t.Context(), "demo", store.Latest, dir); err != nil {
		t.Fatal(err)
	}
	built := true
	if _, err := n.s.UpdateVersion(t.Context(), v.ID, store.VersionUpdate{Built: &built}); err != nil {
		t.Fatal(err)
	}
	return key
}

func patch(t *testing.T, url, key, body string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPatch, url, strings.NewReader(body))
	req.Header.Set("Authorization", "Token "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("PATCH %s: status %d, want 204", url, resp.StatusCode)
	}
}

// privacyChanges are the API writes after which anonymous readers of
// demo's latest pages must get 404.
var privacyChanges = []struct{ name, path, body string }{
	{"Project", "/api/v3/projects/demo/", `{"privacy_level": "private"}`},
	{"Version", "/api/v3/projects/demo/versions/latest/", `{"privacy_level": "private"}`},
}

const demoPage = "/docs/demo/en/latest/index.html"

// TestPrivacyAppliesAtOnce: the docs host caches what it looks up, yet a
// PATCH to private is followed by a 404 on the very next request to the
// node that made it, on SQLite and PostgreSQL.
func TestPrivacyAppliesAtOnce(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		for _, tc := range privacyChanges {
			t.Run(tc.name, func(t *testing.T) {
				n := openNode(t, storetest.DatabaseURL(t, d), t.TempDir())
				key := publishDemo(t, n)
				for range 2 { // the second answer comes from the cache
					if resp, _ := get(t, n.docs+demoPage, ""); resp.StatusCode != http.StatusOK {
						t.Fatalf("before: status %d, want 200", resp.StatusCode)
					}
				}
				patch(t, n.url+tc.path, key, tc.body)
				if resp, _ := get(t, n.docs+demoPage, ""); resp.StatusCode != http.StatusNotFound {
					t.Errorf("anonymous, right after the PATCH: status %d, want 404", resp.StatusCode)
				}
				if resp, _ := get(t, n.docs+demoPage, key); resp.StatusCode != http.StatusOK {
					t.Errorf("maintainer, after the PATCH: status %d, want 200", resp.StatusCode)
				}
			})
		}
	})
}

// TestPrivacyReachesOtherNodes: two nodes on one PostgreSQL database; a
// PATCH to private through one makes the other answer 404 soon after
// (LISTEN/NOTIFY empties its docs cache). The poll's deadline only stops a
// hung run.
func TestPrivacyReachesOtherNodes(t *testing.T) {
	for _, tc := range privacyChanges {
		t.Run(tc.name, func(t *testing.T) {
			dbURL := storetest.DatabaseURL(t, store.Postgres)
			dataDir := t.TempDir()
			reader, writer := openNode(t, dbURL, dataDir), openNode(t, dbURL, dataDir)
			key := publishDemo(t, writer)
			for range 2 {
				if resp, _ := get(t, reader.docs+demoPage, ""); resp.StatusCode != http.StatusOK {
					t.Fatalf("before: status %d, want 200", resp.StatusCode)
				}
			}
			patch(t, writer.url+tc.path, key, tc.body)
			waitForNotFound(t, reader.docs+demoPage, "the other node, after the PATCH")
		})
	}
}

// TestPrivacyFromTheCommandLine: on SQLite, `docsd project privacy` run as
// another process on the served database file reaches the server's docs
// cache too (it watches the file for other writers). The poll's deadline
// only stops a hung run.
func TestPrivacyFromTheCommandLine(t *testing.T) {
	dbURL := storetest.DatabaseURL(t, store.SQLite)
	n := openNode(t, dbURL, t.TempDir())
	publishDemo(t, n)
	for range 2 {
		if resp, _ := get(t, n.docs+demoPage, ""); resp.StatusCode != http.StatusOK {
			t.Fatalf("before: status %d, want 200", resp.StatusCode)
		}
	}
	if code, _, errOut := docsd(t, "project", "privacy", "demo", "private", "--database-url", dbURL); code != 0 {
		t.Fatalf("docsd project privacy: exit %d: %s", code, errOut)
	}
	waitForNotFound(t, n.docs+demoPage, "the server, after the command")
}

// TestCommandLineSaysWhenServed: a command that changes what docs are
// served says, on SQLite, that a running server serves the change within
// about a second (it looks for other processes' commits every second);
// on PostgreSQL, whose commits reach every server at once, and for a
// command that changes nothing served, it says nothing.
func TestCommandLineSaysWhenServed(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		dbURL := storetest.DatabaseURL(t, d)
		n := openNode(t, dbURL, t.TempDir())
		publishDemo(t, n)
		for _, tc := range []struct {
			args []string
			note bool
		}{
			{[]string{"project", "privacy", "demo", "private"}, d == store.SQLite},
			{[]string{"project", "list"}, false},
		} {
			code, _, errOut := docsd(t, append(tc.args, "--database-url", dbURL)...)
			if code != 0 {
				t.Fatalf("docsd %s: exit %d: %s", strings.Join(tc.args, " "), code, errOut)
			}
			if got := strings.Contains(errOut, "within about a second"); got != tc.note {
				t.Errorf("docsd %s: stderr %q, want the note: %v", strings.Join(tc.args, " "), errOut, tc.note)
			}
		}
	})
}

// waitForNotFound polls url anonymously until it answers 404; the deadline
// only stops a hung run.
func waitForNotFound(t *testing.T, url, who string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, _ := get(t, url, "")
		if resp.StatusCode == http.StatusNotFound {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s still answers %d", who, resp.StatusCode)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRepublishAndDeletionReachOtherNodes: two nodes on one PostgreSQL
// database and one artifacts folder; the reader node keeps demo's tree
// open and its page in memory, yet a new publish through the other node
// is served by the reader soon after, and so is the project's deletion
// (LISTEN/NOTIFY empties its caches). The polls' deadlines only stop a
// hung run.
func TestRepublishAndDeletionReachOtherNodes(t *testing.T) {
	dbURL := storetest.DatabaseURL(t, store.Postgres)
	dataDir := t.TempDir()
	reader, writer := openNode(t, dbURL, dataDir), openNode(t, dbURL, dataDir)
	publishDemo(t, writer)
	for range 2 {
		if _, body := get(t, reader.docs+demoPage, ""); body != "<p>demo</p>" {
			t.Fatalf("before: got %q", body)
		}
	}
	p, err := writer.s.FindProjectBySlug(t.Context(), "demo")
	if err != nil {
		t.Fatal(err)
	}
	v, err := writer.s.FindVersionBySlug(t.Context(), p.ID, store.Latest)
	if err != nil {
		t.Fatal(err)
	}
	dir := artifactstest.Dir(t, map[string]string{"index.html": "<p>republished</p>"})
	if err := writer.a.artifacts.PublishHTML(t.Context(), "demo", store.Latest, dir); err != nil {
		t.Fatal(err)
	}
	built := true
	if _, err := writer.s.UpdateVersion(t.Context(), v.ID, store.VersionUpdate{Built: &built}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		_, body := get(t, reader.docs+demoPage, "")
		if body == "<p>republished</p>" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the other node, after the publish, still answers %q", body)
		}
	}
	if err := writer.s.DeleteProject(t.Context(), p.ID); err != nil {
		t.Fatal(err)
	}
	waitForNotFound(t, reader.docs+demoPage, "the other node, after the deletion")
}

// TestDocsFileCacheSetting: --docs-file-cache 0 keeps no published file in
// memory and docs are still served; a negative size is refused.
func TestDocsFileCacheSetting(t *testing.T) {
	if code, _, errOut := docsd(t, "serve", "--docs-file-cache", "-1"); code != 2 || !strings.Contains(errOut, "--docs-file-cache must not be negative") {
		t.Errorf("--docs-file-cache -1: exit %d, stderr %q", code, errOut)
	}
	n := openNode(t, storetest.DatabaseURL(t, store.SQLite), t.TempDir(), "--docs-file-cache", "0")
	publishDemo(t, n)
	for range 2 {
		if resp, body := get(t, n.docs+demoPage, ""); resp.StatusCode != http.StatusOK || body != "<p>demo</p>" {
			t.Fatalf("got %d %q, want the page", resp.StatusCode, body)
		}
	}
}
