package main

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"docsd/internal/accounts"
	"docsd/internal/storetest"
	"docsd/store"
)

// orgPagesClient signs name of the acme fixture in to the dashboard
// (setting their password) and returns the client and its CSRF token.
func orgPagesClient(t *testing.T, f *acme, name string) (*browserClient, string) {
	t.Helper()
	if err := accounts.New(f.n.s).SetPassword(t.Context(), name, name+"-password"); err != nil {
		t.Fatal(err)
	}
	c := newBrowserClient(t, f.n.url)
	return c, c.signIn(name, name+"-password")
}

// postForm posts a dashboard form with the session's CSRF token and
// fails the test unless the answer has status want; it returns the body.
func postForm(t *testing.T, c *browserClient, csrf, path string, form url.Values, want int) string {
	t.Helper()
	form.Set("csrfmiddlewaretoken", csrf)
	resp, body := c.post(path, form)
	if resp.StatusCode != want {
		t.Fatalf("POST %s: %d, want %d\n%s", path, resp.StatusCode, want, body)
	}
	return body
}

// getWithKey GETs url with an API key instead of a session.
func getWithKey(t *testing.T, url, key string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Token "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// TestOrganizationSecurityLogCSV makes organization events through the
// dashboard's team pages (create, edit, delete a team) and reads the
// organization's security log back as CSV, on both databases: the header
// row and file name of the export, one row per event, newest first, the
// action filter; the page for the owner; and the refusal for everyone
// else but superusers (members of its teams, direct maintainers of its
// projects, other users), with a session or a key.
func TestOrganizationSecurityLogCSV(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		f := newAcme(t, d)
		ana, csrf := orgPagesClient(t, f, "ana")
		post := func(path string, form url.Values, want int) string {
			t.Helper()
			return postForm(t, ana, csrf, path, form, want)
		}
		post("/organizations/acme/teams/add/", url.Values{"name": {"Guides"}, "access": {"readonly"}}, http.StatusSeeOther)
		post("/organizations/acme/teams/guides/edit/", url.Values{"name": {"Handbooks"}, "access": {"admin"}}, http.StatusSeeOther)
		post("/organizations/acme/teams/guides/delete/", url.Values{}, http.StatusSeeOther)

		today := time.Now().UTC().Format(time.DateOnly)
		resp, body := getWithKey(t, f.n.url+"/organizations/acme/security-log/?download=true&date_after="+today, f.keys[roleOwner])
		wantFile := `attachment; filename="docsd_organization_security_logs_acme_` + today + "_" + today + `.csv"`
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/csv; charset=utf-8" || resp.Header.Get("Content-Disposition") != wantFile {
			t.Fatalf("CSV: %d %q %q, want 200 text/csv %q\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Content-Disposition"), wantFile, body)
		}
		rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
		if err != nil {
			t.Fatalf("CSV %q: %v", body, err)
		}
		if got, want := strings.Join(rows[0], ","), "Date (UTC),User,Project,Organization,Action,Resource,IP,Browser,Extra data"; got != want {
			t.Errorf("header: %q, want %q", got, want)
		}
		var actions []string
		for _, row := range rows[1:] {
			actions = append(actions, row[4])
			if _, err := time.Parse(time.DateTime, row[0]); err != nil || row[1] != "ana" || row[3] != "acme" || row[6] != "127.0.0.1" {
				t.Errorf("row %q: want a YYYY-MM-DD HH:MM:SS date, user ana, organization acme, IP 127.0.0.1", row)
			}
			var data struct {
				Team struct{ Slug string }
			}
			if err := json.Unmarshal([]byte(row[8]), &data); err != nil || data.Team.Slug != "guides" {
				t.Errorf("row %q: extra data %q, want the team's JSON (%v)", row, row[8], err)
			}
		}
		if got, want := strings.Join(actions, " "), "team-deleted team-changed team-created"; got != want {
			t.Errorf("actions, newest first: %q, want %q", got, want)
		}
		resp, body = getWithKey(t, f.n.url+"/organizations/acme/security-log/?download=true&action=team-created", f.keys[roleOwner])
		if rows, err := csv.NewReader(strings.NewReader(body)).ReadAll(); resp.StatusCode != http.StatusOK || err != nil || len(rows) != 2 || rows[1][4] != "team-created" {
			t.Errorf("action=team-created: %d %v\n%s", resp.StatusCode, err, body)
		}
		resp, body = getWithKey(t, f.n.url+"/organizations/acme/security-log/?download=true", f.keys[roleSuperuser])
		if resp.StatusCode != http.StatusOK || strings.Count(body, "\r\n") != 4 {
			t.Errorf("superuser's export: %d, want 200 with the header and 3 rows\n%s", resp.StatusCode, body)
		}

		// The page: the owner's, with the rows and the export link.
		if resp, page := ana.get("/organizations/acme/security-log/?project=&user=ana"); resp.StatusCode != http.StatusOK ||
			!strings.Contains(page, "team-changed") || !strings.Contains(page, `href="/organizations/acme/security-log/?download=true&amp;project=&amp;user=ana"`) {
			t.Errorf("owner's page: %d\n%s", resp.StatusCode, page)
		}
		if resp, page := ana.get("/organizations/acme/security-log/?action=nonsense"); resp.StatusCode != http.StatusBadRequest ||
			!strings.Contains(page, "Select a valid choice. nonsense is not one of the available choices.") {
			t.Errorf("unknown action: %d\n%s", resp.StatusCode, page)
		}

		// Anyone else but superusers: the not-found page, whatever the
		// events they may read through the API.
		for _, role := range []string{roleAdminTeam, roleReadonly, roleDirect, roleNoTeam, roleOther} {
			if resp, body := getWithKey(t, f.n.url+"/organizations/acme/security-log/?download=true", f.keys[role]); resp.StatusCode != http.StatusNotFound || strings.Contains(body, "Date (UTC)") {
				t.Errorf("%s's export: %d, want 404\n%s", role, resp.StatusCode, body)
			}
		}
		bo, _ := orgPagesClient(t, f, "bo")
		if resp, page := bo.get("/organizations/acme/security-log/"); resp.StatusCode != http.StatusNotFound || strings.Contains(page, "team-created") {
			t.Errorf("a member's page: %d, want 404", resp.StatusCode)
		}
		if resp, page := bo.get("/organizations/acme/"); resp.StatusCode != http.StatusOK || strings.Contains(page, "/organizations/acme/security-log/") {
			t.Errorf("a member's organization page: %d, want 200 without a security-log link", resp.StatusCode)
		}
	})
}

