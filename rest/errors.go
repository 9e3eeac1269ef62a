package rest

import (
	"errors"
	"log/slog"
	"net/http"

	"docsd/internal/errs"
)

// errorBody renders a classified error as the API's body:
// per-field messages as `{"field": ["message"]}` with dotted names nested
// (`repository.url` → `{"repository": {"url": [...]}}`), anything else as
// `{"detail": "<message>"}`. Internal errors never show their cause.
func errorBody(err error) map[string]any {
	kind := errs.KindOf(err)
	if f := errs.FieldsOf(err); len(f) > 0 && (kind == errs.Invalid || kind == errs.Conflict) {
		return nestFields(f)
	}
	switch kind {
	case errs.Internal:
		return map[string]any{"detail": errs.MsgServerError}
	case errs.NotFound:
		return map[string]any{"detail": errs.MsgNotFound}
	case errs.Forbidden:
		return map[string]any{"detail": errs.MsgForbidden}
	case errs.Unavailable:
		return map[string]any{"detail": errs.MsgUnavailable}
	}
	var e *errs.Error
	if errors.As(err, &e) && e.Text() != "" {
		return map[string]any{"detail": e.Text()}
	}
	return map[string]any{"detail": errs.MsgServerError}
}

// nestFields turns dotted field names into nested objects.
func nestFields(f errs.Fields) map[string]any {
	out := map[string]any{}
	for name, msgs := range f {
		node := out
		parts := splitDots(name)
		for _, p := range parts[:len(parts)-1] {
			child, ok := node[p].(map[string]any)
			if !ok {
				child = map[string]any{}
				node[p] = child
			}
			node = child
		}
		node[parts[len(parts)-1]] = msgs
	}
	return out
}

func splitDots(s string) []string {
	var parts []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	return append(parts, s[start:])
}

// writeError answers with err's status and body; 401s carry
// `WWW-Authenticate: Token`, 503s and 429s `Retry-After`. Internal and
// Unavailable errors are logged.
func writeError(w http.ResponseWriter, r *http.Request, err error) {
	kind := errs.KindOf(err)
	switch kind {
	case errs.Internal:
		slog.ErrorContext(r.Context(), "api: internal error", "method", r.Method, "path", r.URL.Path, "err", err)
	case errs.Unavailable:
		slog.WarnContext(r.Context(), "api: unavailable", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	errs.SetHTTPHeaders(w.Header(), err)
	writeJSON(w, r, errs.HTTPStatus(kind), errorBody(err))
}

// writeNotFound answers `{"detail": "Not found."}` with 404.
func writeNotFound(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, r, http.StatusNotFound, map[string]any{"detail": errs.MsgNotFound})
}
