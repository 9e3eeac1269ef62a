package hosting

import (
	"encoding/json"
	"strings"
	"testing"

	"docsd/internal/storetest"
	"docsd/store"
)

// TestHiddenVersionsLeftOutOfReaderListings checks that a hidden version
// (served, but listed nowhere) leaves the /_/addons/ versions menu
// and footer_html's versions, while its own Addons Version says hidden.
func TestHiddenVersionsLeftOutOfReaderListings(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		f := newFixture(t, d)
		w := newReaderWorld(f)
		const footer = "https://docs.example.com/api/v2/footer_html/?project=demo&version=v1.0&page=install"
		const link = `/docs/demo/en/v1.1/install.html`
		for _, hidden := range []bool{false, true} {
			f.updateVersion(w.versions["v1.1"], store.VersionUpdate{Hidden: &hidden})
			var data struct {
				Versions struct {
					Active  []struct{ Slug string }
					Current struct{ Hidden bool }
				}
			}
			addons := strings.Replace(addonsR91, "version-slug=v1.0", "version-slug=v1.1", 1)
			if err := json.Unmarshal([]byte(body(t, f.get(addons))), &data); err != nil {
				t.Fatal(err)
			}
			var slugs []string
			for _, v := range data.Versions.Active {
				slugs = append(slugs, v.Slug)
			}
			want := "latest stable v1.1 v1.0"
			if hidden {
				want = "latest stable v1.0"
			}
			if got := strings.Join(slugs, " "); got != want || data.Versions.Current.Hidden != hidden {
				t.Errorf("hidden=%v: versions.active = %s, want %s; current hidden %v", hidden, got, want, data.Versions.Current.Hidden)
			}
			var fj struct{ HTML string }
			if err := json.Unmarshal([]byte(body(t, f.get(footer))), &fj); err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(fj.HTML, link); got == hidden {
				t.Errorf("hidden=%v: footer html links v1.1: %v\n%s", hidden, got, fj.HTML)
			}
		}
	})
}
