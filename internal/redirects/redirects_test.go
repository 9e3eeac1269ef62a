package redirects

import (
	"net/url"
	"testing"

	"docsd/internal/choices"
)

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		scheme, rest string
		want         Input
	}{
		{"", "/en/latest/a/b.html", Input{Lang: "en", Version: "latest", Path: "/a/b.html", Full: "/en/latest/a/b.html"}},
		{"", "/xx/latest/a.html", Input{Path: "/xx/latest/a.html", Full: "/xx/latest/a.html"}}, // unknown language
		{"", "/en/latest", Input{Path: "/en/latest", Full: "/en/latest"}},
		{"", "/old.html", Input{Path: "/old.html", Full: "/old.html"}},
		{choices.MultipleVersionsWithTranslations, "/de/1.0/", Input{Lang: "de", Version: "1.0", Path: "/", Full: "/de/1.0/"}},
		{choices.MultipleVersionsWithoutTranslations, "/1.0/a.html", Input{Lang: "fr", Version: "1.0", Path: "/a.html", Full: "/1.0/a.html"}},
		{choices.MultipleVersionsWithoutTranslations, "/en/a.html", Input{Lang: "fr", Version: "en", Path: "/a.html", Full: "/en/a.html"}},
		{choices.SingleVersionWithoutTranslations, "/en/latest/a.html", Input{Path: "/en/latest/a.html", Full: "/en/latest/a.html"}},
		{"", "", Input{}},
	} {
		if got := Split(tc.scheme, "fr", tc.rest); got != tc.want {
			t.Errorf("Split(%q, fr, %q) = %+v, want %+v", tc.scheme, tc.rest, got, tc.want)
		}
	}
}

// TestPlainURL: where plainURL reads a URL, it reads the host and path that
// url.Parse does; it leaves escaped, user-info and non-ASCII URLs to
// url.Parse.
func TestPlainURL(t *testing.T) {
	for _, tc := range []struct {
		url      string
		ok       bool
		host     string
		path     string
		sameAsIn string // a request path sameLocation compares with, on origin http://Docs.Example:8000
		same     bool
	}{
		{"http://docs.example:8000/docs/p/en/latest/a.html", true, "docs.example:8000", "/docs/p/en/latest/a.html", "/docs/p/en/latest/a.html", true},
		{"https://DOCS.example:8000/a.html?x=1#y", true, "DOCS.example:8000", "/a.html", "/a.html", true},
		{"http://docs.example:8000/a.html#frag?x", true, "docs.example:8000", "/a.html", "/a.html", true},
		{"http://docs.example:8000", true, "docs.example:8000", "", "", true},
		{"http://docs.example:8000?q", true, "docs.example:8000", "", "/", false},
		{"http://[::1]:8000/a", true, "[::1]:8000", "/a", "/a", false},
		{"http://other.example/a.html", true, "other.example", "/a.html", "/a.html", false},
		{"http://docs.example:8000/a%20b.html", false, "", "", "/a b.html", true},
		{"http://u@docs.example:8000/a.html", false, "", "", "/a.html", true},
		{"http://docs.example:8000/é.html", false, "", "", "/é.html", true},
		{"ftp://docs.example:8000/a.html", false, "", "", "/a.html", true}, // url.Parse compares hosts, not schemes
		{"/a.html", false, "", "", "/a.html", false},
	} {
		host, path, ok := plainURL(tc.url)
		if ok != tc.ok || host != tc.host || path != tc.path {
			t.Errorf("plainURL(%q) = %q, %q, %v; want %q, %q, %v", tc.url, host, path, ok, tc.host, tc.path, tc.ok)
		}
		if ok {
			u, err := url.Parse(tc.url)
			if err != nil || u.Host != host || u.Path != path {
				t.Errorf("url.Parse(%q) = host %q, path %q, %v; plainURL reads %q, %q", tc.url, u.Host, u.Path, err, host, path)
			}
		}
		if got := sameLocation(tc.url, "http://Docs.Example:8000", tc.sameAsIn); got != tc.same {
			t.Errorf("sameLocation(%q, …, %q) = %v, want %v", tc.url, tc.sameAsIn, got, tc.same)
		}
	}
}
