// Package storetest gives tests a real, fresh, migrated docsd database on
// both dialects: a SQLite file in the test's temp dir, and a PostgreSQL
// database made for the one test on whatever server can be found or started.
//
// PostgreSQL is chosen once per test process, in this order:
//
//  1. DOCSD_TEST_POSTGRES_URL, a postgres:// URL of a server where the user
//     may CREATE DATABASE (a server that does not answer is a test failure);
//  2. the local server at postgres://postgres@127.0.0.1:5432/test, if it
//     answers within 2 s;
//  3. a throwaway cluster started with the initdb and pg_ctl found under
//     /usr/lib/postgresql/*/bin (or on PATH), in a temp dir, on a free port
//     of 127.0.0.1, with trust authentication. It is stopped and removed when
//     the test process exits, however it exits.
//
// DOCSD_TEST_POSTGRES_THROWAWAY=1 skips 1 and 2 and always starts the
// throwaway cluster (failing the tests when it can't). When none of them
// works, PostgreSQL tests are skipped with a loud message, except when
// CI=true, where they fail.
//
// Every PostgreSQL database is named docsd_test_<pid>_<n>_<random>, gets an
// ICU en-US default collation when the server supports one (so a query that
// forgets to sort by code point fails here rather than in production),
// commits without waiting for the WAL flush, and is dropped when the test
// ends. Open copies a template database that was migrated once per process
// (docsd_test_<pid>_template). On a server that outlives the process, a
// reaper process drops the template, and any database whose test never
// cleaned up, when the test process exits, however it exits.
package storetest

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"docsd/store"
)

// Environment variables read by this package.
const (
	// EnvPostgresURL names a PostgreSQL server to create test databases on.
	EnvPostgresURL = "DOCSD_TEST_POSTGRES_URL"
	// EnvThrowaway, when "1" or "true", ignores EnvPostgresURL and the local
	// server and starts a throwaway cluster.
	EnvThrowaway = "DOCSD_TEST_POSTGRES_THROWAWAY"
	// EnvCI, when "true", turns a missing PostgreSQL from a skip into a failure.
	EnvCI = "CI"
)

// LocalPostgresURL is the server tried when EnvPostgresURL is unset.
const LocalPostgresURL = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// Dialects runs fn as the subtests "sqlite" and "postgres", one per dialect.
func Dialects(t *testing.T, fn func(t *testing.T, d store.Dialect)) {
	t.Helper()
	for _, d := range []store.Dialect{store.SQLite, store.Postgres} {
		t.Run(string(d), func(t *testing.T) { fn(t, d) })
	}
}

// Open returns a store on a fresh, migrated, empty database of dialect d. The
// store is closed and the database removed when the test ends.
func Open(tb testing.TB, d store.Dialect) *store.Store {
	tb.Helper()
	var url string
	if d == store.Postgres {
		url = postgresDatabase(tb, true)
	} else {
		url = DatabaseURL(tb, d)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := store.Open(ctx, url)
	if err != nil {
		tb.Fatalf("storetest: open %s store: %v", d, err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Errorf("storetest: close %s store: %v", d, err)
		}
	})
	return s
}

// DatabaseURL makes a fresh, empty database of dialect d that is not yet
// migrated and returns the URL that store.Open and DOCSD_DATABASE_URL take:
// a file path for SQLite, a postgres:// URL for PostgreSQL. The database is
// removed when the test ends (after the cleanups registered later, such as
// closing a store on it).
func DatabaseURL(tb testing.TB, d store.Dialect) string {
	tb.Helper()
	switch d {
	case store.SQLite:
		return filepath.Join(tb.TempDir(), "docsd.db")
	case store.Postgres:
		return postgresDatabase(tb, false)
	default:
		tb.Fatalf("storetest: unknown dialect %q", d)
		return ""
	}
}

// MigratedTo makes a fresh database of dialect d migrated up to and
// including migration version only, for tests of what later migrations do
// to rows stored before them: the store on it, and a plain handle to write
// those rows with. Both are closed when the test ends.
func MigratedTo(tb testing.TB, d store.Dialect, version int64) (*store.Store, *sql.DB) {
	tb.Helper()
	url := DatabaseURL(tb, d)
	s, err := store.OpenWithoutMigrating(url)
	if err != nil {
		tb.Fatalf("storetest: open %s: %v", d, err)
	}
	tb.Cleanup(func() { s.Close() })
	if err := s.MigrateTo(context.Background(), version); err != nil {
		tb.Fatalf("storetest: migrate %s to %d: %v", d, version, err)
	}
	return s, SQL(tb, d, url)
}

// SQL opens a plain database/sql handle on the database at url, as
// DatabaseURL returns it, closed when the test ends. Tests use it to look at
// rows that the store's API does not show.
func SQL(tb testing.TB, d store.Dialect, url string) *sql.DB {
	tb.Helper()
	driver, dsn := "postgres", url
	if d == store.SQLite {
		driver, dsn = "sqlite", "file:"+url+"?_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)"
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		tb.Fatalf("storetest: open %s: %v", d, err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// RowCounts returns the number of rows of every table of the database
// (except goose's own, and SQLite's virtual tables and their shadow tables,
// which hold an index, not rows), by table name.
func RowCounts(tb testing.TB, d store.Dialect, db *sql.DB) map[string]int {
	tb.Helper()
	ctx := context.Background()
	list := `SELECT tablename FROM pg_tables WHERE schemaname = current_schema()`
	if d == store.SQLite {
		list = `SELECT name FROM sqlite_master t WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
			AND NOT EXISTS (SELECT 1 FROM sqlite_master v WHERE v.type = 'table' AND v.sql LIKE 'CREATE VIRTUAL TABLE%'
				AND (t.name = v.name OR t.name LIKE v.name || '\_%' ESCAPE '\'))`
	}
	rows, err := db.QueryContext(ctx, list)
	if err != nil {
		tb.Fatalf("storetest: list tables: %v", err)
	}
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			tb.Fatalf("storetest: list tables: %v", err)
		}
		if !strings.HasPrefix(name, "goose_") {
			tables = append(tables, name)
		}
	}
	if err := rows.Close(); err != nil {
		tb.Fatalf("storetest: list tables: %v", err)
	}
	if len(tables) == 0 {
		tb.Fatalf("storetest: no tables found")
	}
	counts := make(map[string]int, len(tables))
	for _, t := range tables {
		var n int
		if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+t).Scan(&n); err != nil {
			tb.Fatalf("storetest: count %s: %v", t, err)
		}
		counts[t] = n
	}
	return counts
}

// truthy reports whether an environment variable is set to 1 or true.
func truthy(name string) bool {
	v := strings.ToLower(strings.TrimSpace(os.Getenv(name)))
	return v == "1" || v == "true" || v == "yes"
}

// unavailable skips the test because no PostgreSQL could be found, or fails
// it when running in CI, where a missing database must not pass silently.
func unavailable(tb testing.TB, why error) {
	tb.Helper()
	msg := fmt.Sprintf("storetest: NO POSTGRESQL, PostgreSQL tests are not run: %v "+
		"(set %s to a server URL, run one at 127.0.0.1:5432, or install the postgresql package for a throwaway cluster)",
		why, EnvPostgresURL)
	if os.Getenv(EnvCI) == "true" {
		tb.Fatal(msg)
	}
	tb.Skip(msg)
}
