package graph_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/99designs/gqlgen/graphql"

	"docsd/graph"
	"docsd/internal/access"
	"docsd/internal/docsurl"
	"docsd/internal/errs"
	"docsd/internal/repourl"
	"docsd/internal/storetest"
	"docsd/store"
)

// env is a real store and executor with a few users.
type env struct {
	t        *testing.T
	store    *store.Store
	resolver *graph.Resolver
	exec     *graph.Executor
	users    map[string]*store.User

	srv    *httptest.Server  // the public /graphql endpoint, started by server()
	tokens map[string]string // API keys by username, made by server()
}

func newEnv(t *testing.T, d store.Dialect) *env {
	t.Helper()
	s := storetest.Open(t, d)
	clock := time.Date(2019, 4, 29, 10, 0, 0, 0, time.UTC)
	s.Now = func() time.Time { clock = clock.Add(time.Second); return clock }
	r := &graph.Resolver{Store: s, Settings: graph.Settings{
		URLs:            docsurl.Config{PublicURL: "https://docs.example.com"},
		AllowLocalRepos: true,
	}}
	e := &env{t: t, store: s, resolver: r, exec: graph.NewExecutor(r), users: map[string]*store.User{}}
	for _, name := range []string{"alice", "bob"} {
		u, err := s.CreateUser(context.Background(), name, name+"@example.com", false)
		if err != nil {
			t.Fatal(err)
		}
		e.users[name] = u
	}
	root, err := s.CreateUser(context.Background(), "root", "root@example.com", true)
	if err != nil {
		t.Fatal(err)
	}
	e.users["root"] = root
	return e
}

// server starts (once) a real HTTP server with the public /graphql endpoint
// and gives every user of the env an API key for it.
func (e *env) server() *httptest.Server {
	e.t.Helper()
	if e.srv != nil {
		return e.srv
	}
	mux := http.NewServeMux()
	mux.Handle("/graphql", e.resolver.Handler())
	e.srv = httptest.NewServer(mux)
	e.t.Cleanup(e.srv.Close)
	e.tokens = map[string]string{}
	for name, u := range e.users {
		key, _, err := e.store.CreateToken(context.Background(), u.ID)
		if err != nil {
			e.t.Fatal(err)
		}
		e.tokens[name] = key
	}
	return e.srv
}

// as returns a context for the named user ("" is anonymous).
func (e *env) as(name string) context.Context {
	if name == "" {
		return access.WithUser(context.Background(), nil)
	}
	return access.WithUser(context.Background(), e.users[name])
}

// do runs an operation and returns its data decoded generically and its
// first error.
func (e *env) do(ctx context.Context, query string, vars map[string]any) (map[string]any, error) {
	e.t.Helper()
	var data map[string]any
	err := e.exec.Do(ctx, query, vars, &data)
	return data, err
}

// must runs an operation that must succeed.
func (e *env) must(ctx context.Context, query string, vars map[string]any) map[string]any {
	e.t.Helper()
	data, err := e.do(ctx, query, vars)
	if err != nil {
		e.t.Fatalf("operation failed: %v\n%s", err, query)
	}
	return data
}

// importProject imports a project as user and returns its slug.
func (e *env) importProject(user, name string) string {
	e.t.Helper()
	data := e.must(e.as(user), `mutation($n: String!) { importProject(input: {name: $n, repository: {url: "https://github.com/rtfd/x", type: git}}) { project { slug } errors { path message code } } }`,
		map[string]any{"n": name})
	return dig(data, "importProject", "project", "slug").(string)
}

// dig walks a decoded JSON value by keys and list indexes.
// importedProject imports a project as user and returns it from the store.
func (e *env) importedProject(user, name string) *store.Project {
	e.t.Helper()
	p, err := e.store.FindProjectBySlug(context.Background(), e.importProject(user, name))
	if err != nil {
		e.t.Fatal(err)
	}
	return p
}

func dig(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			l, _ := v.([]any)
			if k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

func kind(err error) string {
	if err == nil {
		return "ok"
	}
	return errs.KindOf(err).String()
}

func TestImportProject(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d)
		data := e.must(e.as("alice"), `mutation { importProject(input: {name: "Test Project", repository: {url: "https://github.com/rtfd/project", type: git}, homepage: "http://project.com"}) { project {
			slug name language { code name } programmingLanguage { code name } repository { url type } homepage
			defaultVersion defaultBranch storedDefaultBranch tags users { username } subprojectOf { slug } translationOf { slug }
			urls { documentation home builds versions } canonicalUrl privacyLevel documentationType
			versions { totalCount nodes { slug verboseName identifier type active built machine lastBuild { state { code name } success error duration commit } } }
			integrations { type webhookUrl secret } activeVersions { slug } } errors { path message code } } }`, nil)
		p := dig(data, "importProject", "project").(map[string]any)
		want := map[string]any{
			"slug": "test-project", "name": "Test Project",
			"language":            map[string]any{"code": "en", "name": "English"},
			"programmingLanguage": map[string]any{"code": "words", "name": "Only Words"},
			"repository":          map[string]any{"url": "https://github.com/rtfd/project", "type": "git"},
			"homepage":            "http://project.com", "defaultVersion": "latest", "defaultBranch": "master",
			"storedDefaultBranch": nil, "tags": []any{}, "users": []any{map[string]any{"username": "alice"}},
			"subprojectOf": nil, "translationOf": nil, "privacyLevel": "public", "documentationType": "sphinx",
			"urls": map[string]any{
				"documentation": "https://docs.example.com/docs/test-project/en/latest/",
				"home":          "https://docs.example.com/projects/test-project/",
				"builds":        "https://docs.example.com/projects/test-project/builds/",
				"versions":      "https://docs.example.com/projects/test-project/versions/",
			},
			"canonicalUrl":   "https://docs.example.com/docs/test-project/en/latest/",
			"activeVersions": []any{},
		}
		for k, w := range want {
			if got := p[k]; !reflect.DeepEqual(got, w) {
				t.Errorf("%s = %#v, want %#v", k, got, w)
			}
		}
		latest := dig(p, "versions", "nodes", 0).(map[string]any)
		if dig(p, "versions", "totalCount") != float64(1) || latest["slug"] != "latest" || latest["identifier"] != "master" ||
			latest["type"] != "branch" || latest["active"] != true || latest["machine"] != true || latest["built"] != false {
			t.Errorf("latest version = %#v", latest)
		}
		if got := dig(latest, "lastBuild"); !reflect.DeepEqual(got, map[string]any{
			"state": map[string]any{"code": "triggered", "name": "Triggered"}, "success": nil, "error": nil, "duration": nil, "commit": nil,
		}) {
			t.Errorf("lastBuild = %#v", got)
		}
		in := dig(p, "integrations", 0).(map[string]any)
		if in["type"] != "github_webhook" || len(in["secret"].(string)) != 64 || in["webhookUrl"] != "https://docs.example.com/api/v2/webhook/test-project/1/" {
			t.Errorf("integration = %#v", in)
		}
	})
}

