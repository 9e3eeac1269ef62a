package main

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"
)

// jsonLog is the JSON log handler of `--log-format json`: slog's own, plus
// a direct encoder for the access log line (requestLine), which writes
// exactly what slog would for the same record without building one (issue
// 14: slog's record and handler were a tenth of a docs page's cost). Both
// write through one lock, one Write per line, as slog does alone.
type jsonLog struct {
	slog.Handler // slog.NewJSONHandler over out
	out          *syncWriter
}

// syncWriter serialises writes from many goroutines (every line of a
// log).
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *syncWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func newJSONLog(w io.Writer) *jsonLog {
	out := &syncWriter{w: w}
	return &jsonLog{Handler: slog.NewJSONHandler(out, nil), out: out}
}

// accessLine is one request of the access log.
type accessLine struct {
	time           time.Time
	method, path   string
	status, bytes  int
	duration       time.Duration
	remote, client string
}

// attrs are the line's attributes, in the order of the log line.
func (l *accessLine) attrs() []slog.Attr {
	return []slog.Attr{slog.String("method", l.method), slog.String("path", l.path),
		slog.Int("status", l.status), slog.Int("bytes", l.bytes),
		slog.Duration("duration", l.duration), slog.String("remote", l.remote),
		slog.String("client", l.client)}
}

// logRequest writes the access log line of a request to h: directly when
// h is a jsonLog and the line needs no escaping, else through slog.
func logRequest(ctx context.Context, h slog.Handler, l *accessLine) {
	if j, ok := h.(*jsonLog); ok && j.writeLine(l) {
		return
	}
	r := slog.NewRecord(l.time, slog.LevelInfo, "request", 0)
	r.AddAttrs(l.attrs()...)
	h.Handle(ctx, r)
}

var lineBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// writeLine writes l as slog's JSON handler would, and reports whether it
// did: not when a string needs escaping or the year is not 4 digits, which
// slog's own encoder handles.
func (j *jsonLog) writeLine(l *accessLine) bool {
	if y := l.time.Year(); y < 0 || y >= 10000 || !plainJSON(l.method) || !plainJSON(l.path) || !plainJSON(l.remote) || !plainJSON(l.client) {
		return false
	}
	bp := lineBuffers.Get().(*[]byte)
	b := appendLine((*bp)[:0], l)
	j.out.Write(b)
	*bp = b
	lineBuffers.Put(bp)
	return true
}

// appendLine appends l's JSON line, whose strings need no escaping.
func appendLine(b []byte, l *accessLine) []byte {
	b = append(b, `{"time":"`...)
	b = l.time.Round(0).AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","level":"INFO","msg":"request","method":"`...)
	b = append(b, l.method...)
	b = append(b, `","path":"`...)
	b = append(b, l.path...)
	b = append(b, `","status":`...)
	b = strconv.AppendInt(b, int64(l.status), 10)
	b = append(b, `,"bytes":`...)
	b = strconv.AppendInt(b, int64(l.bytes), 10)
	b = append(b, `,"duration":`...)
	b = strconv.AppendInt(b, int64(l.duration), 10)
	b = append(b, `,"remote":"`...)
	b = append(b, l.remote...)
	b = append(b, `","client":"`...)
	b = append(b, l.client...)
	b = append(b, "\"}\n"...)
	return b
}

// plainJSON reports whether s is printable ASCII without `"` or `\`: a
// JSON string as it is.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
