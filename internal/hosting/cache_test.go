package hosting

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"docsd/internal/storetest"
	"docsd/store"
)

// TestCacheForgetsOnCommit: what the docs host caches is forgotten as soon
// as a write to it commits on the same store, so the very next request
// sees the change. Each case reads twice (the second answer
// from the cache), writes, and reads again.
func TestCacheForgetsOnCommit(t *testing.T) {
	private, inactive := store.Private, false
	cases := []struct {
		name   string
		url    string
		header func(f *fixture) []string
		change func(f *fixture, p *store.Project, v *store.Version)
		before int
		after  int
	}{
		{"ProjectPrivate", latest + "index.html", nil, func(f *fixture, p *store.Project, _ *store.Version) {
			f.update(p, store.ProjectUpdate{PrivacyLevel: &private})
		}, http.StatusOK, http.StatusNotFound},
		{"VersionPrivate", latest + "index.html", nil, func(f *fixture, _ *store.Project, v *store.Version) {
			f.updateVersion(v, store.VersionUpdate{PrivacyLevel: &private})
		}, http.StatusOK, http.StatusNotFound},
		{"VersionInactive", latest + "index.html", nil, func(f *fixture, _ *store.Project, v *store.Version) {
			f.updateVersion(v, store.VersionUpdate{Active: &inactive})
		}, http.StatusOK, http.StatusNotFound},
		{"MaintainerRemoved", latest + "index.html", func(f *fixture) []string { return token(f.ownerKey) },
			func(f *fixture, p *store.Project, _ *store.Version) {
				other, _ := storetest.MustUser(f.t, f.s, "second")
				if err := f.s.AddMaintainer(f.t.Context(), p.ID, other.ID); err != nil {
					f.t.Fatal(err)
				}
				if err := f.s.RemoveMaintainer(f.t.Context(), p.ID, f.owner.ID); err != nil {
					f.t.Fatal(err)
				}
			}, http.StatusOK, http.StatusNotFound},
		{"RedirectCreated", latest + "old.html", nil, func(f *fixture, p *store.Project, _ *store.Version) {
			if _, err := f.s.CreateRedirect(f.t.Context(), store.Redirect{ProjectID: p.ID, Type: "page",
				FromURL: "/old.html", ToURL: "/index.html", HTTPStatus: 302, Enabled: true}); err != nil {
				f.t.Fatal(err)
			}
		}, http.StatusNotFound, http.StatusFound},
	}
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				f := newFixture(t, d)
				p := f.project("demo", "en")
				v := f.publish(p, "latest", map[string]string{"index.html": "demo"})
				if tc.name == "MaintainerRemoved" {
					p = f.update(p, store.ProjectUpdate{PrivacyLevel: &private})
				}
				var header []string
				if tc.header != nil {
					header = tc.header(f)
				}
				for range 2 {
					if got := f.get(tc.url, header...).StatusCode; got != tc.before {
						t.Fatalf("before: got %d, want %d", got, tc.before)
					}
				}
				tc.change(f, p, v)
				if got := f.get(tc.url, header...).StatusCode; got != tc.after {
					t.Errorf("right after the change: got %d, want %d", got, tc.after)
				}
			})
		}
	})
}

// TestServes: writes to tables the docs host caches empty the cache;
// writes only to the build tables do not.
func TestServes(t *testing.T) {
	for _, tc := range []struct {
		tables []string
		want   bool
	}{
		{[]string{"projects"}, true},
		{[]string{"builds", "versions"}, true},
		{[]string{"build_commands"}, false},
		{[]string{"builds", "build_commands"}, false},
		{[]string{"a_table_added_later"}, true},
	} {
		if got := Serves(tc.tables); got != tc.want {
			t.Errorf("Serves(%v) = %v, want %v", tc.tables, got, tc.want)
		}
	}
}