func TestImportProjectValidation(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d)
		e.importProject("alice", "Test Project")
		for _, tc := range []struct {
			name  string
			input string
			want  errs.Fields
		}{
			{"empty", `{}`, errs.Fields{"name": {"This field is required."}, "repository": {"This field is required."}}},
			{"missing type", `{name: "X", repository: {url: "https://github.com/a/b"}}`, errs.Fields{"repository.type": {"This field is required."}}},
			{"no slug", `{name: "!!!", repository: {url: "https://github.com/a/b", type: git}}`, errs.Fields{"name": {`Invalid project name "!!!": no slug generated.`}}},
			{"duplicate", `{name: "Test Project", repository: {url: "https://github.com/a/b", type: git}}`, errs.Fields{"name": {`Project with slug "test-project" already exists.`}}},
			{"blank and null", `{name: "  ", repository: null}`, errs.Fields{"name": {"This field may not be blank."}, "repository": {"This field may not be null."}}},
			{"too long", `{name: "` + strings.Repeat("a", 64) + `", repository: {url: "https://github.com/a/b", type: git}}`, errs.Fields{"name": {"Ensure this field has no more than 63 characters."}}},
			{"url rules", `{name: "A", repository: {url: "https://x.org/a && rm", type: git}}`, errs.Fields{"repository.url": {"Invalid character in the URL"}}},
			{"ssh", `{name: "A", repository: {url: "git@github.com:a/b.git", type: git}}`, errs.Fields{"repository.url": {"Manual cloning via SSH is not supported"}}},
			{"scheme", `{name: "A", repository: {url: "gopher://x", type: git}}`, errs.Fields{"repository.url": {"Invalid scheme for URL"}}},
			{"loopback", `{name: "A", repository: {url: "http://2130706433:5432/r.git", type: git}}`, errs.Fields{"repository.url": {repourl.MsgPrivateNetwork}}},
			{"localhost", `{name: "A", repository: {url: "https://localhost/r.git", type: git}}`, errs.Fields{"repository.url": {repourl.MsgPrivateNetwork}}},
			{"private", `{name: "A", repository: {url: "git://192.168.1.5/r.git", type: git}}`, errs.Fields{"repository.url": {repourl.MsgPrivateNetwork}}},
			{"launchpad is bazaar's", `{name: "A", repository: {url: "lp:foo", type: git}}`, errs.Fields{"repository.url": {"Invalid scheme for URL"}}},
			{"choices", `{name: "A", repository: {url: "https://x.org/a", type: git}, language: "xx", programmingLanguage: "cobol", homepage: "not a url"}`, errs.Fields{
				"language": {`"xx" is not a valid choice.`}, "programming_language": {`"cobol" is not a valid choice.`}, "homepage": {"Enter a valid URL."}}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				before, _, _ := e.store.FindProjects(context.Background(), store.ProjectFilter{})
				_, err := e.do(e.as("alice"), `mutation { importProject(input: `+tc.input+`) { project { slug } errors { path message code } } }`, nil)
				if errs.KindOf(err) != errs.Invalid {
					t.Fatalf("error kind = %s (%v), want INVALID", kind(err), err)
				}
				if got := errs.FieldsOf(err); !reflect.DeepEqual(got, tc.want) {
					t.Errorf("fields = %v, want %v", got, tc.want)
				}
				after, _, _ := e.store.FindProjects(context.Background(), store.ProjectFilter{})
				if len(after) != len(before) {
					t.Errorf("a failed import left rows: %d projects, want %d", len(after), len(before))
				}
			})
		}
		if _, err := e.do(e.as(""), `mutation { importProject(input: {name: "Y", repository: {url: "https://a.org/b", type: git}}) { project { slug } errors { path message code } } }`, nil); kind(err) != "UNAUTHENTICATED" {
			t.Errorf("anonymous import: %s, want UNAUTHENTICATED", kind(err))
		}
		data, err := e.do(e.as("alice"), `mutation { importProject(input: {validateOnly: true, name: "Only checked"}) { project { slug } errors { path message code } } }`, nil)
		// validateOnly answers a payload: no object, the errors (none when valid).
		if kind(err) != "INVALID" || dig(data, "importProject", "project") != nil || len(dig(data, "importProject", "errors").([]any)) != 1 {
			t.Errorf("validateOnly with bad input: %v %v", data, err)
		}
		data, err = e.do(e.as("alice"), `mutation { importProject(input: {validateOnly: true, name: "Only checked", repository: {url: "https://a.org/b", type: git}}) { project { slug } errors { path message code } } }`, nil)
		if err != nil || !reflect.DeepEqual(data["importProject"], map[string]any{"project": nil, "errors": []any{}}) {
			t.Errorf("validateOnly with good input: %v %v", data, err)
		}
		if _, err := e.store.FindProjectBySlug(context.Background(), "only-checked"); !errs.Is(err, errs.NotFound) {
			t.Errorf("validateOnly wrote a project: %v", err)
		}
	})
}

// fixture: alice maintains public "pub" and private "priv"; each has the
// machine `latest`, a public active built tag v1.0 with a finished build, a
// private version "secret", a redirect and an environment variable.
func (e *env) fixture() {
	e.t.Helper()
	ctx := context.Background()
	for _, name := range []string{"pub", "priv"} {
		slug := e.importProject("alice", name)
		p, _ := e.store.FindProjectBySlug(ctx, slug)
		yes := true
		v, err := e.store.CreateVersion(ctx, &store.Version{ProjectID: p.ID, Slug: "v1.0", VerboseName: "v1.0", Identifier: "abc", Type: store.Tag, Active: true, Built: true, HasPDF: true})
		if err != nil {
			e.t.Fatal(err)
		}
		if _, err := e.store.CreateVersion(ctx, &store.Version{ProjectID: p.ID, Slug: "secret", VerboseName: "secret", Identifier: "origin/secret", Type: store.Branch, PrivacyLevel: store.Private, Active: true}); err != nil {
			e.t.Fatal(err)
		}
		b, _ := e.store.CreateBuild(ctx, v, nil)
		// Finish every queued build of the project (latest's and v1.0's).
		for {
			claimed, err := e.store.ClaimBuild(ctx, "test", time.Minute)
			if err != nil {
				break
			}
			e.store.SetBuildCommit(ctx, claimed.ID, "abc")
			e.store.FinishBuild(ctx, claimed.ID, store.BuildResult{Success: claimed.ID == b.ID, Error: map[bool]string{true: "", false: "boom"}[claimed.ID == b.ID]})
		}
		_ = yes
		e.store.CreateRedirect(ctx, store.Redirect{ProjectID: p.ID, Type: "page", FromURL: "/a.html", ToURL: "/b.html", Enabled: true})
		e.store.CreateEnvironmentVariable(ctx, p.ID, "SECRET", "s3cr3t-value", false)
	}
	p, _ := e.store.FindProjectBySlug(ctx, "priv")
	priv := store.Private
	e.store.UpdateProject(ctx, p.ID, store.ProjectUpdate{PrivacyLevel: &priv})
}

