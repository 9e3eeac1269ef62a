package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"docsd/internal/storetest"
	"docsd/store"
)

// userError is one entry of a GraphQL payload's errors.
type userError struct {
	Path    []string
	Message string
	Code    string
}

// mutation runs mutation name with input as key and returns the payload's
// errors; a GraphQL-level error fails the test.
func mutation(t *testing.T, base, key, name, inputType string, input map[string]any) []userError {
	t.Helper()
	q := fmt.Sprintf(`mutation($input: %s!) { %s(input: $input) { errors { path message code } } }`, inputType, name)
	res := graphQL(t, base, key, q, map[string]any{"input": input})
	if res["errors"] != nil {
		t.Fatalf("%s: %v", name, res["errors"])
	}
	var out []userError
	b, _ := json.Marshal(res["data"].(map[string]any)[name].(map[string]any)["errors"])
	must(t, json.Unmarshal(b, &out))
	return out
}

// hasMessage reports whether errors holds message on field ("" for a
// message about no single field).
func hasMessage(errors []userError, field, message string) bool {
	for _, e := range errors {
		last := ""
		if len(e.Path) > 1 {
			last = e.Path[len(e.Path)-1]
		}
		if e.Message == message && last == field {
			return true
		}
	}
	return false
}

// TestOrganizationFieldMessages runs the field rules of organizations,
// teams, owners, members, subprojects and translations through a real
// server on both databases: each refusal carries the contract's message,
// the same on REST and GraphQL where both write the field; a wrong
// sharing password gets the docs host's form again with its message.
func TestOrganizationFieldMessages(t *testing.T) {
	long := func(n int) string { return strings.Repeat("a", n) }
	type row struct {
		name      string
		key       string // role of the caller
		mutation  string
		inputType string
		input     map[string]any
		field     string
		message   string
		rest      string // a REST path on which body gets the same message, or ""
		restBody  string
	}
	org := func(in map[string]any) map[string]any {
		if _, ok := in["name"]; !ok {
			in["name"] = "Fine"
		}
		in["validateOnly"] = true
		return in
	}
	const (
		notSameParent = "Project must belong to the same organization as its parent."
		notSameMain   = "Project must belong to the same organization as its main project."
	)
	rows := []row{
		{"organization name too long", roleSuperuser, "createOrganization", "CreateOrganizationInput", org(map[string]any{"name": long(33)}),
			"name", "Ensure this field has no more than 32 characters.", "", ""},
		{"organization slug without valid characters", roleSuperuser, "createOrganization", "CreateOrganizationInput", org(map[string]any{"slug": "!!!"}),
			"slug", "Invalid slug, use more valid characters.", "", ""},
		{"organization slug not slugified", roleSuperuser, "createOrganization", "CreateOrganizationInput", org(map[string]any{"slug": "My Org"}),
			"slug", "Invalid slug, use suggested slug 'my-org' instead", "", ""},
		{"organization slug taken", roleSuperuser, "createOrganization", "CreateOrganizationInput", org(map[string]any{"name": "Acme"}),
			"slug", "Slug is already used by another organization", "", ""},
		{"organization slug reserved", roleSuperuser, "createOrganization", "CreateOrganizationInput", org(map[string]any{"slug": "verify-email"}),
			"slug", "This slug is reserved.", "", ""},
		{"organization description too long", roleSuperuser, "createOrganization", "CreateOrganizationInput", org(map[string]any{"description": long(1001)}),
			"description", "Ensure this field has no more than 1000 characters.", "", ""},
		{"organization URL not http(s)", roleSuperuser, "createOrganization", "CreateOrganizationInput", org(map[string]any{"url": "ftp://acme.example/"}),
			"url", "Enter a valid URL.", "", ""},
		{"organization update URL", roleOwner, "updateOrganization", "UpdateOrganizationInput", map[string]any{"slug": "acme", "url": "acme"},
			"url", "Enter a valid URL.", "", ""},
		{"team name taken", roleOwner, "createTeam", "CreateTeamInput", map[string]any{"organization": "acme", "name": " Writers "},
			"name", "Team already exists", "", ""},
		{"team name too long", roleOwner, "createTeam", "CreateTeamInput", map[string]any{"organization": "acme", "name": long(101)},
			"name", "Ensure this field has no more than 100 characters.", "", ""},
		{"team project unknown", roleOwner, "createTeam", "CreateTeamInput", map[string]any{"organization": "acme", "name": "New", "projects": []string{"nope"}},
			"projects", "Object with slug=nope does not exist.", "", ""},
		{"team project outside the organization", roleOwner, "addTeamProject", "AddTeamProjectInput", map[string]any{"organization": "acme", "team": "writers", "project": "loose"},
			"project", "Object with slug=loose does not exist.", "", ""},
		{"owner already", roleOwner, "inviteOrganizationOwner", "InviteOrganizationOwnerInput", map[string]any{"organization": "acme", "usernameOrEmail": "ana"},
			"usernameOrEmail", "User ana is already an owner", "", ""},
		{"team member already", roleOwner, "addTeamMember", "AddTeamMemberInput", map[string]any{"organization": "acme", "team": "read-only", "usernameOrEmail": "bo"},
			"usernameOrEmail", "User is already a team member", "", ""},
		{"subproject in another organization", roleDirect, "createSubproject", "CreateSubprojectInput", map[string]any{"project": "demo", "child": "loose"},
			"child", notSameParent, "/api/v3/projects/demo/subprojects/", `{"child": "loose"}`},
		{"translation in another organization", roleDirect, "setTranslationOf", "SetTranslationOfInput", map[string]any{"slug": "loose", "main": "demo"},
			"main", notSameMain, "", ""},
	}
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		f := newAcme(t, d)
		alice, err := f.n.s.FindUserByUsername(t.Context(), "alice")
		must(t, err)
		loose := storetest.MustImport(t, f.n.s, alice, "loose", "https://github.com/example/loose").Project
		es := "es"
		_, err = f.n.s.UpdateProject(t.Context(), loose.ID, store.ProjectUpdate{Language: &es})
		must(t, err)
		for _, r := range rows {
			got := mutation(t, f.n.url, f.keys[r.key], r.mutation, r.inputType, r.input)
			if !hasMessage(got, r.field, r.message) {
				t.Errorf("%s: GraphQL %s errors %+v, want %q on %s", r.name, r.mutation, got, r.message, r.field)
			}
			if r.rest == "" {
				continue
			}
			status, body := send(t, http.MethodPost, f.n.url+r.rest, f.keys[r.key], r.restBody)
			want := canonicalJSON(t, mustJSON(t, map[string][]string{r.field: {r.message}}))
			if status != http.StatusBadRequest || canonicalJSON(t, body) != want {
				t.Errorf("%s: REST POST %s: %d %s, want 400 %s", r.name, r.rest, status, body, want)
			}
		}
	})
}

// TestSharingWrongPasswordMessage: on both databases, a wrong password on
// a sharing link's form shows the form again with "Invalid password." and
// grants nothing.
func TestSharingWrongPasswordMessage(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		x := newSharingSite(t, d)
		code, m := x.api("POST", "/api/v3/projects/secret/sharing/", x.alice, map[string]any{"access_type": "password", "password": "open sesame"})
		if code != 201 {
			t.Fatalf("create: %d %v", code, m)
		}
		req, _ := http.NewRequest("POST", x.base+"/_/sharing/"+m["token"].(string), strings.NewReader(url.Values{"password": {"wrong"}, "next": {"/en/latest/"}}.Encode()))
		req.Host = "secret.docs.test:" + x.port
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := http.DefaultClient.Do(req)
		must(t, err)
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 || resp.Header.Get("Set-Cookie") != "" || !strings.Contains(string(body), "Invalid password.") {
			t.Errorf("wrong password: %d, cookie %q, body %.300s", resp.StatusCode, resp.Header.Get("Set-Cookie"), body)
		}
	})
}
