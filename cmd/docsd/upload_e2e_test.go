package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"
)

// uploadClient sends exactly what the official upload client (PyPI
// `readthedocs` 0.1.0, `readthedocs upload`) sends: initiate with the
// token, the storage POST as a multipart
// form of upload_url.fields then the `file` part, without the token
// (retried on connection errors and 5xx: 3 attempts, 1 s then 2 s; stops
// on a 4xx), then complete with the token.
type uploadClient struct {
	api, token string
}

// uploadResult is what the client reads from initiate.
type uploadResult struct {
	Build struct {
		ID   int64
		Urls struct{ Build string }
	}
	UploadURL struct {
		URL    string
		Fields map[string]string
	} `json:"upload_url"`
	Version struct {
		Slug string
		Urls struct{ Documentation string }
	}
}

// call POSTs a JSON body to an API path with the token and decodes the
// answer into out (when 2xx); it returns the status and body.
func (c *uploadClient) call(t *testing.T, path string, body any, out any) (int, string) {
	t.Helper()
	payload, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, c.api+path, bytes.NewReader(payload))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Token "+c.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 == 2 && out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: %v\n%s", path, err, b)
		}
	}
	return resp.StatusCode, string(b)
}

// storagePost sends the archive to upload_url, as the client does.
func (c *uploadClient) storagePost(t *testing.T, up uploadResult, archive []byte) int {
	t.Helper()
	for attempt := 0; ; attempt++ {
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		names := make([]string, 0, len(up.UploadURL.Fields))
		for k := range up.UploadURL.Fields {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			mw.WriteField(k, up.UploadURL.Fields[k])
		}
		part, _ := mw.CreateFormFile("file", "artifacts.zip")
		part.Write(archive)
		mw.Close()
		req, _ := http.NewRequest(http.MethodPost, up.UploadURL.URL, &body)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		resp, err := http.DefaultClient.Do(req)
		status := 0
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			status = resp.StatusCode
		}
		if (err == nil && status < 500) || attempt == 2 {
			return status
		}
		time.Sleep(time.Duration(attempt+1) * time.Second)
	}
}

