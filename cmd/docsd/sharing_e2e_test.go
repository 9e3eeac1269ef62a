package main

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"docsd/internal/artifacts/artifactstest"
	"docsd/internal/storetest"
	"docsd/store"
)

// sharingSite is a real server in subdomain mode (docs.test) whose user
// alice maintains the private project "secret", its latest version
// published; bob has no project.
type sharingSite struct {
	t        *testing.T
	s        *store.Store
	base     string // the public origin, http://127.0.0.1:port
	port     string
	alice    string // API keys
	bob      string
	aliceID  int64
	secretID int64
}

func newSharingSite(t *testing.T, d store.Dialect, args ...string) *sharingSite {
	t.Helper()
	s := storetest.Open(t, d)
	a, base := dashboardApp(t, s, append([]string{"--docs-domain", "docs.test", "--docs-scheme", "http"}, args...)...)
	p := publishBuilt(t, a, s, "secret", map[string]string{
		"index.html": "<html><head><title>Secret</title></head><body><p id=secret>secret page</p></body></html>",
		"guide.html": "<html><head><title>Guide</title></head><body><h1>Guide</h1><p>the onboarding guide</p></body></html>"})
	if err := a.reindex(t.Context(), "secret", "", func(_ *store.Project, _ *store.Version, _ int, err error) {
		if err != nil {
			t.Error(err)
		}
	}); err != nil {
		t.Fatal(err)
	}
	alice, _ := s.FindUserByUsername(t.Context(), "alice")
	return &sharingSite{t: t, s: s, base: base, port: base[strings.LastIndex(base, ":")+1:],
		alice: newKey(t, s, "alice"), bob: newKey(t, s, "bob"), aliceID: alice.ID, secretID: p.ID}
}

// api sends a v3 request with key and returns the status and the body
// decoded (nil when empty).
func (x *sharingSite) api(method, path, key string, body any) (int, map[string]any) {
	x.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = strings.NewReader(string(b))
	}
	req, _ := http.NewRequest(method, x.base+path, rd)
	req.Header.Set("Authorization", "Token "+key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		x.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &out); err != nil {
			x.t.Fatalf("%s %s: %d, not JSON: %s", method, path, resp.StatusCode, raw)
		}
	}
	return resp.StatusCode, out
}

