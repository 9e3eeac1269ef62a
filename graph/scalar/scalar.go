// Package scalar implements docsd's custom GraphQL scalars: Time (UTC,
// microseconds only when not zero, as the APIs write times) and JSON (raw
// stored JSON).
package scalar

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/99designs/gqlgen/graphql"
)

// FormatTime writes t in UTC as `2006-01-02T15:04:05` plus `.ffffff` only
// when the microseconds are non-zero, plus `Z`.
func FormatTime(t time.Time) string {
	t = t.UTC()
	s := t.Format("2006-01-02T15:04:05")
	if us := t.Nanosecond() / 1000; us != 0 {
		s += fmt.Sprintf(".%06d", us)
	}
	return s + "Z"
}

// MarshalTime writes a Time scalar.
func MarshalTime(t time.Time) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) {
		io.WriteString(w, strconv.Quote(FormatTime(t)))
	})
}

// UnmarshalTime reads an RFC 3339 Time scalar.
func UnmarshalTime(v any) (time.Time, error) {
	s, ok := v.(string)
	if !ok {
		return time.Time{}, fmt.Errorf("Time must be a string")
	}
	return time.Parse(time.RFC3339Nano, s)
}

// MarshalRawJSON writes stored JSON as it is; empty input is written as {}.
func MarshalRawJSON(raw json.RawMessage) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) {
		if len(raw) == 0 {
			io.WriteString(w, "{}")
			return
		}
		w.Write(raw)
	})
}

// UnmarshalRawJSON reads any JSON value.
func UnmarshalRawJSON(v any) (json.RawMessage, error) {
	return json.Marshal(v)
}
