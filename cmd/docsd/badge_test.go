package main

import (
	"encoding/xml"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"docsd/internal/storetest"
	"docsd/store"
)

// badgeTexts parses an SVG badge with encoding/xml and returns its visible
// texts joined by "|" (the shadows, aria-hidden, left out).
func badgeTexts(t *testing.T, body string) string {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(body))
	var texts []string
	var inText, hidden, sawSVG bool
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("badge is not XML: %v\n%s", err, body)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			sawSVG = sawSVG || tok.Name.Local == "svg" && tok.Name.Space == "http://www.w3.org/2000/svg"
			if tok.Name.Local == "text" {
				inText, hidden = true, false
				for _, a := range tok.Attr {
					hidden = hidden || a.Name.Local == "aria-hidden"
				}
			}
		case xml.EndElement:
			inText = false
		case xml.CharData:
			if inText && !hidden {
				texts = append(texts, string(tok))
			}
		}
	}
	if !sawSVG {
		t.Fatalf("no SVG root:\n%s", body)
	}
	return strings.Join(texts, "|")
}

// finishBuilds finishes every unfinished build of a project with ok.
func finishBuilds(t *testing.T, s *store.Store, slug string, ok bool) {
	t.Helper()
	p, err := s.FindProjectBySlug(t.Context(), slug)
	if err != nil {
		t.Fatal(err)
	}
	running := true
	builds, _, err := s.FindBuilds(t.Context(), store.BuildFilter{ProjectID: &p.ID, Running: &running})
	if err != nil || len(builds) == 0 {
		t.Fatalf("%s's builds: %v, %v", slug, builds, err)
	}
	for _, b := range builds {
		if _, err := s.FinishBuild(t.Context(), b.ID, store.BuildResult{Success: ok, Error: map[bool]string{false: "failed"}[ok]}); err != nil {
			t.Fatal(err)
		}
	}
}

var markdownSnippet = regexp.MustCompile(`\[!\[Documentation Status\]\(([^)]+)\)\]\(([^)]+)\)`)

// TestBadgeEndpoint: /projects/<slug>/badge/ on the public origin answers
// the SVG of the state the visitor may see, revalidated by ETag, the same
// unknown badge for a hidden project as for a missing one, and the state
// of a private project to whoever has its token (from the project page's
// snippet).
func TestBadgeEndpoint(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		_, base := dashboardApp(t, s, "--secret-key", "badge-endpoint-test-key-0123")
		finishBuilds(t, s, "demo", true)
		finishBuilds(t, s, "secret", false)
		anon, alice := newBrowserClient(t, base), newBrowserClient(t, base)
		alice.signIn("alice", "alice-password")

		resp, body := anon.get("/projects/demo/badge/")
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/svg+xml" {
			t.Fatalf("badge: %d %s\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
		if got := resp.Header.Get("Cache-Control"); got != "no-cache" {
			t.Errorf("Cache-Control %q, want no-cache", got)
		}
		if got := badgeTexts(t, body); got != "docs|passing" {
			t.Errorf("texts %q, want docs|passing", got)
		}
		etag := resp.Header.Get("ETag")
		req, _ := http.NewRequest("GET", base+"/projects/demo/badge/", nil)
		req.Header.Set("If-None-Match", etag)
		if resp, _ := anon.do(req); etag == "" || resp.StatusCode != http.StatusNotModified {
			t.Errorf("If-None-Match %s: %d, want 304", etag, resp.StatusCode)
		}
		if _, body := anon.get("/projects/demo/badge/?version=latest&style=for-the-badge"); badgeTexts(t, body) != "DOCS|PASSING" {
			t.Errorf("for-the-badge texts %q", badgeTexts(t, body))
		}
		if resp, _ := anon.get("/projects/demo/badge?version=latest"); resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != "/projects/demo/badge/?version=latest" {
			t.Errorf("badge path without its slash: %d to %q, want 301 to the badge", resp.StatusCode, resp.Header.Get("Location"))
		}
		if _, body := anon.get("/projects/demo/badge/?version=nope"); badgeTexts(t, body) != "docs|unknown" {
			t.Errorf("missing version: %q, want unknown", badgeTexts(t, body))
		}

		// A private project is as unknown as a missing one: same body, same
		// ETag.
		hidden, hiddenBody := anon.get("/projects/secret/badge/")
		missing, missingBody := anon.get("/projects/missing/badge/")
		if badgeTexts(t, hiddenBody) != "docs|unknown" || hiddenBody != missingBody || hidden.Header.Get("ETag") != missing.Header.Get("ETag") {
			t.Errorf("private project's badge differs from a missing one's:\n%s\n%s", hiddenBody, missingBody)
		}
		// The session counts on the dashboard's own pages only: a docs page
		// (same site, another origin) loading the badge as an image gets
		// what anyone gets.
		for _, c := range []struct{ fetchSite, texts, cache string }{
			{"same-origin", "docs|failing", "private, no-cache"},
			{"same-site", "docs|unknown", "no-cache"},
			{"cross-site", "docs|unknown", "no-cache"},
			{"", "docs|unknown", "no-cache"},
		} {
			req, _ := http.NewRequest("GET", base+"/projects/secret/badge/", nil)
			if c.fetchSite != "" {
				req.Header.Set("Sec-Fetch-Site", c.fetchSite)
			}
			resp, body := alice.do(req)
			if got := badgeTexts(t, body); got != c.texts || resp.Header.Get("Cache-Control") != c.cache {
				t.Errorf("maintainer's badge, Sec-Fetch-Site %q: %q, Cache-Control %q; want %q, %q", c.fetchSite, got, resp.Header.Get("Cache-Control"), c.texts, c.cache)
			}
		}

		// The project page's snippets; the private project's carry its
		// token, which opens the badge to anyone.
		_, page := alice.get("/projects/secret/")
		m := markdownSnippet.FindStringSubmatch(html.UnescapeString(page))
		if m == nil || !strings.Contains(page, ".. image:: ") {
			t.Fatalf("no badge snippets on the project page:\n%s", page)
		}
		img, err := url.Parse(m[1])
		if err != nil || img.Path != "/projects/secret/badge/" || img.Query().Get("token") == "" {
			t.Fatalf("snippet image URL %q: want the badge path with a token", m[1])
		}
		if !strings.HasSuffix(m[2], "/secret/en/latest/?badge=latest") {
			t.Errorf("snippet link %q, want the default version's docs with ?badge=latest", m[2])
		}
		if _, body := anon.get(img.RequestURI()); badgeTexts(t, body) != "docs|failing" {
			t.Errorf("with the token: %q, want failing", badgeTexts(t, body))
		}
		bad := img.Query()
		bad.Set("token", strings.Repeat("0", 64))
		if _, body := anon.get(img.Path + "?" + bad.Encode()); badgeTexts(t, body) != "docs|unknown" {
			t.Errorf("with a wrong token: %q, want unknown", badgeTexts(t, body))
		}
		if _, page := anon.get("/projects/demo/"); strings.Contains(page, "token=") || !strings.Contains(page, "/projects/demo/badge/?version=latest") {
			t.Errorf("public project page: want the badge URL without token")
		}
	})
}
