package dashboard

import (
	"bytes"
	"errors"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"docsd/internal/accounts"
	"docsd/internal/choices"
	"docsd/internal/errs"
)

// The shapes the pages decode GraphQL data into (see queries.go).
type (
	buildState struct{ Code, Name string }
	buildCmd   struct {
		ID          int64
		Description string
		Command     string
		Output      string
		ExitCode    *int
		RunTime     *int
		StartTime   string
	}
	build struct {
		ID       int64
		State    buildState
		Success  *bool
		Error    *string
		Commit   *string
		Created  string
		Started  *string
		Finished *string
		Duration *int
		ErrorID  *string `json:"errorId"`
		Version  struct{ Slug, VerboseName, PrivacyLevel string }
		DocsURL  string `json:"docsUrl"`
		Commands []buildCmd
	}
	version struct {
		Slug, VerboseName, Type, Identifier string
		Active, Hidden, Built               bool
		PrivacyLevel                        string
		URLs                                struct{ Documentation string } `json:"urls"`
		LastBuild                           *build
		Downloads                           downloads
	}
	// downloads are a version's offline formats: a docs URL, or nil when
	// the version has not that format.
	downloads struct{ PDF, HTMLZip, EPUB *string }

	redirect struct {
		ID                                int64
		Type, FromURL, ToURL, Description string
		HTTPStatus, Position              int
		Force, Enabled                    bool
	}
	// domain is a custom domain as the domains page shows it.
	domain struct {
		ID                                                   int64 `json:"databaseId"`
		Domain, ValidationStatus, ValidationError, SslStatus string
		SslError, ValidationProcessEnd, URL                  string
		Canonical, HTTPS, SkipValidation                     bool
		NextCheck                                            *string
		DNSRecords                                           []struct{ Type, Name, Value string } `json:"dnsRecords"`
	}
	project struct {
		Slug, Name, Description, PrivacyLevel, DefaultVersion string
		ViewerIsMaintainer                                    bool
		Repository                                            struct{ URL, Type string }
		URLs                                                  struct{ Home, Documentation, Builds, Versions string } `json:"urls"`
		Versions                                              struct{ Nodes []version }
		SharingMethods                                        struct{ Nodes []sharingMethod }
		SharingMethod                                         *sharingMethod
		Builds                                                struct {
			TotalCount int
			Nodes      []*build
		}
		Build                *build
		Version              *version
		Redirects            struct{ Nodes []redirect }
		Redirect             *redirect
		EnvironmentVariables struct {
			Nodes []struct {
				ID      int64
				Name    string
				Public  bool
				Created string
			}
		}
		Users        []struct{ Username string }
		Integrations []struct {
			ID                                int64
			Type, Secret, WebhookURL, Created string
		}
		Subprojects struct {
			Nodes []struct {
				Alias string
				Child *struct {
					Slug, Name string
					URLs       struct{ Home, Documentation string } `json:"urls"`
				}
			}
		}
		Translations struct {
			Nodes []struct {
				Slug, Name string
				Language   struct{ Code, Name string }
				URLs       struct{ Home string } `json:"urls"`
			}
		}
		ResolveRedirect *redirectResolution
		Domains         []domain
		// The settings page's fields.
		Homepage                   *string
		StoredDefaultBranch        *string
		ShowVersionWarning         bool
		VersioningScheme           string
		Tags                       []string
		ReadthedocsYamlPath        *string
		ExternalBuildsPrivacyLevel string
		AdminFields                *struct {
			ExternalBuildsEnabled, Skip, EnablePdfBuild, EnableEpubBuild, AddonsEnabled bool
			BuildTimeLimit                                                              *int
		}
		ViewerCanChangeAdminFields bool
		// The settings page's organization form: the project's
		// organization (Organization null unless the viewer is a member)
		// and the teams that include it.
		OrganizationSlug *string
		Organization     *struct {
			Slug, Name    string
			ViewerIsOwner bool
		}
		Teams               []struct{ Slug, Name, Access string }
		Language            struct{ Code string }
		ProgrammingLanguage struct{ Code string }
		// Badge is the project page's badge and its snippets' URLs.
		Badge *struct{ Version, ImageURL, LinkURL string }
		// The repository access page's fields.
		SSHKey        *struct{ Type, PublicKey, Fingerprint, Created string } `json:"sshKey"`
		SSHKnownHosts []struct {
			Host, KeyType, Fingerprint, Line string
			Learned                          bool
		} `json:"sshKnownHosts"`
		RepositoryCredentials *struct{ Username, Created, Modified string }
		// Build notifications and automation rules (notifications.go).
		EmailNotifications []emailNotification
		Webhooks           struct{ Nodes []webhook }
		Webhook            *webhook
		AutomationRules    struct{ Nodes []automationRule }
		// Analytics is the analytics pages' data.
		Analytics *analytics
	}
)

// Values of the GraphQL API that pages compare with (the dashboard is a
// client of the API like any other).
const (
	stateFinished  = "finished"             // Build.state.code of a build that ended
	errorCancelled = "build:user:cancelled" // Build.errorId of a build a maintainer cancelled
	privacyPublic  = "public"               // the privacyLevel anyone may read
)

