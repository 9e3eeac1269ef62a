package dashboard

import (
	"net/http"
	"strconv"
	"strings"

	"docsd/graph"
)

// The sharing page of a project (/projects/<p>/sharing/, admins only):
// its sharing methods with their links and tokens (copy buttons), a form
// that adds one, and a delete button per method; through
// Project.sharingMethods, createSharingMethod and deleteSharingMethod.

type sharingMethod struct {
	ID          int64 `json:"databaseId"`
	AccessType  string
	AllowAll    bool
	Description string
	Expires     string
	LastUsedAt  *string
	Token       string
	URL         *string `json:"url"`
	Versions    []string
}

const sharingQuery = `query($slug: String!) {
	project(slug: $slug) {
		` + projectFields + `
		versions(filter: { active: true }, first: 100) { nodes { slug verboseName privacyLevel } }
		sharingMethods(limit: 100) { totalCount nodes { databaseId accessType allowAll description expires lastUsedAt token url versions } }
	}
}`

const createSharingMutation = `mutation($input: CreateSharingMethodInput!) {
	createSharingMethod(input: $input) { sharingMethod { databaseId } ` + graph.PayloadErrors + ` }
}`

const sharingMethodQuery = `query($slug: String!, $id: Int!) {
	project(slug: $slug) {
		` + projectFields + `
		versions(filter: { active: true }, first: 100) { nodes { slug verboseName privacyLevel } }
		sharingMethod(id: $id) { databaseId accessType allowAll description expires lastUsedAt token url versions }
	}
}`

const updateSharingMutation = `mutation($input: UpdateSharingMethodInput!) {
	updateSharingMethod(input: $input) { sharingMethod { databaseId } ` + graph.PayloadErrors + ` }
}`

const deleteSharingMutation = `mutation($input: DeleteSharingMethodInput!) {
	deleteSharingMethod(input: $input) { deletedId ` + graph.PayloadErrors + ` }
}`

// sharingFormFields maps createSharingMethod's field names to the form's.
var sharingFormFields = map[string]string{"access_type": "access_type", "password": "password", "allow_all": "versions",
	"versions": "versions", "description": "description", "expires": "expires", "non_field_errors": ""}

// sharingTypes are the form's choices of access type.
var sharingTypeNames = map[string]string{"token": "Secret link", "password": "Link and password", "http_header_token": "HTTP header token"}

func (d *Dashboard) mountSharing() {
	d.mux.HandleFunc("GET /projects/{slug}/sharing/{$}", d.signedIn(d.handleSharing))
	d.mux.HandleFunc("POST /projects/{slug}/sharing/{$}", d.signedIn(d.handleSharingCreate))
	d.mux.HandleFunc("GET /projects/{slug}/sharing/{id}/{$}", d.signedIn(d.handleSharingEdit))
	d.mux.HandleFunc("POST /projects/{slug}/sharing/{id}/{$}", d.signedIn(d.handleSharingUpdate))
	d.mux.HandleFunc("POST /projects/{slug}/sharing/{id}/delete/{$}", d.signedIn(d.handleSharingDelete))
}

func (d *Dashboard) handleSharing(w http.ResponseWriter, r *http.Request, s *session) {
	d.renderSharing(w, r, s, http.StatusOK, map[string]string{"access_type": "token"}, nil)
}

func (d *Dashboard) renderSharing(w http.ResponseWriter, r *http.Request, s *session, code int, form map[string]string, e formErrors) {
	p, ok := d.loadMaintained(w, r, s, sharingQuery, map[string]any{})
	if !ok {
		return
	}
	d.render(w, r, s, code, "sharing", &page{Title: "Sharing · " + p.Name, Project: p, Form: form, Errors: e,
		SharingTypes: sharingTypeNames})
}

