package dashboard

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"docsd/graph"
	"docsd/internal/errs"
)

// The owners' pages of an organization: deleting it (after a confirmation
// page), its owners (invite, remove), a team's settings and its deletion,
// and the organization's security log; and the project settings form
// that moves a project into, out of or between organizations. Every write
// is a graph mutation, so the refusals and messages are the API's.

const (
	deleteOrganizationMutation      = `mutation($input: DeleteOrganizationInput!) { deleteOrganization(input: $input) { deletedId ` + graph.PayloadErrors + ` } }`
	inviteOrganizationOwnerMutation = `mutation($input: InviteOrganizationOwnerInput!) { inviteOrganizationOwner(input: $input) { url emailSent ` + graph.PayloadErrors + ` } }`
	removeOrganizationOwnerMutation = `mutation($input: RemoveOrganizationOwnerInput!) { removeOrganizationOwner(input: $input) { organization { slug } ` + graph.PayloadErrors + ` } }`
	updateTeamMutation              = `mutation($input: UpdateTeamInput!) { updateTeam(input: $input) { team { slug } ` + graph.PayloadErrors + ` } }`
	deleteTeamMutation              = `mutation($input: DeleteTeamInput!) { deleteTeam(input: $input) { deletedId ` + graph.PayloadErrors + ` } }`
	setProjectOrganizationMutation  = `mutation($input: SetProjectOrganizationInput!) { setProjectOrganization(input: $input) { project { slug } ` + graph.PayloadErrors + ` } }`
)

// orgSecurityLogQuery tells whether the viewer owns the organization
// whose security log is asked for.
const orgSecurityLogQuery = `query($slug: String!) { organization(slug: $slug) { slug name viewerIsOwner } }`

func (d *Dashboard) mountOrganizationSettings() {
	d.mux.HandleFunc("POST /organizations/{org}/delete/{$}", d.signedIn(d.handleOrganizationDelete))
	d.mux.HandleFunc("POST /organizations/{org}/owners/invite/{$}", d.signedIn(d.handleOwnerInvite))
	d.mux.HandleFunc("POST /organizations/{org}/owners/remove/{$}", d.signedIn(d.handleOwnerRemove))
	d.mux.HandleFunc("POST /organizations/{org}/teams/{team}/edit/{$}", d.signedIn(d.handleTeamEdit))
	d.mux.HandleFunc("POST /organizations/{org}/teams/{team}/delete/{$}", d.signedIn(d.handleTeamDelete))
	d.mux.HandleFunc("GET /organizations/{org}/security-log/{$}", d.withToken(d.handleOrganizationSecurityLog))
	d.mux.HandleFunc("POST /projects/{slug}/edit/organization/{$}", d.signedIn(d.handleProjectOrganization))
}

// organizationWritten ends an organization form's POST after its
// mutation: a refusal (an organization or team the viewer may not see or
// change) is the not-found page; a message goes next to its field, the
// form shown again as typed on the page named by rest (see
// renderOrganization); success goes to next.
func (d *Dashboard) organizationWritten(w http.ResponseWriter, r *http.Request, s *session, err error, form, fields map[string]string, rest, next string) {
	d.formWritten(w, r, s, err, next, form, fields, func(code int, pg *page) { d.renderOrganization(w, r, s, code, pg, rest) })
}

// formWritten ends a form's POST after its mutation (err): on success
// to next; a refused input back to its page (render) with the API's
// messages next to the form's fields (fields maps the API's field names
// to the form's); anything else as the failure it is.
func (d *Dashboard) formWritten(w http.ResponseWriter, r *http.Request, s *session, err error, next string, form, fields map[string]string, render func(code int, pg *page)) {
	if err == nil {
		http.Redirect(w, r, next, http.StatusSeeOther)
		return
	}
	if notFoundOrForbidden(err) || formStatus(err) >= 500 {
		d.failed(w, r, s, err)
		return
	}
	render(formStatus(err), &page{Form: form, Errors: formErrorsOf(err, fields)})
}

