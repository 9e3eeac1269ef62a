package webhook

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"docsd/internal/access"
	"docsd/internal/storetest"
	"docsd/store"
)

// fixture is a webhook server over a store with one imported project,
// `demo`, that has a GitHub integration, an active `master` branch
// version and an inactive `dev` one.
type fixture struct {
	t       *testing.T
	s       *store.Store
	srv     *httptest.Server
	project *store.Project
	github  *store.Integration
	user    *store.User
	key     string // alice's API token
	woken   atomic.Int32
}

func newFixture(t *testing.T, d store.Dialect) *fixture {
	t.Helper()
	s := storetest.Open(t, d)
	user, key := storetest.MustUser(t, s, "alice")
	imp := storetest.MustImport(t, s, user, "Demo", "https://github.com/acme/demo")
	f := &fixture{t: t, s: s, project: imp.Project, github: imp.Integration, user: user, key: key}
	ctx := context.Background()
	for _, v := range []store.Version{
		{Slug: "master", VerboseName: "master", Identifier: "origin/master", Type: store.Branch, Active: true},
		{Slug: "dev", VerboseName: "dev", Identifier: "origin/dev", Type: store.Branch},
		{Slug: "v1.0", VerboseName: "v1.0", Identifier: "abc123", Type: store.Tag, Active: true},
	} {
		v.ProjectID = imp.Project.ID
		if _, err := s.CreateVersion(ctx, &v); err != nil {
			t.Fatal(err)
		}
	}
	h := &Handler{Store: s, Wake: func() { f.woken.Add(1) },
		Authenticate: func(ctx context.Context, header string) (*store.User, error) {
			v, err := access.Authenticate(ctx, s, header)
			return v.User, err
		}}
	f.srv = httptest.NewServer(h)
	t.Cleanup(f.srv.Close)
	return f
}

