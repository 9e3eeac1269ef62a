package graph_test

import (
	"testing"

	"docsd/internal/errs"
	"docsd/internal/storetest"
	"docsd/store"
)

// TestSyncNotificationAndUploadFields: syncVersions, Build.errorId and
// notifications, project notifications, the upload API without a target
// (off), setVersionUploaded — with their permissions.
func TestSyncNotificationAndUploadFields(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d)
		ctx := t.Context()
		p := e.importedProject("alice", "pub")
		bs, _, err := e.store.FindBuilds(ctx, store.BuildFilter{ProjectID: &p.ID})
		if err != nil || len(bs) != 1 {
			t.Fatal(bs, err)
		}
		if _, err := e.store.FinishBuild(ctx, bs[0].ID, store.BuildResult{Error: "Build terminated.", ErrorID: "build:user:time-out"}); err != nil {
			t.Fatal(err)
		}
		build := map[string]any{"id": bs[0].ID}
		data := e.must(e.as("bob"), `query($id: ID!, $nid: Int!) { build(id: $id) { errorId notifications(filter: {stateIn: ["unread"]}) { totalCount nodes {
			id attachedToId message { id header body type iconClasses } state } } notification(id: $nid) { id } } }`, map[string]any{"id": bs[0].ID, "nid": bs[0].ID})
		if dig(data, "build", "errorId") != "build:user:time-out" || dig(data, "build", "notifications", "totalCount") != float64(1) ||
			dig(data, "build", "notifications", "nodes", 0, "message", "header") != "Build terminated due to time out." ||
			dig(data, "build", "notifications", "nodes", 0, "message", "body") != "Build terminated." ||
			dig(data, "build", "notification", "id") != float64(bs[0].ID) {
			t.Errorf("build notifications: %v", data)
		}
		data = e.must(e.as("bob"), `query($id: ID!) { build(id: $id) { notifications(filter: {stateIn: ["read"]}) { totalCount } } }`, build)
		if dig(data, "build", "notifications", "totalCount") != float64(0) {
			t.Errorf("read notifications: %v", data)
		}

		data = e.must(e.as("alice"), `{ project(slug: "pub") { notifications { totalCount } notification(id: 1) { id } } }`, nil)
		if dig(data, "project", "notifications", "totalCount") != float64(0) || dig(data, "project", "notification") != nil {
			t.Errorf("project notifications: %v", data)
		}
		if _, err := e.do(e.as("bob"), `{ project(slug: "pub") { notifications { totalCount } } }`, nil); kind(err) != "FORBIDDEN" {
			t.Errorf("bob reads project notifications: %v", err)
		}

		data = e.must(e.as("alice"), `mutation { syncVersions(input: {project: "pub"}) { triggered errors { path message code } } }`, nil)
		if dig(data, "syncVersions", "triggered") != true {
			t.Errorf("syncVersions: %v", data)
		}
		for who, want := range map[string]string{"bob": "FORBIDDEN", "": "UNAUTHENTICATED"} {
			if _, err := e.do(e.as(who), `mutation { syncVersions(input: {project: "pub"}) { triggered errors { path message code } } }`, nil); kind(err) != want {
				t.Errorf("syncVersions as %q: %v, want %s", who, err, want)
			}
		}

		// Without an upload target the upload API is off.
		data = e.must(e.as("alice"), `mutation { initiateUpload(input: {project: "pub", versionName: "main", versionType: branch, versionCommit: "abc"}) { outcome build { id } errors { path message code } } }`, nil)
		if dig(data, "initiateUpload", "outcome") != "disabled" || dig(data, "initiateUpload", "build") != nil {
			t.Errorf("initiateUpload: %v", data)
		}
		_, err = e.do(e.as("alice"), `mutation { initiateUpload(input: {project: "pub", versionName: "", versionType: unknown, versionCommit: "abc"}) { outcome errors { path message code } } }`, nil)
		// The payload's paths name the input's fields (versionName), not REST's body keys (version.name).
		if f := errs.FieldsOf(err); f["version_name"] == nil || f["version_type"] == nil {
			t.Errorf("initiateUpload validation: %v", err)
		}

		data = e.must(e.as("alice"), `mutation { setVersionUploaded(input: {project: "pub", version: "latest", uploaded: true}) { version { uploaded } errors { path message code } } }`, nil)
		if dig(data, "setVersionUploaded", "version", "uploaded") != true {
			t.Errorf("setVersionUploaded: %v", data)
		}
		if _, err := e.do(e.as("alice"), `mutation { triggerBuild(input: {project: "pub", version: "latest"}) { triggered errors { path message code } } }`, nil); kind(err) != "INVALID" {
			t.Errorf("trigger of an uploaded version: %v", err)
		}
		data = e.must(e.as("alice"), `{ project(slug: "pub") { versions(filter: {uploaded: true}) { totalCount } } }`, nil)
		if dig(data, "project", "versions", "totalCount") != float64(1) {
			t.Errorf("uploaded filter: %v", data)
		}
		if _, err := e.do(e.as("bob"), `mutation { setVersionUploaded(input: {project: "pub", version: "latest", uploaded: false}) { version { uploaded } errors { path message code } } }`, nil); kind(err) != "FORBIDDEN" {
			t.Errorf("bob sets uploaded: %v", err)
		}
	})
}
