package hosting

import (
	"os"
	"path/filepath"
	"testing"

	"docsd/internal/storetest"
	"docsd/store"
)

// publishDownload stands in for a build that produced format: it stores
// content as the version's download and sets the version's flag.
func (f *fixture) publishDownload(p *store.Project, slug, format, content string) {
	f.t.Helper()
	path := filepath.Join(f.t.TempDir(), "download")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
	if err := f.arts.PublishDownload(f.t.Context(), p.Slug, slug, format, path); err != nil {
		f.t.Fatal(err)
	}
	yes := true
	upd := store.VersionUpdate{}
	switch format {
	case "pdf":
		upd.HasPDF = &yes
	case "htmlzip":
		upd.HasHTMLZip = &yes
	case "epub":
		upd.HasEPUB = &yes
	}
	f.updateVersion(f.version(p, slug), upd)
}

func TestDownloads(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		f := newFixture(t, d)
		serveWorld(f)
		ctx := t.Context()
		demo, _ := f.s.FindProjectBySlug(ctx, "demo")
		es, _ := f.s.FindProjectBySlug(ctx, "demo-es")
		lib, _ := f.s.FindProjectBySlug(ctx, "lib")
		secret, _ := f.s.FindProjectBySlug(ctx, "secret")
		f.publishDownload(demo, "latest", "pdf", "%PDF demo")
		f.publishDownload(demo, "latest", "htmlzip", "PK demo")
		f.publishDownload(demo, "latest", "epub", "PK epub demo")
		f.publishDownload(demo, "hidden", "pdf", "%PDF hidden")
		f.publishDownload(demo, "old", "pdf", "%PDF old")
		f.publishDownload(es, "latest", "pdf", "%PDF es")
		f.publishDownload(lib, "latest", "epub", "PK epub lib")
		f.publishDownload(secret, "latest", "pdf", "%PDF secret")
		f.version(demo, "1.0")
		yes := true
		f.updateVersion(f.version(demo, "1.0"), store.VersionUpdate{HasPDF: &yes}) // flag without a file
		path := filepath.Join(t.TempDir(), "x.epub")
		os.WriteFile(path, []byte("PK unflagged"), 0o644)
		if err := f.arts.PublishDownload(ctx, "demo", "1.0", "epub", path); err != nil { // file without a flag
			t.Fatal(err)
		}

		const root = "https://docs.example.com/docs"
		for _, tc := range []struct {
			name, url   string
			header      []string
			status      int
			ctype, file string
			body        string
		}{
			{"pdf", root + "/demo/_/downloads/en/latest/pdf/", nil, 200, "application/pdf", "demo-en-latest.pdf", "%PDF demo"},
			{"htmlzip", root + "/demo/_/downloads/en/latest/htmlzip/", nil, 200, "application/zip", "demo-en-latest.zip", "PK demo"},
			{"epub", root + "/demo/_/downloads/en/latest/epub/", nil, 200, "application/epub+zip", "demo-en-latest.epub", "PK epub demo"},
			{"without the last slash", root + "/demo/_/downloads/en/latest/pdf", nil, 200, "application/pdf", "demo-en-latest.pdf", "%PDF demo"},
			{"translation", root + "/demo/_/downloads/es/latest/pdf/", nil, 200, "application/pdf", "demo-es-es-latest.pdf", "%PDF es"},
			{"subproject", root + "/demo/_/downloads/library/en/latest/epub/", nil, 200, "application/epub+zip", "demo-library-en-latest.epub", "PK epub lib"},
			{"subproject by its own root", root + "/lib/_/downloads/en/latest/epub/", nil, 200, "application/epub+zip", "lib-en-latest.epub", "PK epub lib"},
			{"subdomain mode", "https://demo.docs.example.io/_/downloads/en/latest/htmlzip/", nil, 200, "application/zip", "demo-en-latest.zip", "PK demo"},
			{"private version, maintainer", root + "/demo/_/downloads/en/hidden/pdf/", token(f.ownerKey), 200, "application/pdf", "demo-en-hidden.pdf", "%PDF hidden"},
			{"private project, maintainer", root + "/secret/_/downloads/en/latest/pdf/", token(f.ownerKey), 200, "application/pdf", "secret-en-latest.pdf", "%PDF secret"},
			{"private version, anonymous", root + "/demo/_/downloads/en/hidden/pdf/", nil, 404, "", "", notFoundHTML},
			{"private version, another user", root + "/demo/_/downloads/en/hidden/pdf/", token(f.otherKey), 404, "", "", notFoundHTML},
			{"private project, anonymous", root + "/secret/_/downloads/en/latest/pdf/", nil, 404, "", "", notFoundHTML},
			{"inactive version", root + "/demo/_/downloads/en/old/pdf/", nil, 404, "", "", notFoundHTML},
			{"missing version", root + "/demo/_/downloads/en/nope/pdf/", nil, 404, "", "", notFoundHTML},
			{"format not built", root + "/demo/_/downloads/es/latest/epub/", nil, 404, "", "", notFoundHTML},
			{"flag without a file", root + "/demo/_/downloads/en/1.0/pdf/", nil, 404, "", "", notFoundHTML},
			{"file without a flag", root + "/demo/_/downloads/en/1.0/epub/", nil, 404, "", "", notFoundHTML},
			{"unknown type", root + "/demo/_/downloads/en/latest/zip/", nil, 404, "", "", notFoundHTML},
			{"unknown language", root + "/demo/_/downloads/de/latest/pdf/", nil, 404, "", "", notFoundHTML},
			{"unknown alias", root + "/demo/_/downloads/nope/en/latest/pdf/", nil, 404, "", "", notFoundHTML},
			{"too short", root + "/demo/_/downloads/en/latest/", nil, 404, "", "", notFoundHTML},
			{"external version", root + "/demo/_/downloads/en/7/pdf/", nil, 404, "", "", notFoundHTML},
		} {
			t.Run(tc.name, func(t *testing.T) {
				resp := f.get(tc.url, tc.header...)
				got := body(t, resp)
				if resp.StatusCode != tc.status || got != tc.body {
					t.Fatalf("GET %s: got %d %.40q, want %d %.40q", tc.url, resp.StatusCode, got, tc.status, tc.body)
				}
				if tc.status != 200 {
					return
				}
				if ct := resp.Header.Get("Content-Type"); ct != tc.ctype {
					t.Errorf("got Content-Type %q, want %q", ct, tc.ctype)
				}
				if cd, want := resp.Header.Get("Content-Disposition"), `inline; filename="`+tc.file+`"`; cd != want {
					t.Errorf("got Content-Disposition %q, want %q", cd, want)
				}
			})
		}

		t.Run("RangeAndRevalidation", func(t *testing.T) {
			url := root + "/demo/_/downloads/en/latest/pdf/"
			resp := f.get(url, "Range", "bytes=0-3")
			if got := body(t, resp); resp.StatusCode != 206 || got != "%PDF" {
				t.Errorf("Range: got %d %q, want 206 %q", resp.StatusCode, got, "%PDF")
			}
			etag := f.get(url).Header.Get("ETag")
			if resp := f.get(url, "If-None-Match", etag); etag == "" || resp.StatusCode != 304 {
				t.Errorf("If-None-Match %q: got %d, want 304", etag, resp.StatusCode)
			}
		})
	})
}
