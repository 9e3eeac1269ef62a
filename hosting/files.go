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

	"docsd/artifacts"
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

// isFile reports whether name is a regular file of tree.
func isFile(tree artifacts.Tree, name string) bool {
	f, _, ok := openFile(tree, name)
	if ok {
		f.Close()
	}
	return ok
}

// validName reports whether name may be looked up in a tree: a relative
// slash-separated path without "..", "." or empty segments, backslashes or
// NUL (step 8: paths with ".." segments are not found). The tree itself
// also refuses to leave its folder, symlinks included.
func validName(name string) bool {
	return fs.ValidPath(name) && name != "." && !strings.ContainsAny(name, "\\\x00")
}

// contentType is the Content-Type of a served file by its extension
// (§8.3 step 8).
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

// sendFile answers 200 with a file of tree (or 304, 206, 412, 416 as the
// request's conditional and Range headers ask), compressed with gzip when
// the reader accepts it and the request has no Range. A file served as it
// is goes out with sendfile(2) from a local tree; a page with the client
// injected and a compressed body are made once per file of a tree and
// then served from memory (variants), never made again per request.
func (rq *request) sendFile(tree artifacts.Tree, name string, f fs.File, info fs.FileInfo) {
	w, r := rq.w, rq.r
	h := w.Header()
	ctype := contentType(name)
	h.Set("Content-Type", ctype)
	h.Set("X-Content-Type-Options", "nosniff")
	if rq.private {
		h.Set("Cache-Control", "private")
	}
	modtime, size := info.ModTime(), info.Size()
	etag := entityTag(tree.ID(), size, modtime)
	gz := compressible(ctype)
	if gz {
		h.Add("Vary", "Accept-Encoding")
		gz = r.Header.Get("Range") == "" && acceptsGzip(r)
	}
	block := rq.injection(name, size)
	if block == nil && (!gz || size < minGzipSize || size > maxGzipSize) {
		h.Set("ETag", etag)
		serveContent(w, r, modtime, f, size)
		return
	}
	key := variantKey(name, etag, block, gz)
	v, ok := rq.h.variants.get(key)
	if !ok {
		var err error
		if v, err = makeVariant(f, size, etag, block, gz); err != nil {
			if !readerGone(r) {
				rq.h.logger.ErrorContext(r.Context(), "reading docs file", "path", r.URL.Path, "err", err)
				serverErrorPage(w, r)
			}
			return
		}
		rq.h.variants.put(key, v)
	}
	h.Set("ETag", v.etag)
	if !v.gzip {
		http.ServeContent(w, r, "", modtime, bytes.NewReader(v.body))
		return
	}
	h.Set("Content-Encoding", "gzip")
	if notModified(r, v.etag, modtime) {
		h.Del("Content-Type")
		h.Del("Content-Encoding")
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if r.Header.Get("If-Match") != "" || r.Header.Get("If-Unmodified-Since") != "" {
		// The preconditions only http.ServeContent checks (412).
		http.ServeContent(contentLength{w, strconv.Itoa(len(v.body))}, r, "", modtime, bytes.NewReader(v.body))
		return
	}
	// What http.ServeContent answers here (no Range: gzip never has one),
	// in one write from memory and with Content-Length.
	if !modtime.IsZero() && !modtime.Equal(time.Unix(0, 0)) {
		h.Set("Last-Modified", modtime.UTC().Format(http.TimeFormat))
	}
	h.Set("Accept-Ranges", "bytes")
	h.Set("Content-Length", strconv.Itoa(len(v.body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(v.body)
	}
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
func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
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
// answered 304 (RFC 9110 §13.2.2: If-None-Match wins over
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

var gzipWriters = sync.Pool{New: func() any {
	w, _ := gzip.NewWriterLevel(io.Discard, gzip.BestSpeed)
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
// 404/index.html) with status 404 (step 9.3), and reports whether there was
// one. root is the docs URL of the tree's version: the page's relative and
// root-relative links are resolved against it (a 404 page answers for any
// path), and the reader client is injected as for any page (R.5).
func (rq *request) sendNotFoundFile(tree artifacts.Tree, root string) bool {
	for _, name := range []string{"404.html", "404/index.html"} {
		f, info, ok := openFile(tree, name)
		if !ok {
			continue
		}
		defer f.Close()
		var src io.Reader = io.LimitReader(f, info.Size())
		size := info.Size()
		if info.Size() <= maxGzipSize {
			doc, err := io.ReadAll(src)
			if err != nil {
				return false
			}
			doc = rebaseLinks(doc, root)
			if block := rq.injection(name, int64(len(doc))); block != nil {
				doc, _ = inject(doc, block)
			}
			src, size = bytes.NewReader(doc), int64(len(doc))
		}
		h := rq.w.Header()
		h.Set("Content-Type", contentType(name))
		h.Set("Content-Length", strconv.FormatInt(size, 10))
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "no-cache")
		if rq.private {
			h.Set("Cache-Control", "private, no-cache")
		}
		rq.w.WriteHeader(http.StatusNotFound)
		if rq.r.Method != http.MethodHead {
			io.Copy(rq.w, src)
		}
		return true
	}
	return false
}
