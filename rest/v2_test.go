package rest_test

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
	"docsd/rest"
	"docsd/store"
)

// v2UpdateGoldens reports whether -update was given.
func v2UpdateGoldens() bool { return *rest.UpdateGoldens }

const v2PublicURL = "https://docs.example.com"

// v2Fixture is what the v2 tests' store holds: public and non-public
// projects, versions of every privacy and type, builds in several states.
// Everything whose name contains "private" or "protected" must never show
// through v2.
type v2Fixture struct {
	aliceKey string // a maintainer of the private project
}

const (
	v2SHA1 = "3f0c5e8a9b1d2c4e6f7a8b9c0d1e2f3a4b5c6d7e"
	v2SHA2 = "9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b"
	v2SHA3 = "0123456789abcdef0123456789abcdef01234567"
)

func v2Ptr[T any](v T) *T { return &v }

// v2Seed fills s with the fixture on a clock that starts at
// 2019-04-29T10:00:00Z and moves only when told, so ids and times are the
// same on both dialects.
func v2Seed(t *testing.T, s *store.Store) v2Fixture {
	t.Helper()
	ctx := t.Context()
	clock := storetest.SetClock(s, time.Date(2019, 4, 29, 10, 0, 0, 0, time.UTC))
	ok := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	check := func(_ any, err error) {
		t.Helper()
		ok(err)
	}
	alice, aliceKey := storetest.MustUser(t, s, "alice")
	bob, _ := storetest.MustUser(t, s, "bob")

	// Projects (each import makes `latest` and a triggered build of it).
	demo := storetest.MustImport(t, s, alice, "Demo", "https://github.com/rtfd/demo")
	ok(s.AddMaintainer(ctx, demo.Project.ID, bob.ID))
	check(s.UpdateProject(ctx, demo.Project.ID, store.ProjectUpdate{
		Description: v2Ptr("Docs for <Demo> & friends"), ProgrammingLanguage: v2Ptr("py"),
	}))
	clock.Advance(time.Minute)
	private := storetest.MustImport(t, s, alice, "Private Project", "https://github.com/rtfd/private-project")
	check(s.UpdateProject(ctx, private.Project.ID, store.ProjectUpdate{PrivacyLevel: v2Ptr(store.Private)}))
	clock.Advance(time.Minute)
	another := storetest.MustImport(t, s, bob, "Another", "https://gitlab.com/bob/another.git")
	check(s.UpdateProject(ctx, another.Project.ID, store.ProjectUpdate{
		DefaultBranch: v2Ptr("main"), DocumentationType: v2Ptr("mkdocs"), Language: v2Ptr("es"),
	}))

	// Versions of every privacy level and type.
	version := func(p *store.Project, v store.Version) *store.Version {
		v.ProjectID = p.ID
		if v.Slug == "" {
			v.Slug = v.VerboseName
		}
		if v.Identifier == "" {
			v.Identifier = v.VerboseName
		}
		out, err := s.CreateVersion(ctx, &v)
		check(out, err)
		return out
	}
	v10 := version(demo.Project, store.Version{VerboseName: "v1.0", Identifier: v2SHA1, Type: store.Tag, Active: true, Built: true,
		PrivacyLevel: store.Public, HasPDF: true, HasHTMLZip: true})
	v20 := version(demo.Project, store.Version{VerboseName: "v2.0", Type: store.Tag, Active: true, PrivacyLevel: store.Public})
	version(demo.Project, store.Version{VerboseName: "old", Type: store.Branch, PrivacyLevel: store.Public})
	privateBranch := version(demo.Project, store.Version{VerboseName: "private-branch", Type: store.Branch, Active: true, Built: true,
		PrivacyLevel: store.Private})
	version(demo.Project, store.Version{VerboseName: "protected-branch", Type: store.Branch, Active: true, PrivacyLevel: store.Protected})
	pr := version(demo.Project, store.Version{VerboseName: "42", Identifier: v2SHA2, Type: store.External, Active: true, Built: true,
		PrivacyLevel: store.Public})
	another10 := version(another.Project, store.Version{VerboseName: "1.0", Type: store.Tag, Active: true, Built: true,
		PrivacyLevel: store.Public, HasEPUB: true})

	// Builds. The imports' builds are claimed first (oldest first).
	claim := func(wantID int64) *store.Build {
		t.Helper()
		b, err := s.ClaimBuild(ctx, "builder-1", time.Hour)
		check(b, err)
		if b.ID != wantID {
			t.Fatalf("claimed build %d, want %d", b.ID, wantID)
		}
		return b
	}
	command := func(b *store.Build, cmd, output string, exit int, run time.Duration) {
		t.Helper()
		start := clock.Now()
		end := clock.Advance(run)
		check(s.AddBuildCommand(ctx, store.BuildCommand{BuildID: b.ID, Command: cmd, Output: output,
			ExitCode: v2Ptr(exit), StartTime: start, EndTime: &end}))
	}
	newBuild := func(v *store.Version, commit *string) *store.Build {
		t.Helper()
		b, err := s.CreateBuild(ctx, v, commit)
		check(b, err)
		return b
	}
	finish := func(b *store.Build, r store.BuildResult) {
		t.Helper()
		check(s.FinishBuild(ctx, b.ID, r))
	}

	// demo latest: finished, successful, with commands, config and
	// microseconds in its times.
	clock.Advance(time.Hour + 1120*time.Millisecond)
	b := claim(demo.Build.ID)
	command(b, "git clone --no-single-branch --depth 50 https://github.com/rtfd/demo .", "Cloning into '.'...\n", 0, 2380*time.Millisecond)
	ok(s.SetBuildCommit(ctx, b.ID, v2SHA1))
	ok(s.SetBuildConfig(ctx, b.ID, `{"version":"2","formats":["htmlzip","pdf"],"python":{"version":3.70,"install":[],`+
		`"use_system_site_packages":false},"conda":null,"build":{"image":"readthedocs/build:latest"},"doctype":"sphinx","note":"<b>&</b>"}`))
	ok(s.SetBuildState(ctx, b.ID, store.Installing))
	command(b, "python -m virtualenv .venv", "", 0, 1500*time.Millisecond)
	ok(s.SetBuildState(ctx, b.ID, store.Building))
	command(b, "python -m sphinx -T -b html . _build/html", "build succeeded.\n", 0, 56*time.Second)
	clock.Advance(512 * time.Millisecond)
	finish(b, store.BuildResult{Success: true, ExitCode: v2Ptr(0)})

	// The private project's latest: public version, private project.
	clock.Advance(time.Minute)
	b = claim(private.Build.ID)
	ok(s.SetBuildCommit(ctx, b.ID, v2SHA3))
	clock.Advance(30 * time.Second)
	finish(b, store.BuildResult{Success: true, ExitCode: v2Ptr(0)})

	// another latest: failed.
	clock.Advance(time.Minute)
	b = claim(another.Build.ID)
	ok(s.SetBuildCommit(ctx, b.ID, v2SHA2))
	command(b, "git clone --no-single-branch --depth 50 https://gitlab.com/bob/another.git .", "fatal: <nope> & more\n", 128, 3*time.Second)
	finish(b, store.BuildResult{Error: "Failed to clone <repo> & friends", ExitCode: v2Ptr(128)})

	// demo v1.0: finished, no commands.
	clock.Advance(time.Minute)
	b = newBuild(v10, nil)
	claim(b.ID)
	ok(s.SetBuildCommit(ctx, b.ID, v2SHA1))
	clock.Advance(45 * time.Second)
	finish(b, store.BuildResult{Success: true, ExitCode: v2Ptr(0)})

	// demo private-branch: must never show.
	clock.Advance(time.Minute)
	b = newBuild(privateBranch, nil)
	claim(b.ID)
	ok(s.SetBuildCommit(ctx, b.ID, v2SHA3))
	finish(b, store.BuildResult{Success: true, ExitCode: v2Ptr(0)})

	// demo pull request 42: external, with its commit from the start.
	clock.Advance(time.Minute)
	b = newBuild(pr, v2Ptr(v2SHA2))
	claim(b.ID)
	clock.Advance(20 * time.Second)
	finish(b, store.BuildResult{Success: true, ExitCode: v2Ptr(0)})

	// demo v2.0: still building.
	clock.Advance(time.Minute)
	b = newBuild(v20, nil)
	claim(b.ID)
	command(b, "git clone --no-single-branch --depth 50 https://github.com/rtfd/demo .", "", 0, 2*time.Second)
	clock.Advance(10 * time.Second)
	ok(s.SetBuildState(ctx, b.ID, store.Building))

	// another 1.0: triggered, never claimed.
	clock.Advance(time.Minute)
	newBuild(another10, nil)

	// Projects whose docs URLs the resolver nests:
	// a subproject, a translation, a single-version project; demo's default
	// version becomes v1.0.
	clock.Advance(time.Minute)
	lib := storetest.MustImport(t, s, bob, "Lib", "https://bitbucket.org/bob/lib.git")
	check(s.CreateRelationship(ctx, demo.Project.ID, lib.Project.ID, "library"))
	ok(s.SetBuildCommit(ctx, lib.Build.ID, v2SHA1)) // a Bitbucket commit_url
	version(lib.Project, store.Version{VerboseName: "1.0", Type: store.Tag, Active: true, Built: true,
		PrivacyLevel: store.Public, HasPDF: true, HasEPUB: true, HasHTMLZip: true})
	clock.Advance(time.Minute)
	demoES := storetest.MustImport(t, s, alice, "Demo ES", "https://github.com/rtfd/demo-es")
	check(s.UpdateProject(ctx, demoES.Project.ID, store.ProjectUpdate{Language: v2Ptr("es")}))
	ok(s.SetTranslationOf(ctx, demoES.Project.ID, &demo.Project.ID))
	clock.Advance(time.Minute)
	one := storetest.MustImport(t, s, alice, "One", "https://example.org/one.git")
	check(s.UpdateProject(ctx, one.Project.ID, store.ProjectUpdate{SingleVersion: v2Ptr(true)}))
	check(s.UpdateProject(ctx, demo.Project.ID, store.ProjectUpdate{DefaultVersion: v2Ptr("v1.0")}))
	return v2Fixture{aliceKey: aliceKey}
}

