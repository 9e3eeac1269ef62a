package store_test

import (
	"testing"
	"time"

	"docsd/internal/errs"
	"docsd/internal/storetest"
	"docsd/store"
)

func versionSlugs(vs []*store.Version) []string {
	out := []string{}
	for _, v := range vs {
		out = append(out, v.Slug)
	}
	return out
}

func TestCreateVersion(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		ctx := t.Context()
		storetest.SetClock(s, t0)
		alice, _ := storetest.MustUser(t, s, "alice")
		p := storetest.MustImport(t, s, alice, "Vers", "https://example.com/vers.git").Project
		q := storetest.MustImport(t, s, alice, "Other", "https://example.com/other.git").Project

		// Type and privacy level default when not given.
		v, err := s.CreateVersion(ctx, &store.Version{ProjectID: p.ID, Slug: "feature", VerboseName: "feature", Identifier: "feature"})
		must(t, err)
		got, err := s.FindVersionByID(ctx, v.ID)
		must(t, err)
		if got.Type != store.Unknown || got.PrivacyLevel != store.Public || got.Active || got.Built || got.Machine || got.Uploaded {
			t.Errorf("version defaults = %+v", got)
		}
		wantTime(t, "created", got.Created, t0)

		_, err = s.CreateVersion(ctx, &store.Version{ProjectID: p.ID, Slug: "feature", VerboseName: "Feature"})
		wantKind(t, err, errs.Conflict)
		_, err = s.CreateVersion(ctx, &store.Version{ProjectID: p.ID, Slug: store.Latest, VerboseName: "latest"})
		wantKind(t, err, errs.Conflict)
		// The same slug in another project is fine.
		_, err = s.CreateVersion(ctx, &store.Version{ProjectID: q.ID, Slug: "feature", VerboseName: "feature"})
		must(t, err)

		bySlug, err := s.FindVersionBySlug(ctx, p.ID, "feature")
		must(t, err)
		if bySlug.ID != v.ID {
			t.Errorf("FindVersionBySlug = %d, want %d", bySlug.ID, v.ID)
		}
		_, err = s.FindVersionBySlug(ctx, p.ID, "Feature")
		wantKind(t, err, errs.NotFound)
		vs, err := s.FindVersionsByIDs(ctx, []int64{v.ID, 9999})
		must(t, err)
		if len(vs) != 1 || vs[0].ID != v.ID {
			t.Errorf("FindVersionsByIDs = %v", versionSlugs(vs))
		}
	})
}

