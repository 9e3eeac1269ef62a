package rest

import (
	"encoding/json"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"docsd/graph"
	"docsd/internal/docsurl"
	"docsd/internal/storetest"
	"docsd/store"
)

// newSSHKeyEnv is newV3Env on a server that accepts SSH repositories
// (allowPrivate) and seals secrets with a key (sealed).
func newSSHKeyEnv(t *testing.T, d store.Dialect, allowPrivate, sealed bool) *v3Env {
	t.Helper()
	s := storetest.Open(t, d)
	if sealed {
		sl, err := store.NewSealer("ssh key test secret key")
		if err != nil {
			t.Fatal(err)
		}
		s.UseSealer(sl)
	}
	clock := storetest.SetClock(s, v3Start)
	resolver := &graph.Resolver{Store: s, Settings: graph.Settings{
		URLs: docsurl.Config{PublicURL: v3PublicURL}, MaxPageSize: 100, AllowPrivateRepos: allowPrivate,
	}}
	api := New(graph.NewExecutor(resolver), Config{PublicURL: v3PublicURL, MaxPageSize: 100})
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	e := &v3Env{t: t, store: s, clock: clock, api: api, srv: srv, tokens: map[string]string{}, users: map[string]*store.User{}}
	alice := e.user("alice")
	e.user("bob")
	storetest.MustImport(t, s, alice, "handbook", "git@github.com:acme/handbook.git")
	return e
}

var sshKeyBody = regexp.MustCompile(`^\{"_links":\{"_self":"/api/v3/projects/handbook/ssh-key/","project":"/api/v3/projects/handbook/"\},` +
	`"created":"2019-04-29T10:00:00(\.0+)?Z","fingerprint":"SHA256:[A-Za-z0-9+/]{43}","known_hosts":\[\],` +
	`"public_key":"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5[A-Za-z0-9+/]+ docsd-handbook@docs.example.com","type":"ed25519"\}$`)

// TestV3SSHKey runs the contract's examples of /ssh-key/ on both
// databases: create (201), again without rotate (400), rotate (201, a new
// key), read, a non-maintainer (403), the refusals without a secret key or
// without SSH repositories, delete (204) and read after (404).
func TestV3SSHKey(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newSSHKeyEnv(t, d, true, true)
		const path = "/api/v3/projects/handbook/ssh-key/"
		if r := e.do(v3Call{method: "GET", path: path, as: "alice"}); r.status != 404 {
			t.Errorf("GET before any key: %d %s", r.status, r.body)
		}
		r := e.do(v3Call{method: "POST", path: path, as: "alice", body: "{}"})
		if r.status != 201 || !sshKeyBody.Match(r.body) {
			t.Fatalf("POST: %d %s", r.status, r.body)
		}
		var first struct {
			PublicKey string `json:"public_key"`
		}
		json.Unmarshal(r.body, &first)
		r = e.do(v3Call{method: "POST", path: path, as: "alice", body: "{}"})
		if r.status != 400 || string(r.body) != `{"non_field_errors":["This project already has an SSH key: send rotate to replace it."]}` {
			t.Errorf("POST again: %d %s", r.status, r.body)
		}
		r = e.do(v3Call{method: "POST", path: path, as: "alice", body: `{"rotate": "maybe"}`})
		if r.status != 400 || !strings.Contains(string(r.body), `"rotate"`) {
			t.Errorf("POST with a bad rotate: %d %s", r.status, r.body)
		}
		r = e.do(v3Call{method: "POST", path: path, as: "alice", body: `{"rotate": true}`})
		if r.status != 201 || !sshKeyBody.Match(r.body) || strings.Contains(string(r.body), first.PublicKey) {
			t.Errorf("rotate: %d %s", r.status, r.body)
		}
		r = e.do(v3Call{method: "GET", path: path, as: "alice"})
		if r.status != 200 || !sshKeyBody.Match(r.body) || strings.Contains(string(r.body), "PRIVATE") {
			t.Errorf("GET: %d %s", r.status, r.body)
		}
		if got := r.header.Get("Allow"); got != "GET, POST, DELETE, HEAD, OPTIONS" {
			t.Errorf("Allow: %q", got)
		}
		if r := e.do(v3Call{method: "GET", path: path, as: "bob"}); r.status != 403 {
			t.Errorf("GET as a non-maintainer: %d %s", r.status, r.body)
		}
		if r := e.do(v3Call{method: "DELETE", path: path, as: "alice"}); r.status != 204 {
			t.Errorf("DELETE: %d %s", r.status, r.body)
		}
		if r := e.do(v3Call{method: "GET", path: path, as: "alice"}); r.status != 404 {
			t.Errorf("GET after DELETE: %d %s", r.status, r.body)
		}
		if r := e.do(v3Call{method: "DELETE", path: path, as: "alice"}); r.status != 404 {
			t.Errorf("DELETE again: %d %s", r.status, r.body)
		}

		for _, tc := range []struct {
			name                 string
			allowPrivate, sealed bool
			want                 string
		}{
			{"no secret key", true, false, `{"non_field_errors":["SSH keys need a --secret-key on this server: private keys are never stored unencrypted."]}`},
			{"no SSH repositories", false, true, `{"non_field_errors":["Manual cloning via SSH is not supported"]}`},
		} {
			e := newSSHKeyEnv(t, d, tc.allowPrivate, tc.sealed)
			if r := e.do(v3Call{method: "POST", path: path, as: "alice", body: "{}"}); r.status != 400 || string(r.body) != tc.want {
				t.Errorf("%s: %d %s", tc.name, r.status, r.body)
			}
		}
	})
}
