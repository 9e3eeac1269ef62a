package store_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"docsd/internal/errs"
	"docsd/internal/storetest"
	"docsd/store"
)

func TestRelationships(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		ctx := t.Context()
		alice, _ := storetest.MustUser(t, s, "alice")
		proj := map[string]int64{}
		for _, name := range []string{"parent", "other-parent", "child1", "child2", "child3"} {
			proj[name] = storetest.MustImport(t, s, alice, name, "https://example.com/"+name+".git").Project.ID
		}

		steps := []struct {
			name          string
			parent, child string
			alias         string
			wantKind      *errs.Kind
		}{
			{name: "first child", parent: "parent", child: "child1", alias: "one"},
			{name: "second child", parent: "parent", child: "child2", alias: "two"},
			{name: "child already has a parent", parent: "other-parent", child: "child1", alias: "x", wantKind: ptr(errs.Conflict)},
			{name: "child twice under the same parent", parent: "parent", child: "child1", alias: "again", wantKind: ptr(errs.Conflict)},
			{name: "alias taken under the parent", parent: "parent", child: "child3", alias: "one", wantKind: ptr(errs.Conflict)},
			{name: "same alias under another parent", parent: "other-parent", child: "child3", alias: "one"},
		}
		made := map[string]*store.Relationship{}
		for _, st := range steps {
			r, err := s.CreateRelationship(ctx, proj[st.parent], proj[st.child], st.alias)
			if st.wantKind != nil {
				if err == nil || errs.KindOf(err) != *st.wantKind {
					t.Errorf("%s: error = %v, want kind %v", st.name, err, *st.wantKind)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s: %v", st.name, err)
			}
			if r.ID <= 0 || r.ParentID != proj[st.parent] || r.ChildID != proj[st.child] || r.Alias != st.alias {
				t.Errorf("%s: relationship = %+v", st.name, r)
			}
			made[st.child] = r
		}

		relIDs := func(rs []*store.Relationship) []int64 {
			return ids(rs, func(r *store.Relationship) int64 { return r.ID })
		}
		tests := []struct {
			name      string
			filter    store.RelationshipFilter
			want      []int64
			wantTotal int
		}{
			{name: "all in creation order", want: []int64{made["child1"].ID, made["child2"].ID, made["child3"].ID}},
			{name: "by parent", filter: store.RelationshipFilter{ParentIDs: []int64{proj["parent"]}},
				want: []int64{made["child1"].ID, made["child2"].ID}},
			{name: "by child", filter: store.RelationshipFilter{ChildIDs: []int64{proj["child3"]}}, want: []int64{made["child3"].ID}},
			{name: "by alias", filter: store.RelationshipFilter{Alias: ptr("one")}, want: []int64{made["child1"].ID, made["child3"].ID}},
			{name: "by parent and alias", filter: store.RelationshipFilter{ParentIDs: []int64{proj["other-parent"]}, Alias: ptr("one")},
				want: []int64{made["child3"].ID}},
			{name: "empty child list", filter: store.RelationshipFilter{ChildIDs: []int64{}}, want: []int64{}},
			{name: "page", filter: store.RelationshipFilter{Limit: 1, Offset: 1}, want: []int64{made["child2"].ID}, wantTotal: 3},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				rs, total, err := s.FindRelationships(ctx, tt.filter)
				must(t, err)
				wantInt64s(t, "relationships", relIDs(rs), tt.want)
				wantTotal := tt.wantTotal
				if wantTotal == 0 {
					wantTotal = len(tt.want)
				}
				if total != wantTotal {
					t.Errorf("total = %d, want %d", total, wantTotal)
				}
			})
		}

		// Deleting a relationship keeps the child, which may then get a new parent.
		must(t, s.DeleteRelationship(ctx, made["child1"].ID))
		wantKind(t, s.DeleteRelationship(ctx, made["child1"].ID), errs.NotFound)
		if _, err := s.FindProjectByID(ctx, proj["child1"]); err != nil {
			t.Errorf("child deleted with its relationship: %v", err)
		}
		_, err := s.CreateRelationship(ctx, proj["other-parent"], proj["child1"], "moved")
		must(t, err)
	})
}

