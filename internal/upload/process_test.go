package upload

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"docsd/graph"
	"docsd/internal/artifacts"
	"docsd/internal/storetest"
	"docsd/store"
)

// entry is one zip entry: a file, a directory (name ending in /) or a
// symlink.
type entry struct {
	name, body string
	symlink    bool
	size       uint64 // declared uncompressed size when not 0 (a lying header)
}

func makeZip(t *testing.T, entries []entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		if e.symlink {
			h.SetMode(os.ModeSymlink | 0o777)
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, e.body)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// fixture is a processor over a real store and local storages, with one
// project whose version `main` already serves docs.
type fixture struct {
	t     *testing.T
	s     *store.Store
	p     *Processor
	local *Local
	arts  *artifacts.Local
	v     *store.Version
	n     int // uploads made
}

func newFixture(t *testing.T, d store.Dialect) *fixture {
	t.Helper()
	s := storetest.Open(t, d)
	user, _ := storetest.MustUser(t, s, "alice")
	imp := storetest.MustImport(t, s, user, "Demo", "https://github.com/acme/demo")
	ctx := t.Context()
	// The import's build of latest is out of the way.
	if _, err := s.FinishBuild(ctx, imp.Build.ID, store.BuildResult{Success: true}); err != nil {
		t.Fatal(err)
	}
	v, err := s.CreateVersion(ctx, &store.Version{ProjectID: imp.Project.ID, Slug: "main", VerboseName: "main", Identifier: "main", Type: store.Branch, Active: true, PrivacyLevel: store.Public})
	if err != nil {
		t.Fatal(err)
	}
	arts, err := artifacts.NewLocal(filepath.Join(t.TempDir(), "artifacts"))
	if err != nil {
		t.Fatal(err)
	}
	old := t.TempDir()
	os.WriteFile(filepath.Join(old, "index.html"), []byte("old docs"), 0o644)
	if err := arts.PublishHTML(ctx, "demo", "main", old); err != nil {
		t.Fatal(err)
	}
	local := &Local{Store: s, Dir: filepath.Join(t.TempDir(), "uploads"), MaxSize: 1 << 20}
	p := &Processor{Store: s, Artifacts: arts, Archives: local, Limits: Limits{MaxEntries: 10, MaxExtractedSize: 1000},
		WorkDir: t.TempDir(), Lease: time.Minute}
	return &fixture{t: t, s: s, p: p, local: local, arts: arts, v: v}
}

// process runs an upload of archive through the processor and returns the
// finished build.
func (f *fixture) process(archive []byte) *store.Build {
	f.t.Helper()
	ctx := f.t.Context()
	f.n++
	b, u, err := f.s.CreateUploadBuild(ctx, func(*store.Tx) (*store.Version, error) { return f.v, nil }, "abc", graph.HashUploadToken(fmt.Sprint("token", f.n)), time.Hour)
	if err != nil {
		f.t.Fatal(err)
	}
	path, _ := f.local.path(u.StorageKey)
	os.MkdirAll(filepath.Dir(path), 0o700)
	if err := os.WriteFile(path, archive, 0o600); err != nil {
		f.t.Fatal(err)
	}
	if _, err := f.s.QueueUpload(ctx, b.ID); err != nil {
		f.t.Fatal(err)
	}
	claimed, err := f.s.ClaimBuild(ctx, "w", time.Minute)
	if err != nil || claimed.ID != b.ID {
		f.t.Fatalf("claim: %v %v", claimed, err)
	}
	if done, err := f.p.RunUpload(ctx, claimed, "w"); !done || err != nil {
		f.t.Fatalf("RunUpload: %v %v", done, err)
	}
	if ok, _ := f.local.Exists(ctx, u.StorageKey); ok {
		f.t.Error("the archive was kept after processing")
	}
	out, err := f.s.FindBuildByID(ctx, b.ID)
	if err != nil {
		f.t.Fatal(err)
	}
	return out
}

// served returns the hosted index.html of main.
func (f *fixture) served() string {
	f.t.Helper()
	tree, err := f.arts.HTML(context.Background(), "demo", "main")
	if err != nil {
		f.t.Fatal(err)
	}
	b, _ := fs.ReadFile(tree, "index.html")
	return string(b)
}

func TestProcessRejectsBadArchives(t *testing.T) {
	big := strings.Repeat("x", 1001)
	many := []entry{{name: "html/index.html", body: "x"}}
	for i := 0; i < 10; i++ {
		many = append(many, entry{name: "html/p" + string(rune('a'+i)) + ".html", body: "x"})
	}
	invalidZip := "The uploaded artifacts zip file is invalid. Make sure the zip file is valid and contains the expected files."
	cases := []struct {
		name    string
		archive func(t *testing.T) []byte
		err, id string
	}{
		{"not a zip", func(*testing.T) []byte { return []byte("definitely not a zip") }, invalidZip, "build:user:artifacts-zip-invalid"},
		{"dotdot", func(t *testing.T) []byte {
			return makeZip(t, []entry{{name: "html/index.html", body: "x"}, {name: "html/../../evil", body: "x"}})
		}, invalidZip, "build:user:artifacts-zip-invalid"},
		{"absolute", func(t *testing.T) []byte {
			return makeZip(t, []entry{{name: "html/index.html", body: "x"}, {name: "/tmp/evil", body: "x"}})
		}, invalidZip, "build:user:artifacts-zip-invalid"},
		{"symlink", func(t *testing.T) []byte {
			return makeZip(t, []entry{{name: "html/index.html", body: "x"}, {name: "html/link", body: "/etc/passwd", symlink: true}})
		}, invalidZip, "build:user:artifacts-zip-invalid"},
		{"too many entries", func(t *testing.T) []byte { return makeZip(t, many) }, invalidZip, "build:user:artifacts-zip-invalid"},
		{"too large", func(t *testing.T) []byte {
			return makeZip(t, []entry{{name: "html/index.html", body: big}})
		}, invalidZip, "build:user:artifacts-zip-invalid"},
		{"a file, then an entry below it", func(t *testing.T) []byte {
			return makeZip(t, []entry{{name: "html/index.html", body: "x"}, {name: "html/a", body: "x"}, {name: "html/a/b", body: "x"}})
		}, invalidZip, "build:user:artifacts-zip-invalid"},
		{"a file, then a directory of its name", func(t *testing.T) []byte {
			return makeZip(t, []entry{{name: "html/index.html", body: "x"}, {name: "html/a", body: "x"}, {name: "html/a/"}})
		}, invalidZip, "build:user:artifacts-zip-invalid"},
		{"a directory, then a file of its name", func(t *testing.T) []byte {
			return makeZip(t, []entry{{name: "html/index.html", body: "x"}, {name: "html/a/b", body: "x"}, {name: "html/a", body: "x"}})
		}, invalidZip, "build:user:artifacts-zip-invalid"},
		{"pdf a file, then pdf/a.pdf", func(t *testing.T) []byte {
			return makeZip(t, []entry{{name: "html/index.html", body: "x"}, {name: "pdf", body: "x"}, {name: "pdf/a.pdf", body: "x"}})
		}, invalidZip, "build:user:artifacts-zip-invalid"},
		{"no index", func(t *testing.T) []byte { return makeZip(t, []entry{{name: "html/other.html", body: "x"}}) },
			"Your documentation did not generate an index.html at its root directory. This is required for documentation serving at the root URL for this version.",
			"build:user:output:html-no-index-file"},
		{"pdf is a file", func(t *testing.T) []byte {
			return makeZip(t, []entry{{name: "html/index.html", body: "x"}, {name: "pdf", body: "x"}})
		}, `Build output directory for format "pdf" is not a directory.`, "build:user:output:is-no-a-directory"},
		{"epub empty", func(t *testing.T) []byte {
			return makeZip(t, []entry{{name: "html/index.html", body: "x"}, {name: "epub/"}})
		}, `Build output directory for format "epub" does not contain any files.`, "build:user:output:has-0-files"},
		{"htmlzip wrong extension", func(t *testing.T) []byte {
			return makeZip(t, []entry{{name: "html/index.html", body: "x"}, {name: "htmlzip/docs.tar", body: "x"}})
		}, `Build output directory for format "htmlzip" does not contain any files.`, "build:user:output:has-0-files"},
		{"pdf several", func(t *testing.T) []byte {
			return makeZip(t, []entry{{name: "html/index.html", body: "x"}, {name: "pdf/a.pdf", body: "x"}, {name: "pdf/b.pdf", body: "x"}})
		}, `Build output directory for format "pdf" contains multiple files and it is not currently supported.`, "build:user:output:has-multiple-files"},
	}
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		f := newFixture(t, d)
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				f.t = t
				b := f.process(c.archive(t))
				if b.Success || b.Error != c.err || b.ErrorID != c.id || b.ExitCode == nil || *b.ExitCode != 1 {
					t.Errorf("build: success %v error %q id %q exit %v\nwant error %q id %q", b.Success, b.Error, b.ErrorID, b.ExitCode, c.err, c.id)
				}
				if got := f.served(); got != "old docs" {
					t.Errorf("served %q after a failed upload, want the old docs", got)
				}
				v, _ := f.s.FindVersionByID(t.Context(), f.v.ID)
				if v.Uploaded {
					t.Error("version marked uploaded by a failed upload")
				}
			})
		}
	})
}

