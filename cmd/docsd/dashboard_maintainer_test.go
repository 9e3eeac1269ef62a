package main

import (
	"html"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"docsd/internal/accounts"
	"docsd/internal/storetest"
	"docsd/store"
)

// TestDashboardTokens: a user creates an API token (shown once, working on
// v3), sees it listed by its prefix, and revokes it; another user cannot
// revoke it. (The fixture gave alice a token already.)
func TestDashboardTokens(t *testing.T) {
	s := storetest.Open(t, store.SQLite)
	_, base := dashboardApp(t, s)
	alice, bob := newBrowserClient(t, base), newBrowserClient(t, base)
	csrf := alice.signIn("alice", "alice-password")
	bobCSRF := bob.signIn("bob", "bob-password")
	revokeForm := regexp.MustCompile(`action="(/accounts/tokens/[A-Za-z0-9_-]+/delete/)"`)
	if resp, body := alice.get("/accounts/tokens/"); resp.StatusCode != http.StatusOK || len(revokeForm.FindAllString(body, -1)) != 1 {
		t.Fatalf("tokens page: %d, want the fixture's one token\n%s", resp.StatusCode, body)
	}
	if resp, _ := newBrowserClient(t, base).get("/accounts/tokens/"); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("anonymous tokens page: %d, want 303 to sign in", resp.StatusCode)
	}
	resp, body := alice.post("/accounts/tokens/", url.Values{"csrfmiddlewaretoken": {csrf}, "name": {"  "}})
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, `id="id_name_error"`) || strings.Contains(body, `id="id_new_key"`) {
		t.Errorf("create without a name: %d, want 400 with a message next to the name and no key\n%s", resp.StatusCode, body)
	}
	resp, body = alice.post("/accounts/tokens/", url.Values{"csrfmiddlewaretoken": {csrf}, "name": {"CI deploys"}})
	m := regexp.MustCompile(`id="id_new_key" value="([0-9a-f]{40})"`).FindStringSubmatch(body)
	if resp.StatusCode != http.StatusOK || m == nil {
		t.Fatalf("create: %d, want 200 with the new key\n%s", resp.StatusCode, body)
	}
	key := m[1]
	if r, _ := get(t, base+"/api/v3/projects/", key); r.StatusCode != http.StatusOK {
		t.Errorf("the new key on v3: %d, want 200", r.StatusCode)
	}
	_, page := alice.get("/accounts/tokens/")
	forms := revokeForm.FindAllStringSubmatch(page, -1)
	if len(forms) != 2 || strings.Contains(page, key) || !strings.Contains(page, "<code>"+key[:4]+"…</code>") || !strings.Contains(page, "<td>CI deploys</td>") {
		t.Fatalf("tokens page: want the new key listed second, by its prefix only\n%s", page)
	}
	revoke := forms[1]
	if resp, _ := bob.post(revoke[1], url.Values{"csrfmiddlewaretoken": {bobCSRF}}); resp.StatusCode != http.StatusNotFound {
		t.Errorf("bob revokes alice's token: %d, want 404", resp.StatusCode)
	}
	if resp, _ := alice.post(revoke[1], url.Values{"csrfmiddlewaretoken": {"wrong"}}); resp.StatusCode != http.StatusForbidden {
		t.Errorf("revoke without the CSRF token: %d, want 403", resp.StatusCode)
	}
	if resp, _ := alice.post(revoke[1], url.Values{"csrfmiddlewaretoken": {csrf}}); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("revoke: %d, want 303", resp.StatusCode)
	}
	if r, _ := get(t, base+"/api/v3/projects/", key); r.StatusCode != http.StatusUnauthorized {
		t.Errorf("the revoked key on v3: %d, want 401", r.StatusCode)
	}
	if _, page := alice.get("/accounts/tokens/"); len(revokeForm.FindAllString(page, -1)) != 1 || strings.Contains(page, revoke[1]) {
		t.Errorf("the token is still listed after revoking:\n%s", page)
	}
}

