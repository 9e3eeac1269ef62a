package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"docsd/internal/artifacts/artifactstest"
	"docsd/internal/domains"
	"docsd/internal/storetest"
	"docsd/store"
)

// importPublished imports a project for user and publishes its latest
// version's page index.html with body.
func importPublished(t *testing.T, s *store.Store, a *app, user *store.User, name, body string) *store.Project {
	t.Helper()
	p := storetest.MustImport(t, s, user, name, "https://github.com/example/"+name).Project
	if _, err := s.FindVersionBySlug(t.Context(), p.ID, store.Latest); err != nil {
		storetest.MustVersion(t, s, p.ID, store.Latest)
	}
	publishLatest(t, a, s, p.Slug, "<p>"+body+"</p>")
	return p
}

// domainPayload is what the tests read of a domain mutation.
type domainPayload struct {
	Domain *struct {
		ID               int64 `json:"databaseId"`
		Domain           string
		ValidationStatus string
	}
	Errors []struct {
		Path    []string
		Message string
	}
}

// errorOn returns the message on field, "" when there is none.
func (p domainPayload) errorOn(field string) string {
	for _, e := range p.Errors {
		if len(e.Path) > 0 && e.Path[len(e.Path)-1] == field {
			return e.Message
		}
	}
	return ""
}

func (s *e2eServer) createDomain(t *testing.T, input map[string]any) domainPayload {
	t.Helper()
	var out struct{ CreateDomain domainPayload }
	s.graphql(t, `mutation($in: CreateDomainInput!) { createDomain(input: $in) {
		domain { databaseId domain validationStatus } errors { path message } } }`, map[string]any{"in": input}, &out)
	return out.CreateDomain
}

func (s *e2eServer) updateDomain(t *testing.T, input map[string]any) domainPayload {
	t.Helper()
	var out struct{ UpdateDomain domainPayload }
	s.graphql(t, `mutation($in: UpdateDomainInput!) { updateDomain(input: $in) {
		domain { databaseId domain validationStatus } errors { path message } } }`, map[string]any{"in": input}, &out)
	return out.UpdateDomain
}

// fetchLikeTheSubdomain fetches path ({host} in it is the host asked)
// from base on the docs subdomain sub and on the custom domain, and fails
// the test unless the domain answers as the subdomain does, with the
// subdomain's URLs on the domain's HTTPS origin; it returns the
// subdomain's status and body.
func fetchLikeTheSubdomain(t *testing.T, base, path, sub, domain string) (int, string) {
	t.Helper()
	code, loc, body := fetch(t, base+strings.ReplaceAll(path, "{host}", sub), sub)
	dcode, dloc, dbody := fetch(t, base+strings.ReplaceAll(path, "{host}", domain), domain)
	loc = strings.ReplaceAll(loc, "http://"+sub, "https://"+domain)
	body = strings.ReplaceAll(body, "http://"+sub, "https://"+domain)
	if dcode != code || dloc != loc || dbody != body {
		t.Errorf("GET %s: on the domain %d %q %.300q; on the subdomain %d %q %.300q", path, dcode, dloc, dbody, code, loc, body)
	}
	return code, body
}

