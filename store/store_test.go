package store_test

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lib/pq"

	"docsd/internal/errs"
	"docsd/internal/storetest"
	"docsd/store"
)

func TestOpen(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s, db := openWithSQL(t, d)
		if got := s.Dialect(); got != d {
			t.Errorf("Dialect() = %q, want %q", got, d)
		}
		must(t, s.Ping(t.Context()))
		// Migrating again is a no-op.
		must(t, s.Migrate(t.Context()))
		for table, n := range storetest.RowCounts(t, d, db) {
			if n != 0 {
				t.Errorf("fresh database: %s has %d rows, want 0", table, n)
			}
		}
	})
}

func TestOpenEmptyPath(t *testing.T) {
	t.Parallel()
	for _, u := range []string{"", "sqlite://", "file:?mode=memory"} {
		_, err := store.Open(t.Context(), u)
		wantKind(t, err, errs.Invalid)
	}
}

// TestTimesAreUTCMicroseconds checks that stored times come back in UTC with
// microsecond precision, whatever the time zone of the time given and, on
// PostgreSQL, whatever the session's time zone is.
func TestTimesAreUTCMicroseconds(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		dbURL := storetest.DatabaseURL(t, d)
		if d == store.Postgres {
			// A server whose time zone is not UTC must not leak it into the store.
			u, err := url.Parse(dbURL)
			must(t, err)
			db := storetest.SQL(t, d, dbURL)
			_, err = db.ExecContext(t.Context(), `ALTER DATABASE `+pq.QuoteIdentifier(strings.TrimPrefix(u.Path, "/"))+` SET timezone TO 'Asia/Tokyo'`)
			must(t, err)
			db.Close()
		}
		s, err := store.Open(t.Context(), dbURL)
		must(t, err)
		t.Cleanup(func() { s.Close() })
		tokyo := time.FixedZone("JST", 9*3600)
		when := time.Date(2024, 12, 31, 23, 59, 58, 987654000, tokyo)
		storetest.SetClock(s, when)

		u, _ := storetest.MustUser(t, s, "alice")
		wantTime(t, "CreateUser Created", u.Created, when)
		got, err := s.FindUserByUsername(t.Context(), "alice")
		must(t, err)
		wantTime(t, "stored user created", got.Created, when)

		res := storetest.MustImport(t, s, u, "Time Zones", "https://example.com/tz.git")
		p, err := s.FindProjectByID(t.Context(), res.Project.ID)
		must(t, err)
		wantTime(t, "project created", p.Created, when)
		wantTime(t, "project modified", p.Modified, when)
		b, err := s.FindBuildByID(t.Context(), res.Build.ID)
		must(t, err)
		wantTime(t, "build created", b.Created, when)
	})
}

// TestForeignKeyViolationIsNotFound checks that writes naming a missing row
// are NotFound (the client named something that does not exist), never
// Internal.
func TestForeignKeyViolationIsNotFound(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		ctx := t.Context()
		u, _ := storetest.MustUser(t, s, "alice")
		p := storetest.MustImport(t, s, u, "Real", "https://example.com/real.git")
		const missing = 987654
		tests := []struct {
			name string
			call func(ctx context.Context) error
		}{
			{"CreateRelationship missing child", func(ctx context.Context) error {
				_, err := s.CreateRelationship(ctx, p.Project.ID, missing, "x")
				return err
			}},
			{"CreateRelationship missing parent", func(ctx context.Context) error {
				_, err := s.CreateRelationship(ctx, missing, p.Project.ID, "x")
				return err
			}},
			{"CreateToken missing user", func(ctx context.Context) error {
				_, _, err := s.CreateToken(ctx, missing)
				return err
			}},
			{"AddMaintainer missing user", func(ctx context.Context) error {
				return s.AddMaintainer(ctx, p.Project.ID, missing)
			}},
			{"AddMaintainer missing project", func(ctx context.Context) error {
				return s.AddMaintainer(ctx, missing, u.ID)
			}},
			{"CreateVersion missing project", func(ctx context.Context) error {
				_, err := s.CreateVersion(ctx, &store.Version{ProjectID: missing, Slug: "v1", VerboseName: "v1"})
				return err
			}},
			{"CreateBuild missing version", func(ctx context.Context) error {
				_, err := s.CreateBuild(ctx, &store.Version{ID: missing, ProjectID: p.Project.ID}, nil)
				return err
			}},
			{"AddBuildCommand missing build", func(ctx context.Context) error {
				_, err := s.AddBuildCommand(ctx, store.BuildCommand{BuildID: missing, Command: "true", StartTime: s.Now()})
				return err
			}},
			{"CreateRedirect missing project", func(ctx context.Context) error {
				_, err := s.CreateRedirect(ctx, store.Redirect{ProjectID: missing, Type: "page", FromURL: "/a", ToURL: "/b"})
				return err
			}},
			{"CreateEnvironmentVariable missing project", func(ctx context.Context) error {
				_, err := s.CreateEnvironmentVariable(ctx, missing, "NAME", "value", false)
				return err
			}},
			{"CreateIntegration missing project", func(ctx context.Context) error {
				_, err := s.CreateIntegration(ctx, missing, store.GitHubWebhook)
				return err
			}},
			{"RecordWebhookExchange missing integration", func(ctx context.Context) error {
				return s.RecordWebhookExchange(ctx, store.WebhookExchange{IntegrationID: missing, RequestHeaders: "{}", ResponseStatus: 200})
			}},
			{"SetTranslationOf missing main project", func(ctx context.Context) error {
				return s.SetTranslationOf(ctx, p.Project.ID, ptr(int64(missing)))
			}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				wantKind(t, tt.call(ctx), errs.NotFound)
			})
		}
	})
}

