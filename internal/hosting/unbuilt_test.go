package hosting

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"docsd/store"
)

// TestUnbuiltPage checks the page of a visible active
// version with nothing published, for each state of its last build.
func TestUnbuiltPage(t *testing.T) {
	f := newFixture(t, store.SQLite)
	w := newReaderWorld(f)
	page := "https://docs.example.com/docs/demo/en/v2.0b1/"
	others := `<h2>Other versions</h2>
<ul>
<li><a href="https://docs.example.com/docs/demo/en/latest/">latest</a></li>
<li><a href="https://docs.example.com/docs/demo/en/stable/">stable</a></li>
<li><a href="https://docs.example.com/docs/demo/en/v1.1/">v1.1</a></li>
<li><a href="https://docs.example.com/docs/demo/en/v1.0/">v1.0</a></li>
</ul>`
	check := func(t *testing.T, status string) {
		t.Helper()
		resp := f.get(page)
		b := body(t, resp)
		if resp.StatusCode != 404 {
			t.Fatalf("status %d, want 404", resp.StatusCode)
		}
		for k, v := range map[string]string{"Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-cache",
			"X-Robots-Tag": "noindex", "X-Content-Type-Options": "nosniff"} {
			if g := resp.Header.Get(k); g != v {
				t.Errorf("%s = %q, want %q", k, g, v)
			}
		}
		for _, want := range []string{"<title>Demo v2.0b1</title>", "<h1>Demo v2.0b1</h1>", status, others} {
			if !strings.Contains(b, want) {
				t.Errorf("page lacks %q:\n%s", want, b)
			}
		}
		if strings.Contains(b, "<script") || strings.Contains(b, "internal-notes") {
			t.Errorf("page has a script or names the private version:\n%s", b)
		}
		if head := f.do(http.MethodHead, page); head.StatusCode != 404 || body(t, head) != "" || head.Header.Get("X-Robots-Tag") != "noindex" {
			t.Errorf("HEAD: %d", head.StatusCode)
		}
	}
	t.Run("never built", func(t *testing.T) { check(t, "This version has not been built yet.") })

	b, err := f.s.CreateBuild(t.Context(), w.versions["v2.0b1"], nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("queued", func(t *testing.T) {
		check(t, "This version is being built right now (Triggered). Reload this page in a minute.")
	})
	if _, err := f.s.ClaimBuild(t.Context(), "test", 0); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.FinishBuild(t.Context(), b.ID, store.BuildResult{}); err != nil {
		t.Fatal(err)
	}
	id := strconv.FormatInt(b.ID, 10)
	t.Run("failed", func(t *testing.T) {
		check(t, `The last build of this version failed, so there is nothing to show yet. <a href="https://docs.example.com/projects/demo/builds/`+id+`/">Build #`+id+`</a>`)
	})

	t.Run("private version for its maintainer", func(t *testing.T) {
		private := store.Private
		f.updateVersion(w.versions["v2.0b1"], store.VersionUpdate{PrivacyLevel: &private})
		defer func() {
			public := store.Public
			f.updateVersion(w.versions["v2.0b1"], store.VersionUpdate{PrivacyLevel: &public})
		}()
		resp := f.get(page, token(f.ownerKey)...)
		if resp.StatusCode != 404 || resp.Header.Get("Cache-Control") != "private, no-cache" || !strings.Contains(body(t, resp), "<h1>Demo v2.0b1</h1>") {
			t.Errorf("maintainer: %d %q", resp.StatusCode, resp.Header.Get("Cache-Control"))
		}
		resp = f.get(page)
		if strings.Contains(body(t, resp), "v2.0b1") {
			t.Errorf("anonymous reader sees the private version's page")
		}
	})
}