// TestDashboardSubprojectsAndTranslations: a maintainer nests a project
// of theirs as a subproject and links one as a translation; the API's
// messages appear next to the field, with what was typed; both are
// removed again.
func TestDashboardSubprojectsAndTranslations(t *testing.T) {
	s := storetest.Open(t, store.SQLite)
	_, base := dashboardApp(t, s)
	alice := newBrowserClient(t, base)
	csrf := alice.signIn("alice", "alice-password")
	u := mustUserByName(t, s, "alice")
	storetest.MustImport(t, s, u, "Child", "https://github.com/a/child")
	fr := storetest.MustImport(t, s, u, "Demo FR", "https://github.com/a/demo-fr").Project
	lang := "fr"
	if _, err := s.UpdateProject(t.Context(), fr.ID, store.ProjectUpdate{Language: &lang}); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		page, field string
		bad         map[string]string // typed → the message shown next to the field
		good        string
		listed      string
	}{
		{"subprojects", "child", map[string]string{"no-such-project": "Object with slug=no-such-project does not exist.",
			"": "This field may not be null."}, "child", `<a href="/projects/child/">Child</a>`},
		{"translations", "translation", map[string]string{"nope": "Object with slug=nope does not exist.", "": "This field may not be blank.",
			"child": "A translation with language &#34;en&#34; already exists for this project."}, "demo-fr", `<a href="/projects/demo-fr/">Demo FR</a>`},
	} {
		path := "/projects/demo/" + tc.page + "/"
		for typed, msg := range tc.bad {
			resp, body := alice.post(path, url.Values{"csrfmiddlewaretoken": {csrf}, tc.field: {typed}})
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, `value="`+typed+`"`) ||
				!strings.Contains(body, `<p class="field-error" id="id_`+tc.field+`_error">`+msg+`</p>`) {
				t.Errorf("%s: %s %q: %d, want 400 with %q next to the field and the value kept\n%s", tc.page, tc.field, typed, resp.StatusCode, msg, body)
			}
		}
		if resp, body := alice.post(path, url.Values{"csrfmiddlewaretoken": {csrf}, tc.field: {tc.good}}); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("%s: add: %d\n%s", tc.page, resp.StatusCode, body)
		}
		_, page := alice.get(path)
		del := regexp.MustCompile(`action="(` + regexp.QuoteMeta(path) + `[^"/]+/delete/)"`).FindStringSubmatch(page)
		if del == nil || !strings.Contains(page, tc.listed) {
			t.Fatalf("%s page lacks the new entry:\n%s", tc.page, page)
		}
		if resp, _ := alice.post(del[1], url.Values{"csrfmiddlewaretoken": {csrf}}); resp.StatusCode != http.StatusSeeOther {
			t.Errorf("%s: remove: %d, want 303", tc.page, resp.StatusCode)
		}
		if _, page := alice.get(path); strings.Contains(page, tc.listed) {
			t.Errorf("%s: still listed after removal:\n%s", tc.page, page)
		}
	}
}