func sign(secret, body string) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(body))
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// post sends a request and returns the status and body.
func (f *fixture) do(method, path string, header map[string]string, body string) (int, string, http.Header) {
	f.t.Helper()
	req, err := http.NewRequest(method, f.srv.URL+path, strings.NewReader(body))
	if err != nil {
		f.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

// github posts a signed GitHub event.
func (f *fixture) githubEvent(event, body string) (int, string) {
	f.t.Helper()
	code, b, _ := f.do("POST", "/api/v2/webhook/github/demo/", map[string]string{
		"X-GitHub-Event": event, "X-Hub-Signature-256": sign(f.github.Secret, body)}, body)
	return code, b
}

// builds returns the slugs of the versions with queued builds, sorted,
// one per build, leaving out the import's build of latest.
func (f *fixture) builds() []string {
	f.t.Helper()
	bs, _, err := f.s.FindBuilds(context.Background(), store.BuildFilter{ProjectID: &f.project.ID})
	if err != nil {
		f.t.Fatal(err)
	}
	var out []string
	for _, b := range bs {
		if b.ID == 1 {
			continue
		}
		v, err := f.s.FindVersionByID(context.Background(), b.VersionID)
		if err != nil {
			f.t.Fatal(err)
		}
		out = append(out, v.Slug)
	}
	sort.Strings(out)
	return out
}

func (f *fixture) expect(gotCode int, gotBody string, wantCode int, wantBody string) {
	f.t.Helper()
	if gotCode != wantCode || gotBody != wantBody {
		f.t.Errorf("answer %d %s\n  want %d %s", gotCode, gotBody, wantCode, wantBody)
	}
}

func TestGitHub(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		f := newFixture(t, d)
		code, body := f.githubEvent("ping", `{"zen": "hi"}`)
		f.expect(code, body, 200, `{"detail":"Webhook configured correctly"}`)

		code, body = f.githubEvent("push", `{"ref": "refs/heads/master"}`)
		f.expect(code, body, 200, `{"build_triggered":true,"project":"demo","versions":["latest","master"]}`)
		if got := f.builds(); strings.Join(got, ",") != "latest,master" {
			t.Errorf("builds %v, want latest and master", got)
		}
		if f.woken.Load() == 0 {
			t.Error("the workers were not woken")
		}

		code, body = f.githubEvent("push", `{"ref": "refs/heads/dev"}`)
		f.expect(code, body, 200, `{"build_triggered":false,"project":"demo","versions":[]}`)
		code, body = f.githubEvent("push", `{"ref": "refs/tags/v1.0"}`)
		f.expect(code, body, 200, `{"build_triggered":true,"project":"demo","versions":["v1.0"]}`)
		code, body = f.githubEvent("push", `{"after": "x"}`)
		f.expect(code, body, 400, `{"detail":"Parameter \"ref\" is required"}`)

		for _, ev := range []struct{ event, body string }{
			{"push", `{"ref": "refs/heads/new", "created": true}`},
			{"push", `{"ref": "refs/heads/old", "deleted": true}`},
			{"create", `{"ref": "v2.0", "ref_type": "tag"}`},
			{"delete", `{"ref": "dev", "ref_type": "branch"}`},
		} {
			code, body = f.githubEvent(ev.event, ev.body)
			f.expect(code, body, 200, `{"build_triggered":false,"project":"demo","versions":["latest"],"versions_synced":true}`)
		}
		task, err := f.s.ClaimSyncTask(context.Background(), "test", 60e9)
		if err != nil || task.ProjectID != f.project.ID {
			t.Errorf("no sync task queued: %v", err)
		}

		code, body = f.githubEvent("issues", `{}`)
		f.expect(code, body, 200, `{"detail":"Unhandled webhook event"}`)
		code, body = f.githubEvent("pull_request", `{"action": "opened", "number": 7, "pull_request": {"head": {"sha": "feed"}}}`)
		f.expect(code, body, 200, `{"detail":"Unhandled webhook event"}`)

		// Bad signatures.
		payload := `{"ref": "refs/heads/master"}`
		for name, header := range map[string]map[string]string{
			"missing":   {},
			"wrong":     {"X-Hub-Signature-256": sign("not the secret", payload)},
			"sha1 only": {"X-Hub-Signature": "sha1=" + strings.Repeat("0", 40)},
			"tampered":  {"X-Hub-Signature-256": sign(f.github.Secret, payload+" ")},
		} {
			code, body, _ := f.do("POST", "/api/v2/webhook/github/demo/", header, payload)
			if code != 400 || body != `{"detail":"Payload not valid, invalid or missing signature"}` {
				t.Errorf("%s signature: %d %s", name, code, body)
			}
		}

		// A form post carries the document in `payload`; the signature
		// covers the raw body.
		form := "payload=" + url.QueryEscape(`{"ref": "refs/heads/master"}`)
		code, body, _ = f.do("POST", "/api/v2/webhook/github/demo/", map[string]string{
			"Content-Type": "application/x-www-form-urlencoded", "X-Hub-Signature-256": sign(f.github.Secret, form)}, form)
		f.expect(code, body, 200, `{"build_triggered":true,"project":"demo","versions":["latest","master"]}`)

		// Exchanges are recorded with the answer.
		xs, err := f.s.FindWebhookExchanges(context.Background(), f.github.ID)
		if err != nil || len(xs) != 10 {
			t.Fatalf("%d exchanges recorded (%v), want the 10 most recent", len(xs), err)
		}
		if xs[0].ResponseStatus != 200 || !strings.Contains(xs[0].RequestBody, "payload=") {
			t.Errorf("latest exchange %+v", xs[0])
		}
	})
}