func TestFindVersionsOrderAndFilters(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		ctx := t.Context()
		alice, _ := storetest.MustUser(t, s, "alice")
		imp := storetest.MustImport(t, s, alice, "Ordered", "https://example.com/ordered.git")
		p := imp.Project
		other := storetest.MustImport(t, s, alice, "Other", "https://example.com/other.git").Project

		mk := func(v store.Version) *store.Version {
			t.Helper()
			v.ProjectID = p.ID
			out, err := s.CreateVersion(ctx, &v)
			must(t, err)
			return out
		}
		// Descending by code point: 'v' > 's' > 'l' > 'Z' > '1'; the two
		// "dup" versions tie and come in id order.
		one := mk(store.Version{Slug: "1.0", VerboseName: "1.0", Identifier: "1.0", Type: store.Tag, Active: true, Built: true})
		dupA := mk(store.Version{Slug: "dup", VerboseName: "dup", Identifier: "dup", Type: store.Branch})
		mk(store.Version{Slug: "stable", VerboseName: "stable", Identifier: "1.0", Type: store.Tag, Active: true, Machine: true})
		mk(store.Version{Slug: "zeta", VerboseName: "Zeta", Identifier: "Zeta", Type: store.Branch, PrivacyLevel: store.Private})
		v10 := mk(store.Version{Slug: "v1.0", VerboseName: "v1.0", Identifier: "v1.0", Type: store.Tag, Active: true, Built: true})
		dupB := mk(store.Version{Slug: "dup_a", VerboseName: "dup", Identifier: "dup", Type: store.Tag})
		mk(store.Version{Slug: "42", VerboseName: "42", Identifier: "abc123", Type: store.External, Active: true})
		storetest.MustVersion(t, s, other.ID, "zzz")

		tests := []struct {
			name      string
			filter    store.VersionFilter
			want      []string // slugs
			wantTotal int
		}{
			{name: "all of the project", filter: store.VersionFilter{ProjectIDs: []int64{p.ID}},
				want: []string{"v1.0", "stable", "latest", "dup", "dup_a", "zeta", "42", "1.0"}},
			{name: "by project slug", filter: store.VersionFilter{ProjectSlug: &p.Slug},
				want: []string{"v1.0", "stable", "latest", "dup", "dup_a", "zeta", "42", "1.0"}},
			{name: "internal only", filter: store.VersionFilter{ProjectIDs: []int64{p.ID}, Internal: true},
				want: []string{"v1.0", "stable", "latest", "dup", "dup_a", "zeta", "1.0"}},
			{name: "active", filter: store.VersionFilter{ProjectIDs: []int64{p.ID}, Active: ptr(true)},
				want: []string{"v1.0", "stable", "latest", "42", "1.0"}},
			{name: "inactive", filter: store.VersionFilter{ProjectIDs: []int64{p.ID}, Active: ptr(false)},
				want: []string{"dup", "dup_a", "zeta"}},
			{name: "built", filter: store.VersionFilter{ProjectIDs: []int64{p.ID}, Built: ptr(true)},
				want: []string{"v1.0", "1.0"}},
			{name: "type tag", filter: store.VersionFilter{ProjectIDs: []int64{p.ID}, Type: ptr(store.Tag)},
				want: []string{"v1.0", "stable", "dup_a", "1.0"}},
			{name: "identifier", filter: store.VersionFilter{ProjectIDs: []int64{p.ID}, Identifier: ptr("1.0")},
				want: []string{"stable", "1.0"}},
			{name: "verbose name", filter: store.VersionFilter{ProjectIDs: []int64{p.ID}, VerboseName: ptr("dup")},
				want: []string{"dup", "dup_a"}},
			{name: "slug", filter: store.VersionFilter{ProjectIDs: []int64{p.ID}, Slug: ptr("dup_a")},
				want: []string{"dup_a"}},
			{name: "private", filter: store.VersionFilter{ProjectIDs: []int64{p.ID}, PrivacyLevel: ptr(store.Private)},
				want: []string{"zeta"}},
			{name: "ids", filter: store.VersionFilter{IDs: []int64{one.ID, v10.ID, dupB.ID}},
				want: []string{"v1.0", "dup_a", "1.0"}},
			{name: "page", filter: store.VersionFilter{ProjectIDs: []int64{p.ID}, Limit: 3, Offset: 2},
				want: []string{"latest", "dup", "dup_a"}, wantTotal: 8},
			{name: "past the end", filter: store.VersionFilter{ProjectIDs: []int64{p.ID}, Limit: 3, Offset: 8},
				want: []string{}, wantTotal: 8},
			{name: "both projects", filter: store.VersionFilter{ProjectIDs: []int64{p.ID, other.ID}, Slug: ptr(store.Latest)},
				want: []string{"latest", "latest"}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				vs, total, err := s.FindVersions(ctx, tt.filter)
				must(t, err)
				wantStrings(t, "slugs", versionSlugs(vs), tt.want)
				wantTotal := tt.wantTotal
				if wantTotal == 0 {
					wantTotal = len(tt.want)
				}
				if total != wantTotal {
					t.Errorf("total = %d, want %d", total, wantTotal)
				}
				if tt.filter.Limit == 0 && tt.filter.Offset == 0 {
					every, err := s.FindAllVersions(ctx, tt.filter)
					must(t, err)
					wantStrings(t, "FindAllVersions slugs", versionSlugs(every), tt.want)
					var inTx []*store.Version
					must(t, s.InTx(ctx, "test", func(tx *store.Tx) error {
						var err error
						inTx, err = tx.FindVersions(ctx, tt.filter)
						return err
					}))
					wantStrings(t, "Tx.FindVersions slugs", versionSlugs(inTx), tt.want)
				}
			})
		}
		// Ties are broken by id.
		vs, _, err := s.FindVersions(ctx, store.VersionFilter{ProjectIDs: []int64{p.ID}, VerboseName: ptr("dup")})
		must(t, err)
		wantInt64s(t, "tied ids", ids(vs, func(v *store.Version) int64 { return v.ID }), []int64{dupA.ID, dupB.ID})
	})
}