// TestMissingRowsAreNotFound checks the reads and writes addressed by id.
func TestMissingRowsAreNotFound(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		ctx := t.Context()
		const missing = 424242
		tests := []struct {
			name string
			call func() error
		}{
			{"FindUserByUsername", func() error { _, err := s.FindUserByUsername(ctx, "nobody"); return err }},
			{"FindUserByToken", func() error { _, err := s.FindUserByToken(ctx, strings.Repeat("a", 40)); return err }},
			{"SetUserActive", func() error { return s.SetUserActive(ctx, "nobody", false) }},
			{"RevokeToken by id", func() error { return s.RevokeToken(ctx, "424242") }},
			{"RevokeToken by key", func() error { return s.RevokeToken(ctx, strings.Repeat("b", 40)) }},
			{"FindProjectByID", func() error { _, err := s.FindProjectByID(ctx, missing); return err }},
			{"FindProjectBySlug", func() error { _, err := s.FindProjectBySlug(ctx, "nope"); return err }},
			{"UpdateProject", func() error {
				_, err := s.UpdateProject(ctx, missing, store.ProjectUpdate{Name: ptr("x")})
				return err
			}},
			{"RecordBuildFacts", func() error { return s.RecordBuildFacts(ctx, missing, ptr("main"), nil) }},
			{"DeleteProject", func() error { return s.DeleteProject(ctx, missing) }},
			{"SetTranslationOf", func() error { return s.SetTranslationOf(ctx, missing, nil) }},
			{"RemoveMaintainer", func() error { return s.RemoveMaintainer(ctx, missing, missing) }},
			{"FindVersionByID", func() error { _, err := s.FindVersionByID(ctx, missing); return err }},
			{"FindVersionBySlug", func() error { _, err := s.FindVersionBySlug(ctx, missing, "latest"); return err }},
			{"UpdateVersion", func() error {
				_, err := s.UpdateVersion(ctx, missing, store.VersionUpdate{Active: ptr(true)})
				return err
			}},
			{"DeleteVersion", func() error { return s.DeleteVersion(ctx, missing) }},
			{"FindBuildByID", func() error { _, err := s.FindBuildByID(ctx, missing); return err }},
			{"SetBuildState", func() error { return s.SetBuildState(ctx, missing, store.Building) }},
			{"FinishBuild", func() error { _, err := s.FinishBuild(ctx, missing, store.BuildResult{}); return err }},
			{"ClaimBuild on an empty queue", func() error { _, err := s.ClaimBuild(ctx, "w", time.Minute); return err }},
			{"DeleteRelationship", func() error { return s.DeleteRelationship(ctx, missing) }},
			{"FindRedirect", func() error { _, err := s.FindRedirect(ctx, missing, missing); return err }},
			{"UpdateRedirect", func() error {
				_, err := s.UpdateRedirect(ctx, store.Redirect{ID: missing, ProjectID: missing, Type: "page"}, nil)
				return err
			}},
			{"SetRedirectStatus", func() error { return s.SetRedirectStatus(ctx, missing, missing, 301) }},
			{"DeleteRedirect", func() error { return s.DeleteRedirect(ctx, missing, missing) }},
			{"FindEnvironmentVariable", func() error { _, err := s.FindEnvironmentVariable(ctx, missing, missing); return err }},
			{"DeleteEnvironmentVariable", func() error { return s.DeleteEnvironmentVariable(ctx, missing, missing) }},
			{"FindIntegration", func() error { _, err := s.FindIntegration(ctx, missing, missing); return err }},
			{"DeleteIntegration", func() error { return s.DeleteIntegration(ctx, missing, missing) }},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) { wantKind(t, tt.call(), errs.NotFound) })
		}
	})
}