func TestPullRequestBuilds(t *testing.T) {
	f := newFixture(t, store.SQLite)
	ctx := context.Background()
	if _, err := f.s.UpdateProject(ctx, f.project.ID, store.ProjectUpdate{ExternalBuildsEnabled: ptr(true)}); err != nil {
		t.Fatal(err)
	}
	code, body := f.githubEvent("pull_request", `{"action": "opened", "number": 7, "pull_request": {"head": {"sha": "feed"}}}`)
	f.expect(code, body, 200, `{"build_triggered":true,"project":"demo","versions":["7"]}`)
	code, body = f.githubEvent("pull_request", `{"action": "synchronize", "number": 7, "pull_request": {"head": {"sha": "beef"}}}`)
	f.expect(code, body, 200, `{"build_triggered":true,"project":"demo","versions":["7"]}`)
	v, err := f.s.FindVersionBySlug(ctx, f.project.ID, "7")
	if err != nil || v.Type != store.External || v.Identifier != "beef" || !v.Active {
		t.Fatalf("external version %+v, %v", v, err)
	}
	bs, _, _ := f.s.FindBuilds(ctx, store.BuildFilter{VersionID: &v.ID})
	if len(bs) != 2 || bs[0].Commit == nil || *bs[0].Commit != "beef" {
		t.Errorf("preview builds %d, latest commit %v", len(bs), bs[0].Commit)
	}
	code, body = f.githubEvent("pull_request", `{"action": "opened", "number": 8}`)
	f.expect(code, body, 400, `{"detail":"Parameters \"sha\" and \"number\" are required"}`)
	code, body = f.githubEvent("pull_request", `{"action": "closed", "number": 7, "pull_request": {"head": {"sha": "beef"}}}`)
	f.expect(code, body, 200, `{"version_deleted":true,"project":"demo","versions":["7"]}`)
	if _, err := f.s.FindVersionBySlug(ctx, f.project.ID, "7"); err == nil {
		t.Error("the closed pull request's version still exists")
	}
	code, body = f.githubEvent("pull_request", `{"action": "closed", "number": 7, "pull_request": {"head": {"sha": "beef"}}}`)
	f.expect(code, body, 200, `{"version_deleted":false,"project":"demo","versions":[null]}`)
}

