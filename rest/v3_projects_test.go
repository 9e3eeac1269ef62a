package rest

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"docsd/internal/artifacts"
	"docsd/internal/artifacts/artifactstest"
	"docsd/internal/docsurl"
	"docsd/internal/hosting"
	"docsd/internal/storetest"
	"docsd/store"
)

// TestV3ProjectCreateFields: a create with every optional field, and the
// tag list rules on create.
func TestV3ProjectCreateFields(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newV3Env(t, d)
		e.world()
		const create = `{"name": "Test Project", "repository": {"url": "https://github.com/rtfd/template", "type": "git"},
			"homepage": "http://template.readthedocs.io/", "programming_language": "py",
			"tags": ["test tag", "template tag"], "privacy_level": "private",
			"readthedocs_yaml_path": "docs/.readthedocs.yaml"}`
		body := func(extra string) string {
			return `{"name": "Tagged", "repository": {"url": "https://github.com/rtfd/tagged", "type": "git"}, ` + extra + `}`
		}
		for _, c := range []v3Case{
			{v3Send("POST", "/api/v3/projects/", "alice", create), 201, "project_create_all_fields"},
			{v3Get("/api/v3/projects/test-project/", "alice"), 200, "project_create_all_fields"},
			// The new project is private: another user does not see it.
			{v3Get("/api/v3/projects/test-project/", "bob"), 404, "error_404"},
			// Tags.
			{v3Send("POST", "/api/v3/projects/", "alice", body(`"tags": "not json"`)), 400, "project_tags_not_json"},
			{v3Send("POST", "/api/v3/projects/", "alice", body(`"tags": ["ok", 3]`)), 400, "project_tags_not_strings"},
			{v3Send("POST", "/api/v3/projects/", "alice", body(`"tags": {"a": 1}`)), 400, "project_tags_dict"},
			{v3Send("POST", "/api/v3/projects/", "alice", body(`"tags": 5`)), 400, "project_tags_int"},
			{v3Send("POST", "/api/v3/projects/", "alice", body(`"tags": "\"one\""`)), 400, "project_tags_str"},
			{v3Send("POST", "/api/v3/projects/", "alice", body(`"tags": ["`+strings.Repeat("x", 101)+`"]`)), 400, "project_tags_too_long"},
			{v3Send("POST", "/api/v3/projects/", "alice", body(`"tags": null, "privacy_level": null, "external_builds_privacy_level": "nope", "readthedocs_yaml_path": "/x"`)), 400, "project_create_invalid"},
			// Trimmed, blanks dropped, duplicates removed keeping the first.
			{v3Send("POST", "/api/v3/projects/", "alice", body(`"tags": [" b ", "", "a", "b"], "external_builds_privacy_level": "private", "readthedocs_yaml_path": null`)), 201, "project_tags_created"},
			// A form body sends the list as JSON text.
			{v3Call{method: "POST", path: "/api/v3/projects/", as: "alice", ctype: "application/x-www-form-urlencoded",
				body: "name=Form+Tags&repository.url=https%3A%2F%2Fgithub.com%2Frtfd%2Fform&repository.type=git&tags=%5B%22x%22%2C%22y%22%5D"}, 201, "project_tags_form"},
		} {
			e.check(t, c)
		}
		p, err := e.store.FindProjectBySlug(t.Context(), "tagged")
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(p.Tags(), ","); got != "b,a" || p.ExternalBuildsPrivacyLevel != store.Private || p.ReadthedocsYamlPath != nil {
			t.Errorf("stored tags %q, external level %q, yaml path %v", got, p.ExternalBuildsPrivacyLevel, p.ReadthedocsYamlPath)
		}
	})
}

