//go:build !nofront

package hosting

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"docsd/internal/analytics"
)

// FrontAvailable reports whether the Front has its fast path in this
// build: on Linux, unless built with the nofront tag.
const FrontAvailable = true

// frontState is the Linux Front's (front.go): what it reads of each
// connection's requests itself and answers those whose whole answer the
// Handler keeps (answers.go: anonymous, unconditional GETs it answered
// before, until the next change) with that answer: from memory with one
// writev(2), or a large file's header and body with send(2) and
// sendfile(2) from the file kept open. A request it cannot answer so is
// the Server's: one that net/http reads as a request without a body on a
// connection that stays open (a page answered for the first time, a
// signed-in reader's, a HEAD) is lent to it with its connection, which
// comes back to the Front once answered (lending); anything else is handed
// over with the rest of the connection. Either way the Server gets the
// bytes the Front read, and reads them as if it had read them itself.
//
// What the Front answers is what net/http would have: only a request the
// Handler already answered through net/http, with the same Host and
// request-target, is answered, and only when it carries nothing that could
// change the answer or net/http's reading of it (frontRequest); anything
// else, malformed or unusual, goes to net/http unread (FuzzFront compares
// the two on random byte streams).
//
// The Server's ReadHeaderTimeout bounds a request's header in the Front too
// (a connection's first from its accept, a later one from its first bytes,
// as net/http's), and its IdleTimeout (else its ReadTimeout, as net/http's)
// the wait for a kept-alive connection's next request. Its body timeouts
// and MaxHeaderBytes are net/http's own: the Front answers no request with
// a body and hands over a header longer than its buffer (frontBufSize).
// The Front adds to the Server's ConnContext what writeBody needs
// (connContext), and to its ConnState what lending needs.
type frontState struct {
	closing  atomic.Bool
	mu       sync.Mutex
	conns    map[*frontConn]struct{}
	handoff  *handoffListener
	serving  sync.WaitGroup
	initOnce sync.Once
}

// frontBufSize bounds the header of a request the Front reads (net/http's
// own buffer is 4 KB too); a longer one is the Server's.
const frontBufSize = 4 << 10

func (f *Front) init() {
	f.initOnce.Do(func() {
		f.Handler.fronted.Store(true)
		f.conns = make(map[*frontConn]struct{})
		f.handoff = &handoffListener{conns: make(chan *coalescingConn), done: make(chan struct{}), bufPool: newPendingBufs()}
		next := f.Server.ConnContext
		f.Server.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
			if next != nil {
				ctx = next(ctx, c)
			}
			return connContext(ctx, c)
		}
		// net/http reports a connection idle once it answered a request
		// and will keep the connection: a lent one may then end (lending).
		state := f.Server.ConnState
		f.Server.ConnState = func(c net.Conn, s http.ConnState) {
			if cc, ok := c.(*coalescingConn); ok && cc.lent != nil && s == http.StateIdle {
				cc.lent.idle()
			}
			if state != nil {
				state(c, s)
			}
		}
	})
}

// Serve accepts connections on l until Shutdown or Close, and runs the
// Server on the connections handed to it. Like http.Server.Serve it
// returns http.ErrServerClosed after Shutdown or Close.
func (f *Front) Serve(l net.Listener) error {
	f.init()
	f.handoff.addr = l.Addr()
	served := make(chan error, 1)
	go func() { served <- f.Server.Serve(f.handoff) }()
	go func() { <-f.handoff.done; l.Close() }() // Shutdown and Close close l
	var delay time.Duration
	for {
		c, err := l.Accept()
		if err != nil {
			if f.closing.Load() {
				return http.ErrServerClosed
			}
			// As net/http: a temporary failure (too many open files) is
			// retried after a pause that grows to a second; any other ends
			// Serve.
			var ne net.Error
			if !errors.As(err, &ne) || !ne.Temporary() {
				f.handoff.Close()
				<-served
				return err
			}
			delay = min(max(2*delay, 5*time.Millisecond), time.Second)
			time.Sleep(delay)
			continue
		}
		delay = 0
		fc := &frontConn{f: f, c: c}
		if !f.track(fc) {
			c.Close()
			continue
		}
		go fc.serve()
	}
}