// TestCacheSeesRepublishAndDeletion: the host keeps each version's tree
// open and its files (found or not) in memory, yet a new publish of the
// version is served by the very next request — a small page kept in
// memory, a large file sent from disk, a compressed body, a file that was
// missing, a custom 404 page — and so is the project's deletion.
func TestCacheSeesRepublishAndDeletion(t *testing.T) {
	large := func(word string) string { return strings.Repeat(word+" is a large file.\n", 8000) } // over maxCachedFile
	tree := func(word string) map[string]string {
		files := map[string]string{
			"index.html":  "<p>" + word + "</p>",
			"big.txt":     large(word),
			"app.js":      strings.Repeat("var "+word+";\n", 200),
			"404.html":    "<p>" + word + " is not here</p>",
			"appears.txt": word,
		}
		if word == "first" {
			delete(files, "appears.txt")
		}
		return files
	}
	cases := []struct {
		name, file, encoding string
		status               int // after the republish
		want                 string
	}{
		{"SmallPage", "index.html", "", 200, "<p>second</p>"},
		{"LargeFile", "big.txt", "", 200, large("second")},
		{"Compressed", "app.js", "gzip", 200, strings.Repeat("var second;\n", 200)},
		{"WasMissing", "appears.txt", "", 200, "second"},
		{"Custom404", "nothing.html", "", 404, "<p>second is not here</p>"},
	}
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		f := newFixture(t, d)
		demo := f.project("demo", "en")
		f.publish(demo, "latest", tree("first"))
		get := func(file, encoding string) (int, string) {
			t.Helper()
			header := []string{}
			if encoding != "" {
				header = []string{"Accept-Encoding", encoding}
			}
			resp := f.get(latest+file, header...)
			b := body(t, resp)
			if resp.Header.Get("Content-Encoding") == "gzip" {
				zr, err := gzip.NewReader(strings.NewReader(b))
				if err != nil {
					t.Fatal(err)
				}
				unzipped, err := io.ReadAll(zr)
				if err != nil {
					t.Fatal(err)
				}
				b = string(unzipped)
			}
			return resp.StatusCode, b
		}
		for _, tc := range cases {
			for range 2 { // the second answer comes from the caches
				get(tc.file, tc.encoding)
			}
		}
		f.publish(demo, "latest", tree("second"))
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				status, got := get(tc.file, tc.encoding)
				if status != tc.status || !strings.Contains(got, tc.want) {
					t.Errorf("right after the publish: got %d %.60q, want %d %.60q", status, got, tc.status, tc.want)
				}
			})
		}
		t.Run("ProjectDeleted", func(t *testing.T) {
			if err := f.s.DeleteProject(t.Context(), demo.ID); err != nil {
				t.Fatal(err)
			}
			for _, tc := range cases {
				if status, got := get(tc.file, tc.encoding); status != http.StatusNotFound || strings.Contains(got, "second") {
					t.Errorf("%s right after the deletion: got %d %.60q, want the generic 404", tc.file, status, got)
				}
			}
		})
	})
}

// TestFileCacheBytes: by default a small published file is read once per
// tree (changing it under the tree, which a publish never does, changes
// nothing served); with FileCacheBytes < 0 nothing is kept and every
// request reads it.
func TestFileCacheBytes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		bytes int64
		want  string // after the change under the tree
	}{
		{"Default", 0, "<p>first</p>"},
		{"Off", -1, "<p>other</p>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, store.SQLite)
			h := New(f.s, f.arts, Config{URLs: pathURLs, FileCacheBytes: tc.bytes}, nil)
			demo := f.project("demo", "en")
			f.publish(demo, "latest", map[string]string{"index.html": "<p>first</p>"})
			get := func() string {
				w := httptest.NewRecorder()
				h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, latest+"index.html", nil))
				return w.Body.String()
			}
			if got := get(); got != "<p>first</p>" {
				t.Fatalf("before: got %q", got)
			}
			dir, err := f.arts.HTMLDir("demo", "latest")
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte("<p>other</p>"), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := get(); got != tc.want {
				t.Errorf("after the change under the tree: got %q, want %q", got, tc.want)
			}
		})
	}
}
