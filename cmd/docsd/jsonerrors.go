package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"regexp"
	"sync"
)

// net/http answers requests it cannot parse (a bad request line or header,
// headers past MaxHeaderBytes) itself, in plain text, before any handler
// runs. Under /api/ docsd's clients expect JSON error bodies, so the
// listener rewrites those answers when the request line names an /api/ path.

// jsonErrorListener wraps accepted connections in jsonErrorConn.
type jsonErrorListener struct{ net.Listener }

func (l jsonErrorListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &jsonErrorConn{Conn: c}, nil
}

// headKeep is how much of a request's first bytes a connection keeps.
const headKeep = 1024

// jsonErrorConn remembers the first bytes read since its last write (the
// current request's line) and rewrites net/http's own plain-text error
// answers to API requests as JSON.
type jsonErrorConn struct {
	net.Conn
	mu    sync.Mutex
	head  []byte // mu guards head and wrote
	wrote bool
}

func (c *jsonErrorConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	if c.wrote {
		c.head, c.wrote = c.head[:0], false
	}
	if room := headKeep - len(c.head); room > 0 && n > 0 {
		c.head = append(c.head, p[:min(n, room)]...)
	}
	c.mu.Unlock()
	return n, err
}

// goErrorAnswer matches net/http's own error answers exactly: a status line,
// these two headers and nothing else (handlers' answers carry a Date).
var goErrorAnswer = regexp.MustCompile(`^HTTP/1\.1 (4\d\d) ([^\r\n]*)\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n(.*)$`)

func (c *jsonErrorConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	c.wrote = true
	var head []byte
	var m [][]byte
	if bytes.HasPrefix(p, []byte("HTTP/1.1 4")) {
		m = goErrorAnswer.FindSubmatch(p)
	}
	if m != nil {
		head = bytes.Clone(c.head)
	}
	c.mu.Unlock()
	if m == nil || !isAPIRequestLine(head) {
		return c.Conn.Write(p)
	}
	status, reason := m[1], m[2]
	detail, _ := json.Marshal(map[string]string{"detail": string(reason)})
	if _, err := fmt.Fprintf(c.Conn, "HTTP/1.1 %s %s\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s",
		status, reason, len(detail), detail); err != nil {
		return 0, err
	}
	return len(p), nil
}

// ReadFrom keeps sendfile(2) for the docs host: net/http copies files
// with its connection's ReadFrom when it has one.
func (c *jsonErrorConn) ReadFrom(r io.Reader) (int64, error) {
	c.mu.Lock()
	c.wrote = true
	c.mu.Unlock()
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(c.Conn, r)
}

// isAPIRequestLine reports whether the request line at the start of head
// targets /api/ (the method may lack its first bytes: net/http reads one
// byte ahead while a handler runs).
func isAPIRequestLine(head []byte) bool {
	line, _, _ := bytes.Cut(head, []byte("\n"))
	fields := bytes.Fields(line)
	return len(fields) >= 2 && bytes.HasPrefix(fields[1], []byte("/api/"))
}
