package hosting

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"docsd/internal/storetest"
	"docsd/store"
)

const latest = "https://docs.example.com/docs/demo/en/latest/"

// bigPage is an HTML page large enough to be compressed.
var bigPage = "<!DOCTYPE html><title>big</title>" + strings.Repeat("<p>docsd serves documentation.</p>\n", 200)

func filesWorld(f *fixture) *store.Project {
	f.t.Helper()
	demo := f.project("demo", "en")
	f.publish(demo, "latest", map[string]string{
		"index.html":        "demo latest",
		"big.html":          bigPage,
		"_static/app.css":   "body{}",
		"_static/app.js":    "let a = 1;",
		"_static/data.json": `{"a":1}`,
		"_static/logo.svg":  "<svg></svg>",
		"_static/font.bin":  "\x00\x01\x02",
		"_static/doc.txt":   "text",
		"_static/pic.png":   "\x89PNG\r\n",
		"space name.html":   "with a space",
	})
	return demo
}

func TestContentTypes(t *testing.T) {
	f := newFixture(t, store.SQLite)
	filesWorld(f)
	for _, tc := range []struct{ file, want string }{
		{"", "text/html; charset=utf-8"},
		{"big.html", "text/html; charset=utf-8"},
		{"_static/app.css", "text/css"},
		{"_static/app.js", "application/javascript"},
		{"_static/data.json", "application/json"},
		{"_static/logo.svg", "image/svg+xml"},
		{"_static/pic.png", "image/png"},
		{"_static/doc.txt", "text/plain; charset=utf-8"},
		{"_static/font.bin", "application/octet-stream"},
		{"space%20name.html", "text/html; charset=utf-8"},
	} {
		resp := f.get(latest + tc.file)
		if resp.StatusCode != 200 {
			t.Errorf("%s: got status %d, want 200", tc.file, resp.StatusCode)
			continue
		}
		if got := resp.Header.Get("Content-Type"); got != tc.want {
			t.Errorf("%s: got Content-Type %q, want %q", tc.file, got, tc.want)
		}
		if got := resp.Header.Get("X-Content-Type-Options"); got != "nosniff" {
			t.Errorf("%s: got X-Content-Type-Options %q, want nosniff", tc.file, got)
		}
	}
}

