// Package dashboard serves docsd's web dashboard: server-rendered
// html/template pages with a little JavaScript, embedded in the binary.
// Every page reads and writes through the GraphQL schema, run in process by
// the same executor as /graphql with the signed-in user as viewer, so the
// dashboard can do nothing another client of /graphql could not. The build
// page's script polls /graphql itself with the session cookie and its CSRF
// header. Signing in is the one thing outside the graph (package accounts).
package dashboard

import (
	"context"
	"crypto/rand"
	"embed"
	"encoding/hex"
	"errors"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"docsd/graph"
	"docsd/internal/access"
	"docsd/internal/accounts"
	"docsd/internal/errs"
	"docsd/internal/sitepath"
	"docsd/internal/slashredirect"
)

//go:embed templates/*.html
var templateFiles embed.FS

//go:embed static
var staticFiles embed.FS

// loginCSRFCookie holds the double-submit CSRF token of the sign-in and
// sign-up forms (there is no session yet to derive one from).
const loginCSRFCookie = "docsd_login_csrf"

// Config is what the dashboard needs from cmd.
type Config struct {
	Executor *graph.Executor
	Accounts *accounts.Accounts
	// Secure marks cookies Secure: the public URL is https.
	Secure bool
	// ClientAddr is the client's address behind trusted proxies, for the
	// sign-in throttle.
	ClientAddr func(*http.Request) string
	Logger     *slog.Logger
	// SignInRefused, when not "", says why nobody may sign in: the sign-in
	// page shows it instead of the form, a sign-in POST is refused with it,
	// and no session cookie is honoured. cmd sets it when hosted docs share
	// the dashboard's origin.
	SignInRefused string
	// OIDC, when set, offers sign-in with the install's OpenID Provider
	// (/accounts/oidc/login/); nil: those pages are 404.
	OIDC *accounts.OIDC
	// Audit, when set, records sign-ins, refused sign-ins and sign-outs.
	Audit func(*http.Request, accounts.AuditEvent)
	// AuditRetentionDays is --audit-retention-days: the CSV export's file
	// name starts with the first day kept.
	AuditRetentionDays int
	// DocsHost reports whether a host is a docs host of this server that
	// the sign-in hand-off may send a browser back to (nil: none is);
	// DocsScheme is the scheme to send it back with.
	DocsHost   func(host string) bool
	DocsScheme string
}

// Dashboard is the dashboard's HTTP handler.
type Dashboard struct {
	cfg   Config
	pages map[string]*template.Template
	mux   *http.ServeMux
}

// Paths is every path prefix the dashboard answers; cmd mounts them.
var Paths = []string{"/accounts/", "/dashboard/", "/projects/", "/organizations/", "/invitations/"}

