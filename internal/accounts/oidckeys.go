package accounts

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// errKeysUnreachable marks a key set that could not be fetched.
var errKeysUnreachable = errors.New("the provider's keys could not be fetched")

// keySet is the provider's JSON Web Key Set (jwks_uri), fetched when first
// needed and again when a token names a key id it does not hold — at most
// once every jwksRefetchEvery, so a flood of forged key ids cannot make
// docsd hammer the provider. It is go-oidc's KeySet: signatures are
// checked by go-jose with the algorithms docsd accepts.
type keySet struct {
	url    string
	client *http.Client

	mu      sync.Mutex
	keys    jose.JSONWebKeySet // mu guards keys and fetched
	fetched time.Time
}

// VerifySignature returns the payload of a compact JWS signed by one of
// the provider's keys with an accepted algorithm.
func (k *keySet) VerifySignature(ctx context.Context, raw string) ([]byte, error) {
	algs := make([]jose.SignatureAlgorithm, len(signingAlgs))
	for i, a := range signingAlgs {
		algs[i] = jose.SignatureAlgorithm(a)
	}
	jws, err := jose.ParseSigned(raw, algs)
	if err != nil {
		return nil, fmt.Errorf("malformed or refused signature: %w", err)
	}
	if len(jws.Signatures) != 1 {
		return nil, errors.New("a token must have one signature")
	}
	kid := jws.Signatures[0].Header.KeyID
	keys, err := k.candidates(ctx, kid, false)
	if err != nil {
		return nil, err
	}
	if len(keys) == 0 {
		if keys, err = k.candidates(ctx, kid, true); err != nil {
			return nil, err
		}
	}
	for _, key := range keys {
		if payload, err := jws.Verify(key); err == nil {
			return payload, nil
		}
	}
	return nil, fmt.Errorf("no key of the provider verifies the signature (kid %q)", kid)
}

// candidates returns the keys that may have signed a token naming kid
// (every signing key when kid is ""), fetching the set when none is held
// yet, or when refetch asks and the last fetch is old enough.
func (k *keySet) candidates(ctx context.Context, kid string, refetch bool) ([]jose.JSONWebKey, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.fetched.IsZero() || (refetch && time.Since(k.fetched) >= jwksRefetchEvery) {
		set, err := k.fetch(ctx)
		if err != nil {
			return nil, err
		}
		k.keys, k.fetched = set, time.Now()
	}
	var out []jose.JSONWebKey
	for _, key := range k.keys.Keys {
		if (kid == "" || key.KeyID == kid) && (key.Use == "" || key.Use == "sig") {
			out = append(out, key)
		}
	}
	return out, nil
}

// fetch reads the key set from the provider.
func (k *keySet) fetch(ctx context.Context) (jose.JSONWebKeySet, error) {
	var set jose.JSONWebKeySet
	ctx, cancel := context.WithTimeout(ctx, oidcRequestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, k.url, nil)
	if err != nil {
		return set, fmt.Errorf("%w: %v", errKeysUnreachable, err)
	}
	resp, err := k.client.Do(req)
	if err != nil {
		return set, fmt.Errorf("%w: %v", errKeysUnreachable, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil || resp.StatusCode/100 != 2 {
		return set, fmt.Errorf("%w: %s %v", errKeysUnreachable, resp.Status, err)
	}
	if err := json.Unmarshal(body, &set); err != nil {
		return set, fmt.Errorf("%w: %v", errKeysUnreachable, err)
	}
	return set, nil
}
