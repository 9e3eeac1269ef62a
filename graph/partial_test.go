package graph_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"testing"

	"docsd/internal/storetest"
	"docsd/store"
)

// TestMaintainersOnlyPartialData checks that a caller who may see a project
// but not its maintainer-only fields gets null for each of them with one
// error entry naming the field, and the rest of the project; and that the
// permission fields a UI reads agree with what the caller may do.
func TestMaintainersOnlyPartialData(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d)
		e.fixture()
		ctx := context.Background()
		const query = `query($p: String!, $r: Int!, $v: Int!) { project(slug: $p) { slug
			redirects { totalCount } redirect(id: $r) { id } environmentVariables { totalCount } environmentVariable(id: $v) { id }
			integrations { type } notifications { totalCount }
			viewerIsMaintainer viewerCanAdminister viewerCanChangeAdminFields
			lastBuild: builds(limit: 1) { nodes { viewerCanCancel viewerCanRetry } } } }`
		restricted := []string{"environmentVariable", "environmentVariables", "integrations", "notifications", "redirect", "redirects"}
		for _, tc := range []struct {
			project, caller    string
			wantCode           string // of every restricted field; "" when they are answered
			admin, adminFields bool
		}{
			{"pub", "", "UNAUTHENTICATED", false, false},
			{"pub", "bob", "FORBIDDEN", false, false},
			{"pub", "root", "FORBIDDEN", false, true},
			{"pub", "alice", "", true, false},
			{"priv", "root", "FORBIDDEN", false, true},
			{"priv", "alice", "", true, false},
		} {
			t.Run(fmt.Sprintf("%s/%q", tc.project, tc.caller), func(t *testing.T) {
				p, _ := e.store.FindProjectBySlug(ctx, tc.project)
				rs, _, _ := e.store.FindRedirects(ctx, p.ID, store.Page{Limit: 1})
				vs, _, _ := e.store.FindEnvironmentVariables(ctx, p.ID, store.Page{Limit: 1})
				resp := e.exec.Run(e.as(tc.caller), query, map[string]any{"p": tc.project, "r": rs[0].ID, "v": vs[0].ID})
				var data map[string]any
				if err := json.Unmarshal(resp.Data, &data); err != nil {
					t.Fatalf("data: %v (%s)", err, resp.Data)
				}
				project, _ := data["project"].(map[string]any)
				if project == nil || project["slug"] != tc.project {
					t.Fatalf("project = %v, want the project with its restricted fields null; errors %v", data["project"], resp.Errors)
				}
				var failed []string
				for _, gqlErr := range resp.Errors {
					if got := gqlErr.Extensions["code"]; got != tc.wantCode {
						t.Errorf("%v: code %v, want %q", gqlErr.Path, got, tc.wantCode)
					}
					if len(gqlErr.Path) != 2 {
						t.Errorf("error path %v, want [project field]", gqlErr.Path)
						continue
					}
					failed = append(failed, fmt.Sprint(gqlErr.Path[1]))
				}
				sort.Strings(failed)
				for _, f := range restricted {
					if tc.wantCode != "" && project[f] != nil {
						t.Errorf("%s = %v, want null", f, project[f])
					}
				}
				if tc.wantCode == "" {
					if len(resp.Errors) != 0 {
						t.Errorf("errors %v, want none", resp.Errors)
					}
					if project["redirects"] == nil || project["environmentVariables"] == nil || project["integrations"] == nil {
						t.Errorf("maintainer got %v", project)
					}
				} else if !reflect.DeepEqual(failed, restricted) {
					t.Errorf("errors on %v, want one on each of %v", failed, restricted)
				}
				if got := project["viewerCanAdminister"]; got != tc.admin {
					t.Errorf("viewerCanAdminister = %v, want %v", got, tc.admin)
				}
				if got := project["viewerCanChangeAdminFields"]; got != tc.adminFields {
					t.Errorf("viewerCanChangeAdminFields = %v, want %v", got, tc.adminFields)
				}
				// The fixture's builds are finished: never cancellable; retry for maintainers.
				build := dig(project, "lastBuild", "nodes", 0).(map[string]any)
				if build["viewerCanCancel"] != false || build["viewerCanRetry"] != tc.admin {
					t.Errorf("build permissions %v, want cancel false, retry %v", build, tc.admin)
				}
			})
		}
	})
}

// TestProjectAccessAnonymous checks that an anonymous projectAccess is
// answered (data is not wiped), and that a project the caller may not see
// answers as a missing one: an anonymous caller cannot tell a private slug
// from an unknown one.
func TestProjectAccessAnonymous(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d)
		e.fixture()
		for _, tc := range []struct {
			slug string
			want map[string]any
		}{
			{"pub", map[string]any{"exists": true, "visible": true, "maintainer": false}},
			{"priv", map[string]any{"exists": false, "visible": false, "maintainer": false}},
			{"nope", map[string]any{"exists": false, "visible": false, "maintainer": false}},
		} {
			data := e.must(e.as(""), `query($p: String!) { projectAccess(slug: $p) { exists visible maintainer } }`, map[string]any{"p": tc.slug})
			if got := data["projectAccess"]; !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s: got %v, want %v", tc.slug, got, tc.want)
			}
		}
	})
}
