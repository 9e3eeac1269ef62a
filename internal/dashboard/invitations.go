package dashboard

import (
	"net/http"
	"net/url"

	"docsd/graph"
	"docsd/internal/accounts"
	"docsd/internal/errs"
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
	d.mux.HandleFunc("POST /invitations/{token}/{$}", d.viewer(d.handleInvitationAnswer))
}

// invitationCSRFPath is the path of the double-submit CSRF cookie of the
// sign-up form (a visitor who signs up has no session yet).
const invitationCSRFPath = "/invitations/"

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

// signUpOffered reports whether a visitor who is not signed in may
// accept by creating an account: only for an invitation to an email
// address (one for a named user is that user's to accept), and only when
// the server lets invitations create accounts and lets anyone sign in.
// The page shows the form unless the invitation has expired.
func (d *Dashboard) signUpOffered(inv *invitation) bool {
	return inv.ToUser == nil && inv.ToEmail != nil && d.cfg.SignInRefused == "" && d.cfg.Accounts.SignUpOpen()
}

// invitationPage is the invitation page of inv for session s.
func (d *Dashboard) invitationPage(w http.ResponseWriter, r *http.Request, s *session, inv *invitation) *page {
	p := &page{Title: "Invitation", Invitation: inv, Next: "/accounts/login/?next=" + url.QueryEscape(r.URL.Path)}
	if s.viewer.User == nil && !inv.Expired && d.signUpOffered(inv) {
		p.SignUp, p.CSRF = true, d.anonymousCSRF(w, r, invitationCSRFPath)
	}
	return p
}

func (d *Dashboard) handleInvitation(w http.ResponseWriter, r *http.Request, s *session) {
	inv, ok := d.loadInvitation(w, r, s)
	if !ok {
		return
	}
	d.render(w, r, s, http.StatusOK, "invitation", d.invitationPage(w, r, s, inv))
}

// handleInvitationAnswer accepts or declines as the signed-in user; a
// visitor who is not signed in may accept by creating an account where
// the page offers it, and is otherwise sent to sign in first (302, back
// to the invitation afterwards).
func (d *Dashboard) handleInvitationAnswer(w http.ResponseWriter, r *http.Request, s *session) {
	inv, ok := d.loadInvitation(w, r, s)
	if !ok {
		return
	}
	if s.viewer.User == nil {
		if r.PostFormValue("accept") != "" && r.PostForm.Has("username") && d.signUpOffered(inv) {
			d.handleInvitationSignUp(w, r, s, inv)
			return
		}
		http.Redirect(w, r, "/accounts/login/?next="+url.QueryEscape(r.URL.Path), http.StatusFound)
		return
	}
	if !accounts.ValidCSRF(s.value, r.PostFormValue(accounts.CSRFField)) {
		d.forbiddenCSRF(w, r, s)
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
	var out struct{ AcceptInvitation joined }
	if err := d.run(r, s, acceptInvitationMutation, input, &out); err != nil {
		code := formStatus(err)
		if code == http.StatusNotFound {
			d.failed(w, r, s, err)
			return
		}
		p := d.invitationPage(w, r, s, inv)
		p.Errors = formErrorsOf(err, map[string]string{"token": ""})
		d.render(w, r, s, code, "invitation", p)
		return
	}
	http.Redirect(w, r, out.AcceptInvitation.page(), http.StatusFound)
}

// handleInvitationSignUp creates an account from the sign-up form, which
// accepts the invitation, signs the new user in and sends them to what
// they joined; a refused form comes back with the messages by its fields.
func (d *Dashboard) handleInvitationSignUp(w http.ResponseWriter, r *http.Request, s *session, inv *invitation) {
	p := d.invitationPage(w, r, s, inv)
	username := r.PostFormValue("username")
	p.Form = map[string]string{"username": username}
	if c, err := r.Cookie(loginCSRFCookie); err != nil || c.Value == "" || r.PostFormValue(accounts.CSRFField) != c.Value {
		p.Errors = formErrors{"": "CSRF verification failed. Reload the page and try again."}
		d.render(w, r, s, http.StatusForbidden, "invitation", p)
		return
	}
	up, err := d.cfg.Accounts.SignUpByInvitation(r.Context(), r.PathValue("token"), username, r.PostFormValue("password"))
	if err != nil {
		if errs.Is(err, errs.NotFound) {
			d.failed(w, r, s, err)
			return
		}
		p.Errors = formErrorsOf(err, map[string]string{"username": "username", "password": "password", "token": ""})
		d.render(w, r, s, formStatus(err), "invitation", p)
		return
	}
	d.audit(r, accounts.AuditEvent{Action: accounts.ActionInvitationAccepted, User: up.User, AuthBackend: accounts.BackendPassword, Invitation: up.Invitation})
	d.audit(r, accounts.AuditEvent{Action: accounts.ActionAuthentication, AuthBackend: accounts.BackendPassword, User: up.User, Username: up.User.Username})
	d.setSessionCookie(w, up.Session)
	// The target as the page read it: a team's invitation names its
	// organization too.
	j := joined{Organization: inv.Organization}
	if inv.Project != nil {
		j = joined{Project: inv.Project}
	}
	http.Redirect(w, r, j.page(), http.StatusFound)
}

// joined is what an accepted invitation joined.
type joined struct {
	Organization, Team, Project *struct{ Slug string }
}

// page is where a user goes after joining: the organization's page for
// an owner or team invitation, the project's for a maintainer one.
func (j joined) page() string {
	switch {
	case j.Organization != nil:
		return "/organizations/" + url.PathEscape(j.Organization.Slug) + "/"
	case j.Project != nil:
		return "/projects/" + url.PathEscape(j.Project.Slug) + "/"
	}
	return "/dashboard/"
}

// invitationSent is the payload of a mutation that invites.
type invitationSent struct {
	Invitation *struct {
		ToEmail *string
		ToUser  *struct{ Username string }
	}
	URL       *string `json:"url"`
	EmailSent bool
}

// invited is an invitation just made, as its page shows it once: who
// was invited, and either that the email went out or the link to pass
// on.
type invited struct {
	To        string
	EmailSent bool
	URL       string
}

// invited is what the page shows of s (its Invitation is set).
func (s *invitationSent) invited() *invited {
	out := &invited{EmailSent: s.EmailSent}
	if s.Invitation.ToUser != nil {
		out.To = s.Invitation.ToUser.Username
	} else if s.Invitation.ToEmail != nil {
		out.To = *s.Invitation.ToEmail
	}
	if s.URL != nil {
		out.URL = *s.URL
	}
	return out
}