// TestVersionVisibility checks that a version is visible when it
// and its project are public, or to the project's maintainers.
func TestVersionVisibility(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		ctx := t.Context()
		alice, _ := storetest.MustUser(t, s, "alice")
		bob, _ := storetest.MustUser(t, s, "bob")

		pub := importProject(t, s, alice, "pub", store.Public)
		priv := importProject(t, s, alice, "priv", store.Private)
		for _, p := range []*store.Project{pub.Project, priv.Project} {
			storetest.MustVersion(t, s, p.ID, "open")
			_, err := s.CreateVersion(ctx, &store.Version{ProjectID: p.ID, Slug: "hidden", VerboseName: "hidden", PrivacyLevel: store.Private})
			must(t, err)
		}
		bothProjects := []int64{pub.Project.ID, priv.Project.ID}

		tests := []struct {
			name string
			vis  store.Visibility
			want []string // project/version
		}{
			{"anonymous", store.Visibility{}, []string{"pub/open", "pub/latest"}},
			{"non-maintainer", store.Visibility{UserID: bob.ID}, []string{"pub/open", "pub/latest"}},
			{"maintainer", store.Visibility{UserID: alice.ID},
				[]string{"priv/open", "pub/open", "priv/latest", "pub/latest", "priv/hidden", "pub/hidden"}},
			{"superuser", store.Visibility{All: true},
				[]string{"priv/open", "pub/open", "priv/latest", "pub/latest", "priv/hidden", "pub/hidden"}},
		}
		name := map[int64]string{pub.Project.ID: "pub", priv.Project.ID: "priv"}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				vs, total, err := s.FindVersions(ctx, store.VersionFilter{ProjectIDs: bothProjects, Visible: &tt.vis})
				must(t, err)
				got := []string{}
				for _, v := range vs {
					got = append(got, name[v.ProjectID]+"/"+v.Slug)
				}
				// Same verbose name: ties by id, and priv's were made after pub's
				// for "open" and "hidden" but latest came with each import.
				if total != len(tt.want) {
					t.Errorf("total = %d, want %d", total, len(tt.want))
				}
				wantSet(t, got, tt.want)
			})
		}
	})
}

// wantSet compares two string lists as sets.
func wantSet(t *testing.T, got, want []string) {
	t.Helper()
	m := map[string]int{}
	for _, g := range got {
		m[g]++
	}
	for _, w := range want {
		m[w]--
	}
	for k, n := range m {
		if n != 0 {
			t.Errorf("got %q, want %q (as sets; %q differs)", got, want, k)
			return
		}
	}
}

