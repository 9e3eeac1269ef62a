package notify_test

import (
	"testing"
	"time"

	"docsd/internal/notify"
	"docsd/internal/storetest"
	"docsd/store"
)

// received collects what a subscriber got.
func received(t *testing.T, n notify.Notifier, channel string) <-chan string {
	t.Helper()
	got := make(chan string, 16)
	if err := n.Subscribe(channel, func(p string) { got <- p }); err != nil {
		t.Fatal(err)
	}
	return got
}

// wantSignal waits, with a generous deadline, for payload want.
func wantSignal(t *testing.T, got <-chan string, want string) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case p := <-got:
			if p == want {
				return
			}
		case <-deadline:
			t.Fatalf("no signal %q", want)
		}
	}
}

// TestNotifiers: a signal sent by one node reaches the subscribers of every
// node on the same database (PostgreSQL), or of the process (Local), on its
// channel only.
func TestNotifiers(t *testing.T) {
	t.Run("local", func(t *testing.T) {
		n := notify.NewLocal()
		defer n.Close()
		docs, builds := received(t, n, notify.DocsChanged), received(t, n, notify.BuildQueued)
		if err := n.Notify(t.Context(), notify.DocsChanged, "demo/latest"); err != nil {
			t.Fatal(err)
		}
		wantSignal(t, docs, "demo/latest")
		select {
		case p := <-builds:
			t.Errorf("build channel got %q from a docs signal", p)
		default:
		}
	})
	t.Run("postgres", func(t *testing.T) {
		url := storetest.DatabaseURL(t, store.Postgres)
		a, err := notify.NewPostgres(url, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		b, err := notify.NewPostgres(url, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		onB, onA := received(t, b, notify.BuildQueued), received(t, a, notify.BuildQueued)
		docsOnB := received(t, b, notify.DocsChanged)
		if err := a.Notify(t.Context(), notify.BuildQueued, "x"); err != nil {
			t.Fatal(err)
		}
		wantSignal(t, onB, "x")
		wantSignal(t, onA, "x")
		select {
		case p := <-docsOnB:
			t.Errorf("docs channel got %q from a build signal", p)
		default:
		}
	})
}
