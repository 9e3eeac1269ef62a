package hosting

import (
	"net/http"
	"net/textproto"
	"os"
	"slices"
	"strconv"
	"strings"

	"docsd/internal/analytics"
)

// answer is a whole docs answer kept for replay: the status,
// the header fields the docs host set, and the body. Everything in it is
// shared by the requests that replay it and never modified; the body is
// the bytes the slow path wrote (a published file's, a compressed
// variant's, a 404 page's or a redirect's), not a copy. A published file
// too large to keep in memory is kept as its open file instead (file,
// size), which only the Front replays, with sendfile(2); the cache closes
// it when it lets go of the answer.
type answer struct {
	status int
	header []headerField
	body   []byte
	file   *os.File
	size   int64
	// path is the request's decoded path, for the Front's access log and
	// its Reserved check.
	path string
	// head and tail are the answer's header as net/http writes it, around
	// the Date value the Front writes between them (frontConn.write); nil
	// when the Front must not replay the answer (wireHeader).
	head, tail []byte
	// view counts the page views of the answer's replays; nil when they
	// count none.
	view *analytics.PageCounter
}

type headerField struct {
	key    string
	values []string
}

// answerKey is what a kept answer depends on besides the cache's contents:
// the request's Host and request-target as sent (path and query, escaping
// included: a redirect's Location is made from them) and whether the
// reader accepts gzip. Nothing else of the request is read on the paths
// whose answers are kept, for the requests answerKeyOf accepts.
type answerKey struct {
	host, uri string
	gzip      bool
}

// Bounds of the kept answers: when either is passed, they start over. The
// bytes (at most the file cache's bound, Config.FileCacheBytes) are
// counted even though the bodies are shared with the file cache and
// variants, which may have let go of them meanwhile. Each answer kept as
// a file holds one file descriptor: at most maxFileAnswers are kept (more
// are not, until the cache starts over).
const (
	maxAnswers     = 4096
	maxAnswerBytes = 16 << 20
	maxFileAnswers = 1024
)

// answerKeyOf returns the key of r's answer, ok false when r's answer is
// never kept: anything but a GET; a reader who may be someone (an
// Authorization header or any cookie: what a maintainer may see is not
// kept); a conditional or Range request; or a header already set by a
// handler in front of the docs host. The Front's frontRequest applies the
// same rules to the bytes of a request.
func answerKeyOf(w http.ResponseWriter, r *http.Request) (answerKey, bool) {
	if r.Method != http.MethodGet || !unconditional(r) || len(w.Header()) > 0 {
		return answerKey{}, false
	}
	for _, k := range personalFields {
		if len(r.Header[k]) > 0 {
			return answerKey{}, false
		}
	}
	return answerKey{host: r.Host, uri: r.RequestURI, gzip: acceptsGzip(r.Header.Get("Accept-Encoding"))}, true
}

// personalFields are the header fields of a reader who may be someone.
var personalFields = []string{"Authorization", "Cookie"}

// keep records the answer being written, status and body, as one that
// may be replayed to the same key: the writers whose answers depend only
// on the key and the cache's contents call it, after writing the whole
// answer of a GET. It does nothing for a request whose answer is never
// kept (not keyed). A second call in one request means it wrote something
// unusual: nothing is kept.
func (rq *request) keep(status int, body []byte) {
	rq.keepAnswer(&answer{status: status, body: body})
}

// keepFile is keep for a 200 answer whose body is the whole file f, sent
// with sendfile(2), kept only while a Front serves the Handler (nothing
// else replays it): it reports whether the request took f, which it then
// closes when the answer is not kept (dropUnkept).
func (rq *request) keepFile(f *os.File, size int64) bool {
	if !rq.h.fronted.Load() {
		return false
	}
	return rq.keepAnswer(&answer{status: http.StatusOK, file: f, size: size})
}

func (rq *request) keepAnswer(a *answer) bool {
	if !rq.keyed {
		return false
	}
	if rq.kept != nil {
		rq.keepSpoiled = true
		return false
	}
	rq.kept = a
	return true
}

// keptAnswer is the answer to keep after the request was served, with the
// header fields it set; nil when there is none to keep.
func (rq *request) keptAnswer() *answer {
	if rq.kept == nil || rq.keepSpoiled || rq.private {
		return nil
	}
	a := rq.kept
	h := rq.w.Header()
	a.header = make([]headerField, 0, len(h))
	for k, v := range h {
		a.header = append(a.header, headerField{k, v})
	}
	a.path = strings.Clone(rq.r.URL.Path)
	if v := rq.view; v != nil && rq.wroteWhole {
		a.view = rq.h.analytics.NewPageCounter(v.project, v.version, v.path)
	}
	a.head, a.tail = a.wireHeader()
	return a
}

// dropUnkept closes the file of an answer that was not kept.
func (rq *request) dropUnkept() {
	if rq.kept != nil && rq.kept.file != nil {
		rq.kept.file.Close()
		rq.kept = nil
	}
}

