package graph_test

import (
	"reflect"
	"strings"
	"testing"

	"docsd/internal/errs"
	"docsd/internal/repocreds"
	"docsd/internal/storetest"
	"docsd/store"
)

// TestRepositoryAccess runs the deploy key, known hosts and credentials
// mutations and fields on both databases: their messages, who may use
// them, and that no answer holds a private key or a token.
func TestRepositoryAccess(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d)
		e.importProject("alice", "handbook")
		alice := e.as("alice")
		fails := func(query string, vars map[string]any, wantKind errs.Kind, wantFields errs.Fields) {
			t.Helper()
			_, err := e.do(alice, query, vars)
			if errs.KindOf(err) != wantKind {
				t.Fatalf("kind = %s (%v), want %s", kind(err), err, wantKind)
			}
			if wantFields != nil && !reflect.DeepEqual(errs.FieldsOf(err), wantFields) {
				t.Errorf("fields = %v, want %v", errs.FieldsOf(err), wantFields)
			}
		}
		const create = `mutation { createSshKey(input: {slug: "handbook"}) { project { sshKey { publicKey } } errors { path message code } } }`
		const setCreds = `mutation($u: String!, $p: String!) { setRepositoryCredentials(input: {slug: "handbook", username: $u, password: $p}) { project { repositoryCredentials { username } } errors { path message code } } }`

		// Without a secret key, and without SSH repositories.
		fails(create, nil, errs.Invalid, errs.Fields{errs.NonField: {store.MsgSSHKeyNeedsSecretKey}})
		fails(setCreds, map[string]any{"u": "ci", "p": "tok"}, errs.Invalid, errs.Fields{errs.NonField: {store.MsgCredentialsNeedSecretKey}})
		sl, err := store.NewSealer("graph repository access key")
		if err != nil {
			t.Fatal(err)
		}
		e.store.UseSealer(sl)
		fails(create, nil, errs.Invalid, errs.Fields{errs.NonField: {"Manual cloning via SSH is not supported"}})
		e.resolver.Settings.AllowPrivateRepos = true

		data := e.must(alice, create, nil)
		if pk := dig(data, "createSshKey", "project", "sshKey", "publicKey").(string); !strings.HasSuffix(pk, " docsd-handbook@docs.example.com") {
			t.Errorf("public key %q", pk)
		}
		fails(create, nil, errs.Conflict, errs.Fields{errs.NonField: {store.MsgSSHKeyExists}})
		e.must(alice, `mutation { createSshKey(input: {slug: "handbook", rotate: true}) { project { slug } errors { message } } }`, nil)

		// Known hosts.
		k, _ := repocreds.NewKey("x")
		keyPart := strings.Join(strings.Fields(k.Public)[:2], " ")
		const setHosts = `mutation($h: String!) { setSshKnownHosts(input: {slug: "handbook", knownHosts: $h}) { project { sshKnownHosts { host keyType fingerprint learned line } } errors { path message code } } }`
		fails(setHosts, map[string]any{"h": "git.acme.example " + keyPart + "\ngarbage\n"}, errs.Invalid, errs.Fields{"known_hosts": {"Line 2 is not a known_hosts entry."}})
		fails(setHosts, map[string]any{"h": strings.Repeat("h "+keyPart+"\n", 51)}, errs.Invalid, errs.Fields{"known_hosts": {"Ensure this field has no more than 50 lines."}})
		data = e.must(alice, setHosts, map[string]any{"h": "git.acme.example " + keyPart + "\n"})
		hosts := dig(data, "setSshKnownHosts", "project", "sshKnownHosts").([]any)
		if len(hosts) != 1 || dig(hosts[0], "host") != "git.acme.example" || dig(hosts[0], "fingerprint") != k.Fingerprint || dig(hosts[0], "learned") != false {
			t.Errorf("known hosts %v", hosts)
		}
		data = e.must(alice, setHosts, map[string]any{"h": ""})
		if hosts := dig(data, "setSshKnownHosts", "project", "sshKnownHosts").([]any); len(hosts) != 0 {
			t.Errorf("cleared known hosts %v", hosts)
		}

		// HTTPS credentials.
		for _, tc := range []struct {
			user, password string
			fields         errs.Fields
		}{
			{"a:b", "tok", errs.Fields{"username": {`Enter a username without ":".`}}},
			{" ", "tok", errs.Fields{"username": {"This field may not be blank."}}},
			{strings.Repeat("u", 151), "tok", errs.Fields{"username": {"Ensure this field has no more than 150 characters."}}},
			{"ci", "to\x00k", errs.Fields{"password": {"Enter a token without line breaks or control characters."}}},
			{"ci", strings.Repeat("t", 4097), errs.Fields{"password": {"Ensure this field has no more than 4096 characters."}}},
		} {
			fails(setCreds, map[string]any{"u": tc.user, "p": tc.password}, errs.Invalid, tc.fields)
		}
		data = e.must(alice, setCreds, map[string]any{"u": "ci", "p": "the-secret-token"})
		if dig(data, "setRepositoryCredentials", "project", "repositoryCredentials", "username") != "ci" {
			t.Errorf("credentials %v", data)
		}
		if _, err := e.do(alice, `{ project(slug: "handbook") { repositoryCredentials { password } } }`, nil); err == nil {
			t.Error("querying the token must be impossible")
		}
		if _, err := e.do(alice, `{ project(slug: "handbook") { sshKey { privateKey } } }`, nil); err == nil {
			t.Error("querying the private key must be impossible")
		}

		// Others: forbidden, anonymous refused; a missing project not found.
		bob := e.as("bob")
		for _, q := range []string{create, `mutation { deleteSshKey(input: {slug: "handbook"}) { project { slug } errors { message } } }`,
			`mutation { deleteRepositoryCredentials(input: {slug: "handbook"}) { project { slug } errors { message } } }`} {
			if _, err := e.do(bob, q, nil); !errs.Is(err, errs.Forbidden) {
				t.Errorf("bob: %v, want FORBIDDEN\n%s", err, q)
			}
			if _, err := e.do(e.as(""), q, nil); !errs.Is(err, errs.Unauthenticated) {
				t.Errorf("anonymous: %v, want UNAUTHENTICATED\n%s", err, q)
			}
		}
		if _, err := e.do(bob, `{ project(slug: "handbook") { sshKey { publicKey } } }`, nil); !errs.Is(err, errs.Forbidden) {
			t.Errorf("bob reads the key: %v", err)
		}
		fails(`mutation { deleteSshKey(input: {slug: "nope"}) { project { slug } errors { message } } }`, nil, errs.NotFound, nil)

		e.must(alice, `mutation { deleteSshKey(input: {slug: "handbook"}) { project { slug } errors { message } } }`, nil)
		e.must(alice, `mutation { deleteRepositoryCredentials(input: {slug: "handbook"}) { project { slug } errors { message } } }`, nil)
		data = e.must(alice, `{ project(slug: "handbook") { sshKey { publicKey } repositoryCredentials { username } sshKnownHosts { host } } }`, nil)
		if dig(data, "project", "sshKey") != nil || dig(data, "project", "repositoryCredentials") != nil {
			t.Errorf("after deleting: %v", data)
		}
		fails(`mutation { deleteSshKey(input: {slug: "handbook"}) { project { slug } errors { message } } }`, nil, errs.NotFound, nil)
	})
}