// zipOf makes a zip archive of files (name → content).
func zipOf(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		w, err := zw.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(files[n]))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// waitUploadBuild waits until build id is finished and returns its v3
// representation.
func waitUploadBuild(t *testing.T, c *uploadClient, project string, id int64) map[string]any {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("%s/api/v3/projects/%s/builds/%d/", c.api, project, id), nil)
		req.Header.Set("Authorization", "Token "+c.token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var b map[string]any
		json.NewDecoder(resp.Body).Decode(&b)
		resp.Body.Close()
		if st, _ := b["state"].(map[string]any); st["code"] == "finished" {
			return b
		}
		if time.Now().After(deadline) {
			t.Fatalf("build %d not finished after 2 minutes: %v", id, b)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestUploadEndToEnd runs the upload round trip against `docsd serve`:
// initiate, multipart POST, complete, the docs served, the version
// uploaded, and a later webhook push that does not rebuild it. A second
// upload with a bad archive fails and the first docs keep being served.
func TestUploadEndToEnd(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dataDir := t.TempDir()
	token := createUser(t, dataDir, "alice")
	srv := startServe(t, dataDir, "--throttle-user-rate", "0")
	srv.token = token
	srv.importProject(t, "demo", gitRepo(t, repoFiles("Demo")), "en")
	srv.waitBuilt(t, "demo")
	c := &uploadClient{api: srv.url, token: token}

	var up uploadResult
	code, body := c.call(t, "/api/v3/upload/initiate/", map[string]any{
		"project": "demo", "version": map[string]any{"name": "prebuilt", "type": "branch", "commit": "9f2c0e1"}}, &up)
	if code != 201 {
		t.Fatalf("initiate: %d %s", code, body)
	}
	// build.urls is rendered by the Build
	// representation; the client prints urls.build when it is there.
	if u := up.Build.Urls.Build; u != "" && u != fmt.Sprintf("%s/projects/demo/builds/%d/", srv.url, up.Build.ID) || up.UploadURL.URL != srv.url+"/api/v3/upload/artifacts/" ||
		up.UploadURL.Fields["key"] == "" || len(up.UploadURL.Fields["token"]) != 43 || up.UploadURL.Fields["Content-Type"] != "application/zip" {
		t.Fatalf("initiate answer: %s", body)
	}
	if strings.Contains(srv.stderr.String(), up.UploadURL.Fields["token"]) {
		t.Error("the upload token was logged")
	}
	archive := zipOf(t, map[string]string{
		"html/index.html":       "<html><body>Prebuilt docs</body></html>",
		"html/guide/index.html": "<main><h1>Guide</h1><p>Run okapioneinstall first, as the guide says.</p></main>",
		"pdf/demo.pdf":          "%PDF-1.4 fake",
	})
	if code := c.storagePost(t, up, archive); code != 204 {
		t.Fatalf("storage POST: %d", code)
	}
	var done struct{ Build map[string]any }
	if code, body := c.call(t, "/api/v3/upload/complete/", map[string]any{"build": up.Build.ID, "status": "success"}, &done); code != 202 {
		t.Fatalf("complete: %d %s", code, body)
	}
	b := waitUploadBuild(t, c, "demo", up.Build.ID)
	if b["success"] != true {
		t.Fatalf("upload build failed: %v\n%s", b, srv.stderr.String())
	}
	docs := up.Version.Urls.Documentation
	if code, _, page := fetch(t, docs, ""); code != 200 || !strings.Contains(page, "Prebuilt docs") {
		t.Fatalf("GET %s: %d %q", docs, code, page)
	}
	if code, _, page := fetch(t, docs+"guide/", ""); code != 200 || !strings.Contains(page, "guide") {
		t.Errorf("GET %sguide/: %d %q", docs, code, page)
	}
	var v struct {
		Project struct {
			Version struct {
				Uploaded, Built, HasPdf bool
				Builds                  struct{ TotalCount int }
			}
		}
	}
	versionQuery := `query { project(slug: "demo") { version(slug: "prebuilt") { uploaded built hasPdf builds { totalCount } } } }`
	srv.graphql(t, versionQuery, nil, &v)
	if !v.Project.Version.Uploaded || !v.Project.Version.Built || !v.Project.Version.HasPdf {
		t.Fatalf("version after the upload: %+v", v.Project.Version)
	}

	// The upload indexed the version for search: its pages are found at
	// once, without a reindex.
	if code, _, hits := fetch(t, srv.url+"/api/v3/search/?q=project:demo/prebuilt+okapioneinstall", ""); code != 200 ||
		!strings.Contains(hits, `"count":1,`) || !strings.Contains(hits, `/en/prebuilt/guide/","domain"`) {
		t.Errorf("search after the upload: %d %s", code, hits)
	}

	// The v3 `uploaded` filter finds it, and only it.
	req, _ := http.NewRequest(http.MethodGet, srv.url+"/api/v3/projects/demo/versions/?uploaded=true&fields=slug", nil)
	req.Header.Set("Authorization", "Token "+token)
	if resp, err := http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	} else {
		list, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(list), `"count":1,`) || !strings.Contains(string(list), `{"slug":"prebuilt"}`) {
			t.Errorf("versions?uploaded=true: %s", list)
		}
	}

	// A webhook push of the version's branch builds nothing for it, and a
	// v3 trigger is refused.
	code, body = c.call(t, "/api/v2/webhook/generic/demo/", map[string]any{"branches": []string{"prebuilt"}}, nil)
	if code != 200 || strings.Contains(body, `"prebuilt"`) {
		t.Errorf("webhook push: %d %s", code, body)
	}
	code, body = c.call(t, "/api/v3/projects/demo/versions/prebuilt/builds/", map[string]any{}, nil)
	if code != 400 || body != `{"detail":"Cannot trigger a build for an uploaded version."}` {
		t.Errorf("trigger of an uploaded version: %d %s", code, body)
	}
	srv.graphql(t, versionQuery, nil, &v)
	if v.Project.Version.Builds.TotalCount != 1 {
		t.Errorf("the uploaded version has %d builds, want only the upload's", v.Project.Version.Builds.TotalCount)
	}

	// A bad archive fails its build and publishes nothing.
	var bad uploadResult
	if code, body := c.call(t, "/api/v3/upload/initiate/", map[string]any{
		"project": "demo", "version": map[string]any{"name": "prebuilt", "type": "branch", "commit": "abc"}}, &bad); code != 201 {
		t.Fatalf("initiate: %d %s", code, body)
	}
	if code := c.storagePost(t, bad, zipOf(t, map[string]string{"html/other.html": "<p>no index</p>"})); code != 204 {
		t.Fatalf("storage POST: %d", code)
	}
	if code, body := c.call(t, "/api/v3/upload/complete/", map[string]any{"build": bad.Build.ID, "status": "success"}, nil); code != 202 {
		t.Fatalf("complete: %d %s", code, body)
	}
	b = waitUploadBuild(t, c, "demo", bad.Build.ID)
	want := "Your documentation did not generate an index.html at its root directory. This is required for documentation serving at the root URL for this version."
	if b["success"] != false || b["error"] != want {
		t.Errorf("bad upload build: %v", b)
	}
	if code, _, page := fetch(t, docs, ""); code != 200 || !strings.Contains(page, "Prebuilt docs") {
		t.Errorf("after the bad upload GET %s: %d %q", docs, code, page)
	}
	code, body = c.call(t, "/api/v3/upload/complete/", map[string]any{"build": bad.Build.ID, "status": "success"}, nil)
	if code != 409 || body != `{"detail":"Build is already in process."}` {
		t.Errorf("complete again: %d %s", code, body)
	}
}
