package graph

import (
	"context"
	"fmt"
	"net/mail"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"docsd/internal/buildnotify"
	"docsd/internal/errs"
	"docsd/internal/repourl"
	"docsd/internal/versionrules"
	"docsd/store"
)

const (
	nodeWebhook        = "Webhook"
	nodeAutomationRule = "AutomationRule"
)

// Messages of the notification and automation rule inputs.
const (
	MsgPrivateWebhook  = "The webhook URL's host resolves to a loopback, private, link-local or unspecified address; the server's operator can allow such addresses with --allow-private-network."
	MsgInvalidEmail    = "Enter a valid email address."
	MsgEmailTaken      = "This address already gets this project's notifications."
	MsgMinZero         = "Ensure this value is greater than or equal to 0."
	webhookURLMax      = 600
	emailMax           = 254
	secretMax          = 255
	ruleDescriptionMax = 255
)

// tooLong is the message of a string past max characters.
func tooLong(max int) string { return fmt.Sprintf(errs.MsgTooLongFormat, max) }

// trimmedString reads an optional string input: (value, given).
func trimmedString(v *string) (string, bool) {
	if v == nil {
		return "", false
	}
	return strings.TrimSpace(*v), true
}

// webhookFields holds a webhook's fields as written.
type webhookFields struct {
	url     string
	events  []string
	payload string
	secret  string
}

// checkWebhook records in f what is wrong with a webhook's fields: the URL
// (http or https, at most 600 characters, not on a private network unless
// allowed), the events (at least one, each known), the payload (a JSON
// object once its variables are substituted, at most 25000 characters) and
// the secret (at most 255 characters).
func (r *Resolver) checkWebhook(f errs.Fields, w webhookFields) {
	switch u, err := url.Parse(w.url); {
	case w.url == "":
		f.Add("url", errs.MsgRequired)
	case utf8.RuneCountInString(w.url) > webhookURLMax:
		f.Add("url", tooLong(webhookURLMax))
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "":
		f.Add("url", errs.MsgInvalidURL)
	default:
		p := repourl.Policy{AllowPrivateNetwork: r.Settings.AllowPrivateNetwork}
		if p.CheckNetwork(context.Background(), w.url, r.Settings.HostResolver) != "" {
			f.Add("url", MsgPrivateWebhook)
		}
	}
	if len(w.events) == 0 {
		f.Add("events", errs.MsgRequired)
	}
	for _, e := range w.events {
		if !slices.Contains(store.BuildEvents, e) {
			f.Add("events", errs.BadChoice(e))
			break
		}
	}
	switch {
	case utf8.RuneCountInString(w.payload) > buildnotify.MaxPayloadLength:
		f.Add("payload", tooLong(buildnotify.MaxPayloadLength))
	case strings.TrimSpace(w.payload) != "":
		if msg := buildnotify.CheckPayload(w.payload); msg != "" {
			f.Add("payload", msg)
		}
	}
	if utf8.RuneCountInString(w.secret) > secretMax {
		f.Add("secret", tooLong(secretMax))
	}
}

// createWebhook validates and stores a new webhook.
func (r *Resolver) createWebhook(ctx context.Context, in CreateWebhookInput) (*store.Webhook, error) {
	const op = "graph.createWebhook"
	p, err := r.maintainedProject(ctx, in.Project)
	if err != nil {
		return nil, err
	}
	w := webhookFields{events: in.Events, payload: buildnotify.DefaultPayload}
	w.url, _ = trimmedString(in.URL)
	if in.Payload != nil {
		w.payload = *in.Payload
	}
	w.secret, _ = trimmedString(in.Secret)
	f := errs.Fields{}
	r.checkWebhook(f, w)
	if err := f.Err(op); err != nil {
		return nil, err
	}
	if isTrue(in.ValidateOnly) {
		return nil, nil
	}
	return r.Store.CreateWebhook(ctx, store.Webhook{ProjectID: p.ID, URL: w.url, Payload: w.payload, Secret: w.secret}, w.events)
}

