package store

import (
	"database/sql"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestRowTypes checks each rowType against its struct: every column is
// scanned into the field whose db tag is the column's name, and every
// field with a db tag has a column, so that a column added to the struct
// cannot be forgotten in the SELECT (sqlx reported such a miss at run
// time; the explicit scans would leave the field zero).
func TestRowTypes(t *testing.T) {
	t.Run("Project", func(t *testing.T) { checkRowType(t, projectRows) })
	t.Run("Version", func(t *testing.T) { checkRowType(t, versionRows) })
	t.Run("Build", func(t *testing.T) { checkRowType(t, buildRows) })
	t.Run("BuildCommand", func(t *testing.T) { checkRowType(t, buildCommandRows) })
	t.Run("User", func(t *testing.T) { checkRowType(t, userRows) })
}

func checkRowType[T any](t *testing.T, rt *rowType[T]) {
	t.Helper()
	var v T
	sv := reflect.ValueOf(&v).Elem()
	tags := map[uintptr]string{} // field address → db tag
	for i := range sv.NumField() {
		if tag := sv.Type().Field(i).Tag.Get("db"); tag != "" {
			tags[sv.Field(i).Addr().Pointer()] = tag
		}
	}
	seen := map[string]bool{}
	for i, expr := range rt.exprs {
		name := expr[strings.LastIndexByte(expr, '.')+1:]
		if _, alias, ok := strings.Cut(expr, " AS "); ok {
			name = alias
		}
		tag, ok := tags[reflect.ValueOf(rt.addrs[i](&v)).Pointer()]
		if !ok {
			t.Errorf("column %q: scanned into no db-tagged field of %T", expr, v)
			continue
		}
		if tag != name {
			t.Errorf("column %q: scanned into the field tagged %q, want %q", expr, tag, name)
		}
		if seen[tag] {
			t.Errorf("field %q: scanned twice", tag)
		}
		seen[tag] = true
	}
	for _, tag := range tags {
		if !seen[tag] {
			t.Errorf("field %q of %T: no column", tag, v)
		}
	}
}

// TestParseSQLiteTime checks parseSQLiteTime against modernc's driver,
// which parses the same text read from a DATETIME column.
func TestParseSQLiteTime(t *testing.T) {
	driver, dsn, _, _, err := DSN(filepath.Join(t.TempDir(), "times.db"))
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE times (s TEXT, t DATETIME)`); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"2024-05-06 07:08:09.123456+00:00", // as the store writes them
		"2024-05-06 07:08:09+02:00",
		"2024-05-06T07:08:09.5-07:00",
		"2024-05-06 07:08:09.123",
		"2024-05-06T07:08:09Z",
		"2024-05-06 07:08:09+00:00Z",
		"2024-05-06 07:08",
		"2024-05-06T07:08",
		"2024-05-06",
		"2024-05-06 07:08:09.123456 +0000 UTC",
		"2024-05-06 07:08:09.123456 +0200 CEST m=+0.000001",
	} {
		if _, err := db.Exec(`INSERT INTO times (s, t) VALUES (?, ?)`, s, s); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := db.Query(`SELECT s, t FROM times`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		var want time.Time
		if err := rows.Scan(&s, &want); err != nil {
			t.Fatal(err)
		}
		got, err := parseSQLiteTime(s)
		if err != nil {
			t.Errorf("parseSQLiteTime(%q): %v", s, err)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("parseSQLiteTime(%q) = %v (%v), want %v (%v)", s, got, got.Location(), want, want.Location())
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := parseSQLiteTime("yesterday"); err == nil {
		t.Error(`parseSQLiteTime("yesterday"): no error`)
	}
}
