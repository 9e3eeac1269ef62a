package hosting

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"html/template"
	"net/http"
	"net/url"
	"strings"

	"docsd/internal/access"
	"docsd/internal/audit"
	"docsd/internal/domains"
	"docsd/internal/errs"
	"docsd/internal/sitepath"
	"docsd/store"
)

// Browser access to non-public docs on the hosts that have sessions (a
// project's docs subdomain; the path-mode docs origin with
// Config.PathSessions): `/_/login/` trades an API key for a host-only
// session cookie, and `/_/login/start/` a dashboard session
// (docs/security.md, "Who sees what").
const (
	loginPath    = "/_/login/"
	logoutPath   = "/_/logout/"
	startPath    = "/_/login/start/"
	completePath = "/_/login/complete/"
	sessionName  = "docsd_docs"
	// stateName is the cookie binding a sign-in hand-off to the browser
	// that started it.
	stateName = "docsd_docs_state"
	// originSessions is the host name docs sessions of the path-mode docs
	// origin are stored under; a project's docs host stores its slug,
	// which never holds a "/".
	originSessions = "/"
)

// sessionPages are the pages of `/_/login/` and `/_/logout/`.
var sessionPages = template.Must(template.New("").Parse(`{{define "top"}}<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>{{.Title}}</title>
<style>body{font-family:sans-serif;max-width:28em;margin:4em auto;padding:0 1em;color:#333}input{font:inherit;width:100%;margin:.3em 0 1em;padding:.4em}</style>
</head>
<body>
<h1>{{.Title}}</h1>
{{end}}
{{define "login"}}{{template "top" .}}
{{- if .Error}}<p role="alert">{{.Error}}</p>{{end}}
<form method="post" action="/_/login/">
<label for="token">API token</label>
<input type="password" id="token" name="token" autocomplete="current-password" required>
<input type="hidden" name="next" value="{{.Next}}">
<button type="submit">Sign in</button>
</form>
<p><a href="/_/login/start/?next={{.Next}}">Sign in with your docsd account</a></p>
</body>
</html>
{{end}}
{{define "handoff"}}{{template "top" .}}
<p role="alert">{{.Error}}</p>
<p><a href="/_/login/?next={{.Next}}">Sign in again</a></p>
</body>
</html>
{{end}}
{{define "logout"}}{{template "top" .}}
<p>Sign out of the docs on this site? Private pages will answer as to anyone.</p>
<form method="post" action="/_/logout/">
<button type="submit">Sign out</button>
</form>
</body>
</html>
{{end}}`))

// serveSession answers `/_/login/` and `/_/logout/` (and the hand-off's
// routes) on a docs host whose sessions are stored under key
// (sessionKey), and reports whether the path was one of them. Both change
// the session only by a POST that no other origin sent (the Origin check):
// GET /_/logout/ is a page whose button signs out, so that a link or an
// image on another page of the site cannot sign the reader out.
func (h *Handler) serveSession(w http.ResponseWriter, r *http.Request, key string) bool {
	p := r.URL.Path
	if p == startPath || p == completePath {
		h.serveHandoff(w, r, key)
		return true
	}
	if p != loginPath && p != logoutPath && p+"/" != loginPath && p+"/" != logoutPath {
		return false
	}
	w.Header().Set("Cache-Control", "no-store")
	if r.Method != http.MethodGet && r.Method != http.MethodHead && r.Method != http.MethodPost {
		w.Header().Set("Allow", "GET, HEAD, POST")
		writeJSON(w, r, http.StatusMethodNotAllowed, nil, map[string]string{"detail": `Method "` + r.Method + `" not allowed.`})
		return true
	}
	if !strings.HasSuffix(p, "/") {
		w.Header().Set("Location", p+"/")
		w.WriteHeader(http.StatusMovedPermanently)
		return true
	}
	if r.Method != http.MethodPost {
		if p == logoutPath {
			h.writeSessionPage(w, r, http.StatusOK, "logout", sessionPage{Title: "Sign out of these docs"})
		} else {
			h.writeLogin(w, r, http.StatusOK, r.URL.Query().Get("next"), "")
		}
		return true
	}
	if origin := r.Header.Get("Origin"); origin != "" && !strings.EqualFold(origin, h.requestScheme(r)+"://"+r.Host) {
		detail := "Cross-origin sign-in refused."
		if p == logoutPath {
			detail = "Cross-origin sign-out refused."
		}
		writeJSON(w, r, http.StatusForbidden, nil, map[string]string{"detail": detail})
		return true
	}
	if p == logoutPath {
		if c, err := r.Cookie(sessionName); err == nil {
			if u, err := h.store.FindUserByDocsSession(r.Context(), c.Value, key); err == nil {
				h.audit.Record(r.Context(), audit.Event{Action: store.AuditLogOut, User: u, AuthBackend: access.AuthDocsSession.Backend()})
			}
			if err := h.store.DeleteDocsSession(r.Context(), c.Value); err != nil {
				h.logger.ErrorContext(r.Context(), "ending docs session", "err", err)
			}
		}
		http.SetCookie(w, h.sessionCookie("", -1))
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return true
	}
	next := r.PostFormValue("next")
	value, err := h.store.CreateDocsSession(r.Context(), r.PostFormValue("token"), key)
	if errs.Is(err, errs.Unauthenticated) {
		h.audit.Record(r.Context(), audit.Event{Action: store.AuditAuthenticationFailure, AuthBackend: access.AuthToken.Backend()})
		h.writeLogin(w, r, http.StatusOK, next, "Invalid token.")
		return true
	}
	if err != nil {
		h.logger.ErrorContext(r.Context(), "starting docs session", "err", err)
		serverErrorPage(w, r)
		return true
	}
	if u, err := h.store.FindUserByDocsSession(r.Context(), value, key); err == nil {
		h.audit.Record(r.Context(), audit.Event{Action: store.AuditAuthentication, User: u, AuthBackend: access.AuthToken.Backend()})
	}
	http.SetCookie(w, h.sessionCookie(value, int(store.DocsSessionLifetime.Seconds())))
	http.Redirect(w, r, safeNext(next), http.StatusSeeOther)
	return true
}

