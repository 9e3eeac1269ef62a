package rest

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"docsd/internal/storetest"
	"docsd/store"
)

// v3RedirectCases script the redirects' positions, fields and types on the
// fixture world, whose project starts with redirect 2 (prefix) at
// position 0 and redirect 1 (page) at 1.
var v3RedirectCases = []v3Case{
	// Positions: creating with and without a position (past the end
	// clamps), moving and deleting, on a project left with one redirect at
	// 0 (pk 1).
	{v3Send("DELETE", v3PP+"redirects/2/", "alice", ``), 204, ""},
	{v3Send("POST", v3PP+"redirects/", "alice", `{"type": "exact", "from_url": "/one/", "to_url": "/two/"}`), 201, "redirect_position_step1"},
	{v3Send("POST", v3PP+"redirects/", "alice", `{"type": "exact", "from_url": "/two/", "to_url": "/three/", "position": 2}`), 201, "redirect_position_step2"},
	{v3Get(v3PP+"redirects/", "alice"), 200, "redirect_position_list2"},
	{v3Send("PUT", v3PP+"redirects/1/", "alice", `{"type": "exact", "position": 2}`), 200, "redirect_position_step3"},
	{v3Get(v3PP+"redirects/", "alice"), 200, "redirect_position_list3"},
	{v3Send("DELETE", v3PP+"redirects/3/", "alice", ``), 204, ""},
	{v3Get(v3PP+"redirects/", "alice"), 200, "redirect_position_list4"},
	{v3Send("POST", v3PP+"redirects/", "alice", `{"type": "page", "from_url": "/five.html", "to_url": "/six.html", "position": 99}`), 201, "redirect_position_step5"},
	{v3Send("PATCH", v3PP+"redirects/5/", "alice", `{"position": "0"}`), 200, "redirect_patch_position"},
	{v3Get(v3PP+"redirects/", "alice"), 200, "redirect_list_after_move"},

	// The representation, and clean_url_to_html once per project.
	{v3Send("POST", v3PP+"redirects/", "alice", `{"type": "clean_url_to_html", "description": "dirhtml → html", "http_status": 301}`), 201, "redirect_clean_url_created"},
	{v3Send("POST", v3PP+"redirects/", "alice", `{"type": "clean_url_to_html", "description": "dirhtml → html", "http_status": 301}`), 400, "redirect_clean_url_second"},
	{v3Send("PATCH", v3PP+"redirects/6/", "alice", `{"type": "clean_url_to_html", "description": null}`), 200, "redirect_type_kept"},
	{v3Get(v3PP+"redirects/6/", "alice"), 200, "redirect_clean_url_detail"},

	// Wildcards, http_status, enabled.
	{v3Send("POST", v3PP+"redirects/", "alice", `{"type": "exact", "from_url": "/one/*.html", "to_url": "/two/:splat"}`), 400, "redirect_wildcards_exact"},
	{v3Send("POST", v3PP+"redirects/", "alice", `{"type": "page", "from_url": "/a.html", "to_url": "/b.html", "http_status": 307}`), 400, "redirect_status_page"},
	{v3Send("PATCH", v3PP+"redirects/1/", "alice", `{"enabled": false}`), 200, "redirect_disabled"},
	{v3Send("POST", v3PP+"redirects/", "alice", `{"type": "page", "from_url": "/old/*", "to_url": "/new/:splat", "force": "yes", "http_status": "301", "description": "  moved  "}`), 201, "redirect_wildcard_created"},

	// Field rules, all reported together.
	{v3Send("POST", v3PP+"redirects/", "alice", `{"type": "nope", "http_status": "abc", "position": -1, "force": "maybe", "enabled": null, "description": ["x"]}`), 400, "redirect_fields_invalid"},
	{v3Send("POST", v3PP+"redirects/", "alice", `{"type": "prefix", "from_url": "/p/", "http_status": null, "position": 2.5, "force": null}`), 400, "redirect_fields_null"},
	{v3Send("PATCH", v3PP+"redirects/1/", "alice", `{"position": 99999999999999999999999, "http_status": 301.0}`), 400, "redirect_fields_range"},
	{v3Send("PATCH", v3PP+"redirects/1/", "alice", `{"position": "x", "to_url": "/b/:splat"}`), 400, "redirect_fields_integer"},
	{v3Get(v3PP+"redirects/", "alice"), 200, "redirect_list_final"},
}

func TestV3Redirects(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newV3Env(t, d)
		e.world()
		for _, c := range v3RedirectCases {
			e.clock.Advance(time.Minute)
			e.check(t, c)
		}
	})
}

// TestSlashlessWrites checks on the real server that a write without the
// trailing slash is answered 308 before authentication, and a client that
// follows it (Go's, like python-requests) makes the write once, on the
// slashed URL. Search routes answer alike.
func TestSlashlessWrites(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newV3Env(t, d)
		e.world()
		for _, tc := range []struct {
			call         v3Call
			wantLocation string
			wantDetail   string
		}{
			{v3Send("DELETE", v3PP+"redirects/1", "alice", ``), v3PP + "redirects/1/",
				`{"detail":"The URL must end with a slash: send DELETE to /api/v3/projects/project/redirects/1/."}`},
			{v3Send("PATCH", v3PP+"redirects/2?x=1", "", `{"enabled": false}`), v3PP + "redirects/2/?x=1",
				`{"detail":"The URL must end with a slash: send PATCH to /api/v3/projects/project/redirects/2/."}`},
			{v3Send("POST", "/api/v3/search?q=x", "", ``), "/api/v3/search/?q=x",
				`{"detail":"The URL must end with a slash: send POST to /api/v3/search/."}`},
			{v3Send("POST", "/_/api/v2/search", "", ``), "/_/api/v2/search/",
				`{"detail":"The URL must end with a slash: send POST to /_/api/v2/search/."}`},
		} {
			r := e.do(tc.call)
			if r.status != 308 || r.header.Get("Location") != tc.wantLocation || string(r.body) != tc.wantDetail {
				t.Errorf("%s %s: got %d %q %s, want 308 %q %s", tc.call.method, tc.call.path, r.status, r.header.Get("Location"), r.body, tc.wantLocation, tc.wantDetail)
			}
			if got := r.header.Get("Content-Type"); got != "application/json" {
				t.Errorf("%s %s: Content-Type %q, want application/json", tc.call.method, tc.call.path, got)
			}
		}

		// Following the redirects, as a client does.
		follow := func(method, path, body string) int {
			t.Helper()
			req, err := http.NewRequest(method, e.srv.URL+path, strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "Token "+e.tokens["alice"])
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			return resp.StatusCode
		}
		if got := follow("DELETE", v3PP+"redirects/1", ""); got != 204 {
			t.Errorf("DELETE followed: got %d, want 204", got)
		}
		if r := e.get(v3PP+"redirects/1/", "alice"); r.status != 404 {
			t.Errorf("deleted redirect: got %d, want 404", r.status)
		}
		if got := follow("PATCH", v3PP+"redirects/2?x=1", `{"enabled": false}`); got != 200 {
			t.Errorf("PATCH followed: got %d, want 200", got)
		}
		if r := e.get(v3PP+"redirects/2/", "alice"); !strings.Contains(string(r.body), `"enabled":false`) {
			t.Errorf("patched redirect: %s, want enabled false", r.body)
		}
	})
}
