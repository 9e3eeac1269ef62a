//go:build linux && !nofront

package hosting

import (
	"context"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// newPendingBufs is the pool of copies of kept writes (net/http's 4 KB
// buffer), shared by a listener's connections so that an idle one keeps
// none.
func newPendingBufs() *sync.Pool {
	return &sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}
}

// connContext is the http.Server's ConnContext for coalescingConns: it
// lets the connection's requests find it.
func connContext(ctx context.Context, c net.Conn) context.Context {
	if cc, ok := c.(*coalescingConn); ok {
		return context.WithValue(ctx, coalescingKey{}, cc)
	}
	return ctx
}

type coalescingKey struct{}

// coalescingConn is a connection the Front lent or handed over to
// net/http (with the bytes it read: unread; lent: lending), made
// so that a body sent from memory leaves in one system call with its
// header. net/http buffers a response's first 4 KB (the header and the
// body's start) and, for a larger body, writes that buffer and then the
// rest: two write(2)s and two wake-ups of the reader for a 20 KB page,
// where nginx's corked writev(2) and sendfile(2) send one segment. A
// request served on such a connection (connContext) holds the
// connection's writes while it writes a body (writeBody): the first write
// is kept, and the next goes out with it in one writev(2). Everything else
// passes through, sendfile(2) included. Its write fields are used only by
// the goroutine net/http serves the connection with, which is the one
// that writes to it and runs the handler; unread by net/http's one reader
// at a time.
type coalescingConn struct {
	net.Conn
	held    bool
	pending *[]byte   // a copy of the one write kept while held, from bufPool
	pair    [2][]byte // the kept bytes and the write that follows, sent by one writev
	bufs    net.Buffers
	err     error // a failed write of kept bytes, returned by the next write
	bufPool *sync.Pool
	// unread are bytes the Front read from the connection before it handed
	// it over; Read returns them first.
	unread []byte
	// readErr, when set, is the error the Front's last read of the
	// connection got (its header deadline passed, the reader left): Read
	// returns it once unread is read, as net/http's own read would have.
	readErr error
	// lent is set when the connection is lent for one request (lending).
	lent *lending
}

func (c *coalescingConn) Read(p []byte) (int, error) {
	if len(c.unread) == 0 {
		if c.readErr != nil {
			return 0, c.readErr
		}
		if c.lent != nil {
			return c.lent.read()
		}
		return c.Conn.Read(p)
	}
	n := copy(p, c.unread)
	c.unread = c.unread[n:]
	if len(c.unread) == 0 {
		c.unread = nil
	}
	return n, nil
}

func (c *coalescingConn) SetReadDeadline(t time.Time) error {
	if c.lent != nil {
		c.lent.setReadDeadline(t)
		return nil
	}
	return c.Conn.SetReadDeadline(t)
}

func (c *coalescingConn) SetDeadline(t time.Time) error {
	if c.lent != nil {
		c.lent.setReadDeadline(t)
		return c.Conn.SetWriteDeadline(t)
	}
	return c.Conn.SetDeadline(t)
}

// Close closes the connection, or gives a lent one back to the Front.
func (c *coalescingConn) Close() error {
	if c.lent == nil {
		return c.Conn.Close()
	}
	back, first := c.lent.close()
	if !first {
		return nil
	}
	var err error
	if !back {
		err = c.Conn.Close()
	}
	c.lent.back <- back
	return err
}

func (c *coalescingConn) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	if !c.held {
		return c.Conn.Write(p)
	}
	if c.pending == nil {
		c.pending = c.bufPool.Get().(*[]byte)
		*c.pending = append((*c.pending)[:0], p...)
		return len(p), nil
	}
	// net.Buffers.WriteTo consumes the slice it is called on: a slice of
	// the connection's own array, remade for each write, allocates nothing.
	c.pair = [2][]byte{*c.pending, p}
	c.bufs = c.pair[:]
	kept := int64(len(*c.pending))
	n, err := c.bufs.WriteTo(c.Conn)
	c.pair = [2][]byte{}
	c.putPending()
	if n -= kept; n < 0 {
		n = 0
	}
	return int(n), err
}

// ReadFrom keeps net/http's sendfile(2): the connection's own ReadFrom.
func (c *coalescingConn) ReadFrom(r io.Reader) (int64, error) {
	if err := c.flush(); err != nil {
		return 0, err
	}
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(struct{ io.Writer }{c.Conn}, r)
}

// CloseWrite is the TCP connection's, which net/http uses to close a
// connection gracefully.
func (c *coalescingConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// flush writes the kept bytes, if any.
func (c *coalescingConn) flush() error {
	if c.pending == nil || c.err != nil {
		return c.err
	}
	_, c.err = c.Conn.Write(*c.pending)
	c.putPending()
	return c.err
}

func (c *coalescingConn) putPending() {
	c.bufPool.Put(c.pending)
	c.pending = nil
}

// writeBody writes body, the whole answer's body after its header, in as
// few system calls as the connection allows (coalescingConn).
func writeBody(w http.ResponseWriter, r *http.Request, body []byte) {
	c, _ := r.Context().Value(coalescingKey{}).(*coalescingConn)
	if c == nil || len(body) < bufferBeforeChunking { // smaller bodies fit net/http's buffer with the header
		w.Write(body)
		return
	}
	c.held = true
	defer func() {
		c.held = false
		c.flush()
	}()
	w.Write(body)
}
