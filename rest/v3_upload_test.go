package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"docsd/graph"
	"docsd/internal/docsurl"
	"docsd/internal/storetest"
	"docsd/internal/upload"
	"docsd/store"
)

// newUploadEnv is newV3Env with the upload API on local storage, whose
// archives may be at most maxSize bytes; edit changes the resolver (its
// upload settings, its hooks).
func newUploadEnv(t *testing.T, d store.Dialect, maxSize int64, edit func(*graph.Resolver)) (*v3Env, *upload.Local) {
	t.Helper()
	s := storetest.Open(t, d)
	clock := storetest.SetClock(s, v3Start)
	local := &upload.Local{Store: s, Dir: filepath.Join(t.TempDir(), "uploads"), URL: v3PublicURL + "/api/v3/upload/artifacts/", MaxSize: maxSize}
	up := graph.UploadSettings{TTL: 30 * time.Minute, MaxPending: 2, Target: local}
	resolver := &graph.Resolver{Store: s, Settings: graph.Settings{URLs: docsurl.Config{PublicURL: v3PublicURL}, MaxPageSize: 100, Uploads: up}}
	if edit != nil {
		edit(resolver)
	}
	api := New(graph.NewExecutor(resolver), Config{PublicURL: v3PublicURL, MaxPageSize: 100, UploadReceiver: local})
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	return &v3Env{t: t, store: s, clock: clock, api: api, srv: srv, tokens: map[string]string{}, users: map[string]*store.User{}}, local
}

// initiated is the part of initiate's answer the tests use.
type initiated struct {
	Build     struct{ ID int64 }
	UploadURL struct{ Fields map[string]string } `json:"upload_url"`
}

// initiateMain initiates alice's upload of the main branch.
func (e *v3Env) initiateMain(t *testing.T) initiated {
	t.Helper()
	r := e.do(v3Send("POST", "/api/v3/upload/initiate/", "alice", initiateMain))
	var up initiated
	if err := json.Unmarshal(r.body, &up); err != nil || r.status != 201 {
		t.Fatalf("initiate: %d %s", r.status, r.body)
	}
	return up
}

// multipartBody is a storage POST form: fields in order, then the file
// part when file is not nil.
func multipartBody(fields [][2]string, file []byte) (string, string) {
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for _, f := range fields {
		mw.WriteField(f[0], f[1])
	}
	if file != nil {
		w, _ := mw.CreateFormFile("file", "artifacts.zip")
		w.Write(file)
	}
	mw.Close()
	return b.String(), mw.FormDataContentType()
}

const initiateMain = `{"project": "project", "version": {"name": "main", "type": "branch", "commit": "9f2c0e1"}}`

