package buildnotify_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"docsd/internal/buildnotify"
	"docsd/internal/docsurl"
	"docsd/internal/mail"
	"docsd/internal/mail/mailtest"
	"docsd/internal/storetest"
	"docsd/store"
)

// fixture is a project on a store of one dialect and a sender over it.
type fixture struct {
	t       *testing.T
	s       *store.Store
	project *store.Project
	version *store.Version
	sender  *buildnotify.Sender
}

func newFixture(t *testing.T, d store.Dialect) *fixture {
	t.Helper()
	s := storetest.Open(t, d)
	u, _ := storetest.MustUser(t, s, "alice")
	imp := storetest.MustImport(t, s, u, "Demo \"Docs\"", "https://example.com/demo.git")
	v := storetest.MustVersion(t, s, imp.Project.ID, "main")
	return &fixture{t: t, s: s, project: imp.Project, version: v, sender: &buildnotify.Sender{
		Store: s, URLs: docsurl.Config{PublicURL: "https://docs.example.com"}, AllowPrivateNetwork: true,
		Timeout: 2 * time.Second, Backoff: 50 * time.Millisecond, Poll: 20 * time.Millisecond, Owner: "test",
	}}
}

// run runs the sender until the test ends.
func (f *fixture) run() {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { f.sender.Run(ctx) })
	f.t.Cleanup(func() { cancel(); wg.Wait() })
}

func (f *fixture) webhook(url string, events ...string) *store.Webhook {
	f.t.Helper()
	w, err := f.s.CreateWebhook(context.Background(), store.Webhook{ProjectID: f.project.ID, URL: url, Payload: buildnotify.DefaultPayload}, events)
	if err != nil {
		f.t.Fatal(err)
	}
	return w
}

// failBuild creates a build of the version and finishes it as failed.
func (f *fixture) failBuild() *store.Build {
	f.t.Helper()
	commit := "0123456789abcdef0123"
	b, err := f.s.CreateBuild(context.Background(), f.version, &commit)
	if err != nil {
		f.t.Fatal(err)
	}
	if _, err := f.s.FinishBuild(context.Background(), b.ID, store.BuildResult{Success: false, Error: "Sphinx failed.", ErrorID: "build:user:generic"}); err != nil {
		f.t.Fatal(err)
	}
	return b
}

// waitDeliveries waits until the webhook's deliveries satisfy ok.
func (f *fixture) waitDeliveries(w *store.Webhook, timeout time.Duration, ok func([]*store.Delivery) bool) []*store.Delivery {
	f.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ds, _, err := f.s.FindWebhookDeliveries(context.Background(), w.ID, store.Page{Limit: 100})
		if err != nil {
			f.t.Fatal(err)
		}
		if ok(ds) {
			return ds
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("deliveries did not reach the expected state within %s: %+v", timeout, ds)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func finished(n int) func([]*store.Delivery) bool {
	return func(ds []*store.Delivery) bool {
		done := 0
		for _, d := range ds {
			if d.State != store.DeliveryQueued {
				done++
			}
		}
		return done >= n
	}
}

func (f *fixture) attempts(d *store.Delivery) []*store.DeliveryAttempt {
	f.t.Helper()
	as, err := f.s.FindDeliveryAttempts(context.Background(), []int64{d.ID})
	if err != nil {
		f.t.Fatal(err)
	}
	return as
}

// receiver is a real HTTP receiver that records what it got.
type receiver struct {
	mu       sync.Mutex
	requests []received
}

type received struct {
	header http.Header
	body   []byte
}

func (rc *receiver) got() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]received(nil), rc.requests...)
}

func (rc *receiver) record(r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	rc.requests = append(rc.requests, received{r.Header.Clone(), body})
	rc.mu.Unlock()
}

