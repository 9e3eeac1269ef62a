// Package repocreds holds what a project's git commands use to reach a
// private repository: SSH deploy keys (made here, ed25519), the host keys
// they accept (OpenSSH known_hosts lines, checked here), and the HTTPS
// credentials, turned into git's environment (GIT_SSH_COMMAND, and an
// Authorization header scoped to the repository's origin through
// GIT_CONFIG_COUNT). It imports nothing of docsd's: the store keeps the
// sealed values, the graph validates input with it, the builder hands its
// environment to git commands only (see docs/user-guide/private-repositories.md).
package repocreds

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"strings"

	"golang.org/x/crypto/ssh"
)

// KeyType is the type of every deploy key docsd makes.
const KeyType = "ed25519"

// Key is a new deploy key: the public key as an authorized_keys line
// (`ssh-ed25519 AAAA… comment`), its SHA256 fingerprint, and the private
// key in OpenSSH's PEM format, which must be sealed before it is stored.
type Key struct {
	Public      string
	Fingerprint string
	Private     string
}

// NewKey makes an ed25519 pair whose public key carries comment.
func NewKey(comment string) (*Key, error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("repocreds: generating a key: %w", err)
	}
	sshPub, err := ssh.NewPublicKey(pub)
	if err != nil {
		return nil, fmt.Errorf("repocreds: public key: %w", err)
	}
	block, err := ssh.MarshalPrivateKey(priv, comment)
	if err != nil {
		return nil, fmt.Errorf("repocreds: private key: %w", err)
	}
	line := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(sshPub)))
	if comment != "" {
		line += " " + comment
	}
	return &Key{Public: line, Fingerprint: ssh.FingerprintSHA256(sshPub), Private: string(pem.EncodeToMemory(block))}, nil
}

// KeyComment is the comment of a project's public key:
// `docsd-<slug>@<host>`, host being the host of docsd's public URL.
func KeyComment(slug, host string) string { return "docsd-" + slug + "@" + host }
