// Package audit records security events in the audit log
// (docs/user-guide/audit-log.md): one Recorder, called where each event
// happens, fills the request's client address, browser and path from the
// context (WithRequest), copies names so that entries survive deletions,
// and deletes entries past the retention (Prune). Who reads which entries
// is decided by package access (access.AuditVisibility).
package audit

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"docsd/store"
)

// Pageviews says which page views and downloads are recorded.
type Pageviews string

const (
	PageviewsOff     Pageviews = "off"     // none
	PageviewsPrivate Pageviews = "private" // of versions anonymous readers cannot see
	PageviewsAll     Pageviews = "all"     // of every version
)

// ParsePageviews reads the --audit-pageviews setting.
func ParsePageviews(s string) (Pageviews, bool) {
	switch p := Pageviews(s); p {
	case PageviewsOff, PageviewsPrivate, PageviewsAll:
		return p, true
	}
	return "", false
}

// Recorder writes audit entries. A nil *Recorder records nothing.
type Recorder struct {
	Store     *store.Store
	Logger    *slog.Logger
	Pageviews Pageviews
	// RetentionDays: entries older than this many days are deleted by
	// Prune; 0 keeps them.
	RetentionDays int
}

// Ref names an organization in an entry.
type Ref struct {
	ID   int64
	Slug string
}

// Event is what happened, by whom, to what.
type Event struct {
	Action string // a store.Audit* action
	// User is who acted (nil: nobody signed in, a sharing link, the admin
	// CLI); Username is the name typed at a failed sign-in when no user
	// matches.
	User     *store.User
	Username string
	Project  *store.Project
	// Organization is the organization concerned, when the project has
	// none or there is no project.
	Organization *Ref
	AuthBackend  string // "" for none
	Data         any    // rendered as JSON; nil for none
	// Resource overrides the request path (the docs host passes the path
	// inside the project's namespace).
	Resource string
}

type requestKey struct{}

type request struct{ ip, browser, resource string }

// WithRequest returns a context whose events carry r's client address
// (ip, as the caller computed it behind trusted proxies), User-Agent and
// path.
func WithRequest(ctx context.Context, r *http.Request, ip string) context.Context {
	return context.WithValue(ctx, requestKey{}, request{ip: ip, browser: r.UserAgent(), resource: r.URL.Path})
}

// Middleware puts each request's WithRequest into its context.
func Middleware(clientAddr func(*http.Request) string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(WithRequest(r.Context(), r, clientAddr(r))))
	})
}

// Limits of an entry's text fields.
const (
	maxBrowser  = 250
	maxResource = 5500
)

// Browser is a User-Agent as the log keeps it: at most 250 characters,
// a longer one cut to 238 and marked ` - Truncated`.
func Browser(ua string) string {
	if utf8.RuneCountInString(ua) <= maxBrowser {
		return ua
	}
	return string([]rune(ua)[:238]) + " - Truncated"
}

// clean makes s storable: valid UTF-8 without NUL bytes.
func clean(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
}

// Record stores ev; a failure is logged, never returned: an event that
// happened is not undone because its record could not be written.
func (rec *Recorder) Record(ctx context.Context, ev Event) {
	if rec == nil || rec.Store == nil {
		return
	}
	rq, _ := ctx.Value(requestKey{}).(request)
	e := &store.AuditEntry{Action: ev.Action, IP: clean(rq.ip), Browser: clean(Browser(rq.browser)), Resource: rq.resource}
	if ev.Resource != "" {
		e.Resource = ev.Resource
	}
	if r := []rune(clean(e.Resource)); len(r) > maxResource {
		e.Resource = string(r[:maxResource])
	} else {
		e.Resource = string(r)
	}
	if u := ev.User; u != nil {
		e.UserID, e.LogUserID, e.LogUserUsername = &u.ID, &u.ID, &u.Username
	} else if ev.Username != "" {
		name := clean(ev.Username)
		e.LogUserUsername = &name
	}
	if p := ev.Project; p != nil {
		e.ProjectID, e.LogProjectID, e.LogProjectSlug = &p.ID, &p.ID, &p.Slug
		if ev.Organization == nil && p.OrganizationID != nil {
			ev.Organization = rec.organization(ctx, *p.OrganizationID)
			fillProjectOrganization(ev.Data, ev.Organization)
		}
	}
	if o := ev.Organization; o != nil {
		e.OrganizationID, e.LogOrganizationID, e.LogOrganizationSlug = &o.ID, &o.ID, &o.Slug
	}
	if ev.AuthBackend != "" {
		e.AuthBackend = &ev.AuthBackend
	}
	if ev.Data != nil {
		b, err := json.Marshal(ev.Data)
		if err == nil {
			s := string(b)
			e.Data = &s
		}
	}
	if err := rec.Store.CreateAuditEntry(context.WithoutCancel(ctx), e); err != nil {
		rec.logger().ErrorContext(ctx, "recording an audit event", "action", ev.Action, "err", err)
	}
}

