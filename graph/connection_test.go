package graph_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"docsd/internal/errs"
	"docsd/internal/storetest"
	"docsd/store"
)

// page is one page of a connection as a test reads it.
type page struct {
	ids                      []string // the nodes' slugs or ids
	startCursor, endCursor   string
	hasNextPage, hasPrevious bool
	totalCount               float64
}

func readPage(t *testing.T, data map[string]any, key string, path ...any) page {
	t.Helper()
	conn := dig(data, path...).(map[string]any)
	var p page
	for i, e := range conn["edges"].([]any) {
		edge := e.(map[string]any)
		id := fmt.Sprint(dig(edge, "node", key))
		if fmt.Sprint(dig(conn, "nodes", i, key)) != id {
			t.Errorf("edges and nodes differ at %d: %v", i, conn)
		}
		p.ids = append(p.ids, id)
	}
	info := conn["pageInfo"].(map[string]any)
	p.startCursor, _ = info["startCursor"].(string)
	p.endCursor, _ = info["endCursor"].(string)
	p.hasNextPage, p.hasPrevious = info["hasNextPage"].(bool), info["hasPreviousPage"].(bool)
	p.totalCount = conn["totalCount"].(float64)
	return p
}

// TestCursorPagingAcrossInserts pages through projects (ordered by slug)
// and builds (newest first) while rows are inserted before and after the
// page boundary: no row repeats, none of the original rows is skipped, and
// paging backward from a cursor gives the rows before it.
func TestCursorPagingAcrossInserts(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d)
		ctx := context.Background()
		alice := e.as("alice")
		for _, name := range []string{"p10", "p20", "p30", "p40", "p50", "p60", "p70"} {
			e.importProject("alice", name)
		}
		const projects = `query($first: Int, $after: String, $last: Int, $before: String) {
			projects(first: $first, after: $after, last: $last, before: $before) {
				totalCount edges { cursor node { slug } } nodes { slug } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`
		vars := func(kv ...any) map[string]any {
			m := map[string]any{}
			for i := 0; i < len(kv); i += 2 {
				m[kv[i].(string)] = kv[i+1]
			}
			return m
		}
		p1 := readPage(t, e.must(alice, projects, vars("first", 3)), "slug", "projects")
		if want := []string{"p10", "p20", "p30"}; !reflect.DeepEqual(p1.ids, want) || !p1.hasNextPage || p1.hasPrevious || p1.totalCount != 7 {
			t.Fatalf("page 1 = %+v, want %v with a next page", p1, want)
		}
		// One row lands before the boundary (offset paging would repeat p30),
		// one after it (it must show up, once).
		e.importProject("alice", "p05")
		e.importProject("alice", "p35")
		p2 := readPage(t, e.must(alice, projects, vars("first", 3, "after", p1.endCursor)), "slug", "projects")
		if want := []string{"p35", "p40", "p50"}; !reflect.DeepEqual(p2.ids, want) || !p2.hasNextPage || !p2.hasPrevious {
			t.Errorf("page 2 = %+v, want %v", p2, want)
		}
		p3 := readPage(t, e.must(alice, projects, vars("first", 3, "after", p2.endCursor)), "slug", "projects")
		if want := []string{"p60", "p70"}; !reflect.DeepEqual(p3.ids, want) || p3.hasNextPage || p3.totalCount != 9 {
			t.Errorf("page 3 = %+v, want %v and no next page", p3, want)
		}
		back := readPage(t, e.must(alice, projects, vars("last", 2, "before", p2.startCursor)), "slug", "projects")
		if want := []string{"p20", "p30"}; !reflect.DeepEqual(back.ids, want) || !back.hasPrevious || !back.hasNextPage {
			t.Errorf("backward page = %+v, want %v", back, want)
		}
		tail := readPage(t, e.must(alice, projects, vars("last", 2)), "slug", "projects")
		if want := []string{"p60", "p70"}; !reflect.DeepEqual(tail.ids, want) || tail.hasNextPage || !tail.hasPrevious {
			t.Errorf("last page = %+v, want %v", tail, want)
		}

		// Builds, newest first: new builds land at the front of the list.
		p, _ := e.store.FindProjectBySlug(ctx, "p10")
		v, err := e.store.FindVersionBySlug(ctx, p.ID, store.Latest)
		if err != nil {
			t.Fatal(err)
		}
		for range 4 {
			if _, err := e.store.CreateBuild(ctx, v, nil); err != nil {
				t.Fatal(err)
			}
		}
		const builds = `query($after: String) { project(slug: "p10") { builds(first: 2, after: $after) {
			totalCount edges { cursor node { databaseId } } nodes { databaseId } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } } }`
		all, _, _ := e.store.FindBuilds(ctx, store.BuildFilter{ProjectID: &p.ID})
		var want []string
		for _, b := range all {
			want = append(want, fmt.Sprint(b.ID))
		}
		var got []string
		after := any(nil)
		for range 10 {
			pg := readPage(t, e.must(alice, builds, map[string]any{"after": after}), "databaseId", "project", "builds")
			got = append(got, pg.ids...)
			if _, err := e.store.CreateBuild(ctx, v, nil); err != nil { // between every two pages
				t.Fatal(err)
			}
			if !pg.hasNextPage {
				break
			}
			after = pg.endCursor
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("builds paged across inserts = %v, want %v (each once, newest first)", got, want)
		}
	})
}

