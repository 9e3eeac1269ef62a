package artifacts

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"docsd/internal/artifacts/artifactstest"
	"docsd/internal/errs"
	"docsd/internal/storetest"
	"docsd/store"
)

// backends runs fn against each Backend: the local directory always, S3 on
// a real server (artifactstest.StartS3 skips loudly without one).
func backends(t *testing.T, fn func(t *testing.T, b Backend)) {
	t.Run("local", func(t *testing.T) { fn(t, mustLocal(t)) })
	t.Run("s3", func(t *testing.T) { fn(t, mustS3(t, artifactstest.StartS3(t), storetest.Open(t, store.SQLite))) })
}

func mustS3(t *testing.T, srv *artifactstest.S3, pointers Pointers) *S3 {
	t.Helper()
	s, err := NewS3(S3Config{URL: srv.URL("pre/fix"), Endpoint: srv.Endpoint, AccessKey: srv.AccessKey,
		SecretKey: srv.SecretKey, CacheDir: t.TempDir()}, pointers)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestBackendPublishAndRead is the contract of both backends: a tree opened
// before a publish keeps reading its own files, directories list, downloads
// round-trip, removal unpublishes.
func TestBackendPublishAndRead(t *testing.T) {
	backends(t, func(t *testing.T, b Backend) {
		ctx := t.Context()
		if err := b.Check(ctx); err != nil {
			t.Fatalf("Check = %v, want nil", err)
		}
		if _, err := b.OpenHTML(ctx, "demo", "latest"); !errs.Is(err, errs.NotFound) {
			t.Fatalf("before publish: got %v, want NotFound", err)
		}
		must(t, b.PublishHTML(ctx, "demo", "latest", writeTree(t, map[string]string{"index.html": "one", "a/b.html": "one-b", "a/c/d.css": "d"})))
		first, err := b.OpenHTML(ctx, "demo", "latest")
		must(t, err)
		defer first.Close()
		must(t, b.PublishHTML(ctx, "demo", "latest", writeTree(t, map[string]string{"index.html": "two"})))
		second, err := b.OpenHTML(ctx, "demo", "latest")
		must(t, err)
		defer second.Close()
		if first.ID() == second.ID() {
			t.Errorf("two publishes share the tree ID %q", first.ID())
		}
		if got, want := readTree(t, first, "a/b.html"), "one-b"; got != want {
			t.Errorf("first tree a/b.html = %q, want %q", got, want)
		}
		if got, want := readTree(t, second, "index.html"), "two"; got != want {
			t.Errorf("second tree index.html = %q, want %q", got, want)
		}
		if _, err := second.Open("a/b.html"); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("second tree a/b.html: got %v, want not exist", err)
		}
		if info, err := fs.Stat(first, "a"); err != nil || !info.IsDir() {
			t.Errorf("first tree a: %v, %v; want a directory", info, err)
		}
		var files []string
		must(t, fs.WalkDir(first, ".", func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				files = append(files, p)
			}
			return err
		}))
		if want := []string{"a/b.html", "a/c/d.css", "index.html"}; !slices.Equal(files, want) {
			t.Errorf("walk = %v, want %v", files, want)
		}
		html, err := b.HTML(ctx, "demo", "latest")
		must(t, err)
		if got, err := fs.ReadFile(html, "index.html"); err != nil || string(got) != "two" {
			t.Errorf("HTML index.html = %q, %v; want two", got, err)
		}

		zip := filepath.Join(t.TempDir(), "x.zip")
		must(t, os.WriteFile(zip, []byte("zip bytes"), 0o644))
		if _, err := b.OpenDownload(ctx, "demo", "latest", "htmlzip"); !errs.Is(err, errs.NotFound) {
			t.Fatalf("download before publish: %v, want NotFound", err)
		}
		must(t, b.PublishDownload(ctx, "demo", "latest", "htmlzip", zip))
		f, err := b.OpenDownload(ctx, "demo", "latest", "htmlzip")
		must(t, err)
		info, err := f.Stat()
		must(t, err)
		if _, err := f.Seek(4, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		rest, err := io.ReadAll(f)
		f.Close()
		if err != nil || string(rest) != "bytes" || info.Size() != 9 || info.ModTime().IsZero() {
			t.Errorf("download after seek = %q, %v (size %d, modified %v); want bytes, 9", rest, err, info.Size(), info.ModTime())
		}
		must(t, b.RemoveDownload(ctx, "demo", "latest", "htmlzip"))
		if _, err := b.OpenDownload(ctx, "demo", "latest", "htmlzip"); !errs.Is(err, errs.NotFound) {
			t.Errorf("download after removal: %v, want NotFound", err)
		}

		must(t, b.PublishHTML(ctx, "demo", "1.0", writeTree(t, map[string]string{"index.html": "v1"})))
		must(t, b.RemoveVersion(ctx, "demo", "latest"))
		if _, err := b.OpenHTML(ctx, "demo", "latest"); !errs.Is(err, errs.NotFound) {
			t.Errorf("after RemoveVersion: %v, want NotFound", err)
		}
		if _, err := b.OpenHTML(ctx, "demo", "1.0"); err != nil {
			t.Errorf("other version after RemoveVersion: %v", err)
		}
		must(t, b.RemoveProject(ctx, "demo"))
		if _, err := b.OpenHTML(ctx, "demo", "1.0"); !errs.Is(err, errs.NotFound) {
			t.Errorf("after RemoveProject: %v, want NotFound", err)
		}
	})
}

