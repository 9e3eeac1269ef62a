package rest

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"docsd/internal/storetest"
	"docsd/store"
)

// v3ParseError stands for a JSON parse error body, whose text after the
// prefix is the parser's.
const v3ParseError = "<JSON parse error>"

// v3Case is one request of a scripted session and what must come back:
// status, and the body compared whole with testdata/v3/<golden>.json
// (golden "" when the answer has no body: 204, 301, HEAD).
type v3Case struct {
	call   v3Call
	status int
	golden string
}

// check sends the case's request and checks the answer, with the headers
// every v3 answer carries.
func (e *v3Env) check(t *testing.T, c v3Case) v3Resp {
	t.Helper()
	r := e.do(c.call)
	what := c.call.method + " " + c.call.path
	if r.status != c.status {
		t.Errorf("%s as %q: status %d, want %d; body %s", what, c.call.as, r.status, c.status, r.body)
		return r
	}
	if got := r.header.Get("X-Frame-Options"); got != "DENY" {
		t.Errorf("%s: X-Frame-Options %q, want DENY", what, got)
	}
	if got := r.header.Get("Vary"); got != "Accept" {
		t.Errorf("%s: Vary %q, want Accept", what, got)
	}
	for _, h := range []string{"ETag", "Last-Modified", "Cache-Control", "Access-Control-Allow-Origin"} {
		if got := r.header.Get(h); got != "" {
			t.Errorf("%s: unexpected %s: %q", what, h, got)
		}
	}
	if r.status == http.StatusUnauthorized && r.header.Get("WWW-Authenticate") != "Token" {
		t.Errorf("%s: 401 without WWW-Authenticate: Token", what)
	}
	if c.golden == v3ParseError {
		v3CheckCanonical(t, r.body)
		if !strings.HasPrefix(string(r.body), `{"detail":"JSON parse error - `) {
			t.Errorf("%s: body %s, want a JSON parse error", what, r.body)
		}
		return r
	}
	if c.golden == "" {
		if len(r.body) != 0 {
			t.Errorf("%s: body %q, want none", what, r.body)
		}
		if r.status == http.StatusNoContent && r.header.Get("Content-Type") != "" {
			t.Errorf("%s: 204 with Content-Type %q", what, r.header.Get("Content-Type"))
		}
		return r
	}
	if got := r.header.Get("Content-Type"); got != "application/json" {
		t.Errorf("%s: Content-Type %q, want application/json", what, got)
	}
	v3Golden(t, c.golden, r)
	return r
}

func v3Get(path, as string) v3Call { return v3Call{method: http.MethodGet, path: path, as: as} }

func v3Send(method, path, as, body string) v3Call {
	return v3Call{method: method, path: path, as: as, body: body}
}

const (
	v3PP = "/api/v3/projects/project/"
)

