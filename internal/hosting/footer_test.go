package hosting

import (
	"encoding/json"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"docsd/internal/storetest"
	"docsd/store"
)

var betweenTags = regexp.MustCompile(`>\s+<`)

// squeeze drops the whitespace between tags, which the flyout HTML may
// have or not.
func squeeze(s string) string { return strings.TrimSpace(betweenTags.ReplaceAllString(s, "><")) }

// TestFooterWorkedExample checks a whole footer_html answer for the reader
// fixture's project.
func TestFooterWorkedExample(t *testing.T) {
	f := newFixture(t, store.SQLite)
	w := newReaderWorld(f)
	want, err := os.ReadFile("testdata/footer_r93.html")
	if err != nil {
		t.Fatal(err)
	}
	const q = "?project=demo&version=v1.0&page=install&theme=sphinx_rtd_theme&docroot=/docs/&source_suffix=.rst"
	v11 := strconv.FormatInt(w.versions["v1.1"].ID, 10)
	rest := `,"show_version_warning":true,"version_active":true,"version_compare":{"project":"Version v1.1 of Demo (` + v11 +
		`)","version":"1.1","is_highest":false,"url":"https://docs.example.com/docs/demo/en/v1.1/","slug":"v1.1"},"version_supported":true}`
	for _, path := range []string{"/api/v2/footer_html/", "/_/api/v2/footer_html/"} {
		t.Run(path, func(t *testing.T) {
			var header []string
			if path == "/api/v2/footer_html/" {
				header = token(f.ownerKey) // ignored: always anonymous
			}
			resp := f.get("https://docs.example.com"+path+q, header...)
			got := body(t, resp)
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
				t.Fatalf("%d %q %s", resp.StatusCode, resp.Header.Get("Content-Type"), got)
			}
			html, after, ok := strings.Cut(strings.TrimPrefix(got, `{"html":`), `","show_version_warning"`)
			if !ok {
				t.Fatalf("keys out of order: %s", got)
			}
			var markup string
			if err := jsonUnquote(html+`"`, &markup); err != nil {
				t.Fatal(err)
			}
			if g, w := squeeze(markup), squeeze(string(want)); g != w {
				t.Errorf("html: %s", firstDiff(g, w))
			}
			if g := `,"show_version_warning"` + after; g != rest {
				t.Errorf("rest:\n got %s\nwant %s", g, rest)
			}
			cors := resp.Header.Get("Access-Control-Allow-Origin")
			if (path == "/api/v2/footer_html/") != (cors == "*") {
				t.Errorf("Access-Control-Allow-Origin = %q on %s", cors, path)
			}
		})
	}

	cases := []struct{ name, query, status, ctype, body string }{
		{"jsonp", q + "&format=jsonp&callback=jQuery1_2", "200", "application/javascript; charset=utf-8", "jQuery1_2({\"html\":"},
		{"unknown project", "?project=nope&version=latest", "404", "application/json", `{"detail":"Not found."}`},
		{"private version, anonymous", "?project=demo&version=internal-notes", "404", "application/json", `{"detail":"Not found."}`},
		{"bad callback", "?project=demo&version=latest&format=jsonp&callback=alert(1)", "400", "application/json", `{"detail":"Invalid callback."}`},
		{"jsonp error", "?project=nope&format=jsonp", "404", "application/javascript; charset=utf-8", `callback({"detail":"Not found."});`},
		{"unbuilt version is listed", "?project=demo&version=V2.0B1", "200", "application/json", `{"html":`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := f.get("https://docs.example.com/api/v2/footer_html/" + tc.query)
			got := body(t, resp)
			if strconv.Itoa(resp.StatusCode) != tc.status || resp.Header.Get("Content-Type") != tc.ctype || !strings.HasPrefix(got, tc.body) {
				t.Errorf("got %d %q %.120s", resp.StatusCode, resp.Header.Get("Content-Type"), got)
			}
		})
	}
	// The public path is always anonymous: a maintainer's token shows no
	// private version.
	resp := f.get("https://docs.example.com/api/v2/footer_html/?project=demo&version=latest", token(f.ownerKey)...)
	if got := body(t, resp); strings.Contains(got, "internal-notes") {
		t.Errorf("anonymous route names a private version")
	}
	pre := f.do(http.MethodOptions, "https://docs.example.com/api/v2/footer_html/", "Origin", "https://x.example", "Access-Control-Request-Method", "GET")
	if pre.StatusCode != 200 || pre.Header.Get("Access-Control-Max-Age") != "86400" || pre.Header.Get("Access-Control-Allow-Credentials") != "" {
		t.Errorf("preflight: %d %v", pre.StatusCode, pre.Header)
	}
}

func jsonUnquote(s string, out *string) error { return json.Unmarshal([]byte(s), out) }

// TestFooterSession: on a docs subdomain, footer_html's `/_/` form reads
// the docs session, except as JSONP: a JSONP answer is a script any page
// may load with the reader's cookies, so it is anonymous data only — a
// private version answers as it does to anyone (404), a public one lists
// no private version. The JSON answer computed with a session is
// Cache-Control: private; every `/_/` JSON answer varies on the cookie.
func TestFooterSession(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		f := newFixture(t, d)
		newReaderWorld(f)
		value, err := f.s.CreateDocsSession(t.Context(), f.ownerKey, "demo")
		if err != nil {
			t.Fatal(err)
		}
		const footer = "https://demo.docs.example.io/_/api/v2/footer_html/?project=demo&version="
		signedIn := []string{"Cookie", "docsd_docs=" + value}
		for _, tc := range []struct {
			name   string
			header []string
		}{{"session", signedIn}, {"token", token(f.ownerKey)}} {
			for _, version := range []string{"internal-notes", "latest"} {
				t.Run("jsonp/"+tc.name+"/"+version, func(t *testing.T) {
					q := footer + version + "&format=jsonp&callback=cb"
					anon := f.get(q)
					want := body(t, anon)
					got := f.get(q, tc.header...)
					if g := body(t, got); got.StatusCode != anon.StatusCode || g != want {
						t.Errorf("with a %s: %d %.200s\nwant as anonymous: %d %.200s", tc.name, got.StatusCode, g, anon.StatusCode, want)
					}
					if version == "internal-notes" && anon.StatusCode != http.StatusNotFound {
						t.Errorf("anonymous JSONP of a private version: %d, want 404", anon.StatusCode)
					}
				})
			}
		}
		for _, version := range []string{"internal-notes", "latest"} {
			t.Run("json/session/"+version, func(t *testing.T) {
				resp := f.get(footer+version, signedIn...)
				got := body(t, resp)
				if resp.StatusCode != http.StatusOK || !strings.Contains(got, "internal-notes") {
					t.Fatalf("JSON with the session: %d %.200s, want the private version listed", resp.StatusCode, got)
				}
				if cc := resp.Header.Get("Cache-Control"); !strings.Contains(cc, "private") {
					t.Errorf("JSON with the session: Cache-Control %q, want private", cc)
				}
				if v := resp.Header.Values("Vary"); !strings.Contains(strings.Join(v, ","), "Cookie") {
					t.Errorf("JSON with the session: Vary %q, want Cookie", v)
				}
			})
		}
		resp := f.get(footer + "latest")
		if cc, v := resp.Header.Get("Cache-Control"), strings.Join(resp.Header.Values("Vary"), ","); strings.Contains(cc, "private") || !strings.Contains(v, "Cookie") {
			t.Errorf("anonymous JSON: Cache-Control %q, Vary %q; want shared but varying on Cookie", cc, v)
		}
	})
}