func TestWebhookSignedPayload(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		f := newFixture(t, d)
		rc := &receiver{}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rc.record(r)
			io.WriteString(w, `{"ok": true}`)
		}))
		defer srv.Close()
		wh := f.webhook(srv.URL+"/hook", store.EventBuildTriggered, store.EventBuildFailed)
		other := f.webhook(srv.URL+"/passed-only", store.EventBuildPassed)
		f.run()
		b := f.failBuild()
		ds := f.waitDeliveries(wh, 30*time.Second, finished(2))
		if len(ds) != 2 || ds[0].Event != store.EventBuildFailed || ds[1].Event != store.EventBuildTriggered {
			t.Fatalf("deliveries = %+v, want build:failed then build:triggered (newest first)", ds)
		}
		for _, d := range ds {
			if d.State != store.DeliveryDelivered {
				t.Errorf("delivery %s: state %s (%s), want delivered", d.Event, d.State, d.Error)
			}
			if as := f.attempts(d); len(as) != 1 || as[0].ResponseStatus == nil || *as[0].ResponseStatus != 200 || as[0].ResponseBody != `{"ok": true}` {
				t.Errorf("attempts of %s = %+v", d.Event, as)
			}
		}
		if ds, _, _ := f.s.FindWebhookDeliveries(context.Background(), other.ID, store.Page{Limit: 10}); len(ds) != 0 {
			t.Errorf("a build:passed webhook got %d deliveries of a failed build", len(ds))
		}
		got := rc.got()
		if len(got) != 2 {
			t.Fatalf("receiver got %d requests, want 2", len(got))
		}
		events := map[string]bool{}
		for _, r := range got {
			// The receiver checks the signature with the secret, as a
			// receiver of Read the Docs' webhooks does.
			if sig := r.header.Get("X-Hub-Signature"); sig != buildnotify.Sign(wh.Secret, string(r.body)) {
				t.Errorf("X-Hub-Signature %q does not sign the body with the secret", sig)
			}
			if ct := r.header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			var payload map[string]string
			if err := json.Unmarshal(r.body, &payload); err != nil {
				t.Fatalf("payload %s: %v", r.body, err)
			}
			events[payload["event"]] = true
			if payload["event"] != r.header.Get("X-RTD-Event") {
				t.Errorf("X-RTD-Event %q, payload event %q", r.header.Get("X-RTD-Event"), payload["event"])
			}
			want := map[string]string{"name": `Demo "Docs"`, "slug": "demo-docs", "version": "main", "commit": "0123456789abcdef0123",
				"build": itoa(b.ID), "build_url": "https://docs.example.com/projects/demo-docs/builds/" + itoa(b.ID) + "/",
				"docs_url": "https://docs.example.com/docs/demo-docs/en/main/", "start_date": b.Created.UTC().Format("2006-01-02T15:04:05")}
			for k, v := range want {
				if payload[k] != v {
					t.Errorf("payload %s = %q, want %q", k, payload[k], v)
				}
			}
		}
		if !events[store.EventBuildTriggered] || !events[store.EventBuildFailed] {
			t.Errorf("events sent: %v", events)
		}
	})
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

func TestWebhookRetriesThenDelivers(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		f := newFixture(t, d)
		var calls atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if calls.Add(1) == 1 {
				http.Error(w, "try later", http.StatusInternalServerError)
				return
			}
			io.WriteString(w, "thanks")
		}))
		defer srv.Close()
		wh := f.webhook(srv.URL, store.EventBuildFailed)
		f.run()
		f.failBuild()
		ds := f.waitDeliveries(wh, 30*time.Second, finished(1))
		as := f.attempts(ds[0])
		if ds[0].State != store.DeliveryDelivered || len(as) != 2 {
			t.Fatalf("delivery %+v with %d attempts, want delivered on the second", ds[0], len(as))
		}
		if *as[0].ResponseStatus != 500 || !strings.Contains(as[0].ResponseBody, "try later") || as[0].Error != "the receiver answered 500" {
			t.Errorf("first attempt = %+v", as[0])
		}
		if *as[1].ResponseStatus != 200 || as[1].Error != "" {
			t.Errorf("second attempt = %+v", as[1])
		}
		// A receiver that keeps failing is given up after the attempts.
		srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusBadGateway) })
		f.sender.Attempts = 3
		f.failBuild()
		ds = f.waitDeliveries(wh, 30*time.Second, finished(2))
		if ds[0].State != store.DeliveryFailed || len(f.attempts(ds[0])) != 3 || ds[0].Error != "the receiver answered 502" {
			t.Errorf("delivery %+v with %d attempts, want failed after 3", ds[0], len(f.attempts(ds[0])))
		}
	})
}