// sharingFormOf reads the versions ticked and the other fields of a
// sharing form, as the form and as the mutation's input (no versions
// ticked: every active version; an empty password or expiry: not sent).
func sharingFormOf(r *http.Request, fields ...string) (map[string]string, map[string]any) {
	r.ParseForm()
	form := map[string]string{}
	for _, k := range fields {
		form[k] = strings.TrimSpace(r.PostFormValue(k))
	}
	versions := r.PostForm["versions"]
	input := map[string]any{"slug": r.PathValue("slug"), "description": form["description"], "allowAll": len(versions) == 0}
	if len(versions) > 0 {
		input["versions"] = versions
		form["versions"] = strings.Join(versions, ",")
	}
	if form["expires"] != "" {
		input["expires"] = form["expires"]
	}
	if pw := r.PostFormValue("password"); pw != "" {
		input["password"] = pw
	}
	return form, input
}

// loadSharingMethod loads the project (admins only) with the method the
// path names; a malformed or unknown id is the 404 page.
func (d *Dashboard) loadSharingMethod(w http.ResponseWriter, r *http.Request, s *session) (*project, bool) {
	id, ok := pathID(r)
	if !ok {
		d.notFound(w, r, s)
		return nil, false
	}
	p, ok := d.loadMaintained(w, r, s, sharingMethodQuery, map[string]any{"id": id})
	if ok && p.SharingMethod == nil {
		d.notFound(w, r, s)
		return nil, false
	}
	return p, ok
}

func (d *Dashboard) handleSharingEdit(w http.ResponseWriter, r *http.Request, s *session) {
	p, ok := d.loadSharingMethod(w, r, s)
	if !ok {
		return
	}
	m := p.SharingMethod
	form := map[string]string{"description": m.Description, "expires": m.Expires, "versions": strings.Join(m.Versions, ",")}
	d.render(w, r, s, http.StatusOK, "sharingmethod", &page{Title: "Edit sharing method · " + p.Name, Project: p, Form: form, SharingTypes: sharingTypeNames})
}

// handleSharingUpdate saves the edit form in one updateSharingMethod, and
// shows it again with the API's messages on failure.
func (d *Dashboard) handleSharingUpdate(w http.ResponseWriter, r *http.Request, s *session) {
	p, ok := d.loadSharingMethod(w, r, s)
	if !ok {
		return
	}
	form, input := sharingFormOf(r, "description", "expires")
	input["id"] = strconv.FormatInt(p.SharingMethod.ID, 10)
	if err := d.run(r, s, updateSharingMutation, map[string]any{"input": input}, nil); err != nil {
		d.render(w, r, s, formStatus(err), "sharingmethod", &page{Title: "Edit sharing method · " + p.Name, Project: p, Form: form,
			Errors: formErrorsOf(err, sharingFormFields), SharingTypes: sharingTypeNames})
		return
	}
	http.Redirect(w, r, "/projects/"+p.Slug+"/sharing/", http.StatusSeeOther)
}

// handleSharingCreate adds a method from the form: the versions ticked
// (none: every active version), and the other fields as typed; the API's
// messages are shown next to their fields.
func (d *Dashboard) handleSharingCreate(w http.ResponseWriter, r *http.Request, s *session) {
	form, input := sharingFormOf(r, "access_type", "description", "expires")
	input["accessType"] = form["access_type"]
	if err := d.run(r, s, createSharingMutation, map[string]any{"input": input}, nil); err != nil {
		d.renderSharing(w, r, s, formStatus(err), form, formErrorsOf(err, sharingFormFields))
		return
	}
	http.Redirect(w, r, "/projects/"+r.PathValue("slug")+"/sharing/", http.StatusSeeOther)
}

func (d *Dashboard) handleSharingDelete(w http.ResponseWriter, r *http.Request, s *session) {
	id, ok := pathID(r)
	if !ok {
		d.notFound(w, r, s)
		return
	}
	input := map[string]any{"slug": r.PathValue("slug"), "id": strconv.FormatInt(id, 10)}
	if err := d.run(r, s, deleteSharingMutation, map[string]any{"input": input}, nil); err != nil {
		d.failed(w, r, s, err)
		return
	}
	http.Redirect(w, r, "/projects/"+r.PathValue("slug")+"/sharing/", http.StatusSeeOther)
}