// TestRedirectPagingAcrossReorder pages a project's redirects (in the
// order they are tried) while a new one is inserted at the front, which
// shifts every position: the next page neither repeats nor skips.
func TestRedirectPagingAcrossReorder(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d)
		alice := e.as("alice")
		e.importProject("alice", "pub")
		create := `mutation($from: String!, $pos: Int) { createRedirect(input: {project: "pub", type: page, fromUrl: $from, toUrl: "/x.html", position: $pos}) { redirect { fromUrl } errors { path message code } } }`
		for i := range 5 {
			e.must(alice, create, map[string]any{"from": fmt.Sprintf("/r%d.html", i), "pos": i})
		}
		const list = `query($after: String) { project(slug: "pub") { redirects(first: 2, after: $after) {
			totalCount edges { cursor node { fromUrl } } nodes { fromUrl } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } } }`
		p1 := readPage(t, e.must(alice, list, nil), "fromUrl", "project", "redirects")
		e.must(alice, create, map[string]any{"from": "/front.html", "pos": 0})
		p2 := readPage(t, e.must(alice, list, map[string]any{"after": p1.endCursor}), "fromUrl", "project", "redirects")
		p3 := readPage(t, e.must(alice, list, map[string]any{"after": p2.endCursor}), "fromUrl", "project", "redirects")
		got := append(append(p1.ids, p2.ids...), p3.ids...)
		if want := []string{"/r0.html", "/r1.html", "/r2.html", "/r3.html", "/r4.html"}; !reflect.DeepEqual(got, want) || p3.hasNextPage {
			t.Errorf("redirects paged across an insert at the front = %v (last page %+v), want %v", got, p3, want)
		}
	})
}

