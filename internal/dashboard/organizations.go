package dashboard

import (
	"net/http"
	"net/url"
	"strings"

	"docsd/graph"
	"docsd/internal/choices"
	"docsd/internal/errs"
)

// The organization pages (/organizations/…): the viewer's organizations,
// creating one, and an organization's projects, members, teams and
// settings, each team's members and projects. Everything reads and
// writes through the graph; who sees and changes what is the graph's to
// decide (owners manage, members read), so a page shows a form only where
// viewerIsOwner says the write would pass.

// organization is an organization as its pages show it.
type organization struct {
	Slug, Name    string
	Email         *string
	Description   *string
	URL           *string `json:"url"`
	ViewerIsOwner bool
	Owners        []struct{ Username string }
	Projects      struct {
		Nodes []struct{ Slug, Name, PrivacyLevel string }
	}
	Members struct{ Nodes []struct{ Username string } }
	Teams   struct{ Nodes []team }
}

// team is a team as its organization's pages show it.
type team struct {
	Slug, Name, Access string
	AutoJoinEmailUsers bool
	Members            struct{ Nodes []struct{ Username string } }
	Projects           struct{ Nodes []struct{ Slug, Name string } }
}

const organizationsQuery = `query { organizations(first: 100) { nodes { slug name description viewerIsOwner } } }`

const organizationQuery = `query($slug: String!) { organization(slug: $slug) {
	slug name email description url viewerIsOwner owners { username }
	projects(first: 100) { nodes { slug name privacyLevel } }
	members(first: 100) { nodes { username } }
	teams(first: 100) { nodes { slug name access autoJoinEmailUsers members(first: 100) { nodes { username } } projects(first: 100) { nodes { slug name } } } }
} }`

const (
	createOrganizationMutation = `mutation($input: CreateOrganizationInput!) { createOrganization(input: $input) { organization { slug } ` + graph.PayloadErrors + ` } }`
	updateOrganizationMutation = `mutation($input: UpdateOrganizationInput!) { updateOrganization(input: $input) { organization { slug } ` + graph.PayloadErrors + ` } }`
	createTeamMutation         = `mutation($input: CreateTeamInput!) { createTeam(input: $input) { team { slug } ` + graph.PayloadErrors + ` } }`
	addTeamMemberMutation      = `mutation($input: AddTeamMemberInput!) { addTeamMember(input: $input) { member { username } invitation { toEmail toUser { username } } url emailSent ` + graph.PayloadErrors + ` } }`
	removeTeamMemberMutation   = `mutation($input: RemoveTeamMemberInput!) { removeTeamMember(input: $input) { team { slug } ` + graph.PayloadErrors + ` } }`
	addTeamProjectMutation     = `mutation($input: AddTeamProjectInput!) { addTeamProject(input: $input) { team { slug } ` + graph.PayloadErrors + ` } }`
	removeTeamProjectMutation  = `mutation($input: RemoveTeamProjectInput!) { removeTeamProject(input: $input) { team { slug } ` + graph.PayloadErrors + ` } }`
)

// teamAccesses are the choices of a team's access.
var teamAccesses = choices.Table{{Code: "readonly", Name: "Read only"}, {Code: "admin", Name: "Admin"}}