// TestV3UploadInitiate: validation, the refusals in their order, the 201
// answer and who may initiate.
func TestV3UploadInitiate(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e, _ := newUploadEnv(t, d, 1<<20, nil)
		w := e.world()
		const ini = "/api/v3/upload/initiate/"
		for _, c := range []v3Case{
			{v3Send("POST", ini, "alice", `{}`), 400, "upload_initiate_empty"},
			{v3Send("POST", ini, "alice", `{"project": "project", "version": "main"}`), 400, "upload_initiate_version_not_dict"},
			{v3Send("POST", ini, "alice", `{"project": "project", "version": {"name": " ", "type": "pr", "privacy_level": "secret"}}`), 400, "upload_initiate_bad_values"},
			{v3Send("POST", ini, "alice", `{"project": ["x"], "version": {"name": "`+strings.Repeat("n", 256)+`", "type": "tag", "commit": null}}`), 400, "upload_initiate_bad_types"},
			{v3Send("POST", ini, "alice", `{"project": "nope", "version": {"name": "main", "type": "branch", "commit": "x"}}`), 404, "upload_project_not_found"},
			{v3Send("POST", ini, "bob", initiateMain), 403, "upload_not_admin"},
			{v3Send("POST", ini, "alice", strings.Replace(initiateMain, `"project": "project"`, `"project": "secret"`, 1)), 403, "upload_not_admin"},
			{v3Send("POST", ini, "", initiateMain), 401, "error_401_no_credentials"},
			{v3Get(ini, "alice"), 405, "error_405_get"},
			{v3Send("POST", ini, "alice", initiateMain), 201, "-created"},
			// A form body with dotted names works too; the version is found
			// again (same name and type).
			{v3Call{method: "POST", path: ini, as: "alice", body: "project=project&version.name=main&version.type=branch&version.commit=abc&version.privacy_level=private",
				ctype: "application/x-www-form-urlencoded"}, 201, ""},
			{v3Send("POST", ini, "alice", initiateMain), 429, "upload_too_many_pending"},
		} {
			if c.golden == "" {
				r := e.do(c.call)
				var got struct {
					Version struct{ ID json.Number }
					Build   struct{ ID json.Number }
				}
				json.Unmarshal(r.body, &got)
				if r.status != 201 || got.Version.ID.String() == "" {
					t.Fatalf("form initiate: %d %s", r.status, r.body)
				}
				continue
			}
			if c.golden == "-created" {
				checkCreated(t, e.do(c.call))
				continue
			}
			r := e.check(t, c)
			if r.status == 429 && r.header.Get("Retry-After") != "1800" {
				t.Errorf("Retry-After %q, want 1800", r.header.Get("Retry-After"))
			}
			if r.status == 201 || r.status == 405 {
				if got := r.header.Get("Allow"); got != "POST, OPTIONS" {
					t.Errorf("Allow %q", got)
				}
			}
		}
		v, err := e.store.FindVersionBySlug(t.Context(), w.project.ID, "main")
		if err != nil || v.PrivacyLevel != store.Private || v.Identifier != "main" || !v.Active || v.Uploaded {
			t.Errorf("version main after two initiates: %+v %v", v, err)
		}
		// Pending builds are never claimed by workers.
		for {
			b, err := e.store.ClaimBuild(t.Context(), "w", time.Minute)
			if err != nil {
				break
			}
			if _, err := e.store.FindUploadByBuildID(t.Context(), b.ID); err == nil {
				t.Fatalf("a worker claimed pending upload build %d", b.ID)
			}
			e.store.FinishBuild(t.Context(), b.ID, store.BuildResult{Success: true})
		}

		// skip → 403 Project is not active; upload_api off → 403.
		if _, err := e.store.UpdateProject(t.Context(), w.subproject.ID, store.ProjectUpdate{Skip: v3Ptr(true)}); err != nil {
			t.Fatal(err)
		}
		e.check(t, v3Case{v3Send("POST", ini, "alice", strings.Replace(initiateMain, `"project": "project"`, `"project": "subproject"`, 1)), 403, "upload_inactive"})
	})
}

// checkCreated compares initiate's 201 with its golden, the random token
// replaced by <token> after checking its form (43 base64url characters).
func checkCreated(t *testing.T, r v3Resp) {
	t.Helper()
	if r.status != 201 || r.header.Get("Allow") != "POST, OPTIONS" {
		t.Fatalf("initiate: %d Allow %q %s", r.status, r.header.Get("Allow"), r.body)
	}
	var got struct {
		UploadURL struct{ Fields map[string]string } `json:"upload_url"`
	}
	json.Unmarshal(r.body, &got)
	token := got.UploadURL.Fields["token"]
	if len(token) != 43 || strings.Trim(token, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") != "" {
		t.Fatalf("token %q is not 32 bytes of base64url", token)
	}
	r.body = bytes.Replace(r.body, []byte(token), []byte("<token>"), 1)
	v3Golden(t, "upload_initiate_created", r)
}

// TestV3UploadDisabled: upload_api false refuses initiate.
func TestV3UploadDisabled(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e, _ := newUploadEnv(t, d, 1<<20, func(r *graph.Resolver) { r.Settings.Uploads.Disabled = true })
		e.world()
		e.check(t, v3Case{v3Send("POST", "/api/v3/upload/initiate/", "alice", initiateMain), 403, "upload_disabled"})
	})
}

