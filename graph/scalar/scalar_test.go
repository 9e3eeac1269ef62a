package scalar

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

func TestFormatTime(t *testing.T) {
	tokyo := time.FixedZone("JST", 9*3600)
	for _, tc := range []struct {
		in   time.Time
		want string
	}{
		{time.Date(2019, 4, 29, 10, 0, 0, 0, time.UTC), "2019-04-29T10:00:00Z"},
		{time.Date(2019, 4, 29, 10, 0, 0, 512000000, time.UTC), "2019-04-29T10:00:00.512000Z"},
		{time.Date(2019, 4, 29, 10, 0, 0, 1000, time.UTC), "2019-04-29T10:00:00.000001Z"},
		{time.Date(2019, 4, 29, 19, 0, 0, 0, tokyo), "2019-04-29T10:00:00Z"},
	} {
		if got := FormatTime(tc.in); got != tc.want {
			t.Errorf("FormatTime(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestRawJSONKeepsItsForm(t *testing.T) {
	var buf bytes.Buffer
	MarshalRawJSON(json.RawMessage(`{"b":3.70,"a":[1]}`)).MarshalGQL(&buf)
	if buf.String() != `{"b":3.70,"a":[1]}` {
		t.Errorf("got %s", buf.String())
	}
	buf.Reset()
	MarshalRawJSON(nil).MarshalGQL(&buf)
	if buf.String() != `{}` {
		t.Errorf("empty config = %s, want {}", buf.String())
	}
}