func TestProcessPublishes(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		f := newFixture(t, d)
		ctx := t.Context()
		b := f.process(makeZip(t, []entry{{name: "html/index.html", body: "new docs"}, {name: "html/a/b.html", body: "b"},
			{name: "pdf/manual.pdf", body: "%PDF"}, {name: "README", body: "ignored"}}))
		if !b.Success || b.Error != "" || *b.ExitCode != 0 {
			t.Fatalf("build failed: %q", b.Error)
		}
		if got := f.served(); got != "new docs" {
			t.Errorf("served %q", got)
		}
		v, _ := f.s.FindVersionByID(ctx, f.v.ID)
		if !v.Uploaded || !v.Built || !v.HasPDF || v.HasEPUB {
			t.Errorf("version %+v", v)
		}
		cmds, err := f.s.FindBuildCommands(ctx, []int64{b.ID})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range cmds {
			got = append(got, c.Command+": "+c.Output)
		}
		want := []string{"Downloading artifacts from storage: Artifacts downloaded from storage.", "Extracting artifacts: Artifacts extracted.",
			"Validating artifacts: Artifacts validated successfully.", "Syncing artifacts to storage: Artifacts synced to storage."}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("commands:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		// A later upload without the pdf removes it (RTD).
		f.process(makeZip(t, []entry{{name: "html/index.html", body: "newer"}}))
		v, _ = f.s.FindVersionByID(ctx, f.v.ID)
		if v.HasPDF || f.served() != "newer" {
			t.Errorf("after the second upload: has_pdf %v, served %q", v.HasPDF, f.served())
		}
	})
}

