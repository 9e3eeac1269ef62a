package redirects

import (
	"testing"

	"docsd/choices"
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
