package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"docsd/internal/accounts"
	"docsd/internal/accounts/oidctest"
	"docsd/internal/storetest"
	"docsd/store"
)

// The people of the test provider: eve (a verified email, no docsd user
// yet), una (an unverified email), mal (a verified email at another
// domain), ana (verified, the email of docsd user ana), nomail (no email).
var ssoPeople = []oidctest.User{
	{ID: "sub-eve", Username: "eve", Password: "eve-password", Email: "eve@acme.example", EmailVerified: true},
	{ID: "sub-una", Username: "una", Password: "una-password", Email: "una@acme.example"},
	{ID: "sub-mal", Username: "mallory", Password: "mal-password", Email: "mallory@example.net", EmailVerified: true},
	{ID: "sub-ana", Username: "ana-at-idp", Password: "ana-password", Email: "Ana@acme.example", EmailVerified: true},
	{ID: "sub-nomail", Username: "nomail", Password: "nomail-password"},
}

// ssoClientSecret is docsd's client secret at the test provider (32
// bytes: a HS256 key must be as long as its hash).
const ssoClientSecret = "docsd-client-secret-of-32-bytes!"

// logBuffer is a log that tests read while the server writes it; with
// store set, String also renders the audit log's entries, one line each
// (`audit action=… auth_backend=… log_user_username=… reason=…`).
type logBuffer struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	store *store.Store
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	out := b.buf.String()
	b.mu.Unlock()
	if b.store == nil {
		return out
	}
	lines, err := b.auditLines(1000)
	if err != nil {
		return out + "\naudit log: " + err.Error()
	}
	for _, l := range lines {
		out += "\n" + l
	}
	return out
}

// newestAudit is the newest entry of the audit log as String renders it,
// "" when there is none.
func (b *logBuffer) newestAudit() string {
	lines, err := b.auditLines(1)
	if err != nil || len(lines) == 0 {
		return fmt.Sprint(err)
	}
	return lines[0]
}

// auditLines renders the newest limit entries of the audit log, newest
// first.
func (b *logBuffer) auditLines(limit int) ([]string, error) {
	entries, _, err := b.store.FindAuditEntries(context.Background(), store.AuditFilter{Visible: store.AuditVisibility{All: true}}, store.Page{Limit: limit})
	if err != nil {
		return nil, err
	}
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	var lines []string
	for _, e := range entries {
		var data struct{ Reason string }
		json.Unmarshal([]byte(str(e.Data)), &data)
		lines = append(lines, fmt.Sprintf("audit action=%s auth_backend=%s log_user_username=%s reason=%s", e.Action, str(e.AuthBackend), str(e.LogUserUsername), data.Reason))
	}
	return lines, nil
}

// ssoApp serves a real docsd over s at its own public URL, signing in
// with provider p (client "docsd"), with extra settings args; the log is
// returned for the audit lines.
func ssoApp(t *testing.T, s *store.Store, p *oidctest.Provider, args ...string) (*app, string, *logBuffer) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + l.Addr().String()
	p.AddClient("docsd", ssoClientSecret, base+accounts.OIDCCallbackPath)
	log := &logBuffer{store: s}
	a := wireTestApp(t, s, log, append([]string{"--public-url", base, "--oidc-issuer", p.Issuer,
		"--oidc-client-id", "docsd", "--oidc-client-secret", ssoClientSecret}, args...)...)
	srv := httptest.NewUnstartedServer(a.handler())
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	return a, base, log
}

// ssoStart asks docsd to start a single sign-on and returns the
// provider's authorization URL.
func ssoStart(t *testing.T, c *browserClient, next string) string {
	t.Helper()
	resp, body := c.get(accounts.OIDCLoginPath + "?next=" + url.QueryEscape(next))
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("start: %d\n%s", resp.StatusCode, body)
	}
	return resp.Header.Get("Location")
}

// ssoCallback signs in at the provider as username and returns docsd's
// callback URL the provider sent the browser to.
func ssoCallback(t *testing.T, c *browserClient, p *oidctest.Provider, authURL, username, password string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cb, err := p.SignInURL(ctx, c.http, authURL, username, password)
	if err != nil {
		t.Fatalf("sign in at the provider: %v", err)
	}
	if !strings.HasPrefix(cb, c.base+accounts.OIDCCallbackPath) {
		t.Fatalf("provider sent the browser to %s", cb)
	}
	return cb
}

// getURL GETs an absolute URL with c's cookies.
func (c *browserClient) getURL(u string) (*http.Response, string) {
	c.t.Helper()
	req, _ := http.NewRequest("GET", u, nil)
	return c.do(req)
}

// ssoSignIn runs a whole single sign-on of username, starting at next, and
// returns docsd's answer to the callback.
func ssoSignIn(t *testing.T, c *browserClient, p *oidctest.Provider, next, username, password string) (*http.Response, string) {
	t.Helper()
	return c.getURL(ssoCallback(t, c, p, ssoStart(t, c, next), username, password))
}

