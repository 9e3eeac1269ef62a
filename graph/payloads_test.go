package graph_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"docsd/graph"
	"docsd/internal/access"
	"docsd/internal/errs"
	"docsd/internal/storetest"
	"docsd/store"
)

// payloadFixture adds to fixture what the payload tests need: an uploaded
// version of pub with a finished build, a project alice may nest, and the
// global ids of pub's first redirect and variable and a finished build.
func (e *env) payloadFixture() (ids map[string]string) {
	e.t.Helper()
	ctx := context.Background()
	e.fixture()
	p, _ := e.store.FindProjectBySlug(ctx, "pub")
	up, err := e.store.CreateVersion(ctx, &store.Version{ProjectID: p.ID, Slug: "up", VerboseName: "up", Identifier: "up", Type: store.Branch, Active: true, Uploaded: true})
	if err != nil {
		e.t.Fatal(err)
	}
	b, err := e.store.CreateBuild(ctx, up, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	claimed, err := e.store.ClaimBuild(ctx, "test", time.Minute)
	if err != nil || claimed.ID != b.ID {
		e.t.Fatalf("claim: %v %v", claimed, err)
	}
	if _, err := e.store.FinishBuild(ctx, b.ID, store.BuildResult{Success: true}); err != nil {
		e.t.Fatal(err)
	}
	e.importProject("alice", "child")
	data := e.must(e.as("alice"), `{ project(slug: "pub") { redirects(first: 1) { nodes { id } } environmentVariables(first: 1) { nodes { id } } } }`, nil)
	return map[string]string{
		"redirect": dig(data, "project", "redirects", "nodes", 0, "id").(string),
		"variable": dig(data, "project", "environmentVariables", "nodes", 0, "id").(string),
		"upBuild":  fmt.Sprint(b.ID),
	}
}

// raw sends an operation to the public /graphql endpoint over HTTP, with
// the API key of ctx's viewer (none when anonymous), and returns its data
// and its top-level errors as they came over the wire.
func (e *env) raw(ctx context.Context, query string) (map[string]any, []map[string]any) {
	e.t.Helper()
	srv := e.server()
	auth := ""
	if u := access.ViewerFrom(ctx).User; u != nil {
		auth = "Token " + e.tokens[u.Username]
	}
	_, out := postRaw(e.t, srv, auth, query)
	data, _ := out["data"].(map[string]any)
	var top []map[string]any
	list, _ := out["errors"].([]any)
	for _, item := range list {
		if m, ok := item.(map[string]any); ok {
			top = append(top, m)
		}
	}
	return data, top
}

// TestMutationPayloads: every mutation answers its validation and conflict
// failures in its payload's `errors` (camelCase paths from `input`, the
// kind's code) with its object null, and no top-level error; permission
// failures stay top-level errors with the codes they always had, and then
// there is no payload at all.
func TestMutationPayloads(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d)
		ids := e.payloadFixture()
		ue := func(code, msg string, path ...string) errs.UserError {
			return errs.UserError{Path: append([]string{}, path...), Message: msg, Code: code}
		}
		in := func(rest ...string) []string { return append([]string{"input"}, rest...) }
		badChoice := func(v string) string { return errs.BadChoice(v) }
		tests := []struct {
			mutation, input string
			object          string // the payload's object field ("" when it has none to check)
			as              string // who runs it (alice unless set)
			want            []errs.UserError
			// permission says what bob and an anonymous caller get ("" to skip:
			// imports are open to everyone, uploads answer refusals as outcomes).
			permission bool
		}{
			{"importProject", `{name: "X", repository: {url: "https://a.org/b", type: git}, privacyLevel: null}`, "project", "",
				[]errs.UserError{ue("INVALID", errs.MsgNotNull, in("privacyLevel")...)}, false},
			// A taken slug is bad input on the field, as REST's 400 on "name".
			{"importProject", `{name: "pub", repository: {url: "https://a.org/b", type: git}}`, "project", "",
				[]errs.UserError{ue("INVALID", `Project with slug "pub" already exists.`, in("name")...)}, false},
			{"updateProject", `{slug: "pub", externalBuildsPrivacyLevel: null}`, "project", "",
				[]errs.UserError{ue("INVALID", errs.MsgNotNull, in("externalBuildsPrivacyLevel")...)}, true},
			{"setTranslationOf", `{slug: "pub", main: "pub"}`, "project", "",
				[]errs.UserError{ue("INVALID", "A project can not be a translation of itself.", in()...)}, true},
			{"addMaintainer", `{slug: "pub", username: "nobody"}`, "project", "",
				[]errs.UserError{ue("INVALID", "Object with username=nobody does not exist.", in("username")...)}, true},
			{"removeMaintainer", `{slug: "pub", username: "alice"}`, "project", "",
				[]errs.UserError{ue("CONFLICT", "The last maintainer of a project can't be removed.")}, true},
			{"updateVersion", `{project: "pub", version: "v1.0", privacyLevel: null}`, "version", "",
				[]errs.UserError{ue("INVALID", errs.MsgNotNull, in("privacyLevel")...)}, true},
			{"triggerBuild", `{project: "pub", version: "up"}`, "build", "",
				[]errs.UserError{ue("INVALID", graph.MsgUploadedVersionBuild)}, true},
			{"retryBuild", `{id: "` + ids["upBuild"] + `"}`, "build", "",
				[]errs.UserError{ue("INVALID", graph.MsgUploadedVersionBuild)}, true},
			{"cancelBuild", `{id: "` + ids["upBuild"] + `"}`, "build", "",
				[]errs.UserError{ue("CONFLICT", errs.MsgBuildFinished)}, true},
			// unknown is a version type, but not one an upload may create.
			{"initiateUpload", `{project: "pub", versionName: "x", versionType: unknown, versionCommit: "abc"}`, "build", "",
				[]errs.UserError{ue("INVALID", badChoice("unknown"), in("versionType")...)}, false},
			{"createSubproject", `{project: "pub"}`, "subproject", "",
				[]errs.UserError{ue("INVALID", errs.MsgRequired, in("child")...)}, true},
			{"createRedirect", `{project: "pub", type: page}`, "redirect", "",
				[]errs.UserError{ue("INVALID", errs.MsgRequired, in("fromUrl")...), ue("INVALID", errs.MsgRequired, in("toUrl")...)}, true},
			{"updateRedirect", `{project: "pub", id: "` + ids["redirect"] + `", replace: true, toUrl: "/y/"}`, "redirect", "",
				[]errs.UserError{ue("INVALID", errs.MsgRequired, in("type")...)}, true},
			{"createEnvironmentVariable", `{project: "pub", name: "__X", value: "v"}`, "environmentVariable", "",
				[]errs.UserError{ue("INVALID", "Variable name can't start with __ (double underscore)", in("name")...)}, true},
		}
		for _, tc := range tests {
			t.Run(tc.mutation, func(t *testing.T) {
				query := fmt.Sprintf(`mutation { %s(input: %s) { %s { __typename } errors { path message code } } }`, tc.mutation, tc.input, tc.object)
				as := tc.as
				if as == "" {
					as = "alice"
				}
				data, top := e.raw(e.as(as), query)
				if len(top) > 0 {
					t.Fatalf("top-level errors %v, want none", top)
				}
				if obj := dig(data, tc.mutation, tc.object); obj != nil {
					t.Errorf("%s = %v, want null", tc.object, obj)
				}
				var got []errs.UserError
				b, _ := json.Marshal(dig(data, tc.mutation, "errors"))
				json.Unmarshal(b, &got)
				if !reflect.DeepEqual(got, tc.want) {
					t.Errorf("errors = %+v, want %+v", got, tc.want)
				}
				if !tc.permission {
					return
				}
				want := map[string]string{"bob": "FORBIDDEN", "": "UNAUTHENTICATED"}
				for who, code := range want {
					data, top := e.raw(e.as(who), query)
					if len(top) != 1 || dig(top[0], "extensions", "code") != code || data != nil {
						t.Errorf("as %q: data %v, errors %v, want null data and one %s", who, data, top, code)
					}
				}
			})
		}

		// validateOnly: a payload without object and errors, nothing written.
		for _, tc := range []struct{ mutation, input, object string }{
			{"importProject", `{name: "Checked", repository: {url: "https://a.org/b", type: git}}`, "project"},
			{"updateProject", `{slug: "pub", name: "Checked"}`, "project"},
			{"updateVersion", `{project: "pub", version: "v1.0", hidden: true}`, "version"},
			{"createSubproject", `{project: "pub", child: "child"}`, "subproject"},
			{"createRedirect", `{project: "pub", type: prefix, fromUrl: "/checked/"}`, "redirect"},
			{"updateRedirect", `{project: "pub", id: "` + ids["redirect"] + `", toUrl: "/checked/"}`, "redirect"},
			{"createEnvironmentVariable", `{project: "pub", name: "CHECKED", value: "v"}`, "environmentVariable"},
		} {
			t.Run("validateOnly "+tc.mutation, func(t *testing.T) {
				input := "{validateOnly: true, " + tc.input[1:]
				data, top := e.raw(e.as("alice"), fmt.Sprintf(`mutation { %s(input: %s) { %s { __typename } errors { path } } }`, tc.mutation, input, tc.object))
				want := map[string]any{tc.object: nil, "errors": []any{}}
				if len(top) > 0 || !reflect.DeepEqual(data[tc.mutation], want) {
					t.Errorf("got %v %v, want %v", data, top, want)
				}
			})
		}
		after := e.must(e.as("alice"), `{ project(slug: "pub") { name subprojects { totalCount } redirects { totalCount nodes { toUrl } }
			environmentVariables { totalCount } version(slug: "v1.0") { hidden } } }`, nil)
		if got := fmt.Sprint(dig(after, "project")); got != "map[environmentVariables:map[totalCount:1] name:pub redirects:map[nodes:[map[toUrl:/b.html]] totalCount:1] subprojects:map[totalCount:0] version:map[hidden:false]]" {
			t.Errorf("validateOnly wrote: %s", got)
		}
	})
}

