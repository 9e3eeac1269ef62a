package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"docsd/store"
)

// docsd runs the real program with args and returns its status and output.
func docsd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

var tokenLine = regexp.MustCompile(`^[0-9a-f]{40}\n$`)

func TestUserAndTokenCommands(t *testing.T) {
	dir := t.TempDir()
	data := "--data-dir=" + dir
	migrated(t, dir)
	code, out, errOut := docsd(t, "user", "create", "alice", "--email", "alice@example.com", data)
	if code != 0 || !tokenLine.MatchString(out) {
		t.Fatalf("user create: code %d, stdout %q, stderr %q; want 0 and a token alone on a line", code, out, errOut)
	}
	first := strings.TrimSpace(out)
	code, out, errOut = docsd(t, "user", "create", "alice", data)
	if code != 1 || out != "" || !strings.Contains(errOut, `user "alice" already exists`) {
		t.Errorf("duplicate user: code %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, _ = docsd(t, "token", "create", "alice", data)
	if code != 0 || !tokenLine.MatchString(out) || strings.TrimSpace(out) == first {
		t.Errorf("token create: code %d, stdout %q", code, out)
	}
	second := strings.TrimSpace(out)
	if code, _, errOut := docsd(t, "token", "create", "nobody", data); code != 1 || !strings.Contains(errOut, `user "nobody" does not exist`) {
		t.Errorf("token for a missing user: code %d, stderr %q", code, errOut)
	}
	code, out, _ = docsd(t, "token", "list", "alice", data)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2 || !strings.Contains(lines[0], first[:4]+"…") || strings.Contains(out, first) {
		t.Errorf("token list: code %d, stdout %q", code, out)
	}

	s, err := store.Open(context.Background(), filepath.Join(dir, "docsd.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.FindUserByToken(context.Background(), first); err != nil {
		t.Errorf("first token does not authenticate: %v", err)
	}
	// A key made in the dashboard shows its name; the CLI's are unnamed.
	alice, _ := s.FindUserByUsername(context.Background(), "alice")
	named, _, err := s.CreateNamedToken(context.Background(), alice.ID, "CI deploys\tnightly")
	if err != nil {
		t.Fatal(err)
	}
	_, out, _ = docsd(t, "token", "list", "alice", data)
	lines = strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasSuffix(lines[0], "\t"+first[:4]+"…\t(unnamed)") ||
		!strings.HasSuffix(lines[2], "\t"+named[:4]+"…\tCI deploys?nightly") || strings.Count(lines[2], "\t") != 3 {
		t.Errorf("token list with a named key: %q; want names \"(unnamed)\" and \"CI deploys?nightly\" last", out)
	}
	if code, _, errOut := docsd(t, "token", "revoke", first, data); code != 0 {
		t.Errorf("revoke by key: code %d, %s", code, errOut)
	}
	if _, err := s.FindUserByToken(context.Background(), first); err == nil {
		t.Error("revoked token still authenticates")
	}
	id := strings.Fields(strings.Split(strings.TrimSpace(func() string { _, o, _ := docsd(t, "token", "list", "alice", data); return o }()), "\n")[0])[0]
	if code, _, errOut := docsd(t, "token", "revoke", id, data); code != 0 {
		t.Errorf("revoke by id: code %d, %s", code, errOut)
	}
	if _, err := s.FindUserByToken(context.Background(), second); err == nil {
		t.Error("token revoked by id still authenticates")
	}
	if code, _, _ := docsd(t, "token", "revoke", id, data); code != 1 {
		t.Errorf("revoking twice: code %d, want 1", code)
	}
	if code, _, _ := docsd(t, "user", "deactivate", "alice", data); code != 0 {
		t.Error("deactivate failed")
	}
	u, _ := s.FindUserByUsername(context.Background(), "alice")
	if u.IsActive {
		t.Error("alice is still active")
	}
}

func TestProjectAdminCommands(t *testing.T) {
	dir := t.TempDir()
	data := "--data-dir=" + dir
	migrated(t, dir)
	docsd(t, "user", "create", "alice", data)
	docsd(t, "user", "create", "bob", data)
	s, err := store.Open(context.Background(), filepath.Join(dir, "docsd.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	alice, _ := s.FindUserByUsername(ctx, "alice")
	for _, p := range []struct{ name, lang string }{{"demo", "en"}, {"demo-es", "es"}} {
		if _, err := s.ImportProject(ctx, store.ProjectImport{Name: p.name, Slug: p.name, Repo: "https://github.com/a/b", RepoType: "git",
			Language: p.lang, ProgrammingLanguage: "words", MaintainerID: alice.ID, IntegrationType: store.GitHubWebhook}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		args    []string
		code    int
		stderr  string
		checkFn func() error
	}{
		{[]string{"project", "privacy", "demo", "private"}, 0, "", func() error {
			return expect(s, "demo", func(p *store.Project) bool { return p.PrivacyLevel == "private" })
		}},
		{[]string{"project", "privacy", "demo", "secret"}, 1, `"secret" is not a valid choice.`, nil},
		{[]string{"project", "privacy", "nope", "public"}, 1, "Not found.", nil},
		{[]string{"project", "translation", "demo-es", "demo"}, 0, "", func() error {
			return expect(s, "demo-es", func(p *store.Project) bool { return p.TranslationOf != nil })
		}},
		{[]string{"project", "translation", "demo-es", "--unlink"}, 0, "", func() error {
			return expect(s, "demo-es", func(p *store.Project) bool { return p.TranslationOf == nil })
		}},
		{[]string{"project", "maintainer", "add", "demo", "bob"}, 0, "", nil},
		{[]string{"project", "maintainer", "remove", "demo", "bob"}, 0, "", nil},
		{[]string{"project", "maintainer", "remove", "demo", "alice"}, 1, "last maintainer", nil},
		{[]string{"project", "set", "demo", "skip=true", "build_time_limit=30", "tags=a,b"}, 0, "", func() error {
			return expect(s, "demo", func(p *store.Project) bool {
				return p.Skip && p.BuildTimeLimit != nil && *p.BuildTimeLimit == 30 && strings.Join(p.Tags(), ",") == "a,b"
			})
		}},
		{[]string{"project", "set", "demo", "addons_enabled=false"}, 0, "", func() error {
			return expect(s, "demo", func(p *store.Project) bool { return !p.AddonsEnabled })
		}},
		{[]string{"project", "set", "demo", "skip=maybe"}, 1, "Must be a valid boolean.", nil},
		{[]string{"project", "set", "demo", "documentation_type=sphinx_htmldir", "version_privacy_level=protected"}, 0, "", func() error {
			return expect(s, "demo", func(p *store.Project) bool {
				return p.DocumentationType == "sphinx_htmldir" && p.VersionPrivacyLevel == "protected"
			})
		}},
		{[]string{"project", "set", "demo", "documentation_type=docusaurus"}, 1, `"docusaurus" is not a valid choice.`, nil},
		{[]string{"project", "set", "demo", "version_privacy_level=hidden"}, 1, `"hidden" is not a valid choice.`, nil},
		{[]string{"project", "set", "demo", "python_interpreter=python"}, 0, "", func() error {
			return expect(s, "demo", func(p *store.Project) bool { return p.PythonInterpreter == "python" })
		}},
		{[]string{"project", "set", "demo", "python_interpreter=python2"}, 1, `"python2" is not a valid choice.`, nil},
		{[]string{"project", "set", "demo", "colour=red"}, 2, "want FIELD=VALUE", nil},
		{[]string{"version", "privacy", "demo", "latest", "protected"}, 0, "", nil},
		{[]string{"version", "privacy", "demo", "nope", "protected"}, 1, "Not found.", nil},
		{[]string{"version", "privacy", "demo", "latest", "Private"}, 1, `"Private" is not a valid choice.`, nil},
		{[]string{"redirect", "status", "demo", "1", "301"}, 1, "has no redirect 1", nil},
		{[]string{"build", "cancel", "1"}, 0, "", func() error {
			if b, err := s.FindBuildByID(ctx, 1); err != nil || b.State != store.Finished || b.Error != store.CancelledMessage {
				return fmt.Errorf("build 1 not cancelled: %+v %v", b, err)
			}
			return nil
		}},
		{[]string{"build", "cancel", "1"}, 1, "build 1 has already finished", nil},
		{[]string{"build", "cancel", "999"}, 1, "build 999 does not exist", nil},
		{[]string{"build", "cancel", "x"}, 2, "build ID must be a positive integer", nil},
		{[]string{"project", "delete", "demo-es"}, 0, "", func() error {
			if _, err := s.FindProjectBySlug(ctx, "demo-es"); err == nil {
				return fmt.Errorf("demo-es still exists")
			}
			return nil
		}},
		{[]string{"project", "privacy", "demo"}, 2, "usage: docsd project privacy", nil},
		{[]string{"frobnicate"}, 2, "unknown command", nil},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, _, errOut := docsd(t, append(tc.args, data)...)
			if code != tc.code || !strings.Contains(errOut, tc.stderr) {
				t.Fatalf("code %d, stderr %q; want %d and %q", code, errOut, tc.code, tc.stderr)
			}
			if tc.checkFn != nil {
				if err := tc.checkFn(); err != nil {
					t.Error(err)
				}
			}
		})
	}
}

func expect(s *store.Store, slug string, ok func(*store.Project) bool) error {
	p, err := s.FindProjectBySlug(context.Background(), slug)
	if err != nil {
		return err
	}
	if !ok(p) {
		return fmt.Errorf("project %s not as expected: %+v", slug, p)
	}
	return nil
}

func TestHelpAndSettings(t *testing.T) {
	code, out, _ := docsd(t, "--help")
	if code != 0 || !strings.Contains(out, "user create USERNAME") {
		t.Errorf("--help: code %d, %q", code, out)
	}
	code, helpOut, _ := docsd(t, "serve", "--help") // help goes to stdout
	for _, flag := range []string{"-addr", "-data-dir", "-database-url", "-public-url", "-docs-domain", "-docs-scheme", "-throttle-user-rate",
		"-absolute-api-links", "-max-page-size", "-build-workers", "-build-time-limit", "-git-clone-depth", "-install-core-requirements",
		"-build-python", "-allow-private-repos", "-allow-local-repos", "-build-image-prefix", "DOCSD_ALLOW_LOCAL_REPOS"} {
		if !strings.Contains(helpOut, flag) {
			t.Errorf("serve --help does not describe %s", flag)
		}
	}
	if code != 0 {
		t.Errorf("serve --help: code %d", code)
	}

	// A flag wins over the environment; the environment over the default.
	t.Setenv("DOCSD_PUBLIC_URL", "https://env.example.com/")
	t.Setenv("DOCSD_MAX_PAGE_SIZE", "50")
	c := &command{stdout: io.Discard, stderr: io.Discard}
	fs, env := c.flags("serve", "serve")
	if _, err := c.parse(fs, env, []string{"--max-page-size", "20"}); err != nil {
		t.Fatal(err)
	}
	if c.settings.PublicURL != "https://env.example.com" || c.settings.MaxPageSize != 20 || c.settings.BuildWorkers != 2 {
		t.Errorf("settings = %+v", c.settings)
	}
	t.Setenv("DOCSD_BUILD_WORKERS", "many")
	c = &command{stdout: io.Discard, stderr: io.Discard}
	fs, env = c.flags("serve", "serve")
	if _, err := c.parse(fs, env, nil); err == nil || !strings.Contains(err.Error(), "DOCSD_BUILD_WORKERS") {
		t.Errorf("a bad variable must be an error, got %v", err)
	}
	for addr, want := range map[string]string{"0.0.0.0:9000": "http://localhost:9000", ":8000": "http://localhost:8000", "[::]:80": "http://localhost:80", "10.1.2.3:81": "http://10.1.2.3:81"} {
		s := Settings{Addr: addr, DataDir: "x", ThrottleUserRate: "60/minute", MaxPageSize: 100, BuildTimeLimit: 600}
		if err := s.resolve(); err != nil || s.PublicURL != want {
			t.Errorf("public URL for %s = %q (%v), want %q", addr, s.PublicURL, err, want)
		}
	}
}

// TestServe runs `docsd serve`, makes a GraphQL request with a token, and
// stops it with a cancelled context (as SIGINT does).
func TestServe(t *testing.T) {
	dir := t.TempDir()
	data := "--data-dir=" + dir
	migrated(t, dir)
	_, out, _ := docsd(t, "user", "create", "alice", data)
	token := strings.TrimSpace(out)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	var stderr bytes.Buffer
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", addr, "--docs-addr", freeAddr(t), data, "--build-workers", "0"}, io.Discard, &stderr)
	}()
	base := "http://" + addr
	var resp *http.Response
	for i := 0; i < 100; i++ {
		if resp, err = http.Get(base + "/healthz"); err == nil {
			resp.Body.Close()
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("server did not start: %v\n%s", err, stderr.String())
	}
	req, _ := http.NewRequest("POST", base+"/graphql", strings.NewReader(`{"query":"{ viewer { username } }"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "token "+token)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	json.NewDecoder(resp.Body).Decode(&body)
	resp.Body.Close()
	if fmt.Sprint(body) != "map[data:map[viewer:map[username:alice]]]" {
		t.Errorf("graphql answer = %v", body)
	}
	resp, err = http.Get(base + "/graphiql/")
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || !strings.Contains(string(page), `src="/graphiql/static/graphiql.min.js"`) || strings.Contains(string(page), "src=\"http") {
		t.Errorf("GraphiQL page: %v %v\n%s", resp, err, page)
	}
	resp, err = http.Get(base + "/graphiql/static/graphiql.min.js")
	if err != nil || resp.StatusCode != 200 {
		t.Errorf("GraphiQL script: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	resp, err = http.Get(base + "/api/v3/nope/")
	if err != nil || resp.StatusCode != 404 || resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("unknown API route: %v %v", resp, err)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("serve exited %d: %s", code, stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not stop")
	}
	if !strings.Contains(stderr.String(), "msg=request method=POST path=/graphql status=200") {
		t.Errorf("no request log line in:\n%s", stderr.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "docsd.db")); err != nil {
		t.Errorf("default SQLite database missing: %v", err)
	}
}

func TestMigrate(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := docsd(t, "migrate", "--database-url", "sqlite://"+filepath.Join(dir, "m.db"))
	if code != 0 || !strings.Contains(out, "migrations applied") {
		t.Errorf("migrate: %d %q %q", code, out, errOut)
	}
}

// TestAPIPathsAreNotCleaned checks that `//` and `..` in API paths reach the
// API (a JSON answer) instead of a ServeMux redirect, for reads and writes.
func TestAPIPathsAreNotCleaned(t *testing.T) {
	c := &command{stdout: io.Discard, stderr: io.Discard}
	fs, env := c.flags("serve", "serve")
	if _, err := c.parse(fs, env, []string{"--data-dir", t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	a, err := c.open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer a.close()
	srv := httptest.NewServer(a.handler())
	defer srv.Close()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, tc := range []struct{ method, path string }{
		{"GET", "/api/v3//projects/"}, {"POST", "/api/v3//projects/"}, {"DELETE", "/api/v2/project/../build/"}, {"POST", "/api/v2"},
	} {
		req, _ := http.NewRequest(tc.method, srv.URL+tc.path, nil)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode/100 == 3 || resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s %s: %d %q, want a JSON answer and no redirect", tc.method, tc.path, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
	}
}

// TestUsageListsEveryAdminCommand keeps `docsd --help` complete: every admin
// command is on a line of the usage ("user activate|deactivate" lists two).
func TestUsageListsEveryAdminCommand(t *testing.T) {
	listed := map[string]bool{}
	for _, line := range strings.Split(usage, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || !strings.HasPrefix(line, "  ") {
			continue
		}
		for _, sub := range strings.Split(f[1], "|") {
			listed[f[0]+" "+sub] = true
		}
	}
	for key := range adminSynopses {
		if !listed[key] {
			t.Errorf("docsd --help does not list %q", key)
		}
	}
}