// TestCustomDomainServesLikeTheSubdomain: a served custom domain answers
// every path as the project's docs subdomain does (its pages, its
// subprojects' pages, the reader's /_/ routes), an unvalidated one serves
// nothing, and once the domain is canonical the subdomain, the path on
// the public host and the API's URLs all send readers to it.
func TestCustomDomainServesLikeTheSubdomain(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		a, srv := testApp(t, s, "--docs-domain", "docs.test", "--public-url", "http://example.test", "--build-workers", "0")
		admin, key := storetest.MustSuperuser(t, s, "alice")
		demo := importPublished(t, s, a, admin, "demo", "demo page")
		importPublished(t, s, a, admin, "child", "child page")
		api := &e2eServer{url: srv.URL, token: key}
		var sub struct {
			CreateSubproject struct{ Errors []struct{ Message string } }
		}
		api.graphql(t, `mutation { createSubproject(input: {project: "demo", child: "child", alias: "child"}) { errors { message } } }`, nil, &sub)
		if len(sub.CreateSubproject.Errors) > 0 {
			t.Fatalf("createSubproject: %v", sub.CreateSubproject.Errors)
		}

		served := api.createDomain(t, map[string]any{"project": "demo", "domain": "https://Docs.Acme.Test/", "skipValidation": true})
		if served.Domain == nil || served.Domain.Domain != "docs.acme.test" || served.Domain.ValidationStatus != "valid" {
			t.Fatalf("createDomain: %+v", served)
		}
		pending := api.createDomain(t, map[string]any{"project": "demo", "domain": "pending.acme.test"})
		if pending.Domain == nil || pending.Domain.ValidationStatus != "pending" {
			t.Fatalf("createDomain of a pending domain: %+v", pending)
		}

		for _, path := range []string{"/en/latest/index.html", "/projects/child/en/latest/index.html", "/", "/projects/child/",
			"/_/addons/?client-version=0.1&api-version=1&url=http%3A%2F%2F{host}%2Fen%2Flatest%2Findex.html", "/robots.txt"} {
			code, _ := fetchLikeTheSubdomain(t, srv.URL, path, "demo.docs.test", "docs.acme.test")
			if strings.HasSuffix(path, ".html") && code != http.StatusOK {
				t.Errorf("GET %s on the subdomain: status %d, want 200", path, code)
			}
		}
		if code, _, _ := fetch(t, srv.URL+"/en/latest/index.html", "pending.acme.test"); code == http.StatusOK {
			t.Errorf("a domain whose DNS was not validated: status %d, want no page", code)
		}

		// Privacy: a private version answers 404 to anonymous readers and
		// the page to its maintainer, on the domain as on the subdomain.
		v, err := s.FindVersionBySlug(t.Context(), demo.ID, store.Latest)
		if err != nil {
			t.Fatal(err)
		}
		private := "private"
		if _, err := s.UpdateVersion(t.Context(), v.ID, store.VersionUpdate{PrivacyLevel: &private}); err != nil {
			t.Fatal(err)
		}
		for _, host := range []string{"demo.docs.test", "docs.acme.test"} {
			if resp, _ := getHost(t, srv.URL+"/en/latest/index.html", host, ""); resp.StatusCode != http.StatusNotFound {
				t.Errorf("%s, anonymous, private version: status %d, want 404", host, resp.StatusCode)
			}
			if resp, body := getHost(t, srv.URL+"/en/latest/index.html", host, key); resp.StatusCode != http.StatusOK || !strings.Contains(body, "demo page") {
				t.Errorf("%s, maintainer, private version: status %d, want the page", host, resp.StatusCode)
			}
		}
		// A sharing link opens the private version on the domain as on
		// the subdomain: redeemed there, its grant cookie is the domain's.
		for _, host := range []string{"demo.docs.test", "docs.acme.test"} {
			tok := createSharingToken(t, srv.URL, key, "demo")
			r, _ := getHost(t, srv.URL+"/_/sharing/"+tok+"?next=/en/latest/index.html", host, "")
			cookie := strings.Split(r.Header.Get("Set-Cookie"), ";")[0]
			if r.StatusCode != http.StatusFound || r.Header.Get("Location") != "/en/latest/index.html" || !strings.HasPrefix(cookie, "docsd_share=") {
				t.Fatalf("%s: redeeming a sharing link: %d Location %q Set-Cookie %q", host, r.StatusCode, r.Header.Get("Location"), cookie)
			}
			req, _ := http.NewRequest(http.MethodGet, srv.URL+"/en/latest/index.html", nil)
			req.Host = host
			req.Header.Set("Cookie", cookie)
			resp, err := noFollow.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("%s: the private version with the sharing grant: status %d, want 200", host, resp.StatusCode)
			}
		}
		public := "public"
		if _, err := s.UpdateVersion(t.Context(), v.ID, store.VersionUpdate{PrivacyLevel: &public}); err != nil {
			t.Fatal(err)
		}

		if up := api.updateDomain(t, map[string]any{"project": "demo", "id": served.Domain.ID, "canonical": true}); len(up.Errors) > 0 {
			t.Fatalf("updateDomain canonical: %+v", up.Errors)
		}
		for host, path := range map[string]string{
			"demo.docs.test":    "/en/latest/index.html?x=1",
			"example.test":      "/docs/demo/en/latest/index.html?x=1",
			"pending.acme.test": "",
		} {
			if path == "" {
				continue
			}
			code, loc, _ := fetch(t, srv.URL+path, host)
			if want := "https://docs.acme.test/en/latest/index.html?x=1"; code != http.StatusFound || loc != want {
				t.Errorf("GET %s%s with a canonical domain: %d %q, want 302 %q", host, path, code, loc, want)
			}
		}
		if code, _, body := fetch(t, srv.URL+"/en/latest/index.html", "docs.acme.test"); code != http.StatusOK || !strings.Contains(body, "demo page") {
			t.Errorf("GET on the canonical domain: %d %.100q", code, body)
		}
		for slug, want := range map[string]string{
			"demo":  "https://docs.acme.test/en/latest/",
			"child": "https://docs.acme.test/projects/child/en/latest/", // a subproject lives under its parent's root
		} {
			var p struct {
				Project struct {
					Urls struct{ Documentation string }
				}
			}
			api.graphql(t, `query($p: String!) { project(slug: $p) { urls { documentation } } }`, map[string]any{"p": slug}, &p)
			if got := p.Project.Urls.Documentation; got != want {
				t.Errorf("%s: urls.documentation = %q, want %q", slug, got, want)
			}
		}
		// The sitemap and the addons' data (the flyout) name the canonical
		// domain, never the subdomain.
		for _, path := range []string{"/sitemap.xml", "/_/addons/?client-version=0.1&api-version=1&url=https%3A%2F%2Fdocs.acme.test%2Fen%2Flatest%2Findex.html"} {
			code, _, body := fetch(t, srv.URL+path, "docs.acme.test")
			if code != http.StatusOK || !strings.Contains(body, "https://docs.acme.test/") || strings.Contains(body, "demo.docs.test") {
				t.Errorf("GET %s on the canonical domain: %d, want URLs on https://docs.acme.test/ only: %.400s", path, code, body)
			}
		}

		var del struct{ DeleteDomain struct{ DeletedID *string } }
		api.graphql(t, `mutation($id: ID!) { deleteDomain(input: {project: "demo", id: $id}) { deletedId } }`,
			map[string]any{"id": served.Domain.ID}, &del)
		if code, _, _ := fetch(t, srv.URL+"/en/latest/index.html", "docs.acme.test"); code == http.StatusOK {
			t.Errorf("a removed domain still serves the docs")
		}
		if code, _, _ := fetch(t, srv.URL+"/en/latest/index.html", "demo.docs.test"); code != http.StatusOK {
			t.Errorf("the subdomain after the canonical domain was removed: status %d, want 200", code)
		}
	})
}