// v2Case is one request and the golden file its response must match.
type v2Case struct {
	golden string // file name under testdata/v2, without .json
	method string
	path   string
	header http.Header
}

func v2Get(golden, path string) v2Case {
	return v2Case{golden: golden, method: http.MethodGet, path: path}
}

var v2Cases = []v2Case{
	// Projects.
	v2Get("project_list", "/api/v2/project/"),
	v2Get("project_list_slug", "/api/v2/project/?slug=demo"),
	v2Get("project_list_slug_private", "/api/v2/project/?slug=private-project"),
	v2Get("project_list_slug_unknown", "/api/v2/project/?slug=nope"),
	v2Get("project_list_slug_empty", "/api/v2/project/?slug="),
	v2Get("project_list_limit_huge", "/api/v2/project/?limit=99999999999999999999&offset=1"),
	v2Get("project_list_offset_huge", "/api/v2/project/?offset=99999999999999999999"),
	v2Get("project_list_offset_near_max", "/api/v2/project/?offset=9223372036854775800"),
	v2Get("project_detail", "/api/v2/project/1/"),
	v2Get("project_detail_another", "/api/v2/project/3/"),
	v2Get("project_detail_private", "/api/v2/project/2/"),
	v2Get("project_detail_unknown", "/api/v2/project/999/"),
	v2Get("project_detail_huge_id", "/api/v2/project/99999999999999/"),
	v2Get("project_detail_overflow_id", "/api/v2/project/99999999999999999999999/"),
	v2Get("project_detail_non_numeric", "/api/v2/project/demo/"),
	v2Get("project_detail_negative", "/api/v2/project/-1/"),
	v2Get("project_detail_subproject", "/api/v2/project/4/"),
	v2Get("project_detail_translation", "/api/v2/project/5/"),
	v2Get("project_detail_single_version", "/api/v2/project/6/"),
	v2Get("project_active_versions", "/api/v2/project/1/active_versions/"),
	v2Get("project_active_versions_another", "/api/v2/project/3/active_versions/"),
	v2Get("project_active_versions_private", "/api/v2/project/2/active_versions/"),
	v2Get("project_active_versions_unknown", "/api/v2/project/999/active_versions/"),
	v2Get("project_active_versions_non_numeric", "/api/v2/project/demo/active_versions/"),

	// Versions.
	v2Get("version_list", "/api/v2/version/"),
	v2Get("version_list_project", "/api/v2/version/?project__slug=demo"),
	v2Get("version_list_project_private", "/api/v2/version/?project__slug=private-project"),
	v2Get("version_list_active_true", "/api/v2/version/?project__slug=demo&active=true"),
	v2Get("version_list_active_false", "/api/v2/version/?project__slug=demo&active=FALSE"),
	v2Get("version_list_active_1", "/api/v2/version/?project__slug=demo&active=1"),
	v2Get("version_list_active_0", "/api/v2/version/?project__slug=demo&active=0"),
	v2Get("version_list_project_invalid_utf8", "/api/v2/version/?project__slug=%FF"),
	v2Get("version_list_active_maybe", "/api/v2/version/?project__slug=demo&active=maybe"),
	v2Get("version_list_page_first", "/api/v2/version/?project__slug=demo&limit=1"),
	v2Get("version_list_page_middle", "/api/v2/version/?limit=2&offset=2&project__slug=demo"),
	v2Get("version_list_page_last", "/api/v2/version/?offset=3&limit=2&zzz=1&aaa=x+y&aaa=%2F&page=9&format=json&project__slug=demo"),
	v2Get("version_list_page_past_end", "/api/v2/version/?offset=50&limit=20"),
	v2Get("version_detail", "/api/v2/version/4/"),
	v2Get("version_detail_subproject", "/api/v2/version/12/"),
	v2Get("version_detail_external", "/api/v2/version/9/"),
	v2Get("version_detail_private", "/api/v2/version/7/"),
	v2Get("version_detail_protected", "/api/v2/version/8/"),
	v2Get("version_detail_of_private_project", "/api/v2/version/2/"),
	v2Get("version_detail_unknown", "/api/v2/version/999/"),
	v2Get("version_detail_non_numeric", "/api/v2/version/v1.0/"),

	// Builds.
	v2Get("build_list", "/api/v2/build/"),
	v2Get("build_list_project", "/api/v2/build/?project__slug=another"),
	v2Get("build_list_project_private", "/api/v2/build/?project__slug=private-project"),
	v2Get("build_list_commit", "/api/v2/build/?commit="+v2SHA1),
	v2Get("build_list_commit_private", "/api/v2/build/?commit="+v2SHA3),
	v2Get("build_list_commit_nul", "/api/v2/build/?commit=%00"),
	v2Get("build_list_commit_unknown", "/api/v2/build/?commit=deadbeef"),
	v2Get("build_list_limit_clamped", "/api/v2/build/?limit=500"),
	v2Get("build_list_limit_invalid", "/api/v2/build/?limit=abc&offset=-3"),
	v2Get("build_list_limit_zero", "/api/v2/build/?limit=0&offset=x"),
	v2Get("build_list_page_second", "/api/v2/build/?limit=4&offset=4"),
	v2Get("build_detail_finished", "/api/v2/build/1/"),
	v2Get("build_detail_failed", "/api/v2/build/3/"),
	v2Get("build_detail_no_commands", "/api/v2/build/4/"),
	v2Get("build_detail_external", "/api/v2/build/6/"),
	v2Get("build_detail_running", "/api/v2/build/7/"),
	v2Get("build_detail_triggered", "/api/v2/build/8/"),
	v2Get("build_detail_subproject", "/api/v2/build/9/"),
	v2Get("build_detail_translation", "/api/v2/build/10/"),
	v2Get("build_detail_single_version", "/api/v2/build/11/"),
	v2Get("build_detail_of_private_project", "/api/v2/build/2/"),
	v2Get("build_detail_of_private_version", "/api/v2/build/5/"),
	v2Get("build_detail_unknown", "/api/v2/build/999/"),
	v2Get("build_detail_non_numeric", "/api/v2/build/abc/"),
	// The raw log's errors stay JSON; its 200 text
	// bodies are checked by TestV2BuildLog.
	v2Get("build_txt_of_private_project", "/api/v2/build/2.txt"),
	v2Get("build_txt_of_private_version", "/api/v2/build/5.txt/"),
	v2Get("build_txt_unknown", "/api/v2/build/999.txt"),
	v2Get("build_txt_non_numeric", "/api/v2/build/abc.txt"),
	v2Get("build_format_txt_unknown", "/api/v2/build/999/?format=txt"),
	{golden: "build_txt_post", method: http.MethodPost, path: "/api/v2/build/1.txt"},

	// format.
	v2Get("format_json", "/api/v2/project/1/?format=json"),
	v2Get("format_other", "/api/v2/project/1/?format=api"),
	v2Get("format_other_list", "/api/v2/build/?format=xml"),

	// Undocumented paths.
	v2Get("undocumented_root", "/api/v2/"),
	v2Get("undocumented_search", "/api/v2/search/?q=demo&project=demo&version=latest"),
	v2Get("undocumented_footer_html", "/api/v2/footer_html/?project=demo&version=latest"),
	v2Get("undocumented_footer_html_no_slash", "/api/v2/footer_html"),
	v2Get("undocumented_sustainability", "/api/v2/sustainability/"),
	v2Get("undocumented_translations", "/api/v2/project/1/translations/"),
	v2Get("undocumented_subprojects", "/api/v2/project/1/subprojects/"),
	v2Get("undocumented_canonical_url", "/api/v2/project/1/canonical_url/"),
	v2Get("undocumented_version_slug_route", "/api/v2/version/1/builds/"),
	v2Get("undocumented_unknown", "/api/v2/nothing/"),

	// Trailing slashes.
	v2Get("slash_list", "/api/v2/project?slug=demo&limit=5"),
	v2Get("slash_detail", "/api/v2/build/1"),
	v2Get("slash_action", "/api/v2/project/1/active_versions"),
	{golden: "slash_head", method: http.MethodHead, path: "/api/v2/version"},
	{golden: "slash_post", method: http.MethodPost, path: "/api/v2/project"},
	{golden: "slash_delete", method: http.MethodDelete, path: "/api/v2/build/1"},
	{golden: "slash_post_unknown", method: http.MethodPost, path: "/api/v2/nothing"},

	// Methods.
	{golden: "method_post_list", method: http.MethodPost, path: "/api/v2/project/"},
	{golden: "method_put_detail", method: http.MethodPut, path: "/api/v2/version/4/"},
	{golden: "method_patch_detail", method: http.MethodPatch, path: "/api/v2/project/1/"},
	{golden: "method_delete_detail", method: http.MethodDelete, path: "/api/v2/build/1/"},
	{golden: "method_delete_unknown", method: http.MethodDelete, path: "/api/v2/build/999/"},
	{golden: "method_post_action", method: http.MethodPost, path: "/api/v2/project/1/active_versions/"},
	{golden: "method_post_with_token", method: http.MethodPost, path: "/api/v2/build/",
		header: http.Header{"Authorization": {"Token {alice}"}}},
	{golden: "method_head_detail", method: http.MethodHead, path: "/api/v2/project/1/"},
	{golden: "method_head_unknown", method: http.MethodHead, path: "/api/v2/project/999/"},
	{golden: "method_options_list", method: http.MethodOptions, path: "/api/v2/project/"},
	{golden: "method_options_detail", method: http.MethodOptions, path: "/api/v2/build/abc/"},
	{golden: "method_options_action", method: http.MethodOptions, path: "/api/v2/project/1/active_versions/"},

	// Credentials change nothing: a maintainer of the private project still
	// sees public data only, and a bad token is not an error.
	v2WithToken("project_list", "/api/v2/project/", "{alice}"),
	v2WithToken("project_detail_private", "/api/v2/project/2/", "{alice}"),
	v2WithToken("build_list", "/api/v2/build/", "{alice}"),
	v2WithToken("version_detail_private", "/api/v2/version/7/", "{alice}"),
	v2WithToken("project_detail", "/api/v2/project/1/", "nope"),
	v2WithToken("project_detail", "/api/v2/project/1/", "a b c"),
}

