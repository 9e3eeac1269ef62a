package hosting

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"docsd/store"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestRepresentations pins what the host answers for published files,
// byte for byte: status, every header and a digest of the body, for pages
// with and without the injected client, scripts, small files and images;
// plain, gzip, HEAD, Range and conditional requests. The tree's random ID
// is written TREE; file times are fixed.
func TestRepresentations(t *testing.T) {
	f := newFixture(t, store.SQLite)
	demo := f.project("demo", "en")
	var js strings.Builder
	for i := 0; js.Len() < 40000; i++ {
		fmt.Fprintf(&js, "function f%d(a, b) { return a + b * %d; }\n", i, i)
	}
	f.publish(demo, "latest", map[string]string{
		"index.html": "<html><head><title>t</title></head><body>" + strings.Repeat("<p>docsd serves pages.</p>\n", 800) + "</body></html>",
		"small.html": "<html><head></head><body>small</body></html>",
		"app.js":     js.String(),
		"logo.png":   strings.Repeat("\x89PNG\x00\x01", 400),
	})
	dir, err := f.arts.HTMLDir("demo", "latest")
	if err != nil {
		t.Fatal(err)
	}
	mtime := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tree := strings.TrimPrefix(filepath.Base(dir), ".latest.")
	for _, name := range []string{"index.html", "small.html", "app.js", "logo.png"} {
		if err := os.Chtimes(filepath.Join(dir, name), mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	handlers := map[string]*Handler{
		"plain":    f.path,
		"injected": New(f.s, f.arts, Config{URLs: pathURLs, AddonsInject: true}, nil),
	}
	type step struct {
		name   string
		method string
		header []string
		// etagOf names an earlier step whose ETag is sent as If-None-Match.
		etagOf string
	}
	steps := []step{
		{name: "get", method: "GET"},
		{name: "get-gzip", method: "GET", header: []string{"Accept-Encoding", "gzip, deflate, br"}},
		{name: "head-gzip", method: "HEAD", header: []string{"Accept-Encoding", "gzip"}},
		{name: "get-gzip-q0", method: "GET", header: []string{"Accept-Encoding", "gzip;q=0"}},
		{name: "get-range", method: "GET", header: []string{"Range", "bytes=10-99"}},
		{name: "get-gzip-range", method: "GET", header: []string{"Accept-Encoding", "gzip", "Range", "bytes=10-99"}},
		{name: "get-inm", method: "GET", etagOf: "get"},
		{name: "get-gzip-inm", method: "GET", header: []string{"Accept-Encoding", "gzip"}, etagOf: "get-gzip"},
		{name: "get-gzip-inm-plain-tag", method: "GET", header: []string{"Accept-Encoding", "gzip"}, etagOf: "get"},
		{name: "get-gzip-ims", method: "GET", header: []string{"Accept-Encoding", "gzip", "If-Modified-Since", mtime.Format(http.TimeFormat)}},
		{name: "get-gzip-if-match-fails", method: "GET", header: []string{"Accept-Encoding", "gzip", "If-Match", `"nope"`}},
	}
	var out strings.Builder
	for _, hname := range []string{"plain", "injected"} {
		for _, file := range []string{"index.html", "small.html", "app.js", "logo.png"} {
			etags := map[string]string{}
			for _, st := range steps {
				r := httptest.NewRequest(st.method, latest+file, nil)
				for i := 0; i+1 < len(st.header); i += 2 {
					r.Header.Set(st.header[i], st.header[i+1])
				}
				if st.etagOf != "" {
					r.Header.Set("If-None-Match", etags[st.etagOf])
				}
				for range 2 { // the second answer may come from a cache: both must be the same
					w := httptest.NewRecorder()
					handlers[hname].ServeHTTP(w, r)
					etags[st.name] = w.Header().Get("ETag")
					sum := sha256.Sum256(w.Body.Bytes())
					fmt.Fprintf(&out, "== %s %s %s\n%d\n", hname, file, st.name, w.Code)
					keys := make([]string, 0, len(w.Header()))
					for k := range w.Header() {
						keys = append(keys, k)
					}
					slices.Sort(keys)
					for _, k := range keys {
						fmt.Fprintf(&out, "%s: %s\n", k, strings.ReplaceAll(strings.Join(w.Header()[k], ", "), tree, "TREE"))
					}
					fmt.Fprintf(&out, "body %d %s\n", w.Body.Len(), hex.EncodeToString(sum[:8]))
				}
			}
		}
	}
	golden := filepath.Join("testdata", "representations.txt")
	if *update {
		if err := os.WriteFile(golden, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != string(want) {
		t.Errorf("answers differ from %s (run with -update and review the diff)", golden)
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(gl) && i < len(wl); i++ {
			if gl[i] != wl[i] {
				t.Errorf("first difference at line %d: got %q, want %q", i+1, gl[i], wl[i])
				break
			}
		}
	}
}

// TestVariantsAreMadeOnce: a compressed answer (and a page with the client
// injected) is made once per file of a published tree and then served
// from memory: changing the file's bytes under the tree (which a publish
// never does) does not change the answer, while a new publish does.
func TestVariantsAreMadeOnce(t *testing.T) {
	f := newFixture(t, store.SQLite)
	h := New(f.s, f.arts, Config{URLs: pathURLs, AddonsInject: true}, nil)
	demo := f.project("demo", "en")
	page := func(word string) string {
		return "<html><head></head><body>" + strings.Repeat("<p>"+word+"</p>\n", 200) + "</body></html>"
	}
	f.publish(demo, "latest", map[string]string{"index.html": page("first"), "app.js": strings.Repeat("var first;\n", 100)})
	for _, tc := range []struct{ name, file, encoding string }{
		{"GzipPage", "index.html", "gzip"},
		{"InjectedPage", "index.html", ""},
		{"GzipScript", "app.js", "gzip"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			get := func() (string, string) {
				r := httptest.NewRequest("GET", latest+tc.file, nil)
				if tc.encoding != "" {
					r.Header.Set("Accept-Encoding", tc.encoding)
				}
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				if w.Code != http.StatusOK || w.Header().Get("Content-Encoding") != tc.encoding {
					t.Fatalf("got %d with Content-Encoding %q", w.Code, w.Header().Get("Content-Encoding"))
				}
				return w.Body.String(), w.Header().Get("ETag")
			}
			first, firstTag := get()
			dir, err := f.arts.HTMLDir("demo", "latest")
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, tc.file)
			info, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			old, _ := os.ReadFile(path)
			if err := os.WriteFile(path, []byte(strings.ReplaceAll(string(old), "first", "other")), 0o644); err != nil {
				t.Fatal(err)
			}
			os.Chtimes(path, info.ModTime(), info.ModTime())
			if again, tag := get(); again != first || tag != firstTag {
				t.Errorf("second answer differs from the first: the variant was made again")
			}
			f.publish(demo, "latest", map[string]string{"index.html": page(tc.name), "app.js": strings.Repeat("var "+tc.name+";\n", 100)})
			if after, tag := get(); after == first || tag == firstTag {
				t.Errorf("after a new publish: the answer of the replaced tree")
			}
		})
	}
}
