package dashboard

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"time"

	"docsd/internal/badge"
)

// handleBadge answers a project's docs badge image,
// /projects/<slug>/badge/?version=&style=&token= (Read the Docs' path and
// parameters): the state graph's badgeStatus gives to the visitor, drawn
// in the style asked for. It never answers an error page: whatever cannot
// be told (no such project, not the visitor's to see, the database down)
// is the unknown badge, so that READMEs show a badge whatever happens.
// Browsers and image proxies are told to revalidate every time
// (no-cache), cheaply by ETag.
//
// The visitor's session counts only for the dashboard's own pages
// (Sec-Fetch-Site: same-origin): a page on the docs origin is same-site, so
// the session cookie goes with its image requests too, and the badge's
// width would tell that page which private versions its reader may see.
func (d *Dashboard) handleBadge(w http.ResponseWriter, r *http.Request, s *session) {
	if r.Header.Get("Sec-Fetch-Site") != "same-origin" {
		s = &session{}
	}
	q := r.URL.Query()
	vars := map[string]any{"slug": r.PathValue("slug"), "version": q.Get("version"), "token": nil}
	if t := q.Get("token"); t != "" {
		vars["token"] = t
	}
	var out struct{ BadgeStatus string }
	cache := "no-cache"
	if err := d.run(r, s, badgeQuery, vars, &out); err != nil {
		d.cfg.Logger.ErrorContext(r.Context(), "dashboard: badge", "path", r.URL.Path, "err", err)
		cache = "no-store" // not the project's state: nothing to keep
	}
	if s.viewer.User != nil {
		cache = "private, " + cache // what the visitor's session may see
	}
	svg := badge.SVG(out.BadgeStatus, q.Get("style"))
	sum := sha256.Sum256(svg)
	h := w.Header()
	h.Set("Content-Type", "image/svg+xml")
	h.Set("Cache-Control", cache)
	h.Set("ETag", `"`+base64.RawURLEncoding.EncodeToString(sum[:12])+`"`)
	// ServeContent answers If-None-Match with 304 and HEAD without a body.
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(svg))
}