// TestV3UploadStorageAndComplete: the storage POST's checks in order, and
// complete's answers.
func TestV3UploadStorageAndComplete(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e, local := newUploadEnv(t, d, 16, nil)
		e.world()
		up := e.initiateMain(t)
		key, token := up.UploadURL.Fields["key"], up.UploadURL.Fields["token"]
		const art = "/api/v3/upload/artifacts/"
		post := func(fields [][2]string, file []byte) v3Call {
			body, ctype := multipartBody(fields, file)
			// The Authorization header is ignored.
			return v3Call{method: "POST", path: art, as: "bob", body: body, ctype: ctype}
		}
		ok := [][2]string{{"Content-Type", "application/zip"}, {"key", key}, {"token", token}}
		complete := func(status string) v3Call {
			return v3Send("POST", "/api/v3/upload/complete/", "alice", fmt.Sprintf(`{"build": %d, "status": %q}`, up.Build.ID, status))
		}
		for _, c := range []v3Case{
			{v3Send("POST", art, "", `{"key": "x"}`), 400, "upload_storage_not_multipart"},
			{post([][2]string{{"key", key}, {"token", "nope"}}, []byte("zip")), 403, "upload_storage_bad_token"},
			{post([][2]string{{"key", "1/999/artifacts.zip"}, {"token", token}}, []byte("zip")), 403, "upload_storage_bad_token"},
			{post([][2]string{{"Content-Type", "text/plain"}, {"key", key}, {"token", token}}, []byte("zip")), 400, "upload_storage_content_type"},
			{post(ok, nil), 400, "upload_storage_no_file"},
			{post(ok, []byte{}), 400, "upload_storage_empty"},
			{post(ok, bytes.Repeat([]byte("x"), 17)), 413, "upload_storage_too_large"},
			{v3Get(art, ""), 405, "error_405_get"},
			// complete before any archive: 400, the build stays awaiting.
			{complete("success"), 400, "upload_complete_not_stored"},
			{post(ok, []byte("not a zip")), 204, ""},
			{v3Send("POST", "/api/v3/upload/complete/", "alice", `{"build": "x", "status": "done"}`), 400, "upload_complete_bad_values"},
			{v3Send("POST", "/api/v3/upload/complete/", "alice", `{}`), 400, "upload_complete_empty"},
			{v3Send("POST", "/api/v3/upload/complete/", "alice", `{"build": 999, "status": "success"}`), 404, "upload_build_not_found"},
			{v3Send("POST", "/api/v3/upload/complete/", "alice", `{"build": 1, "status": "success"}`), 404, "upload_build_not_found"},
			{v3Send("POST", "/api/v3/upload/complete/", "bob", fmt.Sprintf(`{"build": %d, "status": "success"}`, up.Build.ID)), 403, "upload_not_admin"},
			{v3Send("POST", "/api/v3/upload/complete/", "", `{}`), 401, "error_401_no_credentials"},
			{complete("failed"), 200, "upload_complete_failed"},
			{complete("success"), 409, "upload_complete_not_pending"},
			{post(ok, []byte("zip")), 403, "upload_storage_bad_token"},
		} {
			e.check(t, c)
		}
		if ok, _ := local.Exists(t.Context(), key); ok {
			t.Error("the archive of a failed upload was kept")
		}
		n, err := e.store.FindUploadByBuildID(t.Context(), up.Build.ID)
		if err != nil || n.Status != store.UploadDone {
			t.Errorf("upload after complete failed: %+v %v", n, err)
		}
		r := e.get(fmt.Sprintf("/api/v3/projects/project/builds/%d/notifications/", up.Build.ID), "alice")
		if !strings.Contains(string(r.body), `"id":"build:user:artifacts-zip-upload-failed"`) {
			t.Errorf("notification of the failed upload: %s", r.body)
		}

		// A second upload completed with success is queued (202), still
		// triggered, and claimable.
		up = e.initiateMain(t)
		ok = [][2]string{{"key", up.UploadURL.Fields["key"]}, {"token", up.UploadURL.Fields["token"]}}
		e.check(t, v3Case{post(ok, []byte("PK")), 204, ""})
		e.check(t, v3Case{complete("success"), 202, "upload_complete_queued"})
		e.check(t, v3Case{complete("success"), 409, "upload_complete_not_pending"})
	})
}

