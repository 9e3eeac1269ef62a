package store

import (
	"reflect"
	"strings"
	"testing"
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
