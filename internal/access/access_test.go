package access_test

import (
	"context"
	"errors"
	"maps"
	"slices"
	"testing"

	"docsd/internal/access"
	"docsd/internal/errs"
	"docsd/internal/storetest"
	"docsd/store"
)

// fixture is a store with three projects maintained by alice and users in
// every position towards them. rita reads pub and priv through readers,
// a role the store does not record yet (organizations' teams will).
type fixture struct {
	s                  *store.Store
	keys               map[string]string // API keys by username
	pub, open, priv    *store.Project
	objects            []object
	readers            map[[2]int64]bool
	alice, rita, otto  *store.User
	sue                *store.User // superuser, no role
	projects, versions map[int64]string
}

// object is a project (version nil) or a version, and whether anyone may
// read it.
type object struct {
	name    string
	project *store.Project
	version *store.Version
	public  bool
}

func newFixture(t *testing.T, d store.Dialect) *fixture {
	t.Helper()
	ctx := t.Context()
	s := storetest.Open(t, d)
	f := &fixture{s: s, keys: map[string]string{}, readers: map[[2]int64]bool{},
		projects: map[int64]string{}, versions: map[int64]string{}}
	user := func(name string, super bool) *store.User {
		mk := storetest.MustUser
		if super {
			mk = storetest.MustSuperuser
		}
		u, key := mk(t, s, name)
		f.keys[name] = key
		return u
	}
	f.alice, f.rita, f.otto, f.sue = user("alice", false), user("rita", false), user("otto", false), user("sue", true)
	project := func(name, privacy, external string) (*store.Project, *store.Version) {
		res := storetest.MustImport(t, s, f.alice, name, "https://example.com/"+name+".git")
		p, err := s.UpdateProject(ctx, res.Project.ID, store.ProjectUpdate{PrivacyLevel: &privacy, ExternalBuildsPrivacyLevel: &external})
		if err != nil {
			t.Fatal(err)
		}
		f.projects[p.ID] = name
		f.versions[res.Latest.ID] = name + "/latest"
		return p, res.Latest
	}
	version := func(p *store.Project, slug, privacy, typ string, hidden bool) *store.Version {
		v, err := s.CreateVersion(ctx, &store.Version{ProjectID: p.ID, Slug: slug, VerboseName: slug, Identifier: slug,
			Type: typ, Active: true, PrivacyLevel: privacy, Hidden: hidden})
		if err != nil {
			t.Fatal(err)
		}
		f.versions[v.ID] = f.projects[p.ID] + "/" + slug
		return v
	}
	var pubLatest, openLatest, privLatest *store.Version
	f.pub, pubLatest = project("pub", store.Public, "private")
	f.open, openLatest = project("open", store.Public, store.Public)
	f.priv, privLatest = project("priv", "private", store.Public)
	f.readers[[2]int64{f.rita.ID, f.pub.ID}] = true
	f.readers[[2]int64{f.rita.ID, f.priv.ID}] = true
	f.objects = []object{
		{"project pub", f.pub, nil, true},
		{"project open", f.open, nil, true},
		{"project priv", f.priv, nil, false},
		{"pub/latest", f.pub, pubLatest, true},
		{"pub/secret (private version)", f.pub, version(f.pub, "secret", "private", store.Branch, false), false},
		{"pub/hidden (hidden public version)", f.pub, version(f.pub, "hidden", store.Public, store.Branch, true), true},
		{"pub/7 (pull request, external level private)", f.pub, version(f.pub, "7", store.Public, store.External, false), false},
		{"open/latest", f.open, openLatest, true},
		{"open/8 (pull request, external level public)", f.open, version(f.open, "8", "private", store.External, false), true},
		{"priv/latest (public version of a private project)", f.priv, privLatest, false},
	}
	return f
}

// roles are the fixture's roles: maintainers from the store, readers from
// the fixture.
func (f *fixture) roles() access.Roles {
	return withReaders{access.Maintainers(f.maintainers), f.readers}
}

