package storetest

import (
	"sync"
	"testing"
	"time"

	"docsd/internal/slug"
	"docsd/store"
)

// MustUser creates an active user with an API token and returns the user and
// the token's key.
func MustUser(tb testing.TB, s *store.Store, username string) (*store.User, string) {
	tb.Helper()
	return mustUser(tb, s, username, false)
}

// MustSuperuser is MustUser for a superuser.
func MustSuperuser(tb testing.TB, s *store.Store, username string) (*store.User, string) {
	tb.Helper()
	return mustUser(tb, s, username, true)
}

func mustUser(tb testing.TB, s *store.Store, username string, superuser bool) (*store.User, string) {
	tb.Helper()
	u, err := s.CreateUser(tb.Context(), username, username+"@example.com", superuser)
	if err != nil {
		tb.Fatalf("storetest: create user %q: %v", username, err)
	}
	key, _, err := s.CreateToken(tb.Context(), u.ID)
	if err != nil {
		tb.Fatalf("storetest: create token for %q: %v", username, err)
	}
	return u, key
}

// MustImport imports a git project the way POST /api/v3/projects/ does, with
// the slug derived from name, language en, programming language words and a
// GitHub integration, maintained by user.
func MustImport(tb testing.TB, s *store.Store, user *store.User, name, repo string) *store.ImportResult {
	tb.Helper()
	res, err := s.ImportProject(tb.Context(), store.ProjectImport{
		Name: name, Slug: slug.Project(name), Repo: repo, RepoType: "git",
		Language: "en", ProgrammingLanguage: "words",
		MaintainerID: user.ID, IntegrationType: store.GitHubWebhook,
	})
	if err != nil {
		tb.Fatalf("storetest: import %q: %v", name, err)
	}
	return res
}

// MustVersion creates an active, public branch version of the project named
// verboseName, its slug and identifier derived from it.
func MustVersion(tb testing.TB, s *store.Store, projectID int64, verboseName string) *store.Version {
	tb.Helper()
	v, err := s.CreateVersion(tb.Context(), &store.Version{
		ProjectID: projectID, Slug: slug.Version(verboseName), VerboseName: verboseName,
		Identifier: verboseName, Type: store.Branch, Active: true, PrivacyLevel: store.Public,
	})
	if err != nil {
		tb.Fatalf("storetest: create version %q: %v", verboseName, err)
	}
	return v
}

// Clock is a settable time source for a store (Store.Now). Tests use it to
// move time for leases, sweeps and `modified`.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// SetClock makes s read its time from a new Clock that starts at start
// (in UTC, truncated to microseconds) and only moves when told. Call it
// before the store is used concurrently.
func SetClock(s *store.Store, start time.Time) *Clock {
	c := &Clock{now: start.UTC().Truncate(time.Microsecond)}
	s.Now = c.Now
	return c
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d and returns the new time.
func (c *Clock) Advance(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d).Truncate(time.Microsecond)
	return c.now
}
