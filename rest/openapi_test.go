package rest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	apidocs "docsd/docs/api"
	"docsd/store"
)

// The OpenAPI descriptions (docs/api/openapi-v3.yaml, openapi-v2.yaml) are
// kept true by these tests: the routes the REST handler serves and the
// paths the documents describe are the same (TestOpenAPIRoutes), and every
// golden answer under testdata/ validates against the document's answer
// for its route, method and status (TestOpenAPIGoldens). Validation is
// kin-openapi's, with JSON Schema 2020-12 as OpenAPI 3.1 asks.

// openAPIDocs loads and validates the embedded documents, by API.
func openAPIDocs(t *testing.T) map[string]*openapi3.T {
	t.Helper()
	docs := map[string]*openapi3.T{}
	for api, text := range map[string]string{"v3": apidocs.V3, "v2": apidocs.V2} {
		doc, err := openapi3.NewLoader().LoadFromData([]byte(text))
		if err != nil {
			t.Fatalf("openapi-%s.yaml: %v", api, err)
		}
		if !doc.IsOpenAPI31OrLater() || doc.IsOpenAPI32OrLater() {
			t.Fatalf("openapi-%s.yaml: openapi %q, want 3.1", api, doc.OpenAPI)
		}
		if err := doc.Validate(t.Context()); err != nil {
			t.Fatalf("openapi-%s.yaml is not valid: %v", api, err)
		}
		docs[api] = doc
	}
	return docs
}

// apiOf names the API, and so the document, a path belongs to.
func apiOf(path string) string {
	p := strings.TrimPrefix(path, "/_")
	if p == "/api/v3" || strings.HasPrefix(p, "/api/v3/") {
		return "v3"
	}
	return "v2"
}

// describesRoute reports whether a route answers OPTIONS with its
// description: every route but the search endpoints, which answer the
// CORS preflight instead.
func describesRoute(template string) bool {
	_, isSearch := searchPaths[strings.TrimPrefix(template, "/_")]
	return !isSearch
}

// TestOpenAPIRoutes: every route of the REST handler is a path of its
// API's document with an operation for each method it handles, and
// nothing else; every path of the documents is a route. The route's Allow
// header is what the documents' conventions say: its operations, HEAD
// with GET, OPTIONS where the route describes itself.
func TestOpenAPIRoutes(t *testing.T) {
	docs := openAPIDocs(t)
	served := map[string]bool{}
	for _, rt := range restRoutes() {
		path := openAPIPath(rt.template)
		served[apiOf(path)+" "+path] = true
		item := docs[apiOf(path)].Paths.Value(path)
		if item == nil {
			t.Errorf("openapi-%s.yaml lacks the route %s (%s)", apiOf(path), path, strings.Join(rt.methods, ", "))
			continue
		}
		var documented []string
		for m := range item.Operations() {
			documented = append(documented, m)
		}
		slices.Sort(documented)
		if !slices.Equal(documented, rt.methods) {
			t.Errorf("openapi-%s.yaml: %s has operations %v, the route handles %v", apiOf(path), path, documented, rt.methods)
		}
		allow := slices.Clone(rt.methods)
		if slices.Contains(allow, http.MethodGet) {
			allow = append(allow, http.MethodHead)
		}
		if describesRoute(rt.template) {
			allow = append(allow, http.MethodOptions)
		}
		slices.Sort(allow)
		got := strings.Split(rt.allow, ", ")
		slices.Sort(got)
		if !slices.Equal(got, allow) {
			t.Errorf("%s: Allow %q, the documents' conventions say %v", path, rt.allow, allow)
		}
	}
	for api, doc := range docs {
		for _, path := range doc.Paths.InMatchingOrder() {
			if !served[api+" "+path] {
				t.Errorf("openapi-%s.yaml describes %s, which no route serves", api, path)
			}
		}
	}
}