// v2WithToken is a GET sent with `Authorization: Token <key>`, where
// `{alice}` stands for the key of a maintainer of the private project. Its
// golden is the one of the same request without credentials.
func v2WithToken(golden, path, key string) v2Case {
	c := v2Get(golden, path)
	c.header = http.Header{"Authorization": {"Token " + key}}
	return c
}

// v2Server serves the REST API over a seeded store of dialect d, with the
// operator's max_page_size (0: the default).
func v2Server(t *testing.T, d store.Dialect, maxPageSize int) (*httptest.Server, v2Fixture) {
	t.Helper()
	s := storetest.Open(t, d)
	fx := v2Seed(t, s)
	exec := graph.NewExecutor(&graph.Resolver{Store: s, Settings: graph.Settings{
		URLs: docsurl.Config{PublicURL: v2PublicURL}, MaxPageSize: maxPageSize,
	}})
	srv := httptest.NewServer(rest.New(exec, rest.Config{PublicURL: v2PublicURL, MaxPageSize: maxPageSize}))
	t.Cleanup(srv.Close)
	return srv, fx
}

// v2Do sends a request without following redirects.
func v2Do(t *testing.T, srv *httptest.Server, method, path string, header http.Header) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// v2Headers are the response headers the goldens record.
var v2Headers = []string{"Allow", "Content-Type", "Location", "Vary", "WWW-Authenticate", "X-Frame-Options"}