// docs sends a request to the secret project's docs subdomain.
func (x *sharingSite) docs(method, path string, header http.Header, form url.Values) *http.Response {
	x.t.Helper()
	var rd io.Reader
	if form != nil {
		rd = strings.NewReader(form.Encode())
	}
	req, _ := http.NewRequest(method, x.base+path, rd)
	req.Host = "secret.docs.test:" + x.port
	for k, v := range header {
		req.Header[k] = v
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		x.t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

// readBody is the body of a GET on the secret project's docs host.
func readBody(t *testing.T, x *sharingSite, path string, header http.Header) string {
	t.Helper()
	req, _ := http.NewRequest("GET", x.base+path, nil)
	req.Host = "secret.docs.test:" + x.port
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// publishBuilt publishes files as the latest version of project slug and
// marks it built, and returns the project.
func publishBuilt(t *testing.T, a *app, s *store.Store, slug string, files map[string]string) *store.Project {
	t.Helper()
	if err := a.artifacts.PublishHTML(t.Context(), slug, store.Latest, artifactstest.Dir(t, files)); err != nil {
		t.Fatal(err)
	}
	p, err := s.FindProjectBySlug(t.Context(), slug)
	if err != nil {
		t.Fatal(err)
	}
	v, err := s.FindVersionBySlug(t.Context(), p.ID, store.Latest)
	if err != nil {
		t.Fatal(err)
	}
	built := true
	if _, err := s.UpdateVersion(t.Context(), v.ID, store.VersionUpdate{Built: &built}); err != nil {
		t.Fatal(err)
	}
	return p
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestSharingExamples runs the sharing contract's examples through a real
// server on both databases: a secret link, the body rules, redeeming it,
// a header token, the access type that never changes, deletion ending the
// grant at once, and a non-admin refused.
func TestSharingExamples(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		x := newSharingSite(t, d)
		expires := time.Now().UTC().AddDate(0, 0, 30).Format(time.DateOnly)

		// 1. A secret link.
		code, m := x.api("POST", "/api/v3/projects/secret/sharing/", x.alice, map[string]any{
			"description": "Support team access", "access_type": "token", "allow_all": true, "expires": expires})
		if code != 201 {
			t.Fatalf("create: %d %v", code, m)
		}
		tok, _ := m["token"].(string)
		id := int64(m["id"].(float64))
		self := "/api/v3/projects/secret/sharing/" + itoa(id) + "/"
		want := map[string]any{
			"_links":      map[string]any{"_self": self, "project": "/api/v3/projects/secret/"},
			"access_type": "token", "allow_all": true, "description": "Support team access", "expires": expires,
			"id": float64(id), "last_used_at": nil, "project": "secret", "token": tok,
			"url": "http://secret.docs.test/_/sharing/" + tok + "?next=/en/latest/", "versions": []any{},
		}
		if len(tok) != 43 || jsonOf(m) != jsonOf(want) {
			t.Errorf("created\n got %s\nwant %s", jsonOf(m), jsonOf(want))
		}

		// 2. The body rules.
		code, m = x.api("POST", "/api/v3/projects/secret/sharing/", x.alice, map[string]any{"access_type": "password", "allow_all": false})
		if want := `{"password":["This field is required."],"versions":["Select at least one version."]}`; code != 400 || jsonOf(m) != want {
			t.Errorf("password without one: %d %s, want 400 %s", code, jsonOf(m), want)
		}
		for _, c := range []struct {
			body map[string]any
			want string
		}{
			{map[string]any{"access_type": "link"}, `{"access_type":["\"link\" is not a valid choice."]}`},
			{map[string]any{"expires": "31/12/2026"}, `{"expires":["Date has wrong format. Use one of these formats instead: YYYY-MM-DD."]}`},
			{map[string]any{"expires": "2000-01-01"}, `{"expires":["Ensure this date is today or later."]}`},
			{map[string]any{"versions": "latest", "allow_all": false}, `{"versions":["Expected a list of items but got type \"str\"."]}`},
			{map[string]any{"versions": []string{"nope"}, "allow_all": false}, `{"versions":["Object with slug=nope does not exist."]}`},
			{map[string]any{"versions": []string{"latest"}}, `{"versions":["Leave versions empty when allow_all is true."]}`},
			{map[string]any{"password": "long enough"}, `{"password":["Only sharing methods with access_type \"password\" take a password."]}`},
			{map[string]any{"access_type": "password", "password": "short"}, `{"password":["This password is too short. It must contain at least 8 characters."]}`},
			{map[string]any{"description": strings.Repeat("x", 256)}, `{"description":["Ensure this field has no more than 255 characters."]}`},
		} {
			if code, m := x.api("POST", "/api/v3/projects/secret/sharing/", x.alice, c.body); code != 400 || jsonOf(m) != c.want {
				t.Errorf("POST %s: %d %s, want 400 %s", jsonOf(c.body), code, jsonOf(m), c.want)
			}
		}

		// 3. Redeeming the link: a session cookie, then the private page.
		if r := x.docs("GET", "/en/latest/", nil, nil); r.StatusCode != 404 {
			t.Fatalf("private page without a grant: %d, want 404", r.StatusCode)
		}
		r := x.docs("GET", "/_/sharing/"+tok+"?next=/en/latest/guide.html", nil, nil)
		cookie := r.Header.Get("Set-Cookie")
		if r.StatusCode != 302 || r.Header.Get("Location") != "/en/latest/guide.html" ||
			!strings.HasPrefix(cookie, "docsd_share=") || !strings.Contains(cookie, "HttpOnly") || !strings.Contains(cookie, "SameSite=Lax") ||
			strings.Contains(cookie, "Max-Age") || !strings.Contains(cookie, "Path=/") {
			t.Fatalf("redeem: %d Location %q Set-Cookie %q", r.StatusCode, r.Header.Get("Location"), cookie)
		}
		jar := http.Header{"Cookie": {strings.Split(cookie, ";")[0]}}
		if r := x.docs("GET", "/en/latest/", jar, nil); r.StatusCode != 200 {
			t.Fatalf("private page with the grant: %d, want 200", r.StatusCode)
		}
		search := "/_/api/v3/search/?q=onboarding+project:secret"
		if r := x.docs("GET", search, jar, nil); r.StatusCode != 200 || !strings.Contains(readBody(t, x, search, jar), `"count":1`) {
			t.Errorf("search with the grant: %d %s", r.StatusCode, readBody(t, x, search, jar))
		}
		if body := readBody(t, x, search, nil); strings.Contains(body, `"count":1`) {
			t.Errorf("search without the grant: %s", body)
		}
		if r := x.docs("GET", "/_/sharing/"+tok[:42]+"x", nil, nil); r.StatusCode != 404 {
			t.Errorf("unknown token: %d, want 404", r.StatusCode)
		}
		if _, m := x.api("GET", self, x.alice, nil); m["last_used_at"] == nil {
			t.Errorf("last_used_at not set after redeeming")
		}

		// 4. A header token: every docs request carries it.
		code, m = x.api("POST", "/api/v3/projects/secret/sharing/", x.alice, map[string]any{"access_type": "http_header_token",
			"expires": time.Now().UTC().AddDate(0, 0, 7).Format(time.DateOnly)})
		if code != 201 || m["url"] != nil {
			t.Fatalf("header token: %d %v", code, m)
		}
		htok := m["token"].(string)
		if r := x.docs("GET", "/en/latest/", http.Header{"Authorization": {"Token " + htok}}, nil); r.StatusCode != 200 {
			t.Errorf("Authorization: Token: %d, want 200", r.StatusCode)
		}
		basic := base64.StdEncoding.EncodeToString([]byte(htok + ":"))
		if r := x.docs("GET", "/en/latest/", http.Header{"Authorization": {"Basic " + basic}}, nil); r.StatusCode != 200 {
			t.Errorf("Authorization: Basic: %d, want 200", r.StatusCode)
		}
		if r := x.docs("GET", "/_/sharing/"+htok, nil, nil); r.StatusCode != 404 {
			t.Errorf("a header token as a link: %d, want 404", r.StatusCode)
		}
		if code, _ := x.api("GET", "/api/v3/projects/secret/", htok, nil); code != 401 {
			t.Errorf("a sharing token on the API: %d, want 401", code)
		}

		// 5. The access type never changes.
		code, m = x.api("PATCH", self, x.alice, map[string]any{"access_type": "password"})
		if want := `{"access_type":["The access type of a sharing method cannot be changed."]}`; code != 400 || jsonOf(m) != want {
			t.Errorf("PATCH access_type: %d %s, want 400 %s", code, jsonOf(m), want)
		}
		code, m = x.api("PATCH", self, x.alice, map[string]any{"description": "Support"})
		if code != 200 || m["description"] != "Support" {
			t.Errorf("PATCH description: %d %v", code, m)
		}

		// 6. Deleting ends the grant at once; non-admins are refused.
		if code, _ := x.api("DELETE", self, x.alice, nil); code != 204 {
			t.Fatalf("delete: %d, want 204", code)
		}
		if r := x.docs("GET", "/en/latest/", jar, nil); r.StatusCode != 404 {
			t.Errorf("after deleting the method: %d, want 404", r.StatusCode)
		}
		if code, _ := x.api("GET", self, x.alice, nil); code != 404 {
			t.Errorf("deleted method: %d, want 404", code)
		}
		if code, _ := x.api("GET", "/api/v3/projects/secret/sharing/", x.bob, nil); code != 403 {
			t.Errorf("list as a non-admin: %d, want 403", code)
		}
		if code, m := x.api("GET", "/api/v3/projects/secret/sharing/", x.alice, nil); code != 200 || m["count"] != float64(1) {
			t.Errorf("list: %d %v", code, m)
		}
	})
}

// TestSharingPassword: the password form, a wrong password, the right
// one, and the throttle after five failures.
func TestSharingPassword(t *testing.T) {
	x := newSharingSite(t, store.SQLite)
	code, m := x.api("POST", "/api/v3/projects/secret/sharing/", x.alice, map[string]any{
		"access_type": "password", "password": "open sesame", "allow_all": false, "versions": []string{"latest"}})
	if code != 201 {
		t.Fatalf("create: %d %v", code, m)
	}
	tok := m["token"].(string)
	if m["url"] != "http://secret.docs.test/_/sharing/"+tok+"?next=/en/latest/" || jsonOf(m["versions"]) != `["latest"]` {
		t.Errorf("created %v", m)
	}
	if _, has := m["password"]; has {
		t.Errorf("the password is shown: %v", m)
	}
	if r := x.docs("GET", "/_/sharing/"+tok+"/", nil, nil); r.StatusCode != 200 {
		t.Errorf("form: %d, want 200", r.StatusCode)
	}
	if r := x.docs("POST", "/_/sharing/"+tok, nil, url.Values{"password": {"wrong"}, "next": {"/en/latest/"}}); r.StatusCode != 200 || r.Header.Get("Set-Cookie") != "" {
		t.Errorf("wrong password: %d, cookie %q", r.StatusCode, r.Header.Get("Set-Cookie"))
	}
	r := x.docs("POST", "/_/sharing/"+tok, nil, url.Values{"password": {"open sesame"}, "next": {"/en/latest/"}})
	if r.StatusCode != 302 || r.Header.Get("Location") != "/en/latest/" {
		t.Fatalf("right password: %d %q", r.StatusCode, r.Header.Get("Location"))
	}
	jar := http.Header{"Cookie": {strings.Split(r.Header.Get("Set-Cookie"), ";")[0]}}
	if r := x.docs("GET", "/en/latest/", jar, nil); r.StatusCode != 200 {
		t.Errorf("with the grant: %d, want 200", r.StatusCode)
	}
	for i := 0; i < 4; i++ {
		x.docs("POST", "/_/sharing/"+tok, nil, url.Values{"password": {"wrong"}})
	}
	r = x.docs("POST", "/_/sharing/"+tok, nil, url.Values{"password": {"open sesame"}})
	if r.StatusCode != 429 || r.Header.Get("Retry-After") == "" {
		t.Errorf("after five failures: %d Retry-After %q, want 429", r.StatusCode, r.Header.Get("Retry-After"))
	}
	if r := x.docs("POST", "/_/sharing/"+tok, http.Header{"Origin": {"http://evil.test"}}, url.Values{"password": {"open sesame"}}); r.StatusCode != 403 {
		t.Errorf("cross-origin POST: %d, want 403", r.StatusCode)
	}
}

// TestAuditLogExamples runs the audit log's examples through a real
// server on both databases: a private page view through a sharing link
// recorded for the project's admin and hidden from others, a failed
// sign-in recorded with the user it names, and the filters' messages.
func TestAuditLogExamples(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		x := newSharingSite(t, d)
		today := time.Now().UTC().Format(time.DateOnly)
		_, m := x.api("POST", "/api/v3/projects/secret/sharing/", x.alice, map[string]any{"description": "Auditors"})
		tok := m["token"].(string)
		r := x.docs("GET", "/_/sharing/"+tok+"?next=/en/latest/", nil, nil)
		jar := http.Header{"Cookie": {strings.Split(r.Header.Get("Set-Cookie"), ";")[0]}, "User-Agent": {"Mozilla/5.0 (X11; Linux x86_64)"}}
		if r := x.docs("GET", "/en/latest/index.html", jar, nil); r.StatusCode != 200 {
			t.Fatalf("private page: %d", r.StatusCode)
		}

		code, m := x.api("GET", "/api/v3/audit-logs/?action=pageview&project=secret&date_after="+today, x.alice, nil)
		results, _ := m["results"].([]any)
		if code != 200 || m["count"] != float64(1) || len(results) != 1 {
			t.Fatalf("alice's pageviews: %d %v", code, m)
		}
		e := results[0].(map[string]any)
		want := map[string]any{"action": "pageview", "auth_backend": "sharing-token", "browser": "Mozilla/5.0 (X11; Linux x86_64)",
			"data": nil, "ip": "127.0.0.1", "organization": nil, "project": map[string]any{"id": float64(x.secretID), "slug": "secret"},
			"resource": "/en/latest/index.html", "user": nil}
		for k, v := range want {
			if jsonOf(e[k]) != jsonOf(v) {
				t.Errorf("entry %s = %s, want %s", k, jsonOf(e[k]), jsonOf(v))
			}
		}
		selfURL := e["_links"].(map[string]any)["_self"].(string)
		if code, _ := x.api("GET", strings.TrimPrefix(selfURL, x.base), x.alice, nil); code != 200 {
			t.Errorf("entry detail: %d", code)
		}
		if code, m := x.api("GET", "/api/v3/audit-logs/?action=pageview&project=secret&date_after="+today, x.bob, nil); code != 200 || jsonOf(m) != `{"count":0,"next":null,"previous":null,"results":[]}` {
			t.Errorf("bob's view: %d %s", code, jsonOf(m))
		}
		if code, _ := x.api("GET", strings.TrimPrefix(selfURL, x.base), x.bob, nil); code != 404 {
			t.Errorf("entry detail as bob: %d, want 404", code)
		}
		if code, m := x.api("GET", "/api/v3/audit-logs/?project=secret&action=sharing-created", x.alice, nil); code != 200 || m["count"] != float64(1) {
			t.Errorf("sharing-created: %d %v", code, m)
		}

		// A wrong password at the dashboard's sign-in.
		c := newBrowserClient(t, x.base)
		_, page := c.get("/accounts/login/")
		c.post("/accounts/login/", url.Values{"csrfmiddlewaretoken": {csrfOf(t, page)}, "login": {"alice"}, "password": {"wrong"}})
		_, m = x.api("GET", "/api/v3/audit-logs/?action=authentication-failure", x.alice, nil)
		results, _ = m["results"].([]any)
		if len(results) != 1 {
			t.Fatalf("failed sign-ins: %v", m)
		}
		e = results[0].(map[string]any)
		if jsonOf(e["user"]) != jsonOf(map[string]any{"id": float64(x.aliceID), "username": "alice"}) || e["auth_backend"] != "password" {
			t.Errorf("failed sign-in entry %v", e)
		}

		for q, want := range map[string]string{
			"action=nope":          `{"action":["Select a valid choice. nope is not one of the available choices."]}`,
			"date_after=yesterday": `{"date_after":["Enter a valid date."]}`,
		} {
			if code, m := x.api("GET", "/api/v3/audit-logs/?"+q, x.alice, nil); code != 400 || jsonOf(m) != want {
				t.Errorf("?%s: %d %s, want 400 %s", q, code, jsonOf(m), want)
			}
		}
		if code, _ := x.api("GET", "/api/v3/audit-logs/", "", nil); code != 401 {
			t.Errorf("without a key: %d, want 401", code)
		}
	})
}

