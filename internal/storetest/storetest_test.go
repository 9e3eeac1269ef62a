package storetest

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"docsd/store"
)

func TestOpenIsFreshAndMigrated(t *testing.T) {
	Dialects(t, func(t *testing.T, d store.Dialect) {
		url := DatabaseURL(t, d)
		s, err := store.Open(context.Background(), url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		for table, n := range RowCounts(t, d, SQL(t, d, url)) {
			if n != 0 {
				t.Errorf("%s has %d rows, want 0", table, n)
			}
		}
		MustUser(t, s, "alice")

		// Another Open is another, empty database.
		other := Open(t, d)
		if other.Dialect() != d {
			t.Errorf("Dialect() = %q, want %q", other.Dialect(), d)
		}
		if _, err := other.FindUserByUsername(t.Context(), "alice"); err == nil {
			t.Errorf("a user of one database is found in another")
		}
		MustUser(t, other, "alice")
	})
}

func TestDatabaseURLIsEmpty(t *testing.T) {
	Dialects(t, func(t *testing.T, d store.Dialect) {
		url := DatabaseURL(t, d)
		list := `SELECT COUNT(*) FROM pg_tables WHERE schemaname = current_schema()`
		if d == store.SQLite {
			list = `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'`
		}
		var n int
		if err := SQL(t, d, url).QueryRowContext(t.Context(), list).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Errorf("DatabaseURL gave a database with %d tables, want none", n)
		}
	})
}

func TestPostgresDatabaseIsDropped(t *testing.T) {
	var name string
	t.Run("make", func(t *testing.T) {
		s := Open(t, store.Postgres)
		MustUser(t, s, "alice")
		name = databaseName(t, DatabaseURL(t, store.Postgres))
	})
	if name == "" {
		t.Skip("no PostgreSQL")
	}
	if !regexp.MustCompile(`^docsd_test_[0-9]+_[0-9]+_[0-9a-f]{8}$`).MatchString(name) {
		t.Errorf("database name %q does not follow docsd_test_<pid>_<n>_<random>", name)
	}
	var n int
	db := SQL(t, store.Postgres, DatabaseURL(t, store.Postgres))
	if err := db.QueryRowContext(t.Context(), `SELECT COUNT(*) FROM pg_database WHERE datname = $1`, name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("database %s still exists after its test", name)
	}
}

func databaseName(t *testing.T, url string) string {
	t.Helper()
	i := strings.LastIndexByte(url, '/')
	name, _, _ := strings.Cut(url[i+1:], "?")
	return name
}

func TestClock(t *testing.T) {
	s := Open(t, store.SQLite)
	start := time.Date(2030, 1, 2, 3, 4, 5, 6789, time.FixedZone("X", 3600))
	c := SetClock(s, start)
	want := start.UTC().Truncate(time.Microsecond)
	if got := s.Now(); !got.Equal(want) || got.Location() != time.UTC {
		t.Errorf("Now() = %v, want %v in UTC", got, want)
	}
	if got := c.Advance(1500 * time.Millisecond); !got.Equal(want.Add(1500*time.Millisecond)) || !s.Now().Equal(got) {
		t.Errorf("Advance = %v, Now() = %v", got, s.Now())
	}
}

func TestFixtures(t *testing.T) {
	s := Open(t, store.SQLite)
	u, key := MustUser(t, s, "alice")
	got, err := s.FindUserByToken(t.Context(), key)
	if err != nil || got.ID != u.ID || got.IsSuperuser {
		t.Errorf("FindUserByToken(MustUser's key) = %+v, %v", got, err)
	}
	root, rootKey := MustSuperuser(t, s, "root")
	if got, err := s.FindUserByToken(t.Context(), rootKey); err != nil || got.ID != root.ID || !got.IsSuperuser {
		t.Errorf("FindUserByToken(MustSuperuser's key) = %+v, %v", got, err)
	}
	res := MustImport(t, s, u, "My Docs", "https://example.com/docs.git")
	if res.Project.Slug != "my-docs" || res.Latest == nil || res.Build == nil || res.Integration == nil {
		t.Errorf("MustImport = %+v", res)
	}
	v := MustVersion(t, s, res.Project.ID, "release/1.0")
	if v.Slug != "release-1.0" || v.Identifier != "release/1.0" || !v.Active || v.Type != store.Branch {
		t.Errorf("MustVersion = %+v", v)
	}
}

// TestThrowawayCluster runs this test binary again with
// DOCSD_TEST_POSTGRES_THROWAWAY=1, so that it must start its own cluster,
// and checks that the cluster is removed once that process has exited.
func TestThrowawayCluster(t *testing.T) {
	if os.Getenv("STORETEST_THROWAWAY_CHILD") == "1" {
		srv := postgresServer()
		if srv.err != nil || srv.dir == "" {
			t.Fatalf("no throwaway cluster: %v (server: %s)", srv.err, srv.how)
		}
		s := Open(t, store.Postgres)
		MustImport(t, s, func() *store.User { u, _ := MustUser(t, s, "alice"); return u }(), "Docs", "https://example.com/docs.git")
		t.Logf("CLUSTER_DIR=%s", srv.dir)
		return
	}
	if testing.Short() {
		t.Skip("starts a PostgreSQL cluster: not in -short mode")
	}
	if _, err := postgresBinDir(); err != nil {
		t.Skipf("cannot start a throwaway cluster here: %v", err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestThrowawayCluster$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), "STORETEST_THROWAWAY_CHILD=1", EnvThrowaway+"=1", EnvPostgresURL+"=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`CLUSTER_DIR=(\S+)`).FindSubmatch(out)
	if m == nil || !strings.Contains(string(out), "--- PASS: TestThrowawayCluster") {
		t.Fatalf("child did not use a throwaway cluster:\n%s", out)
	}
	dir := string(m[1])
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := os.Stat(dir)
		if errors.Is(err, fs.ErrNotExist) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("throwaway cluster %s still there 30 s after its process exited", dir)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