// safeNext is next when it is a path on this host (sitepath.Is), else
// "/".
func safeNext(next string) string { return sitepath.Or(next, "/") }

// sessionPage is what the pages of sessionPages show.
type sessionPage struct{ Title, Next, Error string }

func (h *Handler) writeLogin(w http.ResponseWriter, r *http.Request, status int, next, msg string) {
	h.writeSessionPage(w, r, status, "login", sessionPage{Title: "Sign in to read these docs", Next: safeNext(next), Error: msg})
}

// writeSessionPage writes page name of sessionPages (writeFormPage).
func (h *Handler) writeSessionPage(w http.ResponseWriter, r *http.Request, status int, name string, p sessionPage) {
	writeFormPage(w, r, status, sessionPages.Lookup(name), p)
}

// writeFormPage writes one of the docs host's own form pages, t with data;
// no other site may frame it (a framed button could be clicked unawares).
func writeFormPage(w http.ResponseWriter, r *http.Request, status int, t *template.Template, data any) {
	hd := w.Header()
	hd.Set("Content-Type", "text/html; charset=utf-8")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("X-Frame-Options", "DENY")
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		t.Execute(w, data)
	}
}

// sessionCookie is the docs session cookie (host-only, HttpOnly, Lax);
// maxAge < 0 deletes it.
func (h *Handler) sessionCookie(value string, maxAge int) *http.Cookie {
	return &http.Cookie{Name: sessionName, Value: value, Path: "/", MaxAge: maxAge, HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: h.docsScheme() == "https"}
}

// sessionViewer is the viewer of the request's docs session cookie on a
// docs subdomain, anonymous when there is none.
func (rq *request) sessionViewer() (access.Viewer, error) {
	return rq.h.sessionViewer(rq.ctx, rq.r)
}

// requestScheme is the scheme the reader used: https for a request docsd
// received over TLS, else the docs scheme, or on a custom domain the
// scheme its HTTPS flag gives (TLS ended in a proxy).
func (h *Handler) requestScheme(r *http.Request) string {
	if r.TLS != nil {
		return "https"
	}
	if d, ok := h.domains.Served(r.Context(), r.Host); ok {
		s, _, _ := strings.Cut(domains.Origin(d), "://")
		return s
	}
	return h.docsScheme()
}

// SessionUser is the active user of r's docs session cookie when r is on a
// docs host that has sessions, nil when there is none: no cookie, a host
// without sessions, an ended session, a revoked token or an inactive user
// (access.DocsSession).
func (h *Handler) SessionUser(ctx context.Context, r *http.Request) (*store.User, error) {
	v, err := h.sessionViewer(ctx, r)
	return v.User, err
}

// sessionViewer is the viewer of r's docs session cookie, anonymous when
// r's host has no sessions or the cookie names no live session. The
// session acts for its user only on the projects served on its host: on a
// project's docs host those hostProjects gives, on the path-mode docs
// origin every project.
func (h *Handler) sessionViewer(ctx context.Context, r *http.Request) (access.Viewer, error) {
	key, ok := h.sessionKey(ctx, r.Host)
	if !ok {
		return access.Viewer{}, nil
	}
	c, err := r.Cookie(sessionName)
	if err != nil {
		return access.Viewer{}, nil
	}
	v, err := access.DocsSession(ctx, h.store, c.Value, key)
	if err != nil || v.User == nil || key == originSessions {
		return v, err
	}
	v.Projects, err = h.hostProjects(ctx, key)
	return v, err
}

