package rest

import (
	"fmt"
	"strings"
	"testing"

	"docsd/internal/storetest"
	"docsd/store"
)

// TestV3VersionWrites: every version field RTD's current API accepts is
// written and read back, a PUT needs nothing, and the new version filters
// filter, on both databases.
func TestV3VersionWrites(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newV3Env(t, d)
		w := e.world()
		ctx := t.Context()
		// A machine stable, picking v1.0 (the only tag); and versions the
		// filters tell apart.
		for _, v := range []store.Version{
			{Slug: "stable", VerboseName: "stable", Identifier: v3Commit, Type: store.Tag, Active: true, Machine: true},
			{Slug: "1.0", VerboseName: "1.0", Identifier: "1.0", Type: store.Tag},
			{Slug: "release-1.0", VerboseName: "release-1.0", Identifier: "release-1.0", Type: store.Branch},
		} {
			v.ProjectID, v.PrivacyLevel = w.project.ID, store.Public
			if _, err := e.store.CreateVersion(ctx, &v); err != nil {
				t.Fatal(err)
			}
		}
		const v1 = v3PP + "versions/v1.0/"
		for _, c := range []v3Case{
			{v3Get(v3PP+"versions/stable/", "alice"), 200, "version_stable"},
			{v3Send("PATCH", v1, "alice", `{"hidden": true, "privacy_level": "private"}`), 204, ""},
			{v3Get(v1, "alice"), 200, "version_hidden_private"},
			{v3Get(v1, "bob"), 404, "error_404"},
			{v3Get(v3PP+"versions/stable/?fields=slug,aliases", "alice"), 200, "version_stable_aliases_maintainer"},
			{v3Get(v3PP+"versions/stable/?fields=slug,aliases", "bob"), 200, "version_stable_aliases_other"},
			{v3Get(v3PP+"?expand=active_versions&fields=active_versions", "alice"), 200, "project_active_versions_without_private"},
			{v3Send("PATCH", v1, "alice", `{"privacy_level": "publicprivate"}`), 400, "version_patch_bad_choice"},
			{v3Send("PATCH", v1, "alice", `{"hidden": "maybe", "privacy_level": null}`), 400, "version_patch_bad_types"},
			{v3Send("PATCH", v1, "alice", `{"hidden": null, "privacy_level": 3}`), 400, "version_patch_null_hidden"},
			{v3Send("PUT", v1, "alice", `{}`), 204, ""},
			{v3Get(v1, "alice"), 200, "version_hidden_private"},
			{v3Get(v3PP+"versions/?hidden=true", "alice"), 200, "versions_unknown_parameter"}, // not a v3 filter: ignored
			{v3Send("PUT", v1, "alice", `{"hidden": false, "privacy_level": "public", "active": true}`), 204, ""},
			{v3Get(v1, "bob"), 200, "version_public_again"},
			// Filters.
			{v3Get(v3PP+"versions/?slug=1.0&fields=slug", "alice"), 200, "versions_filter_slug"},
			{v3Get(v3PP+"versions/?slug=1.0&slug=V2&fields=slug", "alice"), 200, "versions_filter_slug_last"},
			{v3Get(v3PP+"versions/?slug=%20&fields=slug", "alice"), 200, "versions_filter_blank"},
			{v3Get(v3PP+"versions/?slug=%201.0%20&fields=slug", "alice"), 200, "versions_filter_slug"}, // trimmed, as django-filter's CharFilter
			{v3Get(v3PP+"versions/?type=branch&fields=slug", "alice"), 200, "versions_filter_type_branch"},
			{v3Get(v3PP+"versions/?type=external&fields=slug", "alice"), 200, "versions_filter_none"},
			{v3Get(v3PP+"versions/?type=pr", "alice"), 400, "versions_filter_type_pr"},
			{v3Get(v3PP+"versions/?verbose_name=1.0&fields=slug", "alice"), 200, "versions_filter_verbose_name"},
			{v3Get(v3PP+"versions/v1.0/?slug=release", "alice"), 404, "error_404"},
			{v3Get(v3PP+"versions/v1.0/?type=tag&slug=V1&fields=slug", "alice"), 200, "version_detail_filters_match"},
			{v3Get("/api/v3/projects/?name=PROJ&fields=slug", "alice"), 200, "projects_filter_name"},
			{v3Get("/api/v3/projects/?name=%09PROJ%20&fields=slug", "alice"), 200, "projects_filter_name"},
			{v3Get("/api/v3/projects/?slug=TRANS&fields=slug", "alice"), 200, "projects_filter_slug"},
			{v3Get("/api/v3/projects/project/?name=sub", "alice"), 404, "error_404"},
		} {
			e.check(t, c)
		}
	})
}

