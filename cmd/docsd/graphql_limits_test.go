package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"

	"docsd/store"
)

// tempStore opens a SQLite store in a temp dir until the test ends.
func tempStore(t *testing.T) *store.Store {
	t.Helper()
	s, err := store.Open(context.Background(), t.TempDir()+"/docsd.db")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestServeThrottle checks the wiring of the request budgets: API v3 and
// /graphql spend one per-user budget (--throttle-user-rate), anonymous
// /graphql callers have theirs (--graphql-anonymous-rate).
func TestServeThrottle(t *testing.T) {
	ctx := context.Background()
	s := tempStore(t)
	_, srv := testApp(t, s, "--throttle-user-rate", "3/minute", "--graphql-anonymous-rate", "1/minute")
	u, err := s.CreateUser(ctx, "alice", "", false)
	if err != nil {
		t.Fatal(err)
	}
	key, _, err := s.CreateToken(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	graphql := func(token string) (*http.Response, string) {
		req, _ := http.NewRequest("POST", srv.URL+"/graphql", strings.NewReader(`{"query":"{ viewer { username } }"}`))
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Token "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp, string(body)
	}
	steps := []struct {
		name       string
		do         func() (*http.Response, string)
		wantStatus int
	}{
		{"v3 1", func() (*http.Response, string) { return get(t, srv.URL+"/api/v3/projects/", key) }, 200},
		{"v3 2", func() (*http.Response, string) { return get(t, srv.URL+"/api/v3/projects/", key) }, 200},
		{"graphql 3", func() (*http.Response, string) { return graphql(key) }, 200},
		{"graphql 4", func() (*http.Response, string) { return graphql(key) }, 429},
		{"v3 5", func() (*http.Response, string) { return get(t, srv.URL+"/api/v3/projects/", key) }, 429},
		{"anonymous 1", func() (*http.Response, string) { return graphql("") }, 200},
		{"anonymous 2", func() (*http.Response, string) { return graphql("") }, 429},
	}
	for _, st := range steps {
		resp, body := st.do()
		if resp.StatusCode != st.wantStatus {
			t.Fatalf("%s: %d %s, want %d", st.name, resp.StatusCode, body, st.wantStatus)
		}
		if st.wantStatus == 429 && (resp.Header.Get("Retry-After") == "" || !strings.Contains(body, "Request was throttled.")) {
			t.Errorf("%s: Retry-After %q, body %s", st.name, resp.Header.Get("Retry-After"), body)
		}
	}
}

// TestCORSOriginsSetting checks that --cors-origins takes origins only.
func TestCORSOriginsSetting(t *testing.T) {
	for _, tc := range []struct {
		value string
		want  []string
		ok    bool
	}{
		{"", nil, true},
		{"https://dash.example.com, http://localhost:3000/", []string{"https://dash.example.com", "http://localhost:3000"}, true},
		{"*", []string{"*"}, true},
		{"dash.example.com", nil, false},
		{"https://dash.example.com/app", nil, false},
		{"ftp://dash.example.com", nil, false},
	} {
		got, err := parseOrigins(tc.value)
		if (err == nil) != tc.ok || strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("parseOrigins(%q) = %q, %v; want %q, ok %v", tc.value, got, err, tc.want, tc.ok)
		}
	}
}

// TestServeGraphQLStreams checks that the transports of subscriptions work
// through the whole handler stack (access log, auth throttle, docs host
// routing): an SSE stream is flushed as events, a WebSocket is upgraded
// and answers a subscription.
func TestServeGraphQLStreams(t *testing.T) {
	ctx := context.Background()
	s := tempStore(t)
	_, srv := testApp(t, s)
	const query = `subscription { buildUpdated(id: 424242) { id } }`

	body, _ := json.Marshal(map[string]string{"query": query})
	req, _ := http.NewRequest("POST", srv.URL+"/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Token 0000000000000000000000000000000000000000")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 401 {
		t.Errorf("SSE with a bad token: %d, want 401", resp.StatusCode)
	}
	resp.Body.Close()
	req, _ = http.NewRequest("POST", srv.URL+"/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	sse, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") || !strings.Contains(string(sse), "event: next") || !strings.Contains(string(sse), "NOT_FOUND") {
		t.Errorf("SSE: %d %q, %s; want a next event with NOT_FOUND", resp.StatusCode, resp.Header.Get("Content-Type"), sse)
	}

	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	conn, _, err := websocket.Dial(wctx, "ws"+strings.TrimPrefix(srv.URL, "http")+"/graphql", &websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	var msg map[string]any
	for _, send := range []map[string]any{
		{"type": "connection_init"},
		{"id": "1", "type": "subscribe", "payload": map[string]any{"query": query}},
	} {
		if err := wsjson.Write(wctx, conn, send); err != nil {
			t.Fatal(err)
		}
		if err := wsjson.Read(wctx, conn, &msg); err != nil {
			t.Fatal(err)
		}
	}
	if (msg["type"] != "next" && msg["type"] != "error") || !strings.Contains(fmt.Sprint(msg["payload"]), "NOT_FOUND") {
		t.Errorf("WebSocket: %v; want a message with NOT_FOUND", msg)
	}
}
