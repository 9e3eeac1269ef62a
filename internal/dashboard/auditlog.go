package dashboard

import (
	"encoding/csv"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	"docsd/graph"
	"docsd/internal/access"
)

// The security-log pages: the signed-in user's own events
// (/accounts/security-log/) and a project's (/projects/<p>/security-log/,
// admins only), filtered as the audit API is, and their CSV export
// (?download=true), which also takes `Authorization: Token <key>` instead
// of a session so that scripts can export without a browser.

type auditEntry struct {
	ID           int64 `json:"databaseId"`
	Action       string
	AuthBackend  *string
	Browser      string
	Created      string
	Data         json.RawMessage
	IP           string `json:"ip"`
	Resource     string
	User         *struct{ Username string }
	Project      *struct{ Slug string }
	Organization *struct{ Slug string }
}

const auditQuery = `query($filter: AuditLogFilterInput, $limit: Int, $offset: Int) {
	auditLogs(filter: $filter, limit: $limit, offset: $offset) {
		totalCount
		nodes { databaseId action authBackend browser created data ip resource user { username } project { slug } organization { slug } }
	}
}`

// auditFilterNames are the filters the pages take: query name → the
// filter input's field.
var auditFilterNames = [][2]string{{"action", "action"}, {"ip", "ip"}, {"user", "user"}, {"date_after", "dateAfter"}, {"date_before", "dateBefore"}}

// auditPageSize is how many entries a page shows; the CSV has them all.
const auditPageSize = 100

func (d *Dashboard) mountAuditLog() {
	d.mux.HandleFunc("GET /accounts/security-log/{$}", d.withToken(d.handleUserSecurityLog))
	d.mux.HandleFunc("GET /projects/{slug}/security-log/{$}", d.withToken(d.handleProjectSecurityLog))
}

// withToken is signedIn, except that a CSV export (?download=true) with
// an `Authorization: Token <key>` header runs as the key's user.
func (d *Dashboard) withToken(h func(http.ResponseWriter, *http.Request, *session)) http.HandlerFunc {
	signedIn := d.signedIn(h)
	return func(w http.ResponseWriter, r *http.Request) {
		header := r.Header.Get("Authorization")
		if r.URL.Query().Get("download") != "true" || header == "" {
			signedIn(w, r)
			return
		}
		ctx, err := d.cfg.Executor.Authenticate(r.Context(), header)
		v := access.ViewerFrom(ctx)
		if err != nil || v.User == nil {
			http.Error(w, "Invalid token.", http.StatusUnauthorized)
			return
		}
		h(w, r, &session{viewer: v})
	}
}

func (d *Dashboard) handleUserSecurityLog(w http.ResponseWriter, r *http.Request, s *session) {
	filter, form := auditFilterOf(r.URL.Query())
	filter["user"] = s.viewer.User.Username
	name := "docsd_user_security_logs_" + s.viewer.User.Username
	d.securityLog(w, r, s, securityLogOf{}, filter, form, name, false)
}

func (d *Dashboard) handleProjectSecurityLog(w http.ResponseWriter, r *http.Request, s *session) {
	p, ok := d.loadMaintained(w, r, s, `query($slug: String!) { project(slug: $slug) { `+projectFields+` } }`, map[string]any{})
	if !ok {
		return
	}
	filter, form := auditFilterOf(r.URL.Query())
	filter["project"] = p.Slug
	d.securityLog(w, r, s, securityLogOf{project: p}, filter, form, "docsd_project_security_logs_"+p.Slug, true)
}

// auditFilterOf reads the pages' filters: the filter input and the form's
// values.
func auditFilterOf(q url.Values) (map[string]any, map[string]string) {
	filter, form := map[string]any{}, map[string]string{}
	for _, n := range auditFilterNames {
		if v := strings.TrimSpace(q.Get(n[0])); v != "" {
			filter[n[1]], form[n[0]] = v, v
		}
	}
	return filter, form
}

// securityLogOf is whose security log a page is: a project's, an
// organization's, or (neither) the viewer's own.
type securityLogOf struct {
	project *project
	org     *organization
}

