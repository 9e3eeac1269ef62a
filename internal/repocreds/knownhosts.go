package repocreds

import (
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// The limits of a project's known_hosts text.
const (
	MaxKnownHostsLines = 50
	MaxKnownHostsBytes = 64 << 10
)

// MsgTooManyLines refuses known_hosts text of more than MaxKnownHostsLines
// entries.
var MsgTooManyLines = fmt.Sprintf("Ensure this field has no more than %d lines.", MaxKnownHostsLines)

// MsgTooBig refuses known_hosts text of more than MaxKnownHostsBytes.
var MsgTooBig = fmt.Sprintf("Ensure this field has no more than %d characters.", MaxKnownHostsBytes)

// BadLine is the message of the first line that is not a known_hosts entry
// (n counts from 1, blank and comment lines included).
func BadLine(n int) string { return fmt.Sprintf("Line %d is not a known_hosts entry.", n) }

// KnownHost is one known_hosts entry: Hosts as the line writes them
// (`git.acme.example`, `[127.0.0.1]:2222`, a hashed `|1|…`, or several
// separated by commas), the key's type and SHA256 fingerprint, and the
// line itself, as OpenSSH reads it.
type KnownHost struct {
	Hosts       string
	KeyType     string
	Fingerprint string
	Line        string
}

// InvalidError is known_hosts text that can't be used: Message says why,
// with the contract's wording.
type InvalidError struct{ Message string }

func (e *InvalidError) Error() string { return e.Message }

// ParseKnownHosts reads OpenSSH known_hosts text: one entry per line,
// blank lines and `#` comments skipped, at most MaxKnownHostsLines entries
// and MaxKnownHostsBytes. The error, when not nil, is an *InvalidError.
func ParseKnownHosts(text string) ([]KnownHost, error) {
	if len(text) > MaxKnownHostsBytes {
		return nil, &InvalidError{MsgTooBig}
	}
	var out []KnownHost
	for i, raw := range strings.Split(text, "\n") {
		line := strings.TrimSpace(raw)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		h, ok := parseLine(line)
		if !ok {
			return nil, &InvalidError{BadLine(i + 1)}
		}
		out = append(out, h)
		if len(out) > MaxKnownHostsLines {
			return nil, &InvalidError{MsgTooManyLines}
		}
	}
	return out, nil
}

// parseLine reads one entry; a line with anything after its key but a
// comment, or with a control character, is not one.
func parseLine(line string) (KnownHost, bool) {
	if !utf8.ValidString(line) || strings.ContainsFunc(line, func(r rune) bool { return r < 0x20 && r != '\t' || r == 0x7f }) {
		return KnownHost{}, false
	}
	marker, hosts, key, _, rest, err := ssh.ParseKnownHosts([]byte(line))
	if err != nil || len(strings.TrimSpace(string(rest))) > 0 || len(hosts) == 0 {
		return KnownHost{}, false
	}
	if marker != "" && marker != "cert-authority" && marker != "revoked" {
		return KnownHost{}, false
	}
	return KnownHost{Hosts: strings.Join(hosts, ","), KeyType: key.Type(), Fingerprint: ssh.FingerprintSHA256(key), Line: line}, true
}

// SSHAddress is the host and port (`host:22`) git reaches for an SSH
// repository URL (`ssh://`, `ssh+git://`, or scp-like `user@host:path`);
// ok is false for any other URL.
func SSHAddress(repo string) (address string, ok bool) {
	for _, scheme := range []string{"ssh://", "ssh+git://", "git+ssh://"} {
		if rest, found := strings.CutPrefix(repo, scheme); found {
			hostport, _, _ := strings.Cut(rest, "/")
			if at := strings.LastIndexByte(hostport, '@'); at >= 0 {
				hostport = hostport[at+1:]
			}
			if hostport == "" {
				return "", false
			}
			if h, p, err := net.SplitHostPort(hostport); err == nil {
				if _, err := strconv.Atoi(p); err != nil || h == "" {
					return "", false
				}
				return net.JoinHostPort(h, p), true
			}
			return net.JoinHostPort(strings.Trim(hostport, "[]"), "22"), true
		}
	}
	if strings.Contains(repo, "://") {
		return "", false
	}
	// scp-like: [user@]host:path, where host has no slash before the colon.
	hostPart, _, found := strings.Cut(repo, ":")
	if !found || strings.Contains(hostPart, "/") {
		return "", false
	}
	if at := strings.LastIndexByte(hostPart, '@'); at >= 0 {
		hostPart = hostPart[at+1:]
	}
	if hostPart == "" {
		return "", false
	}
	return net.JoinHostPort(strings.Trim(hostPart, "[]"), "22"), true
}

// KnownHostName is how known_hosts names address (`host:port`):
// `host` on port 22, `[host]:port` otherwise.
func KnownHostName(address string) string { return knownhosts.Normalize(address) }

// Known reports whether any of the known_hosts files has a key for address
// (`host:port`), whatever the key: such a host is pinned, and a different
// key from it must fail. Missing files are skipped.
func Known(address string, files ...string) (bool, error) {
	var existing []string
	for _, f := range files {
		if f != "" && fileExists(f) {
			existing = append(existing, f)
		}
	}
	if len(existing) == 0 {
		return false, nil
	}
	cb, err := knownhosts.New(existing...)
	if err != nil {
		return false, fmt.Errorf("repocreds: reading known hosts: %w", err)
	}
	// A key nobody has: any entry for the host makes it a mismatch.
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return false, err
	}
	probe, err := ssh.NewPublicKey(pub)
	if err != nil {
		return false, err
	}
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return false, err
	}
	n, _ := strconv.Atoi(port)
	remote := &net.TCPAddr{IP: net.ParseIP(host), Port: n}
	if remote.IP == nil {
		remote.IP = net.IPv4zero
	}
	err = cb(address, remote, probe)
	var keyErr *knownhosts.KeyError
	var revoked *knownhosts.RevokedError
	switch {
	case errors.As(err, &keyErr):
		return len(keyErr.Want) > 0, nil
	case errors.As(err, &revoked):
		return true, nil
	case err == nil:
		return true, nil
	}
	return false, err
}

// CheckKnownHostsFile checks that path is a known_hosts file OpenSSH's
// rules read: it exists and every entry parses.
func CheckKnownHostsFile(path string) error {
	if _, err := knownhosts.New(path); err != nil {
		return err
	}
	return nil
}
