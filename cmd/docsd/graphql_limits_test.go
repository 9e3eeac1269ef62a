package main

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"docsd/store"
)

// TestServeThrottle checks the wiring of the request budgets: API v3 and
// /graphql spend one per-user budget (--throttle-user-rate), anonymous
// /graphql callers have theirs (--graphql-anonymous-rate).
func TestServeThrottle(t *testing.T) {
	ctx := context.Background()
	s, err := store.Open(ctx, t.TempDir()+"/docsd.db")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
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