// v3ReadCases read the fixture world of v3Env.world without changing it.
var v3ReadCases = []v3Case{
	// Root: anonymous, credentials ignored.
	{v3Get("/api/v3/", ""), 200, "root"},
	{v3Get("/api/v3/", "raw:Token not-a-token"), 200, "root"},
	{v3Get("/api/v3/?format=json", ""), 200, "root"},
	{v3Get("/api/v3/?format=xml", ""), 404, "error_404"},
	{v3Send("POST", "/api/v3/", "", ""), 405, "error_405_post"},
	{v3Call{method: "HEAD", path: "/api/v3/"}, 200, ""},

	// Projects list.
	{v3Get("/api/v3/projects/", "alice"), 200, "projects_list"},
	{v3Get("/api/v3/projects/", "bob"), 200, "projects_list_bob"},
	{v3Get("/api/v3/projects/", "carol"), 200, "list_empty"},
	{v3Get("/api/v3/projects/?limit=1&language=en", "alice"), 200, "projects_list_language_page"},
	{v3Get("/api/v3/projects/?language=es", "alice"), 200, "projects_list_language_es"},
	{v3Get("/api/v3/projects/?programming_language=py", "alice"), 200, "list_empty"},
	{v3Get("/api/v3/projects/?language=", "alice"), 200, "projects_list"},
	{v3Get("/api/v3/projects/?expand=active_versions", "alice"), 200, "projects_list_expand_active_versions"},
	{v3Get("/api/v3/projects/?expand=active_versions.foo", "alice"), 200, "projects_list"},
	{v3Get("/api/v3/projects/?language=xx", "alice"), 400, "error_filter_language"},
	{v3Get("/api/v3/projects/?language=xx&programming_language=yy", "alice"), 400, "error_filter_both"},
	{v3Get("/api/v3/projects/", ""), 401, "error_401_no_credentials"},
	{v3Call{method: "HEAD", path: "/api/v3/projects/", as: "alice"}, 200, ""},

	// Project detail.
	{v3Get(v3PP, "alice"), 200, "project_detail"},
	{v3Get(v3PP, "bob"), 200, "project_detail"},
	{v3Get(v3PP+"?format=json", "alice"), 200, "project_detail"},
	{v3Get(v3PP+"?expand=active_versions.last_build.config", "alice"), 200, "project_detail_expand_deep"},
	{v3Get("/api/v3/projects/subproject/", "alice"), 200, "project_detail_subproject"},
	{v3Get("/api/v3/projects/translation/", "alice"), 200, "project_detail_translation"},
	{v3Get("/api/v3/projects/other/", "alice"), 200, "project_detail_other"},
	{v3Get("/api/v3/projects/secret/", "alice"), 404, "error_404"},
	{v3Get("/api/v3/projects/secret/", "carol"), 200, "project_detail_secret"},
	{v3Get("/api/v3/projects/nope/", "alice"), 404, "error_404"},
	{v3Get(v3PP+"?language=es", "alice"), 404, "error_404"},
	{v3Get(v3PP+"?language=en&programming_language=words", "alice"), 200, "project_detail"},
	{v3Get(v3PP+"?language=xx", "alice"), 400, "error_filter_language"},
	{v3Get("/api/v3/projects/nope/?language=xx", "alice"), 400, "error_filter_language"},
	{v3Get(v3PP, ""), 401, "error_401_no_credentials"},

	// Superproject: the parent, rendered as its detail.
	{v3Get("/api/v3/projects/subproject/superproject/", "alice"), 200, "project_detail"},
	{v3Get("/api/v3/projects/subproject/superproject/?expand=active_versions&fields=id,active_versions", "alice"), 200, "superproject_expand"},
	{v3Get(v3PP+"superproject/", "alice"), 404, "error_404"},
	{v3Get("/api/v3/projects/nope/superproject/", "alice"), 404, "error_404"},
	{v3Get("/api/v3/projects/subproject/superproject/?language=xx", "alice"), 400, "error_filter_language"},

	// Versions.
	{v3Get(v3PP+"versions/", "alice"), 200, "versions_list"},
	{v3Get(v3PP+"versions/?active=true", "alice"), 200, "versions_list_active"},
	{v3Get(v3PP+"versions/?active=TRUE&built=0", "alice"), 200, "versions_list_active_not_built"},
	{v3Get(v3PP+"versions/?active=maybe", "alice"), 200, "versions_list"},
	{v3Get(v3PP+"versions/?built=false&limit=1", "alice"), 200, "versions_list_not_built_page"},
	{v3Get(v3PP+"versions/?verbose_name=v1.0", "alice"), 200, "versions_list_v1"},
	{v3Get(v3PP+"versions/?privacy_level=private", "alice"), 200, "versions_list_private"},
	{v3Get(v3PP+"versions/?uploaded=false&verbose_name=v1.0", "alice"), 200, "versions_list_v1"},
	{v3Get(v3PP+"versions/?uploaded=true", "alice"), 200, "list_empty"},
	{v3Get(v3PP+"versions/?privacy_level=secret", "alice"), 400, "error_filter_privacy_level"},
	{v3Get(v3PP+"versions/?expand=last_build", "alice"), 200, "versions_list_expand_last_build"},
	{v3Get(v3PP+"versions/", "bob"), 403, "error_403"},
	{v3Get("/api/v3/projects/nope/versions/", "alice"), 404, "error_404"},
	{v3Get(v3PP+"versions/v1.0/", "alice"), 200, "version_detail"},
	{v3Get(v3PP+"versions/v1.0/", "bob"), 200, "version_detail"},
	{v3Get(v3PP+"versions/v1.0/?expand=last_build.config", "alice"), 200, "version_detail_expand"},
	{v3Get(v3PP+"versions/latest/", "alice"), 200, "version_detail_latest"},
	{v3Get(v3PP+"versions/v2.0/", "alice"), 200, "version_detail_private"},
	{v3Get(v3PP+"versions/v2.0/", "bob"), 404, "error_404"},
	{v3Get(v3PP+"versions/nope/", "alice"), 404, "error_404"},
	{v3Get(v3PP+"versions/v1.0/?active=false", "alice"), 404, "error_404"},
	{v3Get(v3PP+"versions/v1.0/?uploaded=1", "alice"), 404, "error_404"},
	{v3Get(v3PP+"versions/v1.0/?privacy_level=secret", "alice"), 400, "error_filter_privacy_level"},
	{v3Get("/api/v3/projects/nope/versions/v1.0/", "alice"), 404, "error_404"},
	{v3Send("DELETE", v3PP+"versions/v1.0/", "alice", ""), 405, "error_405_delete"},

	// Builds.
	{v3Get(v3PP+"builds/", "alice"), 200, "builds_list"},
	{v3Get(v3PP+"builds/?running=true", "alice"), 200, "builds_list_running"},
	{v3Get(v3PP+"builds/?running=False", "alice"), 200, "builds_list_finished"},
	{v3Get(v3PP+"builds/?commit="+v3Commit, "alice"), 200, "builds_list_commit"},
	{v3Get(v3PP+"builds/?commit=", "alice"), 200, "builds_list"},
	{v3Get(v3PP+"builds/?expand=config&limit=2&offset=1", "alice"), 200, "builds_list_expand_config_page"},
	{v3Get(v3PP+"builds/", "bob"), 403, "error_403"},
	{v3Get(v3PP+"builds/2/", "alice"), 200, "build_detail"},
	{v3Get(v3PP+"builds/2/", "bob"), 200, "build_detail"},
	{v3Get(v3PP+"builds/2/?expand=config", "alice"), 200, "build_detail_config"},
	{v3Get(v3PP+"builds/1/", "alice"), 200, "build_detail_failed"},
	{v3Get(v3PP+"builds/4/", "alice"), 200, "build_detail_triggered"},
	{v3Get(v3PP+"builds/3/", "alice"), 200, "build_detail_building"},
	{v3Get(v3PP+"builds/3/", "bob"), 404, "error_404"},
	{v3Get(v3PP+"builds/7/", "alice"), 404, "error_404"},
	{v3Get(v3PP+"builds/abc/", "alice"), 404, "error_404"},
	{v3Get(v3PP+"builds/99999999999999999999/", "alice"), 404, "error_404"},
	{v3Get(v3PP+"builds/2/?running=true", "alice"), 404, "error_404"},
	{v3Get(v3PP+"builds/2/?commit="+v3Commit, "alice"), 200, "build_detail"},
	{v3Get(v3PP+"versions/v1.0/builds/", "alice"), 200, "version_builds_list"},
	{v3Get(v3PP+"versions/latest/builds/?expand=config", "alice"), 200, "version_builds_list_latest_config"},
	{v3Get(v3PP+"versions/nope/builds/", "alice"), 404, "error_404"},
	{v3Get(v3PP+"versions/v1.0/builds/", "bob"), 403, "error_403"},
	{v3Get(v3PP+"versions/v1.0/builds/2/", "alice"), 200, "build_detail"},
	{v3Get(v3PP+"versions/v1.0/builds/2/", "bob"), 200, "build_detail"},
	{v3Get(v3PP+"versions/latest/builds/2/", "alice"), 404, "error_404"},
	{v3Get(v3PP+"versions/v1.0/builds/x/", "alice"), 404, "error_404"},
	{v3Send("POST", v3PP+"versions/v1.0/builds/2/", "alice", ""), 405, "error_405_post"},

	// Subprojects and translations.
	{v3Get(v3PP+"subprojects/", "alice"), 200, "subprojects_list"},
	{v3Get(v3PP+"subprojects/", "bob"), 403, "error_403"},
	{v3Get(v3PP+"subprojects/subproject/", "alice"), 200, "subproject_detail"},
	{v3Get(v3PP+"subprojects/subproject/", "bob"), 200, "subproject_detail"},
	{v3Get(v3PP+"subprojects/subproject/?fields=alias", "alice"), 200, "subproject_detail_alias"},
	{v3Get(v3PP+"subprojects/nope/", "alice"), 404, "error_404"},
	{v3Get(v3PP+"translations/", "alice"), 200, "translations_list"},
	{v3Get(v3PP+"translations/?expand=active_versions", "alice"), 200, "translations_list"},
	{v3Get("/api/v3/projects/translation/translations/", "alice"), 200, "list_empty"},
	{v3Get(v3PP+"translations/", "bob"), 403, "error_403"},

	// Redirects and environment variables: maintainers only.
	{v3Get(v3PP+"redirects/", "alice"), 200, "redirects_list"},
	{v3Get(v3PP+"redirects/2/", "alice"), 200, "redirect_detail_prefix"},
	{v3Get(v3PP+"redirects/99/", "alice"), 404, "error_404"},
	{v3Get(v3PP+"redirects/x/", "alice"), 404, "error_404"},
	{v3Get(v3PP+"redirects/", "bob"), 403, "error_403"},
	{v3Get(v3PP+"redirects/1/", "bob"), 403, "error_403"},
	{v3Get("/api/v3/projects/other/redirects/1/", "bob"), 404, "error_404"},
	{v3Send("POST", v3PP+"redirects/1/", "alice", ""), 405, "error_405_post"},
	{v3Get(v3PP+"environmentvariables/", "alice"), 200, "envvars_list"},
	{v3Get(v3PP+"environmentvariables/1/", "alice"), 200, "envvar_detail"},
	{v3Get(v3PP+"environmentvariables/1/?omit=_links,created", "alice"), 200, "envvar_detail_omit"},
	{v3Get(v3PP+"environmentvariables/2/", "alice"), 404, "error_404"},
	{v3Get(v3PP+"environmentvariables/", "bob"), 403, "error_403"},
	{v3Send("PUT", v3PP+"environmentvariables/1/", "alice", `{"name": "X"}`), 405, "error_405_put"},
	{v3Send("PATCH", v3PP+"environmentvariables/1/", "alice", `{"name": "X"}`), 405, "error_405_patch"},

	// Routes.
	{v3Get("/api/v3/projects", "alice"), 301, ""},
	{v3Get("/api/v3/projects/project/versions/v1.0?fields=id", ""), 301, ""},
	{v3Send("POST", "/api/v3/projects", "alice", `{}`), 308, "error_trailing_slash_post"},
	{v3Send("PATCH", "/api/v3/projects/project/versions/v1.0", "alice", `{}`), 308, "error_trailing_slash_patch"},
	{v3Get("/api/v3/nope/", "alice"), 404, "error_404"},
	{v3Get("/api/v3/projects.json", "alice"), 404, "error_404"},
	{v3Get("/api/v3/projects/project/extra/", "alice"), 404, "error_404"},
	{v3Get("/api/v3/projects/pro.ject/", "alice"), 404, "error_404"},
	{v3Get("/api/v3/nope", "alice"), 404, "error_404"},
}

