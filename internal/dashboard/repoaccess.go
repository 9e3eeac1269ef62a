package dashboard

import (
	"net/http"
	"strings"

	"docsd/graph"
)

// The repository access page (/projects/<slug>/keys/) shows the project's
// deploy key, its known hosts and its HTTPS credentials (never the token),
// with a form for each; every form runs one mutation and comes back to the
// page, or shows it again with the API's messages next to the fields.

const repositoryAccessQuery = `query($slug: String!) {
	project(slug: $slug) {
		` + projectFields + `
		sshKey { type publicKey fingerprint created }
		sshKnownHosts { host keyType fingerprint line learned }
		repositoryCredentials { username created modified }
	}
}`

const (
	createSSHKeyMutation                = `mutation($input: CreateSshKeyInput!) { createSshKey(input: $input) { project { slug } ` + graph.PayloadErrors + ` } }`
	deleteSSHKeyMutation                = `mutation($input: DeleteSshKeyInput!) { deleteSshKey(input: $input) { project { slug } ` + graph.PayloadErrors + ` } }`
	setKnownHostsMutation               = `mutation($input: SetSshKnownHostsInput!) { setSshKnownHosts(input: $input) { project { slug } ` + graph.PayloadErrors + ` } }`
	setRepositoryCredentialsMutation    = `mutation($input: SetRepositoryCredentialsInput!) { setRepositoryCredentials(input: $input) { project { slug } ` + graph.PayloadErrors + ` } }`
	deleteRepositoryCredentialsMutation = `mutation($input: DeleteRepositoryCredentialsInput!) { deleteRepositoryCredentials(input: $input) { project { slug } ` + graph.PayloadErrors + ` } }`
)

// repositoryAccessFields maps the mutations' field names to the page's
// form fields; messages about a whole input go with the form they came
// from (repositoryAccessAction.whole).
var repositoryAccessFields = map[string]string{"known_hosts": "known_hosts", "username": "username", "password": "password"}

// repositoryAccessAction is one form of the page.
type repositoryAccessAction struct {
	path     string // after /projects/<slug>/keys/
	mutation string
	// whole is the form field that messages about the whole input are
	// shown at (the form's own message).
	whole string
	input func(r *http.Request) map[string]any
	// keep are the form values shown again after a failure (never the
	// token).
	keep []string
}

var repositoryAccessActions = []repositoryAccessAction{
	{path: "ssh-key/", mutation: createSSHKeyMutation, whole: "ssh_key",
		input: func(r *http.Request) map[string]any {
			return map[string]any{"rotate": r.PostFormValue("rotate") == "on"}
		}},
	{path: "ssh-key/delete/", mutation: deleteSSHKeyMutation, whole: "ssh_key",
		input: func(*http.Request) map[string]any { return map[string]any{} }},
	{path: "known-hosts/", mutation: setKnownHostsMutation, whole: "known_hosts", keep: []string{"known_hosts"},
		input: func(r *http.Request) map[string]any {
			return map[string]any{"knownHosts": r.PostFormValue("known_hosts")}
		}},
	{path: "credentials/", mutation: setRepositoryCredentialsMutation, whole: "credentials", keep: []string{"username"},
		input: func(r *http.Request) map[string]any {
			return map[string]any{"username": strings.TrimSpace(r.PostFormValue("username")), "password": r.PostFormValue("password")}
		}},
	{path: "credentials/delete/", mutation: deleteRepositoryCredentialsMutation, whole: "credentials",
		input: func(*http.Request) map[string]any { return map[string]any{} }},
}

// mountRepositoryAccess routes the page and its forms.
func (d *Dashboard) mountRepositoryAccess() {
	d.mux.HandleFunc("GET /projects/{slug}/keys/{$}", d.signedIn(d.handleRepositoryAccess))
	for _, a := range repositoryAccessActions {
		d.mux.HandleFunc("POST /projects/{slug}/keys/"+a.path+"{$}", d.signedIn(a.handle(d)))
	}
}

func (d *Dashboard) handleRepositoryAccess(w http.ResponseWriter, r *http.Request, s *session) {
	p, ok := d.loadMaintained(w, r, s, repositoryAccessQuery, map[string]any{})
	if !ok {
		return
	}
	form := map[string]string{"known_hosts": knownHostsText(p)}
	if p.RepositoryCredentials != nil {
		form["username"] = p.RepositoryCredentials.Username
	}
	d.render(w, r, s, http.StatusOK, "keys", &page{Title: "Repository access · " + p.Name, Project: p, Form: form})
}

// knownHostsText is the project's known hosts as the form edits them.
func knownHostsText(p *project) string {
	var b strings.Builder
	for _, h := range p.SSHKnownHosts {
		b.WriteString(h.Line + "\n")
	}
	return b.String()
}

// handle runs the form's mutation and goes back to the page.
func (a repositoryAccessAction) handle(d *Dashboard) func(http.ResponseWriter, *http.Request, *session) {
	return func(w http.ResponseWriter, r *http.Request, s *session) {
		p, ok := d.loadMaintained(w, r, s, repositoryAccessQuery, map[string]any{})
		if !ok {
			return
		}
		input := a.input(r)
		input["slug"] = p.Slug
		err := d.run(r, s, a.mutation, map[string]any{"input": input}, nil)
		if err == nil {
			http.Redirect(w, r, "/projects/"+p.Slug+"/keys/", http.StatusSeeOther)
			return
		}
		fields := map[string]string{}
		for k, v := range repositoryAccessFields {
			fields[k] = v
		}
		fields["non_field_errors"] = a.whole
		e := formErrorsOf(err, fields)
		if msg, ok := e[""]; ok {
			if len(e) == 1 && formStatus(err) == http.StatusNotFound {
				d.failed(w, r, s, err)
				return
			}
			delete(e, "")
			e[a.whole] = msg
		}
		form := map[string]string{"known_hosts": knownHostsText(p)}
		if p.RepositoryCredentials != nil {
			form["username"] = p.RepositoryCredentials.Username
		}
		for _, k := range a.keep {
			form[k] = r.PostFormValue(k)
		}
		d.render(w, r, s, formStatus(err), "keys", &page{Title: "Repository access · " + p.Name, Project: p, Form: form, Errors: e})
	}
}