// TestBadCursors checks that a cursor that is not one, or not of the
// list, or whose row is gone, and mixed paging arguments are INVALID on
// the argument, never a server error.
func TestBadCursors(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d)
		e.fixture()
		alice := e.as("alice")
		data := e.must(alice, `{ projects(first: 1) { pageInfo { endCursor } } builds(first: 1) { pageInfo { endCursor } } }`, nil)
		projectCursor := dig(data, "projects", "pageInfo", "endCursor").(string)
		buildCursor := dig(data, "builds", "pageInfo", "endCursor").(string)
		gone := e.importProject("alice", "gone")
		goneCursor := dig(e.must(alice, `{ projects(first: 1, filter: {slug: "gone"}) { pageInfo { endCursor } } }`, nil), "projects", "pageInfo", "endCursor").(string)
		e.must(alice, `mutation($s: String!) { deleteProject(input: {slug: $s}) { deletedId errors { path message code } } }`, map[string]any{"s": gone})
		for _, tc := range []struct {
			name, query string
			field       string
		}{
			{"garbage", `{ projects(after: "nope") { totalCount } }`, "after"},
			{"not base64", `{ projects(before: "!!") { totalCount } }`, "before"},
			{"another list's", fmt.Sprintf(`{ projects(after: %q) { totalCount } }`, buildCursor), "after"},
			{"deleted row", fmt.Sprintf(`{ projects(after: %q) { totalCount } }`, goneCursor), "after"},
			{"first and last", `{ projects(first: 1, last: 1) { totalCount } }`, "last"},
			{"negative first", `{ projects(first: -1) { totalCount } }`, "first"},
			{"limit with a cursor", fmt.Sprintf(`{ projects(limit: 1, after: %q) { totalCount } }`, projectCursor), "limit"},
		} {
			_, err := e.do(alice, tc.query, nil)
			if errs.KindOf(err) != errs.Invalid || errs.FieldsOf(err)[tc.field] == nil {
				t.Errorf("%s: %s %v, want INVALID on %s", tc.name, kind(err), errs.FieldsOf(err), tc.field)
			}
		}

		// A cursor of a row outside the list as its caller sees it (another
		// project's redirect, a project or version the caller may not see)
		// says nothing of that row: the same INVALID as a deleted row's.
		privCursor := dig(e.must(alice, `{ projects(first: 1, filter: {slug: "priv"}) { pageInfo { endCursor } } }`, nil), "projects", "pageInfo", "endCursor").(string)
		privRedirect := dig(e.must(alice, `{ project(slug: "priv") { redirects(first: 1) { pageInfo { endCursor } } } }`, nil), "project", "redirects", "pageInfo", "endCursor").(string)
		secretVersion := dig(e.must(alice, `{ project(slug: "pub") { versions(first: 1, filter: {slug: "secret"}) { pageInfo { endCursor } } } }`, nil), "project", "versions", "pageInfo", "endCursor").(string)
		for _, tc := range []struct {
			name, caller, query string
		}{
			{"a project the caller may not see", "bob", fmt.Sprintf(`{ projects(first: 2, after: %q) { totalCount } }`, privCursor)},
			{"a version the caller may not see", "bob", fmt.Sprintf(`{ project(slug: "pub") { versions(first: 2, after: %q) { totalCount } } }`, secretVersion)},
			{"another project's redirect", "alice", fmt.Sprintf(`{ project(slug: "pub") { redirects(first: 2, after: %q) { totalCount } } }`, privRedirect)},
		} {
			_, err := e.do(e.as(tc.caller), tc.query, nil)
			if errs.KindOf(err) != errs.Invalid || errs.FieldsOf(err)["after"] == nil {
				t.Errorf("%s: %s %v, want INVALID on after", tc.name, kind(err), errs.FieldsOf(err))
			}
		}

		// A bad cursor on a nested connection nulls that connection only:
		// the project (and its other fields) stay.
		for _, field := range []string{"versions", "builds", "subprojects", "translations", "redirects"} {
			data, top := e.raw(alice, fmt.Sprintf(`{ project(slug: "pub") { slug %s(first: 1, after: "nope") { totalCount } } }`, field))
			want := map[string]any{"slug": "pub", field: nil}
			if !reflect.DeepEqual(data["project"], want) || len(top) != 1 || dig(top[0], "extensions", "code") != "INVALID" ||
				!reflect.DeepEqual(top[0]["path"], []any{"project", field}) {
				t.Errorf("%s with a bad cursor: %v %v, want %v and one INVALID at project.%s", field, data, top, want, field)
			}
		}
		// So does a bad cursor or page size on a top-level connection: the
		// other fields of the query are answered.
		for _, tc := range []struct{ field, args string }{
			{"projects", `first: 1, after: "nope"`},
			{"versions", `before: "nope"`},
			{"builds", `first: -1`},
		} {
			data, top := e.raw(alice, fmt.Sprintf(`{ viewer { username } %s(%s) { totalCount } }`, tc.field, tc.args))
			want := map[string]any{"viewer": map[string]any{"username": "alice"}, tc.field: nil}
			if !reflect.DeepEqual(data, want) || len(top) != 1 || dig(top[0], "extensions", "code") != "INVALID" ||
				!reflect.DeepEqual(top[0]["path"], []any{tc.field}) {
				t.Errorf("top-level %s(%s): %v %v, want %v and one INVALID at %s", tc.field, tc.args, data, top, want, tc.field)
			}
		}
		data, top := e.raw(alice, `{ project(slug: "pub") { version(slug: "v1.0") { slug builds(first: 1, after: "nope") { totalCount } } } }`)
		if dig(data, "project", "version", "slug") != "v1.0" || len(top) != 1 || dig(top[0], "extensions", "code") != "INVALID" {
			t.Errorf("version builds with a bad cursor: %v %v", data, top)
		}
	})
}