// wantSSOFailure checks an error page of single sign-on: status, title, message in a
// role="alert" paragraph, the link back; and its audit line.
func wantSSOFailure(t *testing.T, resp *http.Response, body string, log *logBuffer, status int, message, reason string) {
	t.Helper()
	if resp.StatusCode != status {
		t.Errorf("status = %d, want %d\n%s", resp.StatusCode, status, body)
	}
	for _, want := range []string{"<title>Single sign-on failed · docsd</title>", `<p class="error" role="alert">` + htmlText(message) + `</p>`, ">Back to sign in</a>"} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %s\n%s", want, body)
		}
	}
	// The refusal is the newest entry: an OIDC sign-in failure.
	if got := log.newestAudit(); !strings.HasPrefix(got, "audit action=authentication-failure auth_backend=oidc ") || !strings.HasSuffix(got, " reason="+reason) {
		t.Errorf("newest audit entry %q, want an OIDC authentication-failure with reason=%s:\n%s", got, reason, log.String())
	}
}

// htmlText escapes s as html/template writes text.
func htmlText(s string) string {
	return strings.NewReplacer("&", "&amp;", "'", "&#39;", "<", "&lt;", ">", "&gt;", `"`, "&#34;").Replace(s)
}

// TestSingleSignOn runs the examples of single sign-on through a real
// server and a real OpenID Provider, on both databases: the redirect to
// the provider, a user created on the first sign-in and signed in,
// linking by verified email, a replayed callback, a callback in another
// browser, and sign-out.
func TestSingleSignOn(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		p := oidctest.Start(t, ssoPeople...)
		_, base, log := ssoApp(t, s, p, "--oidc-end-session")
		if _, err := s.CreateUser(t.Context(), "ana", "ana@acme.example", false); err != nil {
			t.Fatal(err)
		}

		c := newBrowserClient(t, base)
		_, page := c.get("/accounts/login/")
		if !strings.Contains(page, `href="/accounts/oidc/login/?next=%2fdashboard%2f">Sign in with single sign-on</a>`) {
			t.Errorf("sign-in page lacks the SSO button:\n%s", page)
		}

		// 1. The redirect to the provider.
		resp, _ := c.get(accounts.OIDCLoginPath + "?next=/projects/handbook/")
		auth, err := url.Parse(resp.Header.Get("Location"))
		if err != nil || !strings.HasPrefix(auth.String(), p.Issuer+"/auth?") {
			t.Fatalf("start: %d, Location %q", resp.StatusCode, resp.Header.Get("Location"))
		}
		q := auth.Query()
		for k, want := range map[string]string{"client_id": "docsd", "code_challenge_method": "S256", "response_type": "code",
			"redirect_uri": base + "/accounts/oidc/login/callback/", "scope": "openid email profile"} {
			if q.Get(k) != want {
				t.Errorf("%s = %q, want %q", k, q.Get(k), want)
			}
		}
		for _, k := range []string{"state", "nonce"} {
			if len(q.Get(k)) != 43 {
				t.Errorf("%s = %q, want 32 random bytes in base64url", k, q.Get(k))
			}
		}
		if len(q.Get("code_challenge")) != 43 {
			t.Errorf("code_challenge = %q", q.Get("code_challenge"))
		}
		cookie := resp.Header.Get("Set-Cookie")
		for _, want := range []string{"docsd_oidc=", "Path=/accounts/oidc/", "Max-Age=600", "HttpOnly", "SameSite=Lax"} {
			if !strings.Contains(cookie, want) {
				t.Errorf("Set-Cookie %q lacks %s", cookie, want)
			}
		}

		// 2. eve has no docsd user: created, signed in, sent to next.
		cb := ssoCallback(t, c, p, auth.String(), "eve", "eve-password")
		resp, body := c.getURL(cb)
		if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/projects/handbook/" {
			t.Fatalf("callback: %d %q\n%s", resp.StatusCode, resp.Header.Get("Location"), body)
		}
		eve, err := s.FindUserByUsername(t.Context(), "eve")
		if err != nil || eve.Email != "eve@acme.example" || !eve.EmailVerified {
			t.Fatalf("eve = %+v, %v, want created with a verified email", eve, err)
		}
		_, page = c.get("/dashboard/")
		if !strings.Contains(page, `<span class="who">eve</span>`) {
			t.Errorf("not signed in as eve after the callback:\n%s", page)
		}
		if code, out := c.graphql(`{ viewer { username emailVerified } }`, csrfOf(t, page)); code != http.StatusOK ||
			out != `{"data":{"viewer":{"username":"eve","emailVerified":true}}}` {
			t.Errorf("viewer: %d %s", code, out)
		}
		if !strings.Contains(log.String(), "action=authentication auth_backend=oidc log_user_username=eve") {
			t.Errorf("no audit line of eve's sign-in:\n%s", log)
		}

		// The same callback again (replayed), from this browser and another.
		resp, body = c.getURL(cb)
		wantSSOFailure(t, resp, body, log, http.StatusBadRequest, "This sign-in did not start in this browser, or took too long. Start again.", "state-mismatch")

		// 3. A callback in another browser.
		c2 := newBrowserClient(t, base)
		cb = ssoCallback(t, c2, p, ssoStart(t, c2, "/dashboard/"), "eve", "eve-password")
		other := newBrowserClient(t, base)
		resp, body = other.getURL(cb)
		wantSSOFailure(t, resp, body, log, http.StatusBadRequest, "This sign-in did not start in this browser, or took too long. Start again.", "state-mismatch")
		// …which leaves the flow to its own browser.
		if resp, body := c2.getURL(cb); resp.StatusCode != http.StatusFound {
			t.Errorf("the flow's own browser after another's try: %d\n%s", resp.StatusCode, body)
		}

		// A second sign-in of eve finds the linked identity: no new user.
		c3 := newBrowserClient(t, base)
		if resp, body := ssoSignIn(t, c3, p, "/dashboard/", "eve", "eve-password"); resp.StatusCode != http.StatusFound {
			t.Errorf("second sign-in: %d\n%s", resp.StatusCode, body)
		}
		if u, err := s.FindUserByUsername(t.Context(), "eve-2"); err == nil {
			t.Errorf("second sign-in created %+v", u)
		}

		// ana exists with that (verified) email: linked, not created.
		c4 := newBrowserClient(t, base)
		if resp, body := ssoSignIn(t, c4, p, "/dashboard/", "ana-at-idp", "ana-password"); resp.StatusCode != http.StatusFound {
			t.Fatalf("ana's sign-in: %d\n%s", resp.StatusCode, body)
		}
		if _, page := c4.get("/dashboard/"); !strings.Contains(page, `<span class="who">ana</span>`) {
			t.Errorf("not signed in as ana:\n%s", page)
		}
		if u, err := s.FindUserByIdentity(t.Context(), p.Issuer, "sub-ana"); err != nil || u.Username != "ana" {
			t.Errorf("ana's identity = %+v, %v", u, err)
		}

		// Sign-out of an OIDC session with --oidc-end-session: to the
		// provider's end_session_endpoint.
		_, page = c4.get("/dashboard/")
		resp, _ = c4.post("/accounts/logout/", url.Values{"csrfmiddlewaretoken": {csrfOf(t, page)}})
		end, _ := url.Parse(resp.Header.Get("Location"))
		if resp.StatusCode != http.StatusFound || !strings.HasPrefix(end.String(), p.Issuer+"/end_session?") ||
			end.Query().Get("id_token_hint") == "" || end.Query().Get("client_id") != "docsd" ||
			end.Query().Get("post_logout_redirect_uri") != base+"/accounts/login/" {
			t.Errorf("sign-out: %d %s", resp.StatusCode, end)
		}
		if _, page := c4.get("/dashboard/"); strings.Contains(page, `class="who"`) {
			t.Errorf("still signed in after sign-out")
		}
		if !strings.Contains(log.String(), "action=log-out auth_backend=oidc log_user_username=ana") {
			t.Errorf("no audit line of ana's sign-out:\n%s", log)
		}
	})
}