func TestConditionalRangeGzipHead(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		f := newFixture(t, d)
		demo := filesWorld(f)
		page := latest + "big.html"

		first := f.get(page)
		etag, lastModified := first.Header.Get("ETag"), first.Header.Get("Last-Modified")
		if first.StatusCode != 200 || body(t, first) != bigPage {
			t.Fatalf("GET: got %d, want 200 with the page", first.StatusCode)
		}
		if !strings.HasPrefix(etag, `"`) || lastModified == "" {
			t.Fatalf("got ETag %q Last-Modified %q, want a strong ETag and a date", etag, lastModified)
		}
		if got := first.Header.Get("Vary"); got != "Accept-Encoding" {
			t.Errorf("got Vary %q, want Accept-Encoding", got)
		}

		t.Run("IfNoneMatch", func(t *testing.T) {
			resp := f.get(page, "If-None-Match", etag)
			if resp.StatusCode != http.StatusNotModified || body(t, resp) != "" {
				t.Errorf("got %d, want 304 without a body", resp.StatusCode)
			}
			resp = f.get(page, "If-None-Match", `"other"`)
			if resp.StatusCode != 200 {
				t.Errorf("other tag: got %d, want 200", resp.StatusCode)
			}
		})
		t.Run("IfModifiedSince", func(t *testing.T) {
			resp := f.get(page, "If-Modified-Since", lastModified)
			if resp.StatusCode != http.StatusNotModified {
				t.Errorf("got %d, want 304", resp.StatusCode)
			}
			resp = f.get(page, "If-Modified-Since", "Mon, 02 Jan 2006 15:04:05 GMT")
			if resp.StatusCode != 200 {
				t.Errorf("older date: got %d, want 200", resp.StatusCode)
			}
		})
		t.Run("Range", func(t *testing.T) {
			resp := f.get(page, "Range", "bytes=2-10", "Accept-Encoding", "gzip")
			if got := body(t, resp); resp.StatusCode != http.StatusPartialContent || got != bigPage[2:11] {
				t.Errorf("got %d %q, want 206 %q", resp.StatusCode, got, bigPage[2:11])
			}
			if got := resp.Header.Get("Content-Range"); got != "bytes 2-10/"+itoa(len(bigPage)) {
				t.Errorf("got Content-Range %q", got)
			}
			if got := resp.Header.Get("Content-Encoding"); got != "" {
				t.Errorf("a range is never compressed: got Content-Encoding %q", got)
			}
			resp = f.get(page, "Range", "bytes=999999-")
			if resp.StatusCode != http.StatusRequestedRangeNotSatisfiable {
				t.Errorf("beyond the end: got %d, want 416", resp.StatusCode)
			}
		})
		t.Run("Gzip", func(t *testing.T) {
			resp := f.get(page, "Accept-Encoding", "br, gzip;q=0.8")
			if resp.Header.Get("Content-Encoding") != "gzip" {
				t.Fatalf("got Content-Encoding %q, want gzip", resp.Header.Get("Content-Encoding"))
			}
			zr, err := gzip.NewReader(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(zr)
			if err != nil || string(got) != bigPage {
				t.Errorf("decompressed: got %d bytes (%v), want the page", len(got), err)
			}
			gzTag := resp.Header.Get("ETag")
			if gzTag == etag || gzTag == "" {
				t.Errorf("gzip ETag %q must differ from the identity ETag %q", gzTag, etag)
			}
			if resp := f.get(page, "Accept-Encoding", "gzip", "If-None-Match", gzTag); resp.StatusCode != 304 {
				t.Errorf("revalidating the gzip tag: got %d, want 304", resp.StatusCode)
			}
			for _, ae := range []string{"gzip;q=0", "identity", "br"} {
				if resp := f.get(page, "Accept-Encoding", ae); resp.Header.Get("Content-Encoding") != "" {
					t.Errorf("Accept-Encoding %q: got Content-Encoding %q, want none", ae, resp.Header.Get("Content-Encoding"))
				}
			}
			if resp := f.get(latest+"_static/pic.png", "Accept-Encoding", "gzip"); resp.Header.Get("Content-Encoding") != "" {
				t.Errorf("an image: got Content-Encoding %q, want none", resp.Header.Get("Content-Encoding"))
			}
		})
		t.Run("Head", func(t *testing.T) {
			resp := f.do(http.MethodHead, page)
			if resp.StatusCode != 200 || body(t, resp) != "" || resp.Header.Get("Content-Length") != itoa(len(bigPage)) {
				t.Errorf("got %d Content-Length %q, want 200 with the length and no body", resp.StatusCode, resp.Header.Get("Content-Length"))
			}
			resp = f.do(http.MethodHead, latest+"missing.html")
			if resp.StatusCode != 404 || body(t, resp) != "" {
				t.Errorf("missing: got %d, want 404 without a body", resp.StatusCode)
			}
		})
		t.Run("NewPublishNewTag", func(t *testing.T) {
			f.publish(demo, "latest", map[string]string{"big.html": bigPage})
			resp := f.get(page, "If-None-Match", etag)
			if resp.StatusCode != 200 {
				t.Errorf("after a publish: got %d, want 200", resp.StatusCode)
			}
		})
	})
}

func itoa(n int) string { return strconv.Itoa(n) }

// secret is a file that no docs request may ever read.
const secret = "TOP-SECRET-d0c5d"

// traversalWorld publishes demo's latest and puts the secret outside it:
// beside the artifacts, in another (private) version's tree, and behind
// symlinks inside the tree.
func traversalWorld(f *fixture) {
	f.t.Helper()
	demo := f.project("demo", "en")
	f.publish(demo, "latest", map[string]string{"index.html": "demo latest", "sub/page.html": "page"})
	private := store.Private
	f.updateVersion(f.publish(demo, "hidden", map[string]string{"index.html": secret, "secret.html": secret}), store.VersionUpdate{PrivacyLevel: &private})
	root := filepath.Dir(f.arts.Root)
	for _, p := range []string{filepath.Join(root, "secret.html"), filepath.Join(f.arts.Root, "secret.html"), filepath.Join(f.arts.Root, "html", "secret.html")} {
		if err := os.WriteFile(p, []byte(secret), 0o644); err != nil {
			f.t.Fatal(err)
		}
	}
	dir, err := f.arts.HTMLDir("demo", "latest")
	if err != nil {
		f.t.Fatal(err)
	}
	links := map[string]string{
		"abs.html":    filepath.Join(root, "secret.html"),
		"rel.html":    "../../../secret.html",
		"sub/up.html": "../../secret.html",
		"outdir":      filepath.Join(f.arts.Root, "html"),
		"hiddenlink":  "../hidden",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, filepath.FromSlash(name))); err != nil {
			f.t.Fatal(err)
		}
	}
}

