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

// org is the fixture's organization acme.
func (f *acme) org(t *testing.T) *store.Organization {
	t.Helper()
	o, err := f.n.s.FindOrganizationBySlug(t.Context(), "acme")
	must(t, err)
	return o
}

// admin runs the real program's admin command args on the fixture's
// database and returns its exit status and output.
func (f *acme) admin(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return docsd(t, append(args, "--database-url", f.db, "--data-dir", t.TempDir())...)
}

// TestOrganizationLimits runs each limit at its edge on both databases:
// rows written through the store bring a count to one below the limit,
// the next write through the API (or the admin command, for owners)
// reaches it, and the one after is a conflict with the limit's message.
func TestOrganizationLimits(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		ctx := t.Context()
		f := newAcme(t, d)
		s, o := f.n.s, f.org(t)
		ana := f.keys[roleOwner]

		// Teams: acme has admins, read-only, writers and others.
		for i := 4; i < store.MaxTeamsPerOrganization-1; i++ {
			must(t, s.CreateTeam(ctx, &store.Team{OrganizationID: o.ID, Slug: fmt.Sprintf("t%d", i), Name: fmt.Sprintf("T%d", i)}, nil))
		}
		team := func(name string) []userError {
			return mutation(t, f.n.url, ana, "createTeam", "CreateTeamInput", map[string]any{"organization": "acme", "name": name})
		}
		if got := team("Hundredth"); len(got) != 0 {
			t.Errorf("the 100th team: %+v", got)
		}
		if got := team("One too many"); !hasMessage(got, "", "An organization can have at most 100 teams.") || got[0].Code != "CONFLICT" {
			t.Errorf("the 101st team: %+v", got)
		}

		// Members: read-only has bo; cy and dee are members of acme.
		readOnly, err := s.FindTeamBySlug(ctx, o.ID, "read-only")
		must(t, err)
		var filler []*store.User
		for i := 1; i < 999; i++ {
			u, err := s.CreateUser(ctx, fmt.Sprintf("m%d", i), "", false)
			must(t, err)
			must(t, s.AddTeamMember(ctx, readOnly.ID, u.ID))
			filler = append(filler, u)
		}
		member := func(name string) []userError {
			return mutation(t, f.n.url, ana, "addTeamMember", "AddTeamMemberInput", map[string]any{"organization": "acme", "team": "read-only", "usernameOrEmail": name})
		}
		if got := member("cy"); len(got) != 0 {
			t.Errorf("the 1000th member: %+v", got)
		}
		if got := member("dee"); !hasMessage(got, "", "A team can have at most 1000 members.") || got[0].Code != "CONFLICT" {
			t.Errorf("the 1001st member: %+v", got)
		}

		// Owners: ana, and 48 more; owners are added by the admin commands.
		for _, u := range filler[:48] {
			must(t, s.AddOrganizationOwner(ctx, o.ID, u.ID))
		}
		if code, _, errOut := f.admin(t, "organization", "owner", "add", "acme", "cy"); code != 0 {
			t.Errorf("the 50th owner: exit %d: %s", code, errOut)
		}
		if code, _, errOut := f.admin(t, "organization", "owner", "add", "acme", "dee"); code != 1 || errOut != "docsd: An organization can have at most 50 owners.\n" {
			t.Errorf("the 51st owner: exit %d: %q", code, errOut)
		}
		if us, _ := s.FindOrganizationOwners(ctx, []int64{o.ID}); len(us) != store.MaxOwnersPerOrganization {
			t.Errorf("owners: %d, want %d", len(us), store.MaxOwnersPerOrganization)
		}

		// Sharing methods of demo, managed by alice.
		demo, err := s.FindProjectBySlug(ctx, "demo")
		must(t, err)
		for i := 0; i < store.MaxSharingMethods-1; i++ {
			_, err := s.CreateSharingMethod(ctx, store.SharingMethod{ProjectID: demo.ID, AccessType: "token", AllowAll: true, Expires: "2099-01-01"})
			must(t, err)
		}
		sharing := func() (int, string) {
			return send(t, http.MethodPost, f.n.url+"/api/v3/projects/demo/sharing/", f.keys[roleDirect], `{"access_type": "http_header_token"}`)
		}
		if status, body := sharing(); status != http.StatusCreated {
			t.Errorf("the 100th sharing method: %d %s", status, body)
		}
		if status, body := sharing(); status != http.StatusBadRequest || canonicalJSON(t, body) != canonicalJSON(t, `{"non_field_errors": ["A project can have at most 100 sharing methods."]}`) {
			t.Errorf("the 101st sharing method: %d %s", status, body)
		}
	})
}

