package sitepath

import "testing"

// TestIs holds the usual open-redirect payloads (the public lists'
// protocol-relative, backslash, scheme, control-byte and encoded forms)
// against Is, with paths that must keep working.
func TestIs(t *testing.T) {
	cases := []struct {
		target string
		want   bool
	}{
		// Paths on this site.
		{"/", true},
		{"/dashboard/", true},
		{"/projects/demo/builds/7/", true},
		{"/en/latest/install.html#setup", true},
		{"/search/?q=a%20b&next=//evil.example", true},
		{"/en/latest/%E6%97%A5%E6%9C%AC.html", true},
		{"/evil.example", true},
		{"/.evil.example/", true},
		{"/a:b/", true},
		{"/http://evil.example", true},
		{"/%68ttps:%2F%2Fevil.example", true}, // "/https://evil.example": a path
		{"/%2e%2e/%2e%2e/evil.example", true},

		// Nothing, or not a path.
		{"", false},
		{"evil.example", false},
		{"evil.example/", false},
		{"@evil.example", false},
		{".evil.example", false},
		{"?next=/x", false},
		{"#/x", false},

		// Another host.
		{"//evil.example", false},
		{"//evil.example/", false},
		{"//evil.example//", false},
		{"///evil.example", false},
		{"////evil.example", false},
		{"//////evil.example", false},
		{"////evil.example/%2f..", false},
		{"//evil.example@docs.example.com", false},
		{"//docs.example.com@evil.example", false},
		{"//evil%00.example", false},
		{"//evil%E3%80%82example", false},

		// Backslashes, which browsers read as slashes.
		{`/\evil.example`, false},
		{`/\evil.example/`, false},
		{`\\evil.example`, false},
		{`\evil.example`, false},
		{`/\/evil.example/`, false},
		{`\/\/evil.example/`, false},
		{`//\evil.example`, false},
		{`///\evil.example`, false},
		{`//\/\evil.example/`, false},
		{`/a\b`, false},

		// Schemes.
		{"https://evil.example", false},
		{"http://evil.example", false},
		{"HtTpS://evil.example", false},
		{"https:evil.example", false},
		{"http:evil.example", false},
		{"https:/evil.example", false},
		{"https:///evil.example", false},
		{"ftp://evil.example", false},
		{"javascript:alert(1)", false},
		{"JavaScript:alert(1)", false},
		{"javascript://%0aalert(1)", false},
		{"data:text/html,<script>alert(1)</script>", false},
		{"vbscript:msgbox(1)", false},

		// Bytes browsers drop or trim before parsing.
		{"/\t/evil.example/", false},
		{"/\n/evil.example/", false},
		{"/\r/evil.example/", false},
		{"/\r\nLocation: https://evil.example", false},
		{"\t//evil.example", false},
		{" //evil.example", false},
		{"/ /evil.example", false},
		{"/\x00/evil.example", false},
		{"/\x7f/evil.example", false},
		{"/\u3002evil.example", false}, // raw non-ASCII
		{"/\uff0fevil.example", false},

		// The same, percent-encoded (once or more).
		{"/%09/evil.example/", false},
		{"/%0a/evil.example/", false},
		{"/%0d/evil.example", false},
		{"/%0d%0aLocation:%20https://evil.example", false},
		{"/%00/evil.example", false},
		{"/%20/evil.example", false},
		{"/%7f/evil.example", false},
		{"/%2F%2Fevil.example", false},
		{"/%2f%2fevil.example", false},
		{"/%2F/evil.example", false},
		{"/%5Cevil.example", false},
		{"/%5cevil.example", false},
		{"/%5C/evil.example", false},
		{"/%252F%252Fevil.example", false},
		{"/%25252F%25252Fevil.example", false},
		{"/%2509/evil.example/", false},
		{"/%255Cevil.example", false},

		// Escapes that do not decode.
		{"/%", false},
		{"/%zz/", false},
		{"/%%2F%2Fevil.example", false},
	}
	for _, tc := range cases {
		if got := Is(tc.target); got != tc.want {
			t.Errorf("Is(%q) = %v, want %v", tc.target, got, tc.want)
		}
	}
}

func TestOr(t *testing.T) {
	if got := Or("/en/latest/", "/"); got != "/en/latest/" {
		t.Errorf("Or(path) = %q", got)
	}
	if got := Or("/%09/evil.example/", "/dashboard/"); got != "/dashboard/" {
		t.Errorf("Or(payload) = %q, want the fallback", got)
	}
}
