package dashboard

import (
	"net/http"
	"strconv"
	"strings"

	"docsd/graph"
	"docsd/internal/choices"
)

// Build notifications and automation rules: the email notifications page
// and the webhooks page are collections; a webhook's page (edit form and
// deliveries) and the rules' move buttons are their own handlers.

// The shapes of the notification pages' data.
type (
	emailNotification struct {
		ID             int64
		Email, Created string
	}
	webhookAttempt struct {
		Started        string
		DurationMs     int
		ResponseStatus *int
		ResponseBody   string
		Error          string
	}
	webhookDelivery struct {
		ID                           int64
		Event, State, Error, Created string
		RequestHeaders, RequestBody  string
		Finished, NextAttempt        *string
		Build                        *struct{ ID int64 }
		Attempts                     []webhookAttempt
	}
	webhook struct {
		ID                   int64
		URL, Payload, Secret string
		Events               []string
		Created              string
		Deliveries           struct {
			TotalCount int
			Nodes      []webhookDelivery
		}
	}
	automationRuleMatch struct{ VersionName, VersionType, MatchArg, Action, Created string }
	automationRule      struct {
		ID                                         int64
		Priority                                   int
		Description, MatchArg, Action, VersionType string
		PredefinedMatchArg                         *string
		Matches                                    []automationRuleMatch
	}
)

// The choices of the notification and rule forms (codes are the API's).
var (
	webhookEvents = choices.Table{{Code: "build:triggered", Name: "Build triggered"}, {Code: "build:passed", Name: "Build passed"},
		{Code: "build:failed", Name: "Build failed"}}
	ruleMatches = choices.Table{{Code: "all-versions", Name: "Any version"}, {Code: "semver-versions", Name: "SemVer versions"},
		{Code: "", Name: "Custom match"}}
	ruleActions = choices.Table{{Code: "activate-version", Name: "Activate version"}, {Code: "hide-version", Name: "Hide version"},
		{Code: "make-version-public", Name: "Make version public"}, {Code: "make-version-private", Name: "Make version private"},
		{Code: "set-default-version", Name: "Set version as default"}, {Code: "delete-version", Name: "Delete version"}}
	ruleVersionTypes = choices.Table{{Code: "tag", Name: "Tag"}, {Code: "branch", Name: "Branch"}}
)

const emailNotificationsQuery = `query($slug: String!) {
	project(slug: $slug) {
		` + projectFields + `
		emailNotifications { id: databaseId email created }
	}
}`

const addEmailNotificationMutation = `mutation($input: AddEmailNotificationInput!) {
	addEmailNotification(input: $input) { emailNotification { id: databaseId } ` + graph.PayloadErrors + ` }
}`

const deleteEmailNotificationMutation = `mutation($input: DeleteEmailNotificationInput!) { deleteEmailNotification(input: $input) { deletedId ` + graph.PayloadErrors + ` } }`

const webhooksQuery = `query($slug: String!) {
	project(slug: $slug) {
		` + projectFields + `
		webhooks(first: 100) { nodes { id: databaseId url events created deliveries(first: 1) { totalCount nodes { state created } } } }
	}
}`

const webhookQuery = `query($slug: String!, $id: ID!) {
	project(slug: $slug) {
		` + projectFields + `
		webhook(id: $id) { id: databaseId url events payload secret created
			deliveries(first: 25) { totalCount nodes { id: databaseId event state error created finished nextAttempt
				requestHeaders requestBody build { id: databaseId }
				attempts { started durationMs responseStatus responseBody error } } } }
	}
}`

const createWebhookMutation = `mutation($input: CreateWebhookInput!) {
	createWebhook(input: $input) { webhook { id: databaseId } ` + graph.PayloadErrors + ` }
}`

const updateWebhookMutation = `mutation($input: UpdateWebhookInput!) {
	updateWebhook(input: $input) { webhook { id: databaseId } ` + graph.PayloadErrors + ` }
}`

const deleteWebhookMutation = `mutation($input: DeleteWebhookInput!) { deleteWebhook(input: $input) { deletedId ` + graph.PayloadErrors + ` } }`