// TestCustomDomainServesTranslations: a served custom domain answers a
// project's translations at /<lang>/<version>/ exactly as its docs
// subdomain does (every version of them, the language's root, a version
// or language that does not exist, the addons' data), and once the domain
// is canonical the subdomain sends a translation's readers to it and the
// translation's URL is on it.
func TestCustomDomainServesTranslations(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		a, srv := testApp(t, s, "--docs-domain", "docs.test", "--public-url", "http://example.test", "--build-workers", "0")
		admin, key := storetest.MustSuperuser(t, s, "alice")
		importPublished(t, s, a, admin, "demo", "demo page")
		es := importPublished(t, s, a, admin, "demo-es", "página de demo")
		spanish := "es"
		_, err := s.UpdateProject(t.Context(), es.ID, store.ProjectUpdate{Language: &spanish})
		must(t, err)
		v1 := storetest.MustVersion(t, s, es.ID, "1.0")
		must(t, a.artifacts.PublishHTML(t.Context(), "demo-es", v1.Slug, artifactstest.Dir(t, map[string]string{"index.html": "<p>versión 1.0</p>"})))
		built := true
		_, err = s.UpdateVersion(t.Context(), v1.ID, store.VersionUpdate{Built: &built})
		must(t, err)
		api := &e2eServer{url: srv.URL, token: key}
		var tr struct {
			SetTranslationOf struct{ Errors []struct{ Message string } }
		}
		api.graphql(t, `mutation { setTranslationOf(input: {slug: "demo-es", main: "demo"}) { errors { message } } }`, nil, &tr)
		if len(tr.SetTranslationOf.Errors) > 0 {
			t.Fatalf("setTranslationOf: %v", tr.SetTranslationOf.Errors)
		}
		served := api.createDomain(t, map[string]any{"project": "demo", "domain": "docs.acme.test", "skipValidation": true})
		if served.Domain == nil || served.Domain.ValidationStatus != "valid" {
			t.Fatalf("createDomain: %+v", served)
		}

		for _, tc := range []struct {
			path     string
			wantCode int
			wantBody string
		}{
			{"/es/latest/index.html", http.StatusOK, "página de demo"},
			{"/es/1.0/index.html", http.StatusOK, "versión 1.0"},
			{"/es/1.0/", http.StatusOK, "versión 1.0"},
			{"/en/latest/index.html", http.StatusOK, "demo page"},
			{"/es/", http.StatusFound, "/es/latest/"},
			{"/es/2.0/index.html", http.StatusNotFound, ""},
			{"/fr/latest/index.html", http.StatusNotFound, ""},
			{"/_/addons/?client-version=0.1&api-version=1&url=http%3A%2F%2F{host}%2Fes%2F1.0%2Findex.html", http.StatusOK, `"language":{"code":"es"`}, // the translation is the current project
		} {
			code, body := fetchLikeTheSubdomain(t, srv.URL, tc.path, "demo.docs.test", "docs.acme.test")
			if code != tc.wantCode || !strings.Contains(body, tc.wantBody) {
				t.Errorf("GET %s on the subdomain: %d %.200q, want %d with %q", tc.path, code, body, tc.wantCode, tc.wantBody)
			}
		}

		if up := api.updateDomain(t, map[string]any{"project": "demo", "id": served.Domain.ID, "canonical": true}); len(up.Errors) > 0 {
			t.Fatalf("updateDomain canonical: %+v", up.Errors)
		}
		code, loc, _ := fetch(t, srv.URL+"/es/1.0/index.html?x=1", "demo.docs.test")
		if want := "https://docs.acme.test/es/1.0/index.html?x=1"; code != http.StatusFound || loc != want {
			t.Errorf("GET demo.docs.test/es/1.0/index.html with a canonical domain: %d %q, want 302 %q", code, loc, want)
		}
		if code, _, body := fetch(t, srv.URL+"/es/1.0/index.html", "docs.acme.test"); code != http.StatusOK || !strings.Contains(body, "versión 1.0") {
			t.Errorf("GET /es/1.0/index.html on the canonical domain: %d %.100q", code, body)
		}
		var p struct {
			Project struct {
				Urls struct{ Documentation string }
			}
		}
		api.graphql(t, `{ project(slug: "demo-es") { urls { documentation } } }`, nil, &p)
		if got, want := p.Project.Urls.Documentation, "https://docs.acme.test/es/latest/"; got != want {
			t.Errorf("demo-es: urls.documentation = %q, want %q", got, want)
		}
	})
}