// v2Document is a response as its golden file holds it: the body is kept
// with its keys in the order they were sent, indented for reading.
func v2Document(t *testing.T, c v2Case, resp *http.Response, body []byte) []byte {
	t.Helper()
	headers := map[string]string{}
	for _, h := range v2Headers {
		if v := resp.Header.Values(h); len(v) > 0 {
			headers[h] = strings.Join(v, " | ")
		}
	}
	doc := struct {
		Request string            `json:"request"`
		Status  int               `json:"status"`
		Headers map[string]string `json:"headers"`
		Body    json.RawMessage   `json:"body,omitempty"`
	}{c.method + " " + c.path, resp.StatusCode, headers, body}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		t.Fatalf("%s %s: body is not JSON: %v\n%s", c.method, c.path, err, body)
	}
	return buf.Bytes()
}

func TestV2(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		srv, fx := v2Server(t, d, 0)
		written := map[string]bool{}
		for _, c := range v2Cases {
			header := http.Header{}
			for k, vs := range c.header {
				for _, v := range vs {
					header.Add(k, strings.ReplaceAll(v, "{alice}", fx.aliceKey))
				}
			}
			resp, body := v2Do(t, srv, c.method, c.path, header)
			t.Run(c.golden, func(t *testing.T) {
				rest.RecordGolden(t, "v2/"+c.golden+".json", c.method, c.path, resp.StatusCode, resp.Header.Get("Content-Type"))
				v2CheckWire(t, c, resp, body)
				got := v2Document(t, c, resp, body)
				path := filepath.Join("testdata", "v2", c.golden+".json")
				if v2UpdateGoldens() && d == store.SQLite && !written[c.golden] {
					written[c.golden] = true
					if err := os.WriteFile(path, got, 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run with -update to create it)", err)
				}
				// The request line may differ where only credentials differ.
				if gotBody, wantBody := v2StripRequest(got), v2StripRequest(want); !bytes.Equal(gotBody, wantBody) {
					t.Errorf("%s %s: response differs from %s\ngot:\n%s\nwant:\n%s", c.method, c.path, path, got, want)
				}
			})
		}
	})
}