// TestV3UploadCompleteAnswersQueuedBuild completes an upload whose build
// a worker claims as soon as it is queued, before the answer is written:
// the 202 still shows the build as queued (triggered), as the write left
// it.
func TestV3UploadCompleteAnswersQueuedBuild(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		var claimed *store.Build
		e, _ := newUploadEnv(t, d, 1<<10, func(r *graph.Resolver) {
			s := r.Store
			// A worker claims the queued build at once.
			r.Hooks.BuildQueued = func() {
				b, err := s.ClaimBuild(context.Background(), "worker-1", time.Minute)
				if err != nil {
					t.Errorf("claim: %v", err)
				}
				claimed = b
			}
		})
		e.world()
		// The world's builds are done, so that the upload's is the one to
		// claim.
		running := true
		old, _, err := e.store.FindBuilds(t.Context(), store.BuildFilter{Running: &running})
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range old {
			if _, err := e.store.FinishBuild(t.Context(), b.ID, store.BuildResult{}); err != nil {
				t.Fatal(err)
			}
		}
		up := e.initiateMain(t)
		body, ctype := multipartBody([][2]string{{"key", up.UploadURL.Fields["key"]}, {"token", up.UploadURL.Fields["token"]}}, []byte("PK"))
		e.check(t, v3Case{v3Call{method: "POST", path: "/api/v3/upload/artifacts/", body: body, ctype: ctype}, 204, ""})
		r := e.do(v3Send("POST", "/api/v3/upload/complete/", "alice", fmt.Sprintf(`{"build": %d, "status": "success"}`, up.Build.ID)))
		if claimed == nil || claimed.ID != up.Build.ID {
			t.Fatalf("the worker claimed %+v, want build %d", claimed, up.Build.ID)
		}
		var got struct {
			Build struct {
				ID    int64
				State struct{ Code string }
			}
		}
		if err := json.Unmarshal(r.body, &got); err != nil || r.status != 202 {
			t.Fatalf("complete: %d %s", r.status, r.body)
		}
		if got.Build.ID != up.Build.ID || got.Build.State.Code != "triggered" {
			t.Errorf("complete answered build %d in state %q, want %d as queued (triggered): %s", got.Build.ID, got.Build.State.Code, up.Build.ID, r.body)
		}
	})
}

// streamedPost is a storage POST whose body the test writes as it goes:
// its fields, then the file part, left open.
type streamedPost struct {
	pw     *io.PipeWriter
	mw     *multipart.Writer
	file   chan io.Writer // the open file part, once the start is written
	answer chan streamedAnswer
}

type streamedAnswer struct {
	status int
	header http.Header
	body   string
}

// startStreamedPost POSTs to url a form of fields then a file part that
// begins with first; contentLength 0 sends it chunked. The body stays
// open until finish or the test's end.
func startStreamedPost(t *testing.T, url string, fields [][2]string, first []byte, contentLength int64) *streamedPost {
	t.Helper()
	pr, pw := io.Pipe()
	p := &streamedPost{pw: pw, mw: multipart.NewWriter(pw), file: make(chan io.Writer, 1), answer: make(chan streamedAnswer, 1)}
	t.Cleanup(func() { pw.CloseWithError(errors.New("the test ended")) })
	go func() {
		for _, f := range fields {
			p.mw.WriteField(f[0], f[1])
		}
		fw, _ := p.mw.CreateFormFile("file", "artifacts.zip")
		if _, err := fw.Write(first); err == nil {
			p.file <- fw
		}
	}()
	req, _ := http.NewRequest(http.MethodPost, url, pr)
	req.ContentLength = contentLength
	req.Header.Set("Content-Type", p.mw.FormDataContentType())
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			p.answer <- streamedAnswer{status: -1, body: err.Error()}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		p.answer <- streamedAnswer{status: resp.StatusCode, header: resp.Header, body: string(b)}
	}()
	return p
}

// await returns the answer; the deadline only ends a hung run.
func (p *streamedPost) await(t *testing.T) streamedAnswer {
	t.Helper()
	select {
	case a := <-p.answer:
		return a
	case <-time.After(30 * time.Second):
		t.Fatal("no answer while the body was being sent")
		return streamedAnswer{}
	}
}

// finish writes the rest of the file and ends the form.
func (p *streamedPost) finish(t *testing.T, rest []byte) {
	t.Helper()
	select {
	case fw := <-p.file:
		fw.Write(rest)
		p.mw.Close()
		p.pw.Close()
	case <-time.After(30 * time.Second):
		t.Fatal("the start of the body was not read")
	}
}

// filesUnder lists the regular files under dir.
func filesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			files = append(files, path)
		}
		return nil
	})
	return files
}

