package hosting

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"docsd/internal/artifacts"
	"docsd/store"
)

// publishedFile is what the host knows of one name of one published tree:
// whether it is a regular file there, and if so its size, modification
// time and entity tag, its bytes when it is small (maxCachedFile), and the
// header values of its answers, made once and shared by every answer
// (never modified). A published tree never changes — a publish makes a new
// tree with a new ID — so nothing here is ever stale, and a request for a
// cached file makes no system call before writing its answer.
type publishedFile struct {
	regular bool
	size    int64
	modtime time.Time
	etag    string
	gz      bool   // its Content-Type is worth compressing
	body    []byte // the whole file when size <= maxCachedFile, else nil

	hType, hETag, hLength, hModified []string // hModified nil for a zero time

	gzMu    sync.Mutex // guards gzipped
	gzipped *variant   // its gzip representation, once made

	// notFound is the file rebased as a custom 404 page, kept for the
	// last version asked for: a tree is served under one root.
	notFound atomic.Pointer[rebasedPage]
}

// rebasedPage is a custom 404 page whose links were resolved against root,
// the docs URL of version ver of x. x and ver are the cache's values,
// shared by every request until the cache forgets them: while they are
// the ones asked for, root needs no computing.
type rebasedPage struct {
	x       *store.Project
	ver     *store.Version
	root    string
	body    []byte // capacity equals length: inject copies
	hLength []string
}

// fileCache keeps publishedFiles by tree ID and name, found or not, within
// a bound on the bytes they hold; when it is full it starts over.
type fileCache struct {
	max int64 // bytes; < 0 keeps nothing

	mu      sync.RWMutex // guards size and entries
	size    int64
	entries map[fileKey]*publishedFile
}

type fileKey struct{ tree, name string }

// maxCachedFile is the largest file whose bytes are kept in memory; larger
// ones are sent from their file with sendfile(2), as nginx does.
const maxCachedFile = 64 << 10

// DefaultFileCacheBytes bounds the memory of published files kept by the
// docs host when Config.FileCacheBytes is zero.
const DefaultFileCacheBytes = 64 << 20

// fileOverhead is about what an entry costs besides its bytes.
const fileOverhead = 512

// Header values shared by every answer.
var (
	hNosniff        = []string{"nosniff"}
	hPrivate        = []string{"private"}
	hNoCache        = []string{"no-cache"}
	hPrivateNoCache = []string{"private, no-cache"}
	hBytes          = []string{"bytes"}
	hGzip           = []string{"gzip"}
	hVary           = []string{"Accept-Encoding"}
)

// lookup returns what is known of name in tree, looking it up (and reading
// it when small) the first time. The error is a failure to read a regular
// file.
func (c *fileCache) lookup(tree artifacts.Tree, name string) (*publishedFile, error) {
	key := fileKey{tree.ID(), name}
	c.mu.RLock()
	pf, ok := c.entries[key]
	c.mu.RUnlock()
	if ok {
		return pf, nil
	}
	pf, err := readPublishedFile(tree, name)
	if err != nil {
		return nil, err
	}
	key.name = strings.Clone(name) // not the request's path
	c.put(key, pf, int64(len(key.tree)+len(key.name)+len(pf.body)))
	return pf, nil
}

// isFile reports whether name is a regular file of tree.
func (c *fileCache) isFile(tree artifacts.Tree, name string) bool {
	pf, err := c.lookup(tree, name)
	return err == nil && pf.regular
}

func (c *fileCache) put(key fileKey, pf *publishedFile, n int64) {
	n += fileOverhead
	if c.max < 0 || n > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[key]; ok {
		return
	}
	if c.entries == nil || c.size+n > c.max {
		c.entries, c.size = make(map[fileKey]*publishedFile), 0
	}
	c.entries[key] = pf
	c.size += n
}

// grow counts n more bytes held by an entry (a representation made
// later); the cache starts over when that passes its bound.
func (c *fileCache) grow(n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.size += n
	if c.size > c.max {
		c.entries, c.size = nil, 0
	}
}

// readPublishedFile looks name up in tree.
func readPublishedFile(tree artifacts.Tree, name string) (*publishedFile, error) {
	f, info, ok := openFile(tree, name)
	if !ok {
		return &publishedFile{}, nil
	}
	defer f.Close()
	ctype := contentType(name)
	pf := &publishedFile{
		regular: true,
		size:    info.Size(),
		modtime: info.ModTime(),
		etag:    entityTag(tree.ID(), info.Size(), info.ModTime()),
		gz:      compressible(ctype),
		hType:   []string{ctype},
		hLength: []string{strconv.FormatInt(info.Size(), 10)},
	}
	pf.hETag = []string{pf.etag}
	if !isZeroTime(pf.modtime) {
		pf.hModified = []string{pf.modtime.UTC().Format(http.TimeFormat)}
	}
	if pf.size <= maxCachedFile {
		pf.body = make([]byte, pf.size)
		if _, err := io.ReadFull(f, pf.body); err != nil {
			return nil, err
		}
	}
	return pf, nil
}

// isZeroTime reports whether t is a time http.ServeContent sends no
// Last-Modified for.
func isZeroTime(t time.Time) bool { return t.IsZero() || t.Equal(time.Unix(0, 0)) }

