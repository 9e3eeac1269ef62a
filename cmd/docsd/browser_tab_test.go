package main

import (
	"context"
	"net"
	"net/http/httptest"
	"testing"

	"github.com/chromedp/chromedp"

	"docsd/store"
)

// servedAtPublicURL serves a dashboard app (dashboardApp, with args) on a
// listener whose address is its --public-url: the docs host's sign-in
// hand-off and mailed links send browsers there.
func servedAtPublicURL(t *testing.T, s *store.Store, args ...string) (*app, string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + l.Addr().String()
	a, _ := dashboardApp(t, s, append(args, "--public-url", base)...)
	srv := httptest.NewUnstartedServer(a.handler())
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	return a, base
}

// browserTab runs the named steps of a browser test in its tab; a step
// that fails saves a screenshot (failure-<step>.png) and ends the test.
type browserTab struct {
	t   *testing.T
	ctx context.Context
}

func (b browserTab) fail(step string, err error) {
	b.t.Helper()
	screenshot(b.t, b.ctx, "failure-"+step+".png")
	b.t.Fatalf("%s: %v", step, err)
}

// run runs the actions of step.
func (b browserTab) run(step string, actions ...chromedp.Action) {
	b.t.Helper()
	if err := chromedp.Run(b.ctx, actions...); err != nil {
		b.fail(step, err)
	}
}

// at waits until the tab has loaded url.
func (b browserTab) at(step, url string) {
	b.t.Helper()
	if _, err := waitLocation(b.ctx, url); err != nil {
		b.fail(step, err)
	}
}

// text is the text of the first element sel matches.
func (b browserTab) text(sel string) string {
	b.t.Helper()
	var s string
	b.run("text of "+sel, chromedp.Text(sel, &s, chromedp.ByQuery))
	return s
}
