package main

import (
	"bytes"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"docsd/internal/repocreds"
	"docsd/internal/storetest"
	"docsd/store"
)

// This file runs private repositories end to end: OpenSSH's sshd serving
// a repository through git-shell to the project's deploy key, and git's
// smart HTTP behind Basic authentication for HTTPS credentials.

// needTool skips the test when a program is missing, and fails it under
// CI=true, where .ci/run installs it.
func needTool(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if _, err := exec.LookPath(p); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is missing (CI=true): install openssh-server and git", p)
			}
			t.Skipf("NO %s: this test needs a real sshd and git (apt-get install openssh-server git)", p)
		}
	}
}

// testSSHD is an OpenSSH server on a loopback port, run as the current
// user, that lets the keys in its authorized_keys run git-shell only.
type testSSHD struct {
	t       *testing.T
	dir     string // 0700, under HOME so that StrictModes accepts its files
	port    int
	user    string
	cmd     *exec.Cmd
	logs    *bytes.Buffer
	hostKey string // its public key line
}

// startSSHD makes the server's directory and host key and starts it.
func startSSHD(t *testing.T) *testSSHD {
	t.Helper()
	needTool(t, "/usr/sbin/sshd", "git-shell")
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	// StrictModes checks every directory up to HOME: t.TempDir's /tmp is
	// world-writable, a directory of its own under HOME is not.
	dir, err := os.MkdirTemp(home, ".docsd-sshd-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o700)
	if os.Geteuid() == 0 {
		// Debian's sshd wants its privilege separation directory.
		os.MkdirAll("/run/sshd", 0o755)
	}
	_, port, _ := net.SplitHostPort(freeAddr(t))
	s := &testSSHD{t: t, dir: dir, user: u.Username, logs: &bytes.Buffer{}}
	fmt.Sscan(port, &s.port)
	os.WriteFile(filepath.Join(dir, "authorized_keys"), nil, 0o600)
	s.start()
	t.Cleanup(s.stop)
	return s
}

// url is the ssh:// URL of repository path on the server.
func (s *testSSHD) url(path string) string {
	return fmt.Sprintf("ssh://%s@127.0.0.1:%d%s", s.user, s.port, path)
}

// authorize lets publicKey run git-shell, and only that.
func (s *testSSHD) authorize(publicKey string) {
	line := `command="git-shell -c \"$SSH_ORIGINAL_COMMAND\"",restrict ` + publicKey + "\n"
	if err := os.WriteFile(filepath.Join(s.dir, "authorized_keys"), []byte(line), 0o600); err != nil {
		s.t.Fatal(err)
	}
}

// start runs sshd with a fresh host key and waits until it accepts
// connections.
func (s *testSSHD) start() {
	t := s.t
	k, err := repocreds.NewKey("test-host")
	if err != nil {
		t.Fatal(err)
	}
	s.hostKey = k.Public
	hostKey := filepath.Join(s.dir, "host_key")
	os.Remove(hostKey)
	if err := os.WriteFile(hostKey, []byte(k.Private), 0o600); err != nil {
		t.Fatal(err)
	}
	config := strings.Join([]string{
		fmt.Sprintf("Port %d", s.port), "ListenAddress 127.0.0.1", "HostKey " + hostKey,
		"PidFile none", "AuthorizedKeysFile " + filepath.Join(s.dir, "authorized_keys"),
		"StrictModes yes", "PasswordAuthentication no", "KbdInteractiveAuthentication no", "UsePAM no",
		"PermitRootLogin prohibit-password", "AllowUsers " + s.user, "LogLevel VERBOSE",
	}, "\n") + "\n"
	cfgPath := filepath.Join(s.dir, "sshd_config")
	if err := os.WriteFile(cfgPath, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	s.cmd = exec.Command("/usr/sbin/sshd", "-D", "-e", "-f", cfgPath)
	s.cmd.Stdout, s.cmd.Stderr = s.logs, s.logs
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", s.port))
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("sshd does not listen: %v\n%s", err, s.logs)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (s *testSSHD) stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Kill()
		s.cmd.Wait()
		s.cmd = nil
	}
}

// restart starts the server again with another host key, on the same port.
func (s *testSSHD) restart() {
	s.stop()
	s.start()
}

// bareRepo turns a file:// repository into a bare clone in dir and
// returns its path.
func bareRepo(t *testing.T, fileURL, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "docs.git")
	if out, err := exec.Command("git", "clone", "-q", "--bare", fileURL, path).CombinedOutput(); err != nil {
		t.Fatalf("git clone --bare: %v\n%s", err, out)
	}
	return path
}

