package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"

	"docsd/internal/accounts"
	"docsd/internal/storetest"
	"docsd/store"
)

// TestGraphQLWebSocketSession: the WebSocket transport of /graphql honours
// a dashboard session as POST does: only with its CSRF token (a header of
// the upgrade request). The cookie alone, which a page of another site
// could make a browser send, leaves the socket anonymous; a wrong token is
// refused; a page of another origin may not open the socket at all.
func TestGraphQLWebSocketSession(t *testing.T) {
	s := storetest.Open(t, store.SQLite)
	_, base := dashboardApp(t, s)
	alice := newBrowserClient(t, base)
	csrf := alice.signIn("alice", "alice-password")
	u, _ := url.Parse(base)
	var cookie string
	for _, c := range alice.http.Jar.Cookies(u) {
		if c.Name == accounts.SessionCookie {
			cookie = c.Name + "=" + c.Value
		}
	}
	if cookie == "" {
		t.Fatal("no session cookie after sign-in")
	}
	for _, tc := range []struct {
		name       string
		header     http.Header
		wantStatus int    // the upgrade's refusal; 0: it opens
		wantViewer string // "" : anonymous
	}{
		{"cookie alone", http.Header{"Cookie": {cookie}}, 0, ""},
		{"cookie and CSRF token", http.Header{"Cookie": {cookie}, accounts.CSRFHeader: {csrf}}, 0, "alice"},
		{"cookie and a wrong token", http.Header{"Cookie": {cookie}, accounts.CSRFHeader: {"wrong"}}, http.StatusUnauthorized, ""},
		{"another site's page", http.Header{"Cookie": {cookie}, accounts.CSRFHeader: {csrf}, "Origin": {"https://evil.example"}}, http.StatusForbidden, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			conn, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+"/graphql",
				&websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}, HTTPHeader: tc.header})
			if tc.wantStatus != 0 {
				if err == nil {
					conn.CloseNow()
				}
				if resp == nil || resp.StatusCode != tc.wantStatus {
					t.Fatalf("upgrade: %v %v, want %d", resp, err, tc.wantStatus)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer conn.CloseNow()
			var msg map[string]any
			for _, send := range []map[string]any{
				{"type": "connection_init"},
				{"id": "1", "type": "subscribe", "payload": map[string]any{"query": "{ viewer { username } }"}},
			} {
				if err := wsjson.Write(ctx, conn, send); err != nil {
					t.Fatal(err)
				}
				if err := wsjson.Read(ctx, conn, &msg); err != nil {
					t.Fatal(err)
				}
			}
			want := "map[data:map[viewer:<nil>]]"
			if tc.wantViewer != "" {
				want = "map[data:map[viewer:map[username:" + tc.wantViewer + "]]]"
			}
			if got := fmt.Sprint(msg["payload"]); msg["type"] != "next" || got != want {
				t.Errorf("viewer over the socket: %v, want payload %s", msg, want)
			}
		})
	}
}

// TestDashboardOutsideRateBudget: the dashboard's pages run their GraphQL
// operations in process, outside the per-user budget of v3 and /graphql
// (which meters requests an API client sends); the same user's own
// /graphql requests, the build page's stream among them, are metered.
func TestDashboardOutsideRateBudget(t *testing.T) {
	s := storetest.Open(t, store.SQLite)
	_, base := dashboardApp(t, s, "--throttle-user-rate", "3/hour")
	alice := newBrowserClient(t, base)
	csrf := alice.signIn("alice", "alice-password")
	for i := range 10 {
		if resp, _ := alice.get("/projects/demo/"); resp.StatusCode != http.StatusOK {
			t.Fatalf("dashboard page load %d: %d, want 200", i+1, resp.StatusCode)
		}
	}
	var codes []int
	for range 4 {
		code, _ := alice.graphql("{ viewer { username } }", csrf)
		codes = append(codes, code)
	}
	if fmt.Sprint(codes) != "[200 200 200 429]" {
		t.Errorf("alice's /graphql requests after 10 page loads: %v, want [200 200 200 429]", codes)
	}
	if resp, _ := alice.get("/dashboard/"); resp.StatusCode != http.StatusOK {
		t.Errorf("a dashboard page with the budget spent: %d, want 200", resp.StatusCode)
	}
}

// TestGraphQLSessionAnswersArePrivate: a /graphql answer computed for a
// dashboard session is Cache-Control: private, so that no shared cache
// keeps a GET's answer for the next reader of the same URL; an anonymous
// answer is not marked.
func TestGraphQLSessionAnswersArePrivate(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		_, base := dashboardApp(t, storetest.Open(t, d))
		alice := newBrowserClient(t, base)
		csrf := alice.signIn("alice", "alice-password")
		for _, tc := range []struct {
			name, csrf, viewer, cacheControl string
		}{
			{"session", csrf, `"alice"`, "private"},
			{"cookie alone: anonymous", "", "null", ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				req, _ := http.NewRequest(http.MethodGet, base+"/graphql?query="+url.QueryEscape("{ viewer { username } }"), nil)
				if tc.csrf != "" {
					req.Header.Set(accounts.CSRFHeader, tc.csrf)
				}
				resp, body := alice.do(req)
				if resp.StatusCode != http.StatusOK || !strings.Contains(body, tc.viewer) {
					t.Fatalf("GET /graphql: %d %s, want the viewer %s", resp.StatusCode, body, tc.viewer)
				}
				if got := resp.Header.Get("Cache-Control"); got != tc.cacheControl {
					t.Errorf("Cache-Control %q, want %q", got, tc.cacheControl)
				}
			})
		}
	})
}
