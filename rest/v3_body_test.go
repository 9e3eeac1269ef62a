package rest

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"strings"
	"testing"

	"docsd/internal/errs"
	"docsd/internal/storetest"
	"docsd/store"
)

func TestV3NumberText(t *testing.T) {
	for in, want := range map[string]string{
		"5": "5", "-0": "0", "0": "0", "123456789012345678901234567890": "123456789012345678901234567890",
		"1.0": "1.0", "1.5": "1.5", "-2.50": "-2.5", "0.0": "0.0", "1e3": "1000.0", "1E3": "1000.0",
		"1e16": "1e+16", "1.5e20": "1.5e+20", "1e15": "1000000000000000.0", "0.0001": "0.0001", "1e-5": "1e-05",
	} {
		if got := v3NumberText(json.Number(in)); got != want {
			t.Errorf("%s: %q, want %q", in, got, want)
		}
	}
}

func TestV3MergeFields(t *testing.T) {
	own := errs.Fields{"repository.non_field_errors": {"own"}, "name": {"own name"}}
	graph := errs.Fields{"repository": {"graph"}, "name": {"graph name"}, "homepage": {"graph homepage"}, "repository.url": {"graph url"}}
	got := v3MergeFields(own, graph)
	want := errs.Fields{"repository.non_field_errors": {"own"}, "name": {"own name"}, "homepage": {"graph homepage"}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if len(got[k]) != 1 || got[k][0] != v[0] {
			t.Errorf("%s: %v, want %v", k, got[k], v)
		}
	}
}

// TestV3Bodies checks the request bodies (JSON in any charset, forms,
// multipart, empty) and DRF's coercions end to end.
func TestV3Bodies(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newV3Env(t, d)
		e.world()
		const v1 = v3PP + "versions/v1.0/"
		active := func() string {
			t.Helper()
			return string(e.get(v1+"?fields=active", "alice").body)
		}

		// Every accepted boolean spelling, in JSON and in a form.
		for _, w := range v3TrueWords {
			for _, body := range []string{`{"active": false}`, `{"active": "` + w + `"}`} {
				e.check(t, v3Case{v3Send("PATCH", v1, "alice", body), 204, ""})
			}
			if got := active(); got != `{"active":true}` {
				t.Errorf("active %q: %s", w, got)
			}
		}
		for _, w := range v3FalseWords {
			e.check(t, v3Case{v3Send("PATCH", v1, "alice", `{"active": true}`), 204, ""})
			e.check(t, v3Case{v3Call{method: "PATCH", path: v1, as: "alice", body: "active=" + w, ctype: "application/x-www-form-urlencoded"}, 204, ""})
			if got := active(); got != `{"active":false}` {
				t.Errorf("active %q: %s", w, got)
			}
		}
		for _, body := range []string{`{"active": 1}`, `{"active": 1.0}`, `{"active": true}`} {
			e.check(t, v3Case{v3Send("PATCH", v1, "alice", `{"active": false}`), 204, ""})
			e.check(t, v3Case{v3Send("PATCH", v1, "alice", body), 204, ""})
			if got := active(); got != `{"active":true}` {
				t.Errorf("%s: %s", body, got)
			}
		}
		for _, body := range []string{`{"active": 2}`, `{"active": "Yes"}`, `{"active": ""}`, `{"active": []}`, `{"active": {}}`, `{"active": "truthy"}`} {
			e.check(t, v3Case{v3Send("PATCH", v1, "alice", body), 400, "version_patch_not_boolean"})
		}

		// Charsets, trailing whitespace, an empty body without a type.
		e.check(t, v3Case{v3Call{method: "PATCH", path: v1, as: "alice", body: "{\"active\": true}\n\t ", ctype: "application/json; charset=UTF-8"}, 204, ""})
		e.check(t, v3Case{v3Call{method: "PATCH", path: v3PP, as: "alice", body: "", ctype: "-"}, 204, ""})
		e.check(t, v3Case{v3Call{method: "PATCH", path: v3PP, as: "alice", body: "  ", ctype: "application/json"}, 400, v3ParseError})
		e.check(t, v3Case{v3Call{method: "PATCH", path: v3PP, as: "alice", body: `{}`, ctype: "application/json; charset=klingon"}, 400, v3ParseError})
		e.check(t, v3Case{v3Call{method: "PATCH", path: v3PP, as: "alice", body: `{}`, ctype: "application/xml"}, 415, "error_415_xml"})
		latin1 := "{\"name\": \"Caf\xe9\", \"repository\": {\"url\": \"https://github.com/a/cafe\", \"type\": \"git\"}}"
		e.check(t, v3Case{v3Call{method: "POST", path: "/api/v3/projects/", as: "alice", body: latin1, ctype: "application/json; charset=latin-1"}, 201, "body_latin1_import"})

		// A number where a string is expected is its text.
		e.check(t, v3Case{v3Send("POST", "/api/v3/projects/", "alice", `{"name": 1234, "repository": {"url": "https://github.com/a/n", "type": "git"}}`), 201, "body_number_name"})

		// REST's type errors and the graph's validation in one answer.
		e.check(t, v3Case{v3Send("POST", "/api/v3/projects/", "alice", `{"name": " ", "repository": {"url": 5, "type": []}, "language": {}}`), 400, "body_merged_errors"})

		// Multipart, nested names dotted.
		var mp bytes.Buffer
		mw := multipart.NewWriter(&mp)
		for k, v := range map[string]string{"name": "Multi Part", "repository.url": "https://bitbucket.org/a/mp", "repository.type": "hg", "homepage": "https://mp.example.com"} {
			if err := mw.WriteField(k, v); err != nil {
				t.Fatal(err)
			}
		}
		mw.Close()
		e.check(t, v3Case{v3Call{method: "POST", path: "/api/v3/projects/", as: "alice", body: mp.String(), ctype: mw.FormDataContentType()}, 201, "body_multipart_import"})
		e.check(t, v3Case{v3Call{method: "POST", path: "/api/v3/projects/", as: "alice", body: "--x\r\n", ctype: "multipart/form-data; boundary=y"}, 400, "body_multipart_broken"})

		// Too large: 413, nothing written.
		big := `{"name": "` + strings.Repeat("a", v3MaxBody) + `"}`
		e.check(t, v3Case{v3Send("POST", "/api/v3/projects/", "alice", big), 413, "error_413"})
		e.check(t, v3Case{v3Send("PATCH", v1, "alice", big), 413, "error_413"})
		e.check(t, v3Case{v3Send("PATCH", v3PP+"versions/nope/", "alice", big), 404, "error_404"})

		// Nothing of a refused write is stored.
		e.check(t, v3Case{v3Get("/api/v3/projects/?fields=slug", "alice"), 200, "body_projects_after"})
	})
}

func TestV3Charsets(t *testing.T) {
	for _, cs := range []string{"latin-1", "latin1", "ISO-8859-1", "iso_8859_1", "windows-1252", "cp1252"} {
		v, err := v3DecodeJSON([]byte("\"Caf\xe9\""), cs)
		if err != nil || v != "Café" {
			t.Errorf("%s: %v, %v", cs, v, err)
		}
	}
	if v, err := v3DecodeJSON([]byte("\xff\xfe\"\x00\xe9\x00\"\x00"), "utf-16"); err != nil || v != "é" {
		t.Errorf("utf-16: %v, %v", v, err)
	}
}