// handleOrganizationDelete deletes the organization once its delete page
// is confirmed; one that still has projects stays, with the API's message.
func (d *Dashboard) handleOrganizationDelete(w http.ResponseWriter, r *http.Request, s *session) {
	org := r.PathValue("org")
	err := d.run(r, s, deleteOrganizationMutation, map[string]any{"input": map[string]any{"slug": org}}, nil)
	d.organizationWritten(w, r, s, err, nil, nil, "delete/", "/organizations/")
}

// handleOwnerInvite invites a user to become an owner; the invitation's
// link is shown once when it was not emailed.
func (d *Dashboard) handleOwnerInvite(w http.ResponseWriter, r *http.Request, s *session) {
	org := r.PathValue("org")
	invitee := strings.TrimSpace(r.PostFormValue("username"))
	var out struct {
		InviteOrganizationOwner struct {
			URL       *string `json:"url"`
			EmailSent bool
		}
	}
	err := d.run(r, s, inviteOrganizationOwnerMutation, map[string]any{"input": map[string]any{"organization": org, "usernameOrEmail": invitee}}, &out)
	if err != nil {
		d.organizationWritten(w, r, s, err, map[string]string{"username": invitee}, map[string]string{"username_or_email": "username"}, "owners/", "")
		return
	}
	pg := &page{Alert: "Invitation emailed to " + invitee + "."}
	if in := out.InviteOrganizationOwner; !in.EmailSent && in.URL != nil {
		pg.Alert, pg.InviteURL = "Copy this link to "+invitee, *in.URL
	}
	d.renderOrganization(w, r, s, http.StatusOK, pg, "owners/")
}

// handleOwnerRemove removes an owner (the last one stays, with the API's
// message).
func (d *Dashboard) handleOwnerRemove(w http.ResponseWriter, r *http.Request, s *session) {
	org := r.PathValue("org")
	username := strings.TrimSpace(r.PostFormValue("username"))
	err := d.run(r, s, removeOrganizationOwnerMutation, map[string]any{"input": map[string]any{"organization": org, "username": username}}, nil)
	next := "/organizations/" + url.PathEscape(org) + "/owners/"
	if err == nil && username == s.viewer.User.Username {
		next = "/organizations/" // no longer an owner: the owners page is closed to them
	}
	d.organizationWritten(w, r, s, err, nil, map[string]string{"username": ""}, "owners/", next)
}

// teamFields maps updateTeam's field names to the team form's.
var teamFields = map[string]string{"name": "name", "access": "access", "auto_join_email_users": "auto_join_email_users"}

// handleTeamEdit writes a team's name, access and auto-join setting.
func (d *Dashboard) handleTeamEdit(w http.ResponseWriter, r *http.Request, s *session) {
	org, t := r.PathValue("org"), r.PathValue("team")
	form := map[string]string{"name": strings.TrimSpace(r.PostFormValue("name")), "access": r.PostFormValue("access"),
		"auto_join_email_users": checked(r.PostFormValue("auto_join_email_users") == "on")}
	err := checkEnums(enumValue{"access", form["access"], teamAccesses})
	if err == nil {
		err = d.run(r, s, updateTeamMutation, map[string]any{"input": map[string]any{"organization": org, "slug": t,
			"name": form["name"], "access": form["access"], "autoJoinEmailUsers": form["auto_join_email_users"] == "on"}}, nil)
	}
	d.organizationWritten(w, r, s, err, form, teamFields, "teams/"+t+"/edit/",
		"/organizations/"+url.PathEscape(org)+"/teams/"+url.PathEscape(t)+"/")
}

// handleTeamDelete deletes a team once its delete page is confirmed.
func (d *Dashboard) handleTeamDelete(w http.ResponseWriter, r *http.Request, s *session) {
	org, t := r.PathValue("org"), r.PathValue("team")
	err := d.run(r, s, deleteTeamMutation, map[string]any{"input": map[string]any{"organization": org, "slug": t}}, nil)
	d.organizationWritten(w, r, s, err, nil, nil, "teams/"+t+"/delete/", "/organizations/"+url.PathEscape(org)+"/teams/")
}

