package hosting

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"docsd/internal/storetest"
	"docsd/store"
)

// sessionWorld publishes private project secret (a page, a 301 page
// redirect) for the subdomain-mode docs host and returns the cookie pair
// of a docs session of its maintainer on secret's host.
func sessionWorld(t *testing.T, f *fixture) []string {
	t.Helper()
	private := store.Private
	secret := f.update(f.project("secret", "en"), store.ProjectUpdate{PrivacyLevel: &private})
	f.publish(secret, "latest", map[string]string{"index.html": "secret page"})
	if _, err := f.s.CreateRedirect(t.Context(), store.Redirect{ProjectID: secret.ID, Type: "page",
		FromURL: "/old.html", ToURL: "/index.html", HTTPStatus: 301, Enabled: true}); err != nil {
		t.Fatal(err)
	}
	value, err := f.s.CreateDocsSession(t.Context(), f.ownerKey, "secret")
	if err != nil {
		t.Fatal(err)
	}
	return []string{"Cookie", "docsd_docs=" + value}
}

// sessionAnswerURLs are secret's answers that only its maintainer gets:
// a page, the root's redirect to the default version, a page redirect.
var sessionAnswerURLs = []struct {
	url    string
	status int
}{
	{"https://secret.docs.example.io/en/latest/", 200},
	{"https://secret.docs.example.io/", 302},
	{"https://secret.docs.example.io/en/latest/old.html", 301},
}

// TestSessionAnswersNeverKept: what the docs host answers a reader named
// by a docs session or a token is Cache-Control: private and never kept
// for replay: an anonymous reader of the same URL, before and after, gets
// the anonymous answer (404), the one kept for the URL; and the reader
// with the session is never answered with that kept 404.
func TestSessionAnswersNeverKept(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		f := newFixture(t, d)
		session := sessionWorld(t, f)
		for _, cred := range []struct {
			name   string
			header []string
		}{{"session", session}, {"token", token(f.ownerKey)}} {
			for _, tc := range sessionAnswerURLs {
				t.Run(cred.name+"/"+strings.TrimPrefix(tc.url, "https://"), func(t *testing.T) {
					f.sub.Forget()
					if resp := f.get(tc.url); resp.StatusCode != http.StatusNotFound {
						t.Fatalf("anonymous: %d, want 404", resp.StatusCode)
					}
					resp := f.get(tc.url, cred.header...)
					if resp.StatusCode != tc.status {
						t.Fatalf("with the %s: %d, want %d", cred.name, resp.StatusCode, tc.status)
					}
					if cc := resp.Header.Get("Cache-Control"); !strings.Contains(cc, "private") {
						t.Errorf("with the %s: Cache-Control %q, want private", cred.name, cc)
					}
					key, _ := answerKeyOf(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, tc.url, nil))
					if a, _, kept := f.sub.cache.answer(key); !kept || a.status != http.StatusNotFound {
						t.Errorf("the answer kept for the URL is not the anonymous 404")
					}
					if resp := f.get(tc.url); resp.StatusCode != http.StatusNotFound {
						t.Errorf("anonymous after the %s's request: %d, want 404", cred.name, resp.StatusCode)
					}
				})
			}
		}
	})
}
