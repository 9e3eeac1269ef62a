package hosting

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"html"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"docsd/store"
)

// page is what the block injected into a served HTML page names: the
// served project and version, the file name and the status.
type page struct {
	project  string
	version  string
	filename string // "/" + the file name, not yet encoded
	status   int
}

// pageOf is the page of file (as the reader asked for it) of version slug
// of project x; with the served status.
func pageOf(x *store.Project, version, file string, status int) *page {
	if file == "" || strings.HasSuffix(file, "/") {
		file += "index.html"
	}
	return &page{project: x.Slug, version: version, filename: "/" + file, status: status}
}

// injectFor reports whether pages of project x get the client: the
// operator's addons_inject and the project's own addons_enabled.
func (h *Handler) injectFor(x *store.Project) bool {
	return h.inject && x.AddonsEnabled
}

// clientSrc is the `src` of the injected script.
func (h *Handler) clientSrc() string {
	if h.clientURL != "" {
		return h.clientURL
	}
	return clientPath + "?v=" + clientHash
}

// injectBlock is the exact block injected for p: the meta elements Read
// the Docs' client reads, then the script.
func (h *Handler) injectBlock(p *page) []byte {
	e := html.EscapeString
	var b bytes.Buffer
	fmt.Fprintf(&b, "<meta name=\"readthedocs-project-slug\" content=\"%s\">\n", e(p.project))
	fmt.Fprintf(&b, "<meta name=\"readthedocs-version-slug\" content=\"%s\">\n", e(p.version))
	fmt.Fprintf(&b, "<meta name=\"readthedocs-resolver-filename\" content=\"%s\">\n", e(iriToURI(p.filename)))
	fmt.Fprintf(&b, "<meta name=\"readthedocs-http-status\" content=\"%d\">\n", p.status)
	fmt.Fprintf(&b, "<script defer src=\"%s\"></script>\n", e(h.clientSrc()))
	return b.Bytes()
}