func (f *fixture) maintainers(ctx context.Context, projectID int64) ([]int64, error) {
	ms, err := f.s.FindMaintainerships(ctx, []int64{projectID})
	ids := make([]int64, 0, len(ms))
	for _, m := range ms {
		ids = append(ids, m.UserID)
	}
	return ids, err
}

type withReaders struct {
	access.Roles
	readers map[[2]int64]bool
}

func (w withReaders) Role(ctx context.Context, userID, projectID int64) (access.Role, error) {
	r, err := w.Roles.Role(ctx, userID, projectID)
	if err == nil && r == access.NoRole && w.readers[[2]int64{userID, projectID}] {
		r = access.Reader
	}
	return r, err
}

// viewer is a row of TestRights: who, and what they may do with what is
// not public, per surface.
type viewer struct {
	name string
	// token: the viewer is identified by this user's API key; else view.
	token string
	// projects, when not nil, limit the roles of the token's user to
	// them, as a docs cookie of another project's host does.
	projects           []int64
	view               access.Viewer
	readAPI, readDocs  bool // reads non-public objects on the API, on the docs host
	admin              bool // administers the fixture's projects
	storeKnowsAllRoles bool // the store's list filter can answer for them
}

var viewers = []viewer{
	{name: "anonymous", readAPI: false, readDocs: false, admin: false, storeKnowsAllRoles: true},
	{name: "reader", token: "rita", readAPI: true, readDocs: true, admin: false},
	{name: "maintainer", token: "alice", readAPI: true, readDocs: true, admin: true, storeKnowsAllRoles: true},
	{name: "maintainer, a cookie of no project's host", token: "alice", projects: []int64{}, storeKnowsAllRoles: true},
	{name: "maintainer, a cookie of another project's host", token: "alice", projects: []int64{-1}, storeKnowsAllRoles: true},
	{name: "superuser without a role", token: "sue", readAPI: true, readDocs: false, admin: false, storeKnowsAllRoles: true},
	{name: "other user", token: "otto", readAPI: false, readDocs: false, admin: false, storeKnowsAllRoles: true},
	{name: "system", view: access.Viewer{System: true}, readAPI: true, readDocs: true, admin: true, storeKnowsAllRoles: true},
}

// TestRights runs every decision of package access over every viewer,
// surface and kind of object, on a real store; for the viewers whose roles
// the store records, the store's list filters (Surface.Visibility) must
// list exactly what the decisions allow.
func TestRights(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		f := newFixture(t, d)
		ctx := t.Context()
		for _, vw := range viewers {
			v := vw.view
			if vw.token != "" {
				var err error
				if v, err = access.Authenticate(ctx, f.s, "Token "+f.keys[vw.token]); err != nil {
					t.Fatalf("%s: authenticate: %v", vw.name, err)
				}
				v.Projects = vw.projects
			}
			for _, surface := range []struct {
				name     string
				s        access.Surface
				readsAll bool
			}{{"api", access.API, vw.readAPI}, {"docs", access.Docs, vw.readDocs}} {
				t.Run(vw.name+"/"+surface.name, func(t *testing.T) {
					r := access.Rights{Viewer: v, Surface: surface.s, Roles: f.roles()}
					wantProjects, wantVersions := map[string]bool{}, map[string]bool{}
					for _, o := range f.objects {
						want := o.public || surface.readsAll
						var got bool
						var err error
						if o.version == nil {
							got, err = r.CanRead(ctx, o.project)
							wantProjects[o.project.Slug] = want
						} else {
							got, err = r.CanReadVersion(ctx, o.project, o.version)
							wantVersions[f.versions[o.version.ID]] = want
						}
						if err != nil || got != want {
							t.Errorf("read %s: got %v, %v; want %v", o.name, got, err, want)
						}
					}
					for _, p := range []*store.Project{f.pub, f.open, f.priv} {
						if got, err := r.CanAdmin(ctx, p); err != nil || got != vw.admin {
							t.Errorf("administer %s: got %v, %v; want %v", p.Slug, got, err, vw.admin)
						}
					}
					if vw.storeKnowsAllRoles {
						f.checkStoreLists(t, surface.s.Visibility(v), wantProjects, wantVersions)
					}
				})
			}
		}
	})
}