// snoopingFiles is a repository whose build commands look for the
// project's credentials where a build could find them, print what they
// find, and make a page.
func snoopingFiles(dataDir, secret string) map[string]string {
	return map[string]string{
		".readthedocs.yaml": "version: 2\nbuild:\n  os: ubuntu-24.04\n  tools:\n    python: \"3\"\n  commands:\n" +
			"    - env | grep -i -e GIT_SSH -e GIT_CONFIG -e extraheader -e '" + secret + "' || echo env-clean\n" +
			"    - ls -A ~/.ssh 2>/dev/null | grep . || echo home-clean\n" +
			"    - (ls -AR " + dataDir + "/tmp 2>/dev/null | grep -e id_ed25519 -e known_hosts) || echo tmp-clean\n" +
			"    - (cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep -i -e GIT_SSH -e extraheader -e '" + secret + "') || echo proc-clean\n" +
			"    - mkdir -p $READTHEDOCS_OUTPUT/html && echo '<html><body>private docs</body></html>' > $READTHEDOCS_OUTPUT/html/index.html\n",
	}
}

// rest runs a v3 request as the server's user and returns its status and
// body.
func (s *e2eServer) rest(t *testing.T, method, path string, body any) (int, string) {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, s.url+path, r)
	req.Header.Set("Authorization", "Token "+s.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(out)
}

// auditLog lists the project's audit entries of action that the server's
// user reads through the API, oldest first, each as "<username or ->
// <auth_backend or -> <data>".
func (s *e2eServer) auditLog(t *testing.T, slug, action string) []string {
	t.Helper()
	code, body := s.rest(t, "GET", "/api/v3/audit-logs/?project="+slug+"&action="+action, nil)
	var page struct {
		Results []struct {
			User        *struct{ Username string }
			AuthBackend *string `json:"auth_backend"`
			Data        json.RawMessage
		}
	}
	if err := json.Unmarshal([]byte(body), &page); code != 200 || err != nil {
		t.Fatalf("audit-logs ?action=%s: %d %s", action, code, body)
	}
	lines := []string{}
	for _, e := range slices.Backward(page.Results) {
		user, backend := "-", "-"
		if e.User != nil {
			user = e.User.Username
		}
		if e.AuthBackend != nil {
			backend = *e.AuthBackend
		}
		var data bytes.Buffer
		json.Compact(&data, e.Data)
		lines = append(lines, user+" "+backend+" "+data.String())
	}
	return lines
}

// buildLatest triggers a build of latest and waits for it to finish,
// returning whether it succeeded, its error and error id, and its
// commands' output.
func (s *e2eServer) buildLatest(t *testing.T, slug string) (ok bool, errMsg, errID, output string) {
	t.Helper()
	if code, body := s.rest(t, "POST", "/api/v3/projects/"+slug+"/versions/latest/builds/", nil); code != 202 {
		t.Fatalf("trigger build: %d %s", code, body)
	}
	return s.waitLastBuild(t, slug)
}

