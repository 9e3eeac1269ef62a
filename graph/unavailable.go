package graph

import (
	"context"
	"net/http"
	"sync/atomic"

	"github.com/99designs/gqlgen/graphql"

	"docsd/internal/errs"
)

// A /graphql response with an UNAVAILABLE error (the database does not
// answer) is sent with status 503 and Retry-After, like the REST APIs':
// the response hook marks the request and the writer turns the 200 the
// transport writes into 503.

type unavailableKey struct{}

// markUnavailable is a response hook: it records on the request whether the
// response carries an UNAVAILABLE error.
func markUnavailable(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	resp := next(ctx)
	if flag, ok := ctx.Value(unavailableKey{}).(*atomic.Bool); ok && resp != nil {
		for _, e := range resp.Errors {
			if code, _ := e.Extensions["code"].(string); code == errs.Unavailable.String() {
				flag.Store(true)
				break
			}
		}
	}
	return resp
}

// unavailableWriter sends 503 instead of 200 when the flag is set by the
// time the status is written.
type unavailableWriter struct {
	http.ResponseWriter
	flag    *atomic.Bool
	written bool
}

// withUnavailableStatus returns w and req prepared for markUnavailable.
func withUnavailableStatus(w http.ResponseWriter, req *http.Request) (http.ResponseWriter, *http.Request) {
	flag := &atomic.Bool{}
	return &unavailableWriter{ResponseWriter: w, flag: flag}, req.WithContext(context.WithValue(req.Context(), unavailableKey{}, flag))
}

func (u *unavailableWriter) WriteHeader(code int) {
	if !u.written {
		u.written = true
		if code == http.StatusOK && u.flag.Load() {
			u.Header().Set("Retry-After", errs.RetryAfterUnavailable)
			code = http.StatusServiceUnavailable
		}
	}
	u.ResponseWriter.WriteHeader(code)
}

func (u *unavailableWriter) Write(b []byte) (int, error) {
	if !u.written {
		u.WriteHeader(http.StatusOK)
	}
	return u.ResponseWriter.Write(b)
}

func (u *unavailableWriter) Unwrap() http.ResponseWriter { return u.ResponseWriter }

// Flush lets streaming transports (SSE) send each event at once.
func (u *unavailableWriter) Flush() {
	if !u.written {
		u.WriteHeader(http.StatusOK)
	}
	http.NewResponseController(u.ResponseWriter).Flush()
}