// TestDashboardRedirectDryRun: the redirects page's "where does this URL
// go?" box answers with Project.resolveRedirect.
func TestDashboardRedirectDryRun(t *testing.T) {
	s := storetest.Open(t, store.SQLite)
	_, base := dashboardApp(t, s)
	alice := newBrowserClient(t, base)
	csrf := alice.signIn("alice", "alice-password")
	if resp, body := alice.post("/projects/demo/redirects/", url.Values{"csrfmiddlewaretoken": {csrf}, "type": {"page"},
		"from_url": {"/old.html"}, "to_url": {"/new.html"}, "http_status": {"301"}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("add: %d\n%s", resp.StatusCode, body)
	}
	for _, tc := range []struct {
		path string
		want []string
	}{
		{"/en/latest/old.html", []string{"<strong>301</strong>", "/docs/demo/en/latest/new.html", "from <code>/old.html</code>", "only when the page does not exist"}},
		{"/en/latest/other.html", []string{"No redirect applies to <code>/en/latest/other.html</code>"}},
		{"https://elsewhere.example/x", []string{`id="id_path_error"`, `value="https://elsewhere.example/x"`}},
	} {
		resp, body := alice.get("/projects/demo/redirects/?path=" + url.QueryEscape(tc.path))
		body = html.UnescapeString(body)
		for _, w := range tc.want {
			if resp.StatusCode != http.StatusOK || !strings.Contains(body, w) {
				t.Errorf("dry run of %s: %d, want %q in\n%s", tc.path, resp.StatusCode, w, body)
				break
			}
		}
	}
}

// TestDashboardAdminSettings: a superuser who maintains a project gets the
// admin settings form (setProjectAdminFields) on its settings page (the
// page is the maintainers'); a maintainer who is not a superuser neither
// sees nor may send it.
func TestDashboardAdminSettings(t *testing.T) {
	s := storetest.Open(t, store.SQLite)
	_, base := dashboardApp(t, s)
	storetest.MustSuperuser(t, s, "root")
	if err := accounts.New(s).SetPassword(t.Context(), "root", "root-password"); err != nil {
		t.Fatal(err)
	}
	alice, root := newBrowserClient(t, base), newBrowserClient(t, base)
	aliceCSRF, rootCSRF := alice.signIn("alice", "alice-password"), root.signIn("root", "root-password")
	if _, page := alice.get("/projects/demo/edit/"); strings.Contains(page, "Admin settings") {
		t.Errorf("a maintainer who is not a superuser sees the admin form")
	}
	if resp, _ := alice.post("/projects/demo/edit/admin/", url.Values{"csrfmiddlewaretoken": {aliceCSRF}, "skip": {"on"}}); resp.StatusCode != http.StatusForbidden {
		t.Errorf("alice sends the admin form: %d, want 403", resp.StatusCode)
	}
	if resp, _ := alice.post("/projects/demo/users/", url.Values{"csrfmiddlewaretoken": {aliceCSRF}, "username": {"root"}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("add root as a maintainer: %d", resp.StatusCode)
	}
	if _, page := root.get("/projects/demo/edit/"); !strings.Contains(page, "Admin settings") || !strings.Contains(page, `id="id_build_time_limit"`) {
		t.Fatalf("a superuser's settings page lacks the admin form:\n%s", page)
	}
	resp, body := root.post("/projects/demo/edit/admin/", url.Values{"csrfmiddlewaretoken": {rootCSRF}, "build_time_limit": {"soon"}})
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, `id="id_build_time_limit_error"`) || !strings.Contains(body, `value="soon"`) {
		t.Errorf("a time limit that is not a number: %d, want 400 with a message next to the field\n%s", resp.StatusCode, body)
	}
	resp, body = root.post("/projects/demo/edit/admin/", url.Values{"csrfmiddlewaretoken": {rootCSRF}, "build_time_limit": {"-5"}})
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, `id="id_build_time_limit_error"`) {
		t.Errorf("a negative time limit: %d, want 400 with the API's message next to the field\n%s", resp.StatusCode, body)
	}
	if resp, _ := root.post("/projects/demo/edit/admin/", url.Values{"csrfmiddlewaretoken": {rootCSRF}, "skip": {"on"}, "build_time_limit": {"600"}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("save admin settings: %d, want 303", resp.StatusCode)
	}
	p, err := s.FindProjectBySlug(t.Context(), "demo")
	if err != nil || !p.Skip || p.BuildTimeLimit == nil || *p.BuildTimeLimit != 600 {
		t.Errorf("project after the admin form: skip %v, limit %v, %v", p.Skip, p.BuildTimeLimit, err)
	}
}

// TestDashboardRedirectEdit: a maintainer edits every field of a redirect
// (one updateRedirect), gets the API's message next to the field at fault
// with what was typed kept, and moves redirects up and down the order in
// which the docs host tries them; another user gets the 404 page.
func TestDashboardRedirectEdit(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		_, base := dashboardApp(t, s)
		alice := newBrowserClient(t, base)
		csrf := alice.signIn("alice", "alice-password")
		// A new redirect goes first (position 0): the list is /c.html, /a.html.
		for _, from := range []string{"/a.html", "/c.html"} {
			if resp, body := alice.post("/projects/demo/redirects/", url.Values{"csrfmiddlewaretoken": {csrf}, "type": {"page"},
				"from_url": {from}, "to_url": {"/new.html"}, "http_status": {"302"}}); resp.StatusCode != http.StatusSeeOther {
				t.Fatalf("add %s: %d\n%s", from, resp.StatusCode, body)
			}
		}
		rows := regexp.MustCompile(`<tr id="redirect-(\d+)">\s*<td>[^<]*</td>\s*<td class="url">([^<]*)</td>`)
		order := func() (ids, froms []string) {
			t.Helper()
			resp, body := alice.get("/projects/demo/redirects/")
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("list: %d", resp.StatusCode)
			}
			for _, m := range rows.FindAllStringSubmatch(body, -1) {
				ids, froms = append(ids, m[1]), append(froms, m[2])
			}
			return ids, froms
		}
		ids, froms := order()
		if strings.Join(froms, " ") != "/c.html /a.html" {
			t.Fatalf("order after adding: %v, want /c.html /a.html", froms)
		}
		a := "/projects/demo/redirects/" + ids[1] + "/"

		// Every field, saved and shown again by the edit page.
		if resp, body := alice.post(a, url.Values{"csrfmiddlewaretoken": {csrf}, "type": {"exact"}, "from_url": {"/en/latest/x.html"},
			"to_url": {"https://example.com/y"}, "http_status": {"301"}, "force": {"on"}, "description": {"moved away"}}); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("edit: %d\n%s", resp.StatusCode, body)
		}
		resp, body := alice.get(a)
		body = html.UnescapeString(body)
		for _, w := range []string{`<option value="exact" selected>`, `value="/en/latest/x.html"`, `value="https://example.com/y"`,
			`<option value="301" selected>`, `name="force" checked`, `value="moved away"`} {
			if resp.StatusCode != http.StatusOK || !strings.Contains(body, w) {
				t.Errorf("edit page after saving: %d, want %q in\n%s", resp.StatusCode, w, body)
			}
		}
		if strings.Contains(body, `name="enabled" checked`) {
			t.Errorf("edit page after disabling: enabled still checked")
		}

		// A bad field: its message next to it, the form as typed, nothing saved.
		resp, body = alice.post(a, url.Values{"csrfmiddlewaretoken": {csrf}, "type": {"page"}, "from_url": {"/typed.html"},
			"to_url": {""}, "http_status": {"302"}, "enabled": {"on"}, "description": {"typed"}})
		if resp.StatusCode != http.StatusBadRequest || !regexp.MustCompile(`id="id_to_url" name="to_url" value="" aria-invalid="true" aria-describedby="id_to_url_error">\s*<p class="field-error" id="id_to_url_error">`).MatchString(body) ||
			!strings.Contains(body, `value="/typed.html"`) || !strings.Contains(body, `name="enabled" checked`) || !strings.Contains(body, `<option value="page" selected>`) {
			t.Errorf("edit with a blank to URL: %d, want 400 with the error at to_url and the typed values\n%s", resp.StatusCode, body)
		}
		if _, froms := order(); froms[1] != "/en/latest/x.html" {
			t.Errorf("a refused edit changed the redirect: %v", froms)
		}

		// Moves: up, down, and past either end changes nothing.
		for _, tc := range []struct{ id, to, want string }{
			{ids[1], "up", "/en/latest/x.html /c.html"},
			{ids[1], "up", "/en/latest/x.html /c.html"},
			{ids[1], "down", "/c.html /en/latest/x.html"},
			{ids[1], "down", "/c.html /en/latest/x.html"},
		} {
			if resp, body := alice.post("/projects/demo/redirects/"+tc.id+"/move/", url.Values{"csrfmiddlewaretoken": {csrf}, "to": {tc.to}}); resp.StatusCode != http.StatusSeeOther {
				t.Fatalf("move %s: %d\n%s", tc.to, resp.StatusCode, body)
			}
			if _, froms := order(); strings.Join(froms, " ") != tc.want {
				t.Errorf("after moving %s: %v, want %s", tc.to, froms, tc.want)
			}
		}
		if resp, _ := alice.post(a+"move/", url.Values{"csrfmiddlewaretoken": {csrf}, "to": {"sideways"}}); resp.StatusCode != http.StatusNotFound {
			t.Errorf("move sideways: %d, want 404", resp.StatusCode)
		}

		// Not a maintainer, or no such redirect: the 404 page.
		bob := newBrowserClient(t, base)
		bobCSRF := bob.signIn("bob", "bob-password")
		for name, r := range map[string]*http.Response{
			"bob's edit page": func() *http.Response { r, _ := bob.get(a); return r }(),
			"bob's edit": func() *http.Response {
				r, _ := bob.post(a, url.Values{"csrfmiddlewaretoken": {bobCSRF}, "type": {"page"}})
				return r
			}(),
			"bob's move": func() *http.Response {
				r, _ := bob.post(a+"move/", url.Values{"csrfmiddlewaretoken": {bobCSRF}, "to": {"up"}})
				return r
			}(),
			"an unknown id":  func() *http.Response { r, _ := alice.get("/projects/demo/redirects/999999/"); return r }(),
			"a malformed id": func() *http.Response { r, _ := alice.get("/projects/demo/redirects/x1/"); return r }(),
		} {
			if r.StatusCode != http.StatusNotFound {
				t.Errorf("%s: %d, want 404", name, r.StatusCode)
			}
		}
	})
}