// waitLastBuild waits for the project's last build of latest to finish.
func (s *e2eServer) waitLastBuild(t *testing.T, slug string) (ok bool, errMsg, errID, output string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Minute)
	for {
		var data struct {
			Project struct {
				Version struct {
					LastBuild struct {
						State    struct{ Code string }
						Success  *bool
						Error    *string
						ErrorID  *string `json:"errorId"`
						Commands []struct{ Command, Output string }
					}
				}
			}
		}
		s.graphql(t, `query($p: String!) { project(slug: $p) { version(slug: "latest") {
			lastBuild { state { code } success error errorId commands { command output } } } } }`, map[string]any{"p": slug}, &data)
		b := data.Project.Version.LastBuild
		if b.State.Code == "finished" {
			var out strings.Builder
			for _, c := range b.Commands {
				fmt.Fprintf(&out, "$ %s\n%s\n", c.Command, c.Output)
			}
			return b.Success != nil && *b.Success, deref(b.Error), deref(b.ErrorID), out.String()
		}
		if time.Now().After(deadline) {
			t.Fatalf("build of %s/latest still %s after 5 minutes", slug, b.State.Code)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// repoAccessServe starts `docsd serve` with extra flags on data, its
// database of dialect d, and returns it with user alice's API key.
func repoAccessServe(t *testing.T, d store.Dialect, data string, extra ...string) *e2eServer {
	t.Helper()
	if d == store.SQLite {
		token := createUser(t, data, "alice")
		srv := startServe(t, data, extra...)
		srv.token = token
		return srv
	}
	db := []string{"--database-url", storetest.DatabaseURL(t, store.Postgres)}
	mustDocsd(t, append([]string{"migrate"}, db...)...)
	out := mustDocsd(t, append([]string{"user", "create", "alice", "--data-dir", data}, db...)...)
	srv := startServe(t, data, append(db, extra...)...)
	srv.token = strings.TrimSpace(out)
	return srv
}

// mustDocsd runs docsd with args, fails the test unless it exits 0, and
// returns its output.
func mustDocsd(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errOut := docsd(t, args...)
	if code != 0 {
		t.Fatalf("docsd %v: exit %d: %s", args, code, errOut)
	}
	return out
}

// TestSSHDeployKeyEndToEnd: a project whose repository only sshd serves,
// to the project's deploy key, builds; the key is refused twice (no second
// key without rotate), the host key is learned on first use and then
// pinned; a wrong key and a changed host key fail with their messages;
// build commands find neither the key nor git's variables.
func TestSSHDeployKeyEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs sshd and builds")
	}
	storetest.Dialects(t, testSSHDeployKey)
}

