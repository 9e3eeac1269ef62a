package upload

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"docsd/internal/artifacts"
	"docsd/internal/artifacts/artifactstest"
	"docsd/internal/storetest"
	"docsd/store"
)

// postForm sends fields (sorted) and then the file part, as the upload
// client does, and returns the status.
func postForm(t *testing.T, url string, fields map[string]string, file []byte) int {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	names := make([]string, 0, len(fields))
	for k := range fields {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		mw.WriteField(k, fields[k])
	}
	part, _ := mw.CreateFormFile("file", "artifacts.zip")
	part.Write(file)
	mw.Close()
	resp, err := http.Post(url, mw.FormDataContentType(), &body)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestS3ArchivesRoundTrip: the presigned POST of a key stores the archive
// in the bucket (no upload token among its fields), the processor's side
// finds, fetches and removes it, and the policy refuses another content
// type or an oversized file.
func TestS3ArchivesRoundTrip(t *testing.T) {
	srv := artifactstest.StartS3(t)
	ctx := t.Context()
	bucket, err := artifacts.NewS3(artifacts.S3Config{URL: srv.URL("pre"), Endpoint: srv.Endpoint, AccessKey: srv.AccessKey,
		SecretKey: srv.SecretKey, CacheDir: t.TempDir()}, storetest.Open(t, store.SQLite))
	if err != nil {
		t.Fatal(err)
	}
	s := &S3{Bucket: bucket, MaxSize: 64}
	key := store.UploadKey(3, 42)
	url, fields, err := s.Target(ctx, key, "the-upload-token", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if fields["key"] != "pre/uploads/"+key || fields["Content-Type"] != "application/zip" || fields["policy"] == "" || fields["token"] != "" {
		t.Fatalf("fields = %v", fields)
	}
	if ok, err := s.Exists(ctx, key); err != nil || ok {
		t.Fatalf("Exists before the POST = %v, %v", ok, err)
	}
	for name, tc := range map[string]struct {
		fields map[string]string
		file   []byte
	}{
		"another content type": {with(fields, "Content-Type", "text/plain"), []byte("PK zip")},
		"too large":            {fields, bytes.Repeat([]byte("x"), 65)},
	} {
		if code := postForm(t, url, tc.fields, tc.file); code/100 == 2 {
			t.Errorf("%s: POST answered %d, want a refusal", name, code)
		}
	}
	if ok, _ := s.Exists(ctx, key); ok {
		t.Fatal("a refused POST stored an archive")
	}
	if code := postForm(t, url, fields, []byte("PK zip")); code != 204 {
		t.Fatalf("POST = %d, want 204", code)
	}
	if ok, err := s.Exists(ctx, key); err != nil || !ok {
		t.Fatalf("Exists after the POST = %v, %v", ok, err)
	}
	dst := filepath.Join(t.TempDir(), "a.zip")
	if err := s.Fetch(ctx, key, dst); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(dst); string(got) != "PK zip" {
		t.Errorf("fetched %q", got)
	}
	if err := s.Remove(ctx, key); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.Exists(ctx, key); ok {
		t.Error("Exists after Remove = true")
	}
}

func with(m map[string]string, k, v string) map[string]string {
	out := map[string]string{k: v}
	for key, val := range m {
		if key != k {
			out[key] = val
		}
	}
	return out
}
