package dashboard

import (
	"errors"
	"net/http"
	"time"

	"docsd/internal/accounts"
)

// audit records e when the dashboard has an audit log.
func (d *Dashboard) audit(r *http.Request, e accounts.AuditEvent) {
	if d.cfg.Audit != nil {
		d.cfg.Audit(r, e)
	}
}

// setOIDCCookie sets (or, with value "", clears) the cookie binding a
// single sign-on to the browser that started it.
func (d *Dashboard) setOIDCCookie(w http.ResponseWriter, value string) {
	c := &http.Cookie{Name: accounts.OIDCCookie, Value: value, Path: "/accounts/oidc/", HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: d.cfg.Secure, MaxAge: int(accounts.OIDCFlowLifetime / time.Second)}
	if value == "" {
		c.MaxAge = -1
	}
	http.SetCookie(w, c)
}

// handleOIDCLogin starts a single sign-on: a new flow, the browser binding
// cookie, and a redirect to the identity provider.
func (d *Dashboard) handleOIDCLogin(w http.ResponseWriter, r *http.Request) {
	if d.cfg.OIDC == nil {
		d.notFound(w, r, &session{})
		return
	}
	if d.refuseSignIn(w, r) {
		return
	}
	next := safeNext(r.URL.Query().Get("next"))
	to, binding, err := d.cfg.OIDC.Start(r.Context(), next, d.cfg.ClientAddr(r))
	if err != nil {
		d.ssoFailed(w, r, next, err)
		return
	}
	d.setOIDCCookie(w, binding)
	http.Redirect(w, r, to, http.StatusFound)
}

// handleOIDCCallback finishes a single sign-on the identity provider sent
// back: a session and the page the sign-in started from, or the page of
// what went wrong.
func (d *Dashboard) handleOIDCCallback(w http.ResponseWriter, r *http.Request) {
	if d.cfg.OIDC == nil {
		d.notFound(w, r, &session{})
		return
	}
	if d.refuseSignIn(w, r) {
		return
	}
	binding := ""
	if c, err := r.Cookie(accounts.OIDCCookie); err == nil {
		binding = c.Value
	}
	d.setOIDCCookie(w, "")
	done, err := d.cfg.OIDC.Finish(r.Context(), r.URL.Query(), binding)
	if err != nil {
		d.ssoFailed(w, r, "", err)
		return
	}
	d.audit(r, accounts.AuditEvent{Action: accounts.ActionAuthentication, AuthBackend: accounts.BackendOIDC,
		User: done.User, Username: done.User.Username})
	d.setSessionCookie(w, done.Session)
	http.Redirect(w, r, safeNext(done.Next), http.StatusFound)
}

// ssoFailed answers a single sign-on that failed: a refusal
// (accounts.SignInFailure) gets the "Single sign-on failed" page with its
// status and message, and is audited; docsd's own failure gets the server
// error page.
func (d *Dashboard) ssoFailed(w http.ResponseWriter, r *http.Request, next string, err error) {
	var f *accounts.SignInFailure
	if !errors.As(err, &f) {
		d.cfg.Logger.ErrorContext(r.Context(), "dashboard: single sign-on", "err", err)
		d.failed(w, r, &session{}, err)
		return
	}
	d.cfg.Logger.InfoContext(r.Context(), "dashboard: single sign-on refused", "reason", f.Reason, "err", f)
	d.audit(r, accounts.AuditEvent{Action: accounts.ActionAuthenticationFailure, AuthBackend: accounts.BackendOIDC,
		User: f.User, Username: f.Email, Data: map[string]any{"reason": f.Reason}})
	d.render(w, r, &session{}, f.Status, "ssofailed", &page{Title: "Single sign-on failed", Next: next,
		Alert: f.Message})
}
