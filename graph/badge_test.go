package graph_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"docsd/internal/badge"
	"docsd/internal/storetest"
	"docsd/store"
)

const badgeKey = "badge-test-key-0123456789"

// badgeFixture is a public project "demo" (maintained by alice) whose
// latest passed and whose "v1" failed, an unbuilt "v2", a private "secret"
// version that passed, and a private project "hush" whose latest passed.
func badgeFixture(t *testing.T, e *env) {
	t.Helper()
	ctx := context.Background()
	s := e.store
	finish := func(v *store.Version, ok bool) {
		t.Helper()
		b, err := s.CreateBuild(ctx, v, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.FinishBuild(ctx, b.ID, store.BuildResult{Success: ok, Error: map[bool]string{false: "boom"}[ok]}); err != nil {
			t.Fatal(err)
		}
	}
	demo := storetest.MustImport(t, s, e.users["alice"], "demo", "https://github.com/rtfd/demo")
	finish(demo.Latest, false) // an older failure, then a pass
	finish(demo.Latest, true)
	v1 := storetest.MustVersion(t, s, demo.Project.ID, "v1")
	finish(v1, true)
	finish(v1, false)
	storetest.MustVersion(t, s, demo.Project.ID, "v2")
	secret := storetest.MustVersion(t, s, demo.Project.ID, "secret")
	private := store.Private
	if _, err := s.UpdateVersion(ctx, secret.ID, store.VersionUpdate{PrivacyLevel: &private}); err != nil {
		t.Fatal(err)
	}
	finish(secret, true)
	old := storetest.MustVersion(t, s, demo.Project.ID, "old")
	finish(old, true)
	inactive := false
	if _, err := s.UpdateVersion(ctx, old.ID, store.VersionUpdate{Active: &inactive}); err != nil {
		t.Fatal(err)
	}
	// A build still running after the failure does not change the state.
	if _, err := s.CreateBuild(ctx, v1, nil); err != nil {
		t.Fatal(err)
	}

	hush := storetest.MustImport(t, s, e.users["alice"], "hush", "https://github.com/rtfd/hush")
	if _, err := s.UpdateProject(ctx, hush.Project.ID, store.ProjectUpdate{PrivacyLevel: &private}); err != nil {
		t.Fatal(err)
	}
	finish(hush.Latest, true)
}

// badgeToken is the badge token of the project slug under badgeKey.
func badgeToken(t *testing.T, e *env, slug string) string {
	t.Helper()
	p, err := e.store.FindProjectBySlug(context.Background(), slug)
	if err != nil {
		t.Fatal(err)
	}
	return badge.Token(badgeKey, p.ID, slug)
}

func TestBadgeStatus(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d)
		e.resolver.Settings.BadgeKeys = []string{badgeKey}
		badgeFixture(t, e)
		demoToken, hushToken := badgeToken(t, e, "demo"), badgeToken(t, e, "hush")
		const q = `query($p: String!, $v: String, $t: String) { badgeStatus(project: $p, version: $v, token: $t) }`
		for _, c := range []struct {
			name, user, project string
			version, token      any
			want                string
		}{
			{"default version passed", "", "demo", nil, nil, badge.Passing},
			{"empty version is the default", "", "demo", "", nil, badge.Passing},
			{"last finished build failed", "", "demo", "v1", nil, badge.Failing},
			{"never built", "", "demo", "v2", nil, badge.Unknown},
			{"no such version", "", "demo", "v9", nil, badge.Unknown},
			{"inactive version that passed", "alice", "demo", "old", nil, badge.Unknown},
			{"no such project", "", "nope", nil, nil, badge.Unknown},
			{"private version, anonymous", "", "demo", "secret", nil, badge.Unknown},
			{"private version, other user", "bob", "demo", "secret", nil, badge.Unknown},
			{"private version, maintainer", "alice", "demo", "secret", nil, badge.Passing},
			{"private version, superuser", "root", "demo", "secret", nil, badge.Passing},
			{"private version, token", "", "demo", "secret", demoToken, badge.Passing},
			{"private version, other project's token", "", "demo", "secret", hushToken, badge.Unknown},
			{"private version, bad token", "", "demo", "secret", "00" + demoToken[2:], badge.Unknown},
			{"private project, anonymous", "", "hush", nil, nil, badge.Unknown},
			{"private project, token", "", "hush", nil, hushToken, badge.Passing},
			{"private project, maintainer", "alice", "hush", nil, nil, badge.Passing},
		} {
			t.Run(c.name, func(t *testing.T) {
				data := e.must(e.as(c.user), q, map[string]any{"p": c.project, "v": c.version, "t": c.token})
				if got := dig(data, "badgeStatus"); got != c.want {
					t.Errorf("badgeStatus = %v, want %s", got, c.want)
				}
			})
		}
	})
}

func TestProjectBadge(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d)
		badgeFixture(t, e)
		const q = `query($p: String!) { project(slug: $p) { badge { version status imageUrl linkUrl } } }`
		get := func(user, project string) map[string]any {
			t.Helper()
			return dig(e.must(e.as(user), q, map[string]any{"p": project}), "project", "badge").(map[string]any)
		}
		b := get("", "demo")
		if b["version"] != "latest" || b["status"] != badge.Passing {
			t.Errorf("badge %v, want latest passing", b)
		}
		if got, want := b["imageUrl"], "https://docs.example.com/projects/demo/badge/?version=latest"; got != want {
			t.Errorf("imageUrl %v, want %s", got, want)
		}
		if got, want := b["linkUrl"], "https://docs.example.com/docs/demo/en/latest/?badge=latest"; got != want {
			t.Errorf("linkUrl %v, want %s", got, want)
		}

		// A private default version: the maintainer's URL carries the
		// token once a key makes tokens; never anyone else's.
		ctx := context.Background()
		p, _ := e.store.FindProjectBySlug(ctx, "demo")
		secret := "secret"
		if _, err := e.store.UpdateProject(ctx, p.ID, store.ProjectUpdate{DefaultVersion: &secret}); err != nil {
			t.Fatal(err)
		}
		if u := get("alice", "demo")["imageUrl"].(string); strings.Contains(u, "token=") {
			t.Errorf("a token without a key: %s", u)
		}
		e.resolver.Settings.BadgeKeys = []string{badgeKey}
		b = get("alice", "demo")
		u, err := url.Parse(b["imageUrl"].(string))
		if err != nil {
			t.Fatal(err)
		}
		if u.RawQuery != "version=secret&token="+badgeToken(t, e, "demo") {
			t.Errorf("maintainer's imageUrl %s, want version=secret and the project's token", u)
		}
		if b["status"] != badge.Passing {
			t.Errorf("maintainer sees status %v, want passing", b["status"])
		}
		b = get("", "demo")
		if strings.Contains(b["imageUrl"].(string), "token=") || b["status"] != badge.Unknown {
			t.Errorf("anonymous badge %v: want no token and unknown", b)
		}
	})
}