// TestSecurityLogCSV exports a project's security log as CSV with an API
// key instead of a session: the header row, the file name and a page
// view's row; another user's key gets the 404 page.
func TestSecurityLogCSV(t *testing.T) {
	x := newSharingSite(t, store.SQLite)
	today := time.Now().UTC().Format(time.DateOnly)
	_, m := x.api("POST", "/api/v3/projects/secret/sharing/", x.alice, map[string]any{})
	r := x.docs("GET", "/_/sharing/"+m["token"].(string)+"?next=/en/latest/", nil, nil)
	jar := http.Header{"Cookie": {strings.Split(r.Header.Get("Set-Cookie"), ";")[0]}, "User-Agent": {"Mozilla/5.0 (X11; Linux x86_64)"}}
	x.docs("GET", "/en/latest/index.html", jar, nil)

	get := func(key string) (*http.Response, string) {
		return getWithKey(t, x.base+"/projects/secret/security-log/?download=true&action=pageview&date_after="+today, key)
	}
	resp, body := get(x.alice)
	wantName := `attachment; filename="docsd_project_security_logs_secret_` + today + "_" + today + `.csv"`
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/csv") || resp.Header.Get("Content-Disposition") != wantName {
		t.Fatalf("CSV: %d %q %q", resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Content-Disposition"))
	}
	lines := strings.Split(strings.TrimSpace(body), "\r\n")
	if len(lines) != 2 || lines[0] != "Date (UTC),User,Project,Organization,Action,Resource,IP,Browser,Extra data" ||
		!strings.HasSuffix(lines[1], ",,secret,,pageview,/en/latest/index.html,127.0.0.1,Mozilla/5.0 (X11; Linux x86_64),") {
		t.Errorf("CSV body:\n%s", body)
	}
	if resp, _ := get(x.bob); resp.StatusCode != 404 {
		t.Errorf("another user's key: %d, want 404", resp.StatusCode)
	}
}