// signedIn is the signed-in user as pages show them.
type signedIn struct{ Username string }

// statusLabel is how a build's state is shown: its text and CSS class.
type statusLabel struct{ name, class string }

// buildStatus is the one place a build's shown state is decided (app.js's
// label() mirrors it for the live page): a build a maintainer cancelled is
// finished and unsuccessful, but shows "Cancelled", not "Failed" — its
// errorId is errorCancelled.
func buildStatus(b *build) statusLabel {
	switch {
	case b == nil:
		return statusLabel{"Not built", "none"}
	case b.State.Code != stateFinished:
		return statusLabel{b.State.Name, "running"}
	case b.Success != nil && *b.Success:
		return statusLabel{"Passed", "passed"}
	case b.ErrorID != nil && *b.ErrorID == errorCancelled:
		return statusLabel{"Cancelled", "cancelled"}
	default:
		return statusLabel{"Failed", "failed"}
	}
}

// running is the start of build b while it runs ("" once it finished or
// while it is queued): its "Took" counts from there, because the stored
// duration counts only to the last change of step until the build ends.
// app.js mirrors took and running for the live page.
func running(b *build) string {
	if b.State.Code == stateFinished || b.Started == nil {
		return ""
	}
	return *b.Started
}

// took is how long build b took, in whole seconds: its duration once it
// finished, the time since it started while it runs, "" while queued.
func took(b *build) string {
	if since := running(b); since != "" {
		return secondsSince(since)
	}
	if b.State.Code == stateFinished && b.Duration != nil {
		return strconv.Itoa(*b.Duration) + "s"
	}
	return ""
}

// commandRunning is the start of command c of build b while it runs:
// it has no run time yet and b has not finished.
func commandRunning(b *build, c buildCmd) string {
	if c.RunTime != nil || b.State.Code == stateFinished {
		return ""
	}
	return c.StartTime
}

// commandTook is how long command c of build b ran, in whole seconds
// (while it runs, so far).
func commandTook(b *build, c buildCmd) string {
	if since := commandRunning(b, c); since != "" {
		return secondsSince(since)
	}
	if c.RunTime != nil {
		return strconv.Itoa(*c.RunTime) + "s"
	}
	return ""
}

// secondsSince is the whole seconds from the RFC 3339 time t to now.
func secondsSince(t string) string {
	start, err := time.Parse(time.RFC3339Nano, t)
	if err != nil {
		return ""
	}
	return strconv.FormatInt(int64(max(time.Since(start), 0)/time.Second), 10) + "s"
}

// rawLogVisible reports whether the raw log of build b of project p
// (/api/v2/build/<id>.txt) answers the dashboard's visitors: v2 serves
// anyone the builds of public versions of public projects, and only
// those.
func rawLogVisible(p *project, b *build) bool {
	return p.PrivacyLevel == privacyPublic && b.Version.PrivacyLevel == privacyPublic
}

// redirectResolution is the redirects page's dry-run answer.
type redirectResolution struct {
	Location            string
	HTTPStatus          int
	OnlyWhenPageMissing bool
	Redirect            redirect
}

// apiToken is one of the viewer's API keys, without the key.
type apiToken struct{ ID, Prefix, Name, Created string }

// page is what every template gets.
type page struct {
	Title   string
	User    *signedIn // nil for an anonymous visitor
	CSRF    string    // the session's CSRF token (the sign-in form's before one)
	CSRFKey string
	Next    string
	Errors  formErrors
	Form    map[string]string
	Project *project
	Build   *build
	Version *version
	// Projects is the dashboard's list; Query the build page's subscription.
	Projects []project
	Query    string
	// DryRun is the redirects page's dry run: the path asked about (Asked
	// false when none was) and the answer (nil: no redirect applies).
	DryRun struct {
		Asked bool
		Path  string
		Found *redirectResolution
	}
	// Tokens is the tokens page's list; NewKey the key just created, shown
	// this once.
	Tokens []apiToken
	NewKey string
	// Admin is the settings page's admin form (superusers).
	Admin map[string]string
	// OrgSSO is the organization of its single sign-on page.
	OrgSSO *orgSSO
	// SSOName, when not "", offers "Sign in with <SSOName>" on the sign-in
	// page; PasswordsOff hides its password form.
	SSOName      string
	PasswordsOff bool
	// Alert is a page's one message (role="alert") under its title.
	Alert string
	// Organizations is the organizations page's list and the import
	// form's choices; Org the organization of its pages, OrgTab which
	// of them, Team the team of a team's page.
	Organizations []organization
	Org           *organization
	OrgTab        string
	Team          *team
	// InviteURL is an invitation's link when it was not emailed, shown
	// this once.
	InviteURL string
	// SharingTypes names the sharing page's access types.
	SharingTypes map[string]string
	// The security-log pages: the entries shown, how many match, the CSV
	// link, the action filter's choices, and whether the Resource column
	// is shown.
	AuditLog      []auditEntry
	AuditCount    int
	AuditCSV      string
	AuditActions  []string
	AuditResource bool
	// Charts are the analytics pages' charts; Ranges the ranges in days
	// they offer.
	Charts []chart
	Ranges []int
	// Invitation is the invitation page's invitation; SignUp offers its
	// "Create an account" form.
	Invitation *invitation
	SignUp     bool
	// Invited is the outcome of an invitation just made, shown once;
	// Pending the pending invitations of a team (its owners' view) or
	// of a project (its maintainers'), whose Revoke buttons post to
	// RevokePath.
	Invited    *invited
	Pending    []pendingInvitation
	RevokePath string
}