// TestV3ProjectUpdateFields: privacy, versioning scheme and the permissions
// expansion, and every writable field is PATCHed, then read back through
// GET (or, for the fields REST does not render, from the store).
func TestV3ProjectUpdateFields(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newV3Env(t, d)
		e.world()
		const a72 = v3PP + "?expand=permissions&fields=permissions,privacy_level,single_version,urls,versioning_scheme"
		const scheme = v3PP + "?fields=single_version,versioning_scheme"
		for _, c := range []v3Case{
			// Permissions on public projects, before the privacy change.
			{v3Get("/api/v3/projects/other/?expand=permissions&fields=permissions", "alice"), 200, "project_permissions_other"},
			{v3Get(v3PP+"?expand=organization,permissions&fields=organization,permissions,slug", "alice"), 200, "project_expand_organization"},
			{v3Get("/api/v3/projects/?expand=permissions&fields=slug,permissions", "bob"), 200, "projects_list_permissions"},
			{v3Get("/api/v3/projects/?expand=*&fields=slug,organization,permissions", "alice"), 200, "projects_list_expand_star"},
			{v3Get("/api/v3/projects/subproject/superproject/?expand=permissions&fields=slug,permissions", "alice"), 200, "superproject_permissions"},
			{v3Get("/api/v3/projects/subproject/superproject/?expand=permissions&fields=slug,permissions", "bob"), 200, "superproject_permissions_other"},
			// Not an expansion inside active_versions.
			{v3Get(v3PP+"?expand=active_versions.permissions&fields=slug,permissions", "alice"), 200, "project_permissions_not_nested"},
			// Privacy, scheme and permissions.
			{v3Send("PATCH", v3PP, "alice", `{"privacy_level": "protected", "versioning_scheme": "multiple_versions_without_translations", "external_builds_enabled": true}`), 204, ""},
			{v3Get(a72, "alice"), 200, "project_update_all_fields"},
			{v3Get(a72, "bob"), 404, "error_404"},
			{v3Send("PATCH", v3PP, "alice", `{"privacy_level": "prubic", "external_builds_privacy_level": "privic"}`), 400, "project_patch_bad_privacy"},
			{v3Send("PATCH", v3PP, "alice", `{"single_version": true, "versioning_scheme": "multiple_versions_with_translations"}`), 400, "project_patch_scheme_contradiction"},
			{v3Send("PATCH", v3PP, "alice", `{"single_version": false, "versioning_scheme": "single_version_without_translations"}`), 400, "project_patch_scheme_contradiction_single"},
			{v3Send("PATCH", v3PP, "alice", `{"single_version": true}`), 204, ""},
			{v3Get(scheme, "alice"), 200, "project_single_version"},
			{v3Send("PATCH", v3PP, "alice", `{"single_version": false}`), 204, ""},
			{v3Get(scheme, "alice"), 200, "project_scheme_default"},
			{v3Send("PATCH", v3PP, "alice", `{"versioning_scheme": "per_language", "privacy_level": null, "external_builds_enabled": "maybe", "analytics_disabled": null}`), 400, "project_update_invalid"},
			// readthedocs_yaml_path: relative, inside the repository, a file
			// named .readthedocs.yaml, of allowed characters and length.
			{v3Send("PATCH", v3PP, "alice", `{"readthedocs_yaml_path": "   docs/.readthedocs.yaml   "}`), 204, ""},
			{v3Get(v3PP+"?fields=readthedocs_yaml_path", "alice"), 200, "project_yaml_path"},
			{v3Send("PATCH", v3PP, "alice", `{"readthedocs_yaml_path": "/docs/.readthedocs.yaml"}`), 400, "project_yaml_path_absolute"},
			{v3Send("PATCH", v3PP, "alice", `{"readthedocs_yaml_path": "docs/"}`), 400, "project_yaml_path_directory"},
			{v3Send("PATCH", v3PP, "alice", `{"readthedocs_yaml_path": "../.readthedocs.yaml"}`), 400, "project_yaml_path_dots"},
			{v3Send("PATCH", v3PP, "alice", `{"readthedocs_yaml_path": "docs,x/.readthedocs.yaml"}`), 400, "project_yaml_path_character"},
			{v3Send("PATCH", v3PP, "alice", `{"readthedocs_yaml_path": "docs/readthedocs.yml"}`), 400, "project_yaml_path_name"},
			{v3Send("PATCH", v3PP, "alice", `{"readthedocs_yaml_path": "`+strings.Repeat("a/", 512)+`.readthedocs.yaml"}`), 400, "project_yaml_path_long"},
			{v3Get(v3PP+"?fields=readthedocs_yaml_path", "alice"), 200, "project_yaml_path"},
			{v3Send("PATCH", v3PP, "alice", `{"readthedocs_yaml_path": ".readthedocs.yaml"}`), 204, ""},
			{v3Get(v3PP+"?fields=readthedocs_yaml_path", "alice"), 200, "project_yaml_path_root"},
			{v3Send("PATCH", v3PP, "alice", `{"readthedocs_yaml_path": null}`), 204, ""},
			{v3Get(v3PP+"?fields=readthedocs_yaml_path", "alice"), 200, "project_yaml_path_null"},
			// Tags replace the list; absent keeps it.
			{v3Send("PATCH", v3PP, "alice", `{"tags": ["new", " new ", "other"]}`), 204, ""},
			{v3Send("PATCH", v3PP, "alice", `{"name": "project"}`), 204, ""},
			{v3Get(v3PP+"?fields=tags", "alice"), 200, "project_tags_replaced"},
			{v3Send("PATCH", v3PP, "alice", `{"tags": "[]"}`), 204, ""},
			{v3Get(v3PP+"?fields=tags", "alice"), 200, "project_tags_empty"},
			// The other settings.
			{v3Send("PATCH", v3PP, "alice", `{"external_builds_privacy_level": "private", "analytics_disabled": "yes", "show_version_warning": true, "privacy_level": "public"}`), 204, ""},
			{v3Get(v3PP+"?fields=external_builds_privacy_level,privacy_level", "alice"), 200, "project_privacy_levels"},
			// The relaxed PUT: name and repository.url only; the rest keeps its value.
			{v3Send("PUT", v3PP, "alice", `{"name": "project"}`), 400, "project_put_missing_repository"},
			{v3Send("PUT", v3PP, "alice", `{"name": "project", "repository": {}}`), 400, "project_put_missing_url"},
			{v3Send("PUT", v3PP, "alice", `{"name": "project", "repository": {"url": "https://github.com/rtfd/project"}}`), 204, ""},
			{v3Get(v3PP+"?fields=external_builds_privacy_level,privacy_level", "alice"), 200, "project_privacy_levels"},
			// Maintainers only.
			{v3Send("PATCH", v3PP, "bob", `{"privacy_level": "private"}`), 403, "error_403"},
		} {
			e.check(t, c)
		}
		p, err := e.store.FindProjectBySlug(t.Context(), "project")
		if err != nil {
			t.Fatal(err)
		}
		if !p.ExternalBuildsEnabled || !p.AnalyticsDisabled || !p.ShowVersionWarning || p.Repo != "https://github.com/rtfd/project" ||
			p.RepoType != "git" || p.Homepage != "http://project.com" {
			t.Errorf("stored after the writes: external builds %v, analytics disabled %v, version warning %v, repo %q %q, homepage %q",
				p.ExternalBuildsEnabled, p.AnalyticsDisabled, p.ShowVersionWarning, p.Repo, p.RepoType, p.Homepage)
		}
	})
}

