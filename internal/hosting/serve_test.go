package hosting

import (
	"net/http"
	"testing"

	"docsd/internal/storetest"
	"docsd/store"
)

// serveWorld makes projects for every step of serving (request.serve):
//
//	demo      en; latest (dirhtml pages, a README folder, 404.html), 1.0,
//	          old (inactive), unbuilt (active, never built), hidden
//	          (private), external version 7
//	demo-es   es, translation of demo
//	demo-fr   fr, private translation of demo
//	lib       child of demo with alias library; latest has 404/index.html
//	one       single version
//	secret    private project
func serveWorld(f *fixture) {
	f.t.Helper()
	demo := f.project("demo", "en")
	f.publish(demo, "latest", map[string]string{
		"index.html":         "demo latest",
		"install/index.html": "install, dirhtml",
		"api.html":           "api, html",
		"guide/README.html":  "guide readme",
		"404.html":           "demo 404",
	})
	f.publish(demo, "1.0", map[string]string{"index.html": "demo 1.0"})
	inactive := false
	f.updateVersion(f.publish(demo, "old", map[string]string{"index.html": "old"}), store.VersionUpdate{Active: &inactive})
	f.version(demo, "unbuilt")
	private := store.Private
	f.updateVersion(f.publish(demo, "hidden", map[string]string{"index.html": "hidden page"}), store.VersionUpdate{PrivacyLevel: &private})
	external := store.External
	f.updateVersion(f.publish(demo, "7", map[string]string{"index.html": "pr 7"}), store.VersionUpdate{Type: &external})

	es := f.project("demo-es", "es")
	if err := f.s.SetTranslationOf(f.t.Context(), es.ID, &demo.ID); err != nil {
		f.t.Fatal(err)
	}
	f.publish(es, "latest", map[string]string{"index.html": "hola"})
	fr := f.project("demo-fr", "fr")
	if err := f.s.SetTranslationOf(f.t.Context(), fr.ID, &demo.ID); err != nil {
		f.t.Fatal(err)
	}
	f.publish(fr, "latest", map[string]string{"index.html": "bonjour"})
	f.update(fr, store.ProjectUpdate{PrivacyLevel: &private})

	lib := f.project("lib", "en")
	f.publish(lib, "latest", map[string]string{"index.html": "lib", "404/index.html": "lib 404 folder"})
	if _, err := f.s.CreateRelationship(f.t.Context(), demo.ID, lib.ID, "library"); err != nil {
		f.t.Fatal(err)
	}

	one := f.project("one", "en")
	single := true
	f.update(one, store.ProjectUpdate{SingleVersion: &single})
	f.publish(one, "latest", map[string]string{"index.html": "one", "page.html": "one page"})

	secret := f.project("secret", "en")
	f.publish(secret, "latest", map[string]string{"index.html": "secret"})
	f.update(secret, store.ProjectUpdate{PrivacyLevel: &private})
}

type serveCase struct {
	name     string
	url      string
	header   []string
	status   int
	location string
	body     string // checked when not ""
}

func runServeCases(t *testing.T, f *fixture, cases []serveCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := f.get(tc.url, tc.header...)
			got := body(t, resp)
			if resp.StatusCode != tc.status {
				t.Fatalf("GET %s: got %d (Location %q, body %.60q), want %d", tc.url, resp.StatusCode, resp.Header.Get("Location"), got, tc.status)
			}
			if loc := resp.Header.Get("Location"); loc != tc.location {
				t.Errorf("GET %s: got Location %q, want %q", tc.url, loc, tc.location)
			}
			if tc.body != "" && got != tc.body {
				t.Errorf("GET %s: got body %.80q, want %.80q", tc.url, got, tc.body)
			}
		})
	}
}

