package benchdata_test

import (
	"crypto/sha256"
	"database/sql"
	"fmt"
	"testing"

	"docsd/internal/bench/benchdata"
	"docsd/internal/storetest"
	"docsd/store"
)

var testScale = benchdata.Scale{Projects: 120, Versions: 1200, Builds: 1200, CommandsPerBuild: 2}

// TestGenerateIsDeterministic generates the same scale twice into fresh
// databases of each dialect and compares every generated row, and checks
// the counts a benchmark relies on.
func TestGenerateIsDeterministic(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		var sums [2]string
		for i := range sums {
			url := storetest.DatabaseURL(t, d)
			if err := benchdata.Generate(t.Context(), url, testScale); err != nil {
				t.Fatal(err)
			}
			db := storetest.SQL(t, d, url)
			sums[i] = digest(t, db)
			if i > 0 {
				continue
			}
			counts := storetest.RowCounts(t, d, db)
			want := map[string]int{"projects": 120, "versions": 1200, "users": 13, "tokens": 1}
			for table, n := range want {
				if counts[table] != n {
					t.Errorf("%s: %d rows, want %d", table, counts[table], n)
				}
			}
			// 10 builds per project, the measured one 150.
			if got, want := counts["builds"], 119*10+benchdata.MeasuredBuilds; got != want {
				t.Errorf("builds: %d rows, want %d", got, want)
			}
			var maintained, measured int
			if err := db.QueryRow(`SELECT COUNT(*) FROM project_users WHERE user_id = 1`).Scan(&maintained); err != nil {
				t.Fatal(err)
			}
			if err := db.QueryRow(`SELECT COUNT(*) FROM builds b JOIN projects p ON p.id = b.project_id WHERE p.slug = '` + benchdata.Project + `'`).Scan(&measured); err != nil {
				t.Fatal(err)
			}
			if maintained != benchdata.MaintainedProjects || measured != benchdata.MeasuredBuilds {
				t.Errorf("bench maintains %d projects, %s has %d builds; want %d and %d",
					maintained, benchdata.Project, measured, benchdata.MaintainedProjects, benchdata.MeasuredBuilds)
			}
		}
		if sums[0] != sums[1] {
			t.Errorf("two generations differ: %s and %s", sums[0], sums[1])
		}
	})
}

// digest hashes the generated tables' rows in id order.
func digest(t *testing.T, db *sql.DB) string {
	t.Helper()
	h := sha256.New()
	for _, table := range []string{"users", "tokens", "projects", "project_users", "versions", "builds", "build_commands"} {
		rows, err := db.Query(`SELECT * FROM ` + table + ` ORDER BY id`)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(h, "%s %v\n", table, vals)
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}