func (d *Dashboard) mountOrganizations() {
	d.mux.HandleFunc("GET /organizations/{$}", d.signedIn(d.handleOrganizations))
	d.mux.HandleFunc("GET /organizations/create/{$}", d.signedIn(d.handleOrganizations))
	d.mux.HandleFunc("POST /organizations/create/{$}", d.signedIn(d.handleOrganizationCreate))
	for _, tab := range []string{"", "members/", "teams/", "edit/", "owners/", "delete/"} {
		d.mux.HandleFunc("GET /organizations/{org}/"+tab+"{$}", d.signedIn(d.handleOrganization))
	}
	d.mux.HandleFunc("POST /organizations/{org}/edit/{$}", d.signedIn(d.handleOrganizationEdit))
	d.mux.HandleFunc("POST /organizations/{org}/teams/add/{$}", d.signedIn(d.handleTeamCreate))
	d.mux.HandleFunc("GET /organizations/{org}/teams/{team}/{$}", d.signedIn(d.handleOrganization))
	d.mux.HandleFunc("GET /organizations/{org}/teams/{team}/edit/{$}", d.signedIn(d.handleOrganization))
	d.mux.HandleFunc("GET /organizations/{org}/teams/{team}/delete/{$}", d.signedIn(d.handleOrganization))
	d.mux.HandleFunc("GET /organizations/{org}/teams/{team}/projects/{$}", d.signedIn(d.handleOrganization))
	d.mux.HandleFunc("POST /organizations/{org}/teams/{team}/members/invite/{$}", d.signedIn(d.handleTeamInvite))
	d.mux.HandleFunc("POST /organizations/{org}/teams/{team}/"+revokeSuffix+"{$}", d.signedIn(d.handleRevokeInvitation(teamPage)))
	d.mux.HandleFunc("POST /organizations/{org}/teams/{team}/members/remove/{$}", d.signedIn(d.handleTeamChange(removeTeamMemberMutation, "username", "username")))
	d.mux.HandleFunc("POST /organizations/{org}/teams/{team}/projects/{$}", d.signedIn(d.handleTeamChange(addTeamProjectMutation, "project", "project")))
	d.mux.HandleFunc("POST /organizations/{org}/teams/{team}/projects/remove/{$}", d.signedIn(d.handleTeamChange(removeTeamProjectMutation, "project", "project")))
	d.mountOrganizationSettings()
}

func (d *Dashboard) handleOrganizations(w http.ResponseWriter, r *http.Request, s *session) {
	d.renderOrganizations(w, r, s, http.StatusOK, &page{})
}

func (d *Dashboard) renderOrganizations(w http.ResponseWriter, r *http.Request, s *session, code int, pg *page) {
	pg.Title = "Organizations"
	d.renderWithOrganizations(w, r, s, code, "organizations", pg)
}

// renderWithOrganizations renders page name with the viewer's
// organizations in pg.Organizations.
func (d *Dashboard) renderWithOrganizations(w http.ResponseWriter, r *http.Request, s *session, code int, name string, pg *page) {
	var out struct {
		Organizations struct{ Nodes []organization }
	}
	if err := d.run(r, s, organizationsQuery, nil, &out); err != nil {
		d.failed(w, r, s, err)
		return
	}
	pg.Organizations = out.Organizations.Nodes
	d.render(w, r, s, code, name, pg)
}

// organizationFields maps the API's field names to the forms'.
var organizationFields = map[string]string{"name": "name", "slug": "slug", "email": "email", "description": "description", "url": "url"}

func (d *Dashboard) handleOrganizationCreate(w http.ResponseWriter, r *http.Request, s *session) {
	form := map[string]string{}
	input := map[string]any{}
	for _, k := range []string{"name", "slug", "email", "description", "url"} {
		form[k] = strings.TrimSpace(r.PostFormValue(k))
		if form[k] != "" || k == "name" {
			input[k] = form[k]
		}
	}
	var out struct {
		CreateOrganization struct{ Organization *struct{ Slug string } }
	}
	err := d.run(r, s, createOrganizationMutation, map[string]any{"input": input}, &out)
	if err != nil || out.CreateOrganization.Organization == nil {
		d.renderOrganizations(w, r, s, formStatus(err), &page{Form: form, Errors: formErrorsOf(err, organizationFields)})
		return
	}
	http.Redirect(w, r, "/organizations/"+out.CreateOrganization.Organization.Slug+"/", http.StatusSeeOther)
}

// handleOrganization answers the organization's pages: the tab is the
// path's rest (projects, members/, teams/, edit/, teams/<team>/).
func (d *Dashboard) handleOrganization(w http.ResponseWriter, r *http.Request, s *session) {
	rest := strings.TrimPrefix(r.URL.Path, "/organizations/"+r.PathValue("org")+"/")
	d.renderOrganization(w, r, s, http.StatusOK, &page{}, rest)
}

