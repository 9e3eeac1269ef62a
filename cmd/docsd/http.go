package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"docsd/graph"
	"docsd/internal/upload"
	"docsd/rest"
)

// The HTTP connection settings' defaults. A kept-alive connection waits
// 75 s for its next request, nginx's keepalive_timeout. A request body may
// keep the server waiting 60 s for its next bytes (nginx's
// client_body_timeout) and, beyond that grace, one second more per 500
// bytes it delivered (Apache mod_reqtimeout's MinRate): a 1 GiB upload at
// any usable speed passes, a body trickled a byte at a time is cut.
const (
	defaultIdleTimeout    = 75
	defaultBodyTimeout    = 60
	defaultBodyMinRate    = 500
	defaultMaxHeaderBytes = 64 << 10
	// readHeaderTimeout bounds the arrival of a request's header.
	readHeaderTimeout = 10 * time.Second
)

// resolveHTTP checks the HTTP connection settings. A MaxHeaderBytes of 0
// (settings made in code rather than parsed) takes the default.
func (s *Settings) resolveHTTP() error {
	if s.IdleTimeout < 0 || s.BodyTimeout < 0 || s.BodyMinRate < 0 {
		return fmt.Errorf("--idle-timeout, --body-timeout and --body-min-rate must not be negative (0 turns a limit off)")
	}
	switch {
	case s.MaxHeaderBytes < 0:
		return fmt.Errorf("--max-header-bytes must be positive")
	case s.MaxHeaderBytes == 0:
		s.MaxHeaderBytes = defaultMaxHeaderBytes
	}
	return nil
}

// httpServer is the http.Server of a listener: every listener has the
// same connection limits. The body limits are guardBodies'.
func (a *app) httpServer(h http.Handler) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: readHeaderTimeout,
		IdleTimeout: time.Duration(a.settings.IdleTimeout) * time.Second, MaxHeaderBytes: a.settings.MaxHeaderBytes}
}

// bodyRule is what guardBodies does with the body of a request to a
// route besides its read deadlines.
type bodyRule struct {
	// limit is the largest body the route reads. A body within it that
	// the handler left unread is read and thrown away before the answer
	// starts; 0: the body is left to net/http (which reads up to 256 KiB
	// of it, else closes the connection after the answer).
	limit int64
	// tooLarge answers a request whose Content-Length is over limit, in
	// the route's error shape, before its handler runs; nil: the handler
	// answers it.
	tooLarge func(http.ResponseWriter, *http.Request)
}

// bodyRule is the rule of path on the public listener (docsListener false)
// or the docs listener: REST's limit under /api/ and on the search
// endpoints, GraphQL's (--graphql-max-bytes) on /graphql. The routes that
// read their bodies themselves have none: the incoming webhooks (their own
// limit), the storage POST of local upload storage (which answers a
// refusal at once and then reads the rest of the body, upload.Local).
func (a *app) bodyRule(path string, docsListener bool) bodyRule {
	switch {
	case docsListener && !searchFirstPath(path):
		return bodyRule{}
	case path == "/graphql":
		limit := a.settings.GraphQLMaxBytes
		if limit <= 0 {
			return bodyRule{}
		}
		return bodyRule{limit: int64(limit), tooLarge: func(w http.ResponseWriter, r *http.Request) {
			graph.WriteHTTPError(w, graph.RequestTooLarge(limit, r.ContentLength))
		}}
	case path == upload.StoragePath && a.uploads.local != nil,
		strings.HasPrefix(path, "/api/v2/webhook/"):
		return bodyRule{}
	case strings.HasPrefix(path, "/api/") || searchFirstPath(path):
		return bodyRule{limit: rest.MaxBody, tooLarge: rest.WriteBodyTooLarge}
	}
	return bodyRule{}
}

// guardBodies applies the body rules (bodyRule) and read deadlines
// (guardedBody) to every request with a body.
//
// Draining: a handler may refuse a request (403, 404) before it reads the
// body. net/http then reads at most 256 KiB of what is left and otherwise
// closes the connection after the answer, with the body unread, so the
// client's kernel resets it, and a client that sends its whole body before
// it reads the answer (as Python's do) gets a connection error instead of the
// answer. So a body within the route's limit is read and thrown away
// before the answer starts, and the connection stays open; one over the
// limit is answered 413 and the connection closed, by Content-Length
// before the handler runs, else (a chunked body) with the handler's
// answer.
func (a *app) guardBodies(next http.Handler, docsListener bool) http.Handler {
	timeout := time.Duration(a.settings.BodyTimeout) * time.Second
	minRate := float64(a.settings.BodyMinRate)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		rule := a.bodyRule(r.URL.Path, docsListener)
		if rule.tooLarge != nil && r.ContentLength > rule.limit {
			w.Header().Set("Connection", "close")
			rule.tooLarge(w, r)
			return
		}
		if timeout == 0 && rule.limit == 0 {
			next.ServeHTTP(w, r)
			return
		}
		b := &guardedBody{ReadCloser: r.Body, rc: http.NewResponseController(w), timeout: timeout, minRate: minRate}
		b.arm()
		r = r.WithContext(r.Context()) // a copy: net/http keeps its own
		r.Body = b
		if rule.limit == 0 {
			next.ServeHTTP(w, r)
			return
		}
		dw := &drainWriter{ResponseWriter: w, body: b, limit: rule.limit, contentLength: r.ContentLength,
			awaitsContinue: strings.EqualFold(r.Header.Get("Expect"), "100-continue")}
		next.ServeHTTP(dw, r)
		dw.drain()
	})
}