// TestSharingPathMode: on the path-mode docs origin, secret links need
// --docs-path-sessions (else the API refuses them with its message, and
// header tokens still work); with it, a link redeemed on the docs origin
// reads the project's private pages there, and on no other host.
func TestSharingPathMode(t *testing.T) {
	for _, sessions := range []bool{false, true} {
		s := storetest.Open(t, store.SQLite)
		var args []string
		if sessions {
			args = append(args, "--docs-path-sessions")
		}
		a, base := dashboardApp(t, s, args...)
		docs := testDocs(t, a)
		publishBuilt(t, a, s, "secret", map[string]string{"index.html": "secret page"})
		x := &sharingSite{t: t, s: s, base: base, alice: newKey(t, s, "alice")}
		docsURL, _ := url.Parse(a.settings.DocsURL)
		get := func(path string, header http.Header) *http.Response {
			req, _ := http.NewRequest("GET", docs.URL+path, nil)
			req.Host = docsURL.Host // the docs origin's sessions are its host's only
			req.Header = header
			c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			return resp
		}

		code, m := x.api("POST", "/api/v3/projects/secret/sharing/", x.alice, map[string]any{"access_type": "token"})
		if !sessions {
			want := `{"access_type":["Secret links and passwords need browser sessions on the docs host, which this server does not offer in path mode (see --docs-path-sessions). Use http_header_token."]}`
			if code != 400 || jsonOf(m) != want {
				t.Errorf("a link without --docs-path-sessions: %d %s", code, jsonOf(m))
			}
			_, m = x.api("POST", "/api/v3/projects/secret/sharing/", x.alice, map[string]any{"access_type": "http_header_token"})
			if r := get("/docs/secret/en/latest/", http.Header{"Authorization": {"Token " + m["token"].(string)}}); r.StatusCode != 200 {
				t.Errorf("header token in path mode: %d, want 200", r.StatusCode)
			}
			continue
		}
		if code != 201 {
			t.Fatalf("a link with --docs-path-sessions: %d %v", code, m)
		}
		tok := m["token"].(string)
		if want := a.settings.DocsURL + "/_/sharing/" + tok + "?next=/docs/secret/en/latest/"; m["url"] != want {
			t.Errorf("url %v, want %s", m["url"], want)
		}
		r := get("/_/sharing/"+tok+"?next=/docs/secret/en/latest/", nil)
		if r.StatusCode != 302 || r.Header.Get("Location") != "/docs/secret/en/latest/" {
			t.Fatalf("redeem: %d %q", r.StatusCode, r.Header.Get("Location"))
		}
		jar := http.Header{"Cookie": {strings.Split(r.Header.Get("Set-Cookie"), ";")[0]}}
		if r := get("/docs/secret/en/latest/", jar); r.StatusCode != 200 {
			t.Errorf("with the grant: %d, want 200", r.StatusCode)
		}
		if r := get("/docs/secret/en/latest/", nil); r.StatusCode != 404 {
			t.Errorf("without it: %d, want 404", r.StatusCode)
		}
		req, _ := http.NewRequest("GET", docs.URL+"/docs/secret/en/latest/", nil)
		req.Host = "elsewhere.test" + docsURL.Host[strings.LastIndex(docsURL.Host, ":"):]
		req.Header = jar
		r, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		if r.StatusCode != 404 {
			t.Errorf("with the grant on another host: %d, want 404", r.StatusCode)
		}
	}
}

