package graph_test

import (
	"reflect"
	"testing"

	"docsd/graph"
	"docsd/internal/errs"
	"docsd/internal/storetest"
	"docsd/store"
)

// TestSharingMethodsGraph: GraphQL's sharing methods share REST's rules
// and messages (errors with their input paths), are refused to anonymous
// callers and non-admins, refuse links where the docs host has no
// sessions, and are listed, changed and deleted by admins.
func TestSharingMethodsGraph(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d)
		e.importProject("alice", "pub")
		const create = `mutation($input: CreateSharingMethodInput!) { createSharingMethod(input: $input) {
			sharingMethod { id databaseId accessType allowAll description expires token url versions lastUsedAt }
			errors { path message code } } }`
		in := func(fields map[string]any) map[string]any {
			fields["slug"] = "pub"
			return map[string]any{"input": fields}
		}
		if _, err := e.do(e.as(""), create, in(map[string]any{"accessType": "http_header_token"})); !errs.Is(err, errs.Unauthenticated) {
			t.Errorf("anonymous: %v, want UNAUTHENTICATED", err)
		}
		if _, err := e.do(e.as("bob"), create, in(map[string]any{"accessType": "http_header_token"})); !errs.Is(err, errs.Forbidden) {
			t.Errorf("not an admin: %v, want FORBIDDEN", err)
		}
		_, err := e.do(e.as("alice"), create, in(map[string]any{"accessType": "token", "expires": "1999-01-01"}))
		want := errs.Fields{"access_type": {graph.MsgSharingNeedsSession}, "expires": {"Ensure this date is today or later."}}
		if got := errs.FieldsOf(err); !reflect.DeepEqual(got, want) {
			t.Errorf("errors: got %v, want %v", got, want)
		}
		far := "2020-06-01" // the test clock starts on 2019-04-29
		_, err = e.do(e.as("alice"), create, in(map[string]any{"accessType": "http_header_token", "expires": far}))
		if got := errs.FieldsOf(err); !reflect.DeepEqual(got, errs.Fields{"expires": {"Ensure the expiration is at most 365 days from now."}}) {
			t.Errorf("a year and more ahead: %v", got)
		}
		_, err = e.do(e.as("alice"), create, in(map[string]any{"accessType": "http_header_token", "password": "long enough", "allowAll": false}))
		if got := errs.FieldsOf(err); !reflect.DeepEqual(got, errs.Fields{"password": {graph.MsgSharingPasswordType}, "versions": {graph.MsgSelectVersion}}) {
			t.Errorf("password and no versions: %v", got)
		}
		var data map[string]any
		data = e.must(e.as("alice"), create, in(map[string]any{"accessType": "http_header_token", "description": " scripts "}))
		m := dig(data, "createSharingMethod", "sharingMethod").(map[string]any)
		if m["description"] != "scripts" || m["url"] != nil || m["allowAll"] != true || len(m["token"].(string)) != 43 ||
			m["expires"] != "2019-05-06" { // today + 7 days

			t.Errorf("created %v", m)
		}
		list := e.must(e.as("alice"), `{ project(slug: "pub") { sharingMethods { totalCount nodes { id } } } }`, nil)
		if dig(list, "project", "sharingMethods", "totalCount") != float64(1) {
			t.Errorf("list: %v", list)
		}
		node := e.must(e.as("alice"), `query($id: ID!) { node(id: $id) { ... on SharingMethod { databaseId } } }`, map[string]any{"id": m["id"]})
		if dig(node, "node", "databaseId") != m["databaseId"] {
			t.Errorf("node: %v", node)
		}
		if _, err := e.do(e.as("bob"), `{ project(slug: "pub") { sharingMethods { totalCount } } }`, nil); !errs.Is(err, errs.Forbidden) {
			t.Errorf("list as a non-admin: %v, want FORBIDDEN", err)
		}
		upd := e.must(e.as("alice"), `mutation($input: UpdateSharingMethodInput!) { updateSharingMethod(input: $input) { sharingMethod { description } errors { message } } }`,
			in(map[string]any{"id": m["id"], "description": "crawler"}))
		if dig(upd, "updateSharingMethod", "sharingMethod", "description") != "crawler" {
			t.Errorf("update: %v", upd)
		}
		del := e.must(e.as("alice"), `mutation($input: DeleteSharingMethodInput!) { deleteSharingMethod(input: $input) { deletedId errors { message } } }`,
			in(map[string]any{"id": m["id"]}))
		if dig(del, "deleteSharingMethod", "deletedId") != m["id"] {
			t.Errorf("delete: %v", del)
		}
	})
}
