package rest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"docsd/graph"
	"docsd/internal/docsurl"
	"docsd/internal/storetest"
	"docsd/store"
)

// v3UpdateGoldens reports whether -update was given.
func v3UpdateGoldens() bool { return *updateGoldens }

const v3PublicURL = "https://docs.example.com"

// v3Start is the fixed time every test database starts at.
var v3Start = time.Date(2019, 4, 29, 10, 0, 0, 0, time.UTC)

// v3Env is a docsd API over a fresh database of one dialect, with a fixed
// clock, served by a real HTTP server.
type v3Env struct {
	t      *testing.T
	store  *store.Store
	clock  *storetest.Clock
	api    *Server
	srv    *httptest.Server
	tokens map[string]string // username → token
	users  map[string]*store.User
}

// newV3Env starts an API with throttling off; cfg edits the REST config.
func newV3Env(t *testing.T, d store.Dialect, cfg ...func(*Config)) *v3Env {
	t.Helper()
	s := storetest.Open(t, d)
	clock := storetest.SetClock(s, v3Start)
	resolver := &graph.Resolver{Store: s, Settings: graph.Settings{
		URLs:        docsurl.Config{PublicURL: v3PublicURL},
		MaxPageSize: 100,
	}}
	c := Config{PublicURL: v3PublicURL, MaxPageSize: 100}
	for _, f := range cfg {
		f(&c)
	}
	api := New(graph.NewExecutor(resolver), c)
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	return &v3Env{t: t, store: s, clock: clock, api: api, srv: srv, tokens: map[string]string{}, users: map[string]*store.User{}}
}

// user creates a user with a token.
func (e *v3Env) user(name string) *store.User {
	e.t.Helper()
	u, key := storetest.MustUser(e.t, e.store, name)
	e.tokens[name], e.users[name] = key, u
	return u
}

// v3Resp is an answer of the API to method on path.
type v3Resp struct {
	method string
	path   string
	status int
	header http.Header
	body   []byte
}

// v3Call is a request: who sends it (a username, "" for no token, or a raw
// Authorization value starting with "raw:"), the body and its type.
type v3Call struct {
	method, path, as string
	body             string
	ctype            string // default application/json when body is set
	header           map[string]string
}

func (e *v3Env) do(c v3Call) v3Resp {
	e.t.Helper()
	var body io.Reader
	if c.body != "" {
		body = strings.NewReader(c.body)
	}
	req, err := http.NewRequest(c.method, e.srv.URL+c.path, body)
	if err != nil {
		e.t.Fatal(err)
	}
	if c.body != "" {
		ct := c.ctype
		if ct == "" {
			ct = "application/json"
		}
		if ct != "-" {
			req.Header.Set("Content-Type", ct)
		}
	}
	switch {
	case strings.HasPrefix(c.as, "raw:"):
		req.Header.Set("Authorization", strings.TrimPrefix(c.as, "raw:"))
	case c.as != "":
		tok, ok := e.tokens[c.as]
		if !ok {
			e.t.Fatalf("no token for %q", c.as)
		}
		req.Header.Set("Authorization", "Token "+tok)
	}
	for k, v := range c.header {
		req.Header.Set(k, v)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return v3Resp{method: c.method, path: c.path, status: resp.StatusCode, header: resp.Header, body: b}
}

func (e *v3Env) get(path, as string) v3Resp {
	e.t.Helper()
	return e.do(v3Call{method: http.MethodGet, path: path, as: as})
}

// v3Golden compares r's JSON body whole with testdata/v3/<name>.json, which
// holds it indented for review; the body itself must be compact with keys
// sorted at every level. -update rewrites the file. The request is
// recorded in the golden requests table.
func v3Golden(t *testing.T, name string, r v3Resp) {
	t.Helper()
	recordGolden(t, "v3/"+name+".json", r.method, r.path, r.status, r.header.Get("Content-Type"))
	body := r.body
	v3CheckCanonical(t, body)
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, body, "", "  "); err != nil {
		t.Fatalf("%s: body is not JSON: %v\n%s", name, err, body)
	}
	pretty.WriteByte('\n')
	path := filepath.Join("testdata", "v3", name+".json")
	if v3UpdateGoldens() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, pretty.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s: %v (run with -update to create it)", name, err)
	}
	if got := pretty.String(); got != string(want) {
		t.Errorf("%s: body differs from %s\ngot:\n%s\nwant:\n%s", name, path, got, want)
	}
}

// v3CheckCanonical checks that body is compact JSON whose object keys are
// sorted at every level: re-encoding the decoded value (Go sorts map keys)
// must give the same bytes.
func v3CheckCanonical(t *testing.T, body []byte) {
	t.Helper()
	again, err := marshal(v3Decode(t, body))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, body) {
		t.Errorf("body is not compact with sorted keys:\ngot:  %s\nwant: %s", body, again)
	}
}

// v3Decode decodes a JSON body, its numbers as json.Number.
func v3Decode(t *testing.T, body []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("body is not JSON: %v\n%s", err, body)
	}
	return v
}