// errBodyTooSlow ends the read of a body that fell below --body-min-rate.
var errBodyTooSlow = fmt.Errorf("request body slower than --body-min-rate: %w", os.ErrDeadlineExceeded)

// guardedBody is a request body read with deadlines: each read may wait at
// most timeout for the client, and all the reads together at most
// timeout plus one second per minRate bytes read (minRate 0: no such
// bound). Only the time spent waiting in reads counts, so a handler that
// works before it reads does not use up its client's time. The deadline
// is cleared when the body ends, so that net/http's read for the client
// leaving, which starts then, is not cut. A body whose connection takes no
// deadline is not read at all: its reads fail.
type guardedBody struct {
	io.ReadCloser
	rc      *http.ResponseController
	timeout time.Duration // 0: no deadlines
	minRate float64       // bytes per second

	n      int64         // bytes read
	waited time.Duration // time spent in reads
	eof    bool
	err    error // the error that ended the body, other than io.EOF
}

// arm sets the body's first deadline, before its handler runs: net/http
// itself reads up to 256 KiB of what a handler left unread, after the
// handler returned and not through Read, so the connection must have a
// deadline already.
func (b *guardedBody) arm() {
	if b.timeout == 0 {
		return
	}
	if err := b.rc.SetReadDeadline(time.Now().Add(b.timeout)); err != nil {
		b.err = fmt.Errorf("request body deadline (--body-timeout): %w", err)
	}
}

func (b *guardedBody) Read(p []byte) (int, error) {
	if b.eof {
		return 0, io.EOF
	}
	if b.err != nil {
		return 0, b.err
	}
	if b.timeout == 0 {
		return b.read(p)
	}
	wait := b.timeout
	if b.minRate > 0 {
		earned := b.timeout + time.Duration(float64(b.n)/b.minRate*float64(time.Second)) - b.waited
		if earned <= 0 {
			b.err = errBodyTooSlow
			return 0, b.err
		}
		wait = min(wait, earned)
	}
	start := time.Now()
	if err := b.rc.SetReadDeadline(start.Add(wait)); err != nil {
		b.err = fmt.Errorf("request body deadline (--body-timeout): %w", err)
		return 0, b.err
	}
	n, err := b.read(p)
	b.waited += time.Since(start)
	if b.eof {
		b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

// read reads from the body and keeps count.
func (b *guardedBody) read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n += int64(n)
	switch {
	case err == io.EOF:
		b.eof = true
	case err != nil:
		b.err = err
	}
	return n, err
}

// finish reads what is left of the body, while the whole stays within
// limit, and reports whether it read it to its end.
func (b *guardedBody) finish(limit, contentLength int64) bool {
	if b.eof {
		return true
	}
	if b.err != nil || contentLength > limit || b.n > limit {
		return false
	}
	io.Copy(io.Discard, io.LimitReader(b, limit-b.n+1))
	return b.eof && b.n <= limit
}

// drainWriter reads what is left of a request body within limit
// (guardBodies) when its answer starts: at the handler's first write, or
// after it returned. A body it does not read to its end (over the limit,
// broken, or too slow) closes the connection after the answer. A client
// that asked for 100 Continue and was not sent it (its handler did not
// read) never sent the body: there is nothing to read, and net/http
// closes the connection.
type drainWriter struct {
	http.ResponseWriter
	body           *guardedBody
	limit          int64
	contentLength  int64
	awaitsContinue bool
	drained        bool
}

func (w *drainWriter) drain() {
	if w.drained {
		return
	}
	w.drained = true
	if w.awaitsContinue && w.body.n == 0 {
		return
	}
	if !w.body.finish(w.limit, w.contentLength) {
		w.Header().Set("Connection", "close")
	}
}

func (w *drainWriter) WriteHeader(code int) {
	if code >= 200 {
		w.drain()
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *drainWriter) Write(p []byte) (int, error) {
	w.drain()
	return w.ResponseWriter.Write(p)
}

// Flush lets streaming answers (GraphQL over SSE) send each event at once.
func (w *drainWriter) Flush() {
	w.drain()
	http.NewResponseController(w.ResponseWriter).Flush()
}

func (w *drainWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