// TestPermissionMatrix checks what every kind of caller may see and do
// with public and private projects.
func TestPermissionMatrix(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d)
		e.fixture()
		type cell map[string]string // caller → expected outcome
		for _, tc := range []struct {
			name  string
			query string
			want  map[string]cell // project → caller → outcome
		}{
			{"project detail", `query($p: String!) { project(slug: $p) { slug } }`, map[string]cell{
				"pub":  {"": "ok", "alice": "ok", "bob": "ok", "root": "ok"},
				"priv": {"": "NOT_FOUND", "alice": "ok", "bob": "NOT_FOUND", "root": "ok"},
			}},
			{"public version", `query($p: String!) { project(slug: $p) { version(slug: "v1.0") { slug } } }`, map[string]cell{
				"pub":  {"": "ok", "alice": "ok", "bob": "ok", "root": "ok"},
				"priv": {"": "NOT_FOUND", "alice": "ok", "bob": "NOT_FOUND", "root": "ok"},
			}},
			{"private version", `query($p: String!) { project(slug: $p) { version(slug: "secret") { slug } } }`, map[string]cell{
				"pub":  {"": "NOT_FOUND", "alice": "ok", "bob": "NOT_FOUND", "root": "ok"},
				"priv": {"": "NOT_FOUND", "alice": "ok", "bob": "NOT_FOUND", "root": "ok"},
			}},
			{"redirects", `query($p: String!) { project(slug: $p) { redirects { totalCount } } }`, map[string]cell{
				"pub":  {"": "UNAUTHENTICATED", "alice": "ok", "bob": "FORBIDDEN", "root": "FORBIDDEN"},
				"priv": {"": "NOT_FOUND", "alice": "ok", "bob": "NOT_FOUND", "root": "FORBIDDEN"},
			}},
			{"environment variables", `query($p: String!) { project(slug: $p) { environmentVariables { nodes { name } } } }`, map[string]cell{
				"pub":  {"": "UNAUTHENTICATED", "alice": "ok", "bob": "FORBIDDEN", "root": "FORBIDDEN"},
				"priv": {"": "NOT_FOUND", "alice": "ok", "bob": "NOT_FOUND", "root": "FORBIDDEN"},
			}},
			{"update project", `mutation($p: String!) { updateProject(input: {slug: $p, defaultVersion: "v1.0"}) { project { slug } errors { path message code } } }`, map[string]cell{
				"pub":  {"": "UNAUTHENTICATED", "alice": "ok", "bob": "FORBIDDEN", "root": "FORBIDDEN"},
				"priv": {"": "UNAUTHENTICATED", "alice": "ok", "bob": "FORBIDDEN", "root": "FORBIDDEN"},
			}},
			{"trigger build", `mutation($p: String!) { triggerBuild(input: {project: $p, version: "v1.0"}) { triggered errors { path message code } } }`, map[string]cell{
				"pub":  {"": "UNAUTHENTICATED", "alice": "ok", "bob": "FORBIDDEN", "root": "FORBIDDEN"},
				"priv": {"": "UNAUTHENTICATED", "alice": "ok", "bob": "FORBIDDEN", "root": "FORBIDDEN"},
			}},
			{"project access", `query($p: String!) { projectAccess(slug: $p) { exists } }`, map[string]cell{
				"pub":  {"": "ok", "alice": "ok", "bob": "ok", "root": "ok"},
				"priv": {"": "ok", "alice": "ok", "bob": "ok", "root": "ok"},
			}},
		} {
			for project, callers := range tc.want {
				for caller, want := range callers {
					t.Run(fmt.Sprintf("%s/%s/%q", tc.name, project, caller), func(t *testing.T) {
						_, err := e.do(e.as(caller), tc.query, map[string]any{"p": project})
						if got := kind(err); got != want {
							t.Errorf("got %s (%v), want %s", got, err, want)
						}
					})
				}
			}
		}
	})
}

// TestListVisibility checks that lists return the visible subset and that
// anonymous callers see public data only.
func TestListVisibility(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d)
		e.fixture()
		count := func(caller, query string, path ...any) float64 {
			t.Helper()
			return dig(e.must(e.as(caller), query, nil), path...).(float64)
		}
		for _, tc := range []struct {
			caller string
			query  string
			path   []any
			want   float64
		}{
			{"", `{ projects { totalCount } }`, []any{"projects", "totalCount"}, 1},
			{"bob", `{ projects { totalCount } }`, []any{"projects", "totalCount"}, 1},
			{"alice", `{ projects { totalCount } }`, []any{"projects", "totalCount"}, 2},
			{"root", `{ projects { totalCount } }`, []any{"projects", "totalCount"}, 2},
			{"bob", `{ projects(filter: {maintainedByViewer: true}) { totalCount } }`, []any{"projects", "totalCount"}, 0},
			{"alice", `{ projects(filter: {maintainedByViewer: true}) { totalCount } }`, []any{"projects", "totalCount"}, 2},
			// latest and v1.0 of pub; never priv's, never "secret".
			{"", `{ versions { totalCount } }`, []any{"versions", "totalCount"}, 2},
			{"alice", `{ versions { totalCount } }`, []any{"versions", "totalCount"}, 6},
			{"", `{ builds { totalCount } }`, []any{"builds", "totalCount"}, 2},
			{"alice", `{ builds { totalCount } }`, []any{"builds", "totalCount"}, 4},
			{"", `{ project(slug: "pub") { versions { totalCount } } }`, []any{"project", "versions", "totalCount"}, 2},
			{"alice", `{ project(slug: "pub") { versions { totalCount } } }`, []any{"project", "versions", "totalCount"}, 3},
			{"alice", `{ project(slug: "pub") { versions(filter: {active: true, built: true}) { totalCount } } }`, []any{"project", "versions", "totalCount"}, 1},
			{"alice", `{ project(slug: "pub") { builds(filter: {running: false, commit: "abc"}) { totalCount } } }`, []any{"project", "builds", "totalCount"}, 2},
			{"alice", `{ project(slug: "pub") { builds(filter: {running: true}) { totalCount } } }`, []any{"project", "builds", "totalCount"}, 0},
		} {
			if got := count(tc.caller, tc.query, tc.path...); got != tc.want {
				t.Errorf("%q %s: got %v, want %v", tc.caller, tc.query, got, tc.want)
			}
		}
		// active_versions: active, built and public only, even for maintainers.
		data := e.must(e.as("alice"), `{ project(slug: "pub") { activeVersions { slug downloads { pdf htmlzip epub } } } }`, nil)
		if got := dig(data, "project", "activeVersions"); !reflect.DeepEqual(got, []any{map[string]any{"slug": "v1.0", "downloads": map[string]any{
			"pdf": "https://docs.example.com/docs/pub/_/downloads/en/v1.0/pdf/", "htmlzip": nil, "epub": nil}}}) {
			t.Errorf("activeVersions = %#v", got)
		}
		// Invalid choice filters name their field.
		_, err := e.do(e.as("alice"), `{ projects(filter: {language: "xx"}) { totalCount } }`, nil)
		if got := errs.FieldsOf(err); !reflect.DeepEqual(got, errs.Fields{"language": {"Select a valid choice. xx is not one of the available choices."}}) {
			t.Errorf("language filter error = %v", got)
		}
		_, err = e.do(e.as("alice"), `{ versions(filter: {privacyLevel: "secret"}) { totalCount } }`, nil)
		if got := errs.FieldsOf(err); !reflect.DeepEqual(got, errs.Fields{"privacy_level": {"Select a valid choice. secret is not one of the available choices."}}) {
			t.Errorf("privacy_level filter error = %v", got)
		}
	})
}

