package hosting

import (
	"bytes"
	_ "embed"
	"net/http"
	"time"

	"docsd/store"
)

// FaviconPath is where browsers look for a site's icon when its pages name
// none: every origin docsd answers on gets asked for it.
const FaviconPath = "/favicon.ico"

// faviconICO is docsd's own icon (16 and 32 pixels, PNG in an ICO file):
// the answer to FaviconPath wherever no project's own icon applies.
//
//go:embed favicon.ico
var faviconICO []byte

// faviconETag is a strong validator of faviconICO.
var faviconETag = `"` + shortHash(faviconICO) + `"`

// ServeFavicon answers FaviconPath with docsd's own icon (GET and HEAD;
// other methods get 405), cacheable for a day. cmd mounts it on the
// dashboard's origin; the docs host answers it on its own.
func ServeFavicon(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		hd.Set("Allow", "GET, HEAD")
		http.Error(w, "Method not allowed.", http.StatusMethodNotAllowed)
		return
	}
	hd.Set("Content-Type", "image/x-icon")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("ETag", faviconETag)
	hd.Set("Cache-Control", "public, max-age=86400")
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(faviconICO))
}

// serveFavicon answers FaviconPath at the root of project x's namespace
// (its docs subdomain, or /docs/<x>/): the project's own favicon.ico, at
// the root of its default version, when the reader may see that version,
// else docsd's icon. Browsers ask for it whatever a page names, so it is
// never a 404 page.
func (rq *request) serveFavicon(x *store.Project) error {
	_, tree, err := rq.defaultTree(x)
	if err != nil {
		return err
	}
	if tree != nil {
		defer tree.Close()
		if sent, err := rq.sendRootFile(tree, FaviconPath); sent || err != nil {
			return err
		}
	}
	ServeFavicon(rq.w, rq.r)
	return nil
}