// formField is one labelled field of a form, with its value and message.
type formField struct {
	Name, Label, Value, Error string
	Choices                   choices.Table
}

var funcs = template.FuncMap{
	"status":         func(b *build) string { return buildStatus(b).name },
	"statusClass":    func(b *build) string { return buildStatus(b).class },
	"took":           took,
	"running":        running,
	"commandTook":    commandTook,
	"commandRunning": commandRunning,
	"rawLogVisible":  rawLogVisible,
	"analyticshead":  analyticsHead,
	// now is the server's time, from which the build page's script
	// counts running times, whatever the reader's clock says.
	"now": func() string { return time.Now().UTC().Format(time.RFC3339Nano) },
	"when": func(s any) string {
		var v string
		switch t := s.(type) {
		case string:
			v = t
		case *string:
			if t == nil {
				return ""
			}
			v = *t
		}
		tm, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return v
		}
		return tm.UTC().Format("2006-01-02 15:04:05 UTC")
	},
	// hasItem reports whether the comma-separated list has item.
	"hasItem": func(list, item string) bool { return slices.Contains(strings.Split(list, ","), item) },
	"short": func(s *string) string {
		if s == nil {
			return ""
		}
		return (*s)[:min(len(*s), 8)]
	},
	"privacyLevels": func() choices.Table { return choices.PrivacyLevels },
	"repoTypes":     func() choices.Table { return choices.RepoTypes },
	"teamAccesses":  func() choices.Table { return teamAccesses },
	// orgChoices are the import form's organizations, none first.
	"orgChoices": func(orgs []organization) choices.Table {
		t := choices.Table{{Code: "", Name: "None (a project of your own)"}}
		for _, o := range orgs {
			t = append(t, choices.Choice{Code: o.Slug, Name: o.Name})
		}
		return t
	},
	"languages": func() choices.Table { return choices.Languages },
	"deleteButton": func(slug, path string, key any, label, csrfKey, csrf string) map[string]any {
		return map[string]any{"Slug": slug, "Path": path, "Key": key, "Label": label, "CSRFKey": csrfKey, "CSRF": csrf}
	},
	// inc is i+1: a list's row i is its last when inc i is its length.
	"inc":              func(i int) int { return i + 1 },
	"redirectTypes":    func() choices.Table { return choices.RedirectTypes },
	"integrationTypes": func() choices.Table { return choices.IntegrationTypes },
	// integrationName is an integration type's name as Read the Docs shows
	// it ("GitHub incoming webhook"), not its code.
	"integrationName": func(code string) string { return choices.IntegrationTypes.Name(code) },
	"httpStatuses": func() choices.Table {
		return choices.Table{{Code: "302", Name: "302 Found"}, {Code: "301", Name: "301 Moved Permanently"}}
	},
	"field": func(name, label string, form map[string]string, errors formErrors) formField {
		return formField{Name: name, Label: label, Value: form[name], Error: errors[name]}
	},
	"choicefield": func(name, label string, choices choices.Table, form map[string]string, errors formErrors) formField {
		return formField{Name: name, Label: label, Value: form[name], Error: errors[name], Choices: choices}
	},
	"progLanguages": func() choices.Table { return choices.ProgrammingLanguages },
	// Build notifications and automation rules (notifications.go).
	"webhookEvents":    func() choices.Table { return webhookEvents },
	"ruleMatches":      func() choices.Table { return ruleMatches },
	"ruleActions":      func() choices.Table { return ruleActions },
	"ruleVersionTypes": func() choices.Table { return ruleVersionTypes },
	"actionName":       func(code string) string { return ruleActions.Name(code) },
	"lastAttempt": func(as []webhookAttempt) *webhookAttempt {
		if len(as) == 0 {
			return nil
		}
		return &as[len(as)-1]
	},
	"matchName": func(code *string) string {
		if code == nil {
			return "Custom match"
		}
		return ruleMatches.Name(*code)
	},
	"versioningSchemes": func() choices.Table { return choices.VersioningSchemes },
	// adminChecks are the admin form's checkboxes, by field (ranged in key order).
	"adminChecks": func() map[string]string {
		return map[string]string{"addons_enabled": "Add the reader client to served pages", "enable_epub_build": "Build an EPUB",
			"enable_pdf_build": "Build a PDF", "skip": "Builds disabled"}
	},
}

// parsePages parses each page template with the layout.
func parsePages() map[string]*template.Template {
	names, err := fs.Glob(templateFiles, "templates/*.html")
	if err != nil {
		panic(err)
	}
	pages := map[string]*template.Template{}
	for _, name := range names {
		base := path.Base(name)
		if base == "layout.html" {
			continue
		}
		pages[strings.TrimSuffix(base, ".html")] = template.Must(template.New(base).Funcs(funcs).ParseFS(templateFiles, "templates/layout.html", name))
	}
	return pages
}

