package graph_test

import (
	"fmt"
	"reflect"
	"testing"

	"docsd/internal/storetest"
	"docsd/store"
)

// TestViewFieldsOnEveryPath asserts that the relation fields of projects,
// versions and builds (methods of the request's views, views.go) answer
// the same wherever the object comes from: a single lookup, node(id:), a
// list, a nested field, a field nobody looks ahead for (a redirect's
// project), and a mutation's payload, read after the write.
func TestViewFieldsOnEveryPath(t *testing.T) {
	const projectFields = `id databaseId slug users { username } urls { documentation home }
		canonicalUrl subprojectOf { slug } translationOf { slug }
		activeVersions { slug urls { documentation } lastBuild { databaseId docsUrl } }`
	const versionFields = `id databaseId slug ref documentationType downloads { pdf }
		urls { documentation vcs } lastBuild { databaseId } project { slug users { username } }`
	const buildFields = `id databaseId errorId docsUrl commitUrl urls { build project version }
		commands { id } project { slug canonicalUrl } version { slug urls { documentation } }`
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d)
		e.fixture()
		alice := e.as("alice")
		e.must(alice, `mutation { importProject(input: {name: "pub-es", language: "es", repository: {url: "https://github.com/rtfd/x", type: git}}) { errors { message } } }`, nil)
		e.must(alice, `mutation { setTranslationOf(input: {slug: "pub-es", main: "pub"}) { errors { message } } }`, nil)

		// The reference answers, from the lookups that look ahead.
		data := e.must(alice, `{ project(slug: "pub") { `+projectFields+` }
			pub: project(slug: "pub") { version(slug: "v1.0") { `+versionFields+` } } }`, nil)
		project := dig(data, "project")
		version := dig(data, "pub", "version")
		buildID := int64(dig(version, "lastBuild", "databaseId").(float64))
		data = e.must(alice, `query($id: ID!) { build(id: $id) { `+buildFields+` } }`, map[string]any{"id": buildID})
		build := dig(data, "build")
		if len(dig(project, "activeVersions").([]any)) != 1 || len(dig(project, "users").([]any)) != 1 ||
			dig(version, "project", "slug") != "pub" || dig(build, "version", "slug") != "v1.0" ||
			dig(build, "commands") == nil || dig(build, "commitUrl") == nil {
			t.Fatalf("reference answers lack their relations:\n%v\n%v\n%v", project, version, build)
		}
		vars := map[string]any{"id": buildID, "p": dig(project, "id"), "v": dig(version, "id"), "b": dig(build, "id")}

		for _, tc := range []struct {
			name, query string
			path        []any
			want        any
		}{
			{"project node", `query($p: ID!) { node(id: $p) { ... on Project { ` + projectFields + ` } } }`,
				[]any{"node"}, project},
			{"project in a list", `{ projects(filter: {slug: "pub"}) { nodes { ` + projectFields + ` } } }`,
				[]any{"projects", "nodes", 0}, project},
			{"project of a build", `query($id: ID!) { build(id: $id) { project { ` + projectFields + ` } } }`,
				[]any{"build", "project"}, project},
			{"main project of a translation", `{ project(slug: "pub-es") { translationOf { ` + projectFields + ` } } }`,
				[]any{"project", "translationOf"}, project},
			{"project not looked ahead for", `{ project(slug: "pub") { redirects { nodes { project { ` + projectFields + ` } } } } }`,
				[]any{"project", "redirects", "nodes", 0, "project"}, project},
			{"version node", `query($v: ID!) { node(id: $v) { ... on Version { ` + versionFields + ` } } }`,
				[]any{"node"}, version},
			{"version of a build", `query($id: ID!) { build(id: $id) { version { ` + versionFields + ` } } }`,
				[]any{"build", "version"}, version},
			{"version of a redirect's project", `{ project(slug: "pub") { redirects { nodes { project { version(slug: "v1.0") { ` + versionFields + ` } } } } } }`,
				[]any{"project", "redirects", "nodes", 0, "project", "version"}, version},
			{"build node", `query($b: ID!) { node(id: $b) { ... on Build { ` + buildFields + ` } } }`,
				[]any{"node"}, build},
			{"build of a project", `query($id: ID!) { project(slug: "pub") { build(id: $id) { ` + buildFields + ` } } }`,
				[]any{"project", "build"}, build},
			{"last build of a version", `{ project(slug: "pub") { version(slug: "v1.0") { lastBuild { ` + buildFields + ` } } } }`,
				[]any{"project", "version", "lastBuild"}, build},
			{"last build not looked ahead for", `{ project(slug: "pub") { redirects { nodes { project { version(slug: "v1.0") { lastBuild { ` + buildFields + ` } } } } } } }`,
				[]any{"project", "redirects", "nodes", 0, "project", "version", "lastBuild"}, build},
		} {
			t.Run(tc.name, func(t *testing.T) {
				data := e.must(alice, tc.query, vars)
				if got := dig(data, tc.path...); !reflect.DeepEqual(got, tc.want) {
					t.Errorf("got %v\nwant %v", got, tc.want)
				}
			})
		}

		// A mutation's payload reads the relations as they are after the write.
		data = e.must(alice, `mutation { triggerBuild(input: {project: "pub", version: "v1.0"}) {
			build { databaseId project { slug } version { slug lastBuild { databaseId } } urls { version } }
			version { lastBuild { databaseId } } project { slug } } }`, nil)
		payload := dig(data, "triggerBuild")
		newID := dig(payload, "build", "databaseId")
		if newID == float64(buildID) || dig(payload, "build", "version", "lastBuild", "databaseId") != newID ||
			dig(payload, "version", "lastBuild", "databaseId") != newID || dig(payload, "build", "project", "slug") != "pub" {
			t.Errorf("triggerBuild's payload = %v, want the new build %v everywhere (the old one was %v)", payload, newID, buildID)
		}
		if got := fmt.Sprint(dig(payload, "build", "urls", "version")); got != fmt.Sprint(dig(build, "urls", "version")) {
			t.Errorf("new build's version URL = %s, want %v", got, dig(build, "urls", "version"))
		}
	})
}
