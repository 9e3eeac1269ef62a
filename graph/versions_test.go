package graph_test

import (
	"reflect"
	"strings"
	"testing"

	"docsd/internal/errs"
	"docsd/internal/storetest"
	"docsd/store"
)

// TestVersionAndBuildFields: the fields of versions and builds — aliases,
// urls.dashboard, build urls, v2's keys, the filters, and the activation
// build.
func TestVersionAndBuildFields(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d)
		ctx := t.Context()
		p := e.importedProject("alice", "pub")
		mk := func(slug, typ string, active, machine bool) *store.Version {
			v, err := e.store.CreateVersion(ctx, &store.Version{ProjectID: p.ID, Slug: slug, VerboseName: slug, Identifier: "abc", Type: typ, Active: active, Machine: machine})
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		v1 := mk("v1.0", store.Tag, false, false)
		mk("v2.0", store.Tag, true, false)
		mk("release-2.0", store.Branch, true, false)
		mk("stable", store.Tag, true, true)
		mk("master", store.Branch, true, false)
		latestV, err := e.store.FindVersionBySlug(ctx, p.ID, "latest")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.store.UpdateVersion(ctx, latestV.ID, store.VersionUpdate{Identifier: ptrTo("master")}); err != nil {
			t.Fatal(err)
		}

		data := e.must(e.as("alice"), `{ project(slug: "pub") {
			stable: version(slug: "stable") { aliases { slug aliases { slug } } urls { dashboard { edit } } }
			latest: version(slug: "latest") { identifier aliases { slug } }
			v2: version(slug: "v2.0") { aliases { slug } } } }`, nil)
		want := map[string]any{
			"stable": map[string]any{"aliases": []any{map[string]any{"slug": "v2.0", "aliases": []any{}}},
				"urls": map[string]any{"dashboard": map[string]any{"edit": "https://docs.example.com/projects/pub/versions/stable/"}}},
			"v2": map[string]any{"aliases": []any{}},
		}
		latest := dig(data, "project", "latest").(map[string]any)
		wantLatest := []any{map[string]any{"slug": "master"}}
		if got := dig(data, "project").(map[string]any); !reflect.DeepEqual(got["stable"], want["stable"]) ||
			!reflect.DeepEqual(got["v2"], want["v2"]) || !reflect.DeepEqual(latest["aliases"], wantLatest) {
			t.Errorf("aliases and urls: %v", got)
		}

		// Filters: slugContains in any case, type, the choice error.
		data = e.must(e.as("alice"), `{ project(slug: "pub") {
			a: versions(filter: {slugContains: "2.0"}) { nodes { slug } }
			b: versions(filter: {slugContains: "V2"}) { nodes { slug } }
			c: versions(filter: {type: "branch"}) { nodes { slug } }
			d: versions(filter: {type: "external"}) { totalCount }
			e: version(slug: "v2.0", filter: {slugContains: "V2", type: "tag"}) { slug } } }`, nil)
		slugs := func(key string) string {
			var out []string
			for _, n := range dig(data, "project", key, "nodes").([]any) {
				out = append(out, n.(map[string]any)["slug"].(string))
			}
			return strings.Join(out, " ")
		}
		if slugs("a") != "v2.0 release-2.0" || slugs("b") != "v2.0" || slugs("c") != "release-2.0 master latest" ||
			dig(data, "project", "d", "totalCount") != float64(0) || dig(data, "project", "e", "slug") != "v2.0" {
			t.Errorf("filters: a %q b %q c %q %v", slugs("a"), slugs("b"), slugs("c"), data)
		}
		if _, err := e.do(e.as("alice"), `{ project(slug: "pub") { version(slug: "v2.0", filter: {slugContains: "release"}) { slug } } }`, nil); kind(err) != "NOT_FOUND" {
			t.Errorf("detail narrowed by slugContains: %v", err)
		}
		_, err = e.do(e.as("alice"), `{ project(slug: "pub") { versions(filter: {type: "pr"}) { totalCount } } }`, nil)
		if f := errs.FieldsOf(err); !reflect.DeepEqual(f, errs.Fields{"type": {"Select a valid choice. pr is not one of the available choices."}}) {
			t.Errorf("type=pr: %v", err)
		}

		// Activation: false → true queues one build; true → true,
		// a skipped project and an uploaded version queue none.
		count := func() int {
			_, n, err := e.store.FindBuilds(ctx, store.BuildFilter{VersionID: &v1.ID})
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		activate := func(active bool) {
			e.must(e.as("alice"), `mutation($a: Boolean) { updateVersion(input: {project: "pub", version: "v1.0", active: $a}) { version { active } errors { path message code } } }`, map[string]any{"a": active})
		}
		activate(true)
		activate(true)
		if n := count(); n != 1 {
			t.Errorf("builds after activation = %d, want 1", n)
		}
		data = e.must(e.as("alice"), `{ project(slug: "pub") { version(slug: "v1.0") { lastBuild { state { code } versionName versionType readthedocsYamlPath
			urls { build project version } } } } }`, nil)
		b := dig(data, "project", "version", "lastBuild").(map[string]any)
		if b["versionName"] != "v1.0" || b["versionType"] != "tag" || b["readthedocsYamlPath"] != nil ||
			dig(b, "urls", "version") != "https://docs.example.com/projects/pub/versions/v1.0/" ||
			!strings.HasPrefix(dig(b, "urls", "build").(string), "https://docs.example.com/projects/pub/builds/") ||
			dig(b, "urls", "project") != "https://docs.example.com/projects/pub/" {
			t.Errorf("last build: %v", b)
		}
		activate(false)
		if _, err := e.store.UpdateProject(ctx, p.ID, store.ProjectUpdate{Skip: ptrTo(true)}); err != nil {
			t.Fatal(err)
		}
		activate(true)
		activate(false)
		if _, err := e.store.UpdateProject(ctx, p.ID, store.ProjectUpdate{Skip: ptrTo(false)}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.store.UpdateVersion(ctx, v1.ID, store.VersionUpdate{Uploaded: ptrTo(true)}); err != nil {
			t.Fatal(err)
		}
		activate(true)
		if n := count(); n != 1 {
			t.Errorf("builds after skipped and uploaded activations = %d, want 1", n)
		}

		// v2's documentation_type: the doctype of the last
		// successful build's configuration, else the project's.
		bs, _, err := e.store.FindBuilds(ctx, store.BuildFilter{VersionID: &v1.ID})
		if err != nil || len(bs) != 1 {
			t.Fatal(bs, err)
		}
		if err := e.store.SetBuildConfig(ctx, bs[0].ID, `{"doctype": "mkdocs"}`); err != nil {
			t.Fatal(err)
		}
		doctypes := func() string {
			data := e.must(e.as("alice"), `{ project(slug: "pub") { documentationType a: version(slug: "v1.0") { documentationType } b: version(slug: "v2.0") { documentationType } } }`, nil)
			return dig(data, "project", "documentationType").(string) + " " + dig(data, "project", "a", "documentationType").(string) + " " + dig(data, "project", "b", "documentationType").(string)
		}
		if got := doctypes(); got != "sphinx sphinx sphinx" { // not finished yet
			t.Errorf("doctypes before the build finished: %s", got)
		}
		if _, err := e.store.FinishBuild(ctx, bs[0].ID, store.BuildResult{Success: true}); err != nil {
			t.Fatal(err)
		}
		if got := doctypes(); got != "sphinx mkdocs sphinx" {
			t.Errorf("doctypes after the build: %s", got)
		}
	})
}