// Shutdown stops accepting, lets each connection finish the answer it is
// writing, and shuts the Server down (http.Server.Shutdown), waiting for
// all of it until ctx is done.
func (f *Front) Shutdown(ctx context.Context) error {
	f.init()
	f.closing.Store(true)
	f.handoff.Close()
	f.mu.Lock()
	for fc := range f.conns {
		fc.c.SetReadDeadline(time.Unix(1, 0)) // wakes an idle reader
	}
	f.mu.Unlock()
	err := f.Server.Shutdown(ctx)
	done := make(chan struct{})
	go func() { f.serving.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		f.closeConns()
		if err == nil {
			err = ctx.Err()
		}
	}
	return err
}

// Close closes the listener, the Server and every connection at once.
func (f *Front) Close() error {
	f.init()
	f.closing.Store(true)
	f.handoff.Close()
	f.closeConns()
	return f.Server.Close()
}

func (f *Front) closeConns() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for fc := range f.conns {
		fc.c.Close()
	}
}

// track adds a connection to those the Front serves, unless the Front is
// closing.
func (f *Front) track(fc *frontConn) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closing.Load() {
		return false
	}
	f.conns[fc] = struct{}{}
	f.serving.Add(1)
	return true
}

// untrack removes a connection the Front no longer serves.
func (f *Front) untrack(fc *frontConn) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.conns, fc)
	f.serving.Done()
}

// frontConn is one connection the Front serves; its fields are used by
// its own goroutine only, but for c, which Shutdown and Close may wake or
// close from theirs.
type frontConn struct {
	f      *Front
	c      net.Conn
	raw    syscall.RawConn // for sendfile(2); nil until needed, or when c has none
	remote string
	buf    []byte
	req    frontRequest
	// date is the Date value of the current second, dateAt its second.
	date   []byte
	dateAt int64
	iov    [4][]byte
	bufs   net.Buffers
	hdr    []byte // a file answer's header
	line   FrontRequest
	// ua is the last User-Agent the connection sent and uaBot whether it
	// is a bot's (a connection sends the same one each time).
	ua    []byte
	uaBot bool
}

// countView counts the page view of kept answer a, replayed to the reader
// of the current request, unless its User-Agent is a bot's or absent.
func (fc *frontConn) countView(a *answer) {
	if a.view == nil {
		return
	}
	ua := fc.req.userAgent
	if len(ua) == 0 {
		return
	}
	if !bytes.Equal(ua, fc.ua) {
		fc.ua = append(fc.ua[:0], ua...)
		fc.uaBot = analytics.IsBot(string(ua))
	}
	if !fc.uaBot {
		fc.f.Handler.analytics.Count(a.view)
	}
}

// serve answers the connection's requests until it closes or is handed
// over.
func (fc *frontConn) serve() {
	handedOver := false // the connection is not the Front's to close
	defer func() {
		// As net/http: a panic ends the connection, not the process.
		if p := recover(); p != nil {
			fc.f.Handler.logger.Error("panic serving docs", "remote", fc.c.RemoteAddr().String(), "panic", p, "stack", string(debug.Stack()))
		}
		if !handedOver {
			fc.c.Close()
		}
		fc.f.untrack(fc)
	}()
	fc.buf = make([]byte, frontBufSize)
	var start, n int // the unanswered bytes are buf[start:n]
	// As net/http's, a new connection's first header must come within
	// ReadHeaderTimeout, a later one's within it of its first bytes; a
	// connection between requests waits for its next request's first bytes
	// at most IdleTimeout. deadline: a read deadline is set; idle: it is
	// the wait for the next request's.
	deadline, idle := fc.armHeaderDeadline(false), false
	for {
		end := headerLength(fc.buf[start:n])
		if end < 0 { // a line ending in a bare LF: net/http's to read
			handedOver = fc.handOver(fc.buf[start:n], deadline, nil)
			return
		}
		if end == 0 {
			if start > 0 {
				n = copy(fc.buf, fc.buf[start:n])
				start = 0
			}
			if n == len(fc.buf) {
				handedOver = fc.handOver(fc.buf[:n], deadline, nil)
				return
			}
			if fc.f.closing.Load() {
				return // a request begun at shutdown is not read (net/http closes idle connections too)
			}
			if n > 0 && (!deadline || idle) {
				deadline, idle = fc.armHeaderDeadline(idle), false
				if fc.f.closing.Load() {
					return // Shutdown's wake-up may have been overwritten
				}
			}
			m, err := fc.c.Read(fc.buf[n:])
			n += m
			if err != nil {
				// The reader left, or its header is late. With nothing of
				// a request read, net/http closes such a connection
				// without an answer too; with some, it reads them as a
				// request (a line cut short is a malformed one, answered
				// 400), so they are its, then the error.
				if n == 0 || fc.f.closing.Load() {
					return
				}
				handedOver = fc.handOver(fc.buf[:n], deadline, err)
				return
			}
			continue
		}
		if fc.f.closing.Load() {
			return // a request read before Shutdown is not begun after it
		}
		end += start
		kind, a := fc.answerFor(fc.buf[start:end])
		if kind == frontHandOver {
			handedOver = fc.handOver(fc.buf[start:n], deadline, nil)
			return
		}
		if deadline {
			fc.c.SetReadDeadline(time.Time{})
			deadline = false
		}
		if a != nil {
			switch err := fc.write(a); {
			case err == errNotSent:
				kind = frontLend // its file closed since the look-up
			case err != nil:
				return
			default:
				fc.countView(a)
			}
		}
		if kind == frontLend {
			if !fc.lend(fc.buf[start:end]) {
				handedOver = true
				return
			}
		}
		start = end
		if start == n {
			start, n = 0, 0
			deadline = fc.armIdleDeadline()
			idle = deadline
		}
	}
}

