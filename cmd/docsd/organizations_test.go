package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"

	"docsd/internal/storetest"
	"docsd/store"
)

// acme is the organizations fixture on a node: project demo (private,
// published) in organization acme, owned by ana, in teams read-only (bo)
// and writers (admin, cy); dee is in acme's team others, which does not
// include demo; alice maintains demo directly; otto is no member; sue is a
// superuser. keys are the API keys by role.
type acme struct {
	n    *docsNode
	keys map[string]string
	db   string // the node's database URL
}

// The roles of the permission matrix.
const (
	roleOwner     = "owner"
	roleAdminTeam = "admin team"
	roleReadonly  = "readonly team"
	roleDirect    = "direct maintainer"
	roleNoTeam    = "member without team(P)"
	roleOther     = "other user"
	roleSuperuser = "superuser"
)

func newAcme(t *testing.T, d store.Dialect) *acme {
	t.Helper()
	ctx := t.Context()
	db := storetest.DatabaseURL(t, d)
	n := openNode(t, db, t.TempDir())
	f := &acme{n: n, keys: map[string]string{roleDirect: publishDemo(t, n)}, db: db}
	patch(t, n.url+"/api/v3/projects/demo/", f.keys[roleDirect], `{"privacy_level": "private"}`)
	users := map[string]*store.User{}
	for role, name := range map[string]string{roleOwner: "ana", roleReadonly: "bo", roleAdminTeam: "cy", roleNoTeam: "dee", roleOther: "otto"} {
		users[role], f.keys[role] = storetest.MustUser(t, n.s, name)
	}
	_, f.keys[roleSuperuser] = storetest.MustSuperuser(t, n.s, "sue")
	org := &store.Organization{Slug: "acme", Name: "Acme"}
	must(t, n.s.CreateOrganization(ctx, org, users[roleOwner].ID))
	readOnly, err := n.s.FindTeamBySlug(ctx, org.ID, "read-only")
	must(t, err)
	writers := &store.Team{OrganizationID: org.ID, Slug: "writers", Name: "Writers", Access: store.TeamAdmin}
	others := &store.Team{OrganizationID: org.ID, Slug: "others", Name: "Others"}
	must(t, n.s.CreateTeam(ctx, writers, nil))
	must(t, n.s.CreateTeam(ctx, others, nil))
	must(t, n.s.AddTeamMember(ctx, readOnly.ID, users[roleReadonly].ID))
	must(t, n.s.AddTeamMember(ctx, writers.ID, users[roleAdminTeam].ID))
	must(t, n.s.AddTeamMember(ctx, others.ID, users[roleNoTeam].ID))
	demo, err := n.s.FindProjectBySlug(ctx, "demo")
	must(t, err)
	must(t, n.s.SetProjectsOrganization(ctx, []int64{demo.ID}, &org.ID, []int64{readOnly.ID, writers.ID}))
	return f
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// send makes a request with an API key ("" for none) and returns its
// status and body.
func send(t *testing.T, method, url, key, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	if key != "" {
		req.Header.Set("Authorization", "Token "+key)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	return resp.StatusCode, b.String()
}

// graphQL runs query on /graphql with key and decodes the answer.
func graphQL(t *testing.T, base, key, query string, vars map[string]any) map[string]any {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	status, out := send(t, http.MethodPost, base+"/graphql", key, string(body))
	var res map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil || status != http.StatusOK {
		t.Fatalf("POST /graphql: status %d, %v: %s", status, err, out)
	}
	return res
}

// TestOrganizationPermissionMatrix runs the permission matrix of
// organizations and teams over HTTP, on both databases: REST, GraphQL and
// the docs host (page and addons data) agree on who reads and who changes
// a private project of an organization, and a member removed from their
// team loses access on the next request.
func TestOrganizationPermissionMatrix(t *testing.T) {
	type row struct {
		name   string
		method string
		path   string // on the API origin, or on the docs origin with docs
		docs   bool
		body   string
		want   map[string]int
	}
	all := func(owner, admin, readonly, direct, noTeam, other, super int) map[string]int {
		return map[string]int{roleOwner: owner, roleAdminTeam: admin, roleReadonly: readonly, roleDirect: direct,
			roleNoTeam: noTeam, roleOther: other, roleSuperuser: super}
	}
	rows := []row{
		{"read O", "GET", "/api/v3/organizations/acme/", false, "", all(200, 200, 200, 404, 200, 404, 200)},
		{"list O's projects", "GET", "/api/v3/organizations/acme/projects/", false, "", all(200, 200, 200, 403, 200, 403, 403)},
		{"list O's teams", "GET", "/api/v3/organizations/acme/teams/", false, "", all(200, 403, 403, 403, 403, 403, 403)},
		{"O's notifications", "GET", "/api/v3/organizations/acme/notifications/", false, "", all(200, 403, 403, 403, 403, 403, 403)},
		{"write O", "PATCH", "/api/v3/organizations/acme/", false, `{}`, all(405, 405, 405, 405, 405, 405, 405)},
		{"read P", "GET", "/api/v3/projects/demo/", false, "", all(200, 200, 200, 200, 404, 404, 200)},
		{"read P's versions", "GET", "/api/v3/projects/demo/versions/", false, "", all(200, 200, 200, 200, 403, 403, 403)},
		{"read P's builds", "GET", "/api/v3/projects/demo/builds/", false, "", all(200, 200, 200, 200, 403, 403, 403)},
		{"read P's private version", "GET", "/api/v3/projects/demo/versions/latest/", false, "", all(200, 200, 200, 200, 404, 404, 200)},
		{"write P", "PATCH", "/api/v3/projects/demo/", false, `{}`, all(204, 204, 403, 204, 403, 403, 403)},
		{"P's redirects", "GET", "/api/v3/projects/demo/redirects/", false, "", all(200, 200, 403, 200, 403, 403, 403)},
		{"build P", "POST", "/api/v3/projects/demo/versions/latest/builds/", false, "", all(202, 202, 403, 202, 403, 403, 403)},
		{"docs page", "GET", demoPage, true, "", all(200, 200, 200, 200, 404, 404, 404)},
		{"addons data", "GET", "/_/addons/?api-version=1&project-slug=demo&version-slug=latest", true, "", all(200, 200, 200, 200, 404, 404, 404)},
		{"O missing", "GET", "/api/v3/organizations/nope/", false, "", all(404, 404, 404, 404, 404, 404, 404)},
		{"O missing's projects", "GET", "/api/v3/organizations/nope/projects/", false, "", all(404, 404, 404, 404, 404, 404, 404)},
		{"O missing's teams", "GET", "/api/v3/organizations/nope/teams/", false, "", all(404, 404, 404, 404, 404, 404, 404)},
		{"create a team", "POST", "/api/v3/organizations/acme/teams/", false, `{}`, all(405, 403, 403, 403, 403, 403, 403)},
		{"P's sharing", "GET", "/api/v3/projects/demo/sharing/", false, "", all(200, 200, 403, 200, 403, 403, 403)},
		{"P's variables", "GET", "/api/v3/projects/demo/environmentvariables/", false, "", all(200, 200, 403, 200, 403, 403, 403)},
		// demo has no SSH key yet: its writers are told so, readers are refused.
		{"P's SSH key", "GET", "/api/v3/projects/demo/ssh-key/", false, "", all(404, 404, 403, 404, 403, 403, 403)},
	}
	// GraphQL asks the same questions: a row's query (role is the caller,
	// for a distinct input) and whether its answer says the act went
	// through.
	went := func(field string) func(map[string]any) bool {
		return func(res map[string]any) bool {
			data, _ := res["data"].(map[string]any)
			out, _ := data[field].(map[string]any)
			errs, _ := out["errors"].([]any)
			return res["errors"] == nil && out != nil && len(errs) == 0
		}
	}
	graphRows := []struct {
		name  string
		query func(role string) string
		ok    func(res map[string]any) bool
		want  map[string]int // 200: allowed
	}{
		{"read O", func(string) string { return `{ organization(slug: "acme") { slug } }` }, func(res map[string]any) bool {
			data, _ := res["data"].(map[string]any)
			org, _ := data["organization"].(map[string]any)
			return org != nil && org["slug"] == "acme"
		}, all(200, 200, 200, 404, 200, 404, 200)},
		{"write P", func(string) string {
			return `mutation { updateProject(input: {slug: "demo", homepage: "https://demo.example/"}) { project { slug } errors { message } } }`
		}, went("updateProject"), all(200, 200, 403, 200, 403, 403, 403)},
		{"P's redirects", func(role string) string {
			return `mutation { createRedirect(input: {project: "demo", type: page, fromUrl: "/` + strings.ReplaceAll(role, " ", "-") +
				`.html", toUrl: "/index.html"}) { redirect { fromUrl } errors { message } } }`
		}, went("createRedirect"), all(200, 200, 403, 200, 403, 403, 403)},
	}
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		f := newAcme(t, d)
		for _, r := range rows {
			for role, want := range r.want {
				base := f.n.url
				if r.docs {
					base = f.n.docs
				}
				if got, body := send(t, r.method, base+r.path, f.keys[role], r.body); got != want {
					t.Errorf("%s (%s %s) as %s: status %d, want %d: %.200s", r.name, r.method, r.path, role, got, want, body)
				}
			}
		}
		for _, r := range rows {
			if !r.docs {
				if got, body := send(t, r.method, f.n.url+r.path, "", r.body); got != http.StatusUnauthorized {
					t.Errorf("%s (%s %s) without a token: status %d, want 401: %.200s", r.name, r.method, r.path, got, body)
				}
			}
		}
		for role, want := range all(200, 200, 200, 200, 404, 404, 200) {
			if got := graphSeesDemoLatest(t, f.n.url, f.keys[role]); got != (want == 200) {
				t.Errorf("GraphQL shows demo's latest to %s: %v, want %v", role, got, want == 200)
			}
		}
		for _, r := range graphRows {
			for role, want := range r.want {
				if res := graphQL(t, f.n.url, f.keys[role], r.query(role), nil); r.ok(res) != (want == 200) {
					t.Errorf("GraphQL %s as %s: went through %v, want %v: %.300s", r.name, role, r.ok(res), want == 200, mustJSON(t, res))
				}
			}
		}
		f.checkMaintainers(t, all(200, 403, 403, 403, 403, 403, 403))

		// P's audit entries: admins of P and superusers read them;
		// for anyone else the filter narrows to nothing.
		for role, want := range all(200, 200, 0, 200, 0, 0, 200) {
			_, body := send(t, "GET", f.n.url+"/api/v3/audit-logs/?project=demo", f.keys[role], "")
			var page struct{ Count int }
			if err := json.Unmarshal([]byte(body), &page); err != nil || (page.Count > 0) != (want == 200) {
				t.Errorf("P's audit entries as %s: %.300s, want entries: %v", role, body, want == 200)
			}
		}

		// A removal takes effect on the next request, everywhere.
		res := graphQL(t, f.n.url, f.keys[roleOwner], `mutation { removeTeamMember(input: {organization: "acme", team: "read-only", username: "bo"}) { team { slug } errors { message } } }`, nil)
		if res["errors"] != nil {
			t.Fatalf("removeTeamMember: %v", res)
		}
		bo := f.keys[roleReadonly]
		for _, c := range []struct {
			url  string
			want int
		}{
			{f.n.docs + demoPage, 404},
			{f.n.url + "/api/v3/projects/demo/", 404},
			{f.n.url + "/api/v3/organizations/acme/", 404},
		} {
			if got, _ := send(t, "GET", c.url, bo, ""); got != c.want {
				t.Errorf("after the removal, bo GET %s: status %d, want %d", c.url, got, c.want)
			}
		}
		if graphSeesDemoLatest(t, f.n.url, bo) {
			t.Errorf("after the removal, GraphQL still shows demo's latest to bo")
		}
	})
}

