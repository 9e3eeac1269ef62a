//go:build linux && !nofront

package hosting

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"docsd/internal/storetest"
	"docsd/store"
)

// TestFrontSessionAnswersNeverKept is TestSessionAnswersNeverKept through
// a Front, which replays kept answers itself: a request with the session
// cookie or a token is never answered from them, and what it gets is
// never replayed to an anonymous reader.
func TestFrontSessionAnswersNeverKept(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		f := newFixture(t, d)
		session := sessionWorld(t, f)
		fh := startFront(t, f.sub, nil, time.Minute)
		for _, cred := range []struct{ name, field string }{
			{"session", session[0] + ": " + session[1]},
			{"token", "Authorization: Token " + f.ownerKey},
		} {
			for _, tc := range sessionAnswerURLs {
				host, target, _ := strings.Cut(strings.TrimPrefix(tc.url, "https://"), "/")
				target = "/" + target
				t.Run(cred.name+"/"+host+target, func(t *testing.T) {
					f.sub.Forget()
					anon := rawGet(host, target)
					for range 2 { // the second from the kept answer
						if a := exchange(t, fh.addr, anon); a.code() != http.StatusNotFound {
							t.Fatalf("anonymous: %s, want 404", a.status)
						}
					}
					a := exchange(t, fh.addr, rawGet(host, target, cred.field))
					if a.code() != tc.status || !strings.Contains(a.header.Get("Cache-Control"), "private") {
						t.Fatalf("with the %s: %s, Cache-Control %q; want %d, private", cred.name, a.status, a.header.Get("Cache-Control"), tc.status)
					}
					if a := exchange(t, fh.addr, anon); a.code() != http.StatusNotFound {
						t.Errorf("anonymous after the %s's request: %s, want 404", cred.name, a.status)
					}
				})
			}
		}
	})
}