// TestV3PrivacyTakesEffect: a project made private with PATCH is no longer
// served to anonymous readers or other users by the docs host, v2 or v3,
// and still is to its maintainers; made public again, it is served again.
func TestV3PrivacyTakesEffect(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newV3Env(t, d)
		w := e.world()
		files, err := artifacts.NewLocal(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		if err := files.PublishHTML(t.Context(), "project", "latest", artifactstest.Dir(t, map[string]string{"index.html": "project docs"})); err != nil {
			t.Fatal(err)
		}
		if _, err := e.store.UpdateVersion(t.Context(), w.latest.ID, store.VersionUpdate{Built: v3Ptr(true)}); err != nil {
			t.Fatal(err)
		}
		docs := hosting.New(e.store, files, hosting.Config{URLs: docsurl.Config{PublicURL: v3PublicURL}}, slog.New(slog.DiscardHandler))
		docsStatus := func(as string) int {
			r := httptest.NewRequest(http.MethodGet, v3PublicURL+"/docs/project/en/latest/", nil)
			if as != "" {
				r.Header.Set("Authorization", "Token "+e.tokens[as])
			}
			rec := httptest.NewRecorder()
			docs.ServeHTTP(rec, r)
			return rec.Code
		}
		v2 := fmt.Sprintf("/api/v2/project/%d/", w.project.ID)
		for _, st := range []struct {
			privacy                   string
			anonymous, other, partner int
		}{
			{"private", 404, 404, 200},
			{"protected", 404, 404, 200},
			{"public", 200, 200, 200},
		} {
			e.check(t, v3Case{v3Send("PATCH", v3PP, "alice", `{"privacy_level": "`+st.privacy+`"}`), 204, ""})
			if got := docsStatus(""); got != st.anonymous {
				t.Errorf("%s: docs to an anonymous reader: %d, want %d", st.privacy, got, st.anonymous)
			}
			if got := docsStatus("bob"); got != st.other {
				t.Errorf("%s: docs to another user: %d, want %d", st.privacy, got, st.other)
			}
			if got := docsStatus("alice"); got != st.partner {
				t.Errorf("%s: docs to the maintainer: %d, want %d", st.privacy, got, st.partner)
			}
			if got := e.get(v2, "").status; got != st.anonymous {
				t.Errorf("%s: v2 project detail: %d, want %d", st.privacy, got, st.anonymous)
			}
			if got := e.get(v3PP, "bob").status; got != st.other {
				t.Errorf("%s: v3 project detail to another user: %d, want %d", st.privacy, got, st.other)
			}
		}
	})
}