func TestRedirects(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		ctx := t.Context()
		clock := storetest.SetClock(s, t0)
		alice, _ := storetest.MustUser(t, s, "alice")
		p := storetest.MustImport(t, s, alice, "Redir", "https://example.com/redir.git").Project
		q := storetest.MustImport(t, s, alice, "Other", "https://example.com/other.git").Project

		created, err := s.CreateRedirect(ctx, store.Redirect{ProjectID: p.ID, Type: "page", FromURL: "/a", ToURL: "/b", Enabled: true, Description: "d"})
		must(t, err)
		if created.HTTPStatus != 302 || !created.Created.Equal(clock.Now()) || !created.Modified.Equal(created.Created) {
			t.Errorf("created redirect = %+v, want status 302 and created = modified = now", created)
		}
		kept, err := s.CreateRedirect(ctx, store.Redirect{ProjectID: p.ID, Type: "page", FromURL: "/c", ToURL: "/d", HTTPStatus: 301, Force: true})
		must(t, err)
		theirs, err := s.CreateRedirect(ctx, store.Redirect{ProjectID: q.ID, Type: "page", FromURL: "/a", ToURL: "/b"})
		must(t, err)

		// Every field is stored and read back.
		clock.Advance(time.Minute)
		up, err := s.UpdateRedirect(ctx, store.Redirect{ID: kept.ID, ProjectID: p.ID, Type: "exact", FromURL: "/new", ToURL: "/newer",
			HTTPStatus: 302, Enabled: true, Description: "moved"}, nil)
		must(t, err)
		want := store.Redirect{ID: kept.ID, ProjectID: p.ID, Type: "exact", FromURL: "/new", ToURL: "/newer", HTTPStatus: 302,
			Position: 0, Enabled: true, Description: "moved", Created: kept.Created, Modified: clock.Now()}
		// same compares with the times' Equal (== also compares locations).
		same := func(what string, got store.Redirect) {
			t.Helper()
			wantTime(t, what+" created", got.Created, want.Created)
			wantTime(t, what+" modified", got.Modified, want.Modified)
			got.Created, got.Modified = want.Created, want.Modified
			if got != want {
				t.Errorf("%s:\n got %+v\nwant %+v", what, got, want)
			}
		}
		same("updated redirect", *up)
		got, err := s.FindRedirect(ctx, p.ID, kept.ID)
		must(t, err)
		same("found redirect", *got)

		// Another project's redirect is not found through this one.
		_, err = s.FindRedirect(ctx, p.ID, theirs.ID)
		wantKind(t, err, errs.NotFound)
		_, err = s.UpdateRedirect(ctx, store.Redirect{ID: theirs.ID, ProjectID: p.ID, Type: "page"}, nil)
		wantKind(t, err, errs.NotFound)
		wantKind(t, s.SetRedirectStatus(ctx, p.ID, theirs.ID, 301), errs.NotFound)
		wantKind(t, s.DeleteRedirect(ctx, p.ID, theirs.ID), errs.NotFound)
		r, err := s.FindRedirect(ctx, q.ID, theirs.ID)
		must(t, err)
		if r.FromURL != "/a" || r.HTTPStatus != 302 || r.Position != 0 {
			t.Errorf("their redirect = %+v", r)
		}

		// clean_url_to_html and html_to_clean_url are allowed once per
		// project; the other types are not limited.
		for _, typ := range []string{"clean_url_to_html", "html_to_clean_url"} {
			_, err := s.CreateRedirect(ctx, store.Redirect{ProjectID: p.ID, Type: typ})
			must(t, err)
			_, err = s.CreateRedirect(ctx, store.Redirect{ProjectID: p.ID, Type: typ})
			wantKind(t, err, errs.Conflict)
			_, err = s.CreateRedirect(ctx, store.Redirect{ProjectID: q.ID, Type: typ})
			must(t, err)
		}
		for range 2 {
			_, err := s.CreateRedirect(ctx, store.Redirect{ProjectID: p.ID, Type: "sphinx_html"})
			must(t, err)
		}
	})
}

