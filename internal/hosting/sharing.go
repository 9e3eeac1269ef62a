package hosting

import (
	"html/template"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/bcrypt"

	"docsd/internal/access"
	"docsd/internal/audit"
	"docsd/internal/errs"
	"docsd/store"
)

// Sharing links on the docs host (docs/user-guide/sharing.md):
// `/_/sharing/<token>` trades a link's token, or a password, for a grant
// on this browser's docsd_share cookie.
const (
	sharingPrefix = "/_/sharing/"
	shareCookie   = "docsd_share"
)

// Failed sharing passwords: after sharingFailureLimit of them for one
// method from one address within sharingFailureWindow, the form answers
// 429 until the window has passed.
const (
	sharingFailureLimit  = 5
	sharingFailureWindow = 15 * time.Minute
)

// sharingFailures counts failed passwords by method and address.
type sharingFailures struct {
	mu   sync.Mutex
	seen map[string][]time.Time // mu guards seen; failures in the window, oldest first
}

// recent returns key's failures in the window at now, forgetting older
// ones.
func (f *sharingFailures) recent(key string, now time.Time) []time.Time {
	hits := f.seen[key]
	for len(hits) > 0 && !hits[0].After(now.Add(-sharingFailureWindow)) {
		hits = hits[1:]
	}
	if len(hits) == 0 {
		delete(f.seen, key)
	} else {
		f.seen[key] = hits
	}
	return hits
}

// wait is how long key must wait before its next try (0: it may try).
func (f *sharingFailures) wait(key string, now time.Time) time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	hits := f.recent(key, now)
	if len(hits) < sharingFailureLimit {
		return 0
	}
	return hits[0].Add(sharingFailureWindow).Sub(now)
}

func (f *sharingFailures) fail(key string, now time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.seen == nil {
		f.seen = map[string][]time.Time{}
	}
	f.seen[key] = append(f.recent(key, now), now)
}