// armHeaderDeadline gives the header being read the Server's
// ReadHeaderTimeout (else its ReadTimeout, as net/http's), if it has one,
// and reports whether it did; without one, it clears the idle wait's
// deadline when idle is set.
func (fc *frontConn) armHeaderDeadline(idle bool) bool {
	d := fc.f.Server.ReadHeaderTimeout
	if d <= 0 {
		d = fc.f.Server.ReadTimeout
	}
	switch {
	case d > 0:
		fc.c.SetReadDeadline(time.Now().Add(d))
	case idle:
		fc.c.SetReadDeadline(time.Time{})
	}
	return d > 0
}

// armIdleDeadline gives the wait for the next request's first bytes the
// Server's IdleTimeout (else its ReadTimeout, as net/http's), if it has
// one, and reports whether it did.
func (fc *frontConn) armIdleDeadline() bool {
	d := fc.f.Server.IdleTimeout
	if d <= 0 {
		d = fc.f.Server.ReadTimeout
	}
	if d > 0 {
		fc.c.SetReadDeadline(time.Now().Add(d))
	}
	return d > 0
}

// headerLength returns the length of the request header at the start of
// b, through its blank line; 0 when b does not hold all of it yet, -1 when
// one of its lines ends in a bare LF.
func headerLength(b []byte) int {
	line := 0
	for {
		i := bytes.IndexByte(b[line:], '\n')
		if i < 0 {
			return 0
		}
		i += line
		if i == 0 || b[i-1] != '\r' {
			return -1
		}
		if i-1 == line {
			return i + 1
		}
		line = i + 1
	}
}

// handOver gives the connection, with the bytes read from it and not
// answered, to the Server; false when the Server is closed. readErr, when
// set, is the error that ended the Front's reading: the Server's reads get
// it after unread.
func (fc *frontConn) handOver(unread []byte, deadline bool, readErr error) bool {
	if deadline {
		fc.c.SetReadDeadline(time.Time{})
	}
	h := fc.f.handoff
	cc := &coalescingConn{Conn: fc.c, unread: unread, readErr: readErr, bufPool: h.bufPool}
	select {
	case h.conns <- cc:
		return true
	case <-h.done:
		return false
	}
}

// lend gives the connection to the Server for one request, whose header
// (it has no body) is req, and reports whether the connection came back:
// the Server answers the request as it would any; once net/http reports
// the connection idle, its next read finds the connection's end and its
// Close gives the connection back to the Front (lending). False when the
// Server closed the connection for good, or is closed itself (the
// connection is closed then too).
func (fc *frontConn) lend(req []byte) bool {
	h := fc.f.handoff
	l := &lending{conn: fc.c, raw: fc.rawConn(), back: make(chan bool, 1)}
	l.wake = sync.NewCond(&l.mu)
	cc := &coalescingConn{Conn: fc.c, unread: req, bufPool: h.bufPool, lent: l}
	select {
	case h.conns <- cc:
		if !<-l.back {
			return false
		}
		// A read deadline net/http left (lending.setReadDeadline) is not
		// the Front's.
		fc.c.SetReadDeadline(time.Time{})
		return true
	case <-h.done:
		fc.c.Close()
		return false
	}
}