// render writes a page with status code.
func (d *Dashboard) render(w http.ResponseWriter, r *http.Request, s *session, code int, name string, p *page) {
	p.CSRFKey = accounts.CSRFField
	if u := s.viewer.User; u != nil {
		p.User, p.CSRF = &signedIn{Username: u.Username}, s.csrf
	}
	var buf bytes.Buffer
	if err := d.pages[name].ExecuteTemplate(&buf, "layout", p); err != nil {
		d.cfg.Logger.ErrorContext(r.Context(), "dashboard: rendering", "page", name, "err", err)
		http.Error(w, errs.MsgServerError, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	w.Write(buf.Bytes())
}

// notFound is the one 404 page: for a missing object and for one the viewer
// may not see alike. An anonymous visitor is sent to sign in first, since
// the page may exist for someone signed in.
func (d *Dashboard) notFound(w http.ResponseWriter, r *http.Request, s *session) {
	if s.viewer.User == nil && r.Method == http.MethodGet && !strings.HasPrefix(r.URL.Path, "/accounts/") {
		http.Redirect(w, r, "/accounts/login/?next="+urlQuery(r.URL.RequestURI()), http.StatusSeeOther)
		return
	}
	d.render(w, r, s, http.StatusNotFound, "notfound", &page{Title: "Not found"})
}

func (d *Dashboard) forbiddenCSRF(w http.ResponseWriter, r *http.Request, s *session) {
	d.render(w, r, s, http.StatusForbidden, "error", &page{Title: "Forbidden",
		Errors: formErrors{"": "CSRF verification failed. Reload the page and try again."}})
}

// failed answers an error of a page's query: not found (and not visible)
// as the 404 page, anything else as an error page.
func (d *Dashboard) failed(w http.ResponseWriter, r *http.Request, s *session, err error) {
	if errs.Is(err, errs.NotFound) || errs.Is(err, errs.Forbidden) {
		d.notFound(w, r, s)
		return
	}
	d.cfg.Logger.ErrorContext(r.Context(), "dashboard: query", "path", r.URL.Path, "err", err)
	d.render(w, r, s, http.StatusInternalServerError, "error", &page{Title: "Error", Errors: formErrorsOf(err, nil)})
}

// pathID is the {id} of the path: a positive GraphQL Int, else ok is false.
func pathID(r *http.Request) (int64, bool) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	return id, err == nil && id > 0 && id <= 1<<31-1
}

// loadProject runs a project query; a project the viewer cannot see is
// answered as not found, and ok is false.
func (d *Dashboard) loadProject(w http.ResponseWriter, r *http.Request, s *session, query string, vars map[string]any) (*project, bool) {
	var out struct{ Project *project }
	vars["slug"] = r.PathValue("slug")
	if err := d.run(r, s, query, vars, &out); err != nil {
		d.failed(w, r, s, err)
		return nil, false
	}
	if out.Project == nil {
		d.notFound(w, r, s)
		return nil, false
	}
	return out.Project, true
}

// refuseSignIn answers the sign-in page and form when sign-in is turned
// off, and reports whether it did.
func (d *Dashboard) refuseSignIn(w http.ResponseWriter, r *http.Request) bool {
	if d.cfg.SignInRefused == "" {
		return false
	}
	d.render(w, r, &session{}, http.StatusForbidden, "signinoff", &page{Title: "Sign in", Errors: formErrors{"": d.cfg.SignInRefused}})
	return true
}

func (d *Dashboard) handleLoginPage(w http.ResponseWriter, r *http.Request) {
	if d.refuseSignIn(w, r) {
		return
	}
	s := d.readSession(r)
	next := safeNext(r.URL.Query().Get("next"))
	if s.viewer.User != nil {
		http.Redirect(w, r, next, http.StatusSeeOther)
		return
	}
	d.render(w, r, s, http.StatusOK, "login", d.loginPage(&page{Title: "Sign in", Next: next, CSRF: d.loginCSRF(w, r)}))
}

// loginPage adds the single sign-on button and whether passwords are
// taken to the sign-in page p.
func (d *Dashboard) loginPage(p *page) *page {
	if d.cfg.OIDC != nil {
		p.SSOName = d.cfg.OIDC.Name()
	}
	p.PasswordsOff = d.cfg.Accounts.PasswordsOff()
	return p
}

func (d *Dashboard) handleLogin(w http.ResponseWriter, r *http.Request) {
	if d.refuseSignIn(w, r) {
		return
	}
	s := &session{}
	next := safeNext(r.PostFormValue("next"))
	username := r.PostFormValue("login")
	p := d.loginPage(&page{Title: "Sign in", Next: next, Form: map[string]string{"login": username}})
	c, err := r.Cookie(loginCSRFCookie)
	if err != nil || c.Value == "" || r.PostFormValue(accounts.CSRFField) != c.Value {
		p.CSRF = d.loginCSRF(w, r)
		p.Errors = formErrors{"": "CSRF verification failed. Reload the page and try again."}
		d.render(w, r, s, http.StatusForbidden, "login", p)
		return
	}
	p.CSRF = c.Value
	u, value, err := d.cfg.Accounts.SignInUser(r.Context(), username, r.PostFormValue("password"), d.cfg.ClientAddr(r))
	if err != nil {
		code := http.StatusBadRequest
		var throttled *accounts.ThrottledError
		var data map[string]any
		switch {
		case errors.As(err, &throttled):
			code = http.StatusTooManyRequests
			w.Header().Set("Retry-After", strconv.Itoa(int(throttled.Wait/time.Second)+1))
		case errs.Is(err, errs.Forbidden):
			code = http.StatusForbidden
			if reason, ok := errs.DetailsOf(err)["reason"]; ok {
				data = map[string]any{"reason": reason}
			}
		}
		if code != http.StatusTooManyRequests && (errs.Is(err, errs.Unauthenticated) || errs.Is(err, errs.Forbidden)) {
			d.audit(r, accounts.AuditEvent{Action: accounts.ActionAuthenticationFailure, AuthBackend: accounts.BackendPassword,
				User: u, Username: username, Data: data})
		}
		p.Errors = formErrorsOf(err, nil)
		d.render(w, r, s, code, "login", p)
		return
	}
	d.audit(r, accounts.AuditEvent{Action: accounts.ActionAuthentication, AuthBackend: accounts.BackendPassword, User: u, Username: u.Username})
	d.setSessionCookie(w, value)
	http.Redirect(w, r, next, http.StatusSeeOther)
}

func (d *Dashboard) handleLogoutPage(w http.ResponseWriter, r *http.Request, s *session) {
	d.render(w, r, s, http.StatusOK, "logout", &page{Title: "Sign out"})
}

// handleLogout ends the session. Without a live session it only clears the
// cookie; with one, the CSRF token must match.
func (d *Dashboard) handleLogout(w http.ResponseWriter, r *http.Request) {
	s := d.readSession(r)
	if s.viewer.User != nil {
		if !accounts.ValidCSRF(s.value, r.PostFormValue(accounts.CSRFField)) {
			d.forbiddenCSRF(w, r, s)
			return
		}
		made, err := d.cfg.Accounts.SignOut(r.Context(), s.value)
		if err != nil {
			d.failed(w, r, s, err)
			return
		}
		backend := ""
		if made != nil {
			backend = made.AuthBackend
		}
		d.audit(r, accounts.AuditEvent{Action: accounts.ActionLogOut, AuthBackend: backend, User: s.viewer.User, Username: s.viewer.User.Username})
		d.setSessionCookie(w, "")
		if made != nil && made.AuthBackend == accounts.BackendOIDC && d.cfg.OIDC != nil {
			if to := d.cfg.OIDC.EndSessionURL(r.Context(), made.IDToken); to != "" {
				http.Redirect(w, r, to, http.StatusFound)
				return
			}
		}
	}
	d.setSessionCookie(w, "")
	http.Redirect(w, r, "/accounts/login/", http.StatusFound)
}

func (d *Dashboard) handleDashboard(w http.ResponseWriter, r *http.Request, s *session) {
	d.renderDashboard(w, r, s, http.StatusOK, &page{})
}

func (d *Dashboard) renderDashboard(w http.ResponseWriter, r *http.Request, s *session, code int, p *page) {
	var out struct {
		Projects      struct{ Nodes []project }
		Organizations struct{ Nodes []organization }
	}
	if err := d.run(r, s, dashboardQuery, nil, &out); err != nil {
		d.failed(w, r, s, err)
		return
	}
	p.Title, p.Projects, p.Organizations = "Dashboard", out.Projects.Nodes, out.Organizations.Nodes
	d.render(w, r, s, code, "dashboard", p)
}

func (d *Dashboard) handleImport(w http.ResponseWriter, r *http.Request, s *session) {
	form := map[string]string{"name": r.PostFormValue("name"), "repository": r.PostFormValue("repository"), "repo_type": r.PostFormValue("repo_type"),
		"organization": r.PostFormValue("organization")}
	var out struct {
		ImportProject struct{ Project *struct{ Slug string } }
	}
	err := checkEnums(enumValue{"repository.type", form["repo_type"], choices.RepoTypes})
	if err == nil {
		vars := map[string]any{"name": form["name"], "url": form["repository"], "type": form["repo_type"], "organization": nil}
		if form["organization"] != "" {
			vars["organization"] = form["organization"]
		}
		err = d.run(r, s, importMutation, vars, &out)
	}
	if err != nil || out.ImportProject.Project == nil {
		d.renderDashboard(w, r, s, formStatus(err), &page{Form: form, Errors: formErrorsOf(err, importFields)})
		return
	}
	http.Redirect(w, r, "/projects/"+out.ImportProject.Project.Slug+"/", http.StatusSeeOther)
}

// importFields maps importProject's input fields to the import form's.
var importFields = map[string]string{"name": "name", "repository": "repository", "repository.url": "repository",
	"repository.non_field_errors": "repository", "repository.type": "repo_type", "organization": "organization", "teams": "organization"}

func (d *Dashboard) handleProject(w http.ResponseWriter, r *http.Request, s *session) {
	p, ok := d.loadProject(w, r, s, projectQuery, map[string]any{})
	if ok {
		d.render(w, r, s, http.StatusOK, "project", &page{Title: p.Name, Project: p})
	}
}

func (d *Dashboard) handleBuilds(w http.ResponseWriter, r *http.Request, s *session) {
	d.renderBuilds(w, r, s, http.StatusOK, &page{})
}

func (d *Dashboard) renderBuilds(w http.ResponseWriter, r *http.Request, s *session, code int, pg *page) {
	p, ok := d.loadProject(w, r, s, buildsQuery, map[string]any{})
	if ok {
		pg.Title, pg.Project = "Builds · "+p.Name, p
		d.render(w, r, s, code, "builds", pg)
	}
}

func (d *Dashboard) handleTrigger(w http.ResponseWriter, r *http.Request, s *session) {
	slug, ver := r.PathValue("slug"), r.PostFormValue("version")
	var out struct {
		TriggerBuild *struct {
			Triggered bool
			Build     *struct{ ID int64 }
		}
	}
	err := d.run(r, s, triggerMutation, map[string]any{"slug": slug, "version": ver}, &out)
	if err == nil && (out.TriggerBuild == nil || out.TriggerBuild.Build == nil) {
		err = errs.E(errs.Invalid, "dashboard.trigger", "The build was not triggered: the version is inactive or builds are turned off for the project.")
	}
	if err != nil {
		d.renderBuilds(w, r, s, formStatus(err), &page{Form: map[string]string{"version": ver}, Errors: formErrorsOf(err, nil)})
		return
	}
	http.Redirect(w, r, "/projects/"+slug+"/builds/"+strconv.FormatInt(out.TriggerBuild.Build.ID, 10)+"/", http.StatusSeeOther)
}

func (d *Dashboard) handleBuild(w http.ResponseWriter, r *http.Request, s *session) {
	id, ok := pathID(r)
	if !ok {
		d.notFound(w, r, s)
		return
	}
	p, found := d.loadProject(w, r, s, buildQuery, map[string]any{"id": id})
	if !found {
		return
	}
	if p.Build == nil {
		d.notFound(w, r, s)
		return
	}
	d.render(w, r, s, http.StatusOK, "build", &page{Title: "Build #" + strconv.FormatInt(id, 10) + " · " + p.Name,
		Project: p, Build: p.Build, Query: buildSubscription})
}

func (d *Dashboard) handleVersions(w http.ResponseWriter, r *http.Request, s *session) {
	p, ok := d.loadProject(w, r, s, versionsQuery, map[string]any{})
	if ok {
		d.render(w, r, s, http.StatusOK, "versions", &page{Title: "Versions · " + p.Name, Project: p})
	}
}

// handleDownloads lists the offline formats of the versions the viewer may
// see; a version without any is left out.
func (d *Dashboard) handleDownloads(w http.ResponseWriter, r *http.Request, s *session) {
	p, ok := d.loadProject(w, r, s, downloadsQuery, map[string]any{})
	if !ok {
		return
	}
	p.Versions.Nodes = slices.DeleteFunc(p.Versions.Nodes, func(v version) bool {
		dl := v.Downloads
		return dl.PDF == nil && dl.HTMLZip == nil && dl.EPUB == nil
	})
	d.render(w, r, s, http.StatusOK, "downloads", &page{Title: "Downloads · " + p.Name, Project: p})
}

// loadVersion loads the version edit page's data; only maintainers see it.
func (d *Dashboard) loadVersion(w http.ResponseWriter, r *http.Request, s *session) (*project, bool) {
	p, ok := d.loadMaintained(w, r, s, versionQuery, map[string]any{"version": r.PathValue("version")})
	if ok && p.Version == nil {
		d.notFound(w, r, s)
		return nil, false
	}
	return p, ok
}

func (d *Dashboard) handleVersion(w http.ResponseWriter, r *http.Request, s *session) {
	if p, ok := d.loadVersion(w, r, s); ok {
		d.render(w, r, s, http.StatusOK, "version", &page{Title: p.Version.VerboseName + " · " + p.Name, Project: p, Version: p.Version})
	}
}

// versionFields maps updateVersion's fields to the version form's.
var versionFields = map[string]string{"active": "active", "hidden": "hidden", "privacy_level": "privacy_level", "privacyLevel": "privacy_level"}

// handleVersionUpdate applies the edit form in one updateVersion and shows
// the form again, as typed, with the API's messages on failure.
func (d *Dashboard) handleVersionUpdate(w http.ResponseWriter, r *http.Request, s *session) {
	p, ok := d.loadVersion(w, r, s)
	if !ok {
		return
	}
	v := p.Version
	v.Active, v.Hidden, v.PrivacyLevel = r.PostFormValue("active") == "on", r.PostFormValue("hidden") == "on", r.PostFormValue("privacy_level")
	err := checkEnums(enumValue{"privacy_level", v.PrivacyLevel, choices.PrivacyLevels})
	if err == nil {
		err = d.run(r, s, updateVersionMutation, map[string]any{"slug": p.Slug, "version": v.Slug,
			"active": v.Active, "hidden": v.Hidden, "privacy": v.PrivacyLevel}, nil)
	}
	if err != nil {
		d.render(w, r, s, formStatus(err), "version", &page{Title: v.VerboseName + " · " + p.Name, Project: p, Version: v, Errors: formErrorsOf(err, versionFields)})
		return
	}
	http.Redirect(w, r, "/projects/"+p.Slug+"/versions/", http.StatusSeeOther)
}

// handleBuildAction cancels a build or builds its version again
// (cancelBuild, retryBuild) and shows the build page that results; a
// refusal is shown on the builds page.
func (d *Dashboard) handleBuildAction(w http.ResponseWriter, r *http.Request, s *session) {
	slug := r.PathValue("slug")
	id, ok := pathID(r)
	action := r.PathValue("action")
	if !ok || (action != "cancel" && action != "retry") {
		d.notFound(w, r, s)
		return
	}
	var err error
	target := id
	if action == "cancel" {
		err = d.run(r, s, cancelMutation, map[string]any{"id": id}, nil)
	} else {
		var out struct {
			RetryBuild struct{ Build *struct{ ID int64 } }
		}
		err = d.run(r, s, retryMutation, map[string]any{"id": id}, &out)
		if err == nil && out.RetryBuild.Build == nil {
			err = errs.E(errs.Invalid, "dashboard.retry", "The build was not triggered: the version is inactive or builds are turned off for the project.")
		}
		if err == nil {
			target = out.RetryBuild.Build.ID
		}
	}
	if err != nil {
		d.renderBuilds(w, r, s, formStatus(err), &page{Errors: formErrorsOf(err, nil)})
		return
	}
	http.Redirect(w, r, "/projects/"+slug+"/builds/"+strconv.FormatInt(target, 10)+"/", http.StatusSeeOther)
}

// settingsFields maps updateProject's fields to the settings form's.
var settingsFields = map[string]string{"name": "name", "repository": "repository", "repository.url": "repository",
	"repository.type": "repo_type", "homepage": "homepage", "language": "language", "programming_language": "programming_language",
	"default_version": "default_version", "default_branch": "default_branch", "privacy_level": "privacy_level",
	"show_version_warning": "show_version_warning", "versioning_scheme": "versioning_scheme", "single_version": "versioning_scheme",
	"tags": "tags", "readthedocs_yaml_path": "readthedocs_yaml_path", "external_builds_enabled": "external_builds_enabled",
	"external_builds_privacy_level": "external_builds_privacy_level"}

// settingsForm is the settings form's values of a project.
func settingsForm(p *project) map[string]string {
	deref := func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	}
	return map[string]string{"name": p.Name, "repository": p.Repository.URL, "repo_type": p.Repository.Type,
		"homepage": deref(p.Homepage), "language": p.Language.Code, "programming_language": p.ProgrammingLanguage.Code,
		"default_version": p.DefaultVersion, "default_branch": deref(p.StoredDefaultBranch), "privacy_level": p.PrivacyLevel,
		"show_version_warning": checked(p.ShowVersionWarning), "versioning_scheme": p.VersioningScheme,
		"tags": strings.Join(p.Tags, ", "), "readthedocs_yaml_path": deref(p.ReadthedocsYamlPath),
		"external_builds_enabled":       checked(p.AdminFields != nil && p.AdminFields.ExternalBuildsEnabled),
		"external_builds_privacy_level": p.ExternalBuildsPrivacyLevel,
		"organization":                  deref(p.OrganizationSlug), "teams": ""}
}