// traversalPaths are request paths, as raw as a client may send them, that
// try to leave the version's tree.
var traversalPaths = []string{
	"../hidden/secret.html",
	"../../../secret.html",
	"..%2fhidden%2fsecret.html",
	"%2e%2e/hidden/secret.html",
	"%2e%2e%2f%2e%2e%2fsecret.html",
	"sub/..%2f..%2fhidden/secret.html",
	"..%5chidden%5csecret.html",
	"..\\hidden\\secret.html",
	"sub/%2e%2e/%2e%2e/hidden/index.html",
	"%252e%252e/hidden/secret.html",
	"./../hidden/secret.html",
	"sub//../../hidden/secret.html",
	"abs.html",
	"rel.html",
	"sub/up.html",
	"outdir/secret.html",
	"hiddenlink/secret.html",
	"hiddenlink/",
	"%00/../secret.html",
	"index.html%00.png",
}

func TestPathTraversal(t *testing.T) {
	f := newFixture(t, store.SQLite)
	traversalWorld(f)
	for _, p := range traversalPaths {
		for _, base := range []string{latest, "https://demo.docs.example.io/en/latest/", "https://docs.example.com/docs/demo/", "https://docs.example.com/docs/demo/_/external/1/"} {
			r := rawRequest(base + p)
			if r == nil {
				continue
			}
			w := httptest.NewRecorder()
			f.handler(base).ServeHTTP(w, r)
			if strings.Contains(w.Body.String(), secret) {
				t.Errorf("GET %s%s: got the secret (status %d)", base, p, w.Code)
			}
			if w.Code == 200 {
				t.Errorf("GET %s%s: got 200, want no file", base, p)
			}
		}
	}
	// The private version itself stays readable to its maintainer only.
	if resp := f.get(latest[:len(latest)-len("latest/")]+"hidden/secret.html", token(f.ownerKey)...); resp.StatusCode != 200 {
		t.Errorf("maintainer: got %d, want 200", resp.StatusCode)
	}
}

// rawRequest builds a GET request for a URL exactly as given, the way a
// server would parse it off the wire; nil when it does not parse.
func rawRequest(rawURL string) *http.Request {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil
	}
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.URL = u
	r.Host = u.Host
	r.RequestURI = u.RequestURI()
	return r
}

// FuzzServePath asserts that no request path, however encoded, reads a
// file outside the version's tree: the secret placed beside the artifacts,
// in a private version's tree and behind symlinks never appears in an
// answer.
func FuzzServePath(f *testing.F) {
	for _, p := range traversalPaths {
		f.Add(p)
	}
	f.Add("index.html")
	f.Add("sub/page.html")
	f.Add("../../../../../../etc/passwd")
	fx := newFixture(f, store.SQLite)
	traversalWorld(fx)
	f.Fuzz(func(t *testing.T, p string) {
		for _, base := range []string{latest, "https://demo.docs.example.io/en/latest/", "https://docs.example.com/docs/demo/", "https://demo.docs.example.io/"} {
			r := rawRequest(base + p)
			if r == nil {
				r = httptest.NewRequest(http.MethodGet, "/", nil)
				r.URL = &url.URL{Path: strings.TrimPrefix(base, "https://docs.example.com") + p}
				r.Host = "docs.example.com"
			}
			w := httptest.NewRecorder()
			fx.handler(base).ServeHTTP(w, r)
			if strings.Contains(w.Body.String(), secret) {
				t.Fatalf("GET %q on %s: got the secret (status %d)", p, base, w.Code)
			}
		}
	})
}