// New returns the dashboard.
func New(cfg Config) *Dashboard {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	d := &Dashboard{cfg: cfg, pages: parsePages(), mux: http.NewServeMux()}
	static, _ := fs.Sub(staticFiles, "static")
	d.mux.Handle("GET /dashboard/static/", http.StripPrefix("/dashboard/static/", http.FileServerFS(static)))
	d.mux.HandleFunc("GET /accounts/login/", d.handleLoginPage)
	d.mux.HandleFunc("POST /accounts/login/", d.handleLogin)
	d.mux.HandleFunc("GET /accounts/logout/", d.signedIn(d.handleLogoutPage))
	d.mux.HandleFunc("POST /accounts/logout/", d.handleLogout)
	d.mux.HandleFunc("GET "+accounts.OIDCLoginPath+"{$}", d.handleOIDCLogin)
	d.mux.HandleFunc("GET "+accounts.OIDCCallbackPath+"{$}", d.handleOIDCCallback)
	d.mux.HandleFunc("GET /dashboard/{$}", d.signedIn(d.handleDashboard))
	d.mux.HandleFunc("POST /dashboard/import/", d.signedIn(d.handleImport))
	d.mux.HandleFunc("GET /projects/{slug}/{$}", d.viewer(d.handleProject))
	d.mux.HandleFunc("GET /projects/{slug}/builds/{$}", d.viewer(d.handleBuilds))
	d.mux.HandleFunc("POST /projects/{slug}/builds/{$}", d.signedIn(d.handleTrigger))
	d.mux.HandleFunc("GET /projects/{slug}/builds/{id}/{$}", d.viewer(d.handleBuild))
	d.mux.HandleFunc("POST /projects/{slug}/builds/{id}/{action}/{$}", d.signedIn(d.handleBuildAction))
	d.mux.HandleFunc("GET /projects/{slug}/versions/{$}", d.viewer(d.handleVersions))
	d.mux.HandleFunc("GET /projects/{slug}/downloads/{$}", d.viewer(d.handleDownloads))
	d.mux.HandleFunc("GET /projects/{slug}/badge/{$}", d.viewer(d.handleBadge))
	// Badge links written by hand often drop the slash; Read the Docs
	// (Django) redirects them, and so does docsd, query kept.
	d.mux.HandleFunc("GET /projects/{slug}/badge", slashredirect.Answer)
	d.mux.HandleFunc("GET /projects/{slug}/edit/{$}", d.signedIn(d.handleSettings))
	d.mountTokens()
	d.mountOrganizations()
	d.mountOrganizationSSO()
	d.mux.HandleFunc("GET /accounts/docs-login/{$}", d.signedIn(d.handleDocsLogin))
	d.mountRedirects()
	d.mountRepositoryAccess()
	d.mountSharing()
	d.mountAuditLog()
	d.mountAnalytics()
	for _, c := range collections {
		c.mount(d)
	}
	d.mountMaintainerInvitations()
	// Build notifications and automation rules.
	d.mountNotifications()
	for _, c := range notificationCollections {
		c.mount(d)
	}
	d.mux.HandleFunc("POST /projects/{slug}/domains/{key}/{action}/{$}", d.signedIn(d.handleDomainUpdate))
	// Invitations.
	d.mountInvitations()
	d.mux.HandleFunc("POST /projects/{slug}/edit/{$}", d.signedIn(d.handleSettingsUpdate))
	d.mux.HandleFunc("POST /projects/{slug}/edit/admin/{$}", d.signedIn(d.handleAdminUpdate))
	d.mux.HandleFunc("GET /projects/{slug}/versions/{version}/{$}", d.signedIn(d.handleVersion))
	d.mux.HandleFunc("POST /projects/{slug}/versions/{version}/{$}", d.signedIn(d.handleVersionUpdate))
	// With the visitor's session: a signed-in visitor gets the 404 page, not
	// a trip to the sign-in page that would send them straight back.
	d.mux.HandleFunc("/", d.viewer(d.notFound))
	return d
}

// ServeHTTP sets the headers every dashboard answer carries and routes.
func (d *Dashboard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "+
		"object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
	d.mux.ServeHTTP(w, r)
}

// session is who asks: viewer is anonymous for a visitor who is not
// signed in; value is the session cookie's value and csrf its token.
type session struct {
	viewer access.Viewer
	value  string
	csrf   string
}

// ctx is the context to run GraphQL operations in as the session's user.
func (s *session) ctx(ctx context.Context) context.Context { return access.WithViewer(ctx, s.viewer) }

// readSession returns the request's live session, or an anonymous one.
func (d *Dashboard) readSession(r *http.Request) *session {
	value := accounts.SessionValue(r)
	if value == "" || d.cfg.SignInRefused != "" {
		return &session{}
	}
	u, err := d.cfg.Accounts.SessionUser(r.Context(), value)
	if err != nil {
		return &session{}
	}
	return &session{viewer: access.SessionViewer(u), value: value, csrf: accounts.CSRFToken(value)}
}

// viewer runs h for anyone: anonymous visitors see public projects.
func (d *Dashboard) viewer(h func(http.ResponseWriter, *http.Request, *session)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { h(w, r, d.readSession(r)) }
}

