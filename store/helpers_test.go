package store_test

import (
	"context"
	"database/sql"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"docsd/internal/errs"
	"docsd/internal/storetest"
	"docsd/store"
)

// t0 is a fixed start for test clocks: not UTC-midnight, with microseconds.
var t0 = time.Date(2024, 5, 6, 7, 8, 9, 123456000, time.UTC)

var hex64 = regexp.MustCompile(`^[0-9a-f]{64}$`)

func ptr[T any](v T) *T { return &v }

// wantKind fails the test unless err is classified as want.
func wantKind(t *testing.T, err error, want errs.Kind) {
	t.Helper()
	if err == nil {
		t.Fatalf("error = nil, want kind %v", want)
	}
	if got := errs.KindOf(err); got != want {
		t.Fatalf("error = %v: kind %v, want %v", err, got, want)
	}
}

// must fails the test on an error.
func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// openWithSQL is storetest.Open plus a plain handle on the same database.
func openWithSQL(t *testing.T, d store.Dialect) (*store.Store, *sql.DB) {
	t.Helper()
	url := storetest.DatabaseURL(t, d)
	s, err := store.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, storetest.SQL(t, d, url)
}

func projectSlugs(ps []*store.Project) []string {
	out := []string{}
	for _, p := range ps {
		out = append(out, p.Slug)
	}
	return out
}

func ids[T any](xs []T, id func(T) int64) []int64 {
	out := []int64{}
	for _, x := range xs {
		out = append(out, id(x))
	}
	return out
}

func buildIDs(bs []*store.Build) []int64 { return ids(bs, func(b *store.Build) int64 { return b.ID }) }

// wantTime fails unless got is want, in UTC (offset 0).
func wantTime(t *testing.T, what string, got, want time.Time) {
	t.Helper()
	if !got.Equal(want) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
	if _, off := got.Zone(); off != 0 {
		t.Errorf("%s = %v: offset %d s, want UTC", what, got, off)
	}
}

func wantInt64s(t *testing.T, what string, got, want []int64) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

func wantStrings(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s = %q, want %q", what, got, want)
	}
}

// importProject imports a project with an explicit slug and privacy level.
func importProject(t *testing.T, s *store.Store, u *store.User, slug, privacy string) *store.ImportResult {
	t.Helper()
	res, err := s.ImportProject(t.Context(), store.ProjectImport{
		Name: slug, Slug: slug, Repo: "https://example.com/" + slug + ".git", RepoType: "git",
		Language: "en", ProgrammingLanguage: "words", MaintainerID: u.ID, IntegrationType: store.GitHubWebhook,
	})
	if err != nil {
		t.Fatalf("import %q: %v", slug, err)
	}
	if privacy != store.Public {
		p, err := s.UpdateProject(t.Context(), res.Project.ID, store.ProjectUpdate{PrivacyLevel: &privacy})
		if err != nil {
			t.Fatal(err)
		}
		res.Project = p
	}
	return res
}

// rebind turns the `?` placeholders of a raw test query into the dialect's.
func rebind(d store.Dialect, query string) string {
	if d == store.Postgres {
		return sqlx.Rebind(sqlx.DOLLAR, query)
	}
	return query
}
