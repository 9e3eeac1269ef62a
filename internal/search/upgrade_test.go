package search_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"docsd/internal/artifacts"
	"docsd/internal/search"
	"docsd/internal/storetest"
	"docsd/store"
)

// TestSearchIndexUpgrade: entries written before the impact-ordered index
// keep answering after the migrations, through the full-text tables, and
// UpgradeIndex indexes the version again from its published tree; a
// version indexed since is left alone.
func TestSearchIndexUpgrade(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		ctx := t.Context()
		s, db := storetest.MigratedTo(t, d, 16)
		const at = "'2024-04-29 10:00:00'"
		stmts := []string{
			`INSERT INTO projects (name, slug, repo, created, modified) VALUES ('Old', 'old', 'https://github.com/x/old', ` + at + `, ` + at + `)`,
			`INSERT INTO versions (project_id, slug, verbose_name, type, active, built, created) VALUES (1, 'latest', 'latest', 'branch', TRUE, TRUE, ` + at + `)`,
			`UPDATE projects SET default_version = 'latest'`,
		}
		if d == store.Postgres {
			stmts = append(stmts,
				`INSERT INTO search_pages (project_id, version_id, path, doctype, rank, title, words) VALUES (1, 1, 'install.html', 'sphinx', 0, 'Installation', 'installation')`,
				`INSERT INTO search_sections (page_id, position, anchor, title, content, words) VALUES (1, 0, 'install', 'Installation', 'Run the installer.', 'installation run the installer')`)
		} else {
			stmts = append(stmts,
				`INSERT INTO search_pages (project_id, version_id, path, doctype, rank, title) VALUES (1, 1, 'install.html', 'sphinx', 0, 'Installation')`,
				`INSERT INTO search_page_fts (rowid, words) VALUES (1, 'installation')`,
				`INSERT INTO search_sections (page_id, position, anchor, title, content) VALUES (1, 0, 'install', 'Installation', 'Run the installer.')`,
				`INSERT INTO search_section_fts (rowid, title, content) VALUES (1, 'installation', 'run the installer')`)
		}
		for _, q := range stmts {
			if _, err := db.ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		must(t, s.Migrate(ctx))
		svc := &search.Service{Store: s, URLs: testURLs}
		find := func(q string) *search.Result {
			t.Helper()
			query := search.ParseQuery("project:old " + q)
			scope, err := svc.Scope(ctx, search.Reader{}, query.Args)
			must(t, err)
			res, err := svc.Search(ctx, query, scope, 0, 10)
			must(t, err)
			return res
		}
		if res := find("installer"); res.Count != 1 || res.Hits[0].StoredPath != "install.html" {
			t.Fatalf("old entries after the migrations: %+v", res)
		}
		stale, err := s.FindSearchStaleVersions(ctx)
		if err != nil || len(stale) != 1 || stale[0] != 1 {
			t.Fatalf("stale versions = %v, %v", stale, err)
		}

		arts, err := artifacts.NewLocal(t.TempDir())
		must(t, err)
		dir := t.TempDir()
		must(t, os.WriteFile(filepath.Join(dir, "setup.html"), []byte(`<main><h1>Setup</h1><p>Run the installer, then configure.</p></main>`), 0o644))
		must(t, arts.PublishHTML(ctx, "old", "latest", dir))
		ix := &search.Indexer{Store: s, Trees: arts}
		config := func(ctx context.Context, versionID int64) (string, error) { return "{}", nil }
		if n, err := ix.UpgradeIndex(ctx, config); err != nil || n != 1 {
			t.Fatalf("UpgradeIndex = %d, %v", n, err)
		}
		if indexed, err := s.FindSearchIndexed(ctx, []int64{1}); err != nil || indexed[1] != 1 {
			t.Fatalf("indexed after the upgrade: %v, %v", indexed, err)
		}
		if res := find("installer"); res.Count != 1 || res.Hits[0].StoredPath != "setup.html" {
			t.Errorf("after the upgrade: %+v", res)
		}
		if n, err := ix.UpgradeIndex(ctx, config); err != nil || n != 0 {
			t.Errorf("second UpgradeIndex = %d, %v", n, err)
		}
	})
}
