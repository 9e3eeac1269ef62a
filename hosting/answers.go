package hosting

import (
	"net/http"
	"strings"
)

// answer is a whole docs answer kept for replay (issue 14): the status,
// the header fields the docs host set, and the body. Everything in it is
// shared by the requests that replay it and never modified; the body is
// the bytes the slow path wrote (a published file's, a compressed
// variant's, a 404 page's or a redirect's), not a copy.
type answer struct {
	status int
	header []headerField
	body   []byte
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
// variants, which may have let go of them meanwhile.
const (
	maxAnswers     = 4096
	maxAnswerBytes = 16 << 20
)

// answerKeyOf returns the key of r's answer, ok false when r's answer is
// never kept: anything but a GET; a reader who may be someone (an
// Authorization header or any cookie: what a maintainer may see is not
// kept); a conditional or Range request; or a header already set by a
// handler in front of the docs host.
func answerKeyOf(w http.ResponseWriter, r *http.Request) (answerKey, bool) {
	h := r.Header
	if r.Method != http.MethodGet || len(h["Authorization"]) > 0 || len(h["Cookie"]) > 0 || !unconditional(r) || len(w.Header()) > 0 {
		return answerKey{}, false
	}
	return answerKey{host: r.Host, uri: r.RequestURI, gzip: acceptsGzip(r)}, true
}

// keep records the answer being written, status and body, as one that
// may be replayed to the same key: the writers whose answers depend only
// on the key and the cache's contents call it, after writing the whole
// answer of a GET. It does nothing for a request whose answer is never
// kept (not keyed). A second call in one request means it wrote something
// unusual: nothing is kept.
func (rq *request) keep(status int, body []byte) {
	if !rq.keyed {
		return
	}
	if rq.kept != nil {
		rq.keepSpoiled = true
		return
	}
	rq.kept = &answer{status: status, body: body}
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
	return a
}

// write replays a: the same header fields, status and body as the answer
// it was kept from (net/http writes header fields sorted by name, and
// adds Date and nothing else to both).
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

// keepAnswer keeps a for key unless the cache was emptied since gen: an
// answer made from what a Forget dropped is not kept.
func (c *cache) keepAnswer(key answerKey, gen uint64, a *answer) {
	n := len(key.host) + len(key.uri) + len(a.body)
	if n > c.answerMax {
		return
	}
	key.uri = strings.Clone(key.uri) // not the request's bytes
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return
	}
	if c.answers == nil || len(c.answers) >= maxAnswers || c.answerBytes+n > c.answerMax {
		c.answers, c.answerBytes = make(map[answerKey]*answer), 0
	}
	if _, ok := c.answers[key]; !ok {
		c.answers[key] = a
		c.answerBytes += n
	}
}