// checkStoreLists compares what the store lists through vis with the
// decisions: want maps a project slug or "project/version" to whether it
// may be read.
func (f *fixture) checkStoreLists(t *testing.T, vis *store.Visibility, wantProjects, wantVersions map[string]bool) {
	t.Helper()
	ids := slices.Collect(maps.Keys(f.projects))
	ps, _, err := f.s.FindProjects(t.Context(), store.ProjectFilter{Visible: vis})
	if err != nil {
		t.Fatal(err)
	}
	var gotP []string
	for _, p := range ps {
		gotP = append(gotP, p.Slug)
	}
	vs, err := f.s.FindAllVersions(t.Context(), store.VersionFilter{ProjectIDs: ids, Visible: vis})
	if err != nil {
		t.Fatal(err)
	}
	var gotV []string
	for _, v := range vs {
		gotV = append(gotV, f.versions[v.ID])
	}
	for _, c := range []struct {
		what string
		got  []string
		want map[string]bool
	}{{"projects", gotP, wantProjects}, {"versions", gotV, wantVersions}} {
		var want []string
		for name, ok := range c.want {
			if ok {
				want = append(want, name)
			}
		}
		slices.Sort(want)
		slices.Sort(c.got)
		if !slices.Equal(c.got, want) {
			t.Errorf("store lists %s %v; the decisions allow %v", c.what, c.got, want)
		}
	}
}

// TestRightsAskRolesOnlyWhenNeeded: public objects are decided without
// identifying the viewer or reading roles (the docs host serves them
// without a database read), and Memo reads each role once.
func TestRightsAskRolesOnlyWhenNeeded(t *testing.T) {
	ctx := t.Context()
	pub := &store.Project{ID: 1, PrivacyLevel: store.Public, ExternalBuildsPrivacyLevel: store.Public}
	priv := &store.Project{ID: 2, PrivacyLevel: "private"}
	identified, asked := 0, 0
	roles := access.Memo(access.Maintainers(func(context.Context, int64) ([]int64, error) {
		asked++
		return []int64{7}, nil
	}))
	r := access.Rights{Surface: access.Docs, Roles: roles, Identify: func() (access.Viewer, error) {
		identified++
		return access.Viewer{User: &store.User{ID: 7}}, nil
	}}
	if ok, err := r.CanReadVersion(ctx, pub, &store.Version{PrivacyLevel: store.Public}); !ok || err != nil {
		t.Fatalf("public version: got %v, %v; want true", ok, err)
	}
	if identified != 0 || asked != 0 {
		t.Errorf("a public version identified the viewer %d times and read roles %d times; want 0, 0", identified, asked)
	}
	for range 3 {
		if ok, err := r.CanRead(ctx, priv); !ok || err != nil {
			t.Fatalf("private project of a maintainer: got %v, %v; want true", ok, err)
		}
	}
	if asked != 1 {
		t.Errorf("roles read %d times for three decisions; want 1", asked)
	}
	failing := access.Rights{Surface: access.Docs, Roles: roles, Identify: func() (access.Viewer, error) {
		return access.Viewer{}, errs.E(errs.Internal, "test", "database down")
	}}
	if ok, err := failing.CanRead(ctx, priv); ok || !errs.Is(err, errs.Internal) {
		t.Errorf("identification failing: got %v, %v; want false and the error", ok, err)
	}
}

