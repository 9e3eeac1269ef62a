package hosting

import (
	"net/http"
	"testing"

	"docsd/store"
	"docsd/storetest"
)

// TestCacheForgetsOnCommit: what the docs host caches is forgotten as soon
// as a write to it commits on the same store, so the very next request
// sees the change (issue 14). Each case reads twice (the second answer
// from the cache), writes, and reads again.
func TestCacheForgetsOnCommit(t *testing.T) {
	private, inactive := store.Private, false
	cases := []struct {
		name   string
		url    string
		header func(f *fixture) []string
		change func(f *fixture, p *store.Project, v *store.Version)
		before int
		after  int
	}{
		{"ProjectPrivate", latest + "index.html", nil, func(f *fixture, p *store.Project, _ *store.Version) {
			f.update(p, store.ProjectUpdate{PrivacyLevel: &private})
		}, http.StatusOK, http.StatusNotFound},
		{"VersionPrivate", latest + "index.html", nil, func(f *fixture, _ *store.Project, v *store.Version) {
			f.updateVersion(v, store.VersionUpdate{PrivacyLevel: &private})
		}, http.StatusOK, http.StatusNotFound},
		{"VersionInactive", latest + "index.html", nil, func(f *fixture, _ *store.Project, v *store.Version) {
			f.updateVersion(v, store.VersionUpdate{Active: &inactive})
		}, http.StatusOK, http.StatusNotFound},
		{"MaintainerRemoved", latest + "index.html", func(f *fixture) []string { return token(f.ownerKey) },
			func(f *fixture, p *store.Project, _ *store.Version) {
				other, _ := storetest.MustUser(f.t, f.s, "second")
				if err := f.s.AddMaintainer(f.t.Context(), p.ID, other.ID); err != nil {
					f.t.Fatal(err)
				}
				if err := f.s.RemoveMaintainer(f.t.Context(), p.ID, f.owner.ID); err != nil {
					f.t.Fatal(err)
				}
			}, http.StatusOK, http.StatusNotFound},
		{"RedirectCreated", latest + "old.html", nil, func(f *fixture, p *store.Project, _ *store.Version) {
			if _, err := f.s.CreateRedirect(f.t.Context(), store.Redirect{ProjectID: p.ID, Type: "page",
				FromURL: "/old.html", ToURL: "/index.html", HTTPStatus: 302, Enabled: true}); err != nil {
				f.t.Fatal(err)
			}
		}, http.StatusNotFound, http.StatusFound},
	}
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				f := newFixture(t, d)
				p := f.project("demo", "en")
				v := f.publish(p, "latest", map[string]string{"index.html": "demo"})
				if tc.name == "MaintainerRemoved" {
					p = f.update(p, store.ProjectUpdate{PrivacyLevel: &private})
				}
				var header []string
				if tc.header != nil {
					header = tc.header(f)
				}
				for range 2 {
					if got := f.get(tc.url, header...).StatusCode; got != tc.before {
						t.Fatalf("before: got %d, want %d", got, tc.before)
					}
				}
				tc.change(f, p, v)
				if got := f.get(tc.url, header...).StatusCode; got != tc.after {
					t.Errorf("right after the change: got %d, want %d", got, tc.after)
				}
			})
		}
	})
}

// TestServes: writes to tables the docs host caches empty the cache;
// writes only to the build tables do not.
func TestServes(t *testing.T) {
	for _, tc := range []struct {
		tables []string
		want   bool
	}{
		{[]string{"projects"}, true},
		{[]string{"builds", "versions"}, true},
		{[]string{"build_commands"}, false},
		{[]string{"builds", "build_commands"}, false},
		{[]string{"a_table_added_later"}, true},
	} {
		if got := Serves(tc.tables); got != tc.want {
			t.Errorf("Serves(%v) = %v, want %v", tc.tables, got, tc.want)
		}
	}
}