// loadMaintained runs a project query for a page only maintainers see:
// anyone else gets the 404 page.
func (d *Dashboard) loadMaintained(w http.ResponseWriter, r *http.Request, s *session, query string, vars map[string]any) (*project, bool) {
	p, ok := d.loadProject(w, r, s, query, vars)
	if ok && !p.ViewerIsMaintainer {
		d.notFound(w, r, s)
		return nil, false
	}
	return p, ok
}

// loadSettings loads the settings page's data.
func (d *Dashboard) loadSettings(w http.ResponseWriter, r *http.Request, s *session) (*project, bool) {
	return d.loadMaintained(w, r, s, settingsQuery, map[string]any{})
}

func (d *Dashboard) handleSettings(w http.ResponseWriter, r *http.Request, s *session) {
	if p, ok := d.loadSettings(w, r, s); ok {
		d.renderSettings(w, r, s, http.StatusOK, &page{Project: p, Form: settingsForm(p), Admin: adminForm(p)})
	}
}

// handleSettingsUpdate sends the fields the form changed in one
// updateProject (a blank default branch clears it), and shows the form
// again, as typed, with the API's messages on failure.
func (d *Dashboard) handleSettingsUpdate(w http.ResponseWriter, r *http.Request, s *session) {
	p, ok := d.loadSettings(w, r, s)
	if !ok {
		return
	}
	was, form := settingsForm(p), map[string]string{}
	for k := range was {
		form[k] = strings.TrimSpace(r.PostFormValue(k))
	}
	form["organization"], form["teams"] = was["organization"], was["teams"] // the organization form's
	input := map[string]any{}
	set := func(field, api string, value any) {
		if form[field] != was[field] {
			input[api] = value
		}
	}
	for _, f := range [][2]string{{"name", "name"}, {"homepage", "homepage"}, {"language", "language"},
		{"programming_language", "programmingLanguage"}, {"default_version", "defaultVersion"}, {"privacy_level", "privacyLevel"},
		{"versioning_scheme", "versioningScheme"}, {"readthedocs_yaml_path", "readthedocsYamlPath"},
		{"external_builds_privacy_level", "externalBuildsPrivacyLevel"}} {
		set(f[0], f[1], form[f[0]])
	}
	if form["default_branch"] == "" {
		set("default_branch", "defaultBranch", nil)
	} else {
		set("default_branch", "defaultBranch", form["default_branch"])
	}
	set("show_version_warning", "showVersionWarning", form["show_version_warning"] == "on")
	set("external_builds_enabled", "externalBuildsEnabled", form["external_builds_enabled"] == "on")
	set("tags", "tags", splitTags(form["tags"]))
	if form["repository"] != was["repository"] || form["repo_type"] != was["repo_type"] {
		input["repository"] = map[string]any{"url": form["repository"], "type": form["repo_type"]}
	}
	err := checkEnums(enumValue{"privacy_level", form["privacy_level"], choices.PrivacyLevels},
		enumValue{"external_builds_privacy_level", form["external_builds_privacy_level"], choices.PrivacyLevels},
		enumValue{"versioning_scheme", form["versioning_scheme"], choices.VersioningSchemes},
		enumValue{"repository.type", form["repo_type"], choices.RepoTypes})
	if err == nil && len(input) > 0 {
		input["slug"] = p.Slug
		err = d.run(r, s, updateProjectMutation, map[string]any{"input": input}, nil)
	}
	if err != nil {
		d.renderSettings(w, r, s, formStatus(err), &page{Project: p, Form: form, Admin: adminForm(p), Errors: formErrorsOf(err, settingsFields)})
		return
	}
	http.Redirect(w, r, "/projects/"+p.Slug+"/", http.StatusSeeOther)
}

