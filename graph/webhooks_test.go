package graph_test

import (
	"reflect"
	"strings"
	"testing"

	"docsd/internal/buildnotify"
	"docsd/internal/errs"
	"docsd/internal/storetest"
	"docsd/store"
)

func TestWebhooksEmailsAndRules(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d)
		e.importProject("alice", "pub")
		alice, bob := e.as("alice"), e.as("bob")
		ok := func(query string, vars map[string]any) map[string]any {
			t.Helper()
			return e.must(alice, query, vars)
		}
		fails := func(query string, vars map[string]any, wantKind errs.Kind, wantFields errs.Fields) {
			t.Helper()
			_, err := e.do(alice, query, vars)
			if errs.KindOf(err) != wantKind {
				t.Fatalf("kind = %s (%v), want %s", kind(err), err, wantKind)
			}
			if wantFields != nil && !reflect.DeepEqual(errs.FieldsOf(err), wantFields) {
				t.Errorf("fields = %v, want %v", errs.FieldsOf(err), wantFields)
			}
		}
		const create = `mutation($in: CreateWebhookInput!) { createWebhook(input: $in) { webhook { id databaseId url events payload secret } errors { path message code } } }`
		in := func(kv ...any) map[string]any {
			m := map[string]any{"project": "pub"}
			for i := 0; i < len(kv); i += 2 {
				m[kv[i].(string)] = kv[i+1]
			}
			return map[string]any{"in": m}
		}
		events := []string{"build:failed"}
		for _, c := range []struct {
			vars   map[string]any
			fields errs.Fields
		}{
			{in("events", events), errs.Fields{"url": {"This field is required."}}},
			{in("url", "ftp://example.com/x", "events", events), errs.Fields{"url": {"Enter a valid URL."}}},
			{in("url", "https://"+strings.Repeat("a", 600)+".com/", "events", events), errs.Fields{"url": {"Ensure this field has no more than 600 characters."}}},
			{in("url", "http://127.0.0.1:8080/hook", "events", events), errs.Fields{"url": {"The webhook URL's host resolves to a loopback, private, link-local or unspecified address; the server's operator can allow such addresses with --allow-private-network."}}},
			{in("url", "https://93.184.216.34/hook"), errs.Fields{"events": {"This field is required."}}},
			{in("url", "https://93.184.216.34/hook", "events", []string{"build:started"}), errs.Fields{"events": {`"build:started" is not a valid choice.`}}},
			{in("url", "https://93.184.216.34/hook", "events", events, "payload", `{"name": {{ project.name }}}`), errs.Fields{"payload": {buildnotify.MsgPayloadNotJSON}}},
			{in("url", "https://93.184.216.34/hook", "events", events, "payload", `not json`), errs.Fields{"payload": {buildnotify.MsgPayloadNotJSON}}},
		} {
			fails(create, c.vars, errs.Invalid, c.fields)
		}
		if _, err := e.do(bob, create, in("url", "https://93.184.216.34/hook", "events", events)); errs.KindOf(err) != errs.Forbidden {
			t.Errorf("a non-maintainer's createWebhook = %v, want FORBIDDEN", err)
		}
		data := ok(create, in("url", "https://93.184.216.34/hook", "events", []string{"build:failed", "build:triggered"}))
		wh := dig(data, "createWebhook", "webhook").(map[string]any)
		if wh["payload"] != buildnotify.DefaultPayload || len(wh["secret"].(string)) != 64 ||
			!reflect.DeepEqual(wh["events"], []any{"build:triggered", "build:failed"}) {
			t.Errorf("webhook = %v", wh)
		}
		data = ok(`mutation($id: ID!) { updateWebhook(input: {project: "pub", id: $id, payload: "{\"build\": {{ build.id }}}", secret: "s3cret"}) { webhook { payload secret events } errors { path message code } } }`, map[string]any{"id": wh["id"]})
		if dig(data, "updateWebhook", "webhook", "secret") != "s3cret" || dig(data, "updateWebhook", "webhook", "payload") != `{"build": {{ build.id }}}` {
			t.Errorf("updated = %v", data)
		}
		fails(`mutation($id: ID!) { updateWebhook(input: {project: "pub", id: $id, events: []}) { webhook { id } errors { path message code } } }`, map[string]any{"id": wh["id"]},
			errs.Invalid, errs.Fields{"events": {"This field is required."}})
		data = ok(`query($id: ID!) { node(id: $id) { ... on Webhook { url project { slug } deliveries { totalCount } } } project(slug: "pub") { webhooks { totalCount nodes { url } } } }`, map[string]any{"id": wh["id"]})
		if dig(data, "node", "url") != "https://93.184.216.34/hook" || dig(data, "project", "webhooks", "totalCount") != float64(1) {
			t.Errorf("read back = %v", data)
		}
		if _, err := e.do(bob, `{ project(slug: "pub") { webhooks { totalCount } } }`, nil); errs.KindOf(err) != errs.Forbidden {
			t.Errorf("a non-maintainer reads webhooks: %v", err)
		}
		ok(`mutation($id: ID!) { deleteWebhook(input: {project: "pub", id: $id}) { deletedId errors { path message code } } }`, map[string]any{"id": wh["id"]})

		// Email notifications.
		const addEmail = `mutation($e: String) { addEmailNotification(input: {project: "pub", email: $e}) { emailNotification { databaseId email } errors { path message code } } }`
		for email, msg := range map[string]string{"": "This field is required.", "not an address": "Enter a valid email address.",
			"Ana <ana@example.com>": "Enter a valid email address.", "ana@localhost": "Enter a valid email address."} {
			fails(addEmail, map[string]any{"e": email}, errs.Invalid, errs.Fields{"email": {msg}})
		}
		data = ok(addEmail, map[string]any{"e": " team@example.com "})
		if dig(data, "addEmailNotification", "emailNotification", "email") != "team@example.com" {
			t.Errorf("email = %v", data)
		}
		fails(addEmail, map[string]any{"e": "Team@example.com"}, errs.Invalid, errs.Fields{"email": {"This address already gets this project's notifications."}})
		emailID := int64(dig(data, "addEmailNotification", "emailNotification", "databaseId").(float64))
		ok(`mutation($id: Int!) { deleteEmailNotification(input: {project: "pub", id: $id}) { deletedId errors { path message code } } }`, map[string]any{"id": emailID})

		// Automation rules.
		const createRule = `mutation($in: CreateAutomationRuleInput!) { createAutomationRule(input: $in) { automationRule { id priority matchArg predefinedMatchArg action versionType } errors { path message code } } }`
		for _, c := range []struct {
			vars   map[string]any
			fields errs.Fields
		}{
			{in("action", "activate-version", "versionType", "tag"), errs.Fields{"match_arg": {"Custom match should not be empty."}}},
			{in("matchArg", "(", "action", "activate-version", "versionType", "tag"), errs.Fields{"match_arg": {"Invalid regular expression: missing closing ): `(`."}}},
			{in("matchArg", strings.Repeat("a", 256), "action", "activate-version", "versionType", "tag"), errs.Fields{"match_arg": {"Ensure this field has no more than 255 characters."}}},
			{in("predefinedMatchArg", "odd-versions", "action", "activate-version", "versionType", "tag"), errs.Fields{"predefined_match_arg": {`"odd-versions" is not a valid choice.`}}},
			{in("predefinedMatchArg", "all-versions", "action", "build-version", "versionType", "external"), errs.Fields{"action": {`"build-version" is not a valid choice.`}, "version_type": {`"external" is not a valid choice.`}}},
			{in("predefinedMatchArg", "all-versions", "versionType", "tag", "priority", -1), errs.Fields{"action": {"This field is required."}, "priority": {"Ensure this value is greater than or equal to 0."}}},
		} {
			fails(createRule, c.vars, errs.Invalid, c.fields)
		}
		first := dig(ok(createRule, in("matchArg", `^v\d`, "action", "activate-version", "versionType", "tag")), "createAutomationRule", "automationRule").(map[string]any)
		second := dig(ok(createRule, in("predefinedMatchArg", "semver-versions", "matchArg", "ignored", "action", "hide-version", "versionType", "branch", "priority", 0)), "createAutomationRule", "automationRule").(map[string]any)
		if second["priority"] != float64(0) || second["matchArg"] != "" || second["predefinedMatchArg"] != "semver-versions" {
			t.Errorf("second rule = %v", second)
		}
		ok(`mutation($id: ID!) { updateAutomationRule(input: {project: "pub", id: $id, priority: 0}) { automationRule { priority } errors { path message code } } }`, map[string]any{"id": first["id"]})
		data = ok(`{ project(slug: "pub") { automationRules { nodes { id priority action matches { versionName } } } } }`, nil)
		nodes := dig(data, "project", "automationRules", "nodes").([]any)
		if len(nodes) != 2 || nodes[0].(map[string]any)["id"] != first["id"] || nodes[1].(map[string]any)["priority"] != float64(1) {
			t.Errorf("rules after the move = %v", nodes)
		}
		ok(`mutation($id: ID!) { deleteAutomationRule(input: {project: "pub", id: $id}) { deletedId errors { path message code } } }`, map[string]any{"id": first["id"]})
		data = ok(`{ project(slug: "pub") { automationRules { nodes { id priority } } } }`, nil)
		if n := dig(data, "project", "automationRules", "nodes").([]any); len(n) != 1 || n[0].(map[string]any)["priority"] != float64(0) {
			t.Errorf("rules after the delete = %v", n)
		}
	})
}
