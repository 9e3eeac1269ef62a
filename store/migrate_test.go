package store_test

import (
	"testing"

	"docsd/internal/storetest"
	"docsd/store"
)

// TestMigration00012KeepsData: rows stored before migration 00012 get its
// defaults (versions not hidden, variables not public) and builds take
// their version's verbose_name and type.
func TestMigration00012KeepsData(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		ctx := t.Context()
		s, db := storetest.MigratedTo(t, d, 8)
		const at = "'2019-04-29 10:00:00'"
		for _, q := range []string{
			`INSERT INTO projects (name, slug, repo, created, modified) VALUES ('Old', 'old', 'https://github.com/x/old', ` + at + `, ` + at + `)`,
			`INSERT INTO versions (project_id, slug, verbose_name, type, active, created) VALUES (1, 'v1.0', 'v1.0', 'tag', TRUE, ` + at + `)`,
			`INSERT INTO builds (project_id, version_id, created) VALUES (1, 1, ` + at + `)`,
			`INSERT INTO environment_variables (project_id, name, value, created, modified) VALUES (1, 'OLD', 'value', ` + at + `, ` + at + `)`,
		} {
			if _, err := db.ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		must(t, s.Migrate(ctx))
		v, err := s.FindVersionByID(ctx, 1)
		must(t, err)
		b, err := s.FindBuildByID(ctx, 1)
		must(t, err)
		vars, _, err := s.FindEnvironmentVariables(ctx, 1, store.Page{})
		must(t, err)
		if v.Hidden || b.VersionName != "v1.0" || b.VersionType != "tag" || len(vars) != 1 || vars[0].Public {
			t.Errorf("after 00012: hidden %v, build version %q %q, variables %+v", v.Hidden, b.VersionName, b.VersionType, vars)
		}
	})
}
