package graph_test

import (
	"reflect"
	"strings"
	"testing"

	"docsd/internal/errs"
	"docsd/internal/storetest"
	"docsd/store"
)

// TestProjectFields: GraphQL parity for the project fields REST writes
// (tags, privacy levels, versioning scheme, configuration path, …): each is
// readable, writable with updateProject (and the create fields with
// importProject), with REST's validation messages.
func TestProjectFields(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d)
		e.importProject("alice", "pub")
		const read = `{ project(slug: "pub") { privacyLevel externalBuildsPrivacyLevel versioningScheme singleVersion readthedocsYamlPath tags
			urls { documentation } adminFields { externalBuildsEnabled analyticsDisabled } } }`
		data := e.must(e.as("alice"), read, nil)
		want := map[string]any{"privacyLevel": "public", "externalBuildsPrivacyLevel": "public",
			"versioningScheme": "multiple_versions_with_translations", "singleVersion": false, "readthedocsYamlPath": nil,
			"tags": []any{}, "urls": map[string]any{"documentation": "https://docs.example.com/docs/pub/en/latest/"},
			"adminFields": map[string]any{"externalBuildsEnabled": false, "analyticsDisabled": false}}
		if got := dig(data, "project"); !reflect.DeepEqual(got, want) {
			t.Errorf("defaults: got %v, want %v", got, want)
		}

		e.must(e.as("alice"), `mutation { updateProject(input: {slug: "pub", tags: [" a ", "b", "a", ""], privacyLevel: protected,
			externalBuildsPrivacyLevel: private, versioningScheme: multiple_versions_without_translations,
			readthedocsYamlPath: " docs/.readthedocs.yaml ", externalBuildsEnabled: true, analyticsDisabled: true}) { project { id } errors { path message code } } }`, nil)
		data = e.must(e.as("alice"), read, nil)
		want = map[string]any{"privacyLevel": "protected", "externalBuildsPrivacyLevel": "private",
			"versioningScheme": "multiple_versions_without_translations", "singleVersion": false, "readthedocsYamlPath": "docs/.readthedocs.yaml",
			"tags": []any{"a", "b"}, "urls": map[string]any{"documentation": "https://docs.example.com/docs/pub/latest/"},
			"adminFields": map[string]any{"externalBuildsEnabled": true, "analyticsDisabled": true}}
		if got := dig(data, "project"); !reflect.DeepEqual(got, want) {
			t.Errorf("after update: got %v, want %v", got, want)
		}
		if _, err := e.do(e.as("bob"), read, nil); kind(err) != "NOT_FOUND" {
			t.Errorf("a protected project read by another user: %v, want NOT_FOUND", err)
		}

		for _, c := range []struct {
			input string
			want  errs.Fields
		}{
			{`{privacyLevel: null, externalBuildsPrivacyLevel: null}`, errs.Fields{
				"privacy_level": {"This field may not be null."}, "external_builds_privacy_level": {"This field may not be null."}}},
			{`{singleVersion: true, versioningScheme: multiple_versions_with_translations}`, errs.Fields{
				"single_version": {`Contradicts versioning_scheme "multiple_versions_with_translations".`}}},
			{`{versioningScheme: null, tags: null, externalBuildsEnabled: null}`, errs.Fields{
				"versioning_scheme": {"This field may not be null."}, "tags": {"This field may not be null."},
				"external_builds_enabled": {"This field may not be null."}}},
			{`{tags: ["` + strings.Repeat("x", 101) + `"]}`, errs.Fields{"tags": {"Ensure this field has no more than 100 characters."}}},
			{`{readthedocsYamlPath: "/docs/.readthedocs.yaml"}`, errs.Fields{"readthedocs_yaml_path": {
				"Use a relative path. It should not begin with '/'. The path is relative to the root of your repository."}}},
			{`{readthedocsYamlPath: "docs/x.yaml"}`, errs.Fields{"readthedocs_yaml_path": {"The only allowed filename is .readthedocs.yaml."}}},
		} {
			_, err := e.do(e.as("alice"), `mutation { updateProject(input: {slug: "pub", `+strings.TrimPrefix(c.input, "{")+`) { project { id } errors { path message code } } }`, nil)
			if got := errs.FieldsOf(err); !reflect.DeepEqual(got, c.want) {
				t.Errorf("updateProject(%s): got %v, want %v", c.input, got, c.want)
			}
		}

		// singleVersion is the boolean view of versioningScheme.
		data = e.must(e.as("alice"), `mutation { updateProject(input: {slug: "pub", singleVersion: true, readthedocsYamlPath: null}) { project { versioningScheme singleVersion readthedocsYamlPath } errors { path message code } } }`, nil)
		if dig(data, "updateProject", "project", "versioningScheme") != "single_version_without_translations" || dig(data, "updateProject", "project", "singleVersion") != true ||
			dig(data, "updateProject", "project", "readthedocsYamlPath") != nil {
			t.Errorf("singleVersion: %v", data)
		}
		// setProjectPrivacy does what privacyLevel does.
		data = e.must(e.as("alice"), `mutation { setProjectPrivacy(input: {slug: "pub", privacyLevel: public}) { project { privacyLevel } errors { path message code } } }`, nil)
		if dig(data, "setProjectPrivacy", "project", "privacyLevel") != "public" {
			t.Errorf("setProjectPrivacy: %v", data)
		}

		// importProject takes the create fields.
		data = e.must(e.as("alice"), `mutation { importProject(input: {name: "New", repository: {url: "https://github.com/a/new", type: git},
			tags: ["x"], privacyLevel: private, externalBuildsPrivacyLevel: protected, readthedocsYamlPath: ".readthedocs.yaml"}) { project {
			tags privacyLevel externalBuildsPrivacyLevel readthedocsYamlPath } errors { path message code } } }`, nil)
		want = map[string]any{"tags": []any{"x"}, "privacyLevel": "private", "externalBuildsPrivacyLevel": "protected", "readthedocsYamlPath": ".readthedocs.yaml"}
		if got := dig(data, "importProject", "project"); !reflect.DeepEqual(got, want) {
			t.Errorf("importProject: got %v, want %v", got, want)
		}
		_, err := e.do(e.as("alice"), `mutation { importProject(input: {name: "Bad", repository: {url: "https://github.com/a/bad", type: git},
			privacyLevel: null, readthedocsYamlPath: "a/../.readthedocs.yaml"}) { project { id } errors { path message code } } }`, nil)
		if got, want := errs.FieldsOf(err), (errs.Fields{"privacy_level": {"This field may not be null."},
			"readthedocs_yaml_path": {"Found invalid sequence in path: '..'"}}); !reflect.DeepEqual(got, want) {
			t.Errorf("importProject validation: got %v, want %v", got, want)
		}
	})
}