// TestBatchedReads proves the dataloaders: listing 100 projects with their
// maintainers, active versions and last builds costs as many queries as
// listing 10 of them.
func TestBatchedReads(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d)
		ctx := context.Background()
		for i := 0; i < 100; i++ {
			res, err := e.store.ImportProject(ctx, store.ProjectImport{Name: fmt.Sprintf("p%03d", i), Slug: fmt.Sprintf("p%03d", i),
				Repo: "https://github.com/a/b", RepoType: "git", Language: "en", ProgrammingLanguage: "words",
				MaintainerID: e.users["alice"].ID, IntegrationType: store.GitHubWebhook})
			if err != nil {
				t.Fatal(err)
			}
			built := true
			e.store.UpdateVersion(ctx, res.Latest.ID, store.VersionUpdate{Built: &built})
		}
		const query = `query($n: Int) { projects(limit: $n) { totalCount nodes { slug users { username } urls { documentation }
			subprojectOf { slug } activeVersions { slug ref urls { vcs } downloads { pdf } lastBuild { id state { code } commands { id } } } } } }`
		queries := func(n int) int64 {
			before := e.store.QueryCount()
			data := e.must(e.as("alice"), query, map[string]any{"n": n})
			if got := len(dig(data, "projects", "nodes").([]any)); got != n {
				t.Fatalf("got %d projects, want %d", got, n)
			}
			if got := dig(data, "projects", "nodes", n-1, "activeVersions", 0, "lastBuild", "state", "code"); got != "triggered" {
				t.Fatalf("last project's latest build state = %v", got)
			}
			return e.store.QueryCount() - before
		}
		ten, hundred := queries(10), queries(100)
		t.Logf("queries: 10 projects → %d, 100 projects → %d", ten, hundred)
		if hundred != ten {
			t.Errorf("100 projects cost %d queries, 10 cost %d: reads are not batched", hundred, ten)
		}
		if hundred > 15 {
			t.Errorf("100 projects cost %d queries, want a small constant", hundred)
		}
	})
}

// TestPublicListsBatch checks that the public endpoint, whose operations
// the lookahead does not prime for every shape, still runs a list's elements
// at once: the loads that the fixture's projects make of a relation nobody
// looks ahead for here (the maintainers that the commands of the builds of
// each project's active versions check) reach the loader together, in one
// batch. Run one after another, as REST's primed reads are (marshalSlice),
// each would wait alone.
func TestPublicListsBatch(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d)
		e.fixture()
		e.server()
		const query = `{ projects(limit: 10) { nodes { slug activeVersions { builds(limit: 2) { nodes { id commands { id } } } } } } }`
		rctx, batches := graph.CountWaitedBatches(context.Background())
		r := httptest.NewRequestWithContext(rctx, http.MethodPost, "/graphql", strings.NewReader(fmt.Sprintf(`{"query": %q}`, query)))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Authorization", "Token "+e.tokens["alice"])
		w := httptest.NewRecorder()
		e.resolver.Handler().ServeHTTP(w, r)
		var out struct {
			Data struct {
				Projects struct{ Nodes []any }
			}
			Errors []any
		}
		if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil || len(out.Errors) > 0 || len(out.Data.Projects.Nodes) != 2 {
			t.Fatalf("answered %d: %s", w.Code, w.Body)
		}
		if got, want := batches(), []string{"maintainersOf(2 keys)"}; !slices.Equal(got, want) {
			t.Errorf("the projects' loads waited in the batches %v, want %v", got, want)
		}
	})
}