// TestSingleSignOnRefusals checks every error page of single sign-on, with
// its status, message and audit reason, against a real provider, on both
// databases.
func TestSingleSignOnRefusals(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, testSingleSignOnRefusals)
}

func testSingleSignOnRefusals(t *testing.T, d store.Dialect) {
	s := storetest.Open(t, d)
	p := oidctest.Start(t, ssoPeople...)
	_, base, log := ssoApp(t, s, p, "--oidc-allowed-domains", "acme.example")
	ctx := t.Context()
	fresh := func() *browserClient { return newBrowserClient(t, base) }

	t.Run("email-unverified", func(t *testing.T) {
		resp, body := ssoSignIn(t, fresh(), p, "/dashboard/", "una", "una-password")
		wantSSOFailure(t, resp, body, log, http.StatusForbidden, "The identity provider has not verified the email address una@acme.example.", "email-unverified")
	})
	t.Run("domain-not-allowed", func(t *testing.T) {
		resp, body := ssoSignIn(t, fresh(), p, "/dashboard/", "mallory", "mal-password")
		wantSSOFailure(t, resp, body, log, http.StatusForbidden, "Email addresses at example.net cannot sign in here.", "domain-not-allowed")
	})
	t.Run("no-email", func(t *testing.T) {
		resp, body := ssoSignIn(t, fresh(), p, "/dashboard/", "nomail", "nomail-password")
		wantSSOFailure(t, resp, body, log, http.StatusForbidden, "The identity provider did not share an email address.", "no-email")
	})
	t.Run("idp-error", func(t *testing.T) {
		c := fresh()
		auth, _ := url.Parse(ssoStart(t, c, "/dashboard/"))
		resp, body := c.get(accounts.OIDCCallbackPath + "?error=access_denied&error_description=" +
			url.QueryEscape("The user is not assigned to docsd") + "&state=" + auth.Query().Get("state"))
		wantSSOFailure(t, resp, body, log, http.StatusForbidden, "The identity provider refused the sign-in: The user is not assigned to docsd.", "idp-error")
	})
	t.Run("no-code", func(t *testing.T) {
		c := fresh()
		auth, _ := url.Parse(ssoStart(t, c, "/dashboard/"))
		resp, body := c.get(accounts.OIDCCallbackPath + "?state=" + auth.Query().Get("state"))
		wantSSOFailure(t, resp, body, log, http.StatusBadRequest, "This sign-in did not start in this browser, or took too long. Start again.", "state-mismatch")
	})
	t.Run("ambiguous-email", func(t *testing.T) {
		if _, err := s.CreateUser(ctx, "eve1", "eve@acme.example", false); err != nil {
			t.Fatal(err)
		}
		if _, err := s.CreateUser(ctx, "eve2", "EVE@acme.example", false); err != nil {
			t.Fatal(err)
		}
		resp, body := ssoSignIn(t, fresh(), p, "/dashboard/", "eve", "eve-password")
		wantSSOFailure(t, resp, body, log, http.StatusForbidden, "The email address eve@acme.example cannot be matched to one account. Ask an administrator to link your account.", "ambiguous-email")
	})
	t.Run("inactive-user", func(t *testing.T) {
		if _, err := s.CreateUser(ctx, "ana", "ana@acme.example", false); err != nil {
			t.Fatal(err)
		}
		if err := s.SetUserActive(ctx, "ana", false); err != nil {
			t.Fatal(err)
		}
		resp, body := ssoSignIn(t, fresh(), p, "/dashboard/", "ana-at-idp", "ana-password")
		wantSSOFailure(t, resp, body, log, http.StatusForbidden, "This account is inactive.", "inactive-user")
	})

	// ID tokens the provider would never make, from its token endpoint.
	for _, tc := range []struct {
		name    string
		rewrite func(claims map[string]any) oidctest.Signing
	}{
		{"signed with none", func(map[string]any) oidctest.Signing { return oidctest.SignNone }},
		{"signed with HS256", func(map[string]any) oidctest.Signing { return oidctest.SignHS256 }},
		{"wrong aud", func(c map[string]any) oidctest.Signing {
			c["aud"] = []string{"another-client"}
			return oidctest.SignRS256
		}},
		{"wrong azp", func(c map[string]any) oidctest.Signing { c["azp"] = "another-client"; return oidctest.SignRS256 }},
		{"wrong iss", func(c map[string]any) oidctest.Signing { c["iss"] = "https://evil.example"; return oidctest.SignRS256 }},
		{"expired", func(c map[string]any) oidctest.Signing {
			c["exp"] = time.Now().Add(-2 * time.Minute).Unix()
			return oidctest.SignRS256
		}},
		{"issued in the future", func(c map[string]any) oidctest.Signing {
			c["iat"] = time.Now().Add(10 * time.Minute).Unix()
			return oidctest.SignRS256
		}},
		{"another nonce", func(c map[string]any) oidctest.Signing { c["nonce"] = "replayed"; return oidctest.SignRS256 }},
	} {
		t.Run("invalid-id-token/"+tc.name, func(t *testing.T) {
			p.RewriteIDTokens(tc.rewrite)
			defer p.RewriteIDTokens(nil)
			resp, body := ssoSignIn(t, fresh(), p, "/dashboard/", "eve", "eve-password")
			wantSSOFailure(t, resp, body, log, http.StatusBadGateway, "The identity provider's answer could not be verified.", "invalid-id-token")
		})
	}
	// The same rewriting, changing nothing, passes verification (eve's
	// email is then refused as ambiguous, above): the refusals come from
	// the changed claims, not from the test key.
	t.Run("test key accepted", func(t *testing.T) {
		p.RewriteIDTokens(func(map[string]any) oidctest.Signing { return oidctest.SignRS256 })
		defer p.RewriteIDTokens(nil)
		resp, body := ssoSignIn(t, fresh(), p, "/dashboard/", "eve", "eve-password")
		wantSSOFailure(t, resp, body, log, http.StatusForbidden, "The email address eve@acme.example cannot be matched to one account. Ask an administrator to link your account.", "ambiguous-email")
	})

	t.Run("idp-unreachable", func(t *testing.T) {
		c := fresh()
		authURL := ssoStart(t, c, "/dashboard/")
		cb := ssoCallback(t, c, p, authURL, "eve", "eve-password")
		p.Close()
		resp, body := c.getURL(cb)
		wantSSOFailure(t, resp, body, log, http.StatusBadGateway, "The identity provider could not be reached. Try again in a few minutes.", "idp-unreachable")
	})
}