// maintainers are the usernames of demo's direct maintainers, sorted.
func (f *acme) maintainers(t *testing.T) []string {
	t.Helper()
	res := graphQL(t, f.n.url, f.keys[roleSuperuser], `{ project(slug: "demo") { users { username } } }`, nil)
	var out struct {
		Data struct {
			Project struct{ Users []struct{ Username string } }
		}
	}
	must(t, json.Unmarshal([]byte(mustJSON(t, res)), &out))
	var names []string
	for _, u := range out.Data.Project.Users {
		names = append(names, u.Username)
	}
	sort.Strings(names)
	return names
}

// checkMaintainers runs the owners-only act on demo's direct maintainers
// through GraphQL: want (200: allowed) says who adds eve (a user with no
// role) and who removes her; a direct maintainer may remove only themself. Whether an act went
// through is read from the maintainers list, not from the answer.
func (f *acme) checkMaintainers(t *testing.T, want map[string]int) {
	t.Helper()
	storetest.MustUser(t, f.n.s, "eve")
	change := func(role, mutation, username string) {
		graphQL(t, f.n.url, f.keys[role], `mutation($u: String!) { `+mutation+`(input: {slug: "demo", username: $u}) { errors { message } } }`, map[string]any{"u": username})
	}
	has := func(username string) bool {
		return slices.Contains(f.maintainers(t), username)
	}
	for role, w := range want {
		change(role, "addMaintainer", "eve")
		if got := has("eve"); got != (w == 200) {
			t.Errorf("addMaintainer as %s: eve a maintainer %v, want %v", role, got, w == 200)
		}
		if has("eve") {
			change(roleOwner, "removeMaintainer", "eve")
		}
		if has("eve") {
			t.Fatalf("the owner could not remove eve again: %v", f.maintainers(t))
		}
	}
	change(roleOwner, "addMaintainer", "eve")
	for role, w := range want {
		if role == roleOwner {
			continue
		}
		change(role, "removeMaintainer", "eve")
		if got := !has("eve"); got != (w == 200) {
			t.Errorf("removeMaintainer eve as %s: removed %v, want %v", role, got, w == 200)
		}
	}
	change(roleOwner, "removeMaintainer", "eve")
	if has("eve") {
		t.Errorf("removeMaintainer eve as the owner: still a maintainer")
	}
	// The direct maintainer leaves: the last one may go inside an
	// organization, whose owners keep control.
	change(roleDirect, "removeMaintainer", "alice")
	if got := f.maintainers(t); len(got) != 0 {
		t.Errorf("the direct maintainer removing themself: maintainers %v, want none", got)
	}
	change(roleOwner, "addMaintainer", "alice")
	if !has("alice") {
		t.Errorf("the owner could not add alice back: %v", f.maintainers(t))
	}
}

