package hosting

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"net/http"
	"time"
)

// clientJS is docsd's built-in reader client (see
// docs/user-guide/reading.md#the-reader-client).
//
//go:embed client/docsd-addons.js
var clientJS []byte

// clientHash is the first 12 hex digits of the SHA-256 of clientJS: the
// `v` of the injected script's URL, so a new script gets a new URL.
var clientHash = shortHash(clientJS)

// shortHash is the first 12 hex digits of the SHA-256 of b.
func shortHash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])[:12]
}

// serveClient answers `/_/static/docsd-addons.js`: immutable for a year
// when the request names the current script's hash, else revalidated.
func (h *Handler) serveClient(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Type", "application/javascript")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("ETag", `"`+clientHash+`"`)
	hd.Set("Cache-Control", "no-cache")
	if r.URL.Query().Get("v") == clientHash {
		hd.Set("Cache-Control", "public, max-age=31536000, immutable")
	}
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(clientJS))
}
