package webhook

import (
	"context"
	"strings"
	"testing"
	"time"

	"docsd/internal/storetest"
	"docsd/store"
)

// TestGitHubReplay: a signed delivery whose X-GitHub-Delivery id the
// project already processed is answered as a duplicate and queues nothing;
// another id, or the same id on another project, is processed.
func TestGitHubReplay(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		f := newFixture(t, d)
		body := `{"ref": "refs/heads/master"}`
		deliver := func(id string) (int, string) {
			t.Helper()
			code, b, _ := f.do("POST", "/api/v2/webhook/github/demo/", map[string]string{
				"X-GitHub-Event": "push", "X-GitHub-Delivery": id, "X-Hub-Signature-256": sign(f.github.Secret, body)}, body)
			return code, b
		}
		code, b := deliver("72d3162e-cc78-11e3-81ab-4c9367dc0958")
		f.expect(code, b, 200, `{"build_triggered":true,"project":"demo","versions":["latest","master"]}`)
		code, b = deliver("72d3162e-cc78-11e3-81ab-4c9367dc0958")
		f.expect(code, b, 200, `{"detail":"This webhook delivery was already processed."}`)
		if got := f.builds(); strings.Join(got, ",") != "latest,master" {
			t.Errorf("builds after the replay %v, want only the first delivery's latest,master", got)
		}
		code, b = deliver("a-second-delivery")
		f.expect(code, b, 200, `{"build_triggered":true,"project":"demo","versions":["latest","master"]}`)

		// A tampered replay fails the signature check before the id counts.
		code, b, _ = f.do("POST", "/api/v2/webhook/github/demo/", map[string]string{
			"X-GitHub-Event": "push", "X-GitHub-Delivery": "third", "X-Hub-Signature-256": sign("wrong", body)}, body)
		if code != 400 {
			t.Fatalf("bad signature: %d %s", code, b)
		}
		code, b = deliver("third")
		f.expect(code, b, 200, `{"build_triggered":true,"project":"demo","versions":["latest","master"]}`)
	})
}

// TestRecordWebhookDeliveryRetention: ids are per project and forgotten
// after the retention bound.
func TestRecordWebhookDeliveryRetention(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		f := newFixture(t, d)
		ctx := context.Background()
		other := storetest.MustImport(t, f.s, f.user, "Other", "https://github.com/acme/other").Project
		record := func(projectID int64, id string, retention time.Duration) bool {
			t.Helper()
			fresh, err := f.s.RecordWebhookDelivery(ctx, projectID, id, retention)
			if err != nil {
				t.Fatal(err)
			}
			return fresh
		}
		if !record(f.project.ID, "d1", time.Hour) {
			t.Error("first record of d1 is not fresh")
		}
		if record(f.project.ID, "d1", time.Hour) {
			t.Error("second record of d1 is fresh")
		}
		if !record(other.ID, "d1", time.Hour) {
			t.Error("d1 on another project is not fresh")
		}
		// A negative retention forgets everything recorded before now.
		if !record(f.project.ID, "d1", -time.Second) {
			t.Error("d1 past the retention bound is still a duplicate")
		}
	})
}

// TestPushSkipsUploadedVersions: a version published by the upload API is
// never built from a push.
func TestPushSkipsUploadedVersions(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		f := newFixture(t, d)
		v, err := f.s.FindVersionBySlug(context.Background(), f.project.ID, "master")
		if err != nil {
			t.Fatal(err)
		}
		uploaded := true
		if _, err := f.s.UpdateVersion(context.Background(), v.ID, store.VersionUpdate{Uploaded: &uploaded}); err != nil {
			t.Fatal(err)
		}
		code, b := f.githubEvent("push", `{"ref": "refs/heads/master"}`)
		f.expect(code, b, 200, `{"build_triggered":true,"project":"demo","versions":["latest"]}`)
		if got := f.builds(); strings.Join(got, ",") != "latest" {
			t.Errorf("builds %v, want latest only", got)
		}
	})
}