// TestRedirectPositions runs the position arithmetic: inserting, moving and
// deleting, clamping, and that moved neighbours keep modified.
func TestRedirectPositions(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		ctx := t.Context()
		clock := storetest.SetClock(s, t0)
		alice, _ := storetest.MustUser(t, s, "alice")
		p := storetest.MustImport(t, s, alice, "Redir", "https://example.com/redir.git").Project
		q := storetest.MustImport(t, s, alice, "Other", "https://example.com/other.git").Project
		theirs, err := s.CreateRedirect(ctx, store.Redirect{ProjectID: q.ID, Type: "page", FromURL: "/a", ToURL: "/b"})
		must(t, err)

		create := func(from string, pos int) *store.Redirect {
			t.Helper()
			clock.Advance(time.Minute)
			r, err := s.CreateRedirect(ctx, store.Redirect{ProjectID: p.ID, Type: "exact", FromURL: from, ToURL: "/x/", Position: pos})
			must(t, err)
			return r
		}
		// order checks the list order and that positions are 0…N−1.
		order := func(what string, want ...int64) {
			t.Helper()
			rs, total, err := s.FindRedirects(ctx, p.ID, store.Page{})
			must(t, err)
			wantInt64s(t, what, ids(rs, func(r *store.Redirect) int64 { return r.ID }), want)
			for i, r := range rs {
				if r.Position != i {
					t.Errorf("%s: redirect %d at position %d, want %d", what, r.ID, r.Position, i)
				}
			}
			if total != len(want) {
				t.Errorf("%s: total %d, want %d", what, total, len(want))
			}
		}
		move := func(r *store.Redirect, to int) *store.Redirect {
			t.Helper()
			clock.Advance(time.Minute)
			up, err := s.UpdateRedirect(ctx, *r, &to)
			must(t, err)
			return up
		}

		r1 := create("/zero/", 0)
		r2 := create("/one/", 0)
		order("1. POST at the default 0", r2.ID, r1.ID)
		r3 := create("/two/", 2)
		order("2. POST at 2", r2.ID, r1.ID, r3.ID)
		beforeMove, err := s.FindRedirect(ctx, p.ID, r3.ID)
		must(t, err)
		moved := move(r1, 2)
		if moved.Position != 2 || !moved.Modified.Equal(clock.Now()) {
			t.Errorf("moved redirect = %+v, want position 2, modified now", moved)
		}
		order("3. PUT position 2", r2.ID, r3.ID, r1.ID)
		afterMove, err := s.FindRedirect(ctx, p.ID, r3.ID)
		must(t, err)
		if !afterMove.Modified.Equal(beforeMove.Modified) {
			t.Errorf("renumbered neighbour: modified %v, want %v (unchanged)", afterMove.Modified, beforeMove.Modified)
		}
		must(t, s.DeleteRedirect(ctx, p.ID, r2.ID))
		order("4. DELETE the first", r3.ID, r1.ID)
		r5 := create("/five/", 99)
		order("5. POST at 99 is clamped", r3.ID, r1.ID, r5.ID)

		// Moves up and down, clamped at the end; an update without a move
		// keeps the position whatever r.Position says.
		move(r5, 0)
		order("move up", r5.ID, r3.ID, r1.ID)
		move(r5, 1000)
		order("move past the end", r3.ID, r1.ID, r5.ID)
		move(r1, 1)
		order("move to where it is", r3.ID, r1.ID, r5.ID)
		stale := *r3
		stale.Position = 2
		_, err = s.UpdateRedirect(ctx, stale, nil)
		must(t, err)
		order("update without a move", r3.ID, r1.ID, r5.ID)
		must(t, s.DeleteRedirect(ctx, p.ID, r1.ID))
		order("delete in the middle", r3.ID, r5.ID)

		// Another project's list is untouched.
		r, err := s.FindRedirect(ctx, q.ID, theirs.ID)
		must(t, err)
		if r.Position != 0 {
			t.Errorf("their redirect at %d, want 0", r.Position)
		}
	})
}