// updateWebhook validates and writes the given fields of a webhook.
func (r *Resolver) updateWebhook(ctx context.Context, in UpdateWebhookInput) (*store.Webhook, error) {
	const op = "graph.updateWebhook"
	p, id, err := r.maintainedObject(ctx, in.Project, nodeWebhook, in.ID)
	if err != nil {
		return nil, err
	}
	old, err := r.Store.FindWebhook(ctx, p.ID, id)
	if err != nil {
		return nil, err
	}
	w := webhookFields{url: old.URL, events: old.Events(), payload: old.Payload, secret: old.Secret}
	upd := store.WebhookUpdate{}
	if v, ok := trimmedString(in.URL); ok {
		w.url, upd.URL = v, &v
	}
	if in.Events != nil {
		w.events, upd.Events = in.Events, in.Events
	}
	if in.Payload != nil {
		w.payload, upd.Payload = *in.Payload, in.Payload
	}
	if v, ok := trimmedString(in.Secret); ok {
		if v == "" {
			if v, err = store.NewSecret(); err != nil {
				return nil, err
			}
		}
		w.secret, upd.Secret = v, &v
	}
	f := errs.Fields{}
	r.checkWebhook(f, w)
	if err := f.Err(op); err != nil {
		return nil, err
	}
	if isTrue(in.ValidateOnly) {
		return nil, nil
	}
	return r.Store.UpdateWebhook(ctx, p.ID, id, upd)
}

// maintainedObject is the project with slug projectSlug (maintainers) and
// the database id of its object of Node type typ named by id.
func (r *Resolver) maintainedObject(ctx context.Context, projectSlug, typ, id string) (*store.Project, int64, error) {
	p, err := r.maintainedProject(ctx, projectSlug)
	if err != nil {
		return nil, 0, err
	}
	n, err := projectObjectID(typ, id, p.ID)
	return p, n, err
}

// validEmail reports whether s is a bare email address whose domain is a
// dotted host name.
func validEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || a.Name != "" {
		return false
	}
	_, domain, _ := strings.Cut(s, "@")
	return dottedHostName(domain)
}