// handleOrganizationSecurityLog answers the organization's security log
// and its CSV: its owners' (and superusers') alone. Other members, who
// may read some of its entries through the audit API (their own, their
// projects'), get the not-found page, as for the owners' other pages.
func (d *Dashboard) handleOrganizationSecurityLog(w http.ResponseWriter, r *http.Request, s *session) {
	var out struct{ Organization *organization }
	err := d.run(r, s, orgSecurityLogQuery, map[string]any{"slug": r.PathValue("org")}, &out)
	if err != nil {
		d.failed(w, r, s, err)
		return
	}
	if out.Organization == nil || !(out.Organization.ViewerIsOwner || s.viewer.User.IsSuperuser) {
		d.notFound(w, r, s)
		return
	}
	o := out.Organization
	filter, form := auditFilterOf(r.URL.Query())
	if p := strings.TrimSpace(r.URL.Query().Get("project")); p != "" {
		filter["project"], form["project"] = p, p
	}
	filter["organization"] = o.Slug
	d.securityLog(w, r, s, securityLogOf{org: o}, filter, form, "docsd_organization_security_logs_"+o.Slug, true)
}

// handleProjectOrganization moves a project into, out of (an empty
// organization) or between organizations, adding it to the listed teams of
// the organization it is in afterwards; who may is the graph's rule
// (owners of each organization concerned, admins of the project).
func (d *Dashboard) handleProjectOrganization(w http.ResponseWriter, r *http.Request, s *session) {
	p, ok := d.loadSettings(w, r, s)
	if !ok {
		return
	}
	form := settingsForm(p)
	form["organization"], form["teams"] = strings.TrimSpace(r.PostFormValue("organization")), strings.TrimSpace(r.PostFormValue("teams"))
	if form["organization"] == deref(p.OrganizationSlug) && form["teams"] == "" {
		http.Redirect(w, r, "/projects/"+p.Slug+"/edit/", http.StatusSeeOther) // nothing to change
		return
	}
	input := map[string]any{"slug": p.Slug, "organization": nil}
	if form["organization"] != "" {
		input["organization"] = form["organization"]
	}
	if form["teams"] != "" {
		input["teams"] = splitTags(form["teams"])
	}
	err := d.run(r, s, setProjectOrganizationMutation, map[string]any{"input": input}, nil)
	if err != nil {
		// The project is the viewer's to see: a refusal is about the
		// organizations, told next to the field.
		switch {
		case errs.Is(err, errs.NotFound):
			err = errs.FieldError("dashboard.projectOrganization", "organization", fmt.Sprintf("Object with slug=%s does not exist.", form["organization"]))
		case errs.Is(err, errs.Forbidden):
			err = errs.FieldError("dashboard.projectOrganization", "organization", msgMoveNotOwner)
		}
		d.renderSettings(w, r, s, formStatus(err), &page{Project: p, Form: form, Admin: adminForm(p),
			Errors: formErrorsOf(err, map[string]string{"organization": "organization", "teams": "teams"})})
		return
	}
	http.Redirect(w, r, "/projects/"+p.Slug+"/edit/#organization", http.StatusSeeOther)
}

// msgMoveNotOwner answers a move the graph refuses: only owners of the
// organizations it leaves and joins move a project (and its admins).
const msgMoveNotOwner = "Only owners of the organizations concerned may move the project."

// renderSettings renders the project settings page, with the viewer's
// organizations as the organization form's choices.
func (d *Dashboard) renderSettings(w http.ResponseWriter, r *http.Request, s *session, code int, pg *page) {
	pg.Title = "Settings · " + pg.Project.Name
	d.renderWithOrganizations(w, r, s, code, "settings", pg)
}