// sessionKey is the host name the docs sessions of host are stored
// under: the project's slug on its docs subdomain or served custom
// domain, originSessions on the path-mode docs origin with
// Config.PathSessions; ok is false on a host without sessions.
func (h *Handler) sessionKey(ctx context.Context, host string) (string, bool) {
	if slug, ok := h.hostProject(ctx, host); ok {
		return slug, true
	}
	return originSessions, h.onSessionOrigin(host)
}

// hostProjects are the projects served on the docs subdomain of project
// slug, the only ones a cookie of that host acts for: the project, its
// translations, its subprojects and theirs.
func (h *Handler) hostProjects(ctx context.Context, slug string) ([]int64, error) {
	p, err := h.cache.projectBySlug(ctx, slug)
	if errs.Is(err, errs.NotFound) {
		return []int64{}, nil
	}
	if err != nil {
		return nil, err
	}
	ids := []int64{p.ID}
	rels, err := h.cache.children(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	for _, rel := range rels {
		ids = append(ids, rel.ChildID)
	}
	mains := ids
	for _, id := range mains {
		ts, _, err := h.store.FindProjects(ctx, store.ProjectFilter{TranslationOf: &id})
		if err != nil {
			return nil, err
		}
		for _, t := range ts {
			ids = append(ids, t.ID)
		}
	}
	return ids, nil
}

// serveHandoff answers the sign-in hand-off from the dashboard on a docs
// host whose sessions are stored under key: `/_/login/start/` sends the
// browser to the dashboard's /accounts/docs-login/ with a fresh state
// bound to it by a cookie; the dashboard sends it back to
// `/_/login/complete/` with a one-time code, traded here for a docs
// session that ends with the dashboard session. The session's rights are
// limited to this host's projects, so a forged start gains an attacker
// nothing. Both outcomes of a completion are audited.
func (h *Handler) serveHandoff(w http.ResponseWriter, r *http.Request, key string) {
	w.Header().Set("Cache-Control", "no-store")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeJSON(w, r, http.StatusMethodNotAllowed, nil, map[string]string{"detail": `Method "` + r.Method + `" not allowed.`})
		return
	}
	q := r.URL.Query()
	next := safeNext(q.Get("next"))
	if r.URL.Path == startPath {
		state, err := randomState()
		if err != nil {
			serverErrorPage(w, r)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: stateName, Value: state, Path: loginPath, MaxAge: 600, HttpOnly: true,
			SameSite: http.SameSiteLaxMode, Secure: h.docsScheme() == "https"})
		target := h.urls.PublicURL + "/accounts/docs-login/?" + url.Values{"host": {r.Host}, "next": {next}, "state": {state}}.Encode()
		http.Redirect(w, r, target, http.StatusFound)
		return
	}
	c, err := r.Cookie(stateName)
	state, code := q.Get("state"), q.Get("code")
	if err != nil || c.Value != state || state == "" || code == "" {
		h.handoffFailed(w, r, next)
		return
	}
	value, err := h.store.RedeemDocsLoginCode(r.Context(), code, r.Host, state, key)
	if errs.Is(err, errs.NotFound) {
		h.handoffFailed(w, r, next)
		return
	}
	if err != nil {
		h.logger.ErrorContext(r.Context(), "completing docs sign-in", "err", err)
		serverErrorPage(w, r)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: stateName, Value: "", Path: loginPath, MaxAge: -1, HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: h.docsScheme() == "https"})
	if u, err := h.store.FindUserByDocsSession(r.Context(), value, key); err == nil {
		h.audit.Record(r.Context(), audit.Event{Action: store.AuditAuthentication, User: u, AuthBackend: access.AuthDashboardHandoff.Backend()})
	}
	http.SetCookie(w, h.sessionCookie(value, int(store.DocsSessionLifetime.Seconds())))
	http.Redirect(w, r, next, http.StatusFound)
}

// handoffFailed is the page of an expired, used or foreign hand-off code;
// the failure is audited.
func (h *Handler) handoffFailed(w http.ResponseWriter, r *http.Request, next string) {
	h.audit.Record(r.Context(), audit.Event{Action: store.AuditAuthenticationFailure, AuthBackend: access.AuthDashboardHandoff.Backend()})
	h.writeSessionPage(w, r, http.StatusBadRequest, "handoff", sessionPage{Title: "Sign-in failed", Next: next,
		Error: "This sign-in link has expired or was already used. Go back to the page and sign in again."})
}

// randomState is a hand-off state: 32 random bytes, base64url (43
// characters).
func randomState() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}