// TestOrganizationExamples runs the organization examples of the REST
// API's contract through a real server, on both databases: ana owns acme
// (Admins), bo is in Read Only, cy in Writers (admin), dee in no team;
// handbook is private, in Read Only and Writers.
func TestOrganizationExamples(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		ctx := t.Context()
		n := openNode(t, storetest.DatabaseURL(t, d), t.TempDir())
		users, keys := map[string]*store.User{}, map[string]string{}
		for _, name := range []string{"ana", "bo", "cy", "dee"} {
			users[name], keys[name] = storetest.MustUser(t, n.s, name)
		}
		org := &store.Organization{Slug: "acme", Name: "Acme", Email: "docs@acme.example", Description: "Engineering docs", URL: "https://acme.example"}
		must(t, n.s.CreateOrganization(ctx, org, users["ana"].ID))
		readOnly, err := n.s.FindTeamBySlug(ctx, org.ID, "read-only")
		must(t, err)
		must(t, n.s.AddTeamMember(ctx, readOnly.ID, users["bo"].ID))
		res := graphQL(t, n.url, keys["ana"], `mutation { createTeam(input: {organization: "acme", name: "Writers", access: admin}) { team { slug } errors { message } } }`, nil)
		if res["errors"] != nil || !strings.Contains(mustJSON(t, res), `"slug":"writers"`) {
			t.Fatalf("createTeam: %v", res)
		}
		// The owner reads the organization's audit entries of its writes;
		// a member who owns nothing reads none of them.
		for _, c := range []struct {
			key, action string
			want        int
		}{{keys["ana"], "team-created", 1}, {keys["bo"], "team-created", 0}} {
			_, body := send(t, http.MethodGet, n.url+"/api/v3/audit-logs/?organization=acme&action="+c.action, c.key, "")
			var page struct {
				Count   int
				Results []struct {
					Organization struct{ Slug string }
					Data         map[string]any
				}
			}
			must(t, json.Unmarshal([]byte(body), &page))
			if page.Count != c.want || (c.want > 0 && (page.Results[0].Organization.Slug != "acme" || page.Results[0].Data["team"] == nil)) {
				t.Errorf("audit-logs ?action=%s: %s", c.action, body)
			}
		}
		handbook := storetest.MustImport(t, n.s, users["ana"], "Handbook", "https://github.com/acme/handbook").Project
		private := store.Private
		_, err = n.s.UpdateProject(ctx, handbook.ID, store.ProjectUpdate{PrivacyLevel: &private})
		must(t, err)
		writers, err := n.s.FindTeamBySlug(ctx, org.ID, "writers")
		must(t, err)
		must(t, n.s.AddTeamMember(ctx, writers.ID, users["cy"].ID))
		must(t, n.s.SetProjectsOrganization(ctx, []int64{handbook.ID}, &org.ID, []int64{readOnly.ID, writers.ID}))

		api := n.url + "/api/v3"
		check := func(name, method, path, key, body string, wantStatus int, want string) {
			t.Helper()
			status, got := send(t, method, api+path, key, body)
			if status != wantStatus {
				t.Errorf("%s: %s %s: status %d, want %d: %s", name, method, path, status, wantStatus, got)
				return
			}
			if want != "" && canonicalJSON(t, got) != canonicalJSON(t, want) {
				t.Errorf("%s: %s %s:\n got %s\nwant %s", name, method, path, canonicalJSON(t, got), canonicalJSON(t, want))
			}
		}
		links := `{"_self": "/api/v3/organizations/acme/", "notifications": "/api/v3/organizations/acme/notifications/", "projects": "/api/v3/organizations/acme/projects/"}`
		check("1", "GET", "/organizations/?omit=created,modified", keys["ana"], "", 200, `{"count": 1, "next": null, "previous": null, "results": [
			{"_links": `+links+`, "description": "Engineering docs", "disabled": false, "email": "docs@acme.example",
			 "name": "Acme", "owners": [{"username": "ana"}], "slug": "acme", "url": "https://acme.example"}]}`)
		check("2", "GET", "/organizations/acme/teams/?expand=members&omit=created,modified", keys["ana"], "", 200, `{"count": 3, "next": null, "previous": null, "results": [
			{"access": "admin", "members": [{"username": "ana"}], "name": "Admins", "slug": "admins"},
			{"access": "readonly", "members": [{"username": "bo"}], "name": "Read Only", "slug": "read-only"},
			{"access": "admin", "members": [{"username": "cy"}], "name": "Writers", "slug": "writers"}]}`)
		check("3", "GET", "/organizations/acme/teams/", keys["bo"], "", 403, `{"detail": "You do not have permission to perform this action."}`)
		check("3", "GET", "/organizations/acme/", keys["dee"], "", 404, `{"detail": "Not found."}`)
		check("4", "GET", "/organizations/acme/projects/?fields=slug,privacy_level", keys["bo"], "", 200,
			`{"count": 1, "next": null, "previous": null, "results": [{"privacy_level": "private", "slug": "handbook"}]}`)
		runbooks := `{"name": "Runbooks", "repository": {"url": "https://github.com/acme/runbooks", "type": "git"}, "organization": "acme", "teams": %s}`
		check("5", "POST", "/projects/", keys["cy"], strings.Replace(runbooks, "%s", `["read-only"]`, 1), 400,
			`{"teams": ["Select at least one admin team you are a member of."]}`)
		check("5", "POST", "/projects/", keys["cy"], strings.Replace(runbooks, "%s", `["writers", "read-only"]`, 1), 201, "")
		check("6", "GET", "/projects/runbooks/?expand=organization,teams,permissions&fields=organization,permissions,slug,teams,users&omit=teams.created,teams.modified", keys["cy"], "", 200,
			`{"organization": {"_links": `+links+`, "slug": "acme"}, "permissions": {"admin": true}, "slug": "runbooks",
			  "teams": [{"access": "admin", "name": "Writers", "slug": "writers"}], "users": [{"username": "cy"}]}`)
		check("7", "PATCH", "/projects/handbook/", keys["bo"], `{"name": "Handbook 2"}`, 403, "")
		check("7", "GET", "/projects/handbook/versions/", keys["bo"], "", 200, "")

		// Project create's other refusals, in the contract's order.
		other := strings.Replace(runbooks, "Runbooks", "Other", 1)
		check("organization", "POST", "/projects/", keys["dee"], strings.Replace(other, "%s", `[]`, 1), 400,
			`{"organization": ["Object with slug=acme does not exist."]}`)
		check("teams type", "POST", "/projects/", keys["cy"], strings.Replace(other, "%s", `"writers"`, 1), 400,
			`{"teams": ["Expected a list of items but got type \"str\"."]}`)
		check("teams need organization", "POST", "/projects/", keys["cy"], `{"name": "Other", "repository": {"url": "https://github.com/acme/other", "type": "git"}, "teams": ["writers"]}`, 400,
			`{"teams": ["Teams require an organization."]}`)
		check("bo, not in an admin team", "POST", "/projects/", keys["bo"], strings.Replace(other, "%s", `["read-only"]`, 1), 400,
			`{"organization": ["You must be on a team with admin permissions in order to add a new project to your organization."]}`)
	})
}

// canonicalJSON is s decoded and encoded again (keys sorted, compact).
func canonicalJSON(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return "invalid JSON: " + s
	}
	return mustJSON(t, v)
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