func testSSHDeployKey(t *testing.T, d store.Dialect) {
	sshd := startSSHD(t)
	data := t.TempDir()
	srv := repoAccessServe(t, d, data, "--secret-key", "repository access test key", "--allow-private-repos",
		"--allow-private-network", "--build-network", "host")
	repo := bareRepo(t, gitRepo(t, snoopingFiles(data, "OPENSSH PRIVATE")), sshd.dir)
	srv.importProject(t, "Private SSH", sshd.url(repo), "en")
	const slug = "private-ssh"
	// The import's own build has no key yet: it fails.
	if ok, _, _, _ := srv.waitLastBuild(t, slug); ok {
		t.Fatal("a build without the deploy key succeeded")
	}

	code, body := srv.rest(t, "POST", "/api/v3/projects/"+slug+"/ssh-key/", map[string]any{})
	if code != 201 {
		t.Fatalf("POST ssh-key: %d %s", code, body)
	}
	var key struct {
		PublicKey   string `json:"public_key"`
		Fingerprint string
		KnownHosts  []map[string]any  `json:"known_hosts"`
		Links       map[string]string `json:"_links"`
	}
	json.Unmarshal([]byte(body), &key)
	if !strings.HasPrefix(key.PublicKey, "ssh-ed25519 ") || !strings.HasSuffix(key.PublicKey, " docsd-"+slug+"@127.0.0.1") ||
		!strings.HasPrefix(key.Fingerprint, "SHA256:") || len(key.KnownHosts) != 0 || key.Links["_self"] != "/api/v3/projects/"+slug+"/ssh-key/" {
		t.Errorf("created key: %s", body)
	}
	if code, body := srv.rest(t, "POST", "/api/v3/projects/"+slug+"/ssh-key/", map[string]any{}); code != 400 ||
		body != `{"non_field_errors":["This project already has an SSH key: send rotate to replace it."]}` {
		t.Errorf("second key: %d %s", code, body)
	}

	sshd.authorize(key.PublicKey)
	ok, errMsg, _, out := srv.buildLatest(t, slug)
	if !ok {
		t.Fatalf("build with the deploy key failed: %s\n%s\nsshd:\n%s\nserver:\n%s", errMsg, out, sshd.logs, srv.stderr)
	}
	for _, clean := range []string{"env-clean", "home-clean", "tmp-clean", "proc-clean"} {
		if !strings.Contains(out, "\n"+clean+"\n") {
			t.Errorf("a build command found the credentials (no %s):\n%s", clean, out)
		}
	}
	if strings.Contains(out, "IdentitiesOnly") || strings.Contains(out, repocreds.DirPrefix) {
		t.Errorf("recorded commands show the ssh command:\n%s", out)
	}
	if entries, _ := os.ReadDir(filepath.Join(data, "tmp")); len(entries) != 0 {
		t.Errorf("key directories left after the build: %v", entries)
	}
	_, body = srv.rest(t, "GET", "/api/v3/projects/"+slug+"/ssh-key/", nil)
	json.Unmarshal([]byte(body), &key)
	wantHost := fmt.Sprintf("[127.0.0.1]:%d", sshd.port)
	if len(key.KnownHosts) != 1 || key.KnownHosts[0]["host"] != wantHost || key.KnownHosts[0]["learned"] != true ||
		key.KnownHosts[0]["key_type"] != "ssh-ed25519" {
		t.Errorf("known hosts after the first build: %s", body)
	}
	// The learned host is in the audit log, as done by nobody.
	learnedEntry := `- - {"hosts":["` + wantHost + `"],"learned":true}`
	if got := srv.auditLog(t, slug, "known-hosts-changed"); !slices.Equal(got, []string{learnedEntry}) {
		t.Errorf("known-hosts-changed after the first build: %q, want %q", got, learnedEntry)
	}

	// The pinned key is used: a second build passes without learning more.
	if ok, errMsg, _, out := srv.buildLatest(t, slug); !ok {
		t.Fatalf("second build failed: %s\n%s", errMsg, out)
	}
	if got := srv.auditLog(t, slug, "known-hosts-changed"); len(got) != 1 {
		t.Errorf("known-hosts-changed after the second build: %q", got)
	}

	// The server's host key changes: refused with the pinned-key message.
	sshd.restart()
	ok, errMsg, errID, out := srv.buildLatest(t, slug)
	wantMsg := "The SSH host key of " + wantHost + " does not match the one docsd pinned for this project. If the server's key really changed, update the project's known hosts."
	if ok || errMsg != wantMsg || errID != "project:repository:private-clone-error" {
		t.Errorf("changed host key: ok %v, %q (%s)\n%s", ok, errMsg, errID, out)
	}
	// The maintainer sets the new key as the known host: builds again.
	hostLine := wantHost + " " + strings.Join(strings.Fields(sshd.hostKey)[:2], " ")
	var set struct {
		SetSshKnownHosts struct {
			Project struct {
				SSHKnownHosts []struct {
					Host    string
					Learned bool
				} `json:"sshKnownHosts"`
			}
			Errors []any
		}
	}
	srv.graphql(t, `mutation($in: SetSshKnownHostsInput!) { setSshKnownHosts(input: $in) { project { sshKnownHosts { host learned } } errors { message } } }`,
		map[string]any{"in": map[string]any{"slug": slug, "knownHosts": "# rotated\n" + hostLine + "\n"}}, &set)
	if hs := set.SetSshKnownHosts.Project.SSHKnownHosts; len(hs) != 1 || hs[0].Host != wantHost || hs[0].Learned {
		t.Errorf("set known hosts: %+v", set)
	}
	if ok, errMsg, _, out := srv.buildLatest(t, slug); !ok {
		t.Fatalf("build after setting the new host key failed: %s\n%s", errMsg, out)
	}

	// A rotated key the server does not know: the private-clone failure.
	code, body = srv.rest(t, "POST", "/api/v3/projects/"+slug+"/ssh-key/", map[string]any{"rotate": true})
	if code != 201 {
		t.Fatalf("rotate: %d %s", code, body)
	}
	var rotated struct{ Fingerprint string }
	json.Unmarshal([]byte(body), &rotated)
	ok, errMsg, errID, out = srv.buildLatest(t, slug)
	if ok || errMsg != "There was a problem connecting to your repository, ensure that your repository URL is correct." ||
		errID != "project:repository:private-clone-error" {
		t.Errorf("wrong key: ok %v, %q (%s)\n%s", ok, errMsg, errID, out)
	}

	// Nothing docsd wrote holds the private key in clear.
	if hits := grepTree(t, data, "OPENSSH PRIVATE KEY"); len(hits) > 0 {
		t.Errorf("the private key is in clear in %v", hits)
	}
	if code, _ := srv.rest(t, "DELETE", "/api/v3/projects/"+slug+"/ssh-key/", nil); code != 204 {
		t.Errorf("DELETE ssh-key: %d", code)
	}
	if code, _ := srv.rest(t, "GET", "/api/v3/projects/"+slug+"/ssh-key/", nil); code != 404 {
		t.Errorf("GET a deleted key: %d", code)
	}

	// The audit log: each key made and deleted with its fingerprint; the
	// host learned by nobody, then set by the maintainer.
	fingerprint := func(f string) string { return `alice token {"fingerprint":"` + f + `"}` }
	for action, want := range map[string][]string{
		"ssh-key-created":     {fingerprint(key.Fingerprint), fingerprint(rotated.Fingerprint)},
		"ssh-key-deleted":     {fingerprint(rotated.Fingerprint)},
		"known-hosts-changed": {learnedEntry, `alice token {"hosts":["` + wantHost + `"],"learned":false}`},
	} {
		if got := srv.auditLog(t, slug, action); !slices.Equal(got, want) {
			t.Errorf("%s entries:\n got %q\nwant %q", action, got, want)
		}
	}
}