// TestProjectNameAndSlugFilters: nameContains compares with Unicode simple
// case mapping on both databases; slugContains in any case.
func TestProjectNameAndSlugFilters(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d)
		for _, name := range []string{"Ärger Docs", "pip", "pip-tools", "sphinx-pipeline", "Other"} {
			e.importProject("alice", name)
		}
		for _, tc := range []struct{ filter, want string }{
			{`{nameContains: "ärger", maintainedByViewer: true}`, "arger-docs"},
			{`{nameContains: "ÄRGER"}`, "arger-docs"},
			{`{slugContains: "PIP"}`, "pip pip-tools sphinx-pipeline"},
			{`{slugContains: "pip", nameContains: "TOOLS"}`, "pip-tools"},
			{`{slugContains: "  "}`, "arger-docs other pip pip-tools sphinx-pipeline"},
			{`{slugContains: " pip-t ", nameContains: "\tTOOLS\n"}`, "pip-tools"}, // trimmed (django-filter's CharFilter)
			{`{slugContains: "%"}`, ""},
			{`{slugContains: "_"}`, ""},
		} {
			data := e.must(e.as("alice"), `{ projects(filter: `+tc.filter+`) { totalCount nodes { slug } } }`, nil)
			var got []string
			for _, n := range dig(data, "projects", "nodes").([]any) {
				got = append(got, n.(map[string]any)["slug"].(string))
			}
			if strings.Join(got, " ") != tc.want || dig(data, "projects", "totalCount") != float64(len(got)) {
				t.Errorf("%s: %v (%v), want %q", tc.filter, got, dig(data, "projects", "totalCount"), tc.want)
			}
		}
		if _, err := e.do(e.as("alice"), `{ project(slug: "pip", filter: {nameContains: "tools"}) { slug } }`, nil); kind(err) != "NOT_FOUND" {
			t.Errorf("detail narrowed by nameContains: %v", err)
		}
	})
}

