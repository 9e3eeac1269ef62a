package graph_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"docsd/internal/access"
	"docsd/internal/errs"
	"docsd/internal/storetest"
	"docsd/store"
)

// TestNodeVisibility checks that node(id:) shows each kind of object exactly
// as its typed query does, for every kind of caller: the same object, or
// the same error code (NOT_FOUND for invisible objects).
func TestNodeVisibility(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d)
		e.fixture()
		e.must(e.as("alice"), `mutation { createSubproject(input: {project: "pub", child: "priv", alias: "p"}) { subproject { alias } errors { path message code } } }`, nil)
		system := access.WithSystem(context.Background())
		type object struct {
			name, typed string
			vars        map[string]any
			id          string
		}
		var objects []object
		for _, slug := range []string{"pub", "priv"} {
			data := e.must(system, `query($p: String!) { project(slug: $p) { id
				versions { nodes { id databaseId slug } } builds { nodes { id databaseId } }
				redirects { nodes { id databaseId } } environmentVariables { nodes { id databaseId } } } }`, map[string]any{"p": slug})
			p := data["project"].(map[string]any)
			objects = append(objects, object{slug, `query($p: String!) { project(slug: $p) { id } }`, map[string]any{"p": slug}, p["id"].(string)})
			for _, n := range dig(p, "versions", "nodes").([]any) {
				v := n.(map[string]any)
				objects = append(objects, object{slug + "/version/" + v["slug"].(string), `query($i: ID!) { version(id: $i) { id } }`, map[string]any{"i": int64(v["databaseId"].(float64))}, v["id"].(string)})
			}
			for i, n := range dig(p, "builds", "nodes").([]any) {
				b := n.(map[string]any)
				objects = append(objects, object{fmt.Sprintf("%s/build/%d", slug, i), `query($i: ID!) { build(id: $i) { id } }`, map[string]any{"i": int64(b["databaseId"].(float64))}, b["id"].(string)})
			}
			for _, kind := range []struct{ list, one string }{{"redirects", "redirect"}, {"environmentVariables", "environmentVariable"}} {
				o := dig(p, kind.list, "nodes", 0).(map[string]any)
				objects = append(objects, object{slug + "/" + kind.one, `query($p: String!, $i: Int!) { project(slug: $p) { ` + kind.one + `(id: $i) { id } } }`,
					map[string]any{"p": slug, "i": int64(o["databaseId"].(float64))}, o["id"].(string)})
			}
		}
		sub := e.must(system, `{ project(slug: "pub") { subproject(alias: "p") { id } } }`, nil)
		objects = append(objects, object{"pub/subproject", `{ project(slug: "pub") { subproject(alias: "p") { id } } }`, nil, dig(sub, "project", "subproject", "id").(string)})

		for _, o := range objects {
			for _, caller := range []string{"", "alice", "bob", "root"} {
				t.Run(fmt.Sprintf("%s/%q", o.name, caller), func(t *testing.T) {
					_, typedErr := e.do(e.as(caller), o.typed, o.vars)
					data, nodeErr := e.do(e.as(caller), `query($id: ID!) { node(id: $id) { id __typename } }`, map[string]any{"id": o.id})
					if got, want := kind(nodeErr), kind(typedErr); got != want {
						t.Fatalf("node: %s (%v), typed query: %s", got, nodeErr, want)
					}
					if typedErr == nil && dig(data, "node", "id") != o.id {
						t.Errorf("node = %v, want id %s", data["node"], o.id)
					}
					// version(id:) and build(id:) take the global id as well.
					if strings.Contains(o.typed, "($i: ID!) { version") || strings.Contains(o.typed, "($i: ID!) { build") {
						data, err := e.do(e.as(caller), o.typed, map[string]any{"i": o.id})
						if kind(err) != kind(typedErr) || (err == nil && firstString(data) != o.id) {
							t.Errorf("by global id: %v %s, want %s", data, kind(err), kind(typedErr))
						}
					}
				})
			}
		}
	})
}

// TestNodes checks nodes(ids:): answers in order, a null and an error entry
// at its index for each id that names nothing the caller can see, and
// ids that are not ids.
func TestNodes(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d)
		e.fixture()
		system := access.WithSystem(context.Background())
		data := e.must(system, `{ pub: project(slug: "pub") { id databaseId users { id databaseId username } } priv: project(slug: "priv") { id } }`, nil)
		pubID, privID := dig(data, "pub", "id").(string), dig(data, "priv", "id").(string)
		aliceID := dig(data, "pub", "users", 0, "id").(string)
		const query = `query($ids: [ID!]!) { nodes(ids: $ids) { __typename id ... on Project { slug } ... on User { username } } }`
		ids := []string{pubID, "bm9wZQ", privID, "not base64!", aliceID, "UHJvamVjdDo5OTk"}
		resp := e.exec.Run(e.as("bob"), query, map[string]any{"ids": ids})
		var got struct {
			Nodes []map[string]any `json:"nodes"`
		}
		if err := json.Unmarshal(resp.Data, &got); err != nil {
			t.Fatal(err)
		}
		want := []map[string]any{
			{"__typename": "Project", "id": pubID, "slug": "pub"}, nil, nil, nil,
			{"__typename": "User", "id": aliceID, "username": "alice"}, nil,
		}
		if !reflect.DeepEqual(got.Nodes, want) {
			t.Errorf("nodes = %v, want %v", got.Nodes, want)
		}
		var paths []string
		for _, err := range resp.Errors {
			if err.Extensions["code"] != "NOT_FOUND" {
				t.Errorf("error %v: code %v, want NOT_FOUND", err.Path, err.Extensions["code"])
			}
			paths = append(paths, err.Path.String())
		}
		if want := []string{"nodes[1]", "nodes[2]", "nodes[3]", "nodes[5]"}; !reflect.DeepEqual(paths, want) {
			t.Errorf("error paths %v, want %v", paths, want)
		}
		// More ids than a page holds are INVALID on `ids`.
		many := make([]string, 101)
		for i := range many {
			many[i] = pubID
		}
		if _, err := e.do(e.as("bob"), query, map[string]any{"ids": many}); kind(err) != "INVALID" || errs.FieldsOf(err)["ids"] == nil {
			t.Errorf("nodes of 101 ids: %s %v, want INVALID on ids", kind(err), err)
		}
		// node() of a malformed id is NOT_FOUND, never a server error.
		for _, id := range []string{"", "x", "UHJvamVjdDox:", "VXNlcjow", "Rm9vOjE"} {
			if _, err := e.do(e.as("alice"), `query($id: ID!) { node(id: $id) { id } }`, map[string]any{"id": id}); kind(err) != "NOT_FOUND" {
				t.Errorf("node(%q): %s (%v), want NOT_FOUND", id, kind(err), err)
			}
		}
	})
}