// admin runs an admin command of docsd on the server's data directory and
// database, fails the test unless it succeeds, and returns its output.
func (s *e2eServer) admin(t *testing.T, args ...string) string {
	t.Helper()
	args = append(args, "--data-dir", s.dataDir)
	if i := slices.Index(s.flags, "--database-url"); i >= 0 {
		args = append(args, s.flags[i:i+2]...)
	}
	return mustDocsd(t, args...)
}

// TestSSHKeyThroughTeamsEndToEnd: the deploy key's route through `docsd
// serve`, for people whose rights on the private project come from the
// teams of its organization: bo, a reader through a team, may neither
// read, make nor delete the key (403); cy, an admin through a team, makes
// it and is recorded as its creator.
func TestSSHKeyThroughTeamsEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs docsd serve and a build")
	}
	storetest.Dialects(t, testSSHKeyThroughTeams)
}

func testSSHKeyThroughTeams(t *testing.T, d store.Dialect) {
	data := t.TempDir()
	srv := repoAccessServe(t, d, data, "--secret-key", "repository access test key", "--allow-private-repos")
	const slug = "handbook"
	srv.importProject(t, "Handbook", gitRepo(t, map[string]string{
		".readthedocs.yaml": "version: 2\nbuild:\n  os: ubuntu-24.04\n  tools:\n    python: \"3\"\n  commands:\n" +
			"    - mkdir -p $READTHEDOCS_OUTPUT/html && echo '<html><body>handbook</body></html>' > $READTHEDOCS_OUTPUT/html/index.html\n",
	}), "en")
	srv.waitLastBuild(t, slug)
	if code, body := srv.rest(t, "PATCH", "/api/v3/projects/"+slug+"/", map[string]any{"privacy_level": "private"}); code != 204 {
		t.Fatalf("making the project private: %d %s", code, body)
	}
	keys := map[string]string{}
	for _, name := range []string{"bo", "cy"} {
		keys[name] = strings.TrimSpace(srv.admin(t, "user", "create", name))
	}
	for _, args := range [][]string{
		{"organization", "create", "acme", "--name", "Acme", "--owner", "alice"},
		{"project", "organization", slug, "acme"},
		{"team", "member", "add", "acme", "read-only", "bo"},
		{"team", "project", "add", "acme", "read-only", slug},
		{"team", "member", "add", "acme", "admins", "cy"},
		{"team", "project", "add", "acme", "admins", slug},
	} {
		srv.admin(t, args...)
	}
	route := srv.url + "/api/v3/projects/" + slug + "/ssh-key/"
	// bo reads the private project through his team, and that is all.
	if code, body := send(t, "GET", srv.url+"/api/v3/projects/"+slug+"/", keys["bo"], ""); code != 200 {
		t.Fatalf("bo reads the project: %d %s", code, body)
	}
	forbidden := `{"detail":"You do not have permission to perform this action."}`
	for _, method := range []string{"GET", "POST", "DELETE"} {
		if code, body := send(t, method, route, keys["bo"], "{}"); code != 403 || body != forbidden {
			t.Errorf("%s ssh-key as bo: %d %s, want 403 %s", method, code, body, forbidden)
		}
	}

	code, body := send(t, "POST", route, keys["cy"], "{}")
	var key struct {
		PublicKey   string `json:"public_key"`
		Fingerprint string
	}
	json.Unmarshal([]byte(body), &key)
	if code != 201 || !strings.HasSuffix(key.PublicKey, " docsd-"+slug+"@127.0.0.1") || !strings.HasPrefix(key.Fingerprint, "SHA256:") {
		t.Fatalf("POST ssh-key as cy: %d %s", code, body)
	}
	if code, body := send(t, "GET", route, keys["cy"], ""); code != 200 || !strings.Contains(body, `"fingerprint":"`+key.Fingerprint+`"`) {
		t.Errorf("GET ssh-key as cy: %d %s", code, body)
	}
	if code, body := send(t, "GET", route, keys["bo"], ""); code != 403 {
		t.Errorf("GET ssh-key as bo once it exists: %d %s", code, body)
	}
	want := []string{`cy token {"fingerprint":"` + key.Fingerprint + `"}`}
	if got := srv.auditLog(t, slug, "ssh-key-created"); !slices.Equal(got, want) {
		t.Errorf("ssh-key-created entries: %q, want %q", got, want)
	}
}

