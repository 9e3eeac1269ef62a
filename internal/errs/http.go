package errs

import (
	"net/http"
	"strconv"
)

// HTTPStatus is the one table that turns a kind into an HTTP status, for
// every surface that answers over HTTP (the REST APIs, /graphql before an
// operation starts).
func HTTPStatus(k Kind) int {
	switch k {
	case NotFound:
		return http.StatusNotFound
	case Invalid, Conflict:
		return http.StatusBadRequest
	case Forbidden:
		return http.StatusForbidden
	case Unauthenticated:
		return http.StatusUnauthorized
	case Unavailable:
		return http.StatusServiceUnavailable
	case Throttled:
		return http.StatusTooManyRequests
	case TooComplex:
		return http.StatusRequestEntityTooLarge
	default:
		return http.StatusInternalServerError
	}
}

// SetHTTPHeaders sets the headers an HTTP answer of err carries:
// `WWW-Authenticate: Token` on 401s, `Retry-After` on 503s and 429s.
func SetHTTPHeaders(h http.Header, err error) {
	switch KindOf(err) {
	case Unauthenticated:
		h.Set("WWW-Authenticate", "Token")
	case Unavailable:
		h.Set("Retry-After", RetryAfterUnavailable)
	case Throttled:
		h.Set("Retry-After", strconv.Itoa(max(RetryAfter(err), 1)))
	}
}
