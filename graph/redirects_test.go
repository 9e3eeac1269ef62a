package graph_test

import (
	"reflect"
	"testing"

	"docsd/internal/errs"
	"docsd/internal/storetest"
	"docsd/store"
)

// TestRedirectFields: GraphQL parity for redirects — position, force,
// enabled, description and httpStatus are read and written, positions stay
// 0…N−1, and the validation messages are the API's.
func TestRedirectFields(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d)
		e.importProject("alice", "pub")
		alice := e.as("alice")
		const fields = `id: databaseId type fromUrl toUrl httpStatus position force enabled description`
		create := `mutation($input: CreateRedirectInput!) { createRedirect(input: $input) { redirect { ` + fields + ` } errors { path message code } } }`
		update := `mutation($input: UpdateRedirectInput!) { updateRedirect(input: $input) { redirect { ` + fields + ` } errors { path message code } } }`
		// inPub puts the project and the other arguments into vars' input.
		inPub := func(vars map[string]any) map[string]any {
			in := vars["input"].(map[string]any)
			in["project"] = "pub"
			for k, v := range vars {
				if k != "input" {
					in[k] = v
				}
			}
			return map[string]any{"input": in}
		}

		first := dig(e.must(alice, create, inPub(map[string]any{"input": map[string]any{"type": "page", "fromUrl": "/a.html", "toUrl": "/b.html"}})), "createRedirect", "redirect")
		want := map[string]any{"id": float64(1), "type": "page", "fromUrl": "/a.html", "toUrl": "/b.html", "httpStatus": float64(302),
			"position": float64(0), "force": false, "enabled": true, "description": ""}
		if !reflect.DeepEqual(first, want) {
			t.Errorf("defaults: got %v, want %v", first, want)
		}
		second := dig(e.must(alice, create, inPub(map[string]any{"input": map[string]any{"type": "page", "fromUrl": "/old/*", "toUrl": "/new/:splat",
			"httpStatus": 301, "position": 5, "force": true, "enabled": false, "description": " moved "}})), "createRedirect", "redirect")
		want = map[string]any{"id": float64(2), "type": "page", "fromUrl": "/old/*", "toUrl": "/new/:splat", "httpStatus": float64(301),
			"position": float64(1), "force": true, "enabled": false, "description": "moved"}
		if !reflect.DeepEqual(second, want) {
			t.Errorf("every field, position clamped: got %v, want %v", second, want)
		}
		moved := dig(e.must(alice, update, inPub(map[string]any{"id": 2, "input": map[string]any{"position": 0, "description": nil}})), "updateRedirect", "redirect")
		if dig(moved, "position") != float64(0) || dig(moved, "description") != "" || dig(moved, "force") != true {
			t.Errorf("move to 0: %v", moved)
		}
		data := e.must(alice, `{ project(slug: "pub") { redirects { nodes { id: databaseId position } } } }`, nil)
		if got := dig(data, "project", "redirects", "nodes"); !reflect.DeepEqual(got, []any{
			map[string]any{"id": float64(2), "position": float64(0)}, map[string]any{"id": float64(1), "position": float64(1)}}) {
			t.Errorf("list order: %v", got)
		}

		// The validation messages, all fields together.
		for _, tc := range []struct {
			name  string
			query string
			vars  map[string]any
			want  errs.Fields
		}{
			{"wildcards", create, inPub(map[string]any{"input": map[string]any{"type": "exact", "fromUrl": "/one/*.html", "toUrl": "/two/:splat"}}),
				errs.Fields{"from_url": {"The * wildcard must be at the end of the path."},
					"to_url": {"The * wildcard must be at the end of from_url to use the :splat placeholder in to_url."}}},
			{"ranges and nulls", create, inPub(map[string]any{"input": map[string]any{"type": "prefix", "fromUrl": "/p/", "httpStatus": 307, "position": -1, "force": nil, "enabled": nil}}),
				errs.Fields{"http_status": {`"307" is not a valid choice.`}, "position": {"Ensure this value is greater than or equal to 0."},
					"force": {errs.MsgNotNull}, "enabled": {errs.MsgNotNull}}},
			{"too far", update, inPub(map[string]any{"id": 1, "input": map[string]any{"position": 2147483648, "httpStatus": nil}}),
				errs.Fields{"position": {"Ensure this value is less than or equal to 2147483647."}, "http_status": {errs.MsgNotNull}}},
			{"replace checks the stored URLs", update, inPub(map[string]any{"id": 1, "replace": true, "input": map[string]any{"type": "exact", "toUrl": "/x/:splat"}}),
				errs.Fields{"to_url": {"The * wildcard must be at the end of from_url to use the :splat placeholder in to_url."}}},
		} {
			_, err := e.do(alice, tc.query, tc.vars)
			if got := errs.FieldsOf(err); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
			}
		}
		e.must(alice, create, inPub(map[string]any{"input": map[string]any{"type": "html_to_clean_url"}}))
		_, err := e.do(alice, create, inPub(map[string]any{"input": map[string]any{"type": "html_to_clean_url"}}))
		if got := errs.FieldsOf(err); !reflect.DeepEqual(got, errs.Fields{"type": {"Only one redirect of type `html_to_clean_url` is allowed per project."}}) {
			t.Errorf("second html_to_clean_url: %v", err)
		}
		if _, err := e.do(e.as("bob"), create, inPub(map[string]any{"input": map[string]any{"type": "sphinx_html"}})); kind(err) != "FORBIDDEN" {
			t.Errorf("bob creates a redirect: %v", err)
		}
	})
}
