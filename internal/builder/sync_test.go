package builder

import (
	"context"
	"testing"

	"docsd/internal/storetest"
	"docsd/store"
)

// syncFixture is a project on a store of one dialect, synced by hand.
type syncFixture struct {
	t       *testing.T
	s       *store.Store
	project *store.Project
}

func newSyncFixture(t *testing.T, d store.Dialect) *syncFixture {
	t.Helper()
	s := storetest.Open(t, d)
	u, _ := storetest.MustUser(t, s, "alice")
	imp := storetest.MustImport(t, s, u, "Demo", "https://example.com/demo.git")
	return &syncFixture{t: t, s: s, project: imp.Project}
}

func branch(name string) Ref {
	return Ref{Name: name, Identifier: "origin/" + name, Type: store.Branch}
}
func tag(name, sha string) Ref { return Ref{Name: name, Identifier: sha, Type: store.Tag} }

func (f *syncFixture) sync(refs ...Ref) *SyncResult {
	f.t.Helper()
	res, err := SyncVersions(context.Background(), f.s, f.project.ID, refs)
	if err != nil {
		f.t.Fatalf("SyncVersions: %v", err)
	}
	return res
}

func (f *syncFixture) versions() map[string]*store.Version {
	f.t.Helper()
	return versionsBySlug(f.t, f.s, f.project.ID)
}

func (f *syncFixture) queued(slug string) int {
	f.t.Helper()
	v, err := f.s.FindVersionBySlug(context.Background(), f.project.ID, slug)
	if err != nil {
		f.t.Fatal(err)
	}
	bs, _, err := f.s.FindBuilds(context.Background(), store.BuildFilter{VersionID: &v.ID})
	if err != nil {
		f.t.Fatal(err)
	}
	return len(bs)
}

type wantVersion struct {
	identifier, typ string
	active, machine bool
}

func (f *syncFixture) check(want map[string]wantVersion) {
	f.t.Helper()
	got := f.versions()
	if len(got) != len(want) {
		slugs := []string{}
		for s := range got {
			slugs = append(slugs, s)
		}
		f.t.Errorf("versions = %v, want %d of them", slugs, len(want))
	}
	for slug, w := range want {
		v := got[slug]
		if v == nil {
			f.t.Errorf("version %q missing", slug)
			continue
		}
		g := wantVersion{v.Identifier, v.Type, v.Active, v.Machine}
		if g != w {
			f.t.Errorf("version %q = %+v, want %+v", slug, g, w)
		}
	}
}