// answerFor returns what the Front does with the request whose header is
// b (frontRequest.parse) and, to answer it, the answer kept for it: a
// request the Front would answer for which none is kept is lent.
func (fc *frontConn) answerFor(b []byte) (int, *answer) {
	rq := &fc.req
	if kind := rq.parse(b); kind != frontAnswer {
		return kind, nil
	}
	// The key's strings are the buffer's bytes, only for the look-up: the
	// map keeps no key it is asked for.
	key := answerKey{host: unsafeString(rq.host), uri: unsafeString(rq.target), gzip: acceptsGzip(unsafeString(rq.acceptEncoding))}
	a, _, ok := fc.f.Handler.cache.answer(key)
	if !ok || a.head == nil || fc.f.Reserved != nil && fc.f.Reserved(a.path) || a.file != nil && fc.rawConn() == nil {
		return frontLend, nil
	}
	return frontAnswer, a
}

func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// rawConn is the connection's, for sendfile(2); nil when it has none.
func (fc *frontConn) rawConn() syscall.RawConn {
	if fc.raw == nil {
		if sc, ok := fc.c.(syscall.Conn); ok {
			fc.raw, _ = sc.SyscallConn()
		}
	}
	return fc.raw
}

// write sends a, with the Date of now, and logs it; errNotSent when it
// sent nothing and the request is the Server's.
func (fc *frontConn) write(a *answer) error {
	start := time.Now()
	if sec := start.Unix(); sec != fc.dateAt || fc.date == nil {
		fc.date = start.UTC().AppendFormat(fc.date[:0], http.TimeFormat)
		fc.dateAt = sec
	}
	var err error
	size := len(a.body)
	if a.file != nil {
		var sent int64
		if sent, err = fc.sendFile(a); err == errNotSent {
			return err
		}
		size = int(sent)
	} else {
		// net.Buffers.WriteTo consumes the slice it is called on: a slice
		// of the connection's own array allocates nothing.
		fc.iov = [4][]byte{a.head, fc.date, a.tail, a.body}
		fc.bufs = fc.iov[:]
		_, err = fc.bufs.WriteTo(fc.c)
		fc.iov = [4][]byte{}
	}
	if log := fc.f.Log; log != nil {
		if fc.remote == "" {
			fc.remote = fc.c.RemoteAddr().String()
		}
		rq := &fc.req
		fc.line = FrontRequest{Method: http.MethodGet, Host: unsafeString(rq.host), Path: a.path,
			Remote: fc.remote, ForwardedFor: unsafeString(rq.forwardedFor),
			Status: a.status, Bytes: size, Start: start, Duration: time.Since(start)}
		log(&fc.line)
		fc.line = FrontRequest{}
	}
	return err
}

// sendFile sends a's header with MSG_MORE, so that it leaves with the
// body's first bytes as nginx's corked writes do, then the file with
// sendfile(2) from its start: the file is shared by every request that
// replays a, so its own offset is never used. It returns how many bytes
// of the body it sent (for the access log, as net/http's path counts).
func (fc *frontConn) sendFile(a *answer) (int64, error) {
	fc.hdr = append(append(append(fc.hdr[:0], a.head...), fc.date...), a.tail...)
	frc, err := a.file.SyscallConn()
	if err != nil {
		return 0, err
	}
	var werr, serr error // the connection's, and a system call's
	// Control holds the file's descriptor: the cache may close the file
	// meanwhile, and the descriptor is closed when this is done.
	ran := false
	var off int64 // the body's bytes sent
	cerr := frc.Control(func(ffd uintptr) {
		ran = true
		sent := 0
		more := syscall.MSG_MORE // the body follows
		if a.size == 0 {
			more = 0
		}
		werr = fc.raw.Write(func(sfd uintptr) bool {
			for sent < len(fc.hdr) || off < a.size {
				var err error
				if sent < len(fc.hdr) {
					var n int
					n, err = syscall.SendmsgN(int(sfd), fc.hdr[sent:], nil, nil, more)
					sent += max(n, 0)
				} else {
					var n int
					n, err = syscall.Sendfile(int(sfd), int(ffd), &off, int(min(a.size-off, 1<<30)))
					if err == nil && n == 0 {
						err = io.ErrUnexpectedEOF // the file is shorter than it was
					}
				}
				switch err {
				case nil, syscall.EINTR:
				case syscall.EAGAIN:
					return false // called again when the socket can take more
				default:
					serr = err
					return true
				}
			}
			return true
		})
	})
	if !ran {
		return 0, errNotSent // the cache closed the file since the look-up
	}
	return off, errors.Join(serr, werr, cerr)
}

