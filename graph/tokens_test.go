package graph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"docsd/graph"
	"docsd/graph/gid"
	"docsd/internal/access"
	"docsd/internal/errs"
	"docsd/internal/storetest"
	"docsd/store"
)

// TestAPITokens: a signed-in user creates, lists and revokes their own API
// keys; the key is shown once; nobody else lists, fetches or revokes them.
func TestAPITokens(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d)
		// Keys are managed from a dashboard session (TestAPITokensNeedSession).
		session := func(name string) context.Context { return access.WithSession(context.Background(), e.users[name]) }
		const create = `mutation($n: String, $v: Boolean) { createApiToken(input: {name: $n, validateOnly: $v}) { key apiToken { id databaseId prefix name created } errors { path message code } } }`
		data := e.must(session("alice"), create, map[string]any{"n": "  CI deploys  "})
		key, _ := dig(data, "createApiToken", "key").(string)
		id, _ := dig(data, "createApiToken", "apiToken", "id").(string)
		if !regexp.MustCompile(`^[0-9a-f]{40}$`).MatchString(key) || id == "" {
			t.Fatalf("createApiToken: %v", data)
		}
		if got := dig(data, "createApiToken", "apiToken", "prefix"); got != key[:4] {
			t.Errorf("prefix %v, want %q", got, key[:4])
		}
		if got := dig(data, "createApiToken", "apiToken", "name"); got != "CI deploys" {
			t.Errorf("name %v, want the trimmed \"CI deploys\"", got)
		}
		if errsList, _ := dig(data, "createApiToken", "errors").([]any); errsList == nil || len(errsList) != 0 {
			t.Errorf("errors %v, want []", dig(data, "createApiToken", "errors"))
		}
		if v, err := access.Authenticate(context.Background(), e.store, "Token "+key); err != nil || v.User.Username != "alice" {
			t.Errorf("the new key authenticates %v, %v; want alice", v.User, err)
		}

		// validateOnly: a payload, no key, nothing created.
		data = e.must(session("alice"), create, map[string]any{"n": "x", "v": true})
		if dig(data, "createApiToken", "key") != nil || dig(data, "createApiToken", "apiToken") != nil {
			t.Errorf("validateOnly created something: %v", data)
		}
		// A bad name: a payload error on ["input", "name"], nothing created
		// (with validateOnly too).
		for _, tc := range []struct {
			name string
			vars map[string]any
			want string
		}{
			{"missing", map[string]any{}, errs.MsgRequired},
			{"blank", map[string]any{"n": "   "}, errs.MsgNotBlank},
			{"too long", map[string]any{"n": strings.Repeat("n", 101)}, errs.TooLong(100)},
			{"blank, validateOnly", map[string]any{"n": "", "v": true}, errs.MsgNotBlank},
		} {
			var out struct {
				CreateAPIToken struct {
					Key    *string
					Errors []errs.UserError
				} `json:"createApiToken"`
			}
			err := e.exec.Do(session("alice"), create, tc.vars, &out)
			got := out.CreateAPIToken
			if !errs.Is(err, errs.Invalid) || got.Key != nil || len(got.Errors) != 1 ||
				strings.Join(got.Errors[0].Path, ".") != "input.name" || got.Errors[0].Message != tc.want || got.Errors[0].Code != "INVALID" {
				t.Errorf("name %s: %v, %+v; want one INVALID error on input.name: %q", tc.name, err, got, tc.want)
			}
		}

		const list = `{ viewer { apiTokens { id prefix } } }`
		for _, tc := range []struct {
			user string
			want int
		}{{"alice", 1}, {"bob", 0}} {
			toks, _ := dig(e.must(e.as(tc.user), list, nil), "viewer", "apiTokens").([]any)
			if len(toks) != tc.want {
				t.Errorf("%s lists %d keys, want %d", tc.user, len(toks), tc.want)
			}
		}

		aliceID := dig(e.must(e.as("alice"), `{ viewer { id } }`, nil), "viewer", "id").(string)
		for _, tc := range []struct {
			name, user, query string
			want              errs.Kind
		}{
			{"another user's list", "bob", `query($id: ID!) { node(id: $id) { ... on User { apiTokens { id } } } }`, errs.Forbidden},
			{"a superuser reads another's list", "root", `query($id: ID!) { node(id: $id) { ... on User { apiTokens { id } } } }`, errs.Forbidden},
			{"anonymous list", "", `query($id: ID!) { node(id: $id) { ... on User { apiTokens { id } } } }`, errs.Unauthenticated},
			{"another user's key by node", "bob", `query($id: ID!) { node(id: $id) { id } }`, errs.NotFound},
			{"another user revokes", "bob", `mutation($id: ID!) { revokeApiToken(input: {id: $id}) { deletedId } }`, errs.NotFound},
			{"anonymous create", "", `mutation { createApiToken(input: {name: "x"}) { key } }`, errs.Unauthenticated},
			{"not a key's id", "alice", `mutation { revokeApiToken(input: {id: "bm9wZQ"}) { deletedId } }`, errs.NotFound},
		} {
			vars := map[string]any{"id": id}
			if tc.name == "another user's list" || tc.name == "anonymous list" || tc.name == "a superuser reads another's list" {
				vars["id"] = aliceID
			}
			if _, err := e.do(e.as(tc.user), tc.query, vars); !errs.Is(err, tc.want) {
				t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
			}
		}
		if got := dig(e.must(e.as("alice"), `query($id: ID!) { node(id: $id) { ... on ApiToken { prefix } } }`, map[string]any{"id": id}), "node", "prefix"); got != key[:4] {
			t.Errorf("node(id) of alice's key as alice: %v", got)
		}

		data = e.must(session("alice"), `mutation($id: ID!) { revokeApiToken(input: {id: $id}) { deletedId errors { path } } }`, map[string]any{"id": id})
		if got := dig(data, "revokeApiToken", "deletedId"); got != id {
			t.Errorf("deletedId %v, want %s", got, id)
		}
		if _, err := e.do(e.as("alice"), `query($id: ID!) { node(id: $id) { id } }`, map[string]any{"id": id}); !errs.Is(err, errs.NotFound) {
			t.Errorf("node(id) of a revoked key: %v, want NOT_FOUND", err)
		}
		if _, err := access.Authenticate(context.Background(), e.store, "Token "+key); !errs.Is(err, errs.Unauthenticated) {
			t.Errorf("a revoked key authenticates: %v", err)
		}

		// At most 100 keys: the 101st is a payload error on the whole input.
		for range 100 {
			if _, _, err := e.store.CreateToken(context.Background(), e.users["bob"].ID); err != nil {
				t.Fatal(err)
			}
		}
		// In-process callers read payload errors as the classified error.
		data, err := e.do(session("bob"), create, map[string]any{"n": "one more"})
		if !errs.Is(err, errs.Invalid) {
			t.Errorf("the 101st key: %v, want INVALID", err)
		}
		ue, _ := dig(data, "createApiToken", "errors", 0).(map[string]any)
		if dig(data, "createApiToken", "key") != nil || ue == nil || ue["code"] != "INVALID" || len(ue["path"].([]any)) != 1 || ue["path"].([]any)[0] != "input" {
			t.Errorf("the 101st key: %v, want an INVALID error on [\"input\"]", data)
		}
	})
}

