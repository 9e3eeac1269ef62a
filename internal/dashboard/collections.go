package dashboard

import (
	"net/http"
	"strconv"
	"strings"

	"docsd/internal/choices"
)

// collection is a maintainers' page that lists things of a project, adds
// one with a form and deletes one: redirects, environment variables,
// integrations (webhooks), maintainers. Every such page reads top-down the same way: load (404 for
// non-maintainers), then one mutation, then back to the list or the form
// again, as typed, with the API's messages next to their fields.
type collection struct {
	path   string // the page is /projects/<slug>/<path>/ and its template <path>.html
	title  string
	query  string // a project query that selects the list
	create string // the mutation that adds one; its $input from vars
	remove string // the mutation that deletes one: $input names the project and the key
	// projectField is the inputs' field that names the project by slug.
	projectField string
	// keyField is the delete input's field that the path's {key} goes to.
	keyField string
	// keyIsID says the delete path's {key} is an Int id (else a string).
	keyIsID bool
	// form are the form's fields and their initial values.
	form map[string]string
	// fields maps the mutation's field names to the form's.
	fields map[string]string
	// vars makes the create mutation's input (besides the project).
	vars func(form map[string]string) map[string]any
	// enums are the input's fields that take a GraphQL enum, with the
	// choices table of each (checkEnums); the field's name is also the
	// API's in messages.
	enums map[string]choices.Table
	// removeInput, when set, makes the delete mutation's input instead of
	// {projectField: slug, keyField: key} (translations unlink with
	// {slug: key, main: null}).
	removeInput func(slug string, key any) map[string]any
	// more, when set, adds to the list page (and to the form shown
	// again) what its query string asks for (the redirects page's dry
	// run), or more of the project (the maintainers page's invitations).
	more func(d *Dashboard, r *http.Request, s *session, p *project, pg *page)
}

// collections are the collection pages.
var collections = []*collection{
	{
		path: "redirects", title: "Redirects", query: redirectsQuery, create: createRedirectMutation, remove: deleteRedirectMutation,
		projectField: "project", keyField: "id", keyIsID: true,
		form: map[string]string{"type": "page", "from_url": "", "to_url": "", "http_status": "302", "description": ""},
		fields: map[string]string{"type": "type", "from_url": "from_url", "to_url": "to_url", "http_status": "http_status",
			"description": "description"},
		more:  redirectDryRun,
		enums: map[string]choices.Table{"type": choices.RedirectTypes},
		vars: func(f map[string]string) map[string]any {
			status, _ := strconv.Atoi(f["http_status"])
			return map[string]any{"type": f["type"], "fromUrl": f["from_url"], "toUrl": f["to_url"],
				"httpStatus": status, "description": f["description"]}
		},
	},
	{
		path: "environmentvariables", title: "Environment variables", query: variablesQuery, create: createVariableMutation,
		remove: deleteVariableMutation, projectField: "project", keyField: "id", keyIsID: true,
		form:   map[string]string{"name": "", "value": "", "public": ""},
		fields: map[string]string{"name": "name", "value": "value", "public": "public"},
		vars: func(f map[string]string) map[string]any {
			return map[string]any{"name": f["name"], "value": f["value"], "public": f["public"] == "on"}
		},
	},
	{
		path: "integrations", title: "Integrations", query: integrationsQuery, create: createIntegrationMutation,
		remove: deleteIntegrationMutation, projectField: "project", keyField: "id", keyIsID: true,
		form:   map[string]string{"type": "github_webhook"},
		fields: map[string]string{"type": "type"},
		enums:  map[string]choices.Table{"type": choices.IntegrationTypes},
		vars:   func(f map[string]string) map[string]any { return map[string]any{"type": f["type"]} },
	},
	{
		path: "users", title: "Maintainers", query: maintainersQuery, create: addMaintainerMutation, remove: removeMaintainerMutation,
		projectField: "slug", keyField: "username",
		form:   map[string]string{"username": ""},
		fields: map[string]string{"username": "username"},
		more:   maintainerInvitations,
		vars:   func(f map[string]string) map[string]any { return map[string]any{"username": f["username"]} },
	},
	{
		path: "subprojects", title: "Subprojects", query: subprojectsQuery, create: createSubprojectMutation, remove: deleteSubprojectMutation,
		projectField: "project", keyField: "alias",
		form:   map[string]string{"child": "", "alias": ""},
		fields: map[string]string{"child": "child", "alias": "alias"},
		vars: func(f map[string]string) map[string]any {
			input := map[string]any{"child": f["child"]}
			if f["alias"] != "" {
				input["alias"] = f["alias"]
			}
			return input
		},
	},
	{
		path: "translations", title: "Translations", query: translationsQuery, create: addTranslationMutation, remove: removeTranslationMutation,
		projectField: "main",
		form:         map[string]string{"translation": ""},
		fields:       map[string]string{"slug": "translation", "main": "translation"},
		vars:         func(f map[string]string) map[string]any { return map[string]any{"slug": f["translation"]} },
		removeInput:  func(_ string, key any) map[string]any { return map[string]any{"slug": key, "main": nil} },
	},
	{
		path: "domains", title: "Custom domains", query: domainsQuery, create: createDomainMutation, remove: deleteDomainMutation,
		projectField: "project", keyField: "id", keyIsID: true,
		form:   map[string]string{"domain": "", "canonical": "", "https": "on"},
		fields: map[string]string{"domain": "domain", "canonical": "canonical", "https": "https"},
		vars: func(f map[string]string) map[string]any {
			return map[string]any{"domain": f["domain"], "canonical": f["canonical"] == "on", "https": f["https"] == "on"}
		},
	},
}

