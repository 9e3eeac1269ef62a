package dashboard

import (
	"net/http"
	"strconv"
	"strings"

	"docsd/internal/choices"
)

// The redirects page's rows link to an edit page (every field, saved with
// one updateRedirect) and have move up/down buttons (updateRedirect's
// position); adding, deleting and the dry run are the collection's.

// redirectFormFields maps updateRedirect's field names to the edit form's.
var redirectFormFields = map[string]string{"type": "type", "from_url": "from_url", "to_url": "to_url",
	"http_status": "http_status", "force": "force", "enabled": "enabled", "description": "description"}

// mountRedirects routes the edit page and the moves.
func (d *Dashboard) mountRedirects() {
	d.mux.HandleFunc("GET /projects/{slug}/redirects/{id}/{$}", d.signedIn(d.handleRedirect))
	d.mux.HandleFunc("POST /projects/{slug}/redirects/{id}/{$}", d.signedIn(d.handleRedirectUpdate))
	d.mux.HandleFunc("POST /projects/{slug}/redirects/{id}/move/{$}", d.signedIn(d.handleRedirectMove))
}

// loadRedirect loads the project (maintainers only) with the redirect the
// path names; a malformed or unknown id is the 404 page.
func (d *Dashboard) loadRedirect(w http.ResponseWriter, r *http.Request, s *session) (*project, *redirect, bool) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 || id > 1<<31-1 {
		d.notFound(w, r, s)
		return nil, nil, false
	}
	p, ok := d.loadMaintained(w, r, s, redirectQuery, map[string]any{"id": id})
	if !ok {
		return nil, nil, false
	}
	if p.Redirect == nil {
		d.notFound(w, r, s)
		return nil, nil, false
	}
	return p, p.Redirect, true
}

// redirectForm is the edit form's values of a redirect.
func redirectForm(rd *redirect) map[string]string {
	return map[string]string{"type": rd.Type, "from_url": rd.FromURL, "to_url": rd.ToURL,
		"http_status": strconv.Itoa(rd.HTTPStatus), "force": checked(rd.Force), "enabled": checked(rd.Enabled),
		"description": rd.Description}
}

// checked is a checkbox's form value.
func checked(b bool) string {
	if b {
		return "on"
	}
	return ""
}

func (d *Dashboard) renderRedirect(w http.ResponseWriter, r *http.Request, s *session, code int, p *project, form map[string]string, e formErrors) {
	d.render(w, r, s, code, "redirect", &page{Title: "Edit redirect · " + p.Name, Project: p, Form: form, Errors: e})
}

func (d *Dashboard) handleRedirect(w http.ResponseWriter, r *http.Request, s *session) {
	if p, rd, ok := d.loadRedirect(w, r, s); ok {
		d.renderRedirect(w, r, s, http.StatusOK, p, redirectForm(rd), nil)
	}
}

// handleRedirectUpdate saves every field of the form in one
// updateRedirect, and shows the form again, as typed, with the API's
// messages next to their fields on failure.
func (d *Dashboard) handleRedirectUpdate(w http.ResponseWriter, r *http.Request, s *session) {
	p, rd, ok := d.loadRedirect(w, r, s)
	if !ok {
		return
	}
	form := map[string]string{}
	for k := range redirectForm(rd) {
		form[k] = strings.TrimSpace(r.PostFormValue(k))
	}
	status, err := strconv.Atoi(form["http_status"])
	if err != nil {
		status = 0 // not a choice of the form: the API says what is allowed
	}
	input := map[string]any{"project": p.Slug, "id": rd.ID, "type": form["type"], "fromUrl": form["from_url"],
		"toUrl": form["to_url"], "httpStatus": status, "force": form["force"] == "on", "enabled": form["enabled"] == "on",
		"description": form["description"]}
	err = checkEnums(enumValue{"type", form["type"], choices.RedirectTypes})
	if err == nil {
		err = d.run(r, s, updateRedirectMutation, map[string]any{"input": input}, nil)
	}
	if err != nil {
		d.renderRedirect(w, r, s, formStatus(err), p, form, formErrorsOf(err, redirectFormFields))
		return
	}
	http.Redirect(w, r, "/projects/"+p.Slug+"/redirects/", http.StatusSeeOther)
}

// handleRedirectMove moves a redirect one place up or down the order in
// which the docs host tries them (the form's "to": "up" or "down"). Moving
// the first up or the last down changes nothing (the API clamps a
// position past the end).
func (d *Dashboard) handleRedirectMove(w http.ResponseWriter, r *http.Request, s *session) {
	p, rd, ok := d.loadRedirect(w, r, s)
	if !ok {
		return
	}
	position := rd.Position
	switch r.PostFormValue("to") {
	case "up":
		position = max(position-1, 0)
	case "down":
		position++
	default:
		d.notFound(w, r, s)
		return
	}
	input := map[string]any{"project": p.Slug, "id": rd.ID, "position": position}
	if err := d.run(r, s, updateRedirectMutation, map[string]any{"input": input}, nil); err != nil {
		d.failed(w, r, s, err)
		return
	}
	http.Redirect(w, r, "/projects/"+p.Slug+"/redirects/", http.StatusSeeOther)
}