func TestHangingReceiverIsCutOffWithoutBlocking(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		f := newFixture(t, d)
		release := make(chan struct{})
		hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}))
		defer hang.Close()
		defer close(release)
		fast := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
		defer fast.Close()
		slow := f.webhook(hang.URL, store.EventBuildFailed)
		quick := f.webhook(fast.URL, store.EventBuildFailed)
		f.sender.Timeout = 3 * time.Second
		f.sender.Attempts = 1
		f.run()
		start := time.Now()
		// The build's state changes do not wait for any receiver.
		f.failBuild()
		if took := time.Since(start); took > 2*time.Second {
			t.Errorf("finishing the build took %s", took)
		}
		// The quick receiver is served while the other one hangs.
		f.waitDeliveries(quick, 30*time.Second, finished(1))
		if ds, _, _ := f.s.FindWebhookDeliveries(context.Background(), slow.ID, store.Page{Limit: 1}); ds[0].State != store.DeliveryQueued {
			t.Errorf("the hanging delivery is %s before its timeout", ds[0].State)
		}
		ds := f.waitDeliveries(slow, 60*time.Second, finished(1))
		as := f.attempts(ds[0])
		if ds[0].State != store.DeliveryFailed || len(as) != 1 || as[0].ResponseStatus != nil || as[0].Error != "no answer within 3s" {
			t.Fatalf("delivery %+v, attempts %+v: want cut off after 3s", ds[0], as)
		}
		if as[0].DurationMS < 3000 {
			t.Errorf("the attempt took %d ms, less than the timeout", as[0].DurationMS)
		}
	})
}

func TestDefaultTimeoutIsTenSeconds(t *testing.T) {
	if buildnotify.DefaultTimeout != 10*time.Second {
		t.Errorf("DefaultTimeout = %s", buildnotify.DefaultTimeout)
	}
}

func TestPrivateReceiverRefused(t *testing.T) {
	f := newFixture(t, store.SQLite)
	rc := &receiver{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { rc.record(r) }))
	defer srv.Close()
	wh := f.webhook(srv.URL, store.EventBuildFailed)
	f.sender.AllowPrivateNetwork = false
	f.run()
	f.failBuild()
	ds := f.waitDeliveries(wh, 30*time.Second, finished(1))
	if ds[0].State != store.DeliveryFailed || !strings.Contains(ds[0].Error, "--allow-private-network") {
		t.Errorf("delivery to 127.0.0.1 = %+v, want refused naming --allow-private-network", ds[0])
	}
	if n := len(rc.got()); n != 0 {
		t.Errorf("the receiver got %d requests", n)
	}
}

func TestBuildFailedEmail(t *testing.T) {
	relay := mailtest.Start(t)
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		f := newFixture(t, d)
		m, err := mail.New(relay.Config("docsd <docsd@docs.example.com>"))
		if err != nil {
			t.Fatal(err)
		}
		f.sender.Mailer = m
		to := "team-" + string(d) + "@example.com"
		if _, err := f.s.CreateEmailHook(context.Background(), f.project.ID, to); err != nil {
			t.Fatal(err)
		}
		f.run()
		// Passed builds mail nobody; a failed one mails every address.
		commit := "fedcba9876543210"
		ok, err := f.s.CreateBuild(context.Background(), f.version, &commit)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.s.FinishBuild(context.Background(), ok.ID, store.BuildResult{Success: true}); err != nil {
			t.Fatal(err)
		}
		b := f.failBuild()
		msg := relay.WaitMessage(t, 30*time.Second, func(m mailtest.Message) bool { return len(m.To) == 1 && m.To[0].Address == to })
		if msg.Subject != `Failed: Demo "Docs" (01234567)` {
			t.Errorf("subject %q", msg.Subject)
		}
		for _, want := range []string{"Build Failed for Demo \"Docs\" (main)", "Error: Sphinx failed.",
			"https://docs.example.com/projects/demo-docs/builds/" + itoa(b.ID) + "/", "https://docs.example.com/projects/demo-docs/notifications/"} {
			if !strings.Contains(msg.Text, want) {
				t.Errorf("text lacks %q:\n%s", want, msg.Text)
			}
		}
		for _, m := range relay.Messages(t) {
			if len(m.To) == 1 && m.To[0].Address == to && m.ID != msg.ID {
				t.Errorf("a second message went to %s: %q", to, m.Subject)
			}
		}
	})
}
