package rest

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"docsd/internal/ratelimit"
	"docsd/internal/storetest"
	"docsd/store"
)

// TestV3Authentication checks every form of Authorization header on a route
// whose project does not exist: bad credentials are 401 before anything
// else.
func TestV3Authentication(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newV3Env(t, d)
		e.world()
		const path = "/api/v3/projects/missing/versions/"
		for _, c := range []struct {
			name, header string
			status       int
			golden       string
		}{
			{"absent", "", 401, "error_401_no_credentials"},
			{"empty", "raw: ", 401, "error_401_no_credentials"},
			{"bearer", "raw:Bearer " + e.tokens["alice"], 401, "error_401_no_credentials"},
			{"basic", "raw:Basic YWxpY2U6cHc=", 401, "error_401_no_credentials"},
			{"token alone", "raw:Token", 401, "error_401_token_no_credentials"},
			{"token spaces", "raw:Token a b", 401, "error_401_token_spaces"},
			{"token non latin-1", "raw:Token ключ", 401, "error_401_token_invalid_characters"},
			{"unknown token", "raw:Token 0123456789abcdef0123456789abcdef01234567", 401, "error_401_invalid_token"},
			{"inactive user", "raw:Token " + e.tokens["dave"], 401, "error_401_inactive"},
			{"good token", "raw:Token " + e.tokens["alice"], 404, "error_404"},
			{"lower-case scheme", "raw:token " + e.tokens["alice"], 404, "error_404"},
		} {
			t.Run(c.name, func(t *testing.T) {
				call := v3Get(path, c.header)
				if c.header == "raw: " {
					call.header = map[string]string{"Authorization": ""}
					call.as = ""
				}
				e.check(t, v3Case{call, c.status, c.golden})
			})
		}
		// The root ignores credentials, bad ones included.
		e.check(t, v3Case{v3Get("/api/v3/", "raw:Token a b"), 200, "root"})
	})
}

// v3RouteCases is one path per route with its Allow header, for a
// maintainer of project.
var v3RouteCases = []struct{ path, allow string }{
	{"/api/v3/", "GET, HEAD, OPTIONS"},
	{"/api/v3/projects/", "GET, POST, HEAD, OPTIONS"},
	{"/api/v3/projects/project/", "GET, PUT, PATCH, HEAD, OPTIONS"},
	{"/api/v3/projects/subproject/superproject/", "GET, HEAD, OPTIONS"},
	{"/api/v3/projects/project/versions/", "GET, HEAD, OPTIONS"},
	{"/api/v3/projects/project/versions/v1.0/", "GET, PUT, PATCH, HEAD, OPTIONS"},
	{"/api/v3/projects/project/versions/v1.0/builds/", "GET, POST, HEAD, OPTIONS"},
	{"/api/v3/projects/project/versions/v1.0/builds/2/", "GET, HEAD, OPTIONS"},
	{"/api/v3/projects/project/builds/", "GET, HEAD, OPTIONS"},
	{"/api/v3/projects/project/builds/2/", "GET, HEAD, OPTIONS"},
	{"/api/v3/projects/project/subprojects/", "GET, POST, HEAD, OPTIONS"},
	{"/api/v3/projects/project/subprojects/subproject/", "GET, DELETE, HEAD, OPTIONS"},
	{"/api/v3/projects/project/translations/", "GET, HEAD, OPTIONS"},
	{"/api/v3/projects/project/redirects/", "GET, POST, HEAD, OPTIONS"},
	{"/api/v3/projects/project/redirects/1/", "GET, PUT, PATCH, DELETE, HEAD, OPTIONS"},
	{"/api/v3/projects/project/environmentvariables/", "GET, POST, HEAD, OPTIONS"},
	{"/api/v3/projects/project/environmentvariables/1/", "GET, DELETE, HEAD, OPTIONS"},
}

