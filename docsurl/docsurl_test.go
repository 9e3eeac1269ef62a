package docsurl

import "testing"

// TestDocs checks every example of behavior.md §8.2 in both modes.
func TestDocs(t *testing.T) {
	path := Config{PublicURL: "https://docs.example.com"}
	sub := Config{PublicURL: "https://docs.example.com", DocsDomain: "docs.example.io"}
	demo := Target{Slug: "demo", Language: "en"}
	demoES := Target{Slug: "demo-es", Language: "es", MainSlug: "demo"}
	lib := Target{Slug: "lib", Language: "en", ParentSlug: "demo", Alias: "library"}
	libFR := Target{Slug: "lib-fr", Language: "fr", MainSlug: "lib", ParentSlug: "demo", Alias: "library"}
	one := Target{Slug: "one", Language: "en", SingleVersion: true}
	for _, tc := range []struct {
		t                 Target
		version, file     string
		wantPath, wantSub string
	}{
		{demo, "latest", "", "https://docs.example.com/docs/demo/en/latest/", "https://demo.docs.example.io/en/latest/"},
		{demo, "v1.0", "api.html", "https://docs.example.com/docs/demo/en/v1.0/api.html", "https://demo.docs.example.io/en/v1.0/api.html"},
		{demoES, "latest", "", "https://docs.example.com/docs/demo/es/latest/", "https://demo.docs.example.io/es/latest/"},
		{lib, "1.0", "", "https://docs.example.com/docs/demo/projects/library/en/1.0/", "https://demo.docs.example.io/projects/library/en/1.0/"},
		{libFR, "1.0", "", "https://docs.example.com/docs/demo/projects/library/fr/1.0/", "https://demo.docs.example.io/projects/library/fr/1.0/"},
		{one, "latest", "", "https://docs.example.com/docs/one/", "https://one.docs.example.io/"},
	} {
		if got := path.Docs(tc.t, tc.version, tc.file); got != tc.wantPath {
			t.Errorf("path mode %s %s: got %q, want %q", tc.t.Slug, tc.version, got, tc.wantPath)
		}
		if got := sub.Docs(tc.t, tc.version, tc.file); got != tc.wantSub {
			t.Errorf("subdomain mode %s %s: got %q, want %q", tc.t.Slug, tc.version, got, tc.wantSub)
		}
	}
	if got, want := path.Download(demo, "v1.0", "pdf"), "https://docs.example.com/docs/demo/_/downloads/en/v1.0/pdf/"; got != want {
		t.Errorf("download: got %q, want %q", got, want)
	}
	if got, want := path.Download(lib, "1.0", "epub"), "https://docs.example.com/docs/demo/_/downloads/library/en/1.0/epub/"; got != want {
		t.Errorf("subproject download: got %q, want %q", got, want)
	}
	if got, want := sub.Download(demo, "v1.0", "htmlzip"), "https://demo.docs.example.io/_/downloads/en/v1.0/htmlzip/"; got != want {
		t.Errorf("subdomain download: got %q, want %q", got, want)
	}
}
