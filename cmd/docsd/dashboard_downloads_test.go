package main

import (
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"docsd/internal/storetest"
	"docsd/store"
)

// TestDashboardDownloads: /projects/<slug>/downloads/, the page the
// footer's and flyout's "Downloads" link names, lists the
// formats of the active, built versions the visitor may see, with the docs
// host's URLs (those the footer gives); a version without downloads, an
// inactive one and, for others than its maintainers, a private one are not
// listed; a private project answers as its other pages do.
func TestDashboardDownloads(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		_, base := dashboardApp(t, s)
		anon, alice, bob := newBrowserClient(t, base), newBrowserClient(t, base), newBrowserClient(t, base)
		alice.signIn("alice", "alice-password")
		bob.signIn("bob", "bob-password")
		yes, no, private := true, false, store.Private
		update := func(project, version string, upd store.VersionUpdate) {
			t.Helper()
			p, err := s.FindProjectBySlug(t.Context(), project)
			if err != nil {
				t.Fatal(err)
			}
			v, err := s.FindVersionBySlug(t.Context(), p.ID, version)
			if err != nil {
				v = storetest.MustVersion(t, s, p.ID, version)
			}
			if _, err := s.UpdateVersion(t.Context(), v.ID, upd); err != nil {
				t.Fatal(err)
			}
		}
		update("demo", "latest", store.VersionUpdate{Built: &yes, HasPDF: &yes, HasHTMLZip: &yes})
		update("demo", "1.0", store.VersionUpdate{Built: &yes, HasEPUB: &yes, PrivacyLevel: &private})
		update("demo", "2.0", store.VersionUpdate{Built: &yes})                            // built, no downloads
		update("demo", "3.0", store.VersionUpdate{Built: &yes, HasPDF: &yes, Active: &no}) // inactive
		update("secret", "latest", store.VersionUpdate{Built: &yes, HasPDF: &yes})
		storetest.MustImport(t, s, mustUserByName(t, s, "alice"), "Plain", "https://github.com/a/plain")

		// The footer's links: latest's formats and the downloads page.
		resp, body := anon.get("/api/v2/footer_html/?project=demo&version=latest")
		var footer struct{ HTML string }
		if err := json.Unmarshal([]byte(body), &footer); resp.StatusCode != http.StatusOK || err != nil {
			t.Fatalf("footer_html: %d %v\n%s", resp.StatusCode, err, body)
		}
		hrefs := map[string]string{}
		for _, m := range regexp.MustCompile(`<a href="([^"]+)">(PDF|HTML|Epub|Downloads)</a>`).FindAllStringSubmatch(footer.HTML, -1) {
			hrefs[m[2]] = html.UnescapeString(m[1])
		}
		if hrefs["PDF"] == "" || hrefs["HTML"] == "" || hrefs["Epub"] != "" || hrefs["Downloads"] == "" {
			t.Fatalf("footer links %v, want PDF, HTML and Downloads\n%s", hrefs, footer.HTML)
		}
		page, err := url.Parse(hrefs["Downloads"])
		if err != nil || page.Path != "/projects/demo/downloads/" {
			t.Fatalf("footer's Downloads link %q, want the project's downloads page", hrefs["Downloads"])
		}
		latest := []string{`href="` + hrefs["PDF"] + `" aria-label="latest as PDF">PDF<`, `href="` + hrefs["HTML"] + `" aria-label="latest as zipped HTML">HTML<`}
		v1 := []string{`/_/downloads/en/1.0/epub/" aria-label="1.0 as Epub">Epub<`}
		for _, tc := range []struct {
			client        *browserClient
			who, path     string
			want, notWant []string
		}{
			{anon, "anonymous", page.Path, latest, append([]string{">1.0<", ">2.0<", ">3.0<"}, v1...)},
			{bob, "bob", page.Path, latest, []string{">1.0<", ">2.0<", ">3.0<"}},
			{alice, "alice", page.Path, append(latest, v1...), []string{">2.0<", ">3.0<"}},
			{alice, "alice", "/projects/secret/downloads/", []string{`/_/downloads/en/latest/pdf/" aria-label="latest as PDF"`}, nil},
			{anon, "anonymous", "/projects/plain/downloads/", []string{"No downloads"}, []string{"<table"}},
		} {
			t.Run(tc.who+tc.path, func(t *testing.T) {
				resp, body := tc.client.get(tc.path)
				if resp.StatusCode != http.StatusOK || !strings.Contains(body, `<a class="skip" href="#main">`) {
					t.Fatalf("got %d, want 200 with the dashboard's layout\n%s", resp.StatusCode, body)
				}
				for _, want := range tc.want {
					if !strings.Contains(body, want) {
						t.Errorf("page lacks %q\n%s", want, body)
					}
				}
				for _, notWant := range tc.notWant {
					if strings.Contains(body, notWant) {
						t.Errorf("page has %q\n%s", notWant, body)
					}
				}
			})
		}

		// A project the visitor may not see, or none: the answer of the
		// project's other pages (anonymous: sign in first; others: the one
		// 404 page).
		for _, slug := range []string{"secret", "missing"} {
			path := "/projects/" + slug + "/downloads/"
			if resp, _ := anon.get(path); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/accounts/login/?next="+url.QueryEscape(path) {
				t.Errorf("anonymous %s: %d to %q, want 303 to sign in and back", path, resp.StatusCode, resp.Header.Get("Location"))
			}
			if resp, body := bob.get(path); resp.StatusCode != http.StatusNotFound || !strings.Contains(body, "There is nothing here, or you may not see it.") {
				t.Errorf("bob %s: %d, want the 404 page\n%s", path, resp.StatusCode, body)
			}
		}

		// The project's pages link to it.
		if _, body := anon.get("/projects/demo/"); !strings.Contains(body, `href="/projects/demo/downloads/">Downloads</a>`) {
			t.Errorf("the project page does not link to its downloads\n%s", body)
		}
	})
}

func mustUserByName(t *testing.T, s *store.Store, name string) *store.User {
	t.Helper()
	u, err := s.FindUserByUsername(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
