package rest

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
)

// marshal encodes v compactly without escaping <, > and & (behavior.md
// §3.1). Maps are written with sorted keys, as Read the Docs' v3 renders.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// writeJSON writes v as the JSON body with status; HEAD gets the headers
// only. A body that cannot be encoded is a 500 with the JSON error body.
func writeJSON(w http.ResponseWriter, r *http.Request, status int, v any) {
	body, err := marshal(v)
	if err != nil {
		status, body = http.StatusInternalServerError, []byte(`{"detail":"A server error occurred."}`)
	}
	writeBody(w, r, status, body)
}

// writeBody writes an already encoded JSON body.
func writeBody(w http.ResponseWriter, r *http.Request, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// writeNoContent answers 204 with no body and no Content-Type.
func writeNoContent(w http.ResponseWriter) {
	w.Header().Del("Content-Type")
	w.WriteHeader(http.StatusNoContent)
}

// pageNumber parses a `limit` or `offset` value as a base-10 integer; one
// too large for an int is the largest int (so a huge offset is past the
// end, as it should be, rather than silently 0).
func pageNumber(s string) (int, bool) {
	n, err := strconv.Atoi(s)
	if errors.Is(err, strconv.ErrRange) && n > 0 {
		return n, true // Atoi returns math.MaxInt
	}
	return n, err == nil
}
