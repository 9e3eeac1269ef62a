package repocreds

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// DirPrefix starts the name of every directory PrepareSSH makes, so that
// the ones a stopped process left can be found and removed at start.
const DirPrefix = "git-ssh-"

// SSH is a prepared SSH identity for one project's git commands: a fresh
// 0700 directory holding the private key and the known_hosts file git's
// ssh reads and, on first use, writes.
type SSH struct {
	Dir string
	// Strict says the repository's host was known (pinned): ssh runs with
	// StrictHostKeyChecking=yes; otherwise accept-new, and the lines it
	// writes are learned (Learned).
	Strict bool
	// Host is the known_hosts name of the repository's host
	// (`git.acme.example`, `[127.0.0.1]:2222`).
	Host string

	global  string
	written map[string]bool // the lines written to known_hosts
}

// PrepareSSH writes privateKey and the known_hosts lines into a new
// directory under parent (made 0700 when missing) for the repository at
// address (`host:port`, SSHAddress). global is the operator's
// known_hosts file (--ssh-known-hosts), "" for none. The caller must
// Remove the directory when the commands are done.
func PrepareSSH(parent, privateKey string, lines []string, global, address string) (*SSH, error) {
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return nil, fmt.Errorf("repocreds: %w", err)
	}
	dir, err := os.MkdirTemp(parent, DirPrefix+"*")
	if err != nil {
		return nil, fmt.Errorf("repocreds: %w", err)
	}
	s := &SSH{Dir: dir, global: global, Host: KnownHostName(address), written: map[string]bool{}}
	fail := func(err error) (*SSH, error) {
		s.Remove()
		return nil, fmt.Errorf("repocreds: %w", err)
	}
	if err := os.WriteFile(s.keyPath(), []byte(privateKey), 0o600); err != nil {
		return fail(err)
	}
	var text strings.Builder
	for _, l := range lines {
		text.WriteString(l + "\n")
		s.written[l] = true
	}
	if err := os.WriteFile(s.knownHostsPath(), []byte(text.String()), 0o600); err != nil {
		return fail(err)
	}
	known, err := Known(address, s.knownHostsPath(), global)
	// A file that can't be read is no reason to trust a new key.
	s.Strict = known || err != nil
	return s, nil
}

func (s *SSH) keyPath() string        { return filepath.Join(s.Dir, "id_ed25519") }
func (s *SSH) knownHostsPath() string { return filepath.Join(s.Dir, "known_hosts") }

// Command is the value of GIT_SSH_COMMAND: the key alone, no agent, no
// configuration file, no prompts, the host key checked against the
// project's lines and the operator's file.
func (s *SSH) Command() string {
	checking := "accept-new"
	if s.Strict {
		checking = "yes"
	}
	global := "/dev/null"
	if s.global != "" {
		global = s.global
	}
	return strings.Join([]string{"ssh", "-F", "/dev/null", "-i", shellQuote(s.keyPath()),
		"-o", "IdentitiesOnly=yes", "-o", "IdentityAgent=none", "-o", "BatchMode=yes",
		"-o", "StrictHostKeyChecking=" + checking,
		"-o", "UserKnownHostsFile=" + shellQuote(s.knownHostsPath()),
		"-o", "GlobalKnownHostsFile=" + shellQuote(global)}, " ")
}

// Chown gives the directory and its files to uid:gid, for commands that
// run as another user (ssh refuses a key it can't read).
func (s *SSH) Chown(uid, gid int) error {
	for _, p := range []string{s.Dir, s.keyPath(), s.knownHostsPath()} {
		if err := os.Chown(p, uid, gid); err != nil {
			return err
		}
	}
	return nil
}

// Learned returns the entries ssh added to the known_hosts file (a new
// host accepted on first use), parsed.
func (s *SSH) Learned() ([]KnownHost, error) {
	data, err := os.ReadFile(s.knownHostsPath())
	if err != nil {
		return nil, fmt.Errorf("repocreds: %w", err)
	}
	var out []KnownHost
	for _, raw := range strings.Split(string(data), "\n") {
		line := strings.TrimSpace(raw)
		if line == "" || strings.HasPrefix(line, "#") || s.written[line] {
			continue
		}
		if h, ok := parseLine(line); ok {
			out = append(out, h)
			s.written[line] = true
		}
	}
	return out, nil
}

// Remove deletes the directory and the key in it.
func (s *SSH) Remove() error { return os.RemoveAll(s.Dir) }

// RemoveStale deletes the directories PrepareSSH made under parent, left
// by a process that stopped before removing them.
func RemoveStale(parent string) error {
	entries, err := os.ReadDir(parent)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), DirPrefix) {
			errs = append(errs, os.RemoveAll(filepath.Join(parent, e.Name())))
		}
	}
	return errors.Join(errs...)
}

// HostKeyFailure reports whether git's output says ssh refused the host's
// key: it changed from the pinned one (or, pinned, it is not among them).
func HostKeyFailure(output string) bool {
	return strings.Contains(output, "REMOTE HOST IDENTIFICATION HAS CHANGED") ||
		strings.Contains(output, "Host key verification failed")
}

// MsgHostKeyChanged is the failure of a step whose host offered a key other
// than the pinned one.
func MsgHostKeyChanged(host string) string {
	return "The SSH host key of " + host + " does not match the one docsd pinned for this project. If the server's key really changed, update the project's known hosts."
}

// HTTPSHeader is the git configuration that sends username and token to
// an https:// repository's origin only: the key
// `http.https://host[:port]/.extraHeader` and its value
// `Authorization: Basic <base64(username:token)>`. ok is false for a URL
// that is not https://.
func HTTPSHeader(repo, username, token string) (key, value string, ok bool) {
	u, err := url.Parse(repo)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return "", "", false
	}
	origin := "https://" + u.Host + "/"
	return "http." + origin + ".extraHeader", "Authorization: Basic " + BasicAuth(username, token), true
}

// BasicAuth is base64(username:token), the secret part of the header.
func BasicAuth(username, token string) string {
	return base64.StdEncoding.EncodeToString([]byte(username + ":" + token))
}

// shellQuote quotes s for the shell git runs GIT_SSH_COMMAND with.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+=:,@", r))
	}) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