// TestEnvironmentVariableFields: `public`, the 48000-character value and
// the 256 KB project total, with REST's messages.
func TestEnvironmentVariableFields(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d)
		e.importProject("alice", "pub")
		create := `mutation($n: String, $v: String, $p: Boolean) { createEnvironmentVariable(input: {project: "pub", name: $n, value: $v, public: $p}) { environmentVariable { name public } errors { path message code } } }`
		data := e.must(e.as("alice"), create, map[string]any{"n": "PUB", "v": "a public value", "p": true})
		if got := dig(data, "createEnvironmentVariable", "environmentVariable"); !reflect.DeepEqual(got, map[string]any{"name": "PUB", "public": true}) {
			t.Errorf("created: %v", got)
		}
		data = e.must(e.as("alice"), `mutation { createEnvironmentVariable(input: {project: "pub", name: "PRIV", value: "x"}) { environmentVariable { public } errors { path message code } } }`, nil)
		if dig(data, "createEnvironmentVariable", "environmentVariable", "public") != false {
			t.Errorf("default public: %v", data)
		}
		_, err := e.do(e.as("alice"), create, map[string]any{"n": "NUL", "v": "x", "p": nil})
		if f := errs.FieldsOf(err); !reflect.DeepEqual(f, errs.Fields{"public": {"This field may not be null."}}) {
			t.Errorf("public null: %v", err)
		}
		_, err = e.do(e.as("alice"), create, map[string]any{"n": "BIG", "v": strings.Repeat("é", 48001)})
		if f := errs.FieldsOf(err); !reflect.DeepEqual(f, errs.Fields{"value": {"Ensure this field has no more than 48000 characters."}}) {
			t.Errorf("48001 characters: %v", err)
		}
		for _, name := range []string{"A", "B", "C", "D", "E"} { // 15 + 5 × 48000 = 240015 characters
			e.must(e.as("alice"), create, map[string]any{"n": name, "v": strings.Repeat("é", 48000)})
		}
		total := errs.Fields{"value": {"The total size of all environment variables in the project cannot exceed 256 KB."}}
		if _, err = e.do(e.as("alice"), create, map[string]any{"n": "F", "v": strings.Repeat("x", 15986)}); !reflect.DeepEqual(errs.FieldsOf(err), total) {
			t.Errorf("256001 characters: %v", err)
		}
		e.must(e.as("alice"), create, map[string]any{"n": "F", "v": strings.Repeat("x", 15985)})
		if _, err = e.do(e.as("alice"), create, map[string]any{"n": "G", "v": "y"}); !reflect.DeepEqual(errs.FieldsOf(err), total) {
			t.Errorf("past 256000 characters: %v", err)
		}
	})
}

func ptrTo[T any](v T) *T { return &v }