// TestS3DeletesRetiredTrees: once the grace period is over, a replaced tree
// leaves the bucket and the node's cache, and Forget cleans the cache of
// trees other nodes replaced.
func TestS3DeletesRetiredTrees(t *testing.T) {
	srv := artifactstest.StartS3(t)
	ctx := t.Context()
	st := storetest.Open(t, store.SQLite)
	s := mustS3(t, srv, st)
	s.RetireAfter = time.Nanosecond
	var changed []string
	s.Changed = func(_ context.Context, project, version string) { changed = append(changed, project+"/"+version) }

	must(t, s.PublishHTML(ctx, "demo", "latest", writeTree(t, map[string]string{"index.html": "one"})))
	first, err := s.OpenHTML(ctx, "demo", "latest")
	must(t, err)
	readTree(t, first, "index.html") // now in the cache
	firstCache := filepath.Join(s.cache, "demo", "latest", first.ID())
	if _, err := os.Stat(firstCache); err != nil {
		t.Fatalf("cache of the first tree: %v", err)
	}
	must(t, s.PublishHTML(ctx, "demo", "latest", writeTree(t, map[string]string{"index.html": "two"})))
	second, err := s.OpenHTML(ctx, "demo", "latest")
	must(t, err)
	keys := srv.Keys(t, "pre/fix/html/demo/latest/")
	if want := []string{"pre/fix/html/demo/latest/" + second.ID() + "/index.html"}; !slices.Equal(keys, want) {
		t.Errorf("keys after the second publish = %v, want only %v", keys, want)
	}
	if _, err := os.Stat(firstCache); !os.IsNotExist(err) {
		t.Errorf("cache of the retired tree: %v, want removed", err)
	}
	if want := []string{"demo/latest", "demo/latest"}; !slices.Equal(changed, want) {
		t.Errorf("Changed calls = %v, want %v", changed, want)
	}

	// Another node's cache: a tree it read is replaced elsewhere; Forget
	// (on the notification) removes it.
	other := mustS3(t, srv, st)
	tree, err := other.OpenHTML(ctx, "demo", "latest")
	must(t, err)
	readTree(t, tree, "index.html")
	must(t, s.PublishHTML(ctx, "demo", "latest", writeTree(t, map[string]string{"index.html": "three"})))
	other.Forget(ctx, "demo", "")
	entries, _ := os.ReadDir(filepath.Join(other.cache, "demo", "latest"))
	for _, e := range entries {
		if e.Name() == tree.ID() {
			t.Errorf("Forget kept the replaced tree %s in the cache", tree.ID())
		}
	}
	now, err := other.OpenHTML(ctx, "demo", "latest")
	must(t, err)
	if got := readTree(t, now, "index.html"); got != "three" {
		t.Errorf("other node reads %q, want three", got)
	}
}

func TestParseS3URL(t *testing.T) {
	for _, tc := range []struct{ in, bucket, prefix string }{
		{"s3://b", "b", ""},
		{"s3://b/", "b", ""},
		{"s3://b/p/q/", "b", "p/q/"},
		{"s3://b/p", "b", "p/"},
		{"http://b/p", "", ""},
		{"s3:///p", "", ""},
	} {
		b, p, err := ParseS3URL(tc.in)
		if b != tc.bucket || p != tc.prefix || (err == nil) != (tc.bucket != "") {
			t.Errorf("ParseS3URL(%q) = %q, %q, %v; want %q, %q", tc.in, b, p, err, tc.bucket, tc.prefix)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
