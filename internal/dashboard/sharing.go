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

// handleSharingCreate adds a method from the form: the versions ticked
// (none: every active version), and the other fields as typed; the API's
// messages are shown next to their fields.
func (d *Dashboard) handleSharingCreate(w http.ResponseWriter, r *http.Request, s *session) {
	r.ParseForm()
	form := map[string]string{}
	for _, k := range []string{"access_type", "description", "expires"} {
		form[k] = strings.TrimSpace(r.PostFormValue(k))
	}
	versions := r.PostForm["versions"]
	input := map[string]any{"slug": r.PathValue("slug"), "accessType": form["access_type"], "description": form["description"],
		"allowAll": len(versions) == 0}
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