func TestGitLabAndBitbucket(t *testing.T) {
	f := newFixture(t, store.SQLite)
	ctx := context.Background()
	gl, err := f.s.CreateIntegration(ctx, f.project.ID, store.GitLabWebhook)
	if err != nil {
		t.Fatal(err)
	}
	gitlab := func(token, body string) (int, string) {
		code, b, _ := f.do("POST", "/api/v2/webhook/gitlab/demo/", map[string]string{"x-gitlab-token": token}, body)
		return code, b
	}
	zeros := strings.Repeat("0", 40)
	code, body := gitlab(gl.Secret, `{"object_kind": "push", "ref": "refs/heads/master", "before": "a", "after": "b"}`)
	f.expect(code, body, 200, `{"build_triggered":true,"project":"demo","versions":["latest","master"]}`)
	code, body = gitlab(gl.Secret, `{"object_kind": "tag_push", "ref": "refs/tags/v2", "before": "`+zeros+`", "after": "b"}`)
	f.expect(code, body, 200, `{"build_triggered":false,"project":"demo","versions":["latest"],"versions_synced":true}`)
	code, body = gitlab(gl.Secret, `{"object_kind": "push", "ref": "refs/heads/master"}`)
	f.expect(code, body, 400, `{"detail":"Invalid request"}`)
	code, body = gitlab(gl.Secret, `{"object_kind": "push", "before": "a", "after": "b"}`)
	f.expect(code, body, 400, `{"detail":"Parameter \"ref\" is required"}`)
	code, body = gitlab("wrong", `{"object_kind": "push"}`)
	f.expect(code, body, 400, `{"detail":"Payload not valid, invalid or missing token"}`)
	code, body = gitlab(gl.Secret, `{"object_kind": "note"}`)
	f.expect(code, body, 200, `{"detail":"Unhandled webhook event"}`)

	bb, err := f.s.CreateIntegration(ctx, f.project.ID, store.BitbucketWebhook)
	if err != nil {
		t.Fatal(err)
	}
	bitbucket := func(sig, body string) (int, string) {
		code, b, _ := f.do("POST", "/api/v2/webhook/bitbucket/demo/", map[string]string{"X-Event-Key": "repo:push", "X-Hub-Signature": sig}, body)
		return code, b
	}
	push := `{"push": {"changes": [{"old": {"name": "master"}, "new": {"name": "master"}}]}}`
	code, body = bitbucket(sign(bb.Secret, push), push)
	f.expect(code, body, 200, `{"build_triggered":true,"project":"demo","versions":["latest","master"]}`)
	created := `{"push": {"changes": [{"old": null, "new": {"name": "feature"}}]}}`
	code, body = bitbucket(sign(bb.Secret, created), created)
	f.expect(code, body, 200, `{"build_triggered":false,"project":"demo","versions":["latest"],"versions_synced":true}`)
	code, body = bitbucket(sign(bb.Secret, `{}`), `{}`)
	f.expect(code, body, 400, `{"detail":"Invalid request"}`)
	code, body = bitbucket(sign("wrong", push), push)
	f.expect(code, body, 400, `{"detail":"Payload not valid"}`)

	// The integration-id URL handles an integration by its type.
	code, body, _ = f.do("POST", "/api/v2/webhook/demo/"+itoa(gl.ID)+"/", map[string]string{"X-Gitlab-Token": gl.Secret},
		`{"ref": "refs/heads/master", "before": "a", "after": "b"}`)
	f.expect(code, body, 200, `{"build_triggered":true,"project":"demo","versions":["latest","master"]}`)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestGeneric(t *testing.T) {
	f := newFixture(t, store.SQLite)
	ctx := context.Background()
	api, err := f.s.CreateIntegration(ctx, f.project.ID, store.APIWebhook)
	if err != nil {
		t.Fatal(err)
	}
	_, bobKey := storetest.MustUser(t, f.s, "bob")
	generic := func(header map[string]string, body string) (int, string) {
		code, b, _ := f.do("POST", "/api/v2/webhook/generic/demo/", header, body)
		return code, b
	}
	code, body := generic(nil, `{"token": "`+api.Secret+`"}`)
	f.expect(code, body, 200, `{"build_triggered":true,"project":"demo","versions":["latest","master"]}`)
	code, body = generic(nil, `{"token": "`+api.Secret+`", "branches": ["dev", "v1.0"]}`)
	f.expect(code, body, 200, `{"build_triggered":true,"project":"demo","versions":["v1.0"]}`)
	code, body = generic(nil, `{"token": "`+api.Secret+`", "branches": 3}`)
	f.expect(code, body, 400, `{"detail":"Invalid request"}`)
	code, body = generic(map[string]string{"Authorization": "Token " + f.key}, `{"branches": "master"}`)
	f.expect(code, body, 200, `{"build_triggered":true,"project":"demo","versions":["latest","master"]}`)
	code, body, _ = f.do("POST", "/api/v2/webhook/generic/demo/", map[string]string{"Content-Type": "application/x-www-form-urlencoded"},
		"token="+api.Secret+"&branches=master")
	f.expect(code, body, 200, `{"build_triggered":true,"project":"demo","versions":["latest","master"]}`)

	code, body = generic(nil, `{}`)
	f.expect(code, body, 403, `{"detail":"Authentication credentials were not provided."}`)
	code, body = generic(nil, `{"token": "wrong"}`)
	f.expect(code, body, 404, `{"detail":"Project not found"}`)
	code, body = generic(map[string]string{"Authorization": "Token " + bobKey}, `{}`)
	f.expect(code, body, 404, `{"detail":"Project not found"}`)
	code, body, header := f.do("POST", "/api/v2/webhook/generic/demo/", map[string]string{"Authorization": "Token nope"}, `{}`)
	f.expect(code, body, 401, `{"detail":"Invalid token."}`)
	if header.Get("WWW-Authenticate") != "Token" {
		t.Errorf("401 without WWW-Authenticate: Token")
	}
	code, body, _ = f.do("POST", "/api/v2/webhook/generic/nope/", nil, `{"token": "x"}`)
	f.expect(code, body, 404, `{"detail":"Project not found"}`)
	code, body, _ = f.do("POST", "/api/v2/webhook/demo/"+itoa(api.ID)+"/", nil, `{"token": "`+api.Secret+`"}`)
	f.expect(code, body, 200, `{"build_triggered":true,"project":"demo","versions":["latest","master"]}`)

	// The secret never reaches the recorded exchanges, and recorded bodies
	// are bounded.
	big := `{"token": "wrong", "pad": "` + strings.Repeat("x", 200<<10) + `"}`
	generic(nil, big)
	xs, err := f.s.FindWebhookExchanges(ctx, api.ID)
	if err != nil || len(xs) == 0 {
		t.Fatalf("exchanges: %v %v", xs, err)
	}
	for _, x := range xs {
		if strings.Contains(x.RequestBody, api.Secret) || strings.Contains(x.RequestHeaders, f.key) {
			t.Errorf("exchange %d keeps a secret: %.200s", x.ID, x.RequestBody)
		}
		if len(x.RequestBody) > maxRecordedBody+64 {
			t.Errorf("exchange %d keeps %d bytes of body", x.ID, len(x.RequestBody))
		}
	}

	// On a disabled project the generic webhook authenticates first, by
	// either URL, and then answers 406.
	yes := true
	if _, err := f.s.UpdateProject(ctx, f.project.ID, store.ProjectUpdate{Skip: &yes}); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/api/v2/webhook/generic/demo/", "/api/v2/webhook/demo/" + itoa(api.ID) + "/"} {
		code, body, _ = f.do("POST", path, nil, `{}`)
		f.expect(code, body, 403, `{"detail":"Authentication credentials were not provided."}`)
		code, body, _ = f.do("POST", path, nil, `{"token": "`+api.Secret+`"}`)
		f.expect(code, body, 406, `{"detail":"This project is currently disabled"}`)
	}
}