// TestServeSteps walks every step of serving in path mode, and the same
// namespace in subdomain mode.
func TestServeSteps(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		f := newFixture(t, d)
		serveWorld(f)
		const root = "https://docs.example.com/docs"
		owner, other := token(f.ownerKey), token(f.otherKey)
		generic := notFoundHTML
		runServeCases(t, f, []serveCase{
			{"1 unknown project", root + "/nope/en/latest/", nil, 404, "", generic},
			{"1 no project", root + "/", nil, 404, "", generic},
			{"1a private project, anonymous", root + "/secret/en/latest/", nil, 404, "", generic},
			{"1a private project, no redirect either", root + "/secret/", nil, 404, "", generic},
			{"1a private project, another user", root + "/secret/en/latest/", other, 404, "", generic},
			{"1a private project, bad token", root + "/secret/en/latest/", token("0000"), 404, "", generic},
			{"1a private project, maintainer", root + "/secret/en/latest/", owner, 200, "", "secret"},
			{"1a private project, token scheme in any case", root + "/secret/en/latest/", []string{"Authorization", "token " + f.ownerKey}, 200, "", "secret"},

			{"2 page", root + "/demo/page/api.html?x=1", nil, 302, root + "/demo/en/latest/api.html?x=1", ""},
			{"2 subproject page", root + "/demo/projects/library/page/a/b.html", nil, 302, root + "/demo/projects/library/en/latest/a/b.html", ""},
			{"2 single-version page", root + "/one/page/page.html", nil, 302, root + "/one/page.html", ""},
			{"2 translation's own page", root + "/demo-es/page/x.html", nil, 302, root + "/demo/es/latest/x.html", ""},

			{"4 subproject by alias", root + "/demo/projects/library/en/latest/", nil, 200, "", "lib"},
			{"4 subproject by child slug", root + "/demo/projects/lib/en/latest/", nil, 200, "", "lib"},
			{"4 unknown alias", root + "/demo/projects/nope/en/latest/", nil, 404, "", generic},
			{"4 subproject root", root + "/demo/projects/library/", nil, 302, root + "/demo/projects/library/en/latest/", ""},
			{"4 subproject root without slash", root + "/demo/projects/library", nil, 302, root + "/demo/projects/library/en/latest/", ""},

			{"5 single version", root + "/one/", nil, 200, "", "one"},
			{"5 single version page", root + "/one/page.html", nil, 200, "", "one page"},
			{"5 single version without slash", root + "/one", nil, 302, root + "/one/", ""},
			{"5 single version missing page", root + "/one/missing.html", nil, 404, "", generic},

			{"6 project root", root + "/demo/", nil, 302, root + "/demo/en/latest/", ""},
			{"6 project root without slash", root + "/demo", nil, 302, root + "/demo/en/latest/", ""},
			{"6 project root keeps the query", root + "/demo/?a=b", nil, 302, root + "/demo/en/latest/?a=b", ""},
			{"6 language root", root + "/demo/en/", nil, 302, root + "/demo/en/latest/", ""},
			{"6 translation's language root", root + "/demo/es/", nil, 302, root + "/demo/es/latest/", ""},
			{"6 language without slash", root + "/demo/es?a=1", nil, 302, root + "/demo/es/?a=1", ""},
			{"6 version without slash", root + "/demo/en/1.0", nil, 302, root + "/demo/en/1.0/", ""},
			{"6 translation", root + "/demo/es/latest/", nil, 200, "", "hola"},
			{"6 private translation, anonymous", root + "/demo/fr/latest/", nil, 404, "", "demo 404"},
			{"6 private translation's root, anonymous", root + "/demo/fr/", nil, 404, "", "demo 404"},
			{"6 private translation, maintainer", root + "/demo/fr/latest/", owner, 200, "", "bonjour"},
			{"6 language without translation", root + "/demo/de/latest/", nil, 404, "", "demo 404"},
			{"6 not a language", root + "/demo/xx/latest/index.html", nil, 404, "", "demo 404"},

			{"7 missing version", root + "/demo/en/nope/", nil, 404, "", "demo 404"},
			{"7 inactive version", root + "/demo/en/old/", nil, 404, "", "demo 404"},
			{"7 never built", root + "/demo/en/unbuilt/", nil, 404, "", ""}, // the unbuilt page (unbuilt_test.go)
			{"7 external version under a language", root + "/demo/en/7/", nil, 404, "", "demo 404"},
			{"7 private version, anonymous", root + "/demo/en/hidden/", nil, 404, "", generic},
			{"7 private version, another user", root + "/demo/en/hidden/", other, 404, "", generic},
			{"7 private version, maintainer", root + "/demo/en/hidden/", owner, 200, "", "hidden page"},

			{"8 index", root + "/demo/en/latest/", nil, 200, "", "demo latest"},
			{"8 dirhtml", root + "/demo/en/latest/install/", nil, 200, "", "install, dirhtml"},
			{"8 html", root + "/demo/en/latest/api.html", nil, 200, "", "api, html"},
			{"8 other version", root + "/demo/en/1.0/", nil, 200, "", "demo 1.0"},
			{"8 dot-dot", root + "/demo/en/latest/install/../api.html", nil, 404, "", "demo 404"},

			{"9.2 folder with an index", root + "/demo/en/latest/install?q=1", nil, 302, root + "/demo/en/latest/install/?q=1", ""},
			{"9.2 folder with a README", root + "/demo/en/latest/guide", nil, 302, root + "/demo/en/latest/guide/README.html", ""},
			{"9.3 own 404 page", root + "/demo/en/latest/missing.html", nil, 404, "", "demo 404"},
			{"9.3 default version's 404 page", root + "/demo/en/1.0/missing.html", nil, 404, "", "demo 404"},
			{"9.3 404 folder", root + "/demo/projects/library/en/latest/missing.html", nil, 404, "", "lib 404 folder"},

			{"9.6 external version", root + "/demo/_/external/7/", nil, 200, "", "pr 7"},
			{"9.6 external version without slash", root + "/demo/_/external/7", nil, 302, root + "/demo/_/external/7/", ""},
			{"9.6 unknown external version", root + "/demo/_/external/8/", nil, 404, "", "demo 404"},

			{"subdomain index", "https://demo.docs.example.io/en/latest/", nil, 200, "", "demo latest"},
			{"subdomain any case and port", "https://DEMO.docs.example.io:8443/en/latest/api.html", nil, 200, "", "api, html"},
			{"subdomain root", "https://demo.docs.example.io/", nil, 302, "https://demo.docs.example.io/en/latest/", ""},
			{"subdomain subproject", "https://demo.docs.example.io/projects/library/", nil, 302, "https://demo.docs.example.io/projects/library/en/latest/", ""},
			{"subdomain folder", "https://demo.docs.example.io/en/latest/install", nil, 302, "https://demo.docs.example.io/en/latest/install/", ""},
			{"subdomain unknown project", "https://nope.docs.example.io/en/latest/", nil, 404, "", string(signInNotFound("/en/latest/").body)},
			{"subdomain external", "https://demo.docs.example.io/_/external/7/", nil, 200, "", "pr 7"},
			{"subdomain mode, path URL", "https://docs.example.io/docs/demo/en/latest/api.html?x=1", nil, 301, "https://demo.docs.example.io/en/latest/api.html?x=1", ""},
			{"subdomain mode, path URL of the root", "https://docs.example.io/docs/demo", nil, 301, "https://demo.docs.example.io/", ""},
			{"subdomain mode, not a slug", "https://docs.example.io/docs/evil.example%3F/x", nil, 404, "", generic},
			{"subdomain mode, not a slug either", "https://docs.example.io/docs/a@evil.example/x", nil, 404, "", generic},
			{"subdomain mode, escaped slash after the slug", "https://docs.example.io/docs/demo%2F@evil.example/x?y=1", nil, 301, "https://demo.docs.example.io/@evil.example/x?y=1", ""},
			{"subdomain mode, slug with an escaped suffix", "https://docs.example.io/docs/demo%2e/x", nil, 404, "", generic},
		})

		t.Run("DefaultVersion", func(t *testing.T) {
			dv := f.project("dv", "en")
			f.publish(dv, "2.0", map[string]string{"index.html": "two"})
			v2 := "2.0"
			f.update(dv, store.ProjectUpdate{DefaultVersion: &v2})
			runServeCases(t, f, []serveCase{
				{"root", root + "/dv/", nil, 302, root + "/dv/en/2.0/", ""},
				{"page", root + "/dv/page/a.html", nil, 302, root + "/dv/en/2.0/a.html", ""},
			})
			inactive := false
			f.updateVersion(f.version(dv, "2.0"), store.VersionUpdate{Active: &inactive})
			runServeCases(t, f, []serveCase{
				{"inactive default", root + "/dv/", nil, 302, root + "/dv/en/latest/", ""},
			})
		})

		t.Run("MethodNotAllowed", func(t *testing.T) {
			for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodOptions} {
				resp := f.do(method, root+"/demo/en/latest/")
				if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" {
					t.Errorf("%s: got %d Allow %q, want 405 Allow %q", method, resp.StatusCode, resp.Header.Get("Allow"), "GET, HEAD")
				}
			}
		})

		t.Run("OnlyMaintainers", func(t *testing.T) {
			_, superKey := storetest.MustSuperuser(t, f.s, "root")
			inactive, inactiveKey := storetest.MustUser(t, f.s, "gone")
			secret, err := f.s.FindProjectBySlug(t.Context(), "secret")
			if err != nil {
				t.Fatal(err)
			}
			if err := f.s.AddMaintainer(t.Context(), secret.ID, inactive.ID); err != nil {
				t.Fatal(err)
			}
			if resp := f.get(root+"/secret/en/latest/", token(inactiveKey)...); resp.StatusCode != 200 {
				t.Fatalf("active co-maintainer: got %d, want 200", resp.StatusCode)
			}
			if err := f.s.SetUserActive(t.Context(), "gone", false); err != nil {
				t.Fatal(err)
			}
			runServeCases(t, f, []serveCase{
				{"superuser, private project", root + "/secret/en/latest/", token(superKey), 404, "", generic},
				{"superuser, private version", root + "/demo/en/hidden/", token(superKey), 404, "", generic},
				{"inactive maintainer", root + "/secret/en/latest/", token(inactiveKey), 404, "", generic},
				{"two words after Token", root + "/secret/en/latest/", []string{"Authorization", "Token " + f.ownerKey + " x"}, 404, "", generic},
				{"Bearer", root + "/secret/en/latest/", []string{"Authorization", "Bearer " + f.ownerKey}, 404, "", generic},
			})
		})

		t.Run("PrivateAnswersAreNotShared", func(t *testing.T) {
			resp := f.get(root+"/secret/en/latest/", owner...)
			if got := resp.Header.Get("Cache-Control"); got != "private" {
				t.Errorf("got Cache-Control %q, want private", got)
			}
			resp = f.get(root + "/demo/en/latest/")
			if got := resp.Header.Get("Cache-Control"); got != "" {
				t.Errorf("public page: got Cache-Control %q, want none", got)
			}
		})
	})
}