// TestOpenAPIGoldens validates every golden answer under testdata/
// against its document, with the requests testdata/goldens.tsv records
// for it: the answer of the route's operation for the status, or, for a
// method or path the document has no operation for, the answer its
// conventions name (components/responses).
func TestOpenAPIGoldens(t *testing.T) {
	if *updateGoldens {
		// The table is rewritten when this run ends; validating against the
		// old one would fail the run and keep it from being written.
		t.Skip("-update rewrites testdata/goldens.tsv: run again without -update to validate the goldens")
	}
	docs := openAPIDocs(t)
	table, err := readGoldenTable()
	if err != nil {
		t.Fatal(err)
	}
	byFile := map[string][]goldenLine{}
	for l := range table {
		byFile[l.file] = append(byFile[l.file], l)
	}
	err = filepath.WalkDir("testdata", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || p == filepath.FromSlash(goldenTable) {
			return err
		}
		file := filepath.ToSlash(strings.TrimPrefix(p, "testdata"+string(filepath.Separator)))
		if len(byFile[file]) == 0 {
			t.Errorf("%s: no request in %s produced it", p, goldenTable)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for file, lines := range byFile {
		raw, err := os.ReadFile(filepath.Join("testdata", filepath.FromSlash(file)))
		if err != nil {
			t.Errorf("%s names %s: %v", goldenTable, file, err)
			continue
		}
		for _, l := range lines {
			body, err := goldenBody(file, raw, l.status)
			if err == nil {
				err = validateAnswer(docs[apiOf(l.route)], l, body)
			}
			if err != nil {
				t.Errorf("%s (%s %s → %d): %v", file, l.method, l.route, l.status, err)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no golden was validated")
	}
}

// goldenBody returns the answer body a golden file holds, checking the
// status it records where it records one.
func goldenBody(file string, raw []byte, status int) ([]byte, error) {
	switch dir, _, _ := strings.Cut(file, "/"); {
	case strings.HasSuffix(file, ".txt"), dir == "v3":
		return raw, nil
	case dir == "search":
		// The status text, then the body.
		text, body, _ := bytes.Cut(raw, []byte("\n"))
		if want := http.StatusText(status); string(text) != want {
			return nil, fmt.Errorf("the golden records %q, the table %d", text, status)
		}
		return body, nil
	case dir == "v2":
		var doc struct {
			Status int             `json:"status"`
			Body   json.RawMessage `json:"body"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			return nil, err
		}
		if doc.Status != status {
			return nil, fmt.Errorf("the golden records status %d, the table %d", doc.Status, status)
		}
		return doc.Body, nil
	}
	return nil, fmt.Errorf("no reader for golden %s", file)
}

// conventionAnswers names the document's answers (components/responses)
// to a method or path it has no operation for, by status.
var conventionAnswers = map[int]string{
	http.StatusMovedPermanently:  "MovedPermanently",
	http.StatusPermanentRedirect: "PermanentRedirect",
	http.StatusUnauthorized:      "Unauthorized",
	http.StatusForbidden:         "Forbidden",
	http.StatusNotFound:          "NotFound",
	http.StatusMethodNotAllowed:  "MethodNotAllowed",
}

// documentedAnswer finds the document's answer for line l.
func documentedAnswer(doc *openapi3.T, l goldenLine) (*openapi3.Response, error) {
	item := doc.Paths.Value(l.route)
	var op *openapi3.Operation
	if item != nil {
		op = item.GetOperation(l.method)
		if op == nil && l.method == http.MethodHead {
			op = item.Get // HEAD answers as GET
		}
	}
	var ref *openapi3.ResponseRef
	var where string
	switch {
	case op != nil:
		ref, where = op.Responses.Status(l.status), fmt.Sprintf("%s %s", l.method, l.route)
	case item != nil && l.method == http.MethodOptions && l.status == http.StatusOK:
		ref, where = doc.Components.Responses["RouteDescription"], "components/responses/RouteDescription"
	default:
		name := conventionAnswers[l.status]
		ref, where = doc.Components.Responses[name], "components/responses/"+name
	}
	if ref == nil || ref.Value == nil {
		return nil, fmt.Errorf("the document has no answer %d for it (looked in %s)", l.status, where)
	}
	return ref.Value, nil
}

// validateAnswer validates a golden body against the document's answer
// for l: its media type, and its schema with JSON Schema 2020-12.
func validateAnswer(doc *openapi3.T, l goldenLine, body []byte) error {
	resp, err := documentedAnswer(doc, l)
	if err != nil {
		return err
	}
	if len(body) == 0 {
		if l.method == http.MethodHead || len(resp.Content) == 0 {
			return nil
		}
		return errors.New("no body, but the document's answer has one")
	}
	if len(resp.Content) == 0 {
		return errors.New("a body, but the document's answer has none")
	}
	mt := resp.Content.Get(l.contentType)
	if mt == nil {
		return fmt.Errorf("Content-Type %q is not one of the document's answer", l.contentType)
	}
	if mt.Schema == nil {
		return fmt.Errorf("the document's answer %q has no schema", l.contentType)
	}
	var value any
	if strings.HasPrefix(l.contentType, "application/json") {
		if err := json.Unmarshal(body, &value); err != nil {
			return fmt.Errorf("body is not JSON: %v", err)
		}
	} else {
		value = string(body)
	}
	return mt.Schema.Value.VisitJSON(value, openapi3.EnableJSONSchema2020(), openapi3.MultiErrors())
}

// TestOpenAPIValidationRejects checks that validation has teeth: a golden
// answer that validates stops validating when one thing in it differs
// from the document — a key, a type, a required member, a constant, a
// pattern, the status.
func TestOpenAPIValidationRejects(t *testing.T) {
	docs := openAPIDocs(t)
	table, err := readGoldenTable()
	if err != nil {
		t.Fatal(err)
	}
	type object = map[string]any
	cases := []struct {
		name, file string
		status     int // the status to validate as; 0: the golden's
		change     func(v object)
	}{
		{"unknown key", "v3/project_detail.json", 0, func(v object) { v["flavour"] = "x" }},
		{"wrong type", "v3/project_detail.json", 0, func(v object) { v["id"] = "1" }},
		{"link missing", "v3/project_detail.json", 0, func(v object) { delete(v["_links"].(object), "builds") }},
		{"null not allowed", "v3/version_detail.json", 0, func(v object) { v["slug"] = nil }},
		{"not an enum value", "v3/version_detail.json", 0, func(v object) { v["privacy_level"] = "secret" }},
		{"list without count", "v3/projects_list.json", 0, func(v object) { delete(v, "count") }},
		{"item of another kind", "v3/versions_list.json", 0, func(v object) { v["results"].([]any)[0].(object)["pk"] = 1 }},
		{"error without detail", "v3/error_404.json", 0, func(v object) { delete(v, "detail") }},
		{"status not documented", "v3/project_detail.json", http.StatusConflict, func(object) {}},
		{"v2 key missing", "v2/project_detail.json", 0, func(v object) { delete(v["body"].(object), "custom_prefix") }},
		{"v2 time with an offset", "v2/build_detail_finished.json", 0, func(v object) { v["body"].(object)["date"] = "2019-04-29T10:00:00Z" }},
		{"constant differs", "search/v2_search.json", 0, func(v object) { v["results"].([]any)[0].(object)["type"] = "section" }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var line goldenLine
			for l := range table {
				if l.file == c.file && l.method == http.MethodGet {
					line = l
					break
				}
			}
			raw, err := os.ReadFile(filepath.Join("testdata", filepath.FromSlash(c.file)))
			if err != nil || line.file == "" {
				t.Fatalf("%s: %v, table line %v", c.file, err, line)
			}
			head, rest := []byte(nil), raw
			if strings.HasPrefix(c.file, "search/") {
				head, rest, _ = bytes.Cut(raw, []byte("\n"))
				head = append(head, '\n')
			}
			body, err := goldenBody(c.file, raw, line.status)
			if err != nil {
				t.Fatal(err)
			}
			if err := validateAnswer(docs[apiOf(line.route)], line, body); err != nil {
				t.Fatalf("unchanged, it does not validate: %v", err)
			}
			var v object
			if err := json.Unmarshal(rest, &v); err != nil {
				t.Fatal(err)
			}
			c.change(v)
			changed, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			if c.status != 0 {
				line.status = c.status
			}
			if body, err = goldenBody(c.file, append(head, changed...), line.status); err == nil {
				err = validateAnswer(docs[apiOf(line.route)], line, body)
			}
			if err == nil {
				t.Errorf("changed, it still validates against %s %s → %d: %s", line.method, line.route, line.status, changed)
			}
		})
	}
}

// TestOpenAPIServed: each API answers its own document, whole, at
// /api/v{2,3}/openapi.yaml, without credentials; HEAD without the body;
// the document's other methods as on every route.
func TestOpenAPIServed(t *testing.T) {
	e := newV3Env(t, store.SQLite)
	for _, c := range []struct{ path, file string }{
		{"/api/v3/openapi.yaml", "openapi-v3.yaml"},
		{"/api/v2/openapi.yaml", "openapi-v2.yaml"},
	} {
		want, err := os.ReadFile(filepath.Join("..", "docs", "api", c.file))
		if err != nil {
			t.Fatal(err)
		}
		get := e.get(c.path, "")
		if get.status != http.StatusOK || get.header.Get("Content-Type") != "application/yaml" || !bytes.Equal(get.body, want) {
			t.Errorf("GET %s: %d %q, body of %d bytes; want 200 application/yaml with %s (%d bytes)",
				c.path, get.status, get.header.Get("Content-Type"), len(get.body), c.file, len(want))
		}
		if first, _, _ := bufio.NewReader(bytes.NewReader(get.body)).ReadLine(); string(first) != "openapi: 3.1.0" {
			t.Errorf("GET %s: first line %q", c.path, first)
		}
		head := e.do(v3Call{method: http.MethodHead, path: c.path})
		if head.status != http.StatusOK || len(head.body) != 0 || head.header.Get("Content-Length") != fmt.Sprint(len(want)) {
			t.Errorf("HEAD %s: %d, %d bytes, Content-Length %q", c.path, head.status, len(head.body), head.header.Get("Content-Length"))
		}
		if r := e.do(v3Call{method: http.MethodOptions, path: c.path}); r.status != http.StatusOK || !bytes.Contains(r.body, []byte(`"name":"OpenAPI Description"`)) {
			t.Errorf("OPTIONS %s: %d %s", c.path, r.status, r.body)
		}
		if r := e.do(v3Call{method: http.MethodPost, path: c.path, body: "{}"}); r.status != http.StatusMethodNotAllowed || r.header.Get("Allow") != "GET, HEAD, OPTIONS" {
			t.Errorf("POST %s: %d Allow %q", c.path, r.status, r.header.Get("Allow"))
		}
	}
}
