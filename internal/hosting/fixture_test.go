package hosting

import (
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"docsd/internal/artifacts"
	"docsd/internal/artifacts/artifactstest"
	"docsd/internal/docsurl"
	"docsd/internal/storetest"
	"docsd/store"
)

// The URL configurations of the examples: path mode and subdomain mode.
var (
	pathURLs = docsurl.Config{PublicURL: "https://docs.example.com"}
	subURLs  = docsurl.Config{PublicURL: "https://docs.example.com", DocsDomain: "docs.example.io"}
)

// fixture is a store, artifact storage and a docs host in path and
// subdomain mode over them, with two users: owner maintains every project
// the fixture makes, other maintains none.
type fixture struct {
	t        testing.TB
	s        *store.Store
	arts     *artifacts.Local
	path     *Handler
	sub      *Handler
	owner    *store.User
	ownerKey string
	otherKey string
}

func newFixture(t testing.TB, d store.Dialect) *fixture {
	t.Helper()
	s := storetest.Open(t, d)
	arts, err := artifacts.NewLocal(filepath.Join(t.TempDir(), "artifacts"))
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, s: s, arts: arts}
	f.path = New(s, arts, Config{URLs: pathURLs}, nil)
	f.sub = New(s, arts, Config{URLs: subURLs}, nil)
	f.owner, f.ownerKey = storetest.MustUser(t, s, "owner")
	_, f.otherKey = storetest.MustUser(t, s, "other")
	return f
}

// newFixtureInjecting is newFixture with docs hosts that inject the
// reader client, or not.
func newFixtureInjecting(t testing.TB, d store.Dialect, inject bool) *fixture {
	t.Helper()
	f := newFixture(t, d)
	f.path = New(f.s, f.arts, Config{URLs: pathURLs, AddonsInject: inject}, nil)
	f.sub = New(f.s, f.arts, Config{URLs: subURLs, AddonsInject: inject}, nil)
	return f
}

// project imports a project named name (slug alike) in language lang.
func (f *fixture) project(name, lang string) *store.Project {
	f.t.Helper()
	p := storetest.MustImport(f.t, f.s, f.owner, name, "https://github.com/example/"+name).Project
	if lang != "en" {
		p = f.update(p, store.ProjectUpdate{Language: &lang})
	}
	return p
}

// privateProject imports a private project named slug whose latest
// version publishes index.html with index.
func (f *fixture) privateProject(slug, index string) *store.Project {
	f.t.Helper()
	private := store.Private
	p := f.update(f.project(slug, "en"), store.ProjectUpdate{PrivacyLevel: &private})
	f.publish(p, "latest", map[string]string{"index.html": index})
	return p
}

func (f *fixture) update(p *store.Project, upd store.ProjectUpdate) *store.Project {
	f.t.Helper()
	p, err := f.s.UpdateProject(f.t.Context(), p.ID, upd)
	if err != nil {
		f.t.Fatal(err)
	}
	return p
}

// version returns p's version slug, creating an active public branch
// version when there is none.
func (f *fixture) version(p *store.Project, slug string) *store.Version {
	f.t.Helper()
	v, err := f.s.FindVersionBySlug(f.t.Context(), p.ID, slug)
	if err == nil {
		return v
	}
	return storetest.MustVersion(f.t, f.s, p.ID, slug)
}

func (f *fixture) updateVersion(v *store.Version, upd store.VersionUpdate) *store.Version {
	f.t.Helper()
	v, err := f.s.UpdateVersion(f.t.Context(), v.ID, upd)
	if err != nil {
		f.t.Fatal(err)
	}
	return v
}

// publish stands in for a successful HTML build of version slug of p: it
// publishes files (name → content) as the version's tree and marks the
// version built.
func (f *fixture) publish(p *store.Project, slug string, files map[string]string) *store.Version {
	f.t.Helper()
	v := f.version(p, slug)
	dir := artifactstest.Dir(f.t, files)
	if err := f.arts.PublishHTML(f.t.Context(), p.Slug, v.Slug, dir); err != nil {
		f.t.Fatal(err)
	}
	built := true
	return f.updateVersion(v, store.VersionUpdate{Built: &built})
}

// handler is the docs host of the URL's mode: subdomain mode for hosts
// under the docs domain, else path mode.
func (f *fixture) handler(url string) *Handler {
	if strings.Contains(url, subURLs.DocsDomain) {
		return f.sub
	}
	return f.path
}

// get requests url from the docs host of its mode; header is pairs of
// names and values.
func (f *fixture) get(url string, header ...string) *http.Response {
	f.t.Helper()
	return f.do(http.MethodGet, url, header...)
}

func (f *fixture) do(method, url string, header ...string) *http.Response {
	f.t.Helper()
	r := httptest.NewRequest(method, url, nil)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	f.handler(url).ServeHTTP(w, r)
	return w.Result()
}

func body(t testing.TB, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// token returns the Authorization header pair for key.
func token(key string) []string { return []string{"Authorization", "Token " + key} }
