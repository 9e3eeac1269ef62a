package dashboard

import (
	"net/http"
	"net/url"
	"strings"

	"docsd/graph"
)

// The maintainers page's invitations (/projects/<slug>/users/): inviting
// a user or an email address to become a direct maintainer
// (inviteMaintainer), the project's pending invitations
// (Project.pendingInvitations) and revoking one (revokeInvitation). The
// graph decides who may; the page is the maintainers' like the rest of
// the collection.

const (
	inviteMaintainerMutation = `mutation($input: InviteMaintainerInput!) { inviteMaintainer(input: $input) { invitation { toEmail toUser { username } } url emailSent ` + graph.PayloadErrors + ` } }`
	revokeInvitationMutation = `mutation($input: RevokeInvitationInput!) { revokeInvitation(input: $input) { deletedId ` + graph.PayloadErrors + ` } }`
)

const projectInvitationsQuery = `query($slug: String!) { project(slug: $slug) {
	pendingInvitations(first: 100) { nodes { id toEmail toUser { username } expires expired } } } }`

// maintainerInviteFields maps inviteMaintainer's field names to the
// invite form's.
var maintainerInviteFields = map[string]string{"username_or_email": "invitee"}

// revokeSuffix is the path, under a page with pending invitations, that
// its Revoke buttons post to.
const revokeSuffix = "invitations/revoke/"

// maintainersPath is the path of the maintainers page of the project.
func maintainersPath(slug string) string {
	return "/projects/" + url.PathEscape(slug) + "/users/"
}

// pendingProjectInvitations reads the project's pending invitations.
func (d *Dashboard) pendingProjectInvitations(r *http.Request, s *session, slug string) ([]pendingInvitation, error) {
	var out struct {
		Project *struct {
			PendingInvitations *struct{ Nodes []pendingInvitation }
		}
	}
	if err := d.run(r, s, projectInvitationsQuery, map[string]any{"slug": slug}, &out); err != nil {
		return nil, err
	}
	if out.Project == nil || out.Project.PendingInvitations == nil {
		return nil, nil
	}
	return out.Project.PendingInvitations.Nodes, nil
}

// maintainerInvitations adds the project's pending invitations to its
// maintainers page (the list, and the add form shown again), with the
// path their Revoke buttons post to.
func maintainerInvitations(d *Dashboard, r *http.Request, s *session, p *project, pg *page) {
	pg.RevokePath = maintainersPath(p.Slug) + revokeSuffix
	pending, err := d.pendingProjectInvitations(r, s, p.Slug)
	if err != nil && pg.Errors == nil {
		pg.Errors = formErrorsOf(err, nil) // the form's own messages first
	}
	pg.Pending = pending
}

// handleMaintainerInvite invites a user or an email address to become a
// direct maintainer; the maintainers page then shows, this once, whether
// the invitation was emailed or else its link to pass on. A refused
// invitee is shown again with the message next to the field.
func (d *Dashboard) handleMaintainerInvite(w http.ResponseWriter, r *http.Request, s *session) {
	p, ok := d.loadMaintained(w, r, s, maintainersQuery, map[string]any{})
	if !ok {
		return
	}
	invitee := strings.TrimSpace(r.PostFormValue("invitee"))
	var out struct{ InviteMaintainer invitationSent }
	err := d.run(r, s, inviteMaintainerMutation, map[string]any{"input": map[string]any{"slug": p.Slug, "usernameOrEmail": invitee}}, &out)
	if err != nil && (notFoundOrForbidden(err) || formStatus(err) >= 500) {
		d.failed(w, r, s, err)
		return
	}
	pg := &page{Title: "Maintainers · " + p.Name, Project: p, Form: map[string]string{"username": ""},
		RevokePath: maintainersPath(p.Slug) + revokeSuffix}
	code := http.StatusOK
	if err != nil {
		code, pg.Errors, pg.Form["invitee"] = formStatus(err), formErrorsOf(err, maintainerInviteFields), invitee
	} else if out.InviteMaintainer.Invitation != nil {
		pg.Invited = out.InviteMaintainer.invited()
	}
	if pg.Pending, err = d.pendingProjectInvitations(r, s, p.Slug); err != nil {
		d.failed(w, r, s, err)
		return
	}
	d.render(w, r, s, code, "users", pg)
}

// handleRevokeInvitation revokes the invitation whose global id the form
// names, then goes back to the page at next(r); a refusal is the
// not-found page.
func (d *Dashboard) handleRevokeInvitation(next func(*http.Request) string) func(http.ResponseWriter, *http.Request, *session) {
	return func(w http.ResponseWriter, r *http.Request, s *session) {
		input := map[string]any{"id": r.PostFormValue("id")}
		if err := d.run(r, s, revokeInvitationMutation, map[string]any{"input": input}, nil); err != nil {
			d.failed(w, r, s, err)
			return
		}
		http.Redirect(w, r, next(r), http.StatusSeeOther)
	}
}

func (d *Dashboard) mountMaintainerInvitations() {
	d.mux.HandleFunc("POST /projects/{slug}/users/invite/{$}", d.signedIn(d.handleMaintainerInvite))
	d.mux.HandleFunc("POST /projects/{slug}/users/"+revokeSuffix+"{$}", d.signedIn(d.handleRevokeInvitation(func(r *http.Request) string {
		return maintainersPath(r.PathValue("slug"))
	})))
}