// TestMaintainerPaging pages a project's maintainers (read whole, paged
// in memory) as the store pages its lists: in the order they were added,
// a maintainer added while paging comes once, at the end; last/before
// page backwards; the cursor of a removed maintainer is INVALID on after
// and nulls the connection only.
func TestMaintainerPaging(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d)
		ctx := context.Background()
		e.importProject("alice", "pub")
		alice := e.as("alice")
		add := func(name string) {
			t.Helper()
			if _, ok := e.users[name]; !ok {
				u, err := e.store.CreateUser(ctx, name, name+"@example.com", false)
				if err != nil {
					t.Fatal(err)
				}
				e.users[name] = u
			}
			e.must(alice, `mutation($u: String!) { addMaintainer(input: {slug: "pub", username: $u}) { errors { path } } }`, map[string]any{"u": name})
		}
		for _, name := range []string{"dave", "bob", "carol"} {
			add(name)
		}
		page := func(args string) (names []any, info map[string]any, total any) {
			t.Helper()
			data := e.must(alice, `{ project(slug: "pub") { maintainers(`+args+`) { totalCount nodes { username } edges { cursor }
				pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } } }`, nil)
			for _, n := range dig(data, "project", "maintainers", "nodes").([]any) {
				names = append(names, dig(n, "username"))
			}
			return names, dig(data, "project", "maintainers", "pageInfo").(map[string]any), dig(data, "project", "maintainers", "totalCount")
		}
		names, info, total := page("first: 2")
		if !reflect.DeepEqual(names, []any{"alice", "dave"}) || info["hasNextPage"] != true || info["hasPreviousPage"] != false || total != float64(4) {
			t.Fatalf("first page: %v %v %v", names, info, total)
		}
		add("erin") // between two page reads
		names, info, _ = page(fmt.Sprintf("first: 2, after: %q", info["endCursor"]))
		if !reflect.DeepEqual(names, []any{"bob", "carol"}) || info["hasNextPage"] != true || info["hasPreviousPage"] != true {
			t.Fatalf("second page: %v %v", names, info)
		}
		bobCursor := info["startCursor"]
		names, info, _ = page(fmt.Sprintf("first: 2, after: %q", info["endCursor"]))
		if !reflect.DeepEqual(names, []any{"erin"}) || info["hasNextPage"] != false {
			t.Fatalf("third page: %v %v", names, info)
		}
		names, info, _ = page(fmt.Sprintf("last: 2, before: %q", info["startCursor"]))
		if !reflect.DeepEqual(names, []any{"bob", "carol"}) || info["hasPreviousPage"] != true || info["hasNextPage"] != true {
			t.Fatalf("backwards from erin: %v %v", names, info)
		}
		e.must(alice, `mutation { removeMaintainer(input: {slug: "pub", username: "bob"}) { errors { path } } }`, nil)
		data, top := e.raw(alice, fmt.Sprintf(`{ project(slug: "pub") { slug maintainers(first: 2, after: %q) { totalCount } } }`, bobCursor))
		if !reflect.DeepEqual(data["project"], map[string]any{"slug": "pub", "maintainers": nil}) || len(top) != 1 ||
			dig(top[0], "extensions", "code") != "INVALID" || dig(top[0], "extensions", "fields", "after") == nil {
			t.Errorf("a removed maintainer's cursor: %v %v, want INVALID on after and the project", data, top)
		}
	})
}
