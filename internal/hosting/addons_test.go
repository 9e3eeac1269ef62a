package hosting

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"

	"docsd/internal/choices"
	"docsd/internal/storetest"
	"docsd/store"
)

const addonsR91 = "https://docs.example.com/_/addons/?api-version=1&client-version=0.49.0&project-slug=demo&version-slug=v1.0"

// canonicalJSON re-encodes a JSON text with sorted keys, compactly.
func canonicalJSON(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, s)
	}
	return string(marshalJSON(v))
}

// TestAddonsWorkedExample checks a whole `/_/addons/` answer for the
// reader fixture's project, and its variations.
func TestAddonsWorkedExample(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		f := newFixture(t, d)
		w := newReaderWorld(f)
		raw, err := os.ReadFile("testdata/addons_r91.json")
		if err != nil {
			t.Fatal(err)
		}
		ids := map[string]int64{"demo": w.demo.ID, "demo-es": w.es.ID, "build": w.build.ID}
		for _, slug := range []string{"latest", "v1.0", "v1.1", "stable"} {
			ids[slug] = w.versions[slug].ID
		}
		want := string(raw)
		for name, id := range ids {
			want = strings.ReplaceAll(want, `"{{`+name+`}}"`, strconv.FormatInt(id, 10))
			want = strings.ReplaceAll(want, `{{`+name+`}}`, strconv.FormatInt(id, 10))
		}

		resp := f.get(addonsR91)
		got := body(t, resp)
		if resp.StatusCode != 200 {
			t.Fatalf("status = %d, want 200: %s", resp.StatusCode, got)
		}
		if got != canonicalJSON(t, got) {
			t.Errorf("body is not compact with sorted keys:\n%s", got)
		}
		if c := canonicalJSON(t, want); got != c {
			t.Errorf("body differs from the worked example: %s", firstDiff(got, c))
		}
		for k, v := range map[string]string{"Content-Type": "application/json", "X-Content-Type-Options": "nosniff",
			"Vary": "Authorization, Cookie", "Cache-Control": "no-cache"} {
			if g := resp.Header.Get(k); g != v {
				t.Errorf("%s = %q, want %q", k, g, v)
			}
		}
		etag := resp.Header.Get("ETag")
		if !strings.HasPrefix(etag, `"`) {
			t.Errorf("ETag = %q, want a strong tag", etag)
		}
		if resp := f.get(addonsR91, "If-None-Match", etag); resp.StatusCode != http.StatusNotModified {
			t.Errorf("If-None-Match: status %d, want 304", resp.StatusCode)
		}

		// A maintainer sees internal-notes last, privately cached.
		resp = f.get(addonsR91, token(f.ownerKey)...)
		var data struct {
			Versions struct {
				Active []struct{ Slug string }
			}
		}
		if err := json.Unmarshal([]byte(body(t, resp)), &data); err != nil {
			t.Fatal(err)
		}
		var slugs []string
		for _, v := range data.Versions.Active {
			slugs = append(slugs, v.Slug)
		}
		if g, w := strings.Join(slugs, " "), "latest stable v1.1 v1.0 internal-notes"; g != w {
			t.Errorf("maintainer's versions.active = %s, want %s", g, w)
		}
		if g := resp.Header.Get("Cache-Control"); g != "private, no-cache" {
			t.Errorf("maintainer's Cache-Control = %q", g)
		}

		// The private version anonymously: absent, not an error.
		resp = f.get(strings.Replace(addonsR91, "v1.0", "internal-notes", 1))
		var hidden map[string]any
		json.Unmarshal([]byte(body(t, resp)), &hidden)
		search := hidden["addons"].(map[string]any)["search"].(map[string]any)
		if resp.StatusCode != 200 || hidden["versions"].(map[string]any)["current"] != nil ||
			hidden["builds"].(map[string]any)["current"] != nil || search["default_filter"] != "project:demo" ||
			len(search["filters"].([]any)) != 0 {
			t.Errorf("internal-notes anonymously: %d %v", resp.StatusCode, hidden)
		}
	})
}

