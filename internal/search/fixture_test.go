package search_test

import (
	"context"
	"testing"
	"testing/fstest"

	"docsd/internal/docsurl"
	"docsd/internal/search"
	"docsd/internal/storetest"
	"docsd/store"
)

// installHTML is a Sphinx page with navigation, a title and sections.
const installHTML = `<!DOCTYPE html><html><head><title>Install — Demo</title></head><body>
<nav class="wy-nav-side"><a href="#">Navigation install</a></nav>
<div role="main" class="document">
<section id="install"><h1>Install<a class="headerlink" href="#install">¶</a></h1>
<p>Run <code>pip install demo</code> to install the latest release.</p>
<section id="from-source"><h2>From source</h2>
<div class="highlight-console notranslate"><div class="highlight"><pre>$ pip install -e .</pre></div></div>
</section></section>
</div></body></html>`

// usageHTML is lib's page: a title and one section.
const usageHTML = `<html><head><title>Usage</title></head><body><main>
<h1 id="usage">Usage</h1>
<section id="install-lib"><h2>Install lib</h2><p>The library ships with demo; nothing else to install.</p></section>
</main></body></html>`

// world is the search tests' fixture: projects, versions and indexed pages.
type world struct {
	s          *store.Store
	svc        *search.Service
	maintainer *store.User
	token      string
	demo, lib  *store.Project
	versions   map[string]*store.Version // "demo/latest", …
}

var testURLs = docsurl.Config{PublicURL: "https://docs.example.com"}

// newWorld builds the projects: demo (latest, v1.0, internal-notes
// private), its translation demo-es, and lib, child of demo as `library`
// (latest, 1.0); installHTML and usageHTML are indexed.
func newWorld(t *testing.T, d store.Dialect) *world {
	t.Helper()
	ctx := t.Context()
	s := storetest.Open(t, d)
	w := &world{s: s, svc: &search.Service{Store: s, URLs: testURLs}, versions: map[string]*store.Version{}}
	w.maintainer, w.token = storetest.MustUser(t, s, "alice")
	w.demo = storetest.MustImport(t, s, w.maintainer, "demo", "https://github.com/example/demo").Project
	w.lib = storetest.MustImport(t, s, w.maintainer, "lib", "https://github.com/example/lib").Project
	es := storetest.MustImport(t, s, w.maintainer, "demo-es", "https://github.com/example/demo").Project
	must(t, s.SetTranslationOf(ctx, es.ID, &w.demo.ID))
	if _, err := s.CreateRelationship(ctx, w.demo.ID, w.lib.ID, "library"); err != nil {
		t.Fatal(err)
	}
	for _, pv := range []struct {
		p *store.Project
		v string
	}{{w.demo, "latest"}, {w.demo, "v1.0"}, {w.demo, "internal-notes"}, {w.lib, "latest"}, {w.lib, "1.0"}, {es, "latest"}} {
		var v *store.Version
		if pv.v == "latest" {
			vs, _, err := s.FindVersions(ctx, store.VersionFilter{ProjectIDs: []int64{pv.p.ID}, Slug: &pv.v})
			must(t, err)
			v = vs[0]
		} else {
			v = storetest.MustVersion(t, s, pv.p.ID, pv.v)
		}
		upd := store.VersionUpdate{Built: ptr(true)}
		if pv.v == "internal-notes" {
			upd.PrivacyLevel = ptr(store.Private)
		}
		v, err := s.UpdateVersion(ctx, v.ID, upd)
		must(t, err)
		w.versions[pv.p.Slug+"/"+pv.v] = v
	}
	w.index(t, "demo/latest", map[string]string{"install.html": installHTML})
	w.index(t, "lib/latest", map[string]string{"usage.html": usageHTML})
	w.index(t, "demo/internal-notes", map[string]string{"secret.html": `<main><h1>Secret notes</h1><p>The secret plan.</p></main>`})
	return w
}

// index replaces a version's entries with pages (path → HTML).
func (w *world) index(t *testing.T, key string, pages map[string]string) {
	t.Helper()
	v := w.versions[key]
	tree := fstest.MapFS{}
	for path, doc := range pages {
		tree[path] = &fstest.MapFile{Data: []byte(doc)}
	}
	set, _ := search.SettingsFromConfig(`{"search": {"ranking": {"themes/*": 2, "themes/dark.html": -1}}}`)
	ips, err := search.ReadTree(t.Context(), tree, set, "sphinx")
	must(t, err)
	must(t, w.s.ReplaceSearchIndex(t.Context(), v.ProjectID, v.ID, ips))
}

// run parses q, resolves its scope for reader and searches.
func (w *world) run(ctx context.Context, t *testing.T, reader search.Reader, q string, offset, limit int) ([]*search.Pair, *search.Result) {
	t.Helper()
	query := search.ParseQuery(q)
	scope, err := w.svc.Scope(ctx, reader, query.Args)
	must(t, err)
	res, err := w.svc.Search(ctx, query, scope, offset, limit)
	must(t, err)
	return scope, res
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func ptr[T any](v T) *T { return &v }
