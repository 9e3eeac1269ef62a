package rest

import (
	"fmt"
	"testing"

	"docsd/internal/storetest"
	"docsd/store"
)

// TestV3BuildNotifications: a failed build has one notification derived
// from its error and error id, other builds none, with the build detail's
// visibility, the state filters and an Allow without writes.
func TestV3BuildNotifications(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newV3Env(t, d)
		w := e.world()
		// Build 4 fails at a command: its stored id is used. (Build 3
		// finishes first: one build per project runs at a time.)
		if _, err := e.store.FinishBuild(t.Context(), w.build3.ID, store.BuildResult{Success: true}); err != nil {
			t.Fatal(err)
		}
		e.claim(w.build4.ID)
		if _, err := e.store.FinishBuild(t.Context(), w.build4.ID, store.BuildResult{Success: false, ExitCode: v3Ptr(2),
			Error:   `Command "python -m sphinx -T -b html -d _build/doctrees -D language=en . _readthedocs/html" failed with exit code 2.`,
			ErrorID: "build:user:generic"}); err != nil {
			t.Fatal(err)
		}
		n := func(b *store.Build, rest string) string {
			return fmt.Sprintf("/api/v3/projects/project/builds/%d/notifications/%s", b.ID, rest)
		}
		for _, c := range []v3Case{
			// Build 1 failed without an id: the generic internal-error id.
			{v3Get(n(w.build1, ""), "alice"), 200, "build_notifications_generic"},
			{v3Get(n(w.build4, ""), "alice"), 200, "build_notifications"},
			{v3Get(n(w.build4, fmt.Sprint(w.build4.ID)+"/"), "alice"), 200, "build_notification_detail"},
			{v3Get(n(w.build4, fmt.Sprint(w.build4.ID)+"/?fields=id,message"), "alice"), 200, "build_notification_fields"},
			{v3Get(n(w.build4, fmt.Sprint(w.build1.ID)+"/"), "alice"), 404, "error_404"},
			{v3Get(n(w.build4, "abc/"), "alice"), 404, "error_404"},
			{v3Get(n(w.build2, ""), "alice"), 200, "notifications_empty"},
			{v3Get(n(w.build2, fmt.Sprint(w.build2.ID)+"/"), "alice"), 404, "error_404"},
			{v3Get(n(w.build3, ""), "alice"), 200, "notifications_empty"}, // succeeded
			// Filters.
			{v3Get(n(w.build4, "?state=unread"), "alice"), 200, "build_notifications"},
			{v3Get(n(w.build4, "?state=read"), "alice"), 200, "notifications_empty"},
			{v3Get(n(w.build4, "?state__in=read,unread"), "alice"), 200, "build_notifications"},
			{v3Get(n(w.build4, "?state__in=read,dismissed"), "alice"), 200, "notifications_empty"},
			{v3Get(n(w.build4, fmt.Sprint(w.build4.ID)+"/?state=dismissed"), "alice"), 404, "error_404"},
			{v3Get(n(w.build4, "?state=new"), "alice"), 400, "notifications_bad_state"},
			{v3Get(n(w.build4, "?state__in=unread,new"), "alice"), 400, "notifications_bad_state_in"},
			// Outcome matrix: visible to whoever sees the build.
			{v3Get(n(w.build4, ""), "bob"), 200, "build_notifications"},
			{v3Get(n(w.build3, ""), "bob"), 404, "error_404"},
			{v3Get(fmt.Sprintf("/api/v3/projects/other/builds/%d/notifications/", w.otherHiddenBuild.ID), "alice"), 404, "error_404"},
			{v3Get(fmt.Sprintf("/api/v3/projects/secret/builds/%d/notifications/", w.build4.ID), "alice"), 404, "error_404"},
			{v3Get("/api/v3/projects/nope/builds/1/notifications/", "alice"), 404, "error_404"},
			{v3Get(n(w.build4, ""), ""), 401, "error_401_no_credentials"},
			// Read-only: writes are 405.
			{v3Send("PATCH", n(w.build4, fmt.Sprint(w.build4.ID)+"/"), "alice", `{"state": "read"}`), 405, "error_405_patch"},
			{v3Send("POST", n(w.build4, ""), "alice", `{}`), 405, "error_405_post"},
		} {
			r := e.check(t, c)
			if r.status != 401 && r.status != 404 {
				if got := r.header.Get("Allow"); got != "GET, HEAD, OPTIONS" {
					t.Errorf("%s: Allow %q", c.call.path, got)
				}
			}
		}
	})
}