// TestDashboardSharingPages: the sharing page adds a method (the API's
// messages next to the fields), the edit page changes it, and other users
// get the 404 page.
func TestDashboardSharingPages(t *testing.T) {
	x := newSharingSite(t, store.SQLite)
	c := newBrowserClient(t, x.base)
	csrf := c.signIn("alice", "alice-password")
	resp, page := c.post("/projects/secret/sharing/", url.Values{"csrfmiddlewaretoken": {csrf}, "access_type": {"password"}, "versions": {"latest"}})
	if resp.StatusCode != 400 || !strings.Contains(page, `id="id_password_error">This field is required.`) || !strings.Contains(page, `value="latest" checked`) {
		t.Errorf("a password method without one: %d\n%s", resp.StatusCode, page)
	}
	resp, _ = c.post("/projects/secret/sharing/", url.Values{"csrfmiddlewaretoken": {csrf}, "access_type": {"token"}, "description": {"Auditors"}})
	if resp.StatusCode != 303 {
		t.Fatalf("add: %d", resp.StatusCode)
	}
	_, m := x.api("GET", "/api/v3/projects/secret/sharing/", x.alice, nil)
	id := itoa(int64(m["results"].([]any)[0].(map[string]any)["id"].(float64)))
	if resp, page := c.get("/projects/secret/sharing/" + id + "/"); resp.StatusCode != 200 || !strings.Contains(page, `value="Auditors"`) {
		t.Errorf("edit page: %d", resp.StatusCode)
	}
	resp, page = c.post("/projects/secret/sharing/"+id+"/", url.Values{"csrfmiddlewaretoken": {csrf}, "description": {"Auditors"}, "expires": {"2000-01-01"}})
	if resp.StatusCode != 400 || !strings.Contains(page, "Ensure this date is today or later.") {
		t.Errorf("a past expiry: %d", resp.StatusCode)
	}
	resp, _ = c.post("/projects/secret/sharing/"+id+"/", url.Values{"csrfmiddlewaretoken": {csrf}, "description": {"External auditors"}, "versions": {"latest"}})
	if resp.StatusCode != 303 {
		t.Fatalf("save: %d", resp.StatusCode)
	}
	if _, m := x.api("GET", "/api/v3/projects/secret/sharing/"+id+"/", x.alice, nil); m["description"] != "External auditors" || jsonOf(m["versions"]) != `["latest"]` || m["allow_all"] != false {
		t.Errorf("after saving: %v", m)
	}
	bob := newBrowserClient(t, x.base)
	bob.signIn("bob", "bob-password")
	for _, path := range []string{"/projects/secret/sharing/", "/projects/secret/sharing/" + id + "/", "/projects/secret/security-log/"} {
		if resp, _ := bob.get(path); resp.StatusCode != 404 {
			t.Errorf("bob at %s: %d, want 404", path, resp.StatusCode)
		}
	}
	if resp, page := bob.get("/accounts/security-log/"); resp.StatusCode != 200 || !strings.Contains(page, "authentication") {
		t.Errorf("bob's own security log: %d", resp.StatusCode)
	}
}
