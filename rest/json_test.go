package rest

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestJSONMatchesEncodingJSON holds marshal to encoding/json's results
// (SetEscapeHTML(false)), byte for byte, on decoded JSON (UseNumber) of the
// shapes REST handles and on strings it treats apart.
func TestJSONMatchesEncodingJSON(t *testing.T) {
	cases := []string{
		`{}`,
		`null`,
		`{"a":1,"b":-2,"c":1.5,"d":1e3,"e":0}`,
		`{"s":"plain","empty":"","t":true,"f":false,"n":null}`,
		`{"nested":{"list":[1,"two",{"three":[]},[],{}],"obj":{"z":1,"a":2}}}`,
		`{"esc":"quote \" backslash \\ slash \/ tab \t nl \n cr \r bs \b ff \f ctl \u0001"}`,
		`{"html":"<a href=\"x\">&amp;</a>"}`,
		`{"uni":"café — 日本 🎉","sep":"\u2028\u2029","bad":"\ud800","raw":"` + "\xff\xfe" + `"}`,
		`{"key with \"quotes\"":1,"ключ":2,"_links":{"_self":"/api/v3/projects/p/"}}`,
		" { \"spaced\" : [ 1 , 2 ] , \"x\" : { } } ",
		// Keys repeat across listed objects.
		`{"l":[{"k\u00e9":1,"ké":2,"a\"b":3,"a\\":4,"` + "\xff" + `":5},{"ké":6,"k\u00e9":7,"a\"b":8,"a\\":9,"\ufffd":10,"` + "\xff" + `":11}]}`,
	}
	for _, in := range cases {
		t.Run(in, func(t *testing.T) {
			want := map[string]any{}
			dec := json.NewDecoder(bytes.NewReader([]byte(in)))
			dec.UseNumber()
			if err := dec.Decode(&want); err != nil {
				t.Fatal(err)
			}
			gotBytes, err := marshal(want)
			if err != nil {
				t.Fatal(err)
			}
			wantBytes, err := encodeStd(nil, want)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(gotBytes, wantBytes) {
				t.Errorf("marshal = %s, want %s", gotBytes, wantBytes)
			}
		})
	}
	// Values render builds that no decoding makes.
	for _, v := range []any{
		map[string]any{"count": 3, "next": nil, "id": int64(7), "msgs": []string{"a <b>"}},
		map[string]any{"next": func() *string { s := "/api/v3/projects/?limit=5&offset=5"; return &s }(), "previous": (*string)(nil)},
		map[string]any{"detail": "Method \"PUT\" not allowed."},
	} {
		got, err := marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := encodeStd(nil, v)
		if !bytes.Equal(got, want) {
			t.Errorf("marshal(%v) = %s, want %s", v, got, want)
		}
	}
}
