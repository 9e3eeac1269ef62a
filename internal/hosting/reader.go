package hosting

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"docsd/graph/scalar"
)

// Reader endpoints answered on the public host and, in
// subdomain mode, on every docs subdomain, before the docs namespace.
const (
	addonsPath = "/_/addons/"
	clientPath = "/_/static/docsd-addons.js"
	footerPath = "/_/api/v2/footer_html/"
	// FooterAPIPath is the public-host form of footer_html.
	FooterAPIPath = "/api/v2/footer_html/"
)

// IsReaderPath reports whether path is one of the reader endpoints the
// docs host answers outside /docs/: cmd routes these to the Handler.
func IsReaderPath(path string) bool {
	switch strings.TrimSuffix(path, "/") { // each of them with or without its slash
	case addonsPath[:len(addonsPath)-1], footerPath[:len(footerPath)-1], FooterAPIPath[:len(FooterAPIPath)-1]:
		return true
	}
	return path == clientPath
}

// serveReader answers the reader endpoints and reports whether path was
// one of them.
func (h *Handler) serveReader(w http.ResponseWriter, r *http.Request) bool {
	p := r.URL.Path
	if !IsReaderPath(p) {
		return false
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		if (p == footerPath || p == FooterAPIPath) && r.Method == http.MethodOptions {
			h.serveFooterPreflight(w, r)
			return true
		}
		w.Header().Set("Allow", "GET, HEAD")
		writeJSON(w, r, http.StatusMethodNotAllowed, nil, map[string]string{"detail": `Method "` + r.Method + `" not allowed.`})
		return true
	}
	if p == clientPath {
		h.serveClient(w, r)
		return true
	}
	if !strings.HasSuffix(p, "/") { // API paths end with a slash: redirect to it
		loc := p + "/"
		if r.URL.RawQuery != "" {
			loc += "?" + r.URL.RawQuery
		}
		w.Header().Set("Location", loc)
		w.WriteHeader(http.StatusMovedPermanently)
		return true
	}
	rq := &request{h: h, w: w, r: r, ctx: r.Context(), urls: h.urlsFor(r)}
	var err error
	switch p {
	case addonsPath:
		err = rq.serveAddons()
	default:
		err = rq.serveFooter()
	}
	if err != nil && !readerGone(r) {
		h.logger.ErrorContext(r.Context(), "serving reader endpoint", "path", p, "err", err)
		writeJSON(w, r, http.StatusInternalServerError, nil, map[string]string{"detail": "A server error occurred."})
	}
	return true
}

// marshalJSON encodes v compactly without escaping <, > and &, maps with
// sorted keys, as the REST APIs encode.
func marshalJSON(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return []byte(`{"detail":"A server error occurred."}`)
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// writeJSON writes v as a JSON answer with status and extra headers
// (name, value pairs); HEAD gets the headers only.
func writeJSON(w http.ResponseWriter, r *http.Request, status int, header []string, v any) {
	body := marshalJSON(v)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		h.Set(header[i], header[i+1])
	}
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// strongETag is a strong entity tag: the first 32 hex digits of body's
// SHA-256.
func strongETag(body []byte) string {
	sum := sha256.Sum256(body)
	return `"` + hex.EncodeToString(sum[:16]) + `"`
}

// formatTime writes t as the APIs do (graph/scalar: UTC, microseconds
// only when non-zero, `Z`).
func formatTime(t time.Time) string { return scalar.FormatTime(t) }

// timeZero is the modification time of answers that have none: only their
// ETag validates them.
var timeZero time.Time