// TestEmptyIDListsFindNothing checks that an empty, non-nil id list matches
// nothing rather than everything.
func TestEmptyIDListsFindNothing(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		ctx := t.Context()
		u, _ := storetest.MustUser(t, s, "alice")
		storetest.MustImport(t, s, u, "One", "https://example.com/one.git")

		ps, n, err := s.FindProjects(ctx, store.ProjectFilter{IDs: []int64{}})
		must(t, err)
		if len(ps) != 0 || n != 0 {
			t.Errorf("FindProjects(IDs: []) = %d projects, total %d; want none", len(ps), n)
		}
		vs, n, err := s.FindVersions(ctx, store.VersionFilter{ProjectIDs: []int64{}})
		must(t, err)
		if len(vs) != 0 || n != 0 {
			t.Errorf("FindVersions(ProjectIDs: []) = %d versions, total %d; want none", len(vs), n)
		}
		bs, n, err := s.FindBuilds(ctx, store.BuildFilter{IDs: []int64{}})
		must(t, err)
		if len(bs) != 0 || n != 0 {
			t.Errorf("FindBuilds(IDs: []) = %d builds, total %d; want none", len(bs), n)
		}
		rs, n, err := s.FindRelationships(ctx, store.RelationshipFilter{ParentIDs: []int64{}})
		must(t, err)
		if len(rs) != 0 || n != 0 {
			t.Errorf("FindRelationships(ParentIDs: []) = %d, total %d; want none", len(rs), n)
		}
		for name, call := range map[string]func() (int, error){
			"FindUsersByIDs":       func() (int, error) { x, err := s.FindUsersByIDs(ctx, nil); return len(x), err },
			"FindProjectsByIDs":    func() (int, error) { x, err := s.FindProjectsByIDs(ctx, nil); return len(x), err },
			"FindVersionsByIDs":    func() (int, error) { x, err := s.FindVersionsByIDs(ctx, nil); return len(x), err },
			"FindMaintainerships":  func() (int, error) { x, err := s.FindMaintainerships(ctx, nil); return len(x), err },
			"FindBuildCommands":    func() (int, error) { x, err := s.FindBuildCommands(ctx, nil); return len(x), err },
			"FindLastBuilds":       func() (int, error) { x, err := s.FindLastBuilds(ctx, nil); return len(x), err },
			"FindUsersByIDs(none)": func() (int, error) { x, err := s.FindUsersByIDs(ctx, []int64{999}); return len(x), err },
		} {
			n, err := call()
			if err != nil || n != 0 {
				t.Errorf("%s = %d results, %v; want none, nil", name, n, err)
			}
		}
	})
}

// TestOnCommit: the hook hears of every committed write with the tables it
// wrote, before the writing method returns, and of nothing else.
func TestOnCommit(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		var got [][]string
		s.OnCommit(func(_ context.Context, tables []string) { got = append(got, tables) })
		u, _ := storetest.MustUser(t, s, "hook")
		p := storetest.MustImport(t, s, u, "hooked", "https://github.com/example/hooked").Project
		got = nil

		private := store.Private
		if _, err := s.UpdateProject(t.Context(), p.ID, store.ProjectUpdate{PrivacyLevel: &private}); err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || !slices.Contains(got[0], "projects") {
			t.Errorf("after UpdateProject: hook got %v, want one call naming projects", got)
		}
		got = nil
		if _, err := s.FindProjectBySlug(t.Context(), "hooked"); err != nil {
			t.Fatal(err)
		}
		err := s.InTx(t.Context(), "test", func(tx *store.Tx) error { return errs.E(errs.Invalid, "test", "rolled back") })
		wantKind(t, err, errs.Invalid)
		if len(got) != 0 {
			t.Errorf("after a read and a rolled back transaction: hook got %v, want nothing", got)
		}
		storetest.MustVersion(t, s, p.ID, "v1")
		if len(got) != 1 || !slices.Contains(got[0], "versions") {
			t.Errorf("after CreateVersion: hook got %v, want one call naming versions", got)
		}
	})
}

// TestWatchCommits: on SQLite, a commit by another store on the same file
// (another process) is heard by the watcher; the deadline only stops a
// hung run.
func TestWatchCommits(t *testing.T) {
	t.Parallel()
	url := storetest.DatabaseURL(t, store.SQLite)
	open := func() *store.Store {
		s, err := store.Open(t.Context(), url)
		must(t, err)
		t.Cleanup(func() { s.Close() })
		return s
	}
	watched, other := open(), open()
	heard := make(chan struct{}, 100)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go watched.WatchCommits(ctx, 10*time.Millisecond, func() { heard <- struct{}{} })
	deadline := time.After(time.Minute)
	for {
		storetest.MustUser(t, other, fmt.Sprintf("u%d", time.Now().UnixNano()))
		select {
		case <-heard:
			return
		case <-deadline:
			t.Fatal("the watcher did not hear of the other store's commits")
		case <-time.After(50 * time.Millisecond):
		}
	}
}