// TestDeletePayloads: a delete answers the deleted object's global id, and
// node(id:) answers null (NOT_FOUND) for it from then on.
func TestDeletePayloads(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d)
		e.payloadFixture()
		alice := e.as("alice")
		e.importProject("alice", "gone")
		e.must(alice, `mutation { createSubproject(input: {project: "pub", child: "child", alias: "lib"}) { errors { path } } }`, nil)
		for _, tc := range []struct {
			mutation string
			idQuery  string // a query of the object's id
			input    string // the delete's input, %s for the id
		}{
			{"deleteProject", `{ project(slug: "gone") { id } }`, `{slug: "gone"}`},
			{"deleteSubproject", `{ project(slug: "pub") { subproject(alias: "lib") { id } } }`, `{project: "pub", alias: "lib"}`},
			{"deleteRedirect", `{ project(slug: "pub") { redirects(first: 1) { nodes { id } } } }`, `{project: "pub", id: "%s"}`},
			{"deleteEnvironmentVariable", `{ project(slug: "pub") { environmentVariables(first: 1) { nodes { id } } } }`, `{project: "pub", id: "%s"}`},
		} {
			t.Run(tc.mutation, func(t *testing.T) {
				id := firstString(e.must(alice, tc.idQuery, nil))
				input := tc.input
				if strings.Contains(input, "%s") {
					input = fmt.Sprintf(input, id)
				}
				data, top := e.raw(alice, fmt.Sprintf(`mutation { %s(input: %s) { deletedId errors { path } } }`, tc.mutation, input))
				if want := map[string]any{"deletedId": id, "errors": []any{}}; len(top) > 0 || !reflect.DeepEqual(data[tc.mutation], want) {
					t.Fatalf("got %v %v, want %v", data, top, want)
				}
				data, top = e.raw(alice, fmt.Sprintf(`{ node(id: %q) { id } }`, id))
				if data["node"] != nil || len(top) != 1 || dig(top[0], "extensions", "code") != "NOT_FOUND" {
					t.Errorf("node(id:) after the delete: %v %v, want null and NOT_FOUND", data, top)
				}
				// A second delete: the object is not found, a top-level error.
				if _, top := e.raw(alice, fmt.Sprintf(`mutation { %s(input: %s) { deletedId } }`, tc.mutation, input)); len(top) != 1 || dig(top[0], "extensions", "code") != "NOT_FOUND" {
					t.Errorf("second delete: %v, want NOT_FOUND", top)
				}
			})
		}
		// Integrations are not Nodes: deletedId is the database id they show.
		data := e.must(alice, `mutation { createIntegration(input: {project: "pub", type: api_webhook}) { integration { id } } }`, nil)
		id := fmt.Sprint(dig(data, "createIntegration", "integration", "id"))
		data, top := e.raw(alice, fmt.Sprintf(`mutation { deleteIntegration(input: {project: "pub", id: %q}) { deletedId } }`, id))
		if len(top) > 0 || dig(data, "deleteIntegration", "deletedId") != id {
			t.Errorf("deleteIntegration: %v %v, want deletedId %s", data, top, id)
		}
		// A global id of another project's redirect is not found in this one.
		data = e.must(alice, `{ project(slug: "priv") { redirects(first: 1) { nodes { id } } } }`, nil)
		other := firstString(data)
		if _, top := e.raw(alice, fmt.Sprintf(`mutation { deleteRedirect(input: {project: "pub", id: %q}) { deletedId } }`, other)); len(top) != 1 || dig(top[0], "extensions", "code") != "NOT_FOUND" {
			t.Errorf("deleting priv's redirect through pub: %v, want NOT_FOUND", top)
		}
	})
}

// firstString returns the first string found in a decoded JSON value.
func firstString(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case map[string]any:
		for _, x := range v {
			if s := firstString(x); s != "" {
				return s
			}
		}
	case []any:
		for _, x := range v {
			if s := firstString(x); s != "" {
				return s
			}
		}
	}
	return ""
}
