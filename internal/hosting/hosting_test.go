package hosting

import (
	"testing"

	"docsd/internal/docsurl"
)

func TestSubdomainProject(t *testing.T) {
	for _, tc := range []struct {
		domain, host, want string
		ok                 bool
	}{
		{"example.com", "docs.example.com", "", false}, // the public host
		{"example.com", "demo.example.com", "demo", true},
		{"docs.example.io", "demo.docs.example.io", "demo", true},
		{"docs.example.io", "Demo.Docs.Example.IO:8443", "demo", true},
		{"docs.example.io", "demo.docs.example.io.", "demo", true},
		{"docs.localhost:8000", "demo.docs.localhost:8000", "demo", true},
		{"docs.example.io", "docs.example.io", "", false},
		{"docs.example.io", "a.b.docs.example.io", "", false},
		{"docs.example.io", "demodocs.example.io", "", false},
		{"docs.example.io", "docs.example.com", "", false},
		{"", "demo.docs.example.io", "", false},
	} {
		h := New(nil, nil, Config{URLs: docsurl.Config{PublicURL: "https://docs.example.com", DocsDomain: tc.domain}}, nil)
		got, ok := h.subdomainProject(tc.host)
		if got != tc.want || ok != tc.ok {
			t.Errorf("domain %q, host %q: got %q %v, want %q %v", tc.domain, tc.host, got, ok, tc.want, tc.ok)
		}
	}
}

func TestWithQuery(t *testing.T) {
	for _, tc := range []struct{ loc, query, want string }{
		{"https://x/a.html", "", "https://x/a.html"},
		{"https://x/a.html", "q=1", "https://x/a.html?q=1"},
		{"https://x/a.html?v=2", "q=1", "https://x/a.html?v=2&q=1"},
		{"https://x/a.html#top", "q=1", "https://x/a.html?q=1#top"},
		{"https://x/a.html?v=2#top", "q=1&r=2", "https://x/a.html?v=2&q=1&r=2#top"},
	} {
		if got := withQuery(tc.loc, tc.query); got != tc.want {
			t.Errorf("withQuery(%q, %q): got %q, want %q", tc.loc, tc.query, got, tc.want)
		}
	}
}