// sharingPage is the password form of a sharing method.
var sharingPage = template.Must(template.New("").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Authorization required</title>
<style>body{font-family:sans-serif;max-width:28em;margin:4em auto;padding:0 1em;color:#333}input{font:inherit;width:100%;margin:.3em 0 1em;padding:.4em}</style>
</head>
<body>
<h1>Authorization required</h1>
{{- if .Error}}<p role="alert" id="password-error">{{.Error}}</p>{{end}}
<form method="post" action="{{.Action}}">
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required{{if .Error}} aria-describedby="password-error"{{end}}>
<input type="hidden" name="next" value="{{.Next}}">
<button type="submit">Continue</button>
</form>
</body>
</html>
`))

// IsSharingPath reports whether path is a sharing link's.
func IsSharingPath(path string) bool { return strings.HasPrefix(path, sharingPrefix) }

// serveSharing answers `/_/sharing/<token>` (with or without a trailing
// slash) and reports whether the path was one. hostSlug is the project of
// the docs subdomain, "" on the path-mode docs origin. An unknown, expired
// or deleted token, another project's host, or an http_header_token
// method gets the generic 404 page.
func (h *Handler) serveSharing(w http.ResponseWriter, r *http.Request, hostSlug string) bool {
	rest, ok := strings.CutPrefix(r.URL.Path, sharingPrefix)
	if !ok {
		return false
	}
	tok := strings.TrimSuffix(rest, "/")
	w.Header().Set("Cache-Control", "no-store")
	if r.Method != http.MethodGet && r.Method != http.MethodHead && r.Method != http.MethodPost {
		w.Header().Set("Allow", "GET, HEAD, POST")
		writeJSON(w, r, http.StatusMethodNotAllowed, nil, map[string]string{"detail": `Method "` + r.Method + `" not allowed.`})
		return true
	}
	ctx := r.Context()
	m, p, err := h.sharingMethod(r, tok, hostSlug)
	if err != nil {
		h.logger.ErrorContext(ctx, "reading a sharing link", "err", err)
		serverErrorPage(w, r)
		return true
	}
	if m == nil || (r.Method == http.MethodPost && m.AccessType != store.SharingPassword) {
		h.notFoundPage(w, r)
		return true
	}
	next := r.URL.Query().Get("next")
	backend := access.AuthSharingToken
	if m.AccessType == store.SharingPassword {
		if r.Method != http.MethodPost {
			h.writeSharingPage(w, r, http.StatusOK, next, "")
			return true
		}
		if origin := r.Header.Get("Origin"); origin != "" && !strings.EqualFold(origin, h.docsScheme()+"://"+r.Host) {
			writeJSON(w, r, http.StatusForbidden, nil, map[string]string{"detail": "Cross-origin sign-in refused."})
			return true
		}
		next = r.PostFormValue("next")
		key := strconv.FormatInt(m.ID, 10) + "\x00" + clientIP(r)
		now := time.Now()
		if wait := h.sharingFails.wait(key, now); wait > 0 {
			secs := int((wait + time.Second - 1) / time.Second)
			w.Header().Set("Retry-After", strconv.Itoa(secs))
			h.writeSharingPage(w, r, http.StatusTooManyRequests, next, "Too many wrong passwords. Try again in "+strconv.Itoa((secs+59)/60)+" minutes.")
			return true
		}
		if bcrypt.CompareHashAndPassword([]byte(m.PasswordHash), []byte(r.PostFormValue("password"))) != nil {
			h.sharingFails.fail(key, now)
			h.audit.Record(ctx, audit.Event{Action: store.AuditAuthenticationFailure, Project: p,
				AuthBackend: access.AuthSharingPassword.Backend(), Data: sharingRef(m)})
			h.writeSharingPage(w, r, http.StatusOK, next, "Invalid password.")
			return true
		}
		backend = access.AuthSharingPassword
	}
	value := ""
	if c, err := r.Cookie(shareCookie); err == nil && len(c.Value) == 64 {
		value = c.Value // one cookie carries every grant of this browser
	} else if value, err = store.NewSharingToken(); err != nil {
		serverErrorPage(w, r)
		return true
	}
	if err := h.store.GrantSharing(ctx, value, m); err != nil {
		h.logger.ErrorContext(ctx, "granting a sharing link", "err", err)
		serverErrorPage(w, r)
		return true
	}
	h.noteSharingUsed(r, m)
	h.audit.Record(ctx, audit.Event{Action: store.AuditAuthentication, Project: p, AuthBackend: backend.Backend(), Data: sharingRef(m)})
	http.SetCookie(w, &http.Cookie{Name: shareCookie, Value: value, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: h.docsScheme() == "https"})
	w.Header().Set("Location", safeNext(next))
	w.WriteHeader(http.StatusFound)
	return true
}

// sharingMethod returns the live token or password method of tok and its
// project, nil when there is none for this host.
func (h *Handler) sharingMethod(r *http.Request, tok, hostSlug string) (*store.SharingMethod, *store.Project, error) {
	if len(tok) != 43 {
		return nil, nil, nil
	}
	m, err := h.store.FindSharingMethodByToken(r.Context(), tok)
	if errs.Is(err, errs.NotFound) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	if m.AccessType == store.SharingHTTPHeader || !m.Live(h.store.Now()) {
		return nil, nil, nil
	}
	p, err := h.cache.projectByID(r.Context(), m.ProjectID)
	if errs.Is(err, errs.NotFound) || (err == nil && hostSlug != "" && p.Slug != hostSlug) {
		return nil, nil, nil
	}
	return m, p, err
}

// noteSharingUsed records that m was used now (at most once a minute).
func (h *Handler) noteSharingUsed(r *http.Request, m *store.SharingMethod) {
	if m.LastUsedAt != nil && h.store.Now().Sub(*m.LastUsedAt) < time.Minute {
		return
	}
	if err := h.store.NoteSharingMethodUsed(r.Context(), m.ID); err != nil {
		h.logger.ErrorContext(r.Context(), "noting a sharing link's use", "err", err)
	}
}

// sharingRef is the audit data of a redeemed method.
func sharingRef(m *store.SharingMethod) map[string]any {
	return map[string]any{"sharing": map[string]any{"id": m.ID, "description": m.Description}}
}

// writeSharingPage writes the password form (writeFormPage), msg as its
// error.
func (h *Handler) writeSharingPage(w http.ResponseWriter, r *http.Request, status int, next, msg string) {
	writeFormPage(w, r, status, sharingPage, struct{ Action, Next, Error string }{r.URL.Path + "?" + r.URL.RawQuery, safeNext(next), msg})
}

// clientIP is the request's client address: the one the audit context
// holds (forwarded behind trusted proxies), else the connection's.
func clientIP(r *http.Request) string {
	if ip := audit.ClientIP(r.Context()); ip != "" {
		return ip
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
