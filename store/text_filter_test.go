package store_test

import (
	"testing"

	"docsd/internal/storetest"
	"docsd/store"
)

// TestTextFiltersOfUnstorableValues checks that a filter value no text
// column can hold (invalid UTF-8, NUL) matches nothing instead of failing
// the query, as PostgreSQL would.
func TestTextFiltersOfUnstorableValues(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		u, _ := storetest.MustUser(t, s, "alice")
		storetest.MustImport(t, s, u, "Demo", "https://github.com/rtfd/demo")
		for _, bad := range []string{"\xff", "de\x00mo"} {
			ps, n, err := s.FindProjects(t.Context(), store.ProjectFilter{Slug: &bad})
			if err != nil || n != 0 || len(ps) != 0 {
				t.Errorf("FindProjects(slug %q) = %d projects, count %d, %v; want none", bad, len(ps), n, err)
			}
			vs, n, err := s.FindVersions(t.Context(), store.VersionFilter{ProjectSlug: &bad, Identifier: &bad})
			if err != nil || n != 0 || len(vs) != 0 {
				t.Errorf("FindVersions(%q) = %d versions, count %d, %v; want none", bad, len(vs), n, err)
			}
			bs, n, err := s.FindBuilds(t.Context(), store.BuildFilter{Commit: &bad})
			if err != nil || n != 0 || len(bs) != 0 {
				t.Errorf("FindBuilds(commit %q) = %d builds, count %d, %v; want none", bad, len(bs), n, err)
			}
		}
	})
}