func TestUpdateAndDeleteVersion(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s, db := openWithSQL(t, d)
		ctx := t.Context()
		alice, _ := storetest.MustUser(t, s, "alice")
		p := storetest.MustImport(t, s, alice, "UpdV", "https://example.com/updv.git").Project
		v := storetest.MustVersion(t, s, p.ID, "v2")

		got, err := s.UpdateVersion(ctx, v.ID, store.VersionUpdate{
			Active: ptr(false), Built: ptr(true), Identifier: ptr("abc"), Type: ptr(store.Tag), VerboseName: ptr("V2"),
			PrivacyLevel: ptr(store.Private), HasPDF: ptr(true), HasEPUB: ptr(true), HasHTMLZip: ptr(true), Machine: ptr(true),
		})
		must(t, err)
		if got.Active || !got.Built || got.Identifier != "abc" || got.Type != store.Tag || got.VerboseName != "V2" || got.Slug != "v2" ||
			got.PrivacyLevel != store.Private || !got.HasPDF || !got.HasEPUB || !got.HasHTMLZip || !got.Machine {
			t.Errorf("updated version = %+v", got)
		}
		// An empty update changes nothing and returns the version.
		same, err := s.UpdateVersion(ctx, v.ID, store.VersionUpdate{})
		must(t, err)
		if same.Identifier != "abc" {
			t.Errorf("empty update = %+v", same)
		}
		_, err = s.UpdateVersion(ctx, 9999, store.VersionUpdate{})
		wantKind(t, err, errs.NotFound)

		// Deleting a version deletes its builds and their commands.
		b, err := s.CreateBuild(ctx, v, nil)
		must(t, err)
		_, err = s.AddBuildCommand(ctx, store.BuildCommand{BuildID: b.ID, Command: "echo", StartTime: s.Now()})
		must(t, err)
		var has bool
		must(t, s.InTx(ctx, "test", func(tx *store.Tx) (err error) { has, err = tx.VersionHasBuilds(ctx, v.ID); return err }))
		if !has {
			t.Errorf("VersionHasBuilds = false, want true")
		}
		must(t, s.DeleteVersion(ctx, v.ID))
		_, err = s.FindVersionByID(ctx, v.ID)
		wantKind(t, err, errs.NotFound)
		_, err = s.FindBuildByID(ctx, b.ID)
		wantKind(t, err, errs.NotFound)
		counts := storetest.RowCounts(t, d, db)
		if counts["build_commands"] != 0 || counts["builds"] != 1 || counts["versions"] != 1 {
			t.Errorf("row counts after deleting the version = %v", counts)
		}
		must(t, s.InTx(ctx, "test", func(tx *store.Tx) (err error) { has, err = tx.VersionHasBuilds(ctx, v.ID); return err }))
		if has {
			t.Errorf("VersionHasBuilds = true after delete")
		}
		wantKind(t, s.DeleteVersion(ctx, v.ID), errs.NotFound)
	})
}

func TestFindLastBuilds(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		ctx := t.Context()
		clock := storetest.SetClock(s, t0)
		alice, _ := storetest.MustUser(t, s, "alice")
		imp := storetest.MustImport(t, s, alice, "Last", "https://example.com/last.git")
		latest := imp.Latest
		v1 := storetest.MustVersion(t, s, imp.Project.ID, "v1")
		v2 := storetest.MustVersion(t, s, imp.Project.ID, "v2") // never built

		clock.Advance(time.Minute)
		_, err := s.CreateBuild(ctx, v1, nil)
		must(t, err)
		clock.Advance(time.Minute)
		_, err = s.CreateBuild(ctx, v1, nil)
		must(t, err)
		b3, err := s.CreateBuild(ctx, v1, nil) // same created as the one before: the higher id wins
		must(t, err)
		// A build with a higher id but an earlier created does not win.
		clock.Advance(-90 * time.Second)
		_, err = s.CreateBuild(ctx, v1, nil)
		must(t, err)

		last, err := s.FindLastBuilds(ctx, []int64{latest.ID, v1.ID, v2.ID, 9999})
		must(t, err)
		if len(last) != 2 {
			t.Fatalf("FindLastBuilds = %d entries, want 2 (v2 and 9999 have no build)", len(last))
		}
		if b := last[latest.ID]; b == nil || b.ID != imp.Build.ID {
			t.Errorf("last build of latest = %v, want %d", b, imp.Build.ID)
		}
		if b := last[v1.ID]; b == nil || b.ID != b3.ID {
			t.Errorf("last build of v1 = %v, want %d", b, b3.ID)
		}
		if _, ok := last[v2.ID]; ok {
			t.Errorf("v2 has a last build")
		}
	})
}