// TestRedirectMigration writes redirects in the schema before migration
// 00009 and checks what it gives them: positions in the order they were
// served in before (modified descending, then id descending) per project,
// force false, enabled true, an empty description, and the stored status
// kept.
func TestRedirectMigration(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		ctx := t.Context()
		s, db := storetest.MigratedTo(t, d, 8)
		exec := func(query string, args ...any) {
			t.Helper()
			if d == store.Postgres {
				query = sqlx.Rebind(sqlx.DOLLAR, query)
			}
			if _, err := db.ExecContext(ctx, query, args...); err != nil {
				t.Fatalf("%s: %v", query, err)
			}
		}
		// Times as the store writes them on SQLite (and PostgreSQL reads).
		at := func(minute int) string {
			return t0.Add(time.Duration(minute) * time.Minute).Format("2006-01-02 15:04:05.999999999-07:00")
		}
		exec(`INSERT INTO projects (id, name, slug, repo, created, modified) VALUES (1, 'A', 'a', 'https://example.com/a', ?, ?)`, at(0), at(0))
		exec(`INSERT INTO projects (id, name, slug, repo, created, modified) VALUES (2, 'B', 'b', 'https://example.com/b', ?, ?)`, at(0), at(0))
		for _, r := range []struct {
			id, project int64
			modified    int
			status      int
		}{
			{1, 1, 1, 302},
			{2, 1, 3, 301},
			{3, 1, 2, 302},
			{4, 1, 2, 302}, // same modified as 3: higher id first
			{5, 2, 9, 302},
			{6, 1, 0, 301},
		} {
			exec(`INSERT INTO redirects (id, project_id, type, from_url, to_url, http_status, created, modified) VALUES (?, ?, 'page', '/from', '/to', ?, ?, ?)`,
				r.id, r.project, r.status, at(0), at(r.modified))
		}
		must(t, s.Migrate(ctx))

		for _, tc := range []struct {
			project int64
			want    []int64
		}{{1, []int64{2, 4, 3, 1, 6}}, {2, []int64{5}}} {
			rs, _, err := s.FindRedirects(ctx, tc.project, store.Page{})
			must(t, err)
			wantInt64s(t, fmt.Sprintf("project %d", tc.project), ids(rs, func(r *store.Redirect) int64 { return r.ID }), tc.want)
			for i, r := range rs {
				wantStatus := 302
				if r.ID == 2 || r.ID == 6 {
					wantStatus = 301
				}
				if r.Position != i || r.Force || !r.Enabled || r.Description != "" || r.HTTPStatus != wantStatus {
					t.Errorf("redirect %d = %+v, want position %d, force false, enabled true, no description, status %d", r.ID, r, i, wantStatus)
				}
			}
		}
	})
}

func TestEnvironmentVariables(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		ctx := t.Context()
		clock := storetest.SetClock(s, t0)
		alice, _ := storetest.MustUser(t, s, "alice")
		p := storetest.MustImport(t, s, alice, "Env", "https://example.com/env.git").Project
		q := storetest.MustImport(t, s, alice, "Other", "https://example.com/other.git").Project

		a, err := s.CreateEnvironmentVariable(ctx, p.ID, "A", "1", false)
		must(t, err)
		b, err := s.CreateEnvironmentVariable(ctx, p.ID, "B", "2", false) // same time as A
		must(t, err)
		clock.Advance(time.Second)
		c, err := s.CreateEnvironmentVariable(ctx, p.ID, "C", "secret value", false)
		must(t, err)
		if c.Value != "secret value" || c.Name != "C" || !c.Created.Equal(clock.Now()) || !c.Modified.Equal(c.Created) {
			t.Errorf("created variable = %+v", c)
		}

		_, err = s.CreateEnvironmentVariable(ctx, p.ID, "A", "other", false)
		wantKind(t, err, errs.Conflict)
		theirs, err := s.CreateEnvironmentVariable(ctx, q.ID, "A", "theirs", false)
		must(t, err)
		// Names are case-sensitive.
		lower, err := s.CreateEnvironmentVariable(ctx, p.ID, "a", "lower", false)
		must(t, err)

		vs, total, err := s.FindEnvironmentVariables(ctx, p.ID, store.Page{})
		must(t, err)
		wantInt64s(t, "variables", ids(vs, func(v *store.EnvironmentVariable) int64 { return v.ID }), []int64{lower.ID, c.ID, b.ID, a.ID})
		if total != 4 {
			t.Errorf("total = %d, want 4", total)
		}
		vs, total, err = s.FindEnvironmentVariables(ctx, p.ID, store.Page{Limit: 2, Offset: 1})
		must(t, err)
		wantInt64s(t, "page", ids(vs, func(v *store.EnvironmentVariable) int64 { return v.ID }), []int64{c.ID, b.ID})
		if total != 4 {
			t.Errorf("page total = %d, want 4", total)
		}

		got, err := s.FindEnvironmentVariable(ctx, p.ID, c.ID)
		must(t, err)
		if got.Value != "secret value" {
			t.Errorf("value = %q", got.Value)
		}
		_, err = s.FindEnvironmentVariable(ctx, p.ID, theirs.ID)
		wantKind(t, err, errs.NotFound)
		wantKind(t, s.DeleteEnvironmentVariable(ctx, p.ID, theirs.ID), errs.NotFound)
		must(t, s.DeleteEnvironmentVariable(ctx, p.ID, a.ID))
		// The name is free again.
		_, err = s.CreateEnvironmentVariable(ctx, p.ID, "A", "again", false)
		must(t, err)
	})
}