func TestProcessingErrors(t *testing.T) {
	f := newFixture(t, store.SQLite)
	ctx := context.Background()
	post := func(path, body string) (int, string) {
		code, b, _ := f.do("POST", path, map[string]string{"X-Hub-Signature-256": sign(f.github.Secret, body)}, body)
		return code, b
	}
	code, body := post("/api/v2/webhook/github/nope/", `{}`)
	f.expect(code, body, 404, `{"detail":"Project not found"}`)
	code, body = post("/api/v2/webhook/gitlab/demo/", `{}`)
	f.expect(code, body, 404, `{"detail":"Not found."}`)
	code, body = post("/api/v2/webhook/demo/999/", `{}`)
	f.expect(code, body, 404, `{"detail":"Not found."}`)
	code, body = post("/api/v2/webhook/demo/x1/", `{}`)
	f.expect(code, body, 404, `{"detail":"Not found."}`)
	// Without the trailing slash: 308, which Go's client
	// follows with the same method, headers and body.
	req, err := http.NewRequest("POST", f.srv.URL+"/api/v2/webhook/github/demo", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	f.expect(resp.StatusCode, string(b), 308, `{"detail":"The URL must end with a slash: send POST to /api/v2/webhook/github/demo/."}`)
	if got := resp.Header.Get("Location"); got != "/api/v2/webhook/github/demo/" {
		t.Errorf("Location %q, want /api/v2/webhook/github/demo/", got)
	}
	wantCode, wantBody := post("/api/v2/webhook/github/demo/", `{}`)
	code, body = post("/api/v2/webhook/github/demo", `{}`)
	f.expect(code, body, wantCode, wantBody)
	code, body = post("/api/v2/webhook/nothing/", `{}`)
	f.expect(code, body, 404, `{"detail":"Not found."}`)

	code, body, header := f.do("GET", "/api/v2/webhook/github/demo/", nil, "")
	f.expect(code, body, 405, `{"detail":"Method \"GET\" not allowed."}`)
	if header.Get("Allow") != "POST, OPTIONS" {
		t.Errorf("Allow %q", header.Get("Allow"))
	}
	code, body, _ = f.do("OPTIONS", "/api/v2/webhook/github/demo/", nil, "")
	f.expect(code, body, 200, `{"description":"Incoming webhook of a documentation project.","name":"Webhook",`+
		`"parses":["application/json","application/x-www-form-urlencoded","multipart/form-data"],"renders":["application/json"]}`)

	second, err := f.s.CreateIntegration(ctx, f.project.ID, store.GitHubWebhook)
	if err != nil {
		t.Fatal(err)
	}
	code, body = post("/api/v2/webhook/github/demo/", `{}`)
	f.expect(code, body, 400, `{"detail":"Multiple integrations found for this project. Please use the webhook URL with an explicit integration ID."}`)
	code, body, _ = f.do("POST", "/api/v2/webhook/demo/"+itoa(second.ID)+"/", map[string]string{"X-GitHub-Event": "ping",
		"X-Hub-Signature-256": sign(second.Secret, `{}`)}, `{}`)
	f.expect(code, body, 200, `{"detail":"Webhook configured correctly"}`)

	if _, err := f.s.UpdateProject(ctx, f.project.ID, store.ProjectUpdate{Skip: ptr(true)}); err != nil {
		t.Fatal(err)
	}
	code, body = post("/api/v2/webhook/github/demo/", `{}`)
	f.expect(code, body, 406, `{"detail":"This project is currently disabled"}`)
}
