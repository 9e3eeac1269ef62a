package accounts

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/go-jose/go-jose/v4"
)

// TestKeySetRefetch checks that the key set is fetched when first needed,
// again for a key id it does not hold (so a rotated key is picked up), but
// not more than once a minute however many unknown key ids arrive; and
// that none and HS256 are refused before any key is looked at.
func TestKeySetRefetch(t *testing.T) {
	t.Parallel()
	newKey := func(kid string) (*rsa.PrivateKey, jose.JSONWebKey) {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			t.Fatal(err)
		}
		return k, jose.JSONWebKey{Key: &k.PublicKey, KeyID: kid, Algorithm: "RS256", Use: "sig"}
	}
	old, oldPub := newKey("old")
	rotated, rotatedPub := newKey("rotated")
	var mu sync.Mutex
	published := []jose.JSONWebKey{oldPub}
	var fetches atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches.Add(1)
		mu.Lock()
		defer mu.Unlock()
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: published})
	}))
	defer srv.Close()
	sign := func(k *rsa.PrivateKey, kid string) string {
		s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: k, KeyID: kid}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		obj, err := s.Sign([]byte(`{"sub":"x"}`))
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := obj.CompactSerialize()
		return raw
	}
	ks := &keySet{url: srv.URL, client: srv.Client()}
	ctx := t.Context()

	if _, err := ks.VerifySignature(ctx, sign(old, "old")); err != nil || fetches.Load() != 1 {
		t.Fatalf("old key: %v after %d fetches, want verified after 1", err, fetches.Load())
	}
	if _, err := ks.VerifySignature(ctx, sign(old, "old")); err != nil || fetches.Load() != 1 {
		t.Errorf("old key again: %v after %d fetches, want no new fetch", err, fetches.Load())
	}
	// The provider rotates its key: the new kid is unknown, and was
	// fetched less than a minute ago, so it is refused without a fetch…
	mu.Lock()
	published = []jose.JSONWebKey{oldPub, rotatedPub}
	mu.Unlock()
	for range 5 {
		if _, err := ks.VerifySignature(ctx, sign(rotated, "rotated")); err == nil {
			t.Errorf("a kid unknown within the minute was accepted")
		}
	}
	if fetches.Load() != 1 {
		t.Errorf("%d fetches within a minute, want 1", fetches.Load())
	}
	// …and once the minute has passed, one fetch picks it up.
	ks.mu.Lock()
	ks.fetched = ks.fetched.Add(-jwksRefetchEvery)
	ks.mu.Unlock()
	if _, err := ks.VerifySignature(ctx, sign(rotated, "rotated")); err != nil || fetches.Load() != 2 {
		t.Errorf("rotated key after a minute: %v after %d fetches, want verified after 2", err, fetches.Load())
	}

	hs, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: make([]byte, 32)}, nil)
	obj, _ := hs.Sign([]byte(`{"sub":"x"}`))
	raw, _ := obj.CompactSerialize()
	for name, token := range map[string]string{"HS256": raw, "none": "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0."} {
		if _, err := ks.VerifySignature(ctx, token); err == nil {
			t.Errorf("%s accepted", name)
		}
	}

	srv.Close()
	down := &keySet{url: srv.URL, client: &http.Client{}}
	if _, err := down.VerifySignature(ctx, sign(old, "old")); err == nil || !isUnreachable(err) {
		t.Errorf("keys of a provider that is down: %v, want unreachable", err)
	}
}

func isUnreachable(err error) bool { return err != nil && errors.Is(err, errKeysUnreachable) }

// TestIdentityClaims checks how email_verified is read, and the rule of
// new usernames.
func TestIdentityClaims(t *testing.T) {
	for raw, want := range map[string][2]bool{`true`: {true, true}, `"true"`: {true, true}, `false`: {false, false},
		`"false"`: {false, false}, `"yes"`: {false, false}, ``: {false, true}, `null`: {false, true}} {
		c := identityClaims{EmailVerified: json.RawMessage(raw)}
		if got := [2]bool{c.verified(false), c.verified(true)}; got != want {
			t.Errorf("email_verified %s: %v, want %v (without, with assuming)", raw, got, want)
		}
	}
	for name, want := range map[string]bool{"eve": true, "eve.smith+docs@acme": true, "Zoë_2": true, "": false,
		"with space": false, "semi;colon": false, strings.Repeat("a", 150): true, strings.Repeat("a", 151): false} {
		if ValidUsername(name) != want {
			t.Errorf("ValidUsername(%q) = %v, want %v", name, !want, want)
		}
	}
}