// TestV3Methods checks Allow on every route and every kind of answer,
// OPTIONS, HEAD and 405.
func TestV3Methods(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newV3Env(t, d)
		e.world()
		for _, rc := range v3RouteCases {
			t.Run(rc.path, func(t *testing.T) {
				get := e.do(v3Call{method: "GET", path: rc.path, as: "alice"})
				head := e.do(v3Call{method: "HEAD", path: rc.path, as: "alice"})
				options := e.do(v3Call{method: "OPTIONS", path: rc.path, as: "alice"})
				trace := e.do(v3Call{method: "TRACE", path: rc.path, as: "alice"})
				notFound := e.do(v3Call{method: "GET", path: rc.path + "?format=xml", as: "alice"})
				for name, r := range map[string]v3Resp{"GET": get, "HEAD": head, "OPTIONS": options, "TRACE": trace, "404": notFound} {
					if got := r.header.Get("Allow"); got != rc.allow {
						t.Errorf("%s: Allow %q, want %q", name, got, rc.allow)
					}
				}
				if get.status != 200 || head.status != 200 || options.status != 200 || trace.status != 405 || notFound.status != 404 {
					t.Fatalf("statuses GET %d HEAD %d OPTIONS %d TRACE %d format=xml %d", get.status, head.status, options.status, trace.status, notFound.status)
				}
				if len(head.body) != 0 || head.header.Get("Content-Type") != "application/json" {
					t.Errorf("HEAD: body %q, Content-Type %q; want no body, application/json", head.body, head.header.Get("Content-Type"))
				}
				v3Golden(t, "error_405_trace", trace)
				v3CheckCanonical(t, options.body)
				for _, part := range []string{`"description":"`, `"name":"`, `"parses":["application/json","application/x-www-form-urlencoded","multipart/form-data"]`, `"renders":["application/json"]`} {
					if !bytes.Contains(options.body, []byte(part)) {
						t.Errorf("OPTIONS body %s lacks %s", options.body, part)
					}
				}
			})
		}
		e.check(t, v3Case{v3Call{method: "OPTIONS", path: "/api/v3/projects/project/", as: "alice"}, 200, "options_project"})
		// A trailing-slash redirect answers HEAD too, without a body.
		r := e.do(v3Call{method: "HEAD", path: "/api/v3/projects", as: "alice"})
		if r.status != 301 || r.header.Get("Location") != "/api/v3/projects/" || len(r.body) != 0 {
			t.Errorf("HEAD without slash: %d %q %q", r.status, r.header.Get("Location"), r.body)
		}
	})
}

// v3FakeClock is a settable time source for the throttle.
type v3FakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *v3FakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *v3FakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// TestV3Throttle checks the sliding window with an injected clock.
func TestV3Throttle(t *testing.T) {
	storetest.Dialects(t, testV3Throttle)
}

func testV3Throttle(t *testing.T, d store.Dialect) {
	limiter, err := ratelimit.New("3/minute")
	if err != nil {
		t.Fatal(err)
	}
	clock := &v3FakeClock{now: v3Start}
	limiter.SetClock(clock.Now)
	e := newV3Env(t, d, func(c *Config) { c.UserLimiter = limiter })
	e.world()

	ok := func(c v3Call, status int) {
		t.Helper()
		if r := e.do(c); r.status != status {
			t.Fatalf("%s %s as %q: %d, want %d: %s", c.method, c.path, c.as, r.status, status, r.body)
		}
	}
	throttled := func(as, golden, retryAfter string) {
		t.Helper()
		r := e.check(t, v3Case{v3Get(v3PP, as), 429, golden})
		if got := r.header.Get("Retry-After"); got != retryAfter {
			t.Errorf("Retry-After %q, want %q", got, retryAfter)
		}
	}
	// Not counted: the root, anonymous requests, bad tokens, permission
	// failures.
	for range 5 {
		ok(v3Get("/api/v3/", "alice"), 200)
		ok(v3Get(v3PP, ""), 401)
		ok(v3Get(v3PP, "raw:Token nope"), 401)
		ok(v3Get("/api/v3/projects/other/versions/", "alice"), 403)
		ok(v3Get("/api/v3/projects/missing/versions/", "alice"), 404)
	}
	// Counted: whatever passes permission, 404s and 405s after it included.
	ok(v3Get(v3PP, "alice"), 200)
	clock.Advance(10 * time.Second)
	ok(v3Get(v3PP+"versions/nope/", "alice"), 404)
	clock.Advance(10 * time.Second)
	ok(v3Send("DELETE", v3PP, "alice", ""), 405)
	throttled("alice", "throttled_40", "40")
	ok(v3Get(v3PP, "bob"), 200) // per user
	clock.Advance(39*time.Second + 500*time.Millisecond)
	throttled("alice", "throttled_1", "1")
	clock.Advance(500 * time.Millisecond) // the first request leaves the window
	ok(v3Get(v3PP, "alice"), 200)
	throttled("alice", "throttled_10", "10")
	e.check(t, v3Case{v3Get("/api/v3/", "alice"), 200, "root"})
}

// TestV3PanicIsJSON checks that a failure inside a handler answers the
// JSON 500 body: a server without an executor fails in authentication.
func TestV3PanicIsJSON(t *testing.T) {
	srv := httptest.NewServer(New(nil, Config{PublicURL: v3PublicURL}))
	defer srv.Close()
	req, err := http.NewRequest(http.MethodGet, srv.URL+"/api/v3/projects/", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Token x")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusInternalServerError || string(body) != `{"detail":"A server error occurred."}` ||
		resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("%d %q %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
}