// grepTree returns the files under dir that contain s.
func grepTree(t *testing.T, dir, s string) []string {
	t.Helper()
	var hits []string
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err == nil && bytes.Contains(b, []byte(s)) {
			hits = append(hits, path)
		}
		return nil
	})
	return hits
}

// gitHTTPServer is git's smart HTTP (`git http-backend`) over TLS behind
// Basic authentication: user and token are the only credentials it
// accepts. It keeps every Authorization header it was sent.
type gitHTTPServer struct {
	url    string // https://127.0.0.1:port
	caFile string // its certificate, PEM
	mu     sync.Mutex
	auths  []string
}

func startGitHTTP(t *testing.T, root, user, token string) *gitHTTPServer {
	t.Helper()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("NO GIT BINARY")
	}
	g := &gitHTTPServer{}
	backend := &cgi.Handler{Path: git, Args: []string{"http-backend"}, Dir: root,
		Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1"}}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		g.auths = append(g.auths, r.Header.Get("Authorization"))
		g.mu.Unlock()
		u, p, ok := r.BasicAuth()
		if !ok || u != user || p != token {
			w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
			http.Error(w, "authentication required", http.StatusUnauthorized)
			return
		}
		backend.ServeHTTP(w, r)
	}))
	srv.StartTLS()
	t.Cleanup(srv.Close)
	g.url = srv.URL
	g.caFile = filepath.Join(t.TempDir(), "ca.pem")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(g.caFile, pemBytes, 0o644); err != nil {
		t.Fatal(err)
	}
	return g
}

// TestHTTPSCredentialsEndToEnd: a project whose repository needs a token
// builds with its HTTPS credentials, which git sends as a header; a wrong
// token fails; the token is in no recorded command, build output, API
// answer, file of the data directory or log line.
func TestHTTPSCredentialsEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds")
	}
	storetest.Dialects(t, testHTTPSCredentials)
}

