package rest

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// jsonCases are documents whose writing by jwriter is held to marshal's
// writing of their decoding: escapes, U+2028, invalid UTF-8, HTML
// characters, numbers, unsorted and repeated keys.
var jsonCases = []string{
	`{}`, `null`, `[]`, `"s"`, `12`, `true`,
	`{"a":1,"b":-2,"c":1.5,"d":1e3,"e":0,"f":12345678901234567890123,"g":-0,"h":1E+2,"i":1e999,"j":-0.5e-3}`,
	`{"s":"plain","empty":"","t":true,"f":false,"n":null}`,
	`{"nested":{"list":[1,"two",{"three":[]},[],{}],"obj":{"z":1,"a":2}}}`,
	`{"esc":"quote \" backslash \\ slash \/ tab \t nl \n cr \r bs \b ff \f ctl \u0001 del ` + "\x7f" + `"}`,
	`{"html":"<a href=\"x\">&amp;</a>"}`,
	`{"uni":"café — 日本 🎉","sep":"\u2028\u2029","bad":"\ud800","raw":"` + "\xff\xfe" + `"}`,
	`{"key with \"quotes\"":1,"ключ":2,"_links":{"_self":"/api/v3/projects/p/"}}`,
	" { \"spaced\" : [ 1 , 2 ] , \"x\" : { } } ",
	`{"l":[{"k\u00e9":1,"ké":2,"a\"b":3,"a\\":4,"` + "\xff" + `":5},{"ké":6,"k\u00e9":7,"a\"b":8,"a\\":9,"\ufffd":10,"` + "\xff" + `":11}]}`,
	`{"b":1,"a":2,"b":3}`,
	`{"a":{"y":[{"d":null,"c":"\u003c"}],"x":1}}`,
}

// TestJDocWritesAsMarshal holds jwriter.value to what encoding/json writes
// (SetEscapeHTML(false)) of what it decodes (UseNumber), byte for byte, and
// parseDoc to refusing what encoding/json refuses.
func TestJDocWritesAsMarshal(t *testing.T) {
	for _, in := range jsonCases {
		t.Run(in, func(t *testing.T) {
			var v any
			dec := json.NewDecoder(strings.NewReader(in))
			dec.UseNumber()
			if err := dec.Decode(&v); err != nil {
				t.Fatal(err)
			}
			want, err := encodeStd(nil, v)
			if err != nil {
				t.Fatal(err)
			}
			d, err := parseDoc([]byte(in))
			if err != nil {
				t.Fatalf("parseDoc: %v", err)
			}
			defer d.release()
			if got := d.valueJSON(0); !bytes.Equal(got, want) {
				t.Errorf("value = %s, want %s", got, want)
			}
		})
	}
	for _, bad := range []string{``, `{`, `{"a":}`, `{"a":1,}`, `[1,]`, `{"a":1} x`, `{"a":tru}`, "{\"a\":\"\x01\"}",
		`{"a":-}`, `{"a":"\x"}`, `{"a":"\u12"}`, `{a:1}`, `"open`, `{"a":01}`, `{"a":+1}`, `{"a":.5}`, `{"a":1.}`, `{"a":1e}`, `[1e+]`} {
		if json.Valid([]byte(bad)) {
			t.Fatalf("%q is valid JSON; the case is not bad", bad)
		}
		if d, err := parseDoc([]byte(bad)); err == nil {
			d.release()
			t.Errorf("parseDoc(%q) succeeded, want an error", bad)
		}
	}
}

// TestJDocObject holds jwriter.object's extra member and null skipping to
// the maps that v3 rendering used to build (urls with downloads, the
// downloads that exist).
func TestJDocObject(t *testing.T) {
	cases := []struct {
		in       string
		skipNull bool
		extra    string
		want     string
	}{
		{`{"builds":"b","documentation":"d","home":"h","versions":"v"}`, false, "downloads",
			`{"builds":"b","documentation":"d","downloads":null,"home":"h","versions":"v"}`},
		{`{"a":1}`, false, "downloads", `{"a":1,"downloads":null}`},
		{`{"z":1}`, false, "downloads", `{"downloads":null,"z":1}`},
		{`{"downloads":1,"a":2}`, false, "downloads", `{"a":2,"downloads":null}`},
		{`{}`, false, "downloads", `{"downloads":null}`},
		{`{"epub":null,"htmlzip":"h","pdf":null}`, true, "", `{"htmlzip":"h"}`},
		{`{"pdf":"p","epub":"e","pdf":null}`, true, "", `{"epub":"e"}`},
		{`{"pdf":null,"pdf":"p"}`, true, "", `{"pdf":"p"}`},
	}
	for _, c := range cases {
		d, err := parseDoc([]byte(c.in))
		if err != nil {
			t.Fatal(err)
		}
		w := &jwriter{d: d}
		w.object(0, c.skipNull, c.extra, "null")
		if got := string(w.b); got != c.want {
			t.Errorf("object(%s, %v, %q) = %s, want %s", c.in, c.skipNull, c.extra, got, c.want)
		}
		d.release()
	}
}

// TestV3KindsInKeyOrder checks what write relies on: each kind's keys are
// in the order marshal wrote the maps render used to build.
func TestV3KindsInKeyOrder(t *testing.T) {
	for _, k := range []*v3Kind{v3ProjectKind, v3VersionKind, v3BuildKind, v3SubprojectKind, v3RedirectKind, v3EnvVarKind, v3NotificationKind} {
		keys := make([]string, 0, len(k.fields))
		for _, f := range k.fields {
			keys = append(keys, f.key)
		}
		if !slices.IsSortedFunc(keys, strings.Compare) || len(slices.Compact(slices.Clone(keys))) != len(keys) {
			t.Errorf("keys %v are not sorted and distinct", keys)
		}
	}
	for _, names := range [][]string{v3ProjectLinks, v3VersionLinks, v3BuildLinks} {
		if !slices.IsSorted(names) {
			t.Errorf("links %v are not sorted", names)
		}
	}
}