// TestExternalBuildsPrivacyLevel: a pull-request version's build is visible
// to others only while the project's external_builds_privacy_level is
// public, whatever the version's own level; its
// maintainers always see it.
func TestExternalBuildsPrivacyLevel(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d)
		e.importProject("alice", "pub")
		ctx := t.Context()
		p, err := e.store.FindProjectBySlug(ctx, "pub")
		if err != nil {
			t.Fatal(err)
		}
		v, err := e.store.CreateVersion(ctx, &store.Version{ProjectID: p.ID, Slug: "12", VerboseName: "12", Identifier: "abc",
			Type: store.External, Active: true, PrivacyLevel: store.Private})
		if err != nil {
			t.Fatal(err)
		}
		b, err := e.store.CreateBuild(ctx, v, nil)
		if err != nil {
			t.Fatal(err)
		}
		query := `query($id: ID!) { build(id: $id) { id } }`
		vars := map[string]any{"id": b.ID}
		for _, level := range []string{"public", "private", "protected"} {
			e.must(e.as("alice"), `mutation($l: PrivacyLevel!) { updateProject(input: {slug: "pub", externalBuildsPrivacyLevel: $l}) { project { id } errors { path message code } } }`, map[string]any{"l": level})
			for _, who := range []string{"", "bob", "alice"} {
				want := "ok"
				if level != "public" && who != "alice" {
					want = "NOT_FOUND"
				}
				if _, err := e.do(e.as(who), query, vars); kind(err) != want {
					t.Errorf("external level %s, build read by %q: %v, want %s", level, who, err, want)
				}
			}
		}
	})
}
