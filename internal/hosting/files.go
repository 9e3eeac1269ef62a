package hosting

import (
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"docsd/internal/artifacts"
	"docsd/store"
)

// openFile opens name in tree when it is a regular file.
func openFile(tree artifacts.Tree, name string) (fs.File, fs.FileInfo, bool) {
	if !validName(name) {
		return nil, nil, false
	}
	f, err := tree.Open(name)
	if err != nil {
		return nil, nil, false
	}
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		f.Close()
		return nil, nil, false
	}
	return f, info, true
}

// validName reports whether name may be looked up in a tree: a relative
// slash-separated path without "..", "." or empty segments, backslashes or
// NUL (a path with ".." segments is not found). The tree itself
// also refuses to leave its folder, symlinks included.
func validName(name string) bool {
	return fs.ValidPath(name) && name != "." && !strings.ContainsAny(name, "\\\x00")
}

// contentType is the Content-Type of a served file by its extension.
func contentType(name string) string {
	ext := strings.ToLower(path.Ext(name))
	switch ext {
	case ".html":
		return "text/html; charset=utf-8"
	case ".css":
		return "text/css"
	case ".js":
		return "application/javascript"
	case ".json":
		return "application/json"
	case ".svg":
		return "image/svg+xml"
	}
	if t := mime.TypeByExtension(ext); t != "" {
		return t
	}
	return "application/octet-stream"
}

// compressible reports whether a response of Content-Type ctype is worth
// compressing.
func compressible(ctype string) bool {
	mt, _, _ := strings.Cut(ctype, ";")
	switch {
	case strings.HasPrefix(mt, "text/"):
		return true
	case mt == "application/javascript", mt == "application/json", mt == "image/svg+xml",
		mt == "application/xml", mt == "application/xhtml+xml", mt == "application/x-javascript":
		return true
	}
	return false
}

// Compression bounds: smaller files gain nothing, larger ones are sent as
// they are rather than compressed in memory.
const (
	minGzipSize = 512
	maxGzipSize = 8 << 20
)

// sendFile answers 200 with the file pf, name in tree (or 304, 206, 412,
// 416 as the request's conditional and Range headers ask), compressed with
// gzip when the reader accepts it and the request has no Range. A file
// served as it is comes from memory when small, else from its file with
// sendfile(2) (sendFileAsIs); a page with the client injected and a
// compressed body are made once per file of a tree and then served from
// memory (variants, publishedFile.gzipVariant), never made again per
// request.
func (rq *request) sendFile(tree artifacts.Tree, name string, pf *publishedFile) {
	w, r := rq.w, rq.r
	h := w.Header()
	h["Content-Type"] = pf.hType
	h["X-Content-Type-Options"] = hNosniff
	if rq.private {
		h["Cache-Control"] = rq.privateCacheControl()
	}
	gz := pf.gz
	if gz {
		if len(h["Vary"]) == 0 {
			h["Vary"] = hVary
		} else {
			h.Add("Vary", "Accept-Encoding")
		}
		gz = len(r.Header["Range"]) == 0 && acceptsGzip(r.Header.Get("Accept-Encoding"))
	}
	size := pf.size
	block := rq.injection(name, size)
	if block == nil && (!gz || size < minGzipSize || size > maxGzipSize) {
		rq.sendFileAsIs(tree, name, pf)
		return
	}
	var (
		v   *variant
		err error
	)
	if block == nil {
		v, err = pf.gzipVariant(&rq.h.published, tree, name)
	} else {
		v, err = rq.injectedVariant(tree, name, pf, block, gz)
	}
	if err != nil {
		if !readerGone(r) {
			rq.h.logger.ErrorContext(r.Context(), "reading docs file", "path", r.URL.Path, "err", err)
			serverErrorPage(w, r)
		}
		return
	}
	h["Etag"] = v.hETag
	if !v.gzip {
		rq.sendBytes(v.body, v.hLength, pf.modtime, pf.hModified)
		return
	}
	h["Content-Encoding"] = hGzip
	if notModified(r, v.etag, pf.modtime) {
		h.Del("Content-Type")
		h.Del("Content-Encoding")
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if len(r.Header["If-Match"]) > 0 || len(r.Header["If-Unmodified-Since"]) > 0 {
		// The preconditions only http.ServeContent checks (412).
		http.ServeContent(contentLength{w, strconv.Itoa(len(v.body))}, r, "", pf.modtime, bytes.NewReader(v.body))
		return
	}
	// What http.ServeContent answers here (no Range: gzip never has one),
	// in one write from memory and with Content-Length.
	rq.writeWholeHeader(v.hLength, pf.hModified)
	if r.Method != http.MethodHead {
		writeBody(w, r, v.body)
	}
	rq.keep(http.StatusOK, v.body)
}

// injectedVariant is the page pf (name in tree) with block injected,
// compressed when gz: made once per page and block, then kept in the
// handler's variants.
func (rq *request) injectedVariant(tree artifacts.Tree, name string, pf *publishedFile, block []byte, gz bool) (*variant, error) {
	key := variantKey(name, pf.etag, block, gz)
	if v, ok := rq.h.variants.get(key); ok {
		return v, nil
	}
	b, err := pf.bytes(tree, name)
	if err != nil {
		return nil, err
	}
	v, err := makeVariant(bytes.NewReader(b), pf.size, pf.etag, block, gz)
	if err != nil {
		return nil, err
	}
	rq.h.variants.put(key, v)
	return v, nil
}

// contentLength adds Content-Length to the 200 that http.ServeContent
// writes, which leaves it out of answers that have a Content-Encoding.
type contentLength struct {
	http.ResponseWriter
	n string
}

func (w contentLength) WriteHeader(code int) {
	if code == http.StatusOK {
		w.Header().Set("Content-Length", w.n)
	}
	w.ResponseWriter.WriteHeader(code)
}

// serveContent is http.ServeContent for any opened file: those that can't
// seek are read into memory first.
func serveContent(w http.ResponseWriter, r *http.Request, modtime time.Time, f io.Reader, size int64) {
	if rs, ok := f.(io.ReadSeeker); ok {
		http.ServeContent(w, r, "", modtime, rs)
		return
	}
	b, err := io.ReadAll(io.LimitReader(f, size))
	if err != nil {
		if !readerGone(r) {
			serverErrorPage(w, r)
		}
		return
	}
	http.ServeContent(w, r, "", modtime, bytes.NewReader(b))
}

// entityTag is a strong ETag for a file of a published tree: a new publish
// gets a new tree id, so the tag changes whenever the content can.
func entityTag(treeID string, size int64, modtime time.Time) string {
	return `"` + treeID + "-" + strconv.FormatInt(size, 36) + "-" + strconv.FormatInt(modtime.UnixNano(), 36) + `"`
}

// acceptsGzip reports whether the request's Accept-Encoding allows gzip
// (listed, with no q or a q above 0).
func acceptsGzip(acceptEncoding string) bool {
	for rest, more := acceptEncoding, true; more; {
		var part string
		part, rest, more = strings.Cut(rest, ",")
		coding, params, _ := strings.Cut(part, ";")
		if !strings.EqualFold(strings.TrimSpace(coding), "gzip") {
			continue
		}
		name, value, _ := strings.Cut(strings.TrimSpace(params), "=")
		if !strings.EqualFold(strings.TrimSpace(name), "q") {
			return true
		}
		q, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		return err == nil && q > 0
	}
	return false
}

// notModified reports whether a GET or HEAD with these validators may be
// answered 304 (RFC 9110, section 13.2.2: If-None-Match wins over
// If-Modified-Since).
func notModified(r *http.Request, etag string, modtime time.Time) bool {
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		for _, t := range strings.Split(inm, ",") {
			t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
			if t == "*" || t == strings.TrimPrefix(etag, "W/") {
				return true
			}
		}
		return false
	}
	ims, err := http.ParseTime(r.Header.Get("If-Modified-Since"))
	return err == nil && !modtime.Truncate(time.Second).After(ims)
}