// renderOrganization renders the organization's page named by rest, the
// path under /organizations/<org>/ ("", members/, teams/, edit/, owners/,
// delete/, teams/<team>/, teams/<team>/edit/, teams/<team>/delete/;
// teams/<team>/projects/ is the team's page).
func (d *Dashboard) renderOrganization(w http.ResponseWriter, r *http.Request, s *session, code int, pg *page, rest string) {
	slug := r.PathValue("org")
	var out struct{ Organization *organization }
	if err := d.run(r, s, organizationQuery, map[string]any{"slug": slug}, &out); err != nil || out.Organization == nil {
		d.failed(w, r, s, err)
		return
	}
	o := out.Organization
	pg.Org, pg.Title, pg.OrgTab = o, o.Name, "projects"
	switch {
	case rest == "members/":
		pg.OrgTab, pg.Title = "members", o.Name+" · Members"
	case rest == "edit/":
		if !o.ViewerIsOwner {
			d.notFound(w, r, s)
			return
		}
		pg.OrgTab, pg.Title = "edit", o.Name+" · Settings"
		if pg.Form == nil {
			pg.Form = map[string]string{"name": o.Name, "email": deref(o.Email), "description": deref(o.Description), "url": deref(o.URL)}
		}
	case rest == "owners/" || rest == "delete/":
		if !o.ViewerIsOwner {
			d.notFound(w, r, s)
			return
		}
		pg.OrgTab = strings.TrimSuffix(rest, "/")
		pg.Title = o.Name + " · " + map[string]string{"owners": "Owners", "delete": "Delete"}[pg.OrgTab]
	case strings.HasPrefix(rest, "teams/"):
		pg.OrgTab, pg.Title = "teams", o.Name+" · Teams"
		if t := r.PathValue("team"); t != "" {
			for i := range o.Teams.Nodes {
				if o.Teams.Nodes[i].Slug == t {
					pg.Team = &o.Teams.Nodes[i]
				}
			}
			if pg.Team == nil {
				d.notFound(w, r, s)
				return
			}
			pg.OrgTab, pg.Title = "team", pg.Team.Name+" · "+o.Name
			if sub := strings.TrimPrefix(rest, "teams/"+t+"/"); sub == "edit/" || sub == "delete/" {
				if !o.ViewerIsOwner {
					d.notFound(w, r, s)
					return
				}
				pg.OrgTab = "team-" + strings.TrimSuffix(sub, "/")
				if pg.Form == nil && pg.OrgTab == "team-edit" {
					pg.Form = map[string]string{"name": pg.Team.Name, "access": pg.Team.Access, "auto_join_email_users": checked(pg.Team.AutoJoinEmailUsers)}
				}
			}
			if o.ViewerIsOwner {
				var err error
				pg.RevokePath = teamPage(r) + revokeSuffix
				if pg.Pending, err = d.pendingTeamInvitations(r, s, slug, t); err != nil {
					d.failed(w, r, s, err)
					return
				}
			}
		}
	}
	d.render(w, r, s, code, "organization", pg)
}

// pendingInvitation is a pending invitation as a team's or a project's
// page lists it; ID is its global id, which revokeInvitation takes.
type pendingInvitation struct {
	ID      string `json:"id"`
	ToEmail *string
	ToUser  *struct{ Username string }
	Expires string
	Expired bool
}

// Invitee is whom the invitation is for: a username or an address.
func (p *pendingInvitation) Invitee() string {
	if p.ToUser != nil {
		return p.ToUser.Username
	}
	return deref(p.ToEmail)
}

const teamInvitationsQuery = `query($slug: String!) { organization(slug: $slug) { teams(first: 100) { nodes {
	slug pendingInvitations(first: 100) { nodes { id toEmail toUser { username } expires expired } } } } } }`

// pendingTeamInvitations reads the pending invitations of the team (for
// the organization's owners).
func (d *Dashboard) pendingTeamInvitations(r *http.Request, s *session, org, teamSlug string) ([]pendingInvitation, error) {
	var out struct {
		Organization *struct {
			Teams struct {
				Nodes []struct {
					Slug               string
					PendingInvitations *struct{ Nodes []pendingInvitation }
				}
			}
		}
	}
	if err := d.run(r, s, teamInvitationsQuery, map[string]any{"slug": org}, &out); err != nil || out.Organization == nil {
		return nil, err
	}
	for _, t := range out.Organization.Teams.Nodes {
		if t.Slug == teamSlug && t.PendingInvitations != nil {
			return t.PendingInvitations.Nodes, nil
		}
	}
	return nil, nil
}