// TestMutations drives every mutation once through its happy path and its
// main failure.
func TestMutations(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d)
		e.fixture()
		alice := e.as("alice")
		ok := func(query string, vars map[string]any) map[string]any {
			t.Helper()
			return e.must(alice, query, vars)
		}
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

		// updateProject: PATCH and PUT rules.
		data := ok(`mutation { updateProject(input: {slug: "pub", name: "Pub", defaultBranch: "main", singleVersion: false, analyticsCode: null}) { project { name defaultBranch versions { nodes { slug identifier } } } errors { path message code } } }`, nil)
		if dig(data, "updateProject", "project", "defaultBranch") != "main" {
			t.Errorf("defaultBranch = %v", dig(data, "updateProject", "project", "defaultBranch"))
		}
		for _, v := range dig(data, "updateProject", "project", "versions", "nodes").([]any) {
			if dig(v, "slug") == "latest" && dig(v, "identifier") != "main" {
				t.Errorf("machine latest did not follow the default branch: %v", v)
			}
		}
		// PUT needs only name and repository.url.
		fails(`mutation { updateProject(input: {slug: "pub", replace: true, name: "X"}) { project { name } errors { path message code } } }`, nil, errs.Invalid,
			errs.Fields{"repository": {"This field is required."}})
		fails(`mutation { updateProject(input: {slug: "pub", replace: true, repository: {}}) { project { name } errors { path message code } } }`, nil, errs.Invalid,
			errs.Fields{"name": {"This field is required."}, "repository.url": {"This field is required."}})
		fails(`mutation { updateProject(input: {slug: "pub", repository: {url: "https://a.org/b"}, showVersionWarning: null}) { project { name } errors { path message code } } }`, nil, errs.Invalid,
			errs.Fields{"show_version_warning": {"This field may not be null."}})
		fails(`mutation { updateProject(input: {slug: "nope"}) { project { name } errors { path message code } } }`, nil, errs.NotFound, nil)

		// Translations, with the language rules.
		e.importProject("alice", "pub-es")
		fails(`mutation { setTranslationOf(input: {slug: "pub-es", main: "pub"}) { project { slug } errors { path message code } } }`, nil, errs.Invalid,
			errs.Fields{"slug": {`A translation with language "en" already exists for this project.`}})
		// The translation to link is a field of the input, as a subproject's
		// child: blank, missing or someone else's is a message on it.
		fails(`mutation { setTranslationOf(input: {slug: "nope", main: "pub"}) { project { slug } errors { path message code } } }`, nil, errs.Invalid,
			errs.Fields{"slug": {"Object with slug=nope does not exist."}})
		fails(`mutation { setTranslationOf(input: {slug: " ", main: "pub"}) { project { slug } errors { path message code } } }`, nil, errs.Invalid,
			errs.Fields{"slug": {errs.MsgNotBlank}})
		fails(`mutation { setTranslationOf(input: {slug: "pub-es", main: "nope"}) { project { slug } errors { path message code } } }`, nil, errs.NotFound, nil)
		ok(`mutation { updateProject(input: {slug: "pub-es", language: "es"}) { project { slug } errors { path message code } } }`, nil)
		data = ok(`mutation { setTranslationOf(input: {slug: "pub-es", main: "pub"}) { project { translationOf { slug } urls { documentation } } errors { path message code } } }`, nil)
		if dig(data, "setTranslationOf", "project", "urls", "documentation") != "https://docs.example.com/docs/pub/es/latest/" {
			t.Errorf("translation docs URL = %v", dig(data, "setTranslationOf", "project", "urls", "documentation"))
		}
		data = ok(`{ project(slug: "pub") { translations { totalCount nodes { slug } } } }`, nil)
		if dig(data, "project", "translations", "totalCount") != float64(1) {
			t.Errorf("translations = %v", dig(data, "project", "translations"))
		}
		fails(`mutation { updateProject(input: {slug: "pub-es", language: "en"}) { project { slug } errors { path message code } } }`, nil, errs.Invalid,
			errs.Fields{"language": {`A translation with language "en" already exists for this project.`}})
		ok(`mutation { setTranslationOf(input: {slug: "pub-es", main: null}) { project { slug } errors { path message code } } }`, nil)

		// Versions.
		data = ok(`mutation { updateVersion(input: {project: "pub", version: "v1.0", active: false}) { version { active } errors { path message code } } }`, nil)
		if dig(data, "updateVersion", "version", "active") != false {
			t.Errorf("active = %v", dig(data, "updateVersion", "version", "active"))
		}
		// A PUT needs nothing: fields not given keep their value.
		data = ok(`mutation { updateVersion(input: {project: "pub", version: "v1.0", replace: true}) { version { active hidden privacyLevel } errors { path message code } } }`, nil)
		if got := dig(data, "updateVersion", "version"); !reflect.DeepEqual(got, map[string]any{"active": false, "hidden": false, "privacyLevel": "public"}) {
			t.Errorf("after an empty replace: %v", got)
		}
		data = ok(`mutation { updateVersion(input: {project: "pub", version: "v1.0", hidden: true, privacyLevel: private}) { version { active hidden privacyLevel } errors { path message code } } }`, nil)
		if got := dig(data, "updateVersion", "version"); !reflect.DeepEqual(got, map[string]any{"active": false, "hidden": true, "privacyLevel": "private"}) {
			t.Errorf("after hidden, privacyLevel: %v", got)
		}
		data = ok(`{ project(slug: "pub") { versions(filter: {hidden: true}) { nodes { slug hidden privacyLevel } } } }`, nil)
		if got := dig(data, "project", "versions", "nodes"); !reflect.DeepEqual(got, []any{map[string]any{"slug": "v1.0", "hidden": true, "privacyLevel": "private"}}) {
			t.Errorf("hidden versions = %v", got)
		}
		fails(`mutation { updateVersion(input: {project: "pub", version: "v1.0", hidden: null, active: null}) { version { active } errors { path message code } } }`, nil, errs.Invalid,
			errs.Fields{"hidden": {"This field may not be null."}, "active": {"This field may not be null."}})
		fails(`mutation { updateVersion(input: {project: "pub", version: "v1.0", privacyLevel: null}) { version { active } errors { path message code } } }`, nil, errs.Invalid,
			errs.Fields{"privacy_level": {"This field may not be null."}})
		ok(`mutation { updateVersion(input: {project: "pub", version: "v1.0", hidden: false, privacyLevel: public}) { version { active } errors { path message code } } }`, nil)
		fails(`mutation { updateVersion(input: {project: "pub", version: "v1.0", active: null}) { version { active } errors { path message code } } }`, nil, errs.Invalid, errs.Fields{"active": {"This field may not be null."}})
		fails(`mutation { updateVersion(input: {project: "pub", version: "nope", active: true}) { version { active } errors { path message code } } }`, nil, errs.NotFound, nil)
		ok(`mutation { setVersionPrivacy(input: {project: "pub", version: "v1.0", privacyLevel: protected}) { version { privacyLevel } errors { path message code } } }`, nil)
		fails(`mutation { setVersionPrivacy(input: {project: "pub", version: "nope", privacyLevel: private}) { version { privacyLevel } errors { path message code } } }`, nil, errs.NotFound, nil)

		// Builds: trigger, and the disabled-project case.
		data = ok(`mutation { triggerBuild(input: {project: "pub", version: "v1.0"}) { triggered build { state { code } } version { lastBuild { id } } errors { path message code } } }`, nil)
		if dig(data, "triggerBuild", "triggered") != true || dig(data, "triggerBuild", "build", "state", "code") != "triggered" {
			t.Errorf("trigger = %v", data)
		}
		e.must(access.WithSystem(context.Background()), `mutation { setProjectAdminFields(input: {slug: "pub", skip: true}) { project { slug } errors { path message code } } }`, nil)
		data = ok(`mutation { triggerBuild(input: {project: "pub", version: "v1.0"}) { triggered build { id } errors { path message code } } }`, nil)
		if dig(data, "triggerBuild", "triggered") != false || dig(data, "triggerBuild", "build") != nil {
			t.Errorf("trigger on a disabled project = %v", data)
		}
		fails(`mutation { setProjectAdminFields(input: {slug: "pub", skip: false}) { project { slug } errors { path message code } } }`, nil, errs.Forbidden, nil)

		// Subprojects, with their create rules.
		e.importProject("alice", "child")
		e.importProject("bob", "bobs")
		fails(`mutation { createSubproject(input: {project: "pub"}) { subproject { alias } errors { path message code } } }`, nil, errs.Invalid, errs.Fields{"child": {"This field is required."}})
		fails(`mutation { createSubproject(input: {project: "pub", child: ""}) { subproject { alias } errors { path message code } } }`, nil, errs.Invalid, errs.Fields{"child": {"This field may not be null."}})
		fails(`mutation { createSubproject(input: {project: "pub", child: "bobs"}) { subproject { alias } errors { path message code } } }`, nil, errs.Invalid, errs.Fields{"child": {"Object with slug=bobs does not exist."}})
		fails(`mutation { createSubproject(input: {project: "pub", child: "pub"}) { subproject { alias } errors { path message code } } }`, nil, errs.Invalid, errs.Fields{"child": {"Project can not be subproject of itself"}})
		fails(`mutation { createSubproject(input: {project: "pub", child: "child", alias: "bad alias"}) { subproject { alias } errors { path message code } } }`, nil, errs.Invalid,
			errs.Fields{"alias": {`Enter a valid "slug" consisting of letters, numbers, underscores or hyphens.`}})
		data = ok(`mutation { createSubproject(input: {project: "pub", child: "child", alias: "lib"}) { subproject { alias parent { slug } child { slug subprojectOf { slug } urls { documentation } } } errors { path message code } } }`, nil)
		if dig(data, "createSubproject", "subproject", "child", "urls", "documentation") != "https://docs.example.com/docs/pub/projects/lib/en/latest/" {
			t.Errorf("subproject = %v", data)
		}
		fails(`mutation { createSubproject(input: {project: "pub", child: "child"}) { subproject { alias } errors { path message code } } }`, nil, errs.Invalid,
			errs.Fields{"child": {"Child is already a subproject of another project"}})
		fails(`mutation { createSubproject(input: {project: "pub-es", child: "pub"}) { subproject { alias } errors { path message code } } }`, nil, errs.Invalid,
			errs.Fields{"child": {"Child is already a superproject"}})
		fails(`mutation { createSubproject(input: {project: "child", child: "pub-es"}) { subproject { alias } errors { path message code } } }`, nil, errs.Invalid,
			errs.Fields{errs.NonField: {"Subproject nesting is not supported"}})
		fails(`mutation { createSubproject(input: {project: "pub", child: "pub-es", alias: "lib"}) { subproject { alias } errors { path message code } } }`, nil, errs.Invalid,
			errs.Fields{"alias": {"A subproject with this alias already exists"}})
		data = ok(`{ project(slug: "pub") { subprojects { totalCount } subproject(alias: "lib") { child { slug } } } }`, nil)
		if dig(data, "project", "subprojects", "totalCount") != float64(1) {
			t.Errorf("subprojects = %v", data)
		}
		ok(`mutation { deleteSubproject(input: {project: "pub", alias: "lib"}) { deletedId errors { path message code } } }`, nil)
		fails(`mutation { deleteSubproject(input: {project: "pub", alias: "lib"}) { deletedId errors { path message code } } }`, nil, errs.NotFound, nil)

		// Redirects, with the per-type requirements.
		fails(`mutation { createRedirect(input: {project: "pub", type: page}) { redirect { id } errors { path message code } } }`, nil, errs.Invalid,
			errs.Fields{"from_url": {"This field is required."}, "to_url": {"This field is required."}})
		fails(`mutation { createRedirect(input: {project: "pub", type: page, fromUrl: "", toUrl: "/b"}) { redirect { id } errors { path message code } } }`, nil, errs.Invalid,
			errs.Fields{"from_url": {"This field may not be blank."}})
		fails(`mutation { createRedirect(input: {project: "pub", type: null}) { redirect { id } errors { path message code } } }`, nil, errs.Invalid, errs.Fields{"type": {"This field may not be null."}})
		data = ok(`mutation { createRedirect(input: {project: "pub", type: prefix, fromUrl: "/dev/"}) { redirect { id: databaseId type fromUrl toUrl httpStatus } errors { path message code } } }`, nil)
		id := int64(dig(data, "createRedirect", "redirect", "id").(float64))
		if dig(data, "createRedirect", "redirect", "toUrl") != "" || dig(data, "createRedirect", "redirect", "httpStatus") != float64(302) {
			t.Errorf("redirect = %v", data)
		}
		data = ok(`mutation($id: ID!) { updateRedirect(input: {project: "pub", id: $id, type: exact, toUrl: "/x/"}) { redirect { type fromUrl toUrl } errors { path message code } } }`, map[string]any{"id": id})
		if dig(data, "updateRedirect", "redirect", "fromUrl") != "/dev/" || dig(data, "updateRedirect", "redirect", "toUrl") != "/x/" {
			t.Errorf("patched redirect = %v", data)
		}
		fails(`mutation($id: ID!) { updateRedirect(input: {project: "pub", id: $id, replace: true, toUrl: "/y/"}) { redirect { type } errors { path message code } } }`, map[string]any{"id": id}, errs.Invalid,
			errs.Fields{"type": {"This field is required."}})
		ok(`mutation($id: ID!) { deleteRedirect(input: {project: "pub", id: $id}) { deletedId errors { path message code } } }`, map[string]any{"id": id})
		fails(`mutation($id: ID!) { deleteRedirect(input: {project: "priv", id: $id}) { deletedId errors { path message code } } }`, map[string]any{"id": id}, errs.NotFound, nil)

		// Environment variables: the value is write-only.
		for name, msg := range map[string]string{
			"__X": "Variable name can't start with __ (double underscore)", "READTHEDOCS_X": "Variable name can't start with READTHEDOCS",
			"SECRET": "There is already a variable with this name for this project", "A B": "Variable name can't contain spaces",
			"A-B": "Only letters, numbers and underscore are allowed",
		} {
			fails(`mutation($n: String!) { createEnvironmentVariable(input: {project: "pub", name: $n, value: "v"}) { environmentVariable { id } errors { path message code } } }`, map[string]any{"n": name}, errs.Invalid, errs.Fields{"name": {msg}})
		}
		data = ok(`mutation { createEnvironmentVariable(input: {project: "pub", name: "TOKEN", value: "abcd"}) { environmentVariable { id: databaseId name project { slug } } errors { path message code } } }`, nil)
		evID := int64(dig(data, "createEnvironmentVariable", "environmentVariable", "id").(float64))
		ok(`mutation($id: ID!) { deleteEnvironmentVariable(input: {project: "pub", id: $id}) { deletedId errors { path message code } } }`, map[string]any{"id": evID})
		if _, err := e.do(alice, `{ project(slug: "pub") { environmentVariables { nodes { value } } } }`, nil); err == nil || !strings.Contains(err.Error(), "value") {
			t.Errorf("querying a variable's value must be impossible, got %v", err)
		}

		// Maintainers, privacy, integrations, delete.
		data = ok(`mutation { addMaintainer(input: {slug: "pub", username: "bob"}) { project { users { username } } errors { path message code } } }`, nil)
		if len(dig(data, "addMaintainer", "project", "users").([]any)) != 2 {
			t.Errorf("users = %v", data)
		}
		// Adding a maintainer twice is a Conflict saying so, not the database's words.
		if _, err := e.do(alice, `mutation { addMaintainer(input: {slug: "pub", username: "bob"}) { project { slug } errors { path message code } } }`, nil); !errs.Is(err, errs.Conflict) ||
			!strings.Contains(err.Error(), "The user is already a maintainer of this project.") || strings.Contains(strings.ToLower(err.Error()), "constraint") {
			t.Errorf("adding a maintainer twice: %v, want Conflict %q", err, "The user is already a maintainer of this project.")
		}
		ok(`mutation { removeMaintainer(input: {slug: "pub", username: "bob"}) { project { slug } errors { path message code } } }`, nil)
		fails(`mutation { removeMaintainer(input: {slug: "pub", username: "alice"}) { project { slug } errors { path message code } } }`, nil, errs.Conflict, nil)
		data = ok(`mutation { setProjectPrivacy(input: {slug: "pub", privacyLevel: private}) { project { privacyLevel } errors { path message code } } }`, nil)
		if dig(data, "setProjectPrivacy", "project", "privacyLevel") != "private" {
			t.Errorf("privacy = %v", data)
		}
		data = ok(`mutation { createIntegration(input: {project: "pub", type: api_webhook}) { integration { id type secret } errors { path message code } } }`, nil)
		inID := int64(dig(data, "createIntegration", "integration", "id").(float64))
		ok(`mutation($id: ID!) { deleteIntegration(input: {project: "pub", id: $id}) { deletedId errors { path message code } } }`, map[string]any{"id": inID})
		ok(`mutation { deleteProject(input: {slug: "child"}) { deletedId errors { path message code } } }`, nil)
		fails(`{ project(slug: "child") { slug } }`, nil, errs.NotFound, nil)
	})
}

