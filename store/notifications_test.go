package store_test

import (
	"context"
	"maps"
	"strconv"
	"strings"
	"testing"
	"time"

	"docsd/internal/errs"
	"docsd/internal/storetest"
	"docsd/store"
)

// TestNotificationQueue: which build changes queue which deliveries, and
// how workers claim them.
func TestNotificationQueue(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		ctx := context.Background()
		s, db := openWithSQL(t, d)
		sealer, err := store.NewSealer("notification-queue-test-key")
		must(t, err)
		s.UseSealer(sealer)
		clock := storetest.SetClock(s, t0)
		u, _ := storetest.MustUser(t, s, "alice")
		p := storetest.MustImport(t, s, u, "Demo", "https://example.com/demo.git").Project
		v := storetest.MustVersion(t, s, p.ID, "main")
		pr, err := s.CreateVersion(ctx, &store.Version{ProjectID: p.ID, Slug: "7", VerboseName: "7", Identifier: "abc", Type: store.External, Active: true, PrivacyLevel: store.Public})
		must(t, err)

		all, err := s.CreateWebhook(ctx, store.Webhook{ProjectID: p.ID, URL: "https://hooks.example.com/a"}, store.BuildEvents)
		must(t, err)
		failedOnly, err := s.CreateWebhook(ctx, store.Webhook{ProjectID: p.ID, URL: "https://hooks.example.com/b", Secret: "given"}, []string{store.EventBuildFailed})
		must(t, err)
		if len(all.Secret) != 64 || failedOnly.Secret != "given" || strings.Join(all.Events(), " ") != "build:triggered build:passed build:failed" {
			t.Errorf("webhooks = %+v, %+v", all, failedOnly)
		}
		var raw string
		must(t, db.QueryRow(`SELECT secret FROM webhooks WHERE id = `+strconv.FormatInt(all.ID, 10)).Scan(&raw))
		if !store.IsSealed(raw) {
			t.Errorf("the secret is stored as %q, want sealed", raw)
		}
		_, err = s.CreateEmailHook(ctx, p.ID, "team@example.com")
		must(t, err)
		_, err = s.CreateEmailHook(ctx, p.ID, "team@example.com")
		wantKind(t, err, errs.Conflict)

		count := func() map[string]int {
			t.Helper()
			rows, err := db.Query(`SELECT event, COALESCE(webhook_id, 0), COALESCE(email_hook_id, 0) FROM notification_deliveries`)
			must(t, err)
			defer rows.Close()
			out := map[string]int{}
			for rows.Next() {
				var event string
				var w, e int64
				must(t, rows.Scan(&event, &w, &e))
				key := event + "→webhook"
				if e != 0 {
					key = event + "→email"
				}
				out[key]++
			}
			return out
		}
		ok, err := s.CreateBuild(ctx, v, nil)
		must(t, err)
		_, err = s.FinishBuild(ctx, ok.ID, store.BuildResult{Success: true})
		must(t, err)
		bad, err := s.CreateBuild(ctx, v, nil)
		must(t, err)
		_, err = s.FinishBuild(ctx, bad.ID, store.BuildResult{Success: false, Error: "x", ErrorID: "build:user:generic"})
		must(t, err)
		cancelled, err := s.CreateBuild(ctx, v, nil)
		must(t, err)
		_, err = s.CancelBuild(ctx, cancelled.ID)
		must(t, err)
		commit := "abc"
		preview, err := s.CreateBuild(ctx, pr, &commit)
		must(t, err)
		_, err = s.FinishBuild(ctx, preview.ID, store.BuildResult{Success: false, Error: "x"})
		must(t, err)
		want := map[string]int{"build:triggered→webhook": 3, "build:passed→webhook": 1, "build:failed→webhook": 2, "build:failed→email": 1}
		if got := count(); !maps.Equal(got, want) {
			t.Errorf("deliveries = %v, want %v (none for the cancelled build's end or the pull request)", got, want)
		}

		// Claims: each delivery to one owner; a lost lease is a Conflict.
		seen := map[int64]bool{}
		for {
			dv, err := s.ClaimDelivery(ctx, "w1", time.Minute)
			if errs.Is(err, errs.NotFound) {
				break
			}
			must(t, err)
			if seen[dv.ID] || dv.Attempts != 1 || *dv.LeaseOwner != "w1" {
				t.Fatalf("claimed %+v twice or wrongly", dv)
			}
			seen[dv.ID] = true
		}
		if len(seen) != 7 {
			t.Errorf("claimed %d deliveries, want 7", len(seen))
		}
		var first int64
		for id := range seen {
			if first == 0 || id < first {
				first = id
			}
		}
		status := 500
		retry := store.DeliveryOutcome{State: store.DeliveryQueued, RetryAt: clock.Now().Add(30 * time.Second), Error: "the receiver answered 500",
			Attempt: store.DeliveryAttempt{Started: clock.Now(), DurationMS: 12, ResponseStatus: &status, ResponseBody: "busy"}}
		wantKind(t, s.RecordDeliveryAttempt(ctx, first, "w2", retry), errs.Conflict)
		must(t, s.RecordDeliveryAttempt(ctx, first, "w1", retry))
		if _, err := s.ClaimDelivery(ctx, "w1", time.Minute); !errs.Is(err, errs.NotFound) {
			t.Errorf("a delivery was due before its retry time: %v", err)
		}
		clock.Advance(31 * time.Second)
		again, err := s.ClaimDelivery(ctx, "w2", time.Minute)
		must(t, err)
		if again.ID != first || again.Attempts != 2 {
			t.Errorf("claimed %+v, want delivery %d's second attempt", again, first)
		}
		// Leases of a dead sender run out: its deliveries are due again.
		clock.Advance(2 * time.Minute)
		stale, err := s.ClaimDelivery(ctx, "w3", time.Minute)
		must(t, err)
		if stale.Attempts != 2 && stale.ID == first {
			t.Errorf("stale claim %+v", stale)
		}
		as, err := s.FindDeliveryAttempts(ctx, []int64{first})
		must(t, err)
		if len(as) != 1 || *as[0].ResponseStatus != 500 || as[0].ResponseBody != "busy" {
			t.Errorf("attempts = %+v", as)
		}

		// Deleting a webhook deletes its deliveries.
		must(t, s.DeleteWebhook(ctx, p.ID, all.ID))
		if got := count(); got["build:triggered→webhook"] != 0 {
			t.Errorf("deliveries after the delete = %v", got)
		}
	})
}
