// Package oidctest runs a real OpenID Provider for tests: zitadel's
// certified OIDC library with its example provider (login page,
// authorization code flow with PKCE, token, userinfo, keys, end session),
// in the test process, with the users a test gives. A test may also have
// the token endpoint hand out ID tokens the provider would never make
// (signed with none or HS256, another audience, expired), crafted with
// go-jose and signed with a key the provider's key set then lists.
package oidctest

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/go-jose/go-jose/v4"
	"github.com/zitadel/oidc/v3/example/server/exampleop"
	"github.com/zitadel/oidc/v3/example/server/storage"
	"golang.org/x/text/language"
)

// User is a person the provider knows; Password is what its login page
// takes.
type User struct {
	ID            string // the subject (sub)
	Username      string // the login page's username and preferred_username
	Password      string
	Email         string
	EmailVerified bool
}

// Provider is a running OpenID Provider.
type Provider struct {
	// Issuer is the provider's issuer URL (http://127.0.0.1:port).
	Issuer string
	server *httptest.Server
	users  *users

	clients map[string]*storage.Client // read by the provider's storage

	mu      sync.Mutex
	rewrite func(claims map[string]any) Signing // mu guards rewrite
	failing map[string]bool                     // mu guards failing
	key     *rsa.PrivateKey
}

// Signing says how a rewritten ID token is signed.
type Signing string

// The ways a rewritten ID token may be signed: with the test key the
// provider's key set lists (RS256), with the client secret (HS256), or
// not at all (none).
const (
	SignRS256 Signing = "RS256"
	SignHS256 Signing = "HS256"
	SignNone  Signing = "none"
)

// TestKeyID is the kid of the test key.
const TestKeyID = "oidctest-key"

// Start runs a provider with users until the test ends.
func Start(t testing.TB, people ...User) *Provider {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	p := &Provider{users: &users{byID: map[string]*storage.User{}}, clients: map[string]*storage.Client{}, key: key}
	for _, u := range people {
		p.users.byID[u.ID] = &storage.User{ID: u.ID, Username: u.Username, Password: u.Password, FirstName: u.Username,
			LastName: "Tester", Email: u.Email, EmailVerified: u.EmailVerified, PreferredLanguage: language.English}
	}
	var handler http.Handler
	p.server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		failing := p.failing[r.URL.Path]
		p.mu.Unlock()
		if failing {
			http.Error(w, "the endpoint fails (oidctest)", http.StatusServiceUnavailable)
			return
		}
		switch r.URL.Path {
		case "/oauth/token":
			p.serveToken(w, r, handler)
		case KeysPath:
			p.serveKeys(w, r, handler)
		default:
			handler.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(p.server.Close)
	p.Issuer = p.server.URL
	st := storage.NewStorageWithClients(p.users, p.clients)
	handler = exampleop.SetupServer(p.Issuer, st, nil, false)
	return p
}

// AddClient registers a web client (client_secret_basic) with its
// redirect URI. Call it before the first sign-in.
func (p *Provider) AddClient(id, secret, redirectURI string) {
	p.clients[id] = storage.WebClient(id, secret, redirectURI)
}

// Close stops the provider: it is then unreachable.
func (p *Provider) Close() { p.server.Close() }

// Fail makes the endpoint at path (KeysPath, UserinfoPath) answer 503
// Service Unavailable while fail is true, and work again when it is false.
func (p *Provider) Fail(path string, fail bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.failing == nil {
		p.failing = map[string]bool{}
	}
	p.failing[path] = fail
}

// Paths of the provider's endpoints, as its discovery document names them.
const (
	KeysPath     = "/keys"
	UserinfoPath = "/userinfo"
)

// RewriteIDTokens makes the token endpoint replace the provider's ID token
// with one carrying its claims as rewrite changes them, signed as rewrite
// says; nil restores the provider's own tokens.
func (p *Provider) RewriteIDTokens(rewrite func(claims map[string]any) Signing) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rewrite = rewrite
}