// TestSweepExpiresPendingUploads: a pending upload past its TTL is failed
// with the inactivity error and its archive discarded.
func TestSweepExpiresPendingUploads(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		f := newFixture(t, d)
		ctx := t.Context()
		clock := storetest.SetClock(f.s, time.Date(2026, 5, 4, 10, 0, 0, 0, time.UTC))
		b, u, err := f.s.CreateUploadBuild(ctx, func(*store.Tx) (*store.Version, error) { return f.v, nil }, "abc", "hash", 30*time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		path, _ := f.local.path(u.StorageKey)
		os.MkdirAll(filepath.Dir(path), 0o700)
		os.WriteFile(path, []byte("zip"), 0o600)
		if err := f.p.Sweep(ctx); err != nil {
			t.Fatal(err)
		}
		if got, _ := f.s.FindBuildByID(ctx, b.ID); got.State != store.Triggered {
			t.Fatalf("swept before expiry: %s", got.State)
		}
		clock.Advance(31 * time.Minute)
		if err := f.p.Sweep(ctx); err != nil {
			t.Fatal(err)
		}
		got, _ := f.s.FindBuildByID(ctx, b.ID)
		if got.State != store.Finished || got.Success || got.ErrorID != store.InactivityErrorID || got.ExitCode != nil {
			t.Errorf("expired upload build: %+v", got)
		}
		if ok, _ := f.local.Exists(ctx, u.StorageKey); ok {
			t.Error("archive of an expired upload kept")
		}
	})
}

// TestProcessTimeLimit: processing stops at build_time_limit with the
// time-out failure, and publishes nothing.
func TestProcessTimeLimit(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		f := newFixture(t, d)
		f.p.TimeLimit = time.Nanosecond
		b := f.process(makeZip(t, []entry{{name: "html/index.html", body: "new docs"}}))
		if b.Success || b.ErrorID != "build:user:time-out" || b.Error != "Build exited due to time out" {
			t.Errorf("build: %q %q", b.Error, b.ErrorID)
		}
		if got := f.served(); got != "old docs" {
			t.Errorf("served %q", got)
		}
	})
}