// adminForm is the admin settings form's values of a project (superusers
// only: setProjectAdminFields).
func adminForm(p *project) map[string]string {
	f := map[string]string{}
	if a := p.AdminFields; a != nil {
		for k, v := range map[string]bool{"skip": a.Skip, "enable_pdf_build": a.EnablePdfBuild, "enable_epub_build": a.EnableEpubBuild, "addons_enabled": a.AddonsEnabled} {
			f[k] = checked(v)
		}
		if a.BuildTimeLimit != nil {
			f["build_time_limit"] = strconv.Itoa(*a.BuildTimeLimit)
		}
	}
	return f
}

// adminFields maps setProjectAdminFields' fields to the admin form's.
var adminFields = map[string]string{"skip": "skip", "enable_pdf_build": "enable_pdf_build", "enable_epub_build": "enable_epub_build",
	"addons_enabled": "addons_enabled", "build_time_limit": "build_time_limit"}

// handleAdminUpdate applies the admin form (superusers) in one
// setProjectAdminFields: every field is sent; a blank time limit restores
// the operator's default (0). A time limit that is not a number is the
// form's own message, next to the field.
func (d *Dashboard) handleAdminUpdate(w http.ResponseWriter, r *http.Request, s *session) {
	p, ok := d.loadSettings(w, r, s)
	if !ok {
		return
	}
	admin := map[string]string{}
	for k := range adminFields {
		admin[k] = strings.TrimSpace(r.PostFormValue(k))
	}
	limit, err := 0, error(nil)
	if admin["build_time_limit"] != "" {
		if limit, err = strconv.Atoi(admin["build_time_limit"]); err != nil {
			err = errs.FieldError("dashboard.admin", "build_time_limit", errs.MsgNotInteger)
		}
	}
	if err == nil {
		input := map[string]any{"skip": admin["skip"] == "on", "enablePdfBuild": admin["enable_pdf_build"] == "on",
			"enableEpubBuild": admin["enable_epub_build"] == "on", "addonsEnabled": admin["addons_enabled"] == "on", "buildTimeLimit": limit}
		input["slug"] = p.Slug
		err = d.run(r, s, adminMutation, map[string]any{"input": input}, nil)
	}
	if err != nil {
		d.renderSettings(w, r, s, formStatus(err), &page{Project: p, Form: settingsForm(p), Admin: admin, Errors: formErrorsOf(err, adminFields)})
		return
	}
	http.Redirect(w, r, "/projects/"+p.Slug+"/edit/", http.StatusSeeOther)
}

// splitTags reads the settings form's comma-separated tags (the API trims
// them and drops empty ones and duplicates).
func splitTags(s string) []string {
	tags := []string{}
	for _, t := range strings.Split(s, ",") {
		if t = strings.TrimSpace(t); t != "" {
			tags = append(tags, t)
		}
	}
	return tags
}

// formStatus is the HTTP status of a form's failed write: the kind's one
// status (errs.HTTPStatus), so that a visitor who may not do it gets 403.
func formStatus(err error) int { return errs.HTTPStatus(errs.KindOf(err)) }