const automationRulesQuery = `query($slug: String!) {
	project(slug: $slug) {
		` + projectFields + `
		automationRules(first: 100) { nodes { id: databaseId priority description matchArg predefinedMatchArg action versionType
			matches { versionName versionType matchArg action created } } }
	}
}`

const createAutomationRuleMutation = `mutation($input: CreateAutomationRuleInput!) {
	createAutomationRule(input: $input) { automationRule { id: databaseId } ` + graph.PayloadErrors + ` }
}`

const updateAutomationRuleMutation = `mutation($input: UpdateAutomationRuleInput!) {
	updateAutomationRule(input: $input) { automationRule { id: databaseId } ` + graph.PayloadErrors + ` }
}`

const deleteAutomationRuleMutation = `mutation($input: DeleteAutomationRuleInput!) { deleteAutomationRule(input: $input) { deletedId ` + graph.PayloadErrors + ` } }`

// webhookFormFields maps the webhook inputs' field names to the forms'.
var webhookFormFields = map[string]string{"url": "url", "events": "events", "payload": "payload", "secret": "secret"}

// webhookEventsInput reads the form's event checkboxes (event_<code>).
func webhookEventsInput(form map[string]string) []string {
	events := []string{}
	for _, e := range webhookEvents {
		if form["event_"+e.Code] == "on" {
			events = append(events, e.Code)
		}
	}
	return events
}

// webhookFormKeys are the webhook forms' fields.
var webhookFormKeys = []string{"url", "payload", "secret", "event_build:triggered", "event_build:passed", "event_build:failed"}

// notificationCollections are the collection pages of this file.
var notificationCollections = []*collection{
	{
		path: "notifications", title: "Email notifications", query: emailNotificationsQuery, create: addEmailNotificationMutation,
		remove: deleteEmailNotificationMutation, projectField: "project", keyField: "id", keyIsID: true,
		form:   map[string]string{"email": ""},
		fields: map[string]string{"email": "email"},
		vars:   func(f map[string]string) map[string]any { return map[string]any{"email": f["email"]} },
	},
	{
		path: "webhooks", title: "Webhooks", query: webhooksQuery, create: createWebhookMutation,
		remove: deleteWebhookMutation, projectField: "project", keyField: "id", keyIsID: true,
		form: map[string]string{"url": "", "payload": "", "secret": "", "event_build:triggered": "", "event_build:passed": "",
			"event_build:failed": "on"},
		fields: webhookFormFields,
		vars: func(f map[string]string) map[string]any {
			input := map[string]any{"url": f["url"], "events": webhookEventsInput(f), "secret": f["secret"]}
			if f["payload"] != "" {
				input["payload"] = f["payload"]
			}
			return input
		},
	},
	{
		path: "rules", title: "Automation rules", query: automationRulesQuery, create: createAutomationRuleMutation,
		remove: deleteAutomationRuleMutation, projectField: "project", keyField: "id", keyIsID: true,
		form: map[string]string{"description": "", "predefined_match_arg": "all-versions", "match_arg": "", "version_type": "tag",
			"action": "activate-version"},
		fields: map[string]string{"description": "description", "predefined_match_arg": "predefined_match_arg", "match_arg": "match_arg",
			"version_type": "version_type", "action": "action", "priority": ""},
		vars: func(f map[string]string) map[string]any {
			input := map[string]any{"description": f["description"], "matchArg": f["match_arg"], "versionType": f["version_type"],
				"action": f["action"]}
			if f["predefined_match_arg"] != "" {
				input["predefinedMatchArg"] = f["predefined_match_arg"]
			}
			return input
		},
	},
}

// mountNotifications routes the webhook page and the rules' moves.
func (d *Dashboard) mountNotifications() {
	d.mux.HandleFunc("GET /projects/{slug}/webhooks/{id}/{$}", d.signedIn(d.handleWebhook))
	d.mux.HandleFunc("POST /projects/{slug}/webhooks/{id}/{$}", d.signedIn(d.handleWebhookUpdate))
	d.mux.HandleFunc("POST /projects/{slug}/rules/{id}/move/{$}", d.signedIn(d.handleRuleMove))
}