func TestV3Reads(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newV3Env(t, d)
		e.world()
		for _, c := range v3ReadCases {
			e.check(t, c)
		}
		// Redirect targets keep the query string.
		r := e.do(v3Get("/api/v3/projects/project/versions/v1.0?fields=id", ""))
		if got, want := r.header.Get("Location"), "/api/v3/projects/project/versions/v1.0/?fields=id"; got != want {
			t.Errorf("Location %q, want %q", got, want)
		}
		if got, want := e.do(v3Get("/api/v3", "")).header.Get("Location"), "/api/v3/"; got != want {
			t.Errorf("Location %q, want %q", got, want)
		}
	})
}

// v3WriteCases change the fixture world, in this order.
var v3WriteCases = []v3Case{
	// Import: validation.
	{v3Send("POST", "/api/v3/projects/", "alice", `{}`), 400, "import_empty"},
	{v3Send("POST", "/api/v3/projects/", "alice", `{"name": "X", "repository": {"url": "https://github.com/a/b"}}`), 400, "import_repository_type_required"},
	{v3Send("POST", "/api/v3/projects/", "alice", `{"name": "!!!", "repository": {"url": "https://github.com/a/b", "type": "git"}}`), 400, "import_no_slug"},
	{v3Send("POST", "/api/v3/projects/", "alice", `{"name": "Project", "repository": {"url": "https://github.com/a/b", "type": "git"}}`), 400, "import_slug_taken"},
	{v3Send("POST", "/api/v3/projects/", "alice", `{"name": ["x"], "repository": "https://github.com/a/b", "homepage": true, "language": 7}`), 400, "import_bad_types"},
	{v3Send("POST", "/api/v3/projects/", "alice", `{"name": "Y", "repository": {"url": {}, "type": "cvs"}, "homepage": "nope", "programming_language": "cobol"}`), 400, "import_bad_values"},
	{v3Send("POST", "/api/v3/projects/", "alice", `{"name": "Y", "repository": {"url": "ssh://git@github.com/a/b", "type": "git"}}`), 400, "import_ssh_url"},
	{v3Send("POST", "/api/v3/projects/", "alice", `{"name": "Y", "repository": null}`), 400, "import_repository_null"},
	{v3Send("POST", "/api/v3/projects/", "alice", `[1, 2]`), 400, "body_list"},
	{v3Send("POST", "/api/v3/projects/", "alice", `"x"`), 400, "body_str"},
	{v3Send("POST", "/api/v3/projects/", "alice", `12`), 400, "body_int"},
	{v3Send("POST", "/api/v3/projects/", "alice", `1.5`), 400, "body_float"},
	{v3Send("POST", "/api/v3/projects/", "alice", `true`), 400, "body_bool"},
	{v3Send("POST", "/api/v3/projects/", "alice", `null`), 400, "body_null"},
	{v3Call{method: "POST", path: "/api/v3/projects/", as: "alice", body: `name=x`, ctype: "text/plain"}, 415, "error_415_text_plain"},
	{v3Call{method: "POST", path: "/api/v3/projects/", as: "alice", body: `{}`, ctype: "-"}, 415, "error_415_none"},
	{v3Send("POST", "/api/v3/projects/", "", `{}`), 401, "error_401_no_credentials"},

	// Import: success, and what it creates.
	{v3Send("POST", "/api/v3/projects/?fields=id&expand=active_versions", "alice",
		`{"name": "Test Project", "repository": {"url": "https://github.com/a/test", "type": "git"}, "homepage": "https://test.example.com", "language": "es", "programming_language": "py", "slug": "ignored"}`),
		201, "import_created"},
	{v3Get("/api/v3/projects/test-project/versions/", "alice"), 200, "import_created_versions"},
	{v3Get("/api/v3/projects/test-project/builds/", "alice"), 200, "import_created_builds"},
	{v3Get("/api/v3/projects/?language=es", "alice"), 200, "import_created_in_list"},
	{v3Call{method: "POST", path: "/api/v3/projects/", as: "bob", ctype: "application/x-www-form-urlencoded",
		body: "name=Form+Project&repository.url=https%3A%2F%2Fgitlab.com%2Fb%2Fform&repository.type=git&programming_language="}, 201, "import_form"},

	// Project update.
	{v3Send("PATCH", v3PP, "alice", `{"name": "Project renamed", "repository": {"url": "https://github.com/rtfd/renamed"}, "default_branch": "main", "slug": "ignored"}`), 204, ""},
	{v3Get(v3PP, "alice"), 200, "project_after_patch"},
	{v3Get(v3PP+"versions/latest/", "alice"), 200, "project_after_patch_latest"},
	{v3Send("PATCH", v3PP, "alice", `{"homepage": "not a url", "single_version": "maybe", "repository": [], "language": "xx", "analytics_code": null}`), 400, "project_patch_invalid"},
	{v3Send("PATCH", v3PP, "alice", `{"language": "es"}`), 400, "project_patch_translation_language"},
	{v3Send("PUT", v3PP, "alice", `{"name": "x"}`), 400, "project_put_missing"},
	{v3Send("PUT", v3PP, "alice", `{"name": "Project", "repository": {"url": "https://github.com/rtfd/project", "type": "git"}, "homepage": "", "default_branch": null}`), 204, ""},
	{v3Get(v3PP+"?omit=_links,urls,users,subproject_of,translation_of", "alice"), 200, "project_after_put"},
	{v3Send("PATCH", v3PP, "bob", `{}`), 403, "error_403"},
	{v3Send("PATCH", "/api/v3/projects/nope/", "alice", `{}`), 404, "error_404"},
	{v3Send("PATCH", v3PP, "alice", `{"name": `), 400, v3ParseError},
	{v3Send("POST", "/api/v3/projects/", "alice", `{"name": "x"} {}`), 400, v3ParseError},
	{v3Call{method: "POST", path: "/api/v3/projects/", as: "alice", body: `{"name": "x"`, ctype: "application/json; charset=utf-8"}, 400, v3ParseError},

	// Version update.
	{v3Send("PATCH", v3PP+"versions/v2.0/", "alice", `{"active": "on", "slug": "ignored"}`), 204, ""},
	{v3Get(v3PP+"versions/v2.0/", "alice"), 200, "version_after_patch"},
	{v3Send("PATCH", v3PP+"versions/v2.0/", "alice", `{}`), 204, ""},
	{v3Send("PATCH", v3PP+"versions/v1.0/", "alice", `{"active": "maybe"}`), 400, "version_patch_not_boolean"},
	{v3Send("PATCH", v3PP+"versions/v1.0/", "alice", `{"active": null}`), 400, "version_patch_null"},
	{v3Send("PUT", v3PP+"versions/v1.0/", "alice", `{}`), 204, ""}, // a PUT needs nothing
	{v3Send("PUT", v3PP+"versions/v1.0/", "alice", `{"active": 0}`), 204, ""},
	{v3Get(v3PP+"versions/v1.0/?fields=active", "alice"), 200, "version_after_put"},
	{v3Send("PATCH", v3PP+"versions/nope/", "alice", `{"active": `), 404, "error_404"},
	{v3Call{method: "PATCH", path: v3PP + "versions/nope/", as: "alice", body: `x`, ctype: "text/plain"}, 404, "error_404"},
	{v3Call{method: "PATCH", path: v3PP + "versions/v1.0/", as: "alice", body: `x`, ctype: "text/plain"}, 415, "error_415_text_plain"},
	{v3Send("PATCH", v3PP+"versions/v1.0/", "alice", `[]`), 400, "body_list"},
	{v3Send("PATCH", v3PP+"versions/v1.0/", "bob", `{"active": true}`), 403, "error_403"},

	// Build trigger.
	{v3Send("POST", v3PP+"versions/v1.0/builds/", "alice", `this body is never read`), 202, "trigger_build"},
	{v3Get(v3PP+"builds/?limit=2", "alice"), 200, "trigger_build_list"},
	{v3Send("POST", v3PP+"versions/nope/builds/", "alice", ``), 404, "error_404"},
	{v3Send("POST", v3PP+"versions/v1.0/builds/", "bob", ``), 403, "error_403"},

	// Subprojects.
	{v3Send("POST", v3PP+"subprojects/", "alice", `{"child": "test-project", "alias": "tp"}`), 201, "subproject_created"},
	{v3Get(v3PP+"subprojects/tp/", "alice"), 200, "subproject_created"},
	{v3Send("POST", v3PP+"subprojects/", "alice", `{"child": "project"}`), 400, "subproject_create_superproject"},
	{v3Send("POST", v3PP+"subprojects/", "alice", `{"child": "subproject"}`), 400, "subproject_create_already_child"},
	{v3Send("POST", v3PP+"subprojects/", "alice", `{}`), 400, "subproject_create_empty"},
	{v3Send("POST", v3PP+"subprojects/", "alice", `{"child": null}`), 400, "subproject_create_null"},
	{v3Send("POST", v3PP+"subprojects/", "alice", `{"child": {"a": 1}, "alias": "bad alias!"}`), 400, "subproject_create_invalid"},
	{v3Send("POST", v3PP+"subprojects/", "alice", `{"child": "other"}`), 400, "subproject_create_not_maintained"},
	{v3Send("POST", v3PP+"subprojects/", "alice", `{"child": true}`), 400, "subproject_create_bool"},
	{v3Send("POST", v3PP+"subprojects/", "alice", `{"child": "translation", "alias": "tp"}`), 400, "subproject_create_alias_taken"},
	{v3Send("POST", "/api/v3/projects/subproject/subprojects/", "alice", `{"child": "translation"}`), 400, "subproject_create_nesting"},
	{v3Send("DELETE", v3PP+"subprojects/tp/", "alice", ``), 204, ""},
	{v3Send("DELETE", v3PP+"subprojects/tp/", "alice", ``), 404, "error_404"},
	{v3Get("/api/v3/projects/test-project/superproject/", "alice"), 404, "error_404"},

	// Redirects.
	{v3Send("POST", v3PP+"redirects/", "alice", `{"type": "page"}`), 400, "redirect_create_missing_urls"},
	{v3Send("POST", v3PP+"redirects/", "alice", `{"type": "exact", "from_url": "", "to_url": null}`), 400, "redirect_create_blank_null"},
	{v3Send("POST", v3PP+"redirects/", "alice", `{"type": "nope", "from_url": 5}`), 400, "redirect_create_bad_type"},
	{v3Send("POST", v3PP+"redirects/", "alice", `{}`), 400, "redirect_create_empty"},
	{v3Send("POST", v3PP+"redirects/", "alice", `{"type": "exact", "from_url": "/a/", "to_url": "/b/"}`), 201, "redirect_created"},
	{v3Send("POST", v3PP+"redirects/?fields=pk", "alice", `{"type": "sphinx_html"}`), 201, "redirect_created_sphinx"},
	{v3Get(v3PP+"redirects/4/", "alice"), 200, "redirect_detail_sphinx"},
	{v3Send("PUT", v3PP+"redirects/3/", "alice", `{"type": "prefix", "from_url": "/p/"}`), 200, "redirect_put"},
	{v3Send("PATCH", v3PP+"redirects/3/", "alice", `{"to_url": "/x/"}`), 200, "redirect_patch"},
	{v3Send("PATCH", v3PP+"redirects/3/", "alice", `{"type": "page", "to_url": ""}`), 400, "redirect_patch_blank"},
	{v3Send("PUT", v3PP+"redirects/3/", "alice", `{}`), 400, "redirect_put_empty"},
	{v3Send("PUT", v3PP+"redirects/99/", "alice", `{"type": "prefix"}`), 404, "error_404"},
	{v3Send("PATCH", v3PP+"redirects/99/", "alice", `{"type": `), 404, "error_404"},
	{v3Send("PATCH", v3PP+"redirects/x/", "alice", `{}`), 404, "error_404"},
	{v3Send("DELETE", v3PP+"redirects/4/", "alice", ``), 204, ""},
	{v3Send("DELETE", v3PP+"redirects/4/", "alice", ``), 404, "error_404"},
	{v3Get(v3PP+"redirects/", "alice"), 200, "redirects_after_writes"},

	// Environment variables.
	{v3Send("POST", v3PP+"environmentvariables/", "alice", `{"name": "NEW_VAR", "value": "s3cr3t"}`), 201, "envvar_created"},
	{v3Send("POST", v3PP+"environmentvariables/", "alice", `{"name": "READTHEDOCS_X", "value": "  "}`), 400, "envvar_create_invalid"},
	{v3Send("POST", v3PP+"environmentvariables/", "alice", `{"name": "ENVVAR", "value": ["v"]}`), 400, "envvar_create_taken"},
	{v3Send("POST", v3PP+"environmentvariables/", "alice", `{}`), 400, "envvar_create_empty"},
	{v3Send("DELETE", v3PP+"environmentvariables/2/", "alice", ``), 204, ""},
	{v3Send("DELETE", v3PP+"environmentvariables/2/", "alice", ``), 404, "error_404"},
	{v3Get(v3PP+"environmentvariables/", "alice"), 200, "envvars_list"},
}

func TestV3Writes(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newV3Env(t, d)
		w := e.world()
		for _, c := range v3WriteCases {
			e.clock.Advance(time.Minute) // so that `modified` visibly moves
			e.check(t, c)
		}
		// Builds disabled: nothing is queued, 400.
		if _, err := e.store.UpdateProject(t.Context(), w.translation.ID, store.ProjectUpdate{Skip: v3Ptr(true)}); err != nil {
			t.Fatal(err)
		}
		e.check(t, v3Case{v3Send("POST", "/api/v3/projects/translation/versions/latest/builds/", "alice", ""), 400, "trigger_build_skipped"})
		e.check(t, v3Case{v3Get("/api/v3/projects/translation/builds/", "alice"), 200, "trigger_build_skipped_list"})
	})
}