// v2StripRequest drops the golden's request line, so that a request sent
// with credentials can be compared with the golden of the same request
// without them.
func v2StripRequest(doc []byte) []byte {
	var out [][]byte
	for _, line := range bytes.Split(doc, []byte("\n")) {
		if !bytes.HasPrefix(line, []byte(`  "request": `)) {
			out = append(out, line)
		}
	}
	return bytes.Join(out, []byte("\n"))
}

// v2CheckWire checks what the golden's indented form can't show: the body
// is compact (its bytes, key order included, are what the golden holds
// once indented), HEAD and 301 answers have no body, and nothing
// non-public leaks.
func v2CheckWire(t *testing.T, c v2Case, resp *http.Response, body []byte) {
	t.Helper()
	if c.method == http.MethodHead || resp.StatusCode == http.StatusMovedPermanently {
		if len(body) != 0 {
			t.Errorf("%s %s: body %q, want none", c.method, c.path, body)
		}
	} else {
		var compact bytes.Buffer
		if err := json.Compact(&compact, body); err != nil {
			t.Fatalf("%s %s: body is not JSON: %v\n%s", c.method, c.path, err, body)
		}
		if !bytes.Equal(compact.Bytes(), body) {
			t.Errorf("%s %s: body is not compact:\n%s", c.method, c.path, body)
		}
	}
	for _, leak := range []string{"private", "protected", v2SHA3} {
		if bytes.Contains(body, []byte(leak)) {
			t.Errorf("%s %s: body shows %q:\n%s", c.method, c.path, leak, body)
		}
	}
}