// iriToURI encodes s as Django's iri_to_uri: every byte outside
// A-Za-z0-9 and -._~/#%[]=:;$&()+,!?*@' becomes %XX.
func iriToURI(s string) string {
	const safe = "-._~/#%[]=:;$&()+,!?*@'"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte(safe, c) >= 0 {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

// insertionPoint is where the block goes in doc: right
// before the first `</head` followed by `>` or whitespace, else right
// after the `>` of the first `<body` start tag; -1 when there is neither.
func insertionPoint(doc []byte) int {
	if i := findTag(doc, "</head", false); i >= 0 {
		return i
	}
	return afterBodyStart(doc)
}

// afterBodyStart is the offset right after the `>` of doc's first
// `<body` start tag, -1 when it has none.
func afterBodyStart(doc []byte) int {
	i := findTag(doc, "<body", true)
	if i < 0 {
		return -1
	}
	end := bytes.IndexByte(doc[i:], '>')
	if end < 0 {
		return -1
	}
	return i + end + 1
}

// findTag finds the first ASCII case-insensitive occurrence of tag
// followed by `>` or whitespace (or `/` when slash is set).
func findTag(doc []byte, tag string, slash bool) int {
	n := len(tag)
	for i := 0; i+n < len(doc); i++ {
		if doc[i] != '<' || !bytes.EqualFold(doc[i:i+n], []byte(tag)) {
			continue
		}
		switch doc[i+n] {
		case '>', ' ', '\t', '\n', '\r', '\f':
			return i
		case '/':
			if slash {
				return i
			}
		}
	}
	return -1
}

// injection is the injected block for the served file name of size bytes;
// nil when the file is served unchanged: no page to name (injection off
// for the project), not HTML, or too large.
func (rq *request) injection(name string, size int64) []byte {
	if rq.page == nil || !strings.HasPrefix(contentType(name), "text/html") || size > maxGzipSize {
		return nil
	}
	return rq.h.injectBlock(rq.page)
}

// inject returns the page doc with block inserted at insertionPoint
// and the tag suffix `-a<8 hex>` for its ETag; doc unchanged and "" when
// it is UTF-16 or has no insertion point. doc's spare capacity is used
// when it has room for the block.
func inject(doc, block []byte) ([]byte, string) {
	if bytes.HasPrefix(doc, []byte{0xFF, 0xFE}) || bytes.HasPrefix(doc, []byte{0xFE, 0xFF}) {
		return doc, ""
	}
	at := insertionPoint(doc)
	if at < 0 {
		return doc, ""
	}
	size := len(doc)
	out := slices.Grow(doc, len(block))[:size+len(block)]
	copy(out[at+len(block):], out[at:size])
	copy(out[at:], block)
	sum := sha256.Sum256(block)
	return out, "-a" + hex.EncodeToString(sum[:4])
}

// withTagSuffix adds suffix to an entity tag before its closing quote.
func withTagSuffix(etag, suffix string) string {
	return strings.TrimSuffix(etag, `"`) + suffix + `"`
}

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }

// setPage records the page a served file of version ver of x is, for the
// injected block; nothing when ver is nil or x's pages are not injected.
func (rq *request) setPage(x *store.Project, ver *store.Version, file string, status int) {
	if ver == nil || !rq.h.injectFor(x) {
		rq.page = nil
		return
	}
	rq.page = pageOf(x, ver.Slug, file, status)
}

// versionRoot is the path of the docs URL of version ver of x (its docs
// root), "" when it cannot be computed.
func (rq *request) versionRoot(x *store.Project, ver *store.Version) string {
	if ver == nil {
		return ""
	}
	var loc string
	if ver.Type == store.External {
		loc = rq.urls.External(x.Slug, ver.VerboseName)
	} else {
		t, err := rq.target(x)
		if err != nil {
			return ""
		}
		loc = rq.urls.Docs(t, ver.Slug, "")
	}
	u, err := url.Parse(loc)
	if err != nil {
		return ""
	}
	return u.EscapedPath()
}

// linkAttr matches an href or src attribute with a quoted value.
var linkAttr = regexp.MustCompile(`(?i)(\s(?:href|src)\s*=\s*)("[^"]*"|'[^']*')`)

// mkdocsRoot matches the script variable MkDocs' themes (mkdocs,
// readthedocs) write the site's root into, with its quoted value: its
// search script loads search/worker.js and the index from it.
var mkdocsRoot = regexp.MustCompile(`(\bvar\s+base_url\s*=\s*)("[^"\\]*"|'[^'\\]*')`)

// rebaseLinks resolves the relative and root-relative links of a custom
// 404 page against root, the path of its version's docs root: the page is
// shown at any depth, and MkDocs writes its 404.html links, and the
// base_url its search script starts from, from the site's root.
func rebaseLinks(doc []byte, root string) []byte {
	if root == "" {
		return doc
	}
	base, err := url.Parse(root)
	if err != nil {
		return doc
	}
	// rebase resolves the quoted value of match m of re (read with
	// unescape, written with escape); a fragment, another host, a value
	// already under root and one the quote would end are left as they are.
	rebase := func(m []byte, re *regexp.Regexp, unescape, escape func(string) string) []byte {
		sub := re.FindSubmatch(m)
		quoted := string(sub[2])
		q, val := quoted[:1], quoted[1:len(quoted)-1]
		if val == "" || strings.HasPrefix(val, "#") || strings.HasPrefix(val, "//") || strings.HasPrefix(val, root) {
			return m
		}
		ref, err := url.Parse(unescape(val))
		if err != nil || ref.Scheme != "" || ref.Host != "" {
			return m
		}
		if strings.HasPrefix(ref.Path, "/") {
			ref.Path = strings.TrimPrefix(ref.Path, "/")
			ref.RawPath = ""
		}
		abs := escape(base.ResolveReference(ref).String())
		if strings.Contains(abs, q) {
			return m
		}
		out := append([]byte{}, sub[1]...)
		out = append(out, q...)
		out = append(out, abs...)
		return append(out, q...)
	}
	doc = linkAttr.ReplaceAllFunc(doc, func(m []byte) []byte {
		return rebase(m, linkAttr, html.UnescapeString, html.EscapeString)
	})
	// Script text is not HTML-escaped; a value that would need JavaScript
	// escaping is left alone.
	same := func(s string) string { return s }
	return mkdocsRoot.ReplaceAllFunc(doc, func(m []byte) []byte {
		if out := rebase(m, mkdocsRoot, same, same); !bytes.ContainsAny(out, "\\<\n") {
			return out
		}
		return m
	})
}
