package hosting

import (
	"encoding/json"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"docsd/store"
)

var betweenTags = regexp.MustCompile(`>\s+<`)

// squeeze drops the whitespace between tags (free in R.7.4).
func squeeze(s string) string { return strings.TrimSpace(betweenTags.ReplaceAllString(s, "><")) }

// TestFooterWorkedExample checks footer_html against reader.md R.9.3.
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