// loadWebhook loads the project (maintainers only) with the webhook the
// path names; a malformed or unknown id is the 404 page.
func (d *Dashboard) loadWebhook(w http.ResponseWriter, r *http.Request, s *session) (*project, *webhook, bool) {
	id, ok := pathID(r)
	if !ok {
		d.notFound(w, r, s)
		return nil, nil, false
	}
	p, ok := d.loadMaintained(w, r, s, webhookQuery, map[string]any{"id": strconv.FormatInt(id, 10)})
	if !ok {
		return nil, nil, false
	}
	if p.Webhook == nil {
		d.notFound(w, r, s)
		return nil, nil, false
	}
	return p, p.Webhook, true
}

// webhookForm is the edit form's values of a webhook.
func webhookForm(wh *webhook) map[string]string {
	form := map[string]string{"url": wh.URL, "payload": wh.Payload, "secret": ""}
	for _, e := range webhookEvents {
		form["event_"+e.Code] = ""
	}
	for _, e := range wh.Events {
		form["event_"+e] = "on"
	}
	return form
}

func (d *Dashboard) renderWebhook(w http.ResponseWriter, r *http.Request, s *session, code int, p *project, form map[string]string, e formErrors) {
	d.render(w, r, s, code, "webhook", &page{Title: "Webhook · " + p.Name, Project: p, Form: form, Errors: e})
}

func (d *Dashboard) handleWebhook(w http.ResponseWriter, r *http.Request, s *session) {
	if p, wh, ok := d.loadWebhook(w, r, s); ok {
		d.renderWebhook(w, r, s, http.StatusOK, p, webhookForm(wh), nil)
	}
}

// handleWebhookUpdate saves the edit form in one updateWebhook; an empty
// secret field keeps the secret, and "new_secret" asks for a fresh one.
func (d *Dashboard) handleWebhookUpdate(w http.ResponseWriter, r *http.Request, s *session) {
	p, wh, ok := d.loadWebhook(w, r, s)
	if !ok {
		return
	}
	form := map[string]string{}
	for _, k := range webhookFormKeys {
		form[k] = strings.TrimSpace(r.PostFormValue(k))
	}
	input := map[string]any{"project": p.Slug, "id": strconv.FormatInt(wh.ID, 10), "url": form["url"],
		"events": webhookEventsInput(form), "payload": form["payload"]}
	switch {
	case r.PostFormValue("new_secret") == "on":
		input["secret"] = ""
	case form["secret"] != "":
		input["secret"] = form["secret"]
	}
	if err := d.run(r, s, updateWebhookMutation, map[string]any{"input": input}, nil); err != nil {
		form["secret"] = ""
		d.renderWebhook(w, r, s, formStatus(err), p, form, formErrorsOf(err, webhookFormFields))
		return
	}
	http.Redirect(w, r, "/projects/"+p.Slug+"/webhooks/"+strconv.FormatInt(wh.ID, 10)+"/", http.StatusSeeOther)
}

// handleRuleMove moves an automation rule one place up or down (the
// form's "to"); the API clamps a priority past the end.
func (d *Dashboard) handleRuleMove(w http.ResponseWriter, r *http.Request, s *session) {
	id, ok := pathID(r)
	if !ok {
		d.notFound(w, r, s)
		return
	}
	p, ok := d.loadMaintained(w, r, s, automationRulesQuery, map[string]any{})
	if !ok {
		return
	}
	var rule *automationRule
	for i := range p.AutomationRules.Nodes {
		if p.AutomationRules.Nodes[i].ID == id {
			rule = &p.AutomationRules.Nodes[i]
		}
	}
	if rule == nil {
		d.notFound(w, r, s)
		return
	}
	priority := rule.Priority
	switch r.PostFormValue("to") {
	case "up":
		priority = max(priority-1, 0)
	case "down":
		priority++
	default:
		d.notFound(w, r, s)
		return
	}
	input := map[string]any{"project": p.Slug, "id": strconv.FormatInt(id, 10), "priority": priority}
	if err := d.run(r, s, updateAutomationRuleMutation, map[string]any{"input": input}, nil); err != nil {
		d.failed(w, r, s, err)
		return
	}
	http.Redirect(w, r, "/projects/"+p.Slug+"/rules/", http.StatusSeeOther)
}
