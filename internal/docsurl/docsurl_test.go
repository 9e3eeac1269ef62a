package docsurl

import (
	"testing"

	"docsd/internal/choices"
)

// TestDocs checks docs URLs of projects, translations, subprojects and
// every versioning scheme, in path and subdomain mode.
func TestDocs(t *testing.T) {
	path := Config{PublicURL: "https://docs.example.com"}
	sub := Config{PublicURL: "https://docs.example.com", DocsDomain: "docs.example.io"}
	demo := Target{Slug: "demo", Language: "en"}
	demoES := Target{Slug: "demo-es", Language: "es", MainSlug: "demo"}
	lib := Target{Slug: "lib", Language: "en", ParentSlug: "demo", Alias: "library"}
	libFR := Target{Slug: "lib-fr", Language: "fr", MainSlug: "lib", ParentSlug: "demo", Alias: "library"}
	one := Target{Slug: "one", Language: "en", Scheme: choices.SingleVersionWithoutTranslations}
	flat := Target{Slug: "flat", Language: "en", Scheme: choices.MultipleVersionsWithoutTranslations}
	// A translation of flat: the main project's scheme is used.
	flatES := Target{Slug: "flat-es", Language: "es", MainSlug: "flat", Scheme: choices.MultipleVersionsWithoutTranslations}
	demoExplicit := Target{Slug: "demo", Language: "en", Scheme: choices.MultipleVersionsWithTranslations}
	libFlat := Target{Slug: "lib", Language: "en", ParentSlug: "demo", Alias: "library", Scheme: choices.MultipleVersionsWithoutTranslations}
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
		{one, "latest", "a/b.html", "https://docs.example.com/docs/one/a/b.html", "https://one.docs.example.io/a/b.html"},
		{flat, "latest", "", "https://docs.example.com/docs/flat/latest/", "https://flat.docs.example.io/latest/"},
		{flat, "en", "api.html", "https://docs.example.com/docs/flat/en/api.html", "https://flat.docs.example.io/en/api.html"},
		{flatES, "latest", "", "https://docs.example.com/docs/flat/latest/", "https://flat.docs.example.io/latest/"},
		{demoExplicit, "latest", "", "https://docs.example.com/docs/demo/en/latest/", "https://demo.docs.example.io/en/latest/"},
		{libFlat, "1.0", "", "https://docs.example.com/docs/demo/projects/library/1.0/", "https://demo.docs.example.io/projects/library/1.0/"},
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

// TestDocsOrigin checks that path-mode docs, downloads and previews move to
// DocsURL while dashboard links stay on the public URL, and which layouts
// share the dashboard's origin.
func TestDocsOrigin(t *testing.T) {
	two := Config{PublicURL: "http://localhost:8000", DocsURL: "http://localhost:8001"}
	demo := Target{Slug: "demo", Language: "en"}
	for _, tc := range []struct{ name, got, want string }{
		{"docs", two.Docs(demo, "latest", ""), "http://localhost:8001/docs/demo/en/latest/"},
		{"download", two.Download(demo, "latest", "pdf"), "http://localhost:8001/docs/demo/_/downloads/en/latest/pdf/"},
		{"external", two.External("demo", "7"), "http://localhost:8001/docs/demo/_/external/7/"},
		{"home", two.ProjectHome("demo"), "http://localhost:8000/projects/demo/"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, tc.got, tc.want)
		}
	}
	for _, tc := range []struct {
		c    Config
		want bool
	}{
		{Config{PublicURL: "http://localhost:8000"}, true},
		{two, false},
		{Config{PublicURL: "https://example.com", DocsURL: "HTTPS://Example.com:443"}, true},
		{Config{PublicURL: "http://example.com", DocsURL: "https://example.com"}, false},
		{Config{PublicURL: "https://example.com", DocsURL: "https://docs.example.org"}, false},
		{Config{PublicURL: "https://example.com", DocsDomain: "docs.example.io"}, false},
	} {
		if got := tc.c.SharedOrigin(); got != tc.want {
			t.Errorf("SharedOrigin(%+v) = %v, want %v", tc.c, got, tc.want)
		}
	}
}