// TestTokenCreateName: `docsd token create USERNAME --name NAME` names the
// key as the dashboard's form does (trimmed, at most 100 characters, not
// blank), `token list` and the dashboard's tokens page show the name, and
// a key made without one shows as unnamed on both.
func TestTokenCreateName(t *testing.T) {
	dir := t.TempDir()
	data := "--data-dir=" + dir
	migrated(t, dir)
	code, out, errOut := docsdWithInput(t, "alice-password\n", "user", "create", "alice", "--password-stdin", data)
	if code != 0 {
		t.Fatalf("user create: %d %s", code, errOut)
	}
	unnamed := strings.TrimSpace(out)
	code, out, errOut = docsd(t, "token", "create", "alice", "--name", "  CI deploys  ", data)
	if code != 0 || !tokenLine.MatchString(out) {
		t.Fatalf("token create --name: code %d, stdout %q, stderr %q; want 0 and the key alone on a line", code, out, errOut)
	}
	named := strings.TrimSpace(out)
	for _, tc := range []struct{ name, want string }{
		{strings.Repeat("x", 101), "no more than 100 characters"},
		{"   ", "may not be blank"},
	} {
		if code, out, errOut := docsd(t, "token", "create", "alice", "--name", tc.name, data); code != 1 || out != "" || !strings.Contains(errOut, tc.want) {
			t.Errorf("token create --name %q: code %d, stdout %q, stderr %q; want 1 saying %q", tc.name, code, out, errOut, tc.want)
		}
	}
	_, out, _ = docsd(t, "token", "list", "alice", data)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.HasSuffix(lines[0], "\t"+unnamed[:4]+"…\t(unnamed)") || !strings.HasSuffix(lines[1], "\t"+named[:4]+"…\tCI deploys") {
		t.Errorf("token list: %q; want the user create key unnamed and the named one (nothing made by the refused commands)", out)
	}

	s, err := store.Open(t.Context(), filepath.Join(dir, "docsd.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, srv := testApp(t, s)
	alice := newBrowserClient(t, srv.URL)
	alice.signIn("alice", "alice-password")
	_, page := alice.get("/accounts/tokens/")
	for _, want := range []string{"<td>CI deploys</td>", `<td class="unnamed">(unnamed)</td>`} {
		if !strings.Contains(page, want) {
			t.Errorf("tokens page lacks %s:\n%s", want, page)
		}
	}
}