// TestV3ActivationBuild: a PATCH or PUT turning `active` from false to true
// queues one build of the version; not again when it is active, nor when
// the project's builds are disabled or the version is uploaded.
func TestV3ActivationBuild(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newV3Env(t, d)
		w := e.world()
		ctx := t.Context()
		builds := func() int {
			_, n, err := e.store.FindBuilds(ctx, store.BuildFilter{VersionID: &w.v2.ID})
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		const v2 = v3PP + "versions/v2.0/"
		before := builds()
		for _, step := range []struct {
			method, body string
			added        int
			setup        func()
		}{
			{"PATCH", `{"active": true}`, 1, nil},
			{"PATCH", `{"active": true}`, 0, nil},
			{"PUT", `{"active": false}`, 0, nil},
			{"PUT", `{"active": true}`, 1, nil},
			{"PATCH", `{"active": false}`, 0, func() {
				if _, err := e.store.UpdateProject(ctx, w.project.ID, store.ProjectUpdate{Skip: v3Ptr(true)}); err != nil {
					t.Fatal(err)
				}
			}},
			{"PATCH", `{"active": true}`, 0, nil},
			{"PATCH", `{"active": false}`, 0, func() {
				if _, err := e.store.UpdateProject(ctx, w.project.ID, store.ProjectUpdate{Skip: v3Ptr(false)}); err != nil {
					t.Fatal(err)
				}
				if _, err := e.store.UpdateVersion(ctx, w.v2.ID, store.VersionUpdate{Uploaded: v3Ptr(true)}); err != nil {
					t.Fatal(err)
				}
			}},
			{"PATCH", `{"active": true}`, 0, nil},
		} {
			if step.setup != nil {
				step.setup()
			}
			e.check(t, v3Case{v3Send(step.method, v2, "alice", step.body), 204, ""})
			if got := builds(); got != before+step.added {
				t.Errorf("%s %s: %d builds, want %d", step.method, step.body, got, before+step.added)
			}
			before = builds()
		}
		e.check(t, v3Case{v3Get(v3PP+"builds/?limit=1", "alice"), 200, "version_activation_build"})
	})
}

// TestV3EnvVarPublic: `public` (public variables also reach pull-request
// builds) and the larger limits: 48000 characters a value, 256 KB a
// project.
func TestV3EnvVarPublic(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newV3Env(t, d)
		e.world()
		const ev = v3PP + "environmentvariables/"
		big := func(name string, n int) string {
			return fmt.Sprintf(`{"name": %q, "value": %q}`, name, strings.Repeat("é", n))
		}
		for _, c := range []v3Case{
			{v3Send("POST", ev, "alice", `{"name": "NEWENVVAR", "value": "a public value", "public": true}`), 201, "envvar_public_created"},
			{v3Get(ev+"2/", "alice"), 200, "envvar_public_created"},
			{v3Send("POST", ev, "alice", `{"name": "X", "value": "v", "public": "maybe"}`), 400, "envvar_public_not_boolean"},
			{v3Send("POST", ev, "alice", `{"name": "X", "value": "v", "public": null}`), 400, "envvar_public_null"},
			{v3Send("POST", ev, "alice", big("X", 48001)), 400, "envvar_value_too_long"},
		} {
			e.check(t, c)
		}
		// 14 + 14 characters are stored; five values of 48000 make 240028.
		for _, name := range []string{"A", "B", "C", "D", "E"} {
			if r := e.do(v3Send("POST", ev, "alice", big(name, 48000))); r.status != 201 {
				t.Fatalf("POST %s: %d %s", name, r.status, r.body)
			}
		}
		e.check(t, v3Case{v3Send("POST", ev, "alice", big("F", 256000-240028+1)), 400, "envvar_total_too_big"})
		if r := e.do(v3Send("POST", ev, "alice", big("F", 256000-240028))); r.status != 201 {
			t.Errorf("POST F at exactly 256000: %d %s", r.status, r.body)
		}
		e.check(t, v3Case{v3Get(ev+"?fields=name,public", "alice"), 200, "envvars_list_public"})
		e.check(t, v3Case{v3Send("PATCH", ev+"2/", "alice", `{"public": false}`), 405, "error_405_patch"})
	})
}

// TestCancelledBuildRepresentation: a cancelled build is finished,
// unsuccessful, with error "Build cancelled manually." in v3, a null exit
// code in v2, and a build:user:cancelled notification.
func TestCancelledBuildRepresentation(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newV3Env(t, d)
		w := e.world()
		if _, err := e.store.CancelBuild(t.Context(), w.build4.ID); err != nil {
			t.Fatal(err)
		}
		id := fmt.Sprint(w.build4.ID)
		e.check(t, v3Case{v3Get(v3PP+"builds/"+id+"/", "alice"), 200, "build_cancelled"})
		e.check(t, v3Case{v3Get(v3PP+"builds/"+id+"/notifications/?fields=id,message", "alice"), 200, "build_cancelled_notifications"})
		r := e.do(v3Get("/api/v2/build/"+id+"/", ""))
		if r.status != 200 || !strings.Contains(string(r.body), `"state":"finished","success":false,"error":"Build cancelled manually."`) ||
			!strings.Contains(string(r.body), `"exit_code":null`) {
			t.Errorf("v2 build: %d %s", r.status, r.body)
		}
	})
}