// TestAddonsErrors checks `/_/addons/`'s errors in their order, and the
// methods and trailing slash of the reader endpoints.
func TestAddonsErrors(t *testing.T) {
	f := newFixture(t, store.SQLite)
	newReaderWorld(f)
	private := store.Private
	secret := f.update(f.project("secret", "en"), store.ProjectUpdate{PrivacyLevel: &private})
	_ = secret
	base := "https://docs.example.com/_/addons/"
	cases := []struct {
		name, query string
		header      []string
		status      int
		body        string
	}{
		{"no slugs", "api-version=1", nil, 400, `{"error":"'project-slug' and 'version-slug' GET attributes are required when not sending 'url'"}`},
		{"empty version slug", "api-version=1&project-slug=demo&version-slug=", nil, 400, `{"error":"'project-slug' and 'version-slug' GET attributes are required when not sending 'url'"}`},
		{"unknown project before api-version", "project-slug=nope&version-slug=latest", nil, 404, `{"detail":"No Project matches the given query."}`},
		{"private project", "api-version=1&project-slug=secret&version-slug=latest", nil, 404, `{"detail":"No Project matches the given query."}`},
		{"private project, other user", "api-version=1&project-slug=secret&version-slug=latest", token(f.otherKey), 404, `{"detail":"No Project matches the given query."}`},
		{"url names nothing", "api-version=1&url=" + url.QueryEscape("https://evil.example/docs/demo/en/latest/"), nil, 404, `{"detail":"There is no project with the 'project-slug' requested"}`},
		{"url of a private project", "api-version=1&url=" + url.QueryEscape("https://docs.example.com/docs/secret/en/latest/"), nil, 404, `{"detail":"There is no project with the 'project-slug' requested"}`},
		{"no api-version", "project-slug=demo&version-slug=latest", nil, 400, `{"error":"'api-version' GET attribute is required"}`},
		{"bad api-version", "api-version=one&project-slug=demo&version-slug=latest", nil, 400, `{"error":"The version specifified in 'api-version' is invalid"}`},
		{"api-version 3", "api-version=3.0&project-slug=demo&version-slug=latest", nil, 400, `{"error":"The version specified in 'api-version' is currently not supported"}`},
		{"api-version 2", "api-version=2&project-slug=demo&version-slug=latest", nil, 200, `{"api_version":"2","comment":"Undefined yet. Use v1 for now"}`},
		{"api-version 1.4.0 is 1", "api-version=1.4.0&project-slug=demo&version-slug=nope", nil, 200, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := f.get(base+"?"+tc.query, tc.header...)
			got := body(t, resp)
			if resp.StatusCode != tc.status || (tc.body != "" && got != tc.body) {
				t.Errorf("got %d %s, want %d %s", resp.StatusCode, got, tc.status, tc.body)
			}
			if tc.status != 200 && resp.Header.Get("Cache-Control") != "no-cache" {
				t.Errorf("Cache-Control = %q, want no-cache", resp.Header.Get("Cache-Control"))
			}
		})
	}
	resp := f.do(http.MethodPost, base+"?api-version=1")
	if g := body(t, resp); resp.StatusCode != 405 || g != `{"detail":"Method \"POST\" not allowed."}` || resp.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST: %d %s Allow=%q", resp.StatusCode, g, resp.Header.Get("Allow"))
	}
	resp = f.get("https://docs.example.com/_/addons?api-version=1&x=2")
	if resp.StatusCode != 301 || resp.Header.Get("Location") != "/_/addons/?api-version=1&x=2" {
		t.Errorf("no slash: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	// Subdomain mode: on a project's docs host too.
	resp = f.get("https://demo.docs.example.io/_/addons/?api-version=1&project-slug=demo&version-slug=latest")
	if resp.StatusCode != 200 {
		t.Errorf("docs subdomain: %d", resp.StatusCode)
	}
}

// TestAddonsURLResolution checks the unresolver of the `url` parameter.
func TestAddonsURLResolution(t *testing.T) {
	f := newFixture(t, store.SQLite)
	w := newReaderWorld(f)
	one := f.project("one", "en")
	single := true
	f.update(one, store.ProjectUpdate{SingleVersion: &single})
	yes := true
	f.updateVersion(f.version(one, "latest"), store.VersionUpdate{Built: &yes})
	external := store.External
	f.updateVersion(storetest.MustVersion(t, f.s, w.demo.ID, "12"), store.VersionUpdate{Type: &external, Built: &yes})
	flat := f.project("flat", "en")
	flatScheme := choices.MultipleVersionsWithoutTranslations
	f.update(flat, store.ProjectUpdate{VersioningScheme: &flatScheme})
	f.updateVersion(f.version(flat, "latest"), store.VersionUpdate{Built: &yes})

	cases := []struct{ url, project, version, filename string }{
		{"https://docs.example.com/docs/demo/en/v1.0/", "demo", "v1.0", "/index.html"},
		{"https://docs.example.com/docs/demo/en/v1.0/guide/install.html?x=1#s", "demo", "v1.0", "/guide/install.html"},
		{"https://docs.example.com/docs/demo/en/v1.0/guide/", "demo", "v1.0", "/guide/index.html"},
		{"https://docs.example.com/docs/demo/es/latest/", "demo-es", "latest", "/index.html"},
		{"https://docs.example.com/docs/demo/projects/library/en/1.0/api.html", "lib", "1.0", "/api.html"},
		{"https://docs.example.com/docs/one/page.html", "one", "latest", "/page.html"},
		{"https://docs.example.com/docs/demo/_/external/12/", "demo", "12", "/index.html"},
		{"https://docs.example.com/docs/demo/en/nope/", "demo", "", ""},
		{"https://docs.example.com/docs/demo/", "demo", "", ""},
		{"https://demo.docs.example.io/projects/library/en/1.0/", "lib", "1.0", "/index.html"},
		{"https://docs.example.com/docs/demo/en/v%31.0/a%20b.html", "demo", "v1.0", "/a b.html"},
		// Without translations: /<version>/<file>.
		{"https://docs.example.com/docs/flat/latest/api.html", "flat", "latest", "/api.html"},
		{"https://docs.example.com/docs/flat/en/latest/", "flat", "", ""},
		{"https://docs.example.com/docs/flat/", "flat", "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.url, func(t *testing.T) {
			resp := f.get("https://docs.example.com/_/addons/?api-version=1&url=" + url.QueryEscape(tc.url))
			if strings.Contains(tc.url, "docs.example.io") {
				resp = f.get("https://demo.docs.example.io/_/addons/?api-version=1&url=" + url.QueryEscape(tc.url))
			}
			var data struct {
				Projects struct{ Current struct{ Slug string } }
				Versions struct{ Current *struct{ Slug string } }
				Addons   struct {
					DocDiff *struct {
						BaseURL *string `json:"base_url"`
					} `json:"doc_diff"`
				}
				Readthedocs struct{ Resolver struct{ Filename *string } }
			}
			b := body(t, resp)
			if resp.StatusCode != 200 {
				t.Fatalf("status %d: %s", resp.StatusCode, b)
			}
			json.Unmarshal([]byte(b), &data)
			gotVersion, gotFile := "", ""
			if data.Versions.Current != nil {
				gotVersion = data.Versions.Current.Slug
			}
			if fn := data.Readthedocs.Resolver.Filename; fn != nil {
				gotFile = *fn
			}
			if data.Projects.Current.Slug != tc.project || gotVersion != tc.version || gotFile != tc.filename {
				t.Errorf("got %s %q %q, want %s %q %q", data.Projects.Current.Slug, gotVersion, gotFile, tc.project, tc.version, tc.filename)
			}
			if data.Addons.DocDiff == nil {
				t.Errorf("doc_diff missing with url")
			}
		})
	}
}

// firstDiff shows where got and want part, with some context.
func firstDiff(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := max(0, i-80)
	return "\n got …" + got[from:min(len(got), i+80)] + "…\nwant …" + want[from:min(len(want), i+80)] + "…"
}