// bytes returns the whole file.
func (pf *publishedFile) bytes(tree artifacts.Tree, name string) ([]byte, error) {
	if pf.body != nil {
		return pf.body, nil
	}
	f, err := tree.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, pf.size)
	if _, err := io.ReadFull(f, b); err != nil {
		return nil, err
	}
	return b, nil
}

// gzipVariant returns the file compressed, made the first time it is asked
// for and counted in c.
func (pf *publishedFile) gzipVariant(c *fileCache, tree artifacts.Tree, name string) (*variant, error) {
	pf.gzMu.Lock()
	defer pf.gzMu.Unlock()
	if pf.gzipped != nil {
		return pf.gzipped, nil
	}
	b, err := pf.bytes(tree, name)
	if err != nil {
		return nil, err
	}
	z, err := gzipAll(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	pf.gzipped = newVariant(z, withTagSuffix(pf.etag, "-gzip"), true)
	c.grow(int64(len(z)))
	return pf.gzipped, nil
}

// notFoundPage returns the file as a custom 404 page of version ver of x,
// whose links are resolved against the version's docs URL (root), made
// once per root.
func (pf *publishedFile) notFoundPage(c *fileCache, tree artifacts.Tree, name string, x *store.Project, ver *store.Version, root func() string) (*rebasedPage, error) {
	last := pf.notFound.Load()
	if last != nil && last.x == x && last.ver == ver {
		return last, nil
	}
	r := root()
	if last != nil && last.root == r {
		p := *last
		p.x, p.ver = x, ver
		pf.notFound.Store(&p)
		return &p, nil
	}
	b, err := pf.bytes(tree, name)
	if err != nil {
		return nil, err
	}
	doc := rebaseLinks(b, r)
	if len(doc) > 0 && &doc[0] == &b[0] {
		doc = append([]byte(nil), doc...) // never share the file's own bytes
	}
	doc = doc[:len(doc):len(doc)]
	p := &rebasedPage{x: x, ver: ver, root: r, body: doc, hLength: []string{strconv.Itoa(len(doc))}}
	if pf.notFound.Swap(p) == nil {
		c.grow(int64(len(doc) + len(r)))
	}
	return p, nil
}

// conditionalFields are the header fields that make http.ServeContent
// answer anything but the whole body with 200.
var conditionalFields = []string{"Range", "If-Match", "If-Unmodified-Since", "If-None-Match", "If-Modified-Since", "If-Range"}

// unconditional reports whether the request has none of conditionalFields.
func unconditional(r *http.Request) bool {
	for _, k := range conditionalFields {
		if len(r.Header[k]) > 0 {
			return false
		}
	}
	return true
}

// sendFileAsIs answers with the file's own bytes: what http.ServeContent
// answers, written directly when the request is unconditional — from
// memory when the bytes are kept, else with sendfile(2) — and by
// http.ServeContent otherwise.
func (rq *request) sendFileAsIs(tree artifacts.Tree, name string, pf *publishedFile) {
	w, r := rq.w, rq.r
	w.Header()["Etag"] = pf.hETag
	if pf.body != nil {
		rq.sendBytes(pf.body, pf.hLength, pf.modtime, pf.hModified)
		return
	}
	f, err := tree.Open(name)
	if err != nil {
		if !readerGone(r) {
			rq.h.logger.ErrorContext(r.Context(), "opening docs file", "path", r.URL.Path, "err", err)
			serverErrorPage(w, r)
		}
		return
	}
	if !unconditional(r) {
		defer f.Close()
		serveContent(w, r, pf.modtime, f, pf.size)
		return
	}
	rq.writeWholeHeader(pf.hLength, pf.hModified)
	if r.Method != http.MethodHead {
		io.CopyN(w, f, pf.size) // sendfile(2) through the connection's ReadFrom
	}
	// A Front replays this answer from the same open file (keepFile).
	if of, ok := f.(*os.File); !ok || r.Method != http.MethodGet || !rq.keepFile(of, pf.size) {
		f.Close()
	}
}

// sendBytes answers with body as http.ServeContent would, directly when the
// request is unconditional — a 200 with the whole body, which may be kept
// (keep) — and through http.ServeContent otherwise.
func (rq *request) sendBytes(body []byte, hLength []string, modtime time.Time, hModified []string) {
	w, r := rq.w, rq.r
	if !unconditional(r) {
		http.ServeContent(w, r, "", modtime, bytes.NewReader(body))
		return
	}
	rq.writeWholeHeader(hLength, hModified)
	if r.Method != http.MethodHead {
		writeBody(w, r, body)
	}
	rq.keep(http.StatusOK, body)
}

// writeWholeHeader writes the 200 header http.ServeContent writes for a
// whole body (Content-Type and ETag already set).
func writeWholeHeader(w http.ResponseWriter, hLength, hModified []string) {
	h := w.Header()
	if hModified != nil {
		h["Last-Modified"] = hModified
	}
	h["Accept-Ranges"] = hBytes
	h["Content-Length"] = hLength
	w.WriteHeader(http.StatusOK)
}