// TestV3ProjectNotifications: maintainers read an empty list.
func TestV3ProjectNotifications(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newV3Env(t, d)
		e.world()
		const pn = "/api/v3/projects/project/notifications/"
		for _, c := range []v3Case{
			{v3Get(pn, "alice"), 200, "notifications_empty"},
			{v3Get(pn+"?state=unread", "alice"), 200, "notifications_empty"},
			{v3Get(pn+"?state=new", "alice"), 400, "notifications_bad_state"},
			{v3Get(pn+"1/", "alice"), 404, "error_404"},
			{v3Get(pn, "bob"), 403, "error_403"},
			{v3Get("/api/v3/projects/secret/notifications/", "alice"), 403, "error_403"},
			{v3Get("/api/v3/projects/nope/notifications/", "alice"), 404, "error_404"},
			{v3Get(pn, ""), 401, "error_401_no_credentials"},
			{v3Send("DELETE", pn+"1/", "alice", ""), 405, "error_405_delete"},
		} {
			e.check(t, c)
		}
		if got := e.get(pn, "alice").header.Get("Allow"); got != "GET, HEAD, OPTIONS" {
			t.Errorf("Allow %q", got)
		}
	})
}

// TestV3SyncVersions: 202 when a sync is queued, 400 when none can be, and
// who may ask.
func TestV3SyncVersions(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newV3Env(t, d)
		w := e.world()
		const sv = "/api/v3/projects/project/sync-versions/"
		queued := func(p *store.Project) int {
			t.Helper()
			n := 0
			for {
				task, err := e.store.ClaimSyncTask(t.Context(), "test", 60e9)
				if err != nil {
					break
				}
				if task.ProjectID == p.ID {
					n++
				}
				if err := e.store.FinishSyncTask(t.Context(), task.ID); err != nil {
					t.Fatal(err)
				}
			}
			return n
		}
		for _, c := range []v3Case{
			{v3Send("POST", sv, "alice", `not even json`), 202, "sync_versions_triggered"},
			// A sync already queued is not queued twice; still 202.
			{v3Call{method: "POST", path: sv, as: "alice"}, 202, "sync_versions_triggered"},
			{v3Get(sv, "alice"), 405, "error_405_get"},
			{v3Send("POST", sv, "bob", `{}`), 403, "error_403"},
			{v3Send("POST", "/api/v3/projects/secret/sync-versions/", "alice", `{}`), 403, "error_403"},
			{v3Send("POST", "/api/v3/projects/nope/sync-versions/", "alice", `{}`), 404, "error_404"},
			{v3Send("POST", sv, "", `{}`), 401, "error_401_no_credentials"},
		} {
			r := e.check(t, c)
			if r.status == 202 || r.status == 405 {
				if got := r.header.Get("Allow"); got != "POST, OPTIONS" {
					t.Errorf("Allow %q, want POST, OPTIONS", got)
				}
			}
		}
		// Build 3 is running: a sync task waits for it.
		if _, err := e.store.FinishBuild(t.Context(), w.build3.ID, store.BuildResult{Success: true}); err != nil {
			t.Fatal(err)
		}
		if got := queued(w.project); got != 1 {
			t.Errorf("%d sync tasks queued, want 1", got)
		}

		// skip set → 400 {"triggered": false}.
		if _, err := e.store.UpdateProject(t.Context(), w.subproject.ID, store.ProjectUpdate{Skip: v3Ptr(true)}); err != nil {
			t.Fatal(err)
		}
		e.check(t, v3Case{v3Send("POST", "/api/v3/projects/subproject/sync-versions/", "alice", `{}`), 400, "sync_versions_not_triggered"})
		// No latest version → 400.
		latest, err := e.store.FindVersionBySlug(t.Context(), w.translation.ID, store.Latest)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.store.DeleteVersion(t.Context(), latest.ID); err != nil {
			t.Fatal(err)
		}
		e.check(t, v3Case{v3Send("POST", "/api/v3/projects/translation/sync-versions/", "alice", `{}`), 400, "sync_versions_not_triggered"})
		if got := queued(w.subproject) + queued(w.translation); got != 0 {
			t.Errorf("%d sync tasks queued for untriggered syncs", got)
		}
	})
}
