package rest

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"docsd/internal/storetest"
	"docsd/store"
)

// v3Column is one column of the outcome matrix (who may do what): who
// asks, and the project (and its objects) the request names.
type v3Column struct {
	name string
	as   string
	// Placeholders: {P} project, {V} a public version, {Vp} a non-public
	// version, {N} a build of {V}, {Np} a build of {Vp}, {A} a subproject
	// alias of {P}, {C} a project that is a subproject (of a parent like {P}).
	subst map[string]string
}

var v3Columns = []v3Column{
	{"maintainer", "alice", map[string]string{"{P}": "project", "{V}": "v1.0", "{Vp}": "v2.0", "{N}": "2", "{Np}": "3", "{A}": "subproject", "{C}": "subproject"}},
	{"public", "alice", map[string]string{"{P}": "other", "{V}": "latest", "{Vp}": "hidden", "{N}": "7", "{Np}": "8", "{A}": "other-child", "{C}": "other-child"}},
	{"non-public", "alice", map[string]string{"{P}": "secret", "{V}": "latest", "{Vp}": "latest", "{N}": "9", "{Np}": "9", "{A}": "secret-child", "{C}": "secret-child"}},
	{"missing", "alice", map[string]string{"{P}": "missing", "{V}": "latest", "{Vp}": "latest", "{N}": "1", "{Np}": "1", "{A}": "x", "{C}": "missing"}},
	// Without a token, an unknown project is 401, not 404.
	{"no-token", "", map[string]string{"{P}": "missing", "{V}": "latest", "{Vp}": "latest", "{N}": "1", "{Np}": "1", "{A}": "x", "{C}": "missing"}},
	// A superuser reads non-public details; lists and writes stay 403.
	{"superuser", "carol", map[string]string{"{P}": "secret", "{V}": "latest", "{Vp}": "latest", "{N}": "9", "{Np}": "9", "{A}": "secret-child", "{C}": "secret-child"}},
}

// v3MatrixRow is a request and its status in each column of v3Columns.
type v3MatrixRow struct {
	method, path, body string
	want               [6]int
}