func TestSyncVersions(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		t.Run("NewRefsStableAndTypes", func(t *testing.T) {
			f := newSyncFixture(t, d)
			res := f.sync(branch("master"), branch("release/1.x"), tag("1.0", "aaa"), tag("1.1", "bbb"), tag("2.0b1", "ccc"))
			f.check(map[string]wantVersion{
				"latest":      {"master", store.Branch, true, true},
				"master":      {"origin/master", store.Branch, false, false},
				"release-1.x": {"origin/release/1.x", store.Branch, false, false},
				"1.0":         {"aaa", store.Tag, false, false},
				"1.1":         {"bbb", store.Tag, false, false},
				"2.0b1":       {"ccc", store.Tag, false, false},
				"stable":      {"bbb", store.Tag, true, true},
			})
			if res.Promoted != "1.1" {
				t.Errorf("promoted %q, want 1.1 (2.0b1 is a pre-release)", res.Promoted)
			}
			// The import's build of latest plus the stable build.
			if n := f.queued("stable"); n != 1 {
				t.Errorf("stable has %d builds, want 1 (promotion builds an active stable)", n)
			}
			if n := f.queued("1.1"); n != 0 {
				t.Errorf("1.1 has %d builds, want 0 (no active old candidate)", n)
			}
		})

		t.Run("StableRule", func(t *testing.T) {
			for _, tc := range []struct {
				name string
				refs []Ref
				want string // stable's identifier, "" for no stable
			}{
				{"prerelease ignored", []Ref{tag("1.0", "a"), tag("1.1", "b"), tag("2.0b1", "c")}, "b"},
				{"v prefix and numeric order", []Ref{tag("v1.9", "a"), tag("v1.10", "b")}, "b"},
				{"tag wins over a higher branch", []Ref{branch("2.x"), tag("1.5", "t")}, "t"},
				{"branches only", []Ref{branch("1.x"), branch("2.x")}, "origin/2.x"},
				{"no candidate", []Ref{branch("master"), branch("latest")}, ""},
				{"rc and dev dropped, post kept", []Ref{tag("3.0rc1", "a"), tag("3.0.dev2", "b"), tag("2.0.post1", "c"), tag("2.0", "d")}, "c"},
			} {
				t.Run(tc.name, func(t *testing.T) {
					f := newSyncFixture(t, d)
					f.sync(tc.refs...)
					st := f.versions()["stable"]
					switch {
					case tc.want == "" && st != nil:
						t.Errorf("stable = %q, want none", st.Identifier)
					case tc.want != "" && st == nil:
						t.Errorf("no stable, want %q", tc.want)
					case st != nil && st.Identifier != tc.want:
						t.Errorf("stable = %q, want %q", st.Identifier, tc.want)
					}
				})
			}
		})

		t.Run("DeletionKeepsBuiltAndActive", func(t *testing.T) {
			f := newSyncFixture(t, d)
			f.sync(branch("master"), branch("gone"), branch("built"), branch("active"), tag("old", "x"))
			vs := f.versions()
			ctx := context.Background()
			if _, err := f.s.CreateBuild(ctx, vs["built"], nil); err != nil {
				t.Fatal(err)
			}
			if _, err := f.s.UpdateVersion(ctx, vs["active"].ID, store.VersionUpdate{Active: ptr(true)}); err != nil {
				t.Fatal(err)
			}
			res := f.sync(branch("master"))
			got := f.versions()
			for _, slug := range []string{"gone", "old"} {
				if got[slug] != nil {
					t.Errorf("%q survived the sync; an inactive version without builds that left the repository is deleted", slug)
				}
			}
			for _, slug := range []string{"built", "active", "latest", "master"} {
				if got[slug] == nil {
					t.Errorf("%q was deleted; it must be kept", slug)
				}
			}
			if len(res.Deleted) != 2 {
				t.Errorf("deleted %v, want gone and old", res.Deleted)
			}
		})

		t.Run("SlugCollision", func(t *testing.T) {
			f := newSyncFixture(t, d)
			f.sync(branch("Foo"))
			f.sync(branch("Foo"), tag("foo", "abc"))
			f.check(map[string]wantVersion{
				"latest": {"master", store.Branch, true, true},
				"foo":    {"origin/Foo", store.Branch, false, false},
				"foo_a":  {"abc", store.Tag, false, false},
			})
		})

		t.Run("RealLatestAndStableTakeOver", func(t *testing.T) {
			f := newSyncFixture(t, d)
			f.sync(branch("master"), branch("latest"), tag("stable", "s1"), tag("1.0", "t1"))
			f.check(map[string]wantVersion{
				"latest": {"origin/latest", store.Branch, true, false},
				"master": {"origin/master", store.Branch, false, false},
				"stable": {"s1", store.Tag, false, false},
				"1.0":    {"t1", store.Tag, false, false},
			})
			// The refs disappear: latest follows the default branch again,
			// stable becomes machine-managed and points at the candidate.
			f.sync(branch("master"), tag("1.0", "t1"))
			f.check(map[string]wantVersion{
				"latest": {"master", store.Branch, true, true},
				"master": {"origin/master", store.Branch, false, false},
				"stable": {"t1", store.Tag, false, true},
				"1.0":    {"t1", store.Tag, false, false},
			})
		})

		t.Run("UserStableNeverChanged", func(t *testing.T) {
			f := newSyncFixture(t, d)
			f.sync(branch("master"), branch("stable"), tag("1.0", "t1"), tag("2.0", "t2"))
			if v := f.versions()["stable"]; v.Identifier != "origin/stable" || v.Machine {
				t.Errorf("stable = %+v, want the user's branch", v)
			}
		})

		t.Run("TwoRefsNamedLatest", func(t *testing.T) {
			f := newSyncFixture(t, d)
			_, err := SyncVersions(context.Background(), f.s, f.project.ID, []Ref{branch("latest"), tag("latest", "x"), branch("new")})
			if fl, ok := asFailure(err); !ok || fl.msg != MsgDuplicateMachine {
				t.Fatalf("err = %v, want %q", err, MsgDuplicateMachine)
			}
			if f.versions()["new"] != nil {
				t.Error("a failed sync created versions")
			}
		})

		t.Run("NewStableActivatedWhenOldWasActive", func(t *testing.T) {
			f := newSyncFixture(t, d)
			f.sync(branch("master"), tag("1.0", "t1"))
			ctx := context.Background()
			if _, err := f.s.UpdateVersion(ctx, f.versions()["1.0"].ID, store.VersionUpdate{Active: ptr(true)}); err != nil {
				t.Fatal(err)
			}
			before := f.queued("stable")
			res := f.sync(branch("master"), tag("1.0", "t1"), tag("1.1", "t2"))
			v := f.versions()
			if !v["1.1"].Active || v["stable"].Identifier != "t2" {
				t.Errorf("1.1 active=%v, stable=%q; want the new release active and stable on it", v["1.1"].Active, v["stable"].Identifier)
			}
			if f.queued("stable") != before+1 || f.queued("1.1") != 1 || len(res.Builds) != 2 {
				t.Errorf("builds: stable +%d, 1.1 %d, result %d; want stable and 1.1 built", f.queued("stable")-before, f.queued("1.1"), len(res.Builds))
			}
		})
	})
}