// mount routes the collection's list, add and delete.
func (c *collection) mount(d *Dashboard) {
	base := "/projects/{slug}/" + c.path + "/"
	d.mux.HandleFunc("GET "+base+"{$}", d.signedIn(c.handleList(d)))
	d.mux.HandleFunc("POST "+base+"{$}", d.signedIn(c.handleCreate(d)))
	d.mux.HandleFunc("POST "+base+"{key}/delete/{$}", d.signedIn(c.handleDelete(d)))
}

func (c *collection) render(d *Dashboard, w http.ResponseWriter, r *http.Request, s *session, code int, p *project, form map[string]string, e formErrors) {
	pg := &page{Title: c.title + " · " + p.Name, Project: p, Form: form, Errors: e}
	if c.more != nil {
		c.more(d, r, s, p, pg)
	}
	d.render(w, r, s, code, c.path, pg)
}

func (c *collection) handleList(d *Dashboard) func(http.ResponseWriter, *http.Request, *session) {
	return func(w http.ResponseWriter, r *http.Request, s *session) {
		p, ok := d.loadMaintained(w, r, s, c.query, map[string]any{})
		if !ok {
			return
		}
		c.render(d, w, r, s, http.StatusOK, p, c.form, nil)
	}
}

func (c *collection) handleCreate(d *Dashboard) func(http.ResponseWriter, *http.Request, *session) {
	return func(w http.ResponseWriter, r *http.Request, s *session) {
		p, ok := d.loadMaintained(w, r, s, c.query, map[string]any{})
		if !ok {
			return
		}
		form := map[string]string{}
		for k := range c.form {
			form[k] = strings.TrimSpace(r.PostFormValue(k))
		}
		input := c.vars(form)
		input[c.projectField] = p.Slug
		var enums []enumValue
		for field, t := range c.enums {
			v, _ := input[field].(string)
			enums = append(enums, enumValue{field, v, t})
		}
		err := checkEnums(enums...)
		if err == nil {
			err = d.run(r, s, c.create, map[string]any{"input": input}, nil)
		}
		if err != nil {
			if _, secret := form["value"]; secret {
				form["value"] = "" // a secret is never sent back to the browser
			}
			c.render(d, w, r, s, formStatus(err), p, form, formErrorsOf(err, c.fields))
			return
		}
		http.Redirect(w, r, "/projects/"+p.Slug+"/"+c.path+"/", http.StatusSeeOther)
	}
}

func (c *collection) handleDelete(d *Dashboard) func(http.ResponseWriter, *http.Request, *session) {
	return func(w http.ResponseWriter, r *http.Request, s *session) {
		slug := r.PathValue("slug")
		var key any = r.PathValue("key")
		if c.keyIsID {
			id, err := strconv.ParseInt(r.PathValue("key"), 10, 64)
			if err != nil || id <= 0 || id > 1<<31-1 {
				d.notFound(w, r, s)
				return
			}
			key = id
		}
		input := map[string]any{c.projectField: slug, c.keyField: key}
		if c.removeInput != nil {
			input = c.removeInput(slug, key)
		}
		if err := d.run(r, s, c.remove, map[string]any{"input": input}, nil); err != nil {
			d.failed(w, r, s, err)
			return
		}
		http.Redirect(w, r, "/projects/"+slug+"/"+c.path+"/", http.StatusSeeOther)
	}
}

// redirectDryRun answers the redirects page's "where does this URL go?"
// box (?path=…) with Project.resolveRedirect: the docs host's matching.
func redirectDryRun(d *Dashboard, r *http.Request, s *session, p *project, pg *page) {
	path, asked := r.URL.Query()["path"]
	if !asked {
		return
	}
	pg.DryRun.Asked, pg.DryRun.Path = true, strings.TrimSpace(path[0])
	var out struct{ Project *project }
	if err := d.run(r, s, resolveRedirectQuery, map[string]any{"slug": p.Slug, "path": pg.DryRun.Path}, &out); err != nil {
		pg.Errors = formErrorsOf(err, map[string]string{"path": "path"})
		return
	}
	if out.Project != nil {
		pg.DryRun.Found = out.Project.ResolveRedirect
	}
}

// handleDomainUpdate makes a domain canonical (or not), turns HTTPS on or
// restarts its DNS checks: the buttons of the domains page, one
// updateDomain each.
func (d *Dashboard) handleDomainUpdate(w http.ResponseWriter, r *http.Request, s *session) {
	slug := r.PathValue("slug")
	id, err := strconv.ParseInt(r.PathValue("key"), 10, 64)
	if err != nil || id <= 0 || id > 1<<31-1 {
		d.notFound(w, r, s)
		return
	}
	input := map[string]any{"project": slug, "id": id}
	switch r.PathValue("action") {
	case "canonical":
		input["canonical"] = r.PostFormValue("canonical") == "on"
	case "https":
		input["https"] = true
	case "restart":
		input["restartValidation"] = true
	default:
		d.notFound(w, r, s)
		return
	}
	if err := d.run(r, s, updateDomainMutation, map[string]any{"input": input}, nil); err != nil {
		d.failed(w, r, s, err)
		return
	}
	http.Redirect(w, r, "/projects/"+slug+"/domains/", http.StatusSeeOther)
}