// errNotSent: the answer could not be sent and nothing of it was; the
// request is the Server's.
var errNotSent = errors.New("hosting: the kept answer's file is closed")

// frontRequest is what the Front reads of a request's header.
type frontRequest struct {
	target, host, acceptEncoding, forwardedFor, userAgent []byte
}

// What the Front does with a request (frontRequest.parse).
const (
	// frontHandOver: the request is net/http's, with the rest of its
	// connection.
	frontHandOver = iota
	// frontLend: the request is net/http's, then the connection comes
	// back to the Front (frontConn.lend).
	frontLend
	// frontAnswer: the Front answers when an answer is kept for the
	// request; otherwise it lends it to net/http.
	frontAnswer
)

// parse reads the header b (up to and including its blank line) and
// returns what the Front does with the request. It hands over anything
// net/http might read otherwise than the Front: a version but HTTP/1.1, a
// line not ending in CRLF, a field not well formed (a token, a colon, a
// value without control characters, no folded line), no Host or two, a
// body or its announcement, an upgrade, a Connection but keep-alive. Of
// the rest, which net/http reads as a request without a body whose
// connection stays open, it answers a GET of an origin-form target with
// at most one Accept-Encoding and X-Forwarded-For and none of the fields
// that make an answer someone's, conditional or partial (answerKeyOf's
// rules), and lends the others (of which net/http may still refuse one, a
// bad Host say, and close the connection, as it would have).
func (rq *frontRequest) parse(b []byte) int {
	*rq = frontRequest{}
	line, rest, _ := bytes.Cut(b, crlf)
	method, line, ok := bytes.Cut(line, sp)
	target, proto, ok2 := bytes.Cut(line, sp)
	if !ok || !ok2 || len(method) == 0 || len(target) == 0 || string(proto) != "HTTP/1.1" {
		return frontHandOver
	}
	for _, c := range method {
		if !isTokenByte(c) {
			return frontHandOver
		}
	}
	for _, c := range target {
		if c <= ' ' || c >= 0x7f {
			return frontHandOver
		}
	}
	kind := frontAnswer
	if string(method) != http.MethodGet || target[0] != '/' {
		kind = frontLend
	}
	rq.target = target
	var host, acceptEncoding, forwardedFor bool
	for {
		line, rest, _ = bytes.Cut(rest, crlf)
		if len(line) == 0 {
			if !host || len(rest) != 0 {
				return frontHandOver
			}
			return kind
		}
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 {
			return frontHandOver
		}
		name, value := line[:colon], bytes.Trim(line[colon+1:], " \t")
		for _, c := range name {
			if !isTokenByte(c) {
				return frontHandOver
			}
		}
		for _, c := range value {
			if c < ' ' && c != '\t' || c == 0x7f {
				return frontHandOver
			}
		}
		switch {
		case equalFold(name, "Host"):
			if host {
				return frontHandOver
			}
			host, rq.host = true, value
		case equalFold(name, "Accept-Encoding"):
			if acceptEncoding {
				kind = frontLend
			}
			acceptEncoding, rq.acceptEncoding = true, value
		case equalFold(name, "X-Forwarded-For"):
			if forwardedFor {
				kind = frontLend
			}
			forwardedFor, rq.forwardedFor = true, value
		case equalFold(name, "User-Agent"):
			rq.userAgent = value
		case equalFold(name, "Connection"):
			if !equalFold(value, "keep-alive") {
				return frontHandOver
			}
		case oneOf(name, bodyFields):
			return frontHandOver
		case oneOf(name, personalFields), oneOf(name, conditionalFields):
			kind = frontLend
		}
	}
}

var sp = []byte(" ")

// bodyFields announce a body or an upgrade, which net/http reads from the
// connection after the header.
var bodyFields = []string{"Content-Length", "Transfer-Encoding", "Expect", "Upgrade", "Trailer"}

func oneOf(name []byte, fields []string) bool {
	for _, f := range fields {
		if equalFold(name, f) {
			return true
		}
	}
	return false
}