// TestIdentify covers every way a viewer is named: API keys on the API
// (strict) and on the docs host (a bad key is anonymous), the docs session
// cookie and the dashboard session.
func TestIdentify(t *testing.T) {
	s := storetest.Open(t, store.SQLite)
	ctx := t.Context()
	alice, key := storetest.MustUser(t, s, "alice")
	_, gone := storetest.MustUser(t, s, "gone")
	if err := s.SetUserActive(ctx, "gone", false); err != nil {
		t.Fatal(err)
	}
	docs, err := s.CreateDocsSession(ctx, key, "pub")
	if err != nil {
		t.Fatal(err)
	}
	dash, err := s.CreateDashboardSession(ctx, alice.ID)
	if err != nil {
		t.Fatal(err)
	}
	session := func() (access.Viewer, error) { return access.DocsSession(ctx, s, docs, "pub") }

	for _, tc := range []struct {
		header string
		api    string // the user, or the error message on the API
		docs   string // the user on the docs host (a docs session of alice is present)
		auth   access.AuthMethod
	}{
		{"", "", "alice", access.AuthUnknown},
		{"Bearer " + key, "", "alice", access.AuthUnknown},
		{"Token " + key, "alice", "alice", access.AuthToken},
		{"token   " + key, "alice", "alice", access.AuthToken},
		{"Token", errs.MsgTokenNoCreds, "alice", 0},
		{"Token a b", errs.MsgTokenSpaces, "alice", 0},
		{"Token clé€", errs.MsgTokenBadChars, "", 0},
		{"Token nope", errs.MsgInvalidToken, "", 0},
		{"Token " + gone, errs.MsgInactiveUser, "", 0},
	} {
		v, err := access.Authenticate(ctx, s, tc.header)
		got := name(v)
		if err != nil {
			got = message(err)
		}
		if got != tc.api || (err == nil && v.Auth != tc.auth) {
			t.Errorf("API %q: got %q (auth %v), want %q (auth %v)", tc.header, got, v.Auth, tc.api, tc.auth)
		}
		if err == nil && v.Auth == access.AuthToken && v.TokenHash != store.HashToken(key) {
			t.Errorf("API %q: token hash not kept", tc.header)
		}
		v, err = access.DocsReader(ctx, s, tc.header, session)
		if err != nil || name(v) != tc.docs {
			t.Errorf("docs host %q: got %q, %v; want %q", tc.header, name(v), err, tc.docs)
		}
	}

	for _, tc := range []struct{ name, value, slug, want string }{
		{"own project", docs, "pub", "alice"},
		{"another project's host", docs, "other", ""},
		{"no cookie", "", "pub", ""},
		{"unknown", "nope", "pub", ""},
	} {
		v, err := access.DocsSession(ctx, s, tc.value, tc.slug)
		if err != nil || name(v) != tc.want || (v.User != nil && v.Auth != access.AuthDocsSession) {
			t.Errorf("docs session, %s: got %q (auth %v), %v; want %q", tc.name, name(v), v.Auth, err, tc.want)
		}
	}

	for _, tc := range []struct{ name, value, want string }{
		{"live", dash, "alice"},
		{"none", "", access.MsgSessionExpired},
		{"unknown", "nope", access.MsgSessionExpired},
	} {
		v, err := access.DashboardSession(ctx, s, tc.value)
		got := name(v)
		if err != nil {
			got = message(err)
		}
		if got != tc.want || (err == nil && v.Auth != access.AuthSession) {
			t.Errorf("dashboard session, %s: got %q (auth %v), want %q", tc.name, got, v.Auth, tc.want)
		}
	}
}

// name is v's username, "" when anonymous.
func name(v access.Viewer) string {
	if v.User == nil {
		return ""
	}
	return v.User.Username
}

// message is err's message as the API shows it.
func message(err error) string {
	var e *errs.Error
	if errors.As(err, &e) {
		return e.Text()
	}
	return err.Error()
}