// snakeCase is an input field's name as errors name it (usernameOrEmail
// → username_or_email).
func snakeCase(name string) string {
	var b strings.Builder
	for _, r := range name {
		if r >= 'A' && r <= 'Z' {
			b.WriteByte('_')
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// notFoundOrForbidden reports whether err is a refusal the not-found
// page answers (an object the viewer may not see or change).
func notFoundOrForbidden(err error) bool {
	return errs.Is(err, errs.NotFound) || errs.Is(err, errs.Forbidden)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func (d *Dashboard) handleOrganizationEdit(w http.ResponseWriter, r *http.Request, s *session) {
	slug := r.PathValue("org")
	form := map[string]string{}
	input := map[string]any{"slug": slug}
	for _, k := range []string{"name", "email", "description", "url"} {
		form[k] = strings.TrimSpace(r.PostFormValue(k))
		input[k] = form[k]
	}
	err := d.run(r, s, updateOrganizationMutation, map[string]any{"input": input}, nil)
	d.organizationWritten(w, r, s, err, form, organizationFields, "edit/", "/organizations/"+url.PathEscape(slug)+"/")
}

func (d *Dashboard) handleTeamCreate(w http.ResponseWriter, r *http.Request, s *session) {
	slug := r.PathValue("org")
	form := map[string]string{"name": strings.TrimSpace(r.PostFormValue("name")), "access": r.PostFormValue("access")}
	var out struct {
		CreateTeam struct{ Team *struct{ Slug string } }
	}
	err := checkEnums(enumValue{"access", form["access"], teamAccesses})
	if err == nil {
		err = d.run(r, s, createTeamMutation, map[string]any{"input": map[string]any{"organization": slug, "name": form["name"], "access": form["access"]}}, &out)
	}
	if err != nil || out.CreateTeam.Team == nil {
		if notFoundOrForbidden(err) {
			d.failed(w, r, s, err)
			return
		}
		d.renderOrganization(w, r, s, formStatus(err), &page{Form: form, Errors: formErrorsOf(err, map[string]string{"name": "name", "access": "access"})}, "teams/")
		return
	}
	http.Redirect(w, r, "/organizations/"+slug+"/teams/"+out.CreateTeam.Team.Slug+"/", http.StatusSeeOther)
}

// handleTeamInvite adds a member to the team, or invites them: then the
// team's page shows, this once, whether the invitation was emailed or
// else its link to pass on.
func (d *Dashboard) handleTeamInvite(w http.ResponseWriter, r *http.Request, s *session) {
	var out struct{ AddTeamMember invitationSent }
	sent := &out.AddTeamMember
	if !d.teamChange(w, r, s, addTeamMemberMutation, "usernameOrEmail", "username", &out) {
		return
	}
	if sent.Invitation == nil {
		http.Redirect(w, r, teamPage(r), http.StatusSeeOther)
		return
	}
	d.renderOrganization(w, r, s, http.StatusOK, &page{Invited: sent.invited()}, "teams/"+r.PathValue("team")+"/")
}

// teamPage is the path of the page of the request's team.
func teamPage(r *http.Request) string {
	return "/organizations/" + url.PathEscape(r.PathValue("org")) + "/teams/" + url.PathEscape(r.PathValue("team")) + "/"
}

// handleTeamChange runs a team mutation whose input names the team and
// one more field, read from the form field formField; back to the team's
// page, with the message next to the field when the input is refused.
func (d *Dashboard) handleTeamChange(mutation, inputField, formField string) func(http.ResponseWriter, *http.Request, *session) {
	return func(w http.ResponseWriter, r *http.Request, s *session) {
		if d.teamChange(w, r, s, mutation, inputField, formField, nil) {
			http.Redirect(w, r, teamPage(r), http.StatusSeeOther)
		}
	}
}

// teamChange runs handleTeamChange's mutation into out and reports
// whether it passed; when it did not, the answer is written.
func (d *Dashboard) teamChange(w http.ResponseWriter, r *http.Request, s *session, mutation, inputField, formField string, out any) bool {
	org, t := r.PathValue("org"), r.PathValue("team")
	value := strings.TrimSpace(r.PostFormValue(formField))
	err := d.run(r, s, mutation, map[string]any{"input": map[string]any{"organization": org, "team": t, inputField: value}}, out)
	if err == nil {
		return true
	}
	d.organizationWritten(w, r, s, err, map[string]string{formField: value}, map[string]string{snakeCase(inputField): formField}, "teams/"+t+"/", "")
	return false
}