// TestVersionFields checks computed version fields: ref on stable, vcs URLs,
// downloads of a subproject child.
func TestVersionFields(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d)
		ctx := context.Background()
		e.importProject("alice", "demo")
		p, _ := e.store.FindProjectBySlug(ctx, "demo")
		for _, v := range []store.Version{
			{Slug: "1.0", VerboseName: "1.0", Type: store.Tag, Identifier: "a1"},
			{Slug: "1.1", VerboseName: "1.1", Type: store.Tag, Identifier: "a2"},
			{Slug: "2.0b1", VerboseName: "2.0b1", Type: store.Tag, Identifier: "a3"},
			{Slug: "stable", VerboseName: "stable", Type: store.Tag, Identifier: "a2", Machine: true, Active: true},
			{Slug: "bb", VerboseName: "bb", Type: store.Branch, Identifier: "origin/bb"},
		} {
			v.ProjectID = p.ID
			if _, err := e.store.CreateVersion(ctx, &v); err != nil {
				t.Fatal(err)
			}
		}
		data := e.must(e.as("alice"), `{ project(slug: "demo") { versions(limit: 100) { nodes { slug ref urls { vcs documentation } } } } }`, nil)
		got := map[string][2]any{}
		for _, n := range dig(data, "project", "versions", "nodes").([]any) {
			got[dig(n, "slug").(string)] = [2]any{dig(n, "ref"), dig(n, "urls", "vcs")}
		}
		want := map[string][2]any{
			"stable": {"1.1", "https://github.com/rtfd/x/tree/1.1/"},
			"latest": {nil, "https://github.com/rtfd/x/tree/master/"},
			"1.0":    {nil, "https://github.com/rtfd/x/tree/1.0/"},
			"1.1":    {nil, "https://github.com/rtfd/x/tree/1.1/"},
			"2.0b1":  {nil, "https://github.com/rtfd/x/tree/2.0b1/"},
			"bb":     {nil, "https://github.com/rtfd/x/tree/bb/"},
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("ref and vcs:\n got %v\nwant %v", got, want)
		}
	})
}