// organization is the reference of the organization with that id, nil
// when it cannot be read.
func (rec *Recorder) organization(ctx context.Context, id int64) *Ref {
	orgs, err := rec.Store.FindOrganizationsByIDs(ctx, []int64{id})
	if err != nil || len(orgs) != 1 {
		return nil
	}
	return &Ref{ID: orgs[0].ID, Slug: orgs[0].Slug}
}

// fillProjectOrganization sets the organization of the project in data
// (Project's shape) when the caller left it null.
func fillProjectOrganization(data any, o *Ref) {
	m, ok := data.(map[string]any)
	if !ok || o == nil {
		return
	}
	if p, ok := m["project"].(map[string]any); ok && p["organization"] == nil {
		p["organization"] = map[string]any{"id": o.ID, "slug": o.Slug}
	}
}

func (rec *Recorder) logger() *slog.Logger {
	if rec.Logger != nil {
		return rec.Logger
	}
	return slog.Default()
}

// RecordsPageview reports whether a page view or download of a version
// is recorded: of a version anonymous readers cannot see (private), or of
// any (all).
func (rec *Recorder) RecordsPageview(public bool) bool {
	if rec == nil {
		return false
	}
	switch rec.Pageviews {
	case PageviewsAll:
		return true
	case PageviewsPrivate:
		return !public
	}
	return false
}

// Oldest is the first moment whose entries retention keeps at now (the
// zero time when every entry is kept).
func (rec *Recorder) Oldest(now time.Time) time.Time {
	if rec == nil || rec.RetentionDays <= 0 {
		return time.Time{}
	}
	return now.UTC().AddDate(0, 0, -rec.RetentionDays)
}

// Prune deletes the entries older than the retention and returns how
// many; with no retention it deletes none.
func (rec *Recorder) Prune(ctx context.Context) (int64, error) {
	if rec == nil || rec.RetentionDays <= 0 {
		return 0, nil
	}
	return rec.Store.DeleteAuditEntriesBefore(ctx, rec.Oldest(rec.Store.Now()))
}

// PruneEvery runs Prune now and then every interval until ctx ends,
// logging failures.
func (rec *Recorder) PruneEvery(ctx context.Context, interval time.Duration) {
	if rec == nil || rec.RetentionDays <= 0 {
		return
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if n, err := rec.Prune(ctx); err != nil && ctx.Err() == nil {
			rec.logger().ErrorContext(ctx, "pruning the audit log", "err", err)
		} else if n > 0 {
			rec.logger().InfoContext(ctx, "pruned the audit log", "deleted", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// User is the audit data of a user: {"id", "username"}.
func User(u *store.User) map[string]any { return map[string]any{"id": u.ID, "username": u.Username} }

// Project is the audit data of a project: {"id", "slug", "organization"}.
func Project(p *store.Project) map[string]any {
	return map[string]any{"id": p.ID, "slug": p.Slug, "organization": nil}
}

// Sharing is the audit data of a sharing method.
func Sharing(m *store.SharingMethod) map[string]any {
	return map[string]any{"sharing": map[string]any{"id": m.ID, "access_type": m.AccessType, "description": m.Description, "expires": m.Expires}}
}

// Token is the audit data of an API key.
func Token(t *store.Token) map[string]any {
	return map[string]any{"token": map[string]any{"id": t.ID, "prefix": t.Prefix, "name": t.Name}}
}

// ClientIP is the client address WithRequest put in ctx, "" when none.
func ClientIP(ctx context.Context) string {
	rq, _ := ctx.Value(requestKey{}).(request)
	return rq.ip
}