// TestOrganizationAdminCommands runs the organization, team and project
// organization commands of the real program against a served database,
// on both databases: each acts at once and leaves an audit entry without
// a user; a refusal is exit status 1 with "docsd: " and its message.
func TestOrganizationAdminCommands(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		ctx := t.Context()
		f := newAcme(t, d)
		s, o := f.n.s, f.org(t)
		alice, err := s.FindUserByUsername(ctx, "alice")
		must(t, err)
		storetest.MustImport(t, s, alice, "loose", "https://github.com/example/loose")
		demo, err := s.FindProjectBySlug(ctx, "demo")
		must(t, err)
		usernames := func(us []*store.OrganizationUser) string {
			var names []string
			for _, u := range us {
				names = append(names, u.Username)
			}
			return strings.Join(names, ",")
		}
		owners := func() string {
			us, err := s.FindOrganizationOwners(ctx, []int64{o.ID})
			must(t, err)
			return usernames(us)
		}
		docsTeam := func() *store.Team {
			tm, err := s.FindTeamBySlug(ctx, o.ID, "docs")
			if err != nil {
				return nil
			}
			return tm
		}
		members := func() string {
			tm := docsTeam()
			if tm == nil {
				return "no team"
			}
			us, err := s.FindTeamMembers(ctx, []int64{tm.ID})
			must(t, err)
			return usernames(us)
		}
		teamHasDemo := func() bool {
			tm := docsTeam()
			if tm == nil {
				return false
			}
			tps, err := s.FindTeamProjects(ctx, []int64{tm.ID})
			must(t, err)
			for _, tp := range tps {
				if tp.ProjectID == demo.ID {
					return true
				}
			}
			return false
		}
		looseOrg := func() *int64 {
			p, err := s.FindProjectBySlug(ctx, "loose")
			must(t, err)
			return p.OrganizationID
		}
		for _, c := range []struct {
			args   []string
			action string // the audit entry's action, "" for a refusal
			stderr string // the message of a refusal
			ok     func() bool
		}{
			{[]string{"organization", "owner", "add", "acme", "bo"}, store.AuditOwnerAdded, "", func() bool { return owners() == "ana,bo" }},
			{[]string{"organization", "owner", "add", "acme", "bo"}, "", "User bo is already an owner", func() bool { return owners() == "ana,bo" }},
			{[]string{"organization", "owner", "remove", "acme", "bo"}, store.AuditOwnerRemoved, "", func() bool { return owners() == "ana" }},
			{[]string{"team", "create", "acme", "Docs", "--access", "owner"}, "", "\"owner\" is not a valid choice.", func() bool { return docsTeam() == nil }},
			{[]string{"team", "create", "acme", "Writers"}, "", "Team already exists", func() bool { return docsTeam() == nil }},
			{[]string{"team", "create", "acme", "Docs", "--access", "admin"}, store.AuditTeamCreated, "", func() bool { tm := docsTeam(); return tm != nil && tm.Access == store.TeamAdmin }},
			{[]string{"team", "member", "add", "acme", "docs", "otto"}, store.AuditTeamMemberAdded, "", func() bool { return members() == "otto" }},
			{[]string{"team", "member", "remove", "acme", "docs", "otto"}, store.AuditTeamMemberRemoved, "", func() bool { return members() == "" }},
			{[]string{"team", "project", "add", "acme", "docs", "demo"}, store.AuditTeamProjectAdded, "", teamHasDemo},
			{[]string{"team", "project", "add", "acme", "docs", "loose"}, "", "Object with slug=loose does not exist.", func() bool { return looseOrg() == nil }},
			{[]string{"team", "project", "remove", "acme", "docs", "demo"}, store.AuditTeamProjectRemoved, "", func() bool { return !teamHasDemo() }},
			{[]string{"team", "delete", "acme", "docs"}, store.AuditTeamDeleted, "", func() bool { return docsTeam() == nil }},
			{[]string{"project", "organization", "loose", "acme"}, store.AuditProjectOrgChanged, "", func() bool { id := looseOrg(); return id != nil && *id == o.ID }},
			{[]string{"project", "organization", "loose", "--none"}, store.AuditProjectOrgChanged, "", func() bool { return looseOrg() == nil }},
		} {
			name := strings.Join(c.args, " ")
			var before int
			if c.action != "" {
				_, before, err = s.FindAuditEntries(ctx, store.AuditFilter{Visible: store.AuditVisibility{All: true}, Action: c.action}, store.Page{Limit: 1})
				must(t, err)
			}
			code, _, errOut := f.admin(t, c.args...)
			if c.action == "" {
				// The message follows its field's name: "docsd: name: Team already exists".
				if code != 1 || !strings.HasPrefix(errOut, "docsd: ") || !strings.HasSuffix(errOut, " "+c.stderr+"\n") {
					t.Errorf("%s: exit %d, stderr %q, want 1 and %q", name, code, errOut, c.stderr)
				}
			} else if code != 0 {
				t.Errorf("%s: exit %d: %s", name, code, errOut)
			}
			if !c.ok() {
				t.Errorf("%s: not in effect", name)
			}
			if c.action == "" {
				continue
			}
			entries, after, err := s.FindAuditEntries(ctx, store.AuditFilter{Visible: store.AuditVisibility{All: true}, Action: c.action}, store.Page{Limit: 1})
			must(t, err)
			if after != before+1 || entries[0].UserID != nil || entries[0].LogUserID != nil || entries[0].AuthBackend != nil {
				t.Errorf("%s: %d %s entries (were %d), newest %+v: want one more, without a user or backend", name, after, c.action, before, entries[0])
			}
		}
	})
}