// TestV2HeadIsGetWithoutBody checks that HEAD answers every GET route with
// GET's status and headers.
func TestV2HeadIsGetWithoutBody(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		srv, _ := v2Server(t, d, 0)
		for _, c := range v2Cases {
			if c.method != http.MethodGet || c.header != nil {
				continue
			}
			getResp, _ := v2Do(t, srv, http.MethodGet, c.path, nil)
			headResp, body := v2Do(t, srv, http.MethodHead, c.path, nil)
			if got, want := headResp.StatusCode, getResp.StatusCode; got != want {
				t.Errorf("HEAD %s: status %d, want %d", c.path, got, want)
			}
			for _, h := range v2Headers {
				if got, want := headResp.Header.Get(h), getResp.Header.Get(h); got != want {
					t.Errorf("HEAD %s: %s %q, want %q", c.path, h, got, want)
				}
			}
			if len(body) != 0 {
				t.Errorf("HEAD %s: body %q, want none", c.path, body)
			}
		}
	})
}

// TestV2SmallMaxPageSize checks that limits are clamped to the operator's
// max_page_size in results and links, and that active_versions, which is
// not paginated, still lists every version when they span several of the
// graph's pages.
func TestV2SmallMaxPageSize(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		srv, _ := v2Server(t, d, 2)

		c := v2Get("project_active_versions", "/api/v2/project/1/active_versions/")
		resp, body := v2Do(t, srv, c.method, c.path, nil)
		rest.RecordGolden(t, "v2/"+c.golden+".json", c.method, c.path, resp.StatusCode, resp.Header.Get("Content-Type"))
		want, err := os.ReadFile(filepath.Join("testdata", "v2", c.golden+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if got := v2Document(t, c, resp, body); !bytes.Equal(got, want) {
			t.Errorf("GET %s with max_page_size 2:\n%s\nwant:\n%s", c.path, got, want)
		}

		_, body = v2Do(t, srv, http.MethodGet, "/api/v2/version/?project__slug=demo&limit=5", nil)
		var page struct {
			Count   int               `json:"count"`
			Next    *string           `json:"next"`
			Results []json.RawMessage `json:"results"`
		}
		if err := json.Unmarshal(body, &page); err != nil {
			t.Fatal(err)
		}
		wantNext := v2PublicURL + "/api/v2/version/?limit=2&offset=2&project__slug=demo"
		if page.Count != 5 || len(page.Results) != 2 || page.Next == nil || *page.Next != wantNext {
			t.Errorf("GET /api/v2/version/?project__slug=demo&limit=5 with max_page_size 2: count %d, %d results, next %v; want 5, 2, %s",
				page.Count, len(page.Results), page.Next, wantNext)
		}
	})
}