// securityLog answers a security-log page, or its CSV with ?download=true;
// withResource adds the Resource column (project and organization logs).
func (d *Dashboard) securityLog(w http.ResponseWriter, r *http.Request, s *session, of securityLogOf, filter map[string]any, form map[string]string, file string, withResource bool) {
	if r.URL.Query().Get("download") == "true" {
		d.securityLogCSV(w, r, s, filter, form, file, withResource)
		return
	}
	var out struct {
		AuditLogs struct {
			TotalCount int
			Nodes      []auditEntry
		}
	}
	title := "Security log"
	switch {
	case of.project != nil:
		title += " · " + of.project.Name
	case of.org != nil:
		title += " · " + of.org.Name
	}
	pg := &page{Title: title, Project: of.project, Org: of.org, OrgTab: "security-log", Form: form, AuditActions: graph.AuditActions(), AuditResource: withResource}
	if err := d.run(r, s, auditQuery, map[string]any{"filter": filter, "limit": auditPageSize, "offset": 0}, &out); err != nil {
		pg.Errors = formErrorsOf(err, map[string]string{"action": "action", "date_after": "date_after", "date_before": "date_before"})
		d.render(w, r, s, formStatus(err), "securitylog", pg)
		return
	}
	q := r.URL.Query()
	q.Set("download", "true")
	pg.AuditLog, pg.AuditCount, pg.AuditCSV = out.AuditLogs.Nodes, out.AuditLogs.TotalCount, r.URL.Path+"?"+q.Encode()
	d.render(w, r, s, http.StatusOK, "securitylog", pg)
}

// securityLogCSV writes every matching entry as CSV (RFC 4180), a page of
// the API at a time.
func (d *Dashboard) securityLogCSV(w http.ResponseWriter, r *http.Request, s *session, filter map[string]any, form map[string]string, file string, withResource bool) {
	type pageOut struct {
		AuditLogs struct {
			TotalCount int
			Nodes      []auditEntry
		}
	}
	var first pageOut
	if err := d.run(r, s, auditQuery, map[string]any{"filter": filter, "limit": auditPageSize, "offset": 0}, &first); err != nil {
		d.failed(w, r, s, err)
		return
	}
	start := form["date_after"]
	if start == "" {
		start = d.oldestKept()
	}
	end := form["date_before"]
	if end == "" {
		end = time.Now().UTC().Format(time.DateOnly)
	}
	h := w.Header()
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", `attachment; filename="`+file+"_"+start+"_"+end+`.csv"`)
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	header := []string{"Date (UTC)", "User", "Project", "Organization", "Action"}
	if withResource {
		header = append(header, "Resource")
	}
	cw.Write(append(header, "IP", "Browser", "Extra data"))
	write := func(es []auditEntry) {
		for _, e := range es {
			row := []string{csvTime(e.Created), nameOf(e.User), slugOf(e.Project), slugOf(e.Organization), e.Action}
			if withResource {
				row = append(row, e.Resource)
			}
			data := ""
			if len(e.Data) > 0 && string(e.Data) != "null" {
				data = string(e.Data)
			}
			cw.Write(append(row, e.IP, e.Browser, data))
		}
		cw.Flush()
	}
	write(first.AuditLogs.Nodes)
	for offset := auditPageSize; offset < first.AuditLogs.TotalCount; offset += auditPageSize {
		var next pageOut
		if err := d.run(r, s, auditQuery, map[string]any{"filter": filter, "limit": auditPageSize, "offset": offset}, &next); err != nil {
			d.cfg.Logger.ErrorContext(r.Context(), "dashboard: security log export", "err", err)
			return
		}
		write(next.AuditLogs.Nodes)
	}
}

// oldestKept is the first day the retention keeps (today without one).
func (d *Dashboard) oldestKept() string {
	now := time.Now().UTC()
	if d.cfg.AuditRetentionDays > 0 {
		now = now.AddDate(0, 0, -d.cfg.AuditRetentionDays)
	}
	return now.Format(time.DateOnly)
}

func csvTime(s string) string {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return s
	}
	return t.UTC().Format(time.DateTime)
}

func nameOf(u *struct{ Username string }) string {
	if u == nil {
		return ""
	}
	return u.Username
}

func slugOf(p *struct{ Slug string }) string {
	if p == nil {
		return ""
	}
	return p.Slug
}