// TestAPITokensNeedSession: over the public endpoint, a caller holding an
// API key cannot create keys, nor revoke any key but its own; a dashboard
// session can do both; an anonymous caller neither. The session is read by
// Settings.SessionUser as cmd wires it, here from a test cookie naming the
// user (the real reader, with its CSRF check, is tested in accounts and
// the browser tests).
func TestAPITokensNeedSession(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		ctx := context.Background()
		alice, err := s.CreateUser(ctx, "alice", "", false)
		if err != nil {
			t.Fatal(err)
		}
		r := &graph.Resolver{Store: s, Settings: graph.Settings{SessionUser: func(req *http.Request) (*store.User, error) {
			if c, err := req.Cookie("test-session"); err == nil && c.Value == alice.Username {
				return alice, nil
			}
			return nil, nil
		}}}
		srv := httptest.NewServer(r.Handler())
		t.Cleanup(srv.Close)
		call := func(how, query string, vars map[string]any) map[string]any {
			t.Helper()
			body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
			req, _ := http.NewRequest("POST", srv.URL, bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			switch {
			case how == "session":
				req.AddCookie(&http.Cookie{Name: "test-session", Value: "alice"})
			case strings.HasPrefix(how, "Token "):
				req.Header.Set("Authorization", how)
			}
			_, out := send(t, req)
			return out
		}
		const create = `mutation { createApiToken(input: {name: "more"}) { key apiToken { id } errors { message } } }`
		const revoke = `mutation($id: ID!) { revokeApiToken(input: {id: $id}) { deletedId errors { message } } }`
		newKey := func() (string, string) {
			t.Helper()
			key, tok, err := s.CreateNamedToken(ctx, alice.ID, "script")
			if err != nil {
				t.Fatal(err)
			}
			return key, strconv.FormatInt(tok.ID, 10)
		}
		held, heldID := newKey()
		_, otherID := newKey()

		type result struct{ code, message string }
		outcome := func(out map[string]any, field string) result {
			if code, _ := dig(out, "errors", 0, "extensions", "code").(string); code != "" {
				msg, _ := dig(out, "errors", 0, "message").(string)
				return result{code, msg}
			}
			if dig(out, "data", field, "errors", 0) != nil {
				return result{"PAYLOAD_ERROR", ""}
			}
			return result{"OK", ""}
		}
		forbidden := result{"FORBIDDEN", graph.MsgTokenMintsToken}
		for _, tc := range []struct {
			name, how, query, field string
			id                      func() string
			want                    result
		}{
			{"anonymous creates", "", create, "createApiToken", nil, result{"UNAUTHENTICATED", errs.MsgNoCredentials}},
			{"a key creates", "Token " + held, create, "createApiToken", nil, forbidden},
			{"a session creates", "session", create, "createApiToken", nil, result{"OK", ""}},
			{"anonymous revokes", "", revoke, "revokeApiToken", func() string { return otherID }, result{"UNAUTHENTICATED", errs.MsgNoCredentials}},
			{"a key revokes another key", "Token " + held, revoke, "revokeApiToken", func() string { return otherID }, forbidden},
			{"a key revokes another key by global id", "Token " + held, revoke, "revokeApiToken", func() string { return gid.Encode("ApiToken", mustInt(t, otherID)) }, forbidden},
			{"a session revokes a key", "session", revoke, "revokeApiToken", func() string { return otherID }, result{"OK", ""}},
			{"a key revokes itself", "Token " + held, revoke, "revokeApiToken", func() string { return heldID }, result{"OK", ""}},
		} {
			vars := map[string]any{}
			if tc.id != nil {
				vars["id"] = tc.id()
			}
			if got := outcome(call(tc.how, tc.query, vars), tc.field); got != tc.want {
				t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
			}
		}
		// What was refused left the keys alone; what was allowed happened.
		toks, err := s.FindTokens(ctx, alice.ID)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tok := range toks {
			names = append(names, tok.Name)
		}
		if !slices.Equal(names, []string{"more"}) {
			t.Errorf("alice's keys at the end: %v, want only the session's \"more\"", names)
		}
		if _, err := access.Authenticate(ctx, s, "Token "+held); !errs.Is(err, errs.Unauthenticated) {
			t.Errorf("the key that revoked itself still authenticates: %v", err)
		}
	})
}

// mustInt is strconv.ParseInt for ids the test made.
func mustInt(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
