package hosting

import (
	"encoding/xml"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"docsd/internal/storetest"
	"docsd/store"
)

// seoFixture makes project demo (en) with versions stable, latest, 2.0 and
// 1.0 public, active and built; a hidden public one, old; a private one,
// secret; an inactive and an unbuilt one; its public Spanish translation
// demo-es (latest and 2.0) and a private German one, demo-de (latest);
// and a private project hush. No version has a robots.txt.
func seoFixture(t *testing.T, f *fixture) {
	t.Helper()
	page := map[string]string{"index.html": "<p>docs</p>"}
	yes, no := true, false
	private := store.Private
	demo := f.project("demo", "en")
	for _, slug := range []string{"latest", "stable", "2.0", "1.0", "old", "secret", "inactive"} {
		f.publish(demo, slug, page)
	}
	f.version(demo, "unbuilt")
	f.updateVersion(f.version(demo, "old"), store.VersionUpdate{Hidden: &yes})
	f.updateVersion(f.version(demo, "secret"), store.VersionUpdate{PrivacyLevel: &private})
	f.updateVersion(f.version(demo, "inactive"), store.VersionUpdate{Active: &no})
	if _, err := f.s.CreateBuild(t.Context(), f.version(demo, "latest"), nil); err != nil {
		t.Fatal(err)
	}
	for _, tr := range []struct{ name, lang string }{{"demo-es", "es"}, {"demo-de", "de"}} {
		p := f.project(tr.name, tr.lang)
		if err := f.s.SetTranslationOf(t.Context(), p.ID, &demo.ID); err != nil {
			t.Fatal(err)
		}
		f.publish(p, "latest", page)
		if tr.lang == "es" {
			f.publish(p, "2.0", page)
		} else {
			f.update(p, store.ProjectUpdate{PrivacyLevel: &private})
		}
	}
	hush := f.project("hush", "en")
	f.publish(hush, "latest", page)
	f.update(hush, store.ProjectUpdate{PrivacyLevel: &private})
}

// validateSitemap checks a sitemap against the sitemaps.org schema with
// xmllint (Debian's libxml2-utils).
func validateSitemap(t *testing.T, doc string) {
	t.Helper()
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("xmllint is missing (apt-get install libxml2-utils)")
		}
		t.Skip("xmllint is missing (apt-get install libxml2-utils): the sitemap is not validated")
	}
	file := filepath.Join(t.TempDir(), "sitemap.xml")
	if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(xmllint, "--noout", "--schema", filepath.Join("testdata", "sitemap-xhtml.xsd"), file).CombinedOutput()
	if err != nil {
		t.Fatalf("sitemap does not validate: %v\n%s\n%s", err, out, doc)
	}
}

// parsedSitemap is what the tests read of a sitemap.
type parsedSitemap struct {
	URLs []struct {
		Loc        string `xml:"loc"`
		LastMod    string `xml:"lastmod"`
		ChangeFreq string `xml:"changefreq"`
		Priority   string `xml:"priority"`
		Links      []struct {
			Hreflang string `xml:"hreflang,attr"`
			Href     string `xml:"href,attr"`
		} `xml:"http://www.w3.org/1999/xhtml link"`
	} `xml:"url"`
}