// TestOrganizationOwnerPages drives the owners' pages through a real
// server on both databases: deleting an organization that has projects
// and removing its last owner are refused with the API's messages; an
// owner invitation shows its link once without SMTP; a team is renamed
// (its slug stays) and deleted after its confirmation page; a project
// moves out of the organization from its settings page, which offers the
// move only to owners; members without ownership get the not-found page.
func TestOrganizationOwnerPages(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		f := newAcme(t, d)
		ana, csrf := orgPagesClient(t, f, "ana")
		post := func(c *browserClient, csrf, path string, form url.Values, want int) string {
			t.Helper()
			return postForm(t, c, csrf, path, form, want)
		}
		contains := func(what, page, want string) {
			t.Helper()
			if !strings.Contains(page, want) {
				t.Errorf("%s: no %q in\n%s", what, want, page)
			}
		}

		// Delete: a confirmation page, then the API's refusal.
		resp, page := ana.get("/organizations/acme/delete/")
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("delete page: %d", resp.StatusCode)
		}
		contains("delete page", page, `<form method="post" action="/organizations/acme/delete/"`)
		page = post(ana, csrf, "/organizations/acme/delete/", url.Values{}, http.StatusBadRequest)
		contains("delete with projects", page, "The organization still has projects: move or delete them first.")

		// Settings: the API's message next to its field, the form as typed.
		page = post(ana, csrf, "/organizations/acme/edit/", url.Values{"name": {"Acme Docs"}, "email": {"not an address"}}, http.StatusBadRequest)
		contains("bad email", page, `id="id_email_error">Enter a valid email address.</p>`)
		contains("bad email", page, `value="Acme Docs"`)
		post(ana, csrf, "/organizations/acme/edit/", url.Values{"name": {"Acme Docs"}, "email": {"docs@acme.example"}}, http.StatusSeeOther)
		if status, body := send(t, "GET", f.n.url+"/api/v3/organizations/acme/?fields=name,email", f.keys[roleOwner], ""); canonicalJSON(t, body) != `{"email":"docs@acme.example","name":"Acme Docs"}` {
			t.Errorf("acme after its settings: %d %s", status, body)
		}

		// Owners: the last one stays; an invitation's link is shown once.
		page = post(ana, csrf, "/organizations/acme/owners/remove/", url.Values{"username": {"ana"}}, http.StatusBadRequest)
		contains("last owner", page, "User is the last owner, can&#39;t be removed")
		page = post(ana, csrf, "/organizations/acme/owners/invite/", url.Values{"username": {"cy"}}, http.StatusOK)
		contains("invitation", page, "Copy this link to cy")
		contains("invitation", page, `/invitations/`)
		page = post(ana, csrf, "/organizations/acme/owners/invite/", url.Values{"username": {"nobody"}}, http.StatusBadRequest)
		contains("unknown invitee", page, `<p class="field-error" id="id_username_error">User nobody does not exist</p>`)

		// Team settings: a blank name is refused next to the field; a
		// rename keeps the slug; deletion after its page.
		page = post(ana, csrf, "/organizations/acme/teams/writers/edit/", url.Values{"name": {" "}, "access": {"admin"}}, http.StatusBadRequest)
		contains("blank team name", page, `id="id_name_error">This field is required.</p>`)
		post(ana, csrf, "/organizations/acme/teams/writers/edit/", url.Values{"name": {"Editors"}, "access": {"readonly"}, "auto_join_email_users": {"on"}}, http.StatusSeeOther)
		_, page = ana.get("/organizations/acme/teams/writers/edit/")
		contains("renamed team", page, `value="Editors"`)
		contains("renamed team", page, `<option value="readonly" selected>`)
		contains("renamed team", page, `name="auto_join_email_users" checked`)
		if resp, page := ana.get("/organizations/acme/teams/others/projects/"); resp.StatusCode != http.StatusOK || !strings.Contains(page, `action="/organizations/acme/teams/others/projects/"`) {
			t.Errorf("team projects page: %d", resp.StatusCode)
		}
		if resp, _ := ana.get("/organizations/acme/teams/others/delete/"); resp.StatusCode != http.StatusOK {
			t.Errorf("team delete page: %d", resp.StatusCode)
		}
		post(ana, csrf, "/organizations/acme/teams/others/delete/", url.Values{}, http.StatusSeeOther)
		if resp, _ := ana.get("/organizations/acme/teams/others/"); resp.StatusCode != http.StatusNotFound {
			t.Errorf("deleted team's page: %d, want 404", resp.StatusCode)
		}

		// Not an owner: every owners' page is the not-found page.
		bo, boCSRF := orgPagesClient(t, f, "bo")
		for _, path := range []string{"/organizations/acme/delete/", "/organizations/acme/owners/", "/organizations/acme/teams/read-only/edit/", "/organizations/acme/teams/read-only/delete/"} {
			if resp, _ := bo.get(path); resp.StatusCode != http.StatusNotFound {
				t.Errorf("GET %s as a member: %d, want 404", path, resp.StatusCode)
			}
		}
		post(bo, boCSRF, "/organizations/acme/teams/read-only/delete/", url.Values{}, http.StatusNotFound)
		post(bo, boCSRF, "/organizations/acme/owners/remove/", url.Values{"username": {"ana"}}, http.StatusNotFound)

		// The project's settings: alice maintains demo but owns no
		// organization, so she is told who may move it and refused.
		alice, aliceCSRF := orgPagesClient(t, f, "alice")
		_, page = alice.get("/projects/demo/edit/")
		contains("maintainer's settings", page, "owners may move the project out of it")
		if strings.Contains(page, `action="/projects/demo/edit/organization/"`) {
			t.Error("a direct maintainer who owns no organization is offered the move")
		}
		page = post(alice, aliceCSRF, "/projects/demo/edit/organization/", url.Values{"organization": {""}}, http.StatusBadRequest)
		contains("maintainer's move", page, "Only owners of the organizations concerned may move the project.")
		// ana is offered it; a team of another organization is refused,
		// then demo leaves acme (alice maintains it directly).
		_, page = ana.get("/projects/demo/edit/")
		contains("owner's settings", page, `<option value="acme" selected>Acme Docs</option>`)
		page = post(ana, csrf, "/projects/demo/edit/organization/", url.Values{"organization": {"acme"}, "teams": {"nosuch"}}, http.StatusBadRequest)
		contains("unknown team", page, `id="id_teams_error">Object with slug=nosuch does not exist.</p>`)
		page = post(ana, csrf, "/projects/demo/edit/organization/", url.Values{"organization": {"elsewhere"}}, http.StatusBadRequest)
		contains("unknown organization", page, `id="id_organization_error">Object with slug=elsewhere does not exist.</p>`)
		post(ana, csrf, "/projects/demo/edit/organization/", url.Values{"organization": {""}}, http.StatusSeeOther)
		status, body := send(t, "GET", f.n.url+"/api/v3/projects/demo/?expand=organization&fields=organization", f.keys[roleDirect], "")
		if status != http.StatusOK || canonicalJSON(t, body) != `{"organization":null}` {
			t.Errorf("demo after the move: %d %s", status, body)
		}
		_, page = alice.get("/projects/demo/edit/")
		contains("settings outside organizations", page, "belongs to no organization")

		// With its projects gone, acme can be deleted.
		post(ana, csrf, "/organizations/acme/delete/", url.Values{}, http.StatusSeeOther)
		if resp, _ := ana.get("/organizations/acme/"); resp.StatusCode != http.StatusNotFound {
			t.Errorf("deleted organization's page: %d, want 404", resp.StatusCode)
		}
	})
}
