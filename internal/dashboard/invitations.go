package dashboard

import (
	"net/http"
	"net/url"

	"docsd/graph"
)

// The invitation page ({public_url}/invitations/<token>/): who invited
// the visitor to what, with Accept and Decline in one CSRF-protected form
// (the button named accept accepts); through Query.invitation,
// acceptInvitation and declineInvitation.

type invitation struct {
	ObjectType   string
	Organization *struct{ Slug string }
	Team         *struct{ Slug string }
	Project      *struct{ Slug string }
	FromUser     *struct{ Username string }
	ToUser       *struct{ Username string }
	ToEmail      *string
	Expired      bool
}

// Description is the invitation's object as Read the Docs words it:
// "acme organization", "acme read-only team", "handbook project".
func (i *invitation) Description() string {
	switch {
	case i.Team != nil && i.Organization != nil:
		return i.Organization.Slug + " " + i.Team.Slug + " team"
	case i.Project != nil:
		return i.Project.Slug + " project"
	case i.Organization != nil:
		return i.Organization.Slug + " organization"
	}
	return i.ObjectType
}

// From is the inviter's username ("Someone" once that user is deleted).
func (i *invitation) From() string {
	if i.FromUser == nil {
		return "Someone"
	}
	return i.FromUser.Username
}

const invitationQuery = `query($token: String!) {
	invitation(token: $token) { objectType organization { slug } team { slug } project { slug } fromUser { username } toUser { username } toEmail expired }
}`

const acceptInvitationMutation = `mutation($input: AcceptInvitationInput!) {
	acceptInvitation(input: $input) { organization { slug } team { slug } project { slug } ` + graph.PayloadErrors + ` }
}`

const declineInvitationMutation = `mutation($input: DeclineInvitationInput!) {
	declineInvitation(input: $input) { deletedId ` + graph.PayloadErrors + ` }
}`

func (d *Dashboard) mountInvitations() {
	d.mux.HandleFunc("GET /invitations/{token}/{$}", d.viewer(d.handleInvitation))
	d.mux.HandleFunc("POST /invitations/{token}/{$}", d.signedIn(d.handleInvitationAnswer))
}

// loadInvitation reads the invitation of the path's token; an unknown
// token answers the 404 page (never a trip to the sign-in page).
func (d *Dashboard) loadInvitation(w http.ResponseWriter, r *http.Request, s *session) (*invitation, bool) {
	var out struct{ Invitation *invitation }
	if err := d.run(r, s, invitationQuery, map[string]any{"token": r.PathValue("token")}, &out); err != nil {
		d.failed(w, r, s, err)
		return nil, false
	}
	if out.Invitation == nil {
		d.render(w, r, s, http.StatusNotFound, "notfound", &page{Title: "Not found"})
		return nil, false
	}
	return out.Invitation, true
}

func (d *Dashboard) handleInvitation(w http.ResponseWriter, r *http.Request, s *session) {
	inv, ok := d.loadInvitation(w, r, s)
	if !ok {
		return
	}
	d.render(w, r, s, http.StatusOK, "invitation", &page{Title: "Invitation", Invitation: inv,
		Next: "/accounts/login/?next=" + url.QueryEscape(r.URL.Path)})
}

func (d *Dashboard) handleInvitationAnswer(w http.ResponseWriter, r *http.Request, s *session) {
	inv, ok := d.loadInvitation(w, r, s)
	if !ok {
		return
	}
	input := map[string]any{"input": map[string]any{"token": r.PathValue("token")}}
	if r.PostFormValue("accept") == "" {
		if err := d.run(r, s, declineInvitationMutation, input, nil); err != nil {
			d.failed(w, r, s, err)
			return
		}
		http.Redirect(w, r, "/", http.StatusFound)
		return
	}
	var out struct {
		AcceptInvitation struct {
			Organization, Team, Project *struct{ Slug string }
		}
	}
	if err := d.run(r, s, acceptInvitationMutation, input, &out); err != nil {
		code := formStatus(err)
		if code == http.StatusNotFound {
			d.failed(w, r, s, err)
			return
		}
		d.render(w, r, s, code, "invitation", &page{Title: "Invitation", Invitation: inv, Errors: formErrorsOf(err, map[string]string{"token": ""})})
		return
	}
	switch a := out.AcceptInvitation; {
	case a.Organization != nil:
		http.Redirect(w, r, "/organizations/"+url.PathEscape(a.Organization.Slug)+"/", http.StatusFound)
	case a.Project != nil:
		http.Redirect(w, r, "/projects/"+url.PathEscape(a.Project.Slug)+"/", http.StatusFound)
	default:
		http.Redirect(w, r, "/dashboard/", http.StatusFound)
	}
}
