package hosting

import (
	"context"
	"html/template"
	"net/http"
	"strings"

	"docsd/internal/access"
	"docsd/internal/audit"
	"docsd/internal/domains"
	"docsd/internal/errs"
	"docsd/internal/sitepath"
	"docsd/store"
)

// Browser access to non-public docs in subdomain mode: `/_/login/` trades
// an API key for a host-only session cookie (docs/security.md, "Who sees
// what").
const (
	loginPath   = "/_/login/"
	logoutPath  = "/_/logout/"
	sessionName = "docsd_docs"
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

// serveSession answers `/_/login/` and `/_/logout/` on a docs subdomain of
// project slug, and reports whether the path was one of them. Both change
// the session only by a POST that no other origin sent (the Origin check):
// GET /_/logout/ is a page whose button signs out, so that a link or an
// image on another page of the site cannot sign the reader out.
func (h *Handler) serveSession(w http.ResponseWriter, r *http.Request, slug string) bool {
	p := r.URL.Path
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
			if u, err := h.store.FindUserByDocsSession(r.Context(), c.Value, slug); err == nil {
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
	value, err := h.store.CreateDocsSession(r.Context(), r.PostFormValue("token"), slug)
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
	if u, err := h.store.FindUserByDocsSession(r.Context(), value, slug); err == nil {
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
// project's docs subdomain, nil when there is none: no cookie, path mode,
// an ended session, a revoked token or an inactive user
// (access.DocsSession).
func (h *Handler) SessionUser(ctx context.Context, r *http.Request) (*store.User, error) {
	v, err := h.sessionViewer(ctx, r)
	return v.User, err
}

func (h *Handler) sessionViewer(ctx context.Context, r *http.Request) (access.Viewer, error) {
	slug, ok := h.hostProject(ctx, r.Host)
	if !ok {
		return access.Viewer{}, nil
	}
	c, err := r.Cookie(sessionName)
	if err != nil {
		return access.Viewer{}, nil
	}
	return access.DocsSession(ctx, h.store, c.Value, slug)
}
