package rest

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"unicode/utf8"
)

// marshal encodes v compactly without escaping <, > and &, as Read the
// Docs' renderer does. Maps are written with sorted keys, as its v3
// renders.
// It writes the small answers handlers build themselves (errors, details);
// answers made of GraphQL data are written from the executor's bytes by a
// jwriter (jsondoc.go). The common values (maps, slices, strings,
// json.Number, bool, nil, ints) are written by appendJSON without
// reflection; anything else goes through encoding/json, whose bytes
// appendJSON reproduces exactly.
func marshal(v any) ([]byte, error) {
	return appendJSON(make([]byte, 0, 512), v)
}

// encodeStd encodes v with encoding/json, as marshal promises.
func encodeStd(buf []byte, v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return buf, err
	}
	return append(buf, bytes.TrimRight(b.Bytes(), "\n")...), nil
}

// appendJSON appends the encoding of v to buf.
func appendJSON(buf []byte, v any) ([]byte, error) {
	var err error
	switch v := v.(type) {
	case nil:
		return append(buf, "null"...), nil
	case rawJSON:
		if v == nil {
			return buf, errRawJSON
		}
		return append(buf, v...), nil
	case bool:
		return strconv.AppendBool(buf, v), nil
	case string:
		return appendString(buf, v)
	case *string:
		if v == nil {
			return append(buf, "null"...), nil
		}
		return appendString(buf, *v)
	case json.Number:
		if v == "" || !plainNumber(v) {
			return encodeStd(buf, v)
		}
		return append(buf, v...), nil
	case int:
		return strconv.AppendInt(buf, int64(v), 10), nil
	case int64:
		return strconv.AppendInt(buf, v, 10), nil
	case []any:
		if v == nil {
			return append(buf, "null"...), nil
		}
		buf = append(buf, '[')
		for i, e := range v {
			if i > 0 {
				buf = append(buf, ',')
			}
			if buf, err = appendJSON(buf, e); err != nil {
				return buf, err
			}
		}
		return append(buf, ']'), nil
	case map[string]any:
		if v == nil {
			return append(buf, "null"...), nil
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		buf = append(buf, '{')
		for i, k := range keys {
			if i > 0 {
				buf = append(buf, ',')
			}
			if buf, err = appendString(buf, k); err != nil {
				return buf, err
			}
			buf = append(buf, ':')
			if buf, err = appendJSON(buf, v[k]); err != nil {
				return buf, err
			}
		}
		return append(buf, '}'), nil
	}
	return encodeStd(buf, v)
}

// appendString appends s quoted. Strings of printable ASCII without quotes
// or backslashes are copied; the others are left to encoding/json.
func appendString(buf []byte, s string) ([]byte, error) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' {
			return encodeStd(buf, s)
		}
	}
	buf = append(buf, '"')
	buf = append(buf, s...)
	return append(buf, '"'), nil
}

// plainNumber reports whether n is an integer literal, which encoding/json
// writes as it is.
func plainNumber(n json.Number) bool {
	for i := 0; i < len(n); i++ {
		if c := n[i]; (c < '0' || c > '9') && !(i == 0 && c == '-') {
			return false
		}
	}
	return true
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

// writeRendered writes what w wrote as the JSON body with status, as
// writeJSON does.
func writeRendered(rw http.ResponseWriter, r *http.Request, status int, w *jwriter) {
	if w.err != nil {
		status, w.b = http.StatusInternalServerError, append(w.b[:0], `{"detail":"A server error occurred."}`...)
	}
	writeBody(rw, r, status, w.b)
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