// TestSingleSignOnLateFailures checks, on both databases, the refusals
// that come after the provider's login page: its key set or userinfo
// endpoint failing (502), a flow that expired before the callback (400),
// and an email that one user holds unverified (403, even with no other
// user); each is audited as an OIDC failure naming the email when one is
// known.
func TestSingleSignOnLateFailures(t *testing.T) {
	t.Parallel()
	storetest.Dialects(t, testSingleSignOnLateFailures)
}

func testSingleSignOnLateFailures(t *testing.T, d store.Dialect) {
	ctx := t.Context()
	dbURL := storetest.DatabaseURL(t, d)
	s, err := store.Open(ctx, dbURL)
	must(t, err)
	t.Cleanup(func() { s.Close() })
	clock := storetest.SetClock(s, time.Now())
	p := oidctest.Start(t, ssoPeople...)
	_, base, log := ssoApp(t, s, p)
	fresh := func() *browserClient { return newBrowserClient(t, base) }
	const unreachable = "The identity provider could not be reached. Try again in a few minutes."

	// The key set is fetched when the first ID token is checked: failing
	// then, the sign-in is refused; once it answers, eve signs in.
	p.Fail(oidctest.KeysPath, true)
	resp, body := ssoSignIn(t, fresh(), p, "/dashboard/", "eve", "eve-password")
	wantSSOFailure(t, resp, body, log, http.StatusBadGateway, unreachable, "idp-unreachable")
	if got, want := log.newestAudit(), "audit action=authentication-failure auth_backend=oidc log_user_username= reason=idp-unreachable"; got != want {
		t.Errorf("audit after the key set failed: %s, want %s", got, want)
	}
	p.Fail(oidctest.KeysPath, false)
	if resp, body := ssoSignIn(t, fresh(), p, "/dashboard/", "eve", "eve-password"); resp.StatusCode != http.StatusFound {
		t.Fatalf("sign-in once the key set answers: %d\n%s", resp.StatusCode, body)
	}

	// An ID token without email sends docsd to the userinfo endpoint.
	p.Fail(oidctest.UserinfoPath, true)
	resp, body = ssoSignIn(t, fresh(), p, "/dashboard/", "nomail", "nomail-password")
	wantSSOFailure(t, resp, body, log, http.StatusBadGateway, unreachable, "idp-unreachable")
	if got, want := log.newestAudit(), "audit action=authentication-failure auth_backend=oidc log_user_username= reason=idp-unreachable"; got != want {
		t.Errorf("audit after userinfo failed: %s, want %s", got, want)
	}
	p.Fail(oidctest.UserinfoPath, false)
	resp, body = ssoSignIn(t, fresh(), p, "/dashboard/", "nomail", "nomail-password")
	wantSSOFailure(t, resp, body, log, http.StatusForbidden, "The identity provider did not share an email address.", "no-email")

	// The flow outlives its lifetime between the provider and the callback.
	c := fresh()
	cb := ssoCallback(t, c, p, ssoStart(t, c, "/dashboard/"), "ana-at-idp", "ana-password")
	clock.Advance(store.OIDCFlowLifetime + time.Second)
	resp, body = c.getURL(cb)
	wantSSOFailure(t, resp, body, log, http.StatusBadRequest, "This sign-in did not start in this browser, or took too long. Start again.", "state-mismatch")
	if got, want := log.newestAudit(), "audit action=authentication-failure auth_backend=oidc log_user_username= reason=state-mismatch"; got != want {
		t.Errorf("audit of the expired flow: %s, want %s", got, want)
	}

	// One user holds ana's email, unverified: no match, and no new user.
	if _, err := s.CreateUser(ctx, "ana", "ana@acme.example", false); err != nil {
		t.Fatal(err)
	}
	if _, err := storetest.SQL(t, d, dbURL).ExecContext(ctx, `UPDATE users SET email_verified = FALSE WHERE username = 'ana'`); err != nil {
		t.Fatal(err)
	}
	resp, body = ssoSignIn(t, fresh(), p, "/dashboard/", "ana-at-idp", "ana-password")
	wantSSOFailure(t, resp, body, log, http.StatusForbidden,
		"The email address Ana@acme.example cannot be matched to one account. Ask an administrator to link your account.", "ambiguous-email")
	if got, want := log.newestAudit(), "audit action=authentication-failure auth_backend=oidc log_user_username=Ana@acme.example reason=ambiguous-email"; got != want {
		t.Errorf("audit of the unverified email: %s, want %s", got, want)
	}
	if u, err := s.FindUserByUsername(ctx, "ana-at-idp"); err == nil {
		t.Errorf("the refused sign-in created %+v", u)
	}
	// Verified by an administrator, the same email links ana.
	must(t, s.SetUserEmail(ctx, "ana", "ana@acme.example"))
	c = fresh()
	if resp, body := ssoSignIn(t, c, p, "/dashboard/", "ana-at-idp", "ana-password"); resp.StatusCode != http.StatusFound {
		t.Fatalf("sign-in once ana's email is verified: %d\n%s", resp.StatusCode, body)
	}
	if _, page := c.get("/dashboard/"); !strings.Contains(page, `<span class="who">ana</span>`) {
		t.Errorf("not signed in as ana:\n%s", page)
	}
}

