package hosting

import (
	"net/http"
	"testing"

	"docsd/internal/storetest"
	"docsd/store"
)

// TestFavicon: /favicon.ico, which browsers ask every origin for, is
// docsd's own icon on the docs origin's root and for a project without
// one, and the project's own favicon.ico (at its default version's root)
// on its docs, where the reader may see that version.
func TestFavicon(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		f := newFixture(t, d)
		own := "\x00\x00\x01\x00own icon"
		demo := f.project("demo", "en")
		f.publish(demo, "latest", map[string]string{"index.html": "<p>demo</p>", "favicon.ico": own})
		plain := f.project("plain", "en")
		f.publish(plain, "latest", map[string]string{"index.html": "<p>plain</p>"})
		hidden := f.project("hidden", "en")
		private := store.Private
		f.updateVersion(f.publish(hidden, "latest", map[string]string{"index.html": "<p>hidden</p>", "favicon.ico": own}),
			store.VersionUpdate{PrivacyLevel: &private})

		for _, tc := range []struct {
			name, url string
			header    []string
			want      string
		}{
			{"docs origin's root", "https://docs.example.com/favicon.ico", nil, string(faviconICO)},
			{"a project's own, subdomain", "https://demo.docs.example.io/favicon.ico", nil, own},
			{"a project's own, path", "https://docs.example.com/docs/demo/favicon.ico", nil, own},
			{"a project without one", "https://plain.docs.example.io/favicon.ico", nil, string(faviconICO)},
			{"a private default version, anonymous", "https://hidden.docs.example.io/favicon.ico", nil, string(faviconICO)},
			{"a private default version, its maintainer", "https://hidden.docs.example.io/favicon.ico", token(f.ownerKey), own},
		} {
			resp := f.get(tc.url, tc.header...)
			if got := body(t, resp); resp.StatusCode != http.StatusOK || got != tc.want {
				t.Errorf("%s: %s: %d %q, want 200 %q", tc.name, tc.url, resp.StatusCode, got, tc.want)
			}
			if tc.want == string(faviconICO) && (resp.Header.Get("Content-Type") != "image/x-icon" || resp.Header.Get("ETag") == "" ||
				resp.Header.Get("Cache-Control") != "public, max-age=86400") {
				t.Errorf("%s: docsd's icon with header %v", tc.name, resp.Header)
			}
		}
		if resp := f.get("https://nope.docs.example.io/favicon.ico"); resp.StatusCode != http.StatusNotFound {
			t.Errorf("a project that does not exist: %d, want its 404 page", resp.StatusCode)
		}
		if resp := f.do(http.MethodPost, "https://docs.example.com/favicon.ico"); resp.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("POST: %d, want 405", resp.StatusCode)
		}
	})
}
