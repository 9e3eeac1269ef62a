package hosting

import (
	"net/http"
	"strconv"

	"docsd/internal/docsurl"
	"docsd/internal/domains"
	"docsd/store"
)

// serveDomain answers a request for a served custom domain exactly as the
// project's docs subdomain would (subprojects, translations, redirects,
// privacy, sessions, sharing links, the /_/ routes), after sending the reader to the
// project's canonical domain when this one is not it. HTTPS answers carry
// the domain's Strict-Transport-Security header.
func (h *Handler) serveDomain(w http.ResponseWriter, r *http.Request, d *store.ServedDomain) {
	if r.TLS != nil && d.HSTSMaxAge > 0 {
		v := "max-age=" + strconv.FormatInt(d.HSTSMaxAge, 10)
		if d.HSTSIncludeSubdomains {
			v += "; includeSubDomains"
		}
		if d.HSTSPreload {
			v += "; preload"
		}
		w.Header().Set("Strict-Transport-Security", v)
	}
	slug := d.ProjectSlug
	if h.serveSession(w, r, slug) || h.serveSharing(w, r, slug) {
		return
	}
	if !d.Canonical && h.redirectToCanonical(w, r, slug, "") {
		return
	}
	h.serveDocs(w, r, slug, r.URL.Path, domains.Origin(d))
}

// redirectToCanonical sends the reader to the same path (escRest, or the
// request's own when "") on the project's canonical domain, with 302
// Found as Read the Docs does (which domain is canonical may change), and
// reports whether it did: not when the project has no served canonical
// domain.
func (h *Handler) redirectToCanonical(w http.ResponseWriter, r *http.Request, slug, escRest string) bool {
	c, ok := h.domains.Canonical(r.Context(), slug)
	if !ok {
		return false
	}
	if escRest == "" {
		escRest = r.URL.EscapedPath()
	}
	w.Header().Set("Cache-Control", "private")
	redirect(w, r, withQuery(domains.Origin(c)+escRest, r.URL.RawQuery), http.StatusFound)
	return true
}

// urlsFor are the docs URLs of answers to r: on a served custom domain,
// the project's root (and so its subprojects' and translations') is that
// domain, so that readers stay on the domain they came to; elsewhere the
// host's own.
func (h *Handler) urlsFor(r *http.Request) docsurl.Config {
	u := h.urls
	if d, ok := h.domains.Served(r.Context(), r.Host); ok {
		u.Domains = servingDomain{slug: d.ProjectSlug, origin: domains.Origin(d), next: u.Domains}
	}
	return u
}

// servingDomain puts one project's root on the domain a request came to.
type servingDomain struct {
	slug, origin string
	next         docsurl.CanonicalDomains
}

func (s servingDomain) CanonicalOrigin(slug string) (string, bool) {
	if slug == s.slug {
		return s.origin, true
	}
	if s.next == nil {
		return "", false
	}
	return s.next.CanonicalOrigin(slug)
}