// TestSingleSignOnProviderDown checks that docsd starts while the
// provider is down, and answers the sign-in with the unreachable page;
// and that a discovery document naming another issuer counts as
// unreachable.
func TestSingleSignOnProviderDown(t *testing.T) {
	t.Parallel()
	s := storetest.Open(t, store.SQLite)
	p := oidctest.Start(t)
	p.Close()
	_, base, log := ssoApp(t, s, p)
	resp, body := newBrowserClient(t, base).get(accounts.OIDCLoginPath)
	wantSSOFailure(t, resp, body, log, http.StatusBadGateway, "The identity provider could not be reached. Try again in a few minutes.", "idp-unreachable")

	s2 := storetest.Open(t, store.SQLite)
	wrong := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"issuer": "https://login.other.example", "authorization_endpoint": "https://login.other.example/auth", "token_endpoint": "https://login.other.example/token", "jwks_uri": "https://login.other.example/keys"}`)
	}))
	defer wrong.Close()
	q := oidctest.Start(t)
	_, base2, log2 := ssoApp(t, s2, q, "--oidc-issuer", wrong.URL)
	resp, body = newBrowserClient(t, base2).get(accounts.OIDCLoginPath)
	wantSSOFailure(t, resp, body, log2, http.StatusBadGateway, "The identity provider could not be reached. Try again in a few minutes.", "idp-unreachable")
}

// TestOIDCSettings checks that `docsd serve` refuses inconsistent single
// sign-on settings, naming the setting, and reads the client secret from
// a file.
func TestOIDCSettings(t *testing.T) {
	t.Parallel()
	secretFile := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secretFile, []byte("from-a-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	issuer := []string{"--oidc-issuer", "https://login.acme.example/realms/staff", "--oidc-client-id", "docsd", "--oidc-client-secret", "s3cret"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--oidc-issuer", "https://login.acme.example"}, "docsd: --oidc-issuer: needs --oidc-client-id\n"},
		{[]string{"--oidc-issuer", "https://login.acme.example", "--oidc-client-id", "docsd"}, "docsd: --oidc-issuer: needs --oidc-client-secret\n"},
		{[]string{"--oidc-client-id", "docsd"}, "docsd: --oidc-client-id: needs --oidc-issuer\n"},
		{[]string{"--oidc-end-session"}, "docsd: --oidc-end-session: needs --oidc-issuer\n"},
		{[]string{"--password-sign-in", "superusers"}, "docsd: --password-sign-in: superusers needs --oidc-issuer: without single sign-on nobody else could sign in\n"},
		{[]string{"--password-sign-in", "off"}, "docsd: --password-sign-in: off needs --oidc-issuer: without single sign-on nobody else could sign in\n"},
		{[]string{"--password-sign-in", "sometimes"}, `docsd: --password-sign-in: "sometimes" must be one of on, superusers, off` + "\n"},
		{[]string{"--oidc-issuer", "http://login.acme.example", "--oidc-client-id", "docsd", "--oidc-client-secret", "s"},
			`docsd: --oidc-issuer: "http://login.acme.example" must be an https:// URL (http:// only on localhost)` + "\n"},
		{[]string{"--oidc-issuer", "login.acme.example", "--oidc-client-id", "docsd", "--oidc-client-secret", "s"},
			`docsd: --oidc-issuer: "login.acme.example" is not an issuer URL (https://host[/path])` + "\n"},
		{append(slices.Clip(issuer), "--oidc-allowed-domains", "acme.example, *.acme.example"),
			`docsd: --oidc-allowed-domains: "*.acme.example" is not a domain name (acme.example; no @, no wildcard)` + "\n"},
		{append(slices.Clip(issuer), "--oidc-scopes", `openid "email"`), `docsd: --oidc-scopes: "\"email\"" is not a scope (printable ASCII, no " or \)` + "\n"},
		{append(slices.Clip(issuer), "--oidc-name", " "), "docsd: --oidc-name: must be 1 to 64 characters\n"},
	} {
		args := append([]string{"serve", "--data-dir", t.TempDir()}, tc.args...)
		if code, _, stderr := docsd(t, args...); code != 2 || stderr != tc.want {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}

	s := Settings{Addr: "127.0.0.1:8000", DataDir: t.TempDir(), ThrottleUserRate: "60/minute", MaxPageSize: 100, BuildTimeLimit: 600,
		oidcSettings: oidcSettings{OIDCIssuer: "http://127.0.0.1:9999", OIDCClientID: "docsd", OIDCClientSecret: secretFile,
			OIDCName: "Acme", OIDCScopes: "email openid groups", OIDCAllowedDomains: "Acme.Example,docs.acme.example", PasswordSignIn: "superusers"}}
	if err := s.resolve(); err != nil {
		t.Fatal(err)
	}
	if s.oidcClientSecret != "from-a-file" || !slices.Equal(s.oidcScopes, []string{"email", "openid", "groups"}) ||
		!slices.Equal(s.oidcAllowedDomains, []string{"acme.example", "docs.acme.example"}) {
		t.Errorf("resolved: secret %q, scopes %q, domains %q", s.oidcClientSecret, s.oidcScopes, s.oidcAllowedDomains)
	}
}