var v3Matrix = []v3MatrixRow{
	{"GET", "/api/v3/", "", [6]int{200, 200, 200, 200, 200, 200}},
	{"GET", "/api/v3/projects/", "", [6]int{200, 200, 200, 200, 401, 200}},
	{"POST", "/api/v3/projects/", "{}", [6]int{400, 400, 400, 400, 401, 400}},
	{"GET", "/api/v3/projects/{P}/", "", [6]int{200, 200, 404, 404, 401, 200}},
	{"HEAD", "/api/v3/projects/{P}/", "", [6]int{200, 200, 404, 404, 401, 200}},
	{"PATCH", "/api/v3/projects/{P}/", "{}", [6]int{204, 403, 403, 404, 401, 403}},
	{"PUT", "/api/v3/projects/{P}/", "{}", [6]int{400, 403, 403, 404, 401, 403}},
	{"DELETE", "/api/v3/projects/{P}/", "", [6]int{405, 405, 405, 405, 401, 405}},
	{"POST", "/api/v3/projects/{P}/", "{}", [6]int{405, 405, 405, 405, 401, 405}},
	{"OPTIONS", "/api/v3/projects/{P}/", "", [6]int{200, 200, 200, 200, 401, 200}},
	{"GET", "/api/v3/projects/{C}/superproject/", "", [6]int{200, 200, 404, 404, 401, 200}},
	{"PUT", "/api/v3/projects/{C}/superproject/", "{}", [6]int{405, 405, 405, 405, 401, 405}},
	{"GET", "/api/v3/projects/{P}/versions/", "", [6]int{200, 403, 403, 404, 401, 403}},
	{"OPTIONS", "/api/v3/projects/{P}/versions/", "", [6]int{200, 403, 403, 404, 401, 403}},
	{"POST", "/api/v3/projects/{P}/versions/", "{}", [6]int{405, 403, 403, 404, 401, 403}},
	{"GET", "/api/v3/projects/{P}/versions/{V}/", "", [6]int{200, 200, 404, 404, 401, 200}},
	{"GET", "/api/v3/projects/{P}/versions/{Vp}/", "", [6]int{200, 404, 404, 404, 401, 200}},
	{"PATCH", "/api/v3/projects/{P}/versions/{V}/", "{}", [6]int{204, 403, 403, 404, 401, 403}},
	{"PUT", "/api/v3/projects/{P}/versions/{V}/", `{"active": true}`, [6]int{204, 403, 403, 404, 401, 403}},
	{"DELETE", "/api/v3/projects/{P}/versions/{V}/", "", [6]int{405, 403, 403, 404, 401, 403}},
	{"GET", "/api/v3/projects/{P}/builds/", "", [6]int{200, 403, 403, 404, 401, 403}},
	{"GET", "/api/v3/projects/{P}/builds/{N}/", "", [6]int{200, 200, 404, 404, 401, 200}},
	{"GET", "/api/v3/projects/{P}/builds/{Np}/", "", [6]int{200, 404, 404, 404, 401, 200}},
	{"GET", "/api/v3/projects/{P}/versions/{V}/builds/", "", [6]int{200, 403, 403, 404, 401, 403}},
	{"POST", "/api/v3/projects/{P}/versions/{V}/builds/", "", [6]int{202, 403, 403, 404, 401, 403}},
	{"GET", "/api/v3/projects/{P}/versions/{V}/builds/{N}/", "", [6]int{200, 200, 404, 404, 401, 200}},
	{"GET", "/api/v3/projects/{P}/subprojects/", "", [6]int{200, 403, 403, 404, 401, 403}},
	{"POST", "/api/v3/projects/{P}/subprojects/", "{}", [6]int{400, 403, 403, 404, 401, 403}},
	{"GET", "/api/v3/projects/{P}/subprojects/{A}/", "", [6]int{200, 200, 404, 404, 401, 200}},
	{"GET", "/api/v3/projects/{P}/translations/", "", [6]int{200, 403, 403, 404, 401, 403}},
	{"GET", "/api/v3/projects/{P}/redirects/", "", [6]int{200, 403, 403, 404, 401, 403}},
	{"POST", "/api/v3/projects/{P}/redirects/", "{}", [6]int{400, 403, 403, 404, 401, 403}},
	{"OPTIONS", "/api/v3/projects/{P}/redirects/", "", [6]int{200, 403, 403, 404, 401, 403}},
	{"GET", "/api/v3/projects/{P}/redirects/1/", "", [6]int{200, 403, 403, 404, 401, 403}},
	{"PUT", "/api/v3/projects/{P}/redirects/1/", "{}", [6]int{400, 403, 403, 404, 401, 403}},
	{"PATCH", "/api/v3/projects/{P}/redirects/1/", "{}", [6]int{200, 403, 403, 404, 401, 403}},
	{"DELETE", "/api/v3/projects/{P}/redirects/99/", "", [6]int{404, 403, 403, 404, 401, 403}},
	{"POST", "/api/v3/projects/{P}/redirects/1/", "{}", [6]int{405, 403, 403, 404, 401, 403}},
	{"GET", "/api/v3/projects/{P}/environmentvariables/", "", [6]int{200, 403, 403, 404, 401, 403}},
	{"POST", "/api/v3/projects/{P}/environmentvariables/", "{}", [6]int{400, 403, 403, 404, 401, 403}},
	{"GET", "/api/v3/projects/{P}/environmentvariables/1/", "", [6]int{200, 403, 403, 404, 401, 403}},
	{"PATCH", "/api/v3/projects/{P}/environmentvariables/1/", "{}", [6]int{405, 403, 403, 404, 401, 403}},
	{"DELETE", "/api/v3/projects/{P}/environmentvariables/99/", "", [6]int{404, 403, 403, 404, 401, 403}},
	// Last: it removes the maintainer column's relationship.
	{"DELETE", "/api/v3/projects/{P}/subprojects/{A}/", "", [6]int{204, 403, 403, 404, 401, 403}},
}

// v3ErrorGolden is the golden body of a detail error status.
func v3ErrorGolden(method string, status int) string {
	switch status {
	case 401:
		return "error_401_no_credentials"
	case 403:
		return "error_403"
	case 404:
		return "error_404"
	case 405:
		return "error_405_" + strings.ToLower(method)
	}
	return ""
}

func TestV3PermissionMatrix(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newV3Env(t, d)
		w := e.world()
		ctx := t.Context()
		bob := e.users["bob"]
		otherChild := storetest.MustImport(t, e.store, bob, "other-child", "https://github.com/bob/other-child").Project
		secretChild := storetest.MustImport(t, e.store, bob, "secret-child", "https://github.com/bob/secret-child").Project
		for _, rel := range []struct{ parent, child *store.Project }{{w.other, otherChild}, {w.secret, secretChild}} {
			if _, err := e.store.CreateRelationship(ctx, rel.parent.ID, rel.child.ID, rel.child.Slug); err != nil {
				t.Fatal(err)
			}
		}
		for _, row := range v3Matrix {
			for i, col := range v3Columns {
				path := row.path
				for k, v := range col.subst {
					path = strings.ReplaceAll(path, k, v)
				}
				want := row.want[i]
				golden := v3ErrorGolden(row.method, want)
				if row.method == http.MethodHead {
					golden = ""
				}
				call := v3Call{method: row.method, path: path, as: col.as, body: row.body}
				t.Run(fmt.Sprintf("%s_%s/%s", row.method, row.path, col.name), func(t *testing.T) {
					r := e.do(call)
					if r.status != want {
						t.Fatalf("%s %s as %q: status %d, want %d; body %s", row.method, path, col.as, r.status, want, r.body)
					}
					if golden != "" {
						v3Golden(t, golden, r)
					}
				})
			}
		}
	})
}
