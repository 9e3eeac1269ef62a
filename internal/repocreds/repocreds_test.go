package repocreds

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
)

func TestNewKey(t *testing.T) {
	k, err := NewKey(KeyComment("handbook", "docs.example.com"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(k.Public, "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5") || !strings.HasSuffix(k.Public, " docsd-handbook@docs.example.com") {
		t.Errorf("public key %q", k.Public)
	}
	pub, _, _, _, err := ssh.ParseAuthorizedKey([]byte(k.Public))
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.ParsePrivateKey([]byte(k.Private))
	if err != nil {
		t.Fatalf("private key does not parse: %v", err)
	}
	if got, want := ssh.FingerprintSHA256(signer.PublicKey()), ssh.FingerprintSHA256(pub); got != want || k.Fingerprint != want {
		t.Errorf("fingerprints: private %s, public %s, reported %s", got, want, k.Fingerprint)
	}
}

func TestParseKnownHosts(t *testing.T) {
	k, _ := NewKey("x")
	keyPart := strings.Join(strings.Fields(k.Public)[:2], " ")
	good := "# GitHub\n\ngit.acme.example " + keyPart + "\n[127.0.0.1]:2222,other " + keyPart + " comment\n"
	hosts, err := ParseKnownHosts(good)
	if err != nil {
		t.Fatal(err)
	}
	if len(hosts) != 2 || hosts[0].Hosts != "git.acme.example" || hosts[1].Hosts != "[127.0.0.1]:2222,other" ||
		hosts[0].KeyType != "ssh-ed25519" || hosts[0].Fingerprint != k.Fingerprint {
		t.Errorf("parsed %+v", hosts)
	}
	for _, tc := range []struct{ text, want string }{
		{"git.acme.example " + keyPart + "\nnot a line\n", BadLine(2)},
		{"git.acme.example ssh-ed25519 AAAA\n", BadLine(1)},
		{keyPart + "\n", BadLine(1)},
		{strings.Repeat("h "+keyPart+"\n", 51), MsgTooManyLines},
		{strings.Repeat("#", MaxKnownHostsBytes+1), MsgTooBig},
	} {
		_, err := ParseKnownHosts(tc.text)
		if err == nil || err.Error() != tc.want {
			t.Errorf("ParseKnownHosts(%.40q) = %v; want %q", tc.text, err, tc.want)
		}
	}
	if _, err := ParseKnownHosts(strings.Repeat("h "+keyPart+"\n", 50)); err != nil {
		t.Errorf("50 lines: %v", err)
	}
}

func TestSSHAddress(t *testing.T) {
	for in, want := range map[string]string{
		"ssh://git@127.0.0.1:2222/srv/repo.git": "127.0.0.1:2222",
		"ssh://git.acme.example/x":              "git.acme.example:22",
		"ssh+git://u@[::1]:30/x":                "[::1]:30",
		"git@github.com:acme/docs.git":          "github.com:22",
		"https://github.com/acme/docs":          "",
		"file:///srv/x":                         "",
		"/srv/a:b":                              "",
	} {
		got, ok := SSHAddress(in)
		if got != want || ok != (want != "") {
			t.Errorf("SSHAddress(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	if got := KnownHostName("127.0.0.1:2222"); got != "[127.0.0.1]:2222" {
		t.Errorf("KnownHostName = %q", got)
	}
	if got := KnownHostName("github.com:22"); got != "github.com" {
		t.Errorf("KnownHostName = %q", got)
	}
}

func TestPrepareSSHPinsKnownHosts(t *testing.T) {
	k, _ := NewKey("x")
	keyPart := strings.Join(strings.Fields(k.Public)[:2], " ")
	parent := filepath.Join(t.TempDir(), "tmp")
	s, err := PrepareSSH(parent, k.Private, nil, "", "127.0.0.1:2222")
	if err != nil {
		t.Fatal(err)
	}
	if s.Strict || !strings.Contains(s.Command(), "StrictHostKeyChecking=accept-new") {
		t.Errorf("no lines: strict %v, command %s", s.Strict, s.Command())
	}
	if st, err := os.Stat(s.Dir); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("dir mode: %v %v", st, err)
	}
	// ssh appends a line: it is learned, once.
	line := "[127.0.0.1]:2222 " + keyPart
	os.WriteFile(filepath.Join(s.Dir, "known_hosts"), []byte(line+"\n"), 0o600)
	learned, err := s.Learned()
	if err != nil || len(learned) != 1 || learned[0].Hosts != "[127.0.0.1]:2222" {
		t.Errorf("learned %+v, %v", learned, err)
	}
	s.Remove()

	s, err = PrepareSSH(parent, k.Private, []string{line}, "", "127.0.0.1:2222")
	if err != nil {
		t.Fatal(err)
	}
	if !s.Strict || !strings.Contains(s.Command(), "StrictHostKeyChecking=yes") {
		t.Errorf("pinned: strict %v", s.Strict)
	}
	if learned, _ := s.Learned(); len(learned) != 0 {
		t.Errorf("nothing new, learned %+v", learned)
	}
	// Another port of the same host is another host.
	other, _ := PrepareSSH(parent, k.Private, []string{line}, "", "127.0.0.1:2223")
	if other.Strict {
		t.Error("a line for port 2222 pins port 2223")
	}
	// The operator's file pins too.
	global := filepath.Join(t.TempDir(), "known_hosts")
	os.WriteFile(global, []byte("git.acme.example "+keyPart+"\n"), 0o644)
	g, _ := PrepareSSH(parent, k.Private, nil, global, "git.acme.example:22")
	if !g.Strict || !strings.Contains(g.Command(), "GlobalKnownHostsFile="+global) {
		t.Errorf("global file: strict %v, %s", g.Strict, g.Command())
	}
	if err := RemoveStale(parent); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 0 {
		t.Errorf("RemoveStale left %v", entries)
	}
}

func TestHTTPSHeader(t *testing.T) {
	key, value, ok := HTTPSHeader("https://ci@git.acme.example:8443/docs.git", "ci", "tok")
	if !ok || key != "http.https://git.acme.example:8443/.extraHeader" || value != "Authorization: Basic Y2k6dG9r" {
		t.Errorf("got %q %q %v", key, value, ok)
	}
	if _, _, ok := HTTPSHeader("http://git.acme.example/docs.git", "ci", "tok"); ok {
		t.Error("http:// gets credentials")
	}
}