// TestPasswordSignInModes checks --password-sign-in: superusers keeps
// passwords for superusers only, off refuses every password; both say
// which single sign-on to use, and are audited.
func TestPasswordSignInModes(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"superusers", "off"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			s := storetest.Open(t, store.SQLite)
			p := oidctest.Start(t)
			_, base, log := ssoApp(t, s, p, "--password-sign-in", mode, "--oidc-name", "Acme Login")
			acc := accounts.New(s)
			storetest.MustUser(t, s, "bo")
			storetest.MustSuperuser(t, s, "root")
			for _, name := range []string{"bo", "root"} {
				if err := acc.SetPassword(t.Context(), name, name+"-password"); err != nil {
					t.Fatal(err)
				}
			}
			try := func(username, password string) (*http.Response, string) {
				c := newBrowserClient(t, base)
				c.get("/accounts/login/")
				// The sign-in form's CSRF token is its cookie's value (the
				// form itself is gone with "off").
				csrf := ""
				u, _ := url.Parse(base + "/accounts/login/")
				for _, k := range c.http.Jar.Cookies(u) {
					if k.Name == "docsd_login_csrf" {
						csrf = k.Value
					}
				}
				return c.post("/accounts/login/", url.Values{"csrfmiddlewaretoken": {csrf},
					"login": {username}, "password": {password}, "next": {"/dashboard/"}})
			}
			refused := "Password sign-in is reserved for administrators on this server: sign in with Acme Login."
			if mode == "off" {
				refused = "Password sign-in is turned off on this server: sign in with Acme Login."
			}
			resp, body := try("bo", "bo-password")
			if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, htmlText(refused)) {
				t.Errorf("bo's correct password: %d\n%s", resp.StatusCode, body)
			}
			if !strings.Contains(log.String(), "action=authentication-failure auth_backend=password log_user_username=bo") ||
				!strings.Contains(log.String(), "reason=password-sign-in-off") {
				t.Errorf("no audit line of the refusal:\n%s", log)
			}
			resp, body = try("bo", "wrong-password")
			if want := map[string]int{"superusers": http.StatusBadRequest, "off": http.StatusForbidden}[mode]; resp.StatusCode != want {
				t.Errorf("bo's wrong password: %d, want %d\n%s", resp.StatusCode, want, body)
			}
			resp, body = try("root", "root-password")
			if want := map[string]int{"superusers": http.StatusSeeOther, "off": http.StatusForbidden}[mode]; resp.StatusCode != want {
				t.Errorf("root's correct password: %d, want %d\n%s", resp.StatusCode, want, body)
			}
			_, page := newBrowserClient(t, base).get("/accounts/login/")
			if hasForm := strings.Contains(page, `id="id_password"`); hasForm != (mode != "off") {
				t.Errorf("password form shown: %v with %s\n%s", hasForm, mode, page)
			}
		})
	}
}

