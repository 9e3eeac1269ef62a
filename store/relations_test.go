package store_test

import (
	"fmt"
	"testing"
	"time"

	"docsd/errs"
	"docsd/store"
	"docsd/storetest"
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

		var rs []*store.Redirect
		for i, typ := range []string{"page", "exact", "prefix"} {
			clock.Advance(time.Minute)
			r, err := s.CreateRedirect(ctx, store.Redirect{ProjectID: p.ID, Type: typ, FromURL: fmt.Sprintf("/from%d", i), ToURL: "/to", HTTPStatus: 301})
			must(t, err)
			if r.HTTPStatus != 302 || !r.Created.Equal(clock.Now()) || !r.Modified.Equal(r.Created) {
				t.Errorf("created redirect = %+v, want status 302 and created = modified = now", r)
			}
			rs = append(rs, r)
		}
		same, err := s.CreateRedirect(ctx, store.Redirect{ProjectID: p.ID, Type: "page", FromURL: "/same-time", ToURL: "/x"})
		must(t, err)
		theirs, err := s.CreateRedirect(ctx, store.Redirect{ProjectID: q.ID, Type: "page", FromURL: "/a", ToURL: "/b"})
		must(t, err)

		list := func(limit, offset int) ([]int64, int) {
			t.Helper()
			got, total, err := s.FindRedirects(ctx, p.ID, limit, offset)
			must(t, err)
			return ids(got, func(r *store.Redirect) int64 { return r.ID }), total
		}
		// Most recently modified first; ties (same modified) by id descending.
		got, total := list(0, 0)
		wantInt64s(t, "redirects", got, []int64{same.ID, rs[2].ID, rs[1].ID, rs[0].ID})
		if total != 4 {
			t.Errorf("total = %d, want 4", total)
		}

		// Updating the oldest moves it to the front and keeps its status.
		must(t, s.SetRedirectStatus(ctx, p.ID, rs[0].ID, 301))
		t2 := clock.Advance(time.Minute)
		up, err := s.UpdateRedirect(ctx, store.Redirect{ID: rs[0].ID, ProjectID: p.ID, Type: "exact", FromURL: "/new", ToURL: "/newer"})
		must(t, err)
		if up.Type != "exact" || up.FromURL != "/new" || up.ToURL != "/newer" || up.HTTPStatus != 301 || !up.Created.Equal(rs[0].Created) {
			t.Errorf("updated redirect = %+v", up)
		}
		wantTime(t, "modified", up.Modified, t2)
		got, _ = list(0, 0)
		wantInt64s(t, "redirects after update", got, []int64{rs[0].ID, same.ID, rs[2].ID, rs[1].ID})
		got, total = list(2, 1)
		wantInt64s(t, "page", got, []int64{same.ID, rs[2].ID})
		if total != 4 {
			t.Errorf("page total = %d, want 4", total)
		}

		// Another project's redirect is not found through this one.
		_, err = s.FindRedirect(ctx, p.ID, theirs.ID)
		wantKind(t, err, errs.NotFound)
		_, err = s.UpdateRedirect(ctx, store.Redirect{ID: theirs.ID, ProjectID: p.ID, Type: "page"})
		wantKind(t, err, errs.NotFound)
		wantKind(t, s.SetRedirectStatus(ctx, p.ID, theirs.ID, 301), errs.NotFound)
		wantKind(t, s.DeleteRedirect(ctx, p.ID, theirs.ID), errs.NotFound)
		r, err := s.FindRedirect(ctx, q.ID, theirs.ID)
		must(t, err)
		if r.FromURL != "/a" || r.HTTPStatus != 302 {
			t.Errorf("their redirect = %+v", r)
		}

		must(t, s.DeleteRedirect(ctx, p.ID, rs[1].ID))
		got, _ = list(0, 0)
		wantInt64s(t, "redirects after delete", got, []int64{rs[0].ID, same.ID, rs[2].ID})
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

		vs, total, err := s.FindEnvironmentVariables(ctx, p.ID, 0, 0)
		must(t, err)
		wantInt64s(t, "variables", ids(vs, func(v *store.EnvironmentVariable) int64 { return v.ID }), []int64{lower.ID, c.ID, b.ID, a.ID})
		if total != 4 {
			t.Errorf("total = %d, want 4", total)
		}
		vs, total, err = s.FindEnvironmentVariables(ctx, p.ID, 2, 1)
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