// gzipWriters compress at the best level: a body is compressed once per
// file of a published tree (or injected page), so its size counts, not
// the time, as with the .gz files nginx's gzip_static serves.
var gzipWriters = sync.Pool{New: func() any {
	w, _ := gzip.NewWriterLevel(io.Discard, gzip.BestCompression)
	return w
}}

// gzipAll compresses everything r yields.
func gzipAll(r io.Reader) ([]byte, error) {
	var buf bytes.Buffer
	zw := gzipWriters.Get().(*gzip.Writer)
	defer gzipWriters.Put(zw)
	zw.Reset(&buf)
	if _, err := io.Copy(zw, r); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// sendNotFoundFile serves the tree's custom 404 page (404.html, else
// 404/index.html) with status 404, and reports whether there was
// one. The tree is version ver's of x: the page's relative and
// root-relative links are resolved against the version's docs URL (a 404
// page answers for any path), once per file of a tree, and the reader
// client is injected as for any page.
func (rq *request) sendNotFoundFile(tree artifacts.Tree, x *store.Project, ver *store.Version) bool {
	for _, name := range notFoundNames {
		pf, err := rq.h.published.lookup(tree, name)
		if err != nil {
			return false
		}
		if !pf.regular {
			continue
		}
		if pf.size > maxGzipSize {
			f, err := tree.Open(name)
			if err != nil {
				return false
			}
			defer f.Close()
			rq.writeNotFoundHeader(pf.hType, pf.hLength)
			if rq.r.Method != http.MethodHead {
				io.CopyN(rq.w, f, pf.size)
			}
			return true
		}
		p, err := pf.notFoundPage(&rq.h.published, tree, name, x, ver, func() string { return rq.versionRoot(x, ver) })
		if err != nil {
			return false
		}
		doc, hLength := p.body, p.hLength
		if block := rq.injection(name, int64(len(doc))); block != nil {
			doc, _ = inject(doc, block) // a copy: p.body has no spare capacity
		}
		doc = rq.h.withSignIn(rq.r, doc)
		if len(doc) != len(p.body) {
			hLength = []string{strconv.Itoa(len(doc))}
		}
		rq.writeNotFoundHeader(pf.hType, hLength)
		if rq.r.Method != http.MethodHead {
			rq.w.Write(doc)
		}
		rq.keep(http.StatusNotFound, doc)
		return true
	}
	return false
}

// notFoundNames are the custom 404 pages of a tree, in the order they are
// looked for.
var notFoundNames = []string{"404.html", "404/index.html"}

// writeNotFoundHeader writes the header of a custom 404 page.
func (rq *request) writeNotFoundHeader(hType, hLength []string) {
	h := rq.w.Header()
	h["Content-Type"] = hType
	h["Content-Length"] = hLength
	h["X-Content-Type-Options"] = hNosniff
	h["Cache-Control"] = hNoCache
	if rq.private {
		h["Cache-Control"] = hPrivateNoCache
	}
	rq.w.WriteHeader(http.StatusNotFound)
}
