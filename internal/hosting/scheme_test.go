package hosting

import (
	"testing"

	"docsd/internal/choices"
	"docsd/internal/storetest"
	"docsd/store"
)

// schemeWorld makes a project of each versioning scheme:
//
//	flat      multiple_versions_without_translations; latest, en (a version
//	          whose slug looks like a language), 1.0 private; a translation
//	          flat-es and a child lib nested under it
//	lib       child of flat (alias library), itself without translations
//	solo      single_version_without_translations, switched from the default
//	pr        external version 7, published
func schemeWorld(f *fixture) {
	f.t.Helper()
	flatScheme, single := choices.MultipleVersionsWithoutTranslations, choices.SingleVersionWithoutTranslations
	private := store.Private

	flat := f.project("flat", "en")
	f.update(flat, store.ProjectUpdate{VersioningScheme: &flatScheme})
	f.publish(flat, "latest", map[string]string{"index.html": "flat latest", "api.html": "flat api", "404.html": "flat 404"})
	f.publish(flat, "en", map[string]string{"index.html": "version en"})
	f.updateVersion(f.publish(flat, "1.0", map[string]string{"index.html": "flat 1.0"}), store.VersionUpdate{PrivacyLevel: &private})
	es := f.project("flat-es", "es")
	if err := f.s.SetTranslationOf(f.t.Context(), es.ID, &flat.ID); err != nil {
		f.t.Fatal(err)
	}
	f.publish(es, "latest", map[string]string{"index.html": "hola"})

	// Redirects see /<version>/<file> as version + path.
	for i, r := range []store.Redirect{
		{Type: "page", FromURL: "/old.html", ToURL: "/api.html"},
		{Type: "exact", FromURL: "/latest/moved/*", ToURL: "/latest/:splat"},
	} {
		r.ProjectID, r.Position, r.HTTPStatus, r.Enabled = flat.ID, i, 302, true
		if _, err := f.s.CreateRedirect(f.t.Context(), r); err != nil {
			f.t.Fatal(err)
		}
	}

	lib := f.project("lib", "en")
	f.update(lib, store.ProjectUpdate{VersioningScheme: &flatScheme})
	f.publish(lib, "latest", map[string]string{"index.html": "lib"})
	if _, err := f.s.CreateRelationship(f.t.Context(), flat.ID, lib.ID, "library"); err != nil {
		f.t.Fatal(err)
	}

	solo := f.project("solo", "en")
	f.update(solo, store.ProjectUpdate{VersioningScheme: &single})
	f.publish(solo, "latest", map[string]string{"index.html": "solo", "page.html": "solo page"})

	pr := f.project("pr", "en")
	external := store.External
	f.updateVersion(f.publish(pr, "7", map[string]string{"index.html": "pr 7"}), store.VersionUpdate{Type: &external, PrivacyLevel: &private})
}

// TestServeVersioningSchemes: the URLs of each versioning scheme, in path
// and subdomain mode.
func TestServeVersioningSchemes(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		f := newFixture(t, d)
		schemeWorld(f)
		owner := token(f.ownerKey)
		for _, mode := range []struct{ name, flat, solo string }{
			{"path", "https://docs.example.com/docs/flat", "https://docs.example.com/docs/solo"},
			{"subdomain", "https://flat.docs.example.io", "https://solo.docs.example.io"},
		} {
			t.Run(mode.name, func(t *testing.T) {
				root, solo := mode.flat, mode.solo
				// A docs subdomain has sessions: its 404 page offers
				// to sign in, back to the path asked for.
				generic := func(path string) string {
					if mode.name == "subdomain" {
						return string(signInNotFound(path).body)
					}
					return notFoundHTML
				}
				runServeCases(t, f, []serveCase{
					{"root", root + "/", nil, 302, root + "/latest/", ""},
					{"root keeps the query", root + "/?a=b", nil, 302, root + "/latest/?a=b", ""},
					{"version", root + "/latest/", nil, 200, "", "flat latest"},
					{"page", root + "/latest/api.html", nil, 200, "", "flat api"},
					{"version without slash", root + "/latest?a=1", nil, 302, root + "/latest/?a=1", ""},
					{"a version that looks like a language", root + "/en/", nil, 200, "", "version en"},
					{"the old layout is not found", root + "/en/latest/", nil, 404, "", "flat 404"},
					{"unknown version", root + "/nope/", nil, 404, "", "flat 404"},
					{"unknown version without slash", root + "/nope", nil, 404, "", "flat 404"},
					{"translations are not reachable", root + "/es/latest/", nil, 404, "", "flat 404"},
					{"private version, anonymous", root + "/1.0/", nil, 404, "", generic("/1.0/")},
					{"private version, maintainer", root + "/1.0/", owner, 200, "", "flat 1.0"},
					{"page redirect", root + "/page/api.html", nil, 302, root + "/latest/api.html", ""},
					{"page-type redirect", root + "/latest/old.html", nil, 302, root + "/latest/api.html", ""},
					{"exact redirect", root + "/latest/moved/api.html", nil, 302, root + "/latest/api.html", ""},
					{"subproject", root + "/projects/library/latest/", nil, 200, "", "lib"},
					{"subproject root", root + "/projects/library/", nil, 302, root + "/projects/library/latest/", ""},
					{"single version", solo + "/", nil, 200, "", "solo"},
					{"single version page", solo + "/page.html", nil, 200, "", "solo page"},
					{"single version, old layout", solo + "/en/latest/", nil, 404, "", generic("/en/latest/")},
				})
			})
		}
	})
}

// TestServeExternalPrivacy: a pull-request preview is served to anyone only
// while the project's external_builds_privacy_level is public, whatever the
// version's own level, and always to maintainers.
func TestServeExternalPrivacy(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		f := newFixture(t, d)
		schemeWorld(f)
		pr, err := f.s.FindProjectBySlug(t.Context(), "pr")
		if err != nil {
			t.Fatal(err)
		}
		const url = "https://docs.example.com/docs/pr/_/external/7/"
		runServeCases(t, f, []serveCase{{"public external level", url, nil, 200, "", "pr 7"}})
		level := store.Private
		f.update(pr, store.ProjectUpdate{ExternalBuildsPrivacyLevel: &level})
		runServeCases(t, f, []serveCase{
			{"private external level, anonymous", url, nil, 404, "", notFoundHTML},
			{"private external level, another user", url, token(f.otherKey), 404, "", notFoundHTML},
			{"private external level, maintainer", url, token(f.ownerKey), 200, "", "pr 7"},
		})
		level = store.Public
		f.update(pr, store.ProjectUpdate{ExternalBuildsPrivacyLevel: &level, PrivacyLevel: &level})
		private := store.Private
		f.update(pr, store.ProjectUpdate{PrivacyLevel: &private})
		runServeCases(t, f, []serveCase{{"private project, public external level", url, nil, 404, "", notFoundHTML}})
	})
}