// serveToken answers the token endpoint: the provider's answer, its ID
// token rewritten when a rewrite is set.
func (p *Provider) serveToken(w http.ResponseWriter, r *http.Request, h http.Handler) {
	p.mu.Lock()
	rewrite := p.rewrite
	p.mu.Unlock()
	if rewrite == nil {
		h.ServeHTTP(w, r)
		return
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	var body map[string]any
	if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &body) != nil {
		copyAnswer(w, rec)
		return
	}
	raw, _ := body["id_token"].(string)
	jws, err := jose.ParseSigned(raw, []jose.SignatureAlgorithm{jose.RS256})
	if err != nil {
		http.Error(w, "oidctest: "+err.Error(), http.StatusInternalServerError)
		return
	}
	var claims map[string]any
	if err := json.Unmarshal(jws.UnsafePayloadWithoutVerification(), &claims); err != nil {
		http.Error(w, "oidctest: "+err.Error(), http.StatusInternalServerError)
		return
	}
	signing := rewrite(claims)
	secret := ""
	if user, pass, ok := r.BasicAuth(); ok {
		if c := p.clients[user]; c != nil {
			secret, _ = url.QueryUnescape(pass)
		}
	}
	token, err := p.sign(claims, signing, secret)
	if err != nil {
		http.Error(w, "oidctest: "+err.Error(), http.StatusInternalServerError)
		return
	}
	body["id_token"] = token
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(body)
}

// sign makes a compact JWT of claims.
func (p *Provider) sign(claims map[string]any, signing Signing, secret string) (string, error) {
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	if signing == SignNone {
		// go-jose refuses to make unsigned tokens, as it should; an
		// attacker needs no library.
		enc := base64.RawURLEncoding
		return enc.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + enc.EncodeToString(payload) + ".", nil
	}
	var key jose.SigningKey
	switch signing {
	case SignHS256:
		key = jose.SigningKey{Algorithm: jose.HS256, Key: []byte(secret)}
	default:
		key = jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: p.key, KeyID: TestKeyID}}
	}
	signer, err := jose.NewSigner(key, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		return "", err
	}
	obj, err := signer.Sign(payload)
	if err != nil {
		return "", err
	}
	return obj.CompactSerialize()
}

// serveKeys answers the key set: the provider's keys and the test key.
func (p *Provider) serveKeys(w http.ResponseWriter, r *http.Request, h http.Handler) {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	var set jose.JSONWebKeySet
	if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &set) != nil {
		copyAnswer(w, rec)
		return
	}
	set.Keys = append(set.Keys, jose.JSONWebKey{Key: &p.key.PublicKey, KeyID: TestKeyID, Algorithm: "RS256", Use: "sig"})
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(set)
}

func copyAnswer(w http.ResponseWriter, rec *httptest.ResponseRecorder) {
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	io.Copy(w, bytes.NewReader(rec.Body.Bytes()))
}

// SignInURL follows a sign-in from an authorization URL through the
// provider's login page as username with password, with client (which
// must keep cookies and not follow redirects), and returns the URL the
// provider sends the browser back to (the client's redirect URI with code
// and state, or with error).
func (p *Provider) SignInURL(ctx context.Context, client *http.Client, authURL, username, password string) (string, error) {
	loc := authURL
	for range 10 {
		if !strings.HasPrefix(loc, p.Issuer) {
			return loc, nil
		}
		u, _ := url.Parse(loc)
		if u.Path == "/login/username" {
			id := u.Query().Get("authRequestID")
			form := url.Values{"id": {id}, "username": {username}, "password": {password}}
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, p.Issuer+"/login/username", strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			next, err := follow(client, req)
			if err != nil {
				return "", err
			}
			loc = next
			continue
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, loc, nil)
		next, err := follow(client, req)
		if err != nil {
			return "", err
		}
		loc = next
	}
	return "", errTooManyRedirects
}

var errTooManyRedirects = errors.New("oidctest: more than 10 redirects")

// follow sends req and returns the absolute Location of its redirect.
func follow(client *http.Client, req *http.Request) (string, error) {
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 3 {
		return "", &url.Error{Op: req.Method, URL: req.URL.String(), Err: &statusError{code: resp.StatusCode, body: string(body)}}
	}
	next, err := req.URL.Parse(resp.Header.Get("Location"))
	if err != nil {
		return "", err
	}
	return next.String(), nil
}

type statusError struct {
	code int
	body string
}

func (e *statusError) Error() string { return http.StatusText(e.code) + ": " + e.body }

// users is the provider's user store.
type users struct {
	byID map[string]*storage.User
}

func (u *users) GetUserByID(id string) *storage.User { return u.byID[id] }

func (u *users) GetUserByUsername(name string) *storage.User {
	for _, user := range u.byID {
		if user.Username == name {
			return user
		}
	}
	return nil
}

func (u *users) ExampleClientID() string { return storage.ServiceUserID }