// wireHeader returns the answer's header as net/http writes it for a
// GET answered with this status, fields and body in one write: the status
// line, the fields sorted by name, then Date (between head and tail), the
// Content-Length net/http computes when the handler set none (for a body
// it holds whole, up to 2 KB), the Content-Type it sniffs when there is
// none, and the blank line. It returns nils for an answer net/http frames
// otherwise (chunked): the Front leaves that one to net/http.
func (a *answer) wireHeader() (head, tail []byte) {
	fields := slices.SortedFunc(slices.Values(a.header), func(x, y headerField) int { return strings.Compare(x.key, y.key) })
	// have holds the fields set, each true when its first value is not
	// empty: net/http asks the one (Content-Length, Content-Type) or the
	// other (Content-Encoding, Transfer-Encoding).
	have := map[string]bool{}
	for _, f := range fields {
		have[f.key] = len(f.values) > 0 && f.values[0] != ""
	}
	if _, ok := have["Transfer-Encoding"]; ok || !have["Content-Length"] && (a.file != nil || len(a.body) > bufferBeforeChunking) {
		return nil, nil
	}
	head = append(head, "HTTP/1.1 "...)
	head = strconv.AppendInt(head, int64(a.status), 10)
	head = append(head, ' ')
	head = append(head, http.StatusText(a.status)...)
	head = append(head, "\r\n"...)
	for _, f := range fields {
		for _, v := range f.values {
			head = append(head, f.key...)
			head = append(head, ": "...)
			head = append(head, textproto.TrimString(headerValueReplacer.Replace(v))...)
			head = append(head, "\r\n"...)
		}
	}
	head = append(head, "Date: "...)
	tail = append(tail, "\r\n"...)
	if _, ok := have["Content-Length"]; !ok {
		tail = append(tail, "Content-Length: "...)
		tail = strconv.AppendInt(tail, int64(len(a.body)), 10)
		tail = append(tail, "\r\n"...)
	}
	if _, ok := have["Content-Type"]; !ok && !have["Content-Encoding"] && len(a.body) > 0 {
		tail = append(tail, "Content-Type: "...)
		tail = append(tail, http.DetectContentType(a.body)...)
		tail = append(tail, "\r\n"...)
	}
	tail = append(tail, "\r\n"...)
	return head, tail
}

// headerValueReplacer is net/http's: line breaks in a field value become
// spaces.
var headerValueReplacer = strings.NewReplacer("\n", " ", "\r", " ")

// bufferBeforeChunking is net/http's: a body it holds whole when the
// handler returns, up to this size, gets a Content-Length; a larger one
// without a Content-Length is sent chunked.
const bufferBeforeChunking = 2048

// write replays a: the same header fields, status and body as the answer
// it was kept from (net/http writes header fields sorted by name, and
// adds Date and nothing else to both). An answer kept as a file is the
// Front's only: serveDocs does not replay it.
func (a *answer) write(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	for _, f := range a.header {
		h[f.key] = f.values
	}
	w.WriteHeader(a.status)
	if len(a.body) > 0 {
		writeBody(w, r, a.body)
	}
}

// answer returns the answer kept for key, and the cache's generation to
// keep a new one under when there is none.
func (c *cache) answer(key answerKey) (*answer, uint64, bool) {
	c.mu.RLock()
	a, ok := c.answers[key]
	gen := c.gen
	c.mu.RUnlock()
	return a, gen, ok
}

// keepAnswer keeps a for key unless the cache was emptied since gen (an
// answer made from what a Forget dropped is not kept) or one is kept for
// key already; it reports whether it kept a.
func (c *cache) keepAnswer(key answerKey, gen uint64, a *answer) bool {
	n := len(key.host) + len(key.uri) + len(a.body) + len(a.head) + len(a.tail)
	if n > c.answerMax {
		return false
	}
	key.uri = strings.Clone(key.uri) // not the request's bytes
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return false
	}
	if c.answers == nil || len(c.answers) >= maxAnswers || c.answerBytes+n > c.answerMax {
		c.dropAnswers()
		c.answers = make(map[answerKey]*answer)
	}
	if _, ok := c.answers[key]; ok || a.file != nil && c.fileAnswers >= maxFileAnswers {
		return false
	}
	c.answers[key] = a
	c.answerBytes += n
	if a.file != nil {
		c.fileAnswers++
	}
	return true
}

// dropAnswers lets go of the kept answers, closing the files kept open for
// them: a Front still sending one holds the file's descriptor until it is
// done (os.File's own reference count), so nothing is closed under it.
// The caller holds mu for writing.
func (c *cache) dropAnswers() {
	for _, a := range c.answers {
		if a.file != nil {
			a.file.Close()
		}
	}
	c.answers, c.answerBytes, c.fileAnswers = nil, 0, 0
}