func TestIntegrationsAndWebhookExchanges(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s, db := openWithSQL(t, d)
		ctx := t.Context()
		alice, _ := storetest.MustUser(t, s, "alice")
		imp := storetest.MustImport(t, s, alice, "Hooks", "https://example.com/hooks.git")
		p := imp.Project
		q := storetest.MustImport(t, s, alice, "Other", "https://example.com/other.git")

		gl, err := s.CreateIntegration(ctx, p.ID, store.GitLabWebhook)
		must(t, err)
		api, err := s.CreateIntegration(ctx, p.ID, store.APIWebhook)
		must(t, err)
		secrets := map[string]bool{}
		for _, in := range []*store.Integration{imp.Integration, gl, api, q.Integration} {
			if !hex64.MatchString(in.Secret) {
				t.Errorf("integration %d secret = %q, want 64 hex characters", in.ID, in.Secret)
			}
			secrets[in.Secret] = true
		}
		if len(secrets) != 4 {
			t.Errorf("secrets are not distinct: %d of 4", len(secrets))
		}
		ins, err := s.FindIntegrations(ctx, p.ID)
		must(t, err)
		wantInt64s(t, "integrations", ids(ins, func(in *store.Integration) int64 { return in.ID }), []int64{imp.Integration.ID, gl.ID, api.ID})
		got, err := s.FindIntegration(ctx, p.ID, api.ID)
		must(t, err)
		if got.Type != store.APIWebhook || got.Secret != api.Secret {
			t.Errorf("FindIntegration = %+v", got)
		}
		_, err = s.FindIntegration(ctx, p.ID, q.Integration.ID)
		wantKind(t, err, errs.NotFound)
		wantKind(t, s.DeleteIntegration(ctx, p.ID, q.Integration.ID), errs.NotFound)

		// Only the 10 most recent exchanges of an integration are kept.
		record := func(in *store.Integration, status int) {
			t.Helper()
			must(t, s.RecordWebhookExchange(ctx, store.WebhookExchange{
				IntegrationID: in.ID, RequestHeaders: `{"X":"1"}`, RequestBody: fmt.Sprintf(`{"n":%d}`, status),
				ResponseStatus: status, ResponseBody: "{}",
			}))
		}
		for i := 1; i <= 13; i++ {
			record(gl, i)
			if i <= 3 {
				record(api, 100+i)
			}
		}
		statuses := func(in *store.Integration) []int64 {
			t.Helper()
			xs, err := s.FindWebhookExchanges(ctx, in.ID)
			must(t, err)
			return ids(xs, func(x *store.WebhookExchange) int64 { return int64(x.ResponseStatus) })
		}
		wantInt64s(t, "gitlab exchanges", statuses(gl), []int64{13, 12, 11, 10, 9, 8, 7, 6, 5, 4})
		wantInt64s(t, "api exchanges", statuses(api), []int64{103, 102, 101})
		xs, err := s.FindWebhookExchanges(ctx, gl.ID)
		must(t, err)
		if x := xs[0]; x.RequestHeaders != `{"X":"1"}` || x.RequestBody != `{"n":13}` || x.ResponseBody != "{}" || x.IntegrationID != gl.ID {
			t.Errorf("exchange = %+v", x)
		}

		// Deleting an integration deletes its exchanges.
		must(t, s.DeleteIntegration(ctx, p.ID, gl.ID))
		wantInt64s(t, "exchanges of a deleted integration", statuses(gl), []int64{})
		if n := storetest.RowCounts(t, d, db)["webhook_exchanges"]; n != 3 {
			t.Errorf("webhook_exchanges rows = %d, want 3", n)
		}
	})
}