func testHTTPSCredentials(t *testing.T, d store.Dialect) {
	const user, token = "ci-bot", "glpat-Zx9secretTokenValue42"
	root := t.TempDir()
	data := t.TempDir()
	// The build commands look for the token's start: the repository
	// must not hold the token itself.
	bareRepo(t, gitRepo(t, snoopingFiles(data, token[:9])), root)
	git := startGitHTTP(t, root, user, token)

	// Without a secret key, credentials are refused.
	plain := startServe(t, t.TempDir())
	plain.token = createUser(t, plain.dataDir, "bob")
	plain.importProject(t, "Other", gitRepo(t, repoFiles("Other")), "en")
	var refused struct {
		SetRepositoryCredentials struct{ Errors []struct{ Message string } }
	}
	plain.graphql(t, `mutation { setRepositoryCredentials(input: {slug: "other", username: "u", password: "p"}) { errors { message } } }`, nil, &refused)
	if e := refused.SetRepositoryCredentials.Errors; len(e) != 1 || e[0].Message != "Repository credentials need a --secret-key on this server: they are never stored unencrypted." {
		t.Errorf("credentials without a secret key: %+v", refused)
	}

	srv := repoAccessServe(t, d, data, "--secret-key", "repository access test key", "--allow-private-network",
		"--build-network", "host", "--repository-ca-file", git.caFile)
	srv.importProject(t, "Private HTTPS", git.url+"/docs.git", "en")
	const slug = "private-https"
	if ok, _, _, _ := srv.waitLastBuild(t, slug); ok {
		t.Fatal("a build without credentials succeeded")
	}

	setCreds := func(password string) map[string]any {
		var out struct {
			SetRepositoryCredentials map[string]any
		}
		srv.graphql(t, `mutation($in: SetRepositoryCredentialsInput!) { setRepositoryCredentials(input: $in) {
			project { repositoryCredentials { username created modified } } errors { path message code } } }`,
			map[string]any{"in": map[string]any{"slug": slug, "username": user, "password": password}}, &out)
		return out.SetRepositoryCredentials
	}
	// Bad input: REST-shaped messages, nothing stored.
	for password, want := range map[string]string{"a\nb": "Enter a token without line breaks or control characters.", " ": "This field may not be blank."} {
		got := setCreds(password)
		if b, _ := json.Marshal(got["errors"]); !strings.Contains(string(b), want) || got["project"] != nil {
			t.Errorf("password %q: %v", password, got)
		}
	}
	var bad struct {
		SetRepositoryCredentials struct{ Errors []struct{ Message string } }
	}
	srv.graphql(t, `mutation { setRepositoryCredentials(input: {slug: "private-https", username: "a:b", password: "x"}) { errors { message } } }`, nil, &bad)
	if e := bad.SetRepositoryCredentials.Errors; len(e) != 1 || e[0].Message != `Enter a username without ":".` {
		t.Errorf("username with a colon: %+v", bad)
	}

	// A wrong token fails the clone.
	setCreds("wrong-token-value")
	if ok, errMsg, errID, out := srv.buildLatest(t, slug); ok || !strings.HasPrefix(errID, "project:repository:") {
		t.Errorf("wrong token: ok %v, %q (%s)\n%s", ok, errMsg, errID, out)
	}

	got := setCreds(token)
	if b, _ := json.Marshal(got); strings.Contains(string(b), token) || !strings.Contains(string(b), `"username":"`+user+`"`) {
		t.Errorf("set credentials answered %s", b)
	}
	ok, errMsg, _, out := srv.buildLatest(t, slug)
	if !ok {
		t.Fatalf("build with the token failed: %s\n%s\nserver:\n%s", errMsg, out, srv.stderr)
	}
	for _, clean := range []string{"env-clean", "proc-clean"} {
		if !strings.Contains(out, "\n"+clean+"\n") {
			t.Errorf("a build command found the credentials (no %s):\n%s", clean, out)
		}
	}
	git.mu.Lock()
	sent := slices.Contains(git.auths, "Basic "+repocreds.BasicAuth(user, token))
	git.mu.Unlock()
	if !sent {
		t.Error("git never sent the credentials as a Basic Authorization header")
	}

	// The token is nowhere: API answers, recorded commands and their
	// output, files of the data directory (database included), the log.
	var read map[string]any
	srv.graphql(t, `query($p: String!) { project(slug: $p) { repositoryCredentials { username created modified } builds(first: 10) { nodes { commands { command output } } } } }`,
		map[string]any{"p": slug}, &read)
	basic := repocreds.BasicAuth(user, token)
	for _, secret := range []string{token, basic} {
		if b, _ := json.Marshal(read); strings.Contains(string(b), secret) {
			t.Errorf("the API shows %q", secret)
		}
		if strings.Contains(out, secret) {
			t.Errorf("build output shows %q", secret)
		}
		if hits := grepTree(t, data, secret); len(hits) > 0 {
			t.Errorf("%q is in %v", secret, hits)
		}
		if strings.Contains(srv.stderr.String(), secret) {
			t.Errorf("the log shows %q", secret)
		}
	}
	if !strings.Contains(out, "git clone") || strings.Contains(out, "extraHeader") {
		t.Errorf("recorded commands:\n%s", out)
	}

	// The audit log names the username of each change, never a token;
	// refused inputs left no entry.
	srv.graphql(t, `mutation { deleteRepositoryCredentials(input: {slug: "private-https"}) { project { slug } errors { message } } }`, nil, nil)
	changed := `alice token {"deleted":false,"username":"` + user + `"}`
	want := []string{changed, changed, `alice token {"deleted":true,"username":"` + user + `"}`}
	entries := srv.auditLog(t, slug, "repository-credentials-changed")
	if !slices.Equal(entries, want) {
		t.Errorf("repository-credentials-changed entries:\n got %q\nwant %q", entries, want)
	}
	for _, secret := range []string{token, "wrong-token-value", basic} {
		if strings.Contains(strings.Join(entries, "\n"), secret) {
			t.Errorf("the audit log shows %q", secret)
		}
	}
}