// signedIn runs h for a signed-in user; anyone else goes to the sign-in
// page and comes back afterwards. Every POST must carry the session's CSRF
// token, or it is refused with 403.
func (d *Dashboard) signedIn(h func(http.ResponseWriter, *http.Request, *session)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s := d.readSession(r)
		if s.viewer.User == nil {
			next := r.URL.RequestURI()
			if r.Method != http.MethodGet {
				next = d.formPage(r)
			}
			http.Redirect(w, r, "/accounts/login/?next="+url.QueryEscape(safeNext(next)), http.StatusSeeOther)
			return
		}
		if r.Method == http.MethodPost && !accounts.ValidCSRF(s.value, r.PostFormValue(accounts.CSRFField)) {
			d.forbiddenCSRF(w, r, s)
			return
		}
		h(w, r, s)
	}
}

// formPage is the page the form of POST r lives on, where a sign-in
// should lead back to: the POST's own path when a page answers GET there
// (most forms post to their page), else the nearest such path above it
// (…/builds/7/cancel/ → …/builds/7/, …/environmentvariables/7/delete/ →
// …/environmentvariables/). Not the Referer, which a browser may leave
// out (Referrer-Policy, privacy settings) and which names the page the
// form was on only when the user came straight from it.
func (d *Dashboard) formPage(r *http.Request) string {
	for p := r.URL.Path; strings.HasPrefix(p, "/") && p != "/"; p = path.Dir(strings.TrimSuffix(p, "/")) + "/" {
		get := r.Clone(r.Context())
		get.Method, get.URL.Path, get.URL.RawPath = http.MethodGet, p, ""
		if _, pattern := d.mux.Handler(get); pattern != "" && pattern != "/" {
			return p
		}
	}
	return "/dashboard/"
}

// safeNext keeps a ?next= target on this site (sitepath.Is), else the
// dashboard.
func safeNext(next string) string { return sitepath.Or(next, "/dashboard/") }

// setSessionCookie sets (or, with value "", clears) the session cookie.
func (d *Dashboard) setSessionCookie(w http.ResponseWriter, value string) {
	c := &http.Cookie{Name: accounts.SessionCookie, Value: value, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: d.cfg.Secure}
	if value == "" {
		c.MaxAge = -1
	} else {
		c.Expires = time.Now().Add(accounts.SessionLifetime)
	}
	http.SetCookie(w, c)
}

// loginCSRF returns the sign-in form's CSRF token, setting its cookie when
// the browser has none.
func (d *Dashboard) loginCSRF(w http.ResponseWriter, r *http.Request) string {
	return d.anonymousCSRF(w, r, "/accounts/")
}

// anonymousCSRF returns the double-submit CSRF token of a form for
// visitors without a session (signing in, signing up), setting its
// cookie for the pages under path when the browser sent none.
func (d *Dashboard) anonymousCSRF(w http.ResponseWriter, r *http.Request, path string) string {
	if c, err := r.Cookie(loginCSRFCookie); err == nil && len(c.Value) == 32 {
		return c.Value
	}
	raw := make([]byte, 16)
	rand.Read(raw)
	token := hex.EncodeToString(raw)
	http.SetCookie(w, &http.Cookie{Name: loginCSRFCookie, Value: token, Path: path, HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: d.cfg.Secure})
	return token
}

// run executes a GraphQL operation as the session's user.
func (d *Dashboard) run(r *http.Request, s *session, query string, vars map[string]any, out any) error {
	return d.cfg.Executor.Do(s.ctx(r.Context()), query, vars, out)
}

// formErrors are a form's messages by field ("" for the form as a whole).
type formErrors map[string]string

// formErrorsOf turns a GraphQL error into messages by form field: the
// extensions.fields of a validation error (their first message) go to the
// form field that fields maps the API's field name to; other fields and
// other errors are messages for the form as a whole, so none is lost.
func formErrorsOf(err error, fields map[string]string) formErrors {
	fe := formErrors{}
	for field, msgs := range errs.FieldsOf(err) {
		if len(msgs) == 0 {
			continue
		}
		if _, taken := fe[fields[field]]; !taken {
			fe[fields[field]] = msgs[0]
		}
	}
	if len(fe) == 0 {
		fe[""] = errs.MsgServerError
		var e *errs.Error
		if errors.As(err, &e) && e.Kind != errs.Internal && e.Kind != errs.Unavailable {
			fe[""] = e.Text()
		}
	}
	return fe
}

// urlQuery escapes a ?next= value.
func urlQuery(s string) string { return url.QueryEscape(safeNext(s)) }