// TestV3UploadStorageReadsInOrder: the storage POST reads its form in
// order. A token (and key) sent before the file is checked before anything
// is written: a wrong one is answered 403 while the client still sends
// the file, and nothing reaches the data directory; a body whose
// Content-Length is over the limit is answered 413 so too. A token sent
// after the file is checked once the file is spooled. At most MaxSpools
// files are spooled at once; another is answered 503 with Retry-After.
func TestV3UploadStorageReadsInOrder(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		const maxSize = 4 << 20
		e, local := newUploadEnv(t, d, maxSize, nil)
		e.world()
		r := e.do(v3Send("POST", "/api/v3/upload/initiate/", "alice", initiateMain))
		var up struct {
			UploadURL struct{ Fields map[string]string } `json:"upload_url"`
		}
		if err := json.Unmarshal(r.body, &up); err != nil || r.status != 201 {
			t.Fatalf("initiate: %d %s", r.status, r.body)
		}
		key, token := up.UploadURL.Fields["key"], up.UploadURL.Fields["token"]
		url := e.srv.URL + "/api/v3/upload/artifacts/"
		start := bytes.Repeat([]byte("z"), 1<<20) // more than the server buffers
		nothingWritten := func(t *testing.T) {
			t.Helper()
			if files := filesUnder(t, local.Dir); len(files) > 0 {
				t.Errorf("written to the data directory: %v", files)
			}
		}
		detail := func(a streamedAnswer) string {
			var v struct{ Detail string }
			json.Unmarshal([]byte(a.body), &v)
			return v.Detail
		}

		t.Run("WrongTokenFirst", func(t *testing.T) {
			p := startStreamedPost(t, url, [][2]string{{"key", key}, {"token", "not-a-token"}}, start, 0)
			a := p.await(t)
			if a.status != 403 || detail(a) != "Invalid or expired upload token." {
				t.Errorf("got %d %s, want 403", a.status, a.body)
			}
			nothingWritten(t)
		})
		t.Run("ContentLengthOverTheLimit", func(t *testing.T) {
			for _, fields := range [][][2]string{{{"key", key}, {"token", token}}, nil} {
				p := startStreamedPost(t, url, fields, start, local.BodyLimit()+1)
				a := p.await(t)
				if a.status != 413 || detail(a) != fmt.Sprintf("The uploaded file is larger than %d bytes.", maxSize) {
					t.Errorf("fields %v: got %d %s, want 413", fields, a.status, a.body)
				}
				nothingWritten(t)
			}
		})
		t.Run("TokenAfterFile", func(t *testing.T) {
			for _, c := range []struct {
				token  string
				status int
			}{{"not-a-token", 403}, {token, 204}} {
				var b bytes.Buffer
				mw := multipart.NewWriter(&b)
				fw, _ := mw.CreateFormFile("file", "artifacts.zip")
				fw.Write([]byte("PK"))
				mw.WriteField("key", key)
				mw.WriteField("token", c.token)
				mw.Close()
				resp, err := http.Post(url, mw.FormDataContentType(), &b)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != c.status {
					t.Errorf("token %q after the file: got %d, want %d", c.token, resp.StatusCode, c.status)
				}
			}
			if ok, _ := local.Exists(t.Context(), key); !ok {
				t.Error("the archive was not kept")
			}
			local.Remove(t.Context(), key)
		})
		t.Run("SpoolCap", func(t *testing.T) {
			local.MaxSpools = 1
			defer func() { local.MaxSpools = 0 }()
			ok := [][2]string{{"key", key}, {"token", token}}
			first := startStreamedPost(t, url, ok, start, 0)
			deadline := time.Now().Add(30 * time.Second)
			for len(filesUnder(t, local.Dir)) == 0 {
				if time.Now().After(deadline) {
					t.Fatal("the first upload was not spooled")
				}
				time.Sleep(10 * time.Millisecond)
			}
			second := startStreamedPost(t, url, ok, []byte("PK"), 0)
			second.finish(t, nil)
			a := second.await(t)
			if a.status != 503 || a.header.Get("Retry-After") == "" || detail(a) == "" {
				t.Errorf("a spool beyond the cap: got %d (Retry-After %q) %s, want 503 with Retry-After", a.status, a.header.Get("Retry-After"), a.body)
			}
			first.finish(t, []byte("end"))
			if a := first.await(t); a.status != 204 {
				t.Errorf("the spooling upload: got %d %s, want 204", a.status, a.body)
			}
			third := startStreamedPost(t, url, ok, []byte("PK"), 0)
			third.finish(t, nil)
			if a := third.await(t); a.status != 204 {
				t.Errorf("once the slot is free: got %d %s, want 204", a.status, a.body)
			}
		})
	})
}