// addEmailNotification validates and stores an address to mail.
func (r *Resolver) addEmailNotification(ctx context.Context, in AddEmailNotificationInput) (*store.EmailHook, error) {
	const op = "graph.addEmailNotification"
	p, err := r.maintainedProject(ctx, in.Project)
	if err != nil {
		return nil, err
	}
	email, _ := trimmedString(in.Email)
	f := errs.Fields{}
	switch {
	case email == "":
		f.Add("email", errs.MsgRequired)
	case utf8.RuneCountInString(email) > emailMax:
		f.Add("email", tooLong(emailMax))
	case !validEmail(email):
		f.Add("email", MsgInvalidEmail)
	}
	if err := f.Err(op); err != nil {
		return nil, err
	}
	existing, err := r.Store.FindEmailHooks(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	for _, h := range existing {
		if strings.EqualFold(h.Email, email) {
			return nil, errs.FieldError(op, "email", MsgEmailTaken)
		}
	}
	if isTrue(in.ValidateOnly) {
		return nil, nil
	}
	h, err := r.Store.CreateEmailHook(ctx, p.ID, email)
	if errs.Is(err, errs.Conflict) {
		return nil, &errs.Error{Kind: errs.Invalid, Op: op, Fields: errs.Fields{"email": {MsgEmailTaken}}, Err: err}
	}
	return h, err
}

// ruleActions are the automation rule actions in the order forms list them.
var ruleActions = []string{store.ActionActivateVersion, store.ActionHideVersion, store.ActionMakeVersionPublic,
	store.ActionMakeVersionPrivate, store.ActionSetDefaultVersion, store.ActionDeleteVersion}

// checkRule records in f what is wrong with a rule's fields.
func checkRule(f errs.Fields, rule *store.AutomationRule) {
	if rule.PredefinedMatchArg != nil {
		if _, ok := versionrules.Predefined[*rule.PredefinedMatchArg]; !ok {
			f.Add("predefinedMatchArg", errs.BadChoice(*rule.PredefinedMatchArg))
		}
		rule.MatchArg = ""
	} else if msg := versionrules.Check(rule.MatchArg); msg != "" {
		f.Add("matchArg", msg)
	}
	switch {
	case rule.Action == "":
		f.Add("action", errs.MsgRequired)
	case !slices.Contains(ruleActions, rule.Action):
		f.Add("action", errs.BadChoice(rule.Action))
	}
	switch rule.VersionType {
	case "":
		f.Add("versionType", errs.MsgRequired)
	case store.Branch, store.Tag:
	default:
		f.Add("versionType", errs.BadChoice(rule.VersionType))
	}
	if utf8.RuneCountInString(rule.Description) > ruleDescriptionMax {
		f.Add("description", tooLong(ruleDescriptionMax))
	}
}

// rulePriority reads a priority input: -1 (last) when absent.
func rulePriority(f errs.Fields, v *int64) int {
	if v == nil {
		return -1
	}
	if *v < 0 {
		f.Add("priority", MsgMinZero)
		return -1
	}
	return int(min(*v, 1<<30))
}

// predefinedInput reads predefinedMatchArg: nil and "" mean a custom match.
func predefinedInput(v *string) *string {
	if s, ok := trimmedString(v); ok && s != "" {
		return &s
	}
	return nil
}

// createAutomationRule validates and stores a new rule.
func (r *Resolver) createAutomationRule(ctx context.Context, in CreateAutomationRuleInput) (*store.AutomationRule, error) {
	const op = "graph.createAutomationRule"
	p, err := r.maintainedProject(ctx, in.Project)
	if err != nil {
		return nil, err
	}
	rule := store.AutomationRule{ProjectID: p.ID, PredefinedMatchArg: predefinedInput(in.PredefinedMatchArg)}
	if in.MatchArg != nil {
		rule.MatchArg = *in.MatchArg
	}
	rule.Action, _ = trimmedString(in.Action)
	rule.VersionType, _ = trimmedString(in.VersionType)
	rule.Description, _ = trimmedString(in.Description)
	f := errs.Fields{}
	checkRule(f, &rule)
	rule.Priority = rulePriority(f, in.Priority)
	if err := f.Err(op); err != nil {
		return nil, err
	}
	if isTrue(in.ValidateOnly) {
		return nil, nil
	}
	return r.Store.CreateAutomationRule(ctx, rule)
}

// updateAutomationRule validates and writes the given fields of a rule.
func (r *Resolver) updateAutomationRule(ctx context.Context, in UpdateAutomationRuleInput) (*store.AutomationRule, error) {
	const op = "graph.updateAutomationRule"
	p, id, err := r.maintainedObject(ctx, in.Project, nodeAutomationRule, in.ID)
	if err != nil {
		return nil, err
	}
	rule, err := r.Store.FindAutomationRule(ctx, p.ID, id)
	if err != nil {
		return nil, err
	}
	if in.PredefinedMatchArg != nil {
		rule.PredefinedMatchArg = predefinedInput(in.PredefinedMatchArg)
	}
	if in.MatchArg != nil {
		rule.MatchArg = *in.MatchArg
	}
	if v, ok := trimmedString(in.Action); ok {
		rule.Action = v
	}
	if v, ok := trimmedString(in.VersionType); ok {
		rule.VersionType = v
	}
	if v, ok := trimmedString(in.Description); ok {
		rule.Description = v
	}
	f := errs.Fields{}
	checkRule(f, rule)
	priority := rulePriority(f, in.Priority)
	if err := f.Err(op); err != nil {
		return nil, err
	}
	if isTrue(in.ValidateOnly) {
		return nil, nil
	}
	upd := store.AutomationRuleUpdate{Description: &rule.Description, MatchArg: &rule.MatchArg, PredefinedMatchArg: &rule.PredefinedMatchArg,
		Action: &rule.Action, VersionType: &rule.VersionType}
	if in.Priority != nil {
		upd.Priority = &priority
	}
	return r.Store.UpdateAutomationRule(ctx, p.ID, id, upd)
}

func webhookConnection(p pager, rows []*store.Webhook, total int) *WebhookConnection {
	c := &WebhookConnection{TotalCount: int64(total)}
	c.Nodes, c.Edges, c.PageInfo = connect(nodeWebhook, p, rows, total, func(x *store.Webhook) int64 { return x.ID },
		func(cursor string, x *store.Webhook) *WebhookEdge { return &WebhookEdge{Cursor: cursor, Node: x} })
	return c
}

func automationRuleConnection(p pager, rows []*store.AutomationRule, total int) *AutomationRuleConnection {
	c := &AutomationRuleConnection{TotalCount: int64(total)}
	c.Nodes, c.Edges, c.PageInfo = connect(nodeAutomationRule, p, rows, total, func(x *store.AutomationRule) int64 { return x.ID },
		func(cursor string, x *store.AutomationRule) *AutomationRuleEdge {
			return &AutomationRuleEdge{Cursor: cursor, Node: x}
		})
	return c
}

// nodeWebhookDelivery names delivery cursors (deliveries are not Nodes).
const nodeWebhookDelivery = "WebhookDelivery"

// webhookDeliveries is a page of a webhook's deliveries with their
// attempts, read in one query for the page.
func (r *Resolver) webhookDeliveries(ctx context.Context, w *store.Webhook, a pageArgs) (*WebhookDeliveryConnection, error) {
	pg, err := r.page(nodeWebhookDelivery, a)
	if err != nil {
		return nil, err
	}
	ds, total, err := r.Store.FindWebhookDeliveries(ctx, w.ID, pg.store())
	if err != nil {
		return nil, err
	}
	ids := make([]int64, len(ds))
	byID := map[int64]*store.Delivery{}
	for i, d := range ds {
		ids[i], byID[d.ID] = d.ID, d
		d.AttemptList = []*store.DeliveryAttempt{}
	}
	as, err := r.Store.FindDeliveryAttempts(ctx, ids)
	if err != nil {
		return nil, err
	}
	for _, at := range as {
		byID[at.DeliveryID].AttemptList = append(byID[at.DeliveryID].AttemptList, at)
	}
	c := &WebhookDeliveryConnection{TotalCount: int64(total)}
	c.Nodes, c.Edges, c.PageInfo = connect(nodeWebhookDelivery, pg, ds, total, func(x *store.Delivery) int64 { return x.ID },
		func(cursor string, x *store.Delivery) *WebhookDeliveryEdge {
			return &WebhookDeliveryEdge{Cursor: cursor, Node: x}
		})
	return c, nil
}

// deliveryAttempts are a delivery's attempts, as read with its page.
func (r *Resolver) deliveryAttempts(ctx context.Context, d *store.Delivery) ([]*store.DeliveryAttempt, error) {
	if d.AttemptList != nil {
		return d.AttemptList, nil
	}
	return r.Store.FindDeliveryAttempts(ctx, []int64{d.ID})
}

// loadRuleMatches reads the matches of a page of rules in one query.
func (r *Resolver) loadRuleMatches(ctx context.Context, rs []*store.AutomationRule) error {
	ids := make([]int64, len(rs))
	byID := map[int64]*store.AutomationRule{}
	for i, rule := range rs {
		ids[i], byID[rule.ID] = rule.ID, rule
		rule.MatchList = []*store.AutomationRuleMatch{}
	}
	ms, err := r.Store.FindAutomationRuleMatches(ctx, ids)
	if err != nil {
		return err
	}
	for _, m := range ms {
		byID[m.RuleID].MatchList = append(byID[m.RuleID].MatchList, m)
	}
	return nil
}

// ruleMatches are a rule's matches, as read with its page.
func (r *Resolver) ruleMatches(ctx context.Context, rule *store.AutomationRule) ([]*store.AutomationRuleMatch, error) {
	if rule.MatchList == nil {
		if err := r.loadRuleMatches(ctx, []*store.AutomationRule{rule}); err != nil {
			return nil, err
		}
	}
	return rule.MatchList, nil
}

// deleteEmailNotification deletes one of the project's email notifications.
func (r *Resolver) deleteEmailNotification(ctx context.Context, in DeleteEmailNotificationInput) (*DeleteEmailNotificationPayload, error) {
	id, ue, err := deletedPayload(r.deleteProjectObject(ctx, in.Project, "", strconv.FormatInt(in.ID, 10), r.Store.DeleteEmailHook))
	if err != nil || id == nil {
		return &DeleteEmailNotificationPayload{Errors: ue}, err
	}
	return &DeleteEmailNotificationPayload{DeletedID: &in.ID, Errors: ue}, nil
}

// deliveryBuild is the build a delivery is about; null once deleted.
func (r *Resolver) deliveryBuild(ctx context.Context, d *store.Delivery) (*BuildView, error) {
	b, err := r.buildByID(ctx, d.BuildID)
	if errs.Is(err, errs.NotFound) {
		return nil, nil
	}
	return b, err
}
