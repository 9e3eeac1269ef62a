package graph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"testing"

	"docsd/graph"
	"docsd/internal/access"
	"docsd/internal/choices"
	"docsd/internal/storetest"
	"docsd/store"
)

// TestEnumsMatchChoices checks that each schema enum lists exactly the
// codes of its choice table, which are what the store holds and what REST
// shows, so that no stored value falls outside its enum.
func TestEnumsMatchChoices(t *testing.T) {
	schema := graph.NewExecutableSchema(graph.Config{}).Schema()
	for enum, table := range map[string]choices.Table{
		"PrivacyLevel": choices.PrivacyLevels, "VersionType": choices.VersionTypes, "BuildStateCode": choices.BuildStates,
		"RedirectType": choices.RedirectTypes, "RepositoryType": choices.RepoTypes, "IntegrationType": choices.IntegrationTypes,
		"VersioningScheme": choices.VersioningSchemes, "BuildType": choices.BuildTypes, "DocumentationType": choices.DocumentationTypes,
		"PythonInterpreter": choices.PythonInterpreters, "UploadStatus": choices.UploadStatuses,
	} {
		def := schema.Types[enum]
		if def == nil {
			t.Errorf("no enum %s", enum)
			continue
		}
		var got []string
		for _, v := range def.EnumValues {
			got = append(got, v.Name)
		}
		want := table.Codes()
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("enum %s = %v, want the codes %v", enum, got, want)
		}
	}
}

// TestEnumInputsRefuseUnknownValues: an input field that takes an enum
// refuses a value outside it when the operation is validated, as a literal
// (quoted or not) and as a variable: one GRAPHQL_VALIDATION_FAILED error
// naming the enum, no data, and nothing written. REST checks its strings
// before it calls the graph (rest/v3_choices.go), so only GraphQL clients
// see this answer.
func TestEnumInputsRefuseUnknownValues(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d)
		ids := e.payloadFixture()
		before := e.must(e.as("alice"), enumReadBack, nil)
		for _, tc := range []struct {
			mutation, input, enum string // input: %s stands for the value
		}{
			{"importProject", `{name: "Y", repository: {url: "https://a.org/b", type: git}, privacyLevel: %s}`, "PrivacyLevel"},
			{"importProject", `{name: "Y", repository: {url: "https://a.org/b", type: git}, externalBuildsPrivacyLevel: %s}`, "PrivacyLevel"},
			{"importProject", `{name: "Y", repository: {url: "https://a.org/b", type: %s}}`, "RepositoryType"},
			{"updateProject", `{slug: "pub", privacyLevel: %s}`, "PrivacyLevel"},
			{"updateProject", `{slug: "pub", externalBuildsPrivacyLevel: %s}`, "PrivacyLevel"},
			{"updateProject", `{slug: "pub", versioningScheme: %s}`, "VersioningScheme"},
			{"updateProject", `{slug: "pub", repository: {type: %s}}`, "RepositoryType"},
			{"setProjectPrivacy", `{slug: "pub", privacyLevel: %s}`, "PrivacyLevel"},
			{"setProjectAdminFields", `{slug: "pub", versionPrivacyLevel: %s}`, "PrivacyLevel"},
			{"setProjectAdminFields", `{slug: "pub", documentationType: %s}`, "DocumentationType"},
			{"setProjectAdminFields", `{slug: "pub", pythonInterpreter: %s}`, "PythonInterpreter"},
			{"updateVersion", `{project: "pub", version: "v1.0", privacyLevel: %s}`, "PrivacyLevel"},
			{"setVersionPrivacy", `{project: "pub", version: "v1.0", privacyLevel: %s}`, "PrivacyLevel"},
			{"initiateUpload", `{project: "pub", versionName: "x", versionType: %s, versionCommit: "abc"}`, "VersionType"},
			{"initiateUpload", `{project: "pub", versionName: "x", versionType: branch, versionCommit: "abc", versionPrivacyLevel: %s}`, "PrivacyLevel"},
			{"createRedirect", `{project: "pub", type: %s, fromUrl: "/x/", toUrl: "/y/"}`, "RedirectType"},
			{"updateRedirect", `{project: "pub", id: "` + ids["redirect"] + `", type: %s}`, "RedirectType"},
			{"createIntegration", `{project: "pub", type: %s}`, "IntegrationType"},
			{"completeUpload", `{build: "` + ids["upBuild"] + `", status: %s}`, "UploadStatus"},
		} {
			for _, value := range []string{`"nope"`, `nope`, `"PUBLIC"`, `$v`} {
				t.Run(tc.mutation+"/"+tc.enum+"/"+value, func(t *testing.T) {
					query := fmt.Sprintf(`mutation { %s(input: %s) { errors { path message code } } }`, tc.mutation, fmt.Sprintf(tc.input, value))
					var vars map[string]any
					if value == "$v" {
						query = fmt.Sprintf(`mutation($v: %s!) { %s(input: %s) { errors { path message code } } }`, tc.enum, tc.mutation, fmt.Sprintf(tc.input, value))
						vars = map[string]any{"v": "nope"}
					}
					as := "alice"
					if tc.mutation == "setProjectAdminFields" {
						as = "root"
					}
					status, out := e.post(e.as(as), query, vars)
					list, _ := out["errors"].([]any)
					if len(list) != 1 || out["data"] != nil {
						t.Fatalf("status %d, answer %v, want one error and no data", status, out)
					}
					first, _ := list[0].(map[string]any)
					if msg, _ := first["message"].(string); dig(first, "extensions", "code") != "GRAPHQL_VALIDATION_FAILED" || !regexp.MustCompile(`\b`+tc.enum+`\b`).MatchString(msg) {
						t.Errorf("error %v, want GRAPHQL_VALIDATION_FAILED naming %s", first, tc.enum)
					}
				})
			}
		}
		if after := e.must(e.as("alice"), enumReadBack, nil); !reflect.DeepEqual(after, before) {
			t.Errorf("refused operations wrote: before %v, after %v", before, after)
		}
	})
}

// enumReadBack reads what the refused operations of
// TestEnumInputsRefuseUnknownValues would have written.
const enumReadBack = `{ projects { totalCount } project(slug: "pub") { privacyLevel externalBuildsPrivacyLevel versioningScheme
	repository { type } documentationType adminFields { versionPrivacyLevel pythonInterpreter } version(slug: "v1.0") { privacyLevel }
	builds { totalCount } redirects { nodes { type fromUrl } } integrations { type } } }`

// post sends an operation with variables to the public /graphql endpoint
// over HTTP as ctx's viewer and returns the status and the decoded answer.
func (e *env) post(ctx context.Context, query string, vars map[string]any) (int, map[string]any) {
	e.t.Helper()
	srv := e.server()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, _ := http.NewRequest("POST", srv.URL+"/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if u := access.ViewerFrom(ctx).User; u != nil {
		req.Header.Set("Authorization", "Token "+e.tokens[u.Username])
	}
	resp, out := send(e.t, req)
	return resp.StatusCode, out
}