// TestCreateDomainRefuses: Read the Docs' rules and messages, each next
// to its field, and nothing written.
func TestCreateDomainRefuses(t *testing.T) {
	s := storetest.Open(t, store.SQLite)
	_, srv := testApp(t, s, "--docs-domain", "docs.test", "--public-url", "https://example.test", "--build-workers", "0")
	admin, key := storetest.MustSuperuser(t, s, "alice")
	storetest.MustImport(t, s, admin, "demo", "https://github.com/example/demo")
	storetest.MustImport(t, s, admin, "other", "https://github.com/example/other")
	user, userKey := storetest.MustUser(t, s, "bob")
	storetest.MustImport(t, s, user, "bobs", "https://github.com/example/bobs")
	api := &e2eServer{url: srv.URL, token: key}
	bob := &e2eServer{url: srv.URL, token: userKey}
	if p := api.createDomain(t, map[string]any{"project": "other", "domain": "taken.example.com", "canonical": true}); len(p.Errors) > 0 {
		t.Fatal(p.Errors)
	}
	if p := api.createDomain(t, map[string]any{"project": "demo", "domain": "one.example.com", "canonical": true}); len(p.Errors) > 0 {
		t.Fatal(p.Errors)
	}
	for _, tc := range []struct {
		name   string
		as     *e2eServer
		input  map[string]any
		field  string
		wanted string
	}{
		{"NotAHostName", api, map[string]any{"domain": "not a host"}, "domain", domains.MsgInvalidName},
		{"OneLabel", api, map[string]any{"domain": "localhost"}, "domain", domains.MsgInvalidName},
		{"IPv4", api, map[string]any{"domain": "192.0.2.1"}, "domain", domains.MsgIPAddress},
		{"IPv6", api, map[string]any{"domain": "[2001:db8::1]"}, "domain", domains.MsgIPAddress},
		{"DocsDomain", api, map[string]any{"domain": "docs.test"}, "domain", domains.MsgRestricted("docs.test")},
		{"UnderDocsDomain", api, map[string]any{"domain": "demo.docs.test"}, "domain", domains.MsgRestricted("docs.test")},
		{"PublicHost", api, map[string]any{"domain": "example.test"}, "domain", domains.MsgRestricted("example.test")},
		{"OtherProjects", api, map[string]any{"domain": "TAKEN.example.com"}, "domain", domains.MsgTaken},
		{"SecondCanonical", api, map[string]any{"domain": "two.example.com", "canonical": true}, "canonical", domains.MsgCanonical},
		{"SkipValidationNotSuperuser", bob, map[string]any{"project": "bobs", "domain": "bobs.example.com", "skipValidation": true}, "skipValidation", "Only a superuser can set this field."},
		{"HSTSNotSuperuser", bob, map[string]any{"project": "bobs", "domain": "bobs.example.com", "hstsMaxAge": 60}, "hstsMaxAge", "Only a superuser can set this field."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, ok := tc.input["project"]; !ok {
				tc.input["project"] = "demo"
			}
			p := tc.as.createDomain(t, tc.input)
			if got := p.errorOn(tc.field); got != tc.wanted || p.Domain != nil {
				t.Errorf("message on %s = %q (domain %+v, errors %+v), want %q", tc.field, got, p.Domain, p.Errors, tc.wanted)
			}
		})
	}
	if p := api.createDomain(t, map[string]any{"project": "demo", "domain": "two.example.com"}); len(p.Errors) > 0 {
		t.Fatal(p.Errors)
	}
	if p := api.createDomain(t, map[string]any{"project": "demo", "domain": "three.example.com"}); p.errorOn("domain") != domains.MsgLimit(2) {
		t.Errorf("a third domain: %+v, want %q", p.Errors, domains.MsgLimit(2))
	}
	ds, err := s.FindAllDomains(t.Context())
	if err != nil || len(ds) != 3 {
		t.Errorf("domains stored: %d (%v), want 3", len(ds), err)
	}
}

// getHost GETs url with the Host header host, and the API key token when
// not "".
func getHost(t *testing.T, url, host, token string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Host = host
	if token != "" {
		req.Header.Set("Authorization", "Token "+token)
	}
	resp, err := noFollow.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// createSharingToken makes a secret link to every version of project
// through REST v3 with the token key and returns its token.
func createSharingToken(t *testing.T, base, key, project string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/api/v3/projects/"+project+"/sharing/",
		strings.NewReader(`{"access_type": "token", "allow_all": true}`))
	req.Header.Set("Authorization", "Token "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct{ Token string }
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusCreated || out.Token == "" {
		t.Fatalf("POST sharing: %d %v %+v", resp.StatusCode, err, out)
	}
	return out.Token
}