// TestErrorsReachCallers checks the GraphQL side of the error vocabulary:
// codes in extensions and kinds recoverable with errors.As.
func TestErrorsReachCallers(t *testing.T) {
	e := newEnv(t, store.SQLite)
	resp := e.exec.Run(e.as("bob"), `{ project(slug: "missing") { slug } }`, nil)
	if len(resp.Errors) != 1 || resp.Errors[0].Extensions["code"] != "NOT_FOUND" || resp.Errors[0].Message != "Not found." {
		t.Fatalf("errors = %v", resp.Errors)
	}
	var e2 *errs.Error
	if err := graph.ResponseError(resp); !errors.As(err, &e2) || e2.Kind != errs.NotFound {
		t.Errorf("ResponseError = %v, want a NotFound *errs.Error", err)
	}
	var raw map[string]any
	json.Unmarshal(resp.Data, &raw)
	if v, ok := raw["project"]; !ok || v != nil {
		t.Errorf("data = %s, want project: null", resp.Data)
	}
	// An invalid operation is not a client error of the API: Internal.
	if err := e.exec.Do(e.as("bob"), `{ nope }`, nil, nil); errs.KindOf(err) != errs.Internal {
		t.Errorf("bad operation kind = %s", kind(err))
	}
}

// TestUnstorableText checks that NUL characters and lookups by them are
// client errors on both dialects, never a server failure.
func TestUnstorableText(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d)
		_, err := e.do(e.as("alice"), `mutation($n: String!) { importProject(input: {name: $n, repository: {url: "https://a.org/b", type: git}}) { project { slug } errors { path message code } } }`,
			map[string]any{"n": "a\x00b"})
		if got := errs.FieldsOf(err); !reflect.DeepEqual(got, errs.Fields{"name": {"Null characters are not allowed."}}) {
			t.Errorf("NUL in a name: %v", err)
		}
		for _, q := range []string{`{ project(slug: "a\u0000b") { slug } }`, `{ projects(filter: {slug: "a\u0000b"}) { totalCount } }`} {
			if _, err := e.do(e.as("alice"), q, nil); err != nil && !errs.Is(err, errs.NotFound) {
				t.Errorf("%s: %v, want NOT_FOUND or nothing", q, err)
			}
		}
	})
}