var crlf = []byte("\r\n")

func equalFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		if lower(b[i]) != lower(s[i]) {
			return false
		}
	}
	return true
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// isTokenByte reports whether c may be in a field name (RFC 9110, section 5.6.2).
func isTokenByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		bytes.IndexByte([]byte("!#$%&'*+-.^_`|~"), c) >= 0
}

// handoffListener is the Server's listener: it accepts the connections
// the Front lends or hands over.
type handoffListener struct {
	conns   chan *coalescingConn
	done    chan struct{}
	once    sync.Once
	addr    net.Addr
	bufPool *sync.Pool // coalescingConn's, shared by the connections
}

func (l *handoffListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *handoffListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *handoffListener) Addr() net.Addr { return l.addr }

// lending is the state of a connection lent to the Server for one request
// (frontConn.lend), as its coalescingConn shows it to net/http. Read gives
// the request; then, until net/http reports the connection idle (its
// ConnState hook, called once it answered and decided to keep the
// connection), it watches the connection for the reader leaving as
// net/http's own background read does, without taking the next request's
// bytes: it peeks (MSG_PEEK) and returns io.EOF or the error when the
// reader closed, waits without reading once a next request's byte is
// there, and returns a timeout once net/http sets a read deadline in the
// past (which it does to end that read when the handler returned). Once
// the connection is idle, Read returns io.EOF: net/http, reading the next
// request, finds the connection's end and closes it. A Close after that
// io.EOF gives the connection back to the Front; any other Close (net/http
// closing after its answer: a Connection: close the handler set, a short
// body, a write error, a panic, its own 400) closes it. Read deadlines are
// the lending's: only a past one (to end a peek) and none reach the
// connection, as no other read of a lent connection waits on it.
type lending struct {
	conn      net.Conn
	raw       syscall.RawConn // conn's, to peek; nil when it has none (then no watch)
	mu        sync.Mutex
	wake      *sync.Cond // a reader waits on it for readPast, keptAlive, closed, or the end of another's peek
	readPast  bool       // a read deadline in the past is set
	keptAlive bool       // net/http answered the request and keeps the connection
	next      bool       // the next request's first byte is there: no more watching
	peeking   bool       // a read peeks at the connection
	ended     bool       // a read got io.EOF after keptAlive
	closed    bool
	back      chan bool // Close's outcome: true when the connection is the Front's again
}

func (l *lending) read() (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for {
		switch {
		case l.closed:
			return 0, net.ErrClosed
		case l.readPast:
			return 0, os.ErrDeadlineExceeded
		case l.keptAlive:
			l.ended = true
			return 0, io.EOF
		case l.raw == nil || l.next || l.peeking:
			l.wake.Wait()
			continue
		}
		l.peeking = true
		l.mu.Unlock()
		n, err := l.peek()
		l.mu.Lock()
		l.peeking = false
		l.wake.Broadcast()
		switch {
		case errors.Is(err, os.ErrDeadlineExceeded):
			// readPast ends the read above, or it was reset meanwhile
		case err != nil:
			return 0, err
		case n == 0:
			return 0, io.EOF // the reader closed the connection
		default:
			l.next = true
		}
	}
}

// peek waits until the connection has a byte to read or its end, and
// reports how many bytes it saw (0 at the end) without reading them.
func (l *lending) peek() (int, error) {
	var b [1]byte
	var n int
	var serr error
	err := l.raw.Read(func(fd uintptr) bool {
		for {
			n, _, serr = syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK)
			if serr != syscall.EINTR {
				return serr != syscall.EAGAIN
			}
		}
	})
	if err != nil {
		return 0, err
	}
	return n, serr
}

func (l *lending) setReadDeadline(t time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.readPast = !t.IsZero() && !t.After(time.Now())
	if l.readPast || t.IsZero() {
		l.conn.SetReadDeadline(t) // ends a peek, or lets the next one wait
	}
	l.wake.Broadcast()
}

// idle tells the lending that net/http answered the request and keeps the
// connection.
func (l *lending) idle() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.keptAlive = true
	l.wake.Broadcast()
}

// close reports whether the connection goes back to the Front; the
// first call only (net/http may close a connection twice).
func (l *lending) close() (back, first bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return false, false
	}
	l.closed = true
	l.wake.Broadcast()
	return l.ended, true
}
