package store

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"

	"docsd/internal/errs"
)

// sealedPrefix starts every value the store encrypted:
// `docsd-enc:v1:<key id>:<base64url(nonce || AES-GCM ciphertext)>`.
// Anything else in a secret column is a plaintext value (written before a
// key was configured) and is read as it is.
const sealedPrefix = "docsd-enc:v1:"

// What each secret column's ciphertext is bound to (GCM additional data), so
// that a sealed value copied into another column does not open.
const (
	aadEnvValue          = "environment_variables.value"
	aadIntegrationSecret = "integrations.secret"
)

// Sealer encrypts secrets at rest (environment variable values, webhook
// secrets) with AES-256-GCM. It seals with its current key and opens values
// sealed with the current key or any old key, so that a key can be rotated
// (Store.ResealSecrets) without downtime. A nil *Sealer, or one without a
// current key, writes plaintext.
type Sealer struct {
	current *sealKey
	keys    map[string]*sealKey // by id: current and old keys
}

type sealKey struct {
	id   string
	aead cipher.AEAD
}

// NewSealer returns a sealer whose current key is derived from current (empty:
// no encryption of new values) and that can also open values sealed with any
// of old. Keys are any string; the AES key is its SHA-256.
func NewSealer(current string, old ...string) (*Sealer, error) {
	s := &Sealer{keys: map[string]*sealKey{}}
	for i, material := range append([]string{current}, old...) {
		if material == "" {
			continue
		}
		sum := sha256.Sum256([]byte(material))
		block, err := aes.NewCipher(sum[:])
		if err != nil {
			return nil, errs.Wrap(errs.Internal, "store.NewSealer", err)
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, errs.Wrap(errs.Internal, "store.NewSealer", err)
		}
		id := sha256.Sum256(append([]byte("docsd key id:"), sum[:]...))
		k := &sealKey{id: hex.EncodeToString(id[:4]), aead: aead}
		if i == 0 {
			s.current = k
		}
		s.keys[k.id] = k
	}
	return s, nil
}

// Encrypts reports whether new values are sealed.
func (s *Sealer) Encrypts() bool { return s != nil && s.current != nil }

// KeyID is the current key's public id (empty without a key), as it appears
// in sealed values.
func (s *Sealer) KeyID() string {
	if !s.Encrypts() {
		return ""
	}
	return s.current.id
}

// seal encrypts plain for column aad, or returns it unchanged without a key.
func (s *Sealer) seal(plain, aad string) (string, error) {
	if !s.Encrypts() {
		return plain, nil
	}
	nonce := make([]byte, s.current.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", errs.Wrap(errs.Internal, "store.seal", err)
	}
	sealed := s.current.aead.Seal(nonce, nonce, []byte(plain), []byte(aad))
	return sealedPrefix + s.current.id + ":" + base64.RawURLEncoding.EncodeToString(sealed), nil
}

// IsSealed reports whether a stored value is encrypted.
func IsSealed(stored string) bool { return strings.HasPrefix(stored, sealedPrefix) }

// open decrypts a stored value of column aad; plaintext passes through. A
// sealed value without the key it was sealed with, or one that does not
// authenticate, is an Internal error saying so (never garbage).
func (s *Sealer) open(stored, aad string) (string, error) {
	const op = "store.OpenSecret"
	if !IsSealed(stored) {
		return stored, nil
	}
	id, data, ok := strings.Cut(strings.TrimPrefix(stored, sealedPrefix), ":")
	if !ok {
		return "", errs.Internalf(op, "malformed encrypted value in %s", aad)
	}
	var k *sealKey
	if s != nil {
		k = s.keys[id]
	}
	if k == nil {
		return "", errs.Internalf(op, "%s is encrypted with key %s, which is not configured (--secret-key is %s; set --old-secret-key to the key that sealed it)",
			aad, id, s.describeCurrent())
	}
	raw, err := base64.RawURLEncoding.DecodeString(data)
	if err != nil || len(raw) < k.aead.NonceSize() {
		return "", errs.Internalf(op, "malformed encrypted value in %s", aad)
	}
	plain, err := k.aead.Open(nil, raw[:k.aead.NonceSize()], raw[k.aead.NonceSize():], []byte(aad))
	if err != nil {
		return "", errs.Internalf(op, "%s does not decrypt with key %s: the value was altered or copied from elsewhere", aad, id)
	}
	return string(plain), nil
}

func (s *Sealer) describeCurrent() string {
	if !s.Encrypts() {
		return "not set"
	}
	return "key " + s.current.id
}

// UseSealer makes the store seal secrets it writes with sl and open the ones
// it reads with it. Call it before the store is used; nil stores plaintext.
func (s *Store) UseSealer(sl *Sealer) { s.sealer = sl }

// ResealSecrets rewrites every environment variable value, integration
// secret, outgoing webhook secret, sharing token, SSH private key and HTTPS
// repository credential sealed with the store's sealer's current key
// (plaintext when it has none), opening them with any key it knows. It
// runs in one transaction and returns how many values it rewrote; a value
// it cannot open fails the whole call and changes nothing. SSH keys and
// repository credentials are never stored unencrypted: without a current
// key, a store holding any is refused (Invalid).
func (s *Store) ResealSecrets(ctx context.Context) (int, error) {
	const op = "store.ResealSecrets"
	n := 0
	err := s.InTx(ctx, op, func(tx *Tx) error {
		for _, t := range []struct {
			table, column, aad string
			id                 string // the row's key column
			sealedOnly         bool   // never stored unencrypted
		}{
			{"environment_variables", "value", aadEnvValue, "id", false},
			{"integrations", "secret", aadIntegrationSecret, "id", false},
			{"webhooks", "secret", aadWebhookSecret, "id", false},
			{"sharing_methods", "token_sealed", aadSharingToken, "id", false},
			{"project_ssh_keys", "private_key", aadSSHPrivateKey, "project_id", true},
			{"project_repository_credentials", "username", aadRepoCredsUsername, "project_id", true},
			{"project_repository_credentials", "password", aadRepoCredsPassword, "project_id", true},
		} {
			var rows []struct {
				ID    int64  `db:"id"`
				Value string `db:"v"`
			}
			if err := tx.sel(ctx, &rows, `SELECT `+t.id+` AS id, `+t.column+` AS v FROM `+t.table+` ORDER BY `+t.id); err != nil {
				return err
			}
			if t.sealedOnly && len(rows) > 0 && !s.sealer.Encrypts() {
				return errs.E(errs.Invalid, op, "SSH keys and repository credentials are never stored unencrypted: rotate to a new --secret-key, or delete them first")
			}
			for _, r := range rows {
				plain, err := s.sealer.open(r.Value, t.aad)
				if err != nil {
					return fmt.Errorf("%s id %d: %w", t.table, r.ID, err)
				}
				sealed, err := s.sealer.seal(plain, t.aad)
				if err != nil {
					return err
				}
				if sealed == r.Value {
					continue // plaintext staying plaintext
				}
				if _, err := tx.exec(ctx, `UPDATE `+t.table+` SET `+t.column+` = ? WHERE `+t.id+` = ?`, sealed, r.ID); err != nil {
					return err
				}
				n++
			}
		}
		return nil
	})
	return n, err
}