func TestSitemap(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		f := newFixture(t, d)
		seoFixture(t, f)
		for _, mode := range []struct{ name, url, root string }{
			{"path", "https://docs.example.com/docs/demo/sitemap.xml", "https://docs.example.com/docs/demo"},
			{"subdomain", "https://demo.docs.example.io/sitemap.xml", "https://demo.docs.example.io"},
		} {
			t.Run(mode.name, func(t *testing.T) {
				resp := f.get(mode.url)
				doc := body(t, resp)
				if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/xml; charset=utf-8" {
					t.Fatalf("%d %s\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), doc)
				}
				if !strings.HasPrefix(doc, `<?xml version="1.0" encoding="UTF-8"?>`) {
					t.Errorf("the XML declaration is not first:\n%s", doc)
				}
				validateSitemap(t, doc)
				var sm parsedSitemap
				if err := xml.Unmarshal([]byte(doc), &sm); err != nil {
					t.Fatal(err)
				}
				type entry struct{ loc, freq, prio, links string }
				var got []entry
				for _, u := range sm.URLs {
					var links []string
					for _, l := range u.Links {
						links = append(links, l.Hreflang+"="+strings.TrimPrefix(l.Href, mode.root))
					}
					got = append(got, entry{strings.TrimPrefix(u.Loc, mode.root), u.ChangeFreq, u.Priority, strings.Join(links, " ")})
				}
				// Translations live in the main project's namespace.
				want := []entry{
					{"/en/stable/", "weekly", "1.0", ""},
					{"/en/latest/", "daily", "0.9", "es=/es/latest/ en=/en/latest/"},
					{"/en/2.0/", "monthly", "0.8", "es=/es/2.0/ en=/en/2.0/"},
					{"/en/1.0/", "monthly", "0.7", ""},
				}
				if len(got) != len(want) {
					t.Fatalf("entries %+v, want %+v", got, want)
				}
				for i := range want {
					if got[i] != want[i] {
						t.Errorf("entry %d: %+v, want %+v", i, got[i], want[i])
					}
				}
				if sm.URLs[1].LastMod == "" || sm.URLs[0].LastMod != "" {
					t.Errorf("lastmod: latest %q (has a build), stable %q (has none)", sm.URLs[1].LastMod, sm.URLs[0].LastMod)
				}
				for _, never := range []string{"old", "secret", "inactive", "unbuilt", "/de/"} {
					if strings.Contains(doc, never) {
						t.Errorf("the sitemap names %q:\n%s", never, doc)
					}
				}
				// Conditional requests revalidate by ETag.
				if resp := f.get(mode.url, "If-None-Match", resp.Header.Get("ETag")); resp.StatusCode != http.StatusNotModified {
					t.Errorf("If-None-Match: %d, want 304", resp.StatusCode)
				}
			})
		}
		if resp := f.get("https://docs.example.com/docs/hush/sitemap.xml"); resp.StatusCode != http.StatusNotFound {
			t.Errorf("private project's sitemap: %d, want 404", resp.StatusCode)
		}
		f.project("empty", "en")
		if resp := f.get("https://docs.example.com/docs/empty/sitemap.xml"); resp.StatusCode != http.StatusNotFound {
			t.Errorf("sitemap of a project without a built version: %d, want 404", resp.StatusCode)
		}
	})
}

// TestSitemapPriorities: priorities fall by 0.1 to 0.1 and stay there;
// changefreq is weekly, daily, then monthly.
func TestSitemapPriorities(t *testing.T) {
	var prios, freqs []string
	for i := range 12 {
		prios, freqs = append(prios, sitemapPriority(i)), append(freqs, sitemapChangeFreq(i))
	}
	if got := strings.Join(prios, " "); got != "1.0 0.9 0.8 0.7 0.6 0.5 0.4 0.3 0.2 0.1 0.1 0.1" {
		t.Errorf("priorities %s", got)
	}
	if got := strings.Join(freqs[:4], " "); got != "weekly daily monthly monthly" {
		t.Errorf("changefreqs %s", got)
	}
}

func TestRobots(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		f := newFixture(t, d)
		seoFixture(t, f)
		generated := map[string]struct{ url, text string }{
			"path": {"https://docs.example.com/docs/demo/robots.txt",
				"User-agent: *\nDisallow: /docs/demo/en/old/ # Hidden version\nSitemap: https://docs.example.com/docs/demo/sitemap.xml\n"},
			"subdomain": {"https://demo.docs.example.io/robots.txt",
				"User-agent: *\nDisallow: /en/old/ # Hidden version\nSitemap: https://demo.docs.example.io/sitemap.xml\n"},
		}
		check := func(t *testing.T, url, want string) {
			t.Helper()
			resp := f.get(url)
			if got := body(t, resp); resp.StatusCode != http.StatusOK || got != want {
				t.Errorf("%s: %d\n%s\nwant\n%s", url, resp.StatusCode, got, want)
			}
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
				t.Errorf("%s: Content-Type %q", url, ct)
			}
		}
		for mode, g := range generated {
			t.Run("generated/"+mode, func(t *testing.T) { check(t, g.url, g.text) })
		}
		// Nothing hidden: everything allowed.
		check(t, "https://docs.example.com/docs/demo-es/robots.txt",
			"User-agent: *\nDisallow: # Allow everything\nSitemap: https://docs.example.com/docs/demo-es/sitemap.xml\n")

		// The project's own robots.txt, from its public default version.
		demo, _ := f.s.FindProjectBySlug(t.Context(), "demo")
		own := "User-agent: *\nDisallow: /en/2.0/\n"
		f.publish(demo, "latest", map[string]string{"index.html": "<p>docs</p>", "robots.txt": own})
		for mode, g := range generated {
			t.Run("own/"+mode, func(t *testing.T) { check(t, g.url, own) })
		}
		// Not once the default version is private: the generated one again.
		private := store.Private
		f.updateVersion(f.version(demo, "latest"), store.VersionUpdate{PrivacyLevel: &private})
		check(t, generated["path"].url, generated["path"].text)

		if resp := f.get("https://docs.example.com/docs/hush/robots.txt"); resp.StatusCode != http.StatusNotFound {
			t.Errorf("private project's robots.txt: %d, want 404", resp.StatusCode)
		}
	})
}