// TestSingleSignOnOff checks that without --oidc-issuer the single
// sign-on pages are not found and the sign-in page has no button.
func TestSingleSignOnOff(t *testing.T) {
	t.Parallel()
	_, base := dashboardApp(t, storetest.Open(t, store.SQLite))
	c := newBrowserClient(t, base)
	for _, path := range []string{accounts.OIDCLoginPath, accounts.OIDCCallbackPath + "?code=x&state=y"} {
		if resp, _ := c.get(path); resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", path, resp.StatusCode)
		}
	}
	if _, page := c.get("/accounts/login/"); strings.Contains(page, "/accounts/oidc/") {
		t.Errorf("sign-in page offers single sign-on without a provider:\n%s", page)
	}
}

// TestSingleSignOnClaims checks the claims read from the ID token itself:
// email_verified as the string "true", an absent email_verified with and
// without --oidc-assume-email-verified, and --oidc-create-users=false;
// and the username of a created user when preferred_username is not a
// valid one.
func TestSingleSignOnClaims(t *testing.T) {
	t.Parallel()
	withEmail := func(email string, verified any) func(map[string]any) oidctest.Signing {
		return func(c map[string]any) oidctest.Signing {
			c["email"], c["preferred_username"] = email, "not a valid username!"
			if verified == nil {
				delete(c, "email_verified")
			} else {
				c["email_verified"] = verified
			}
			return oidctest.SignRS256
		}
	}
	s := storetest.Open(t, store.SQLite)
	p := oidctest.Start(t, ssoPeople...)
	_, base, log := ssoApp(t, s, p)

	p.RewriteIDTokens(withEmail("Zoe.Quinn@acme.example", "true"))
	if resp, body := ssoSignIn(t, newBrowserClient(t, base), p, "/dashboard/", "eve", "eve-password"); resp.StatusCode != http.StatusFound {
		t.Fatalf(`email_verified "true": %d\n%s`, resp.StatusCode, body)
	}
	if u, err := s.FindUserByIdentity(t.Context(), p.Issuer, "sub-eve"); err != nil || u.Username != "zoequinn" || u.Email != "Zoe.Quinn@acme.example" {
		t.Errorf("created = %+v, %v, want zoequinn from the email's local part", u, err)
	}

	p.RewriteIDTokens(withEmail("una@acme.example", nil))
	resp, body := ssoSignIn(t, newBrowserClient(t, base), p, "/dashboard/", "una", "una-password")
	wantSSOFailure(t, resp, body, log, http.StatusForbidden, "The identity provider has not verified the email address una@acme.example.", "email-unverified")

	s2 := storetest.Open(t, store.SQLite)
	_, base2, _ := ssoApp(t, s2, p, "--oidc-assume-email-verified")
	if resp, body := ssoSignIn(t, newBrowserClient(t, base2), p, "/dashboard/", "una", "una-password"); resp.StatusCode != http.StatusFound {
		t.Errorf("absent email_verified, assumed: %d\n%s", resp.StatusCode, body)
	}
	p.RewriteIDTokens(nil)

	s3 := storetest.Open(t, store.SQLite)
	_, base3, log3 := ssoApp(t, s3, p, "--oidc-create-users=false")
	resp, body = ssoSignIn(t, newBrowserClient(t, base3), p, "/dashboard/", "eve", "eve-password")
	wantSSOFailure(t, resp, body, log3, http.StatusForbidden, "No account uses eve@acme.example. Ask an administrator to create one.", "no-account")
}