// TestLookupsByID checks the v2-style lookups by id: public
// versions of public projects and their builds only, for anonymous callers.
func TestLookupsByID(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d)
		e.fixture()
		ctx := context.Background()
		ids := map[string]int64{}
		for _, p := range []string{"pub", "priv"} {
			proj, _ := e.store.FindProjectBySlug(ctx, p)
			for _, v := range []string{"v1.0", "secret"} {
				ver, err := e.store.FindVersionBySlug(ctx, proj.ID, v)
				if err != nil {
					t.Fatal(err)
				}
				ids[p+"/"+v] = ver.ID
				builds, _, _ := e.store.FindBuilds(ctx, store.BuildFilter{VersionID: &ver.ID})
				if len(builds) > 0 {
					ids[p+"/"+v+"/build"] = builds[0].ID
				}
			}
		}
		for _, tc := range []struct {
			key, query string
			want       map[string]string
		}{
			{"pub/v1.0", `query($id: ID!) { version(id: $id) { slug } }`, map[string]string{"": "ok", "bob": "ok", "alice": "ok"}},
			{"pub/secret", `query($id: ID!) { version(id: $id) { slug } }`, map[string]string{"": "NOT_FOUND", "bob": "NOT_FOUND", "alice": "ok"}},
			{"priv/v1.0", `query($id: ID!) { version(id: $id) { slug } }`, map[string]string{"": "NOT_FOUND", "bob": "NOT_FOUND", "alice": "ok", "root": "ok"}},
			{"pub/v1.0/build", `query($id: ID!) { build(id: $id) { id docsUrl commitUrl commands { id } } }`, map[string]string{"": "ok", "bob": "ok"}},
			{"priv/v1.0/build", `query($id: ID!) { build(id: $id) { id } }`, map[string]string{"": "NOT_FOUND", "bob": "NOT_FOUND", "alice": "ok"}},
		} {
			id, ok := ids[tc.key]
			if !ok {
				t.Fatalf("fixture has no %s", tc.key)
			}
			for caller, want := range tc.want {
				if _, err := e.do(e.as(caller), tc.query, map[string]any{"id": id}); kind(err) != want {
					t.Errorf("%s as %q: %s (%v), want %s", tc.key, caller, kind(err), err, want)
				}
			}
		}
		data := e.must(e.as(""), `query($id: ID!) { build(id: $id) { docsUrl commitUrl } }`, map[string]any{"id": ids["pub/v1.0/build"]})
		if dig(data, "build", "docsUrl") != "https://docs.example.com/docs/pub/en/v1.0/" || dig(data, "build", "commitUrl") != "https://github.com/rtfd/x/commit/abc" {
			t.Errorf("build URLs = %v", data)
		}
	})
}

// TestDefaultBranchIsABranchName checks that default_branch, which builds
// hand to git, can't be an option or an invalid ref.
func TestDefaultBranchIsABranchName(t *testing.T) {
	e := newEnv(t, store.SQLite)
	e.importProject("alice", "demo")
	for name, ok := range map[string]bool{
		"main": true, "release/1.x": true, "feature-é": true, "v1.0": true,
		"--pathspec-from-file=/etc/hostname": false, "-x": false, "a b": false, "a..b": false, "a~1": false,
		"a:b": false, "x.lock": false, "a/.hidden": false, "a//b": false, "@{u}": false, "dir/": false,
	} {
		_, err := e.do(e.as("alice"), `mutation($b: String) { updateProject(input: {slug: "demo", defaultBranch: $b}) { project { defaultBranch } errors { path message code } } }`, map[string]any{"b": name})
		if ok && err != nil {
			t.Errorf("%q refused: %v", name, err)
		}
		if !ok && !reflect.DeepEqual(errs.FieldsOf(err), errs.Fields{"default_branch": {"Enter a valid branch name."}}) {
			t.Errorf("%q: %v, want a default_branch field error", name, err)
		}
	}
}

// TestSubprojectsListVisibleChildren checks that a relationship whose child
// the caller can't see is not listed (nor counted) for non-maintainers.
func TestSubprojectsListVisibleChildren(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d)
		for _, name := range []string{"demo", "open", "hidden"} {
			e.importProject("alice", name)
		}
		for _, child := range []string{"open", "hidden"} {
			e.must(e.as("alice"), `mutation($c: String!) { createSubproject(input: {project: "demo", child: $c}) { subproject { alias } errors { path message code } } }`, map[string]any{"c": child})
		}
		e.must(e.as("alice"), `mutation { setProjectPrivacy(input: {slug: "hidden", privacyLevel: private}) { project { slug } errors { path message code } } }`, nil)
		for caller, want := range map[string]float64{"": 1, "bob": 1, "alice": 2, "root": 2} {
			data := e.must(e.as(caller), `{ project(slug: "demo") { subprojects { totalCount nodes { alias } } } }`, nil)
			if got := dig(data, "project", "subprojects", "totalCount"); got != want {
				t.Errorf("%q sees %v subprojects, want %v: %v", caller, got, want, data)
			}
		}
	})
}

// TestPayloadErrorsReachCallers: a mutation payload's UserErrors come back
// from ResponseError as the Invalid or Conflict error they were made from,
// with snake_case field keys, so REST and the dashboard read them as before.
func TestPayloadErrorsReachCallers(t *testing.T) {
	tests := []struct {
		name   string
		data   string
		kind   errs.Kind
		fields errs.Fields
	}{
		{"no errors", `{"createRedirect":{"redirect":{"id":"x"},"errors":[]}}`, errs.Internal, nil},
		{"null payload", `{"createRedirect":null}`, errs.Internal, nil},
		{"query data", `{"project":{"slug":"p"}}`, errs.Internal, nil},
		{"invalid", `{"createRedirect":{"redirect":null,"errors":[{"path":["input","toUrl"],"message":"Bad.","code":"INVALID"},{"path":["input"],"message":"Whole.","code":"INVALID"}]}}`,
			errs.Invalid, errs.Fields{"to_url": {"Bad."}, errs.NonField: {"Whole."}}},
		{"conflict, nested", `{"x":{"errors":[{"message":"Taken.","code":"CONFLICT","path":["input","repository","url"]}]}}`,
			errs.Conflict, errs.Fields{"repository.url": {"Taken."}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := graph.ResponseError(&graphql.Response{Data: json.RawMessage(tt.data)})
			if tt.fields == nil {
				if err != nil {
					t.Fatalf("ResponseError = %v, want nil", err)
				}
				return
			}
			if errs.KindOf(err) != tt.kind || !reflect.DeepEqual(errs.FieldsOf(err), tt.fields) {
				t.Errorf("ResponseError = %v (fields %v), want %v %v", err, errs.FieldsOf(err), tt.kind, tt.fields)
			}
		})
	}
}