// TestUserSetEmail checks `docsd user set-email`: the email is stored as
// verified; a malformed address or an unknown user is refused.
func TestUserSetEmail(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	migrated(t, dataDir)
	if code, _, errOut := docsd(t, "user", "create", "bo", "--data-dir", dataDir); code != 0 {
		t.Fatalf("user create: %d %s", code, errOut)
	}
	if code, _, errOut := docsd(t, "user", "set-email", "bo", "bo@acme.example", "--data-dir", dataDir); code != 0 {
		t.Fatalf("set-email: %d %s", code, errOut)
	}
	for _, tc := range []struct{ args, want string }{
		{"bo not-an-email", "docsd: email: Enter a valid email address.\n"},
		{"bo Bo <bo@acme.example>", "docsd: email: Enter a valid email address.\n"},
		{"nobody x@acme.example", "docsd: user \"nobody\" does not exist\n"},
	} {
		name, email, _ := strings.Cut(tc.args, " ")
		if code, _, errOut := docsd(t, "user", "set-email", name, email, "--data-dir", dataDir); code != 1 || errOut != tc.want {
			t.Errorf("set-email %s: %d %q, want 1 %q", tc.args, code, errOut, tc.want)
		}
	}
	s, err := store.Open(t.Context(), filepath.Join(dataDir, "docsd.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if u, err := s.FindUserByUsername(t.Context(), "bo"); err != nil || u.Email != "bo@acme.example" || !u.EmailVerified {
		t.Errorf("bo = %+v, %v, want bo@acme.example, verified", u, err)
	}
}

// TestSingleSignOnStartHTTPS checks the start of a sign-in on a server
// whose public URL is https: the redirect URI is made from it, and the
// binding cookie is Secure.
func TestSingleSignOnStartHTTPS(t *testing.T) {
	t.Parallel()
	p := oidctest.Start(t)
	a := wireTestApp(t, storetest.Open(t, store.SQLite), io.Discard, "--public-url", "https://docs.example.com",
		"--oidc-issuer", p.Issuer, "--oidc-client-id", "docsd", "--oidc-client-secret", ssoClientSecret)
	srv := httptest.NewServer(a.handler())
	defer srv.Close()
	c := newBrowserClient(t, srv.URL)
	resp, body := c.get(accounts.OIDCLoginPath + "?next=/projects/handbook/")
	loc, _ := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusFound || loc.Query().Get("redirect_uri") != "https://docs.example.com/accounts/oidc/login/callback/" {
		t.Fatalf("start: %d %s\n%s", resp.StatusCode, loc, body)
	}
	cookie := resp.Header.Get("Set-Cookie")
	for _, want := range []string{"Path=/accounts/oidc/", "Max-Age=600", "HttpOnly", "Secure", "SameSite=Lax"} {
		if !strings.Contains(cookie, want) {
			t.Errorf("Set-Cookie %q lacks %s", cookie, want)
		}
	}
}
