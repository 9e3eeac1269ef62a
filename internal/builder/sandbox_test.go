package builder

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"docsd/store"
)

// bwrapOrSkip skips a test that needs bubblewrap when the machine lacks
// it, loudly, and fails it in CI, where it must be installed.
func bwrapOrSkip(t testing.TB) {
	t.Helper()
	path, err := exec.LookPath("bwrap")
	if err == nil {
		err = exec.Command(path, "--ro-bind", "/", "/", "true").Run()
	}
	if err != nil {
		msg := "builder: BUBBLEWRAP (bwrap) CAN'T RUN (" + err.Error() + "), the build sandbox is not tested (apt-get install bubblewrap)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
}

// probePy is Python that tries to reach what a build must not: a file in
// docsd's data directory (the database), another project's checkout,
// docsd's own environment through /proc, and a TCP port on 127.0.0.1.
// It prints one line per attempt: "<what>: blocked (<reason>)" or
// "<what>: REACHED <what it got>".
func probePy(data string, port int) string {
	return `import os, socket
def attempt(what, f):
    try:
        print(what + ": REACHED " + repr(f()), flush=True)
    except Exception as e:
        print(what + ": blocked (" + type(e).__name__ + ")", flush=True)
def read(path):
    with open(path, 'rb') as fh:
        return fh.read()
def must(ok, value):
    if not ok:
        raise LookupError()
    return value
attempt("database", lambda: read(` + pyQuote(filepath.Join(data, "docsd.db")) + `))
attempt("database via HOME", lambda: read(os.path.join(os.environ['HOME'], '..', '..', 'docsd.db')))
attempt("other checkout", lambda: read(` + pyQuote(filepath.Join(data, "checkouts", "other", "secret.txt")) + `))
attempt("other projects", lambda: must('other' in os.listdir(` + pyQuote(filepath.Join(data, "checkouts")) + `), os.listdir(` + pyQuote(filepath.Join(data, "checkouts")) + `)))
attempt("docsd environ", lambda: read('/proc/` + fmt.Sprint(os.Getpid()) + `/environ'))
attempt("pid 1 environ", lambda: must(b'DOCSD_TEST_SENTINEL' in read('/proc/1/environ'), 'docsd'))
attempt("processes", lambda: must(len([p for p in os.listdir('/proc') if p.isdigit()]) > 20, os.listdir('/proc')))
attempt("root's files", lambda: read('/etc/shadow'))
attempt("tcp 127.0.0.1", lambda: socket.create_connection(('127.0.0.1', ` + fmt.Sprint(port) + `), timeout=3).close())
`
}

// secretFixture puts a sentinel where a build must not see it: in a
// database file in the data directory, in another project's checkout and
// in the environment of the test process. It returns the sentinel.
func secretFixture(t *testing.T, f *fixture) string {
	t.Helper()
	sentinel := "sentinel-" + randomHex(12)
	other := filepath.Join(f.data, "checkouts", "other")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(f.data, "docsd.db"), filepath.Join(other, "secret.txt")} {
		if err := os.WriteFile(p, []byte(sentinel), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("DOCSD_TEST_SENTINEL", sentinel)
	return sentinel
}

// listener accepts TCP connections on 127.0.0.1 and counts them.
func listener(t *testing.T) (port int, accepted *atomic.Int32) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	accepted = &atomic.Int32{}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	return l.Addr().(*net.TCPAddr).Port, accepted
}

// assertHidden checks a build's commands and error for the sentinel and
// the probe's lines in the output of the command whose line ends with
// suffix.
func assertHidden(t *testing.T, f *fixture, b *store.Build, sentinel, suffix string, wantBlocked []string) {
	t.Helper()
	b = f.build(b.ID)
	if strings.Contains(b.Error, sentinel) {
		t.Errorf("build error shows the sentinel: %q", b.Error)
	}
	var out string
	for _, c := range f.commands(b.ID) {
		if strings.Contains(c.Output, sentinel) || strings.Contains(c.Command, sentinel) {
			t.Errorf("command %q shows the sentinel:\n%s", c.Command, c.Output)
		}
		if strings.HasSuffix(c.Command, suffix) {
			out = c.Output
		}
	}
	for _, what := range wantBlocked {
		if !strings.Contains(out, what+": blocked") {
			t.Errorf("%s was not blocked; output of %q:\n%s", what, suffix, out)
		}
	}
}

// rootsFiles is the probe that must be blocked when docsd runs as root
// and the sandbox switches commands to nobody: reading /etc/shadow.
func rootsFiles(t *testing.T, f *fixture) []string {
	t.Helper()
	if os.Geteuid() != 0 {
		return nil
	}
	if f.pool.sandbox().setpriv == "" {
		t.Log("builder: THE SANDBOX CAN'T SWITCH TO NOBODY here; build commands run as root without capabilities")
		return nil
	}
	return []string{"root's files"}
}

// TestSandboxHidesDocsdFromConfPy: the building step runs conf.py with
// none of docsd's data, none of its processes and no network.
func TestSandboxHidesDocsdFromConfPy(t *testing.T) {
	bwrapOrSkip(t)
	toolsOrSkip(t, "sphinx")
	f := newFixture(t, store.SQLite, Config{})
	sentinel := secretFixture(t, f)
	port, accepted := listener(t)
	r := newRepo(t, "master")
	r.commit("docs", map[string]string{
		"docs/conf.py":   probePy(f.data, port) + "project = 'Probe'\n",
		"docs/index.rst": "Probe\n=====\n",
	})
	imp := f.importProject("Probe", r)
	f.drain()
	b := f.mustSucceed(imp.Build)
	assertHidden(t, f, b, sentinel, "_build/html", append(rootsFiles(t, f),
		"database", "database via HOME", "other checkout", "other projects", "docsd environ", "pid 1 environ", "processes", "tcp 127.0.0.1",
	))
	if n := accepted.Load(); n != 0 {
		t.Errorf("the build connected %d times to 127.0.0.1", n)
	}
}

// TestSandboxHidesDocsdFromInstall: setup.py in the installing step keeps
// the network (pip needs the package index) but sees none of docsd's
// data or processes.
func TestSandboxHidesDocsdFromInstall(t *testing.T) {
	bwrapOrSkip(t)
	f := newFixture(t, store.SQLite, Config{})
	sentinel := secretFixture(t, f)
	port, _ := listener(t)
	r := newRepo(t, "master")
	files := map[string]string{".readthedocs.yaml": setuptoolsConfig, "setup.py": probePy(f.data, port)}
	for name, content := range markdownSite {
		files[name] = content
	}
	r.commit("docs", files)
	imp := f.importProject("Probe", r)
	f.drain()
	b := f.mustSucceed(imp.Build)
	assertHidden(t, f, b, sentinel, "setup.py install --force", append(rootsFiles(t, f),
		"database", "database via HOME", "other checkout", "other projects", "docsd environ", "pid 1 environ", "processes",
	))
}

// TestSandboxKillsDaemonAtTimeLimit: a grandchild that left the process
// group with setsid dies with its build at the time limit.
func TestSandboxKillsDaemonAtTimeLimit(t *testing.T) {
	bwrapOrSkip(t)
	f := newFixture(t, store.SQLite, Config{})
	imp, child := sleeperProject(t, f, true)
	timeLimitWhenSleeping(f, child)
	f.drain()
	b := f.build(imp.Build.ID)
	if b.Success || b.Error != MsgTimeout {
		t.Errorf("build: success %v error %q, want %q", b.Success, b.Error, MsgTimeout)
	}
	cmds := f.commands(b.ID)
	if last := cmds[len(cmds)-1]; last.ExitCode == nil || *last.ExitCode != -9 || !strings.Contains(last.Output, "sleeping") {
		t.Errorf("killed command %q: exit %v output %q; want exit -9 with its partial output", last.Command, deref(last.ExitCode), last.Output)
	}
	child.waitGone(t)
}

// fakeBwrap puts a bwrap that always fails first on PATH.
func fakeBwrap(t *testing.T) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bwrap"), []byte("#!/bin/sh\necho 'bwrap: no permission to create namespaces' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(filepath.ListSeparator)+os.Getenv("PATH"))
}

func TestSandboxModes(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("builder: NO GIT BINARY")
	}
	t.Run("RequiredButBroken", func(t *testing.T) {
		fakeBwrap(t)
		f := newFixture(t, store.SQLite, Config{Sandbox: SandboxBwrap})
		r := newRepo(t, "master")
		r.commit("docs", markdownSite)
		imp := f.importProject("Strict", r)
		f.drain()
		b := f.build(imp.Build.ID)
		if b.Success || b.Error != fmt.Sprintf(MsgInternalFormat, b.ID) {
			t.Errorf("build: success %v error %q, want the internal error", b.Success, b.Error)
		}
		if cmds := f.commands(b.ID); len(cmds) != 0 {
			t.Errorf("commands %q recorded; none ran", commandLines(cmds))
		}
	})
	t.Run("AutoFallsBack", func(t *testing.T) {
		// Network isolation needs the sandbox: only the host's network,
		// chosen, lets this build clone (TestNetworkFailsClosed).
		fakeBwrap(t)
		f := newFixture(t, store.SQLite, Config{Network: NetworkHost})
		r := newRepo(t, "master")
		r.commit("docs", markdownSite)
		imp := f.importProject("Lenient", r)
		f.drain()
		f.mustSucceed(imp.Build)
		if f.pool.sandbox() != nil {
			t.Errorf("a broken bwrap was used")
		}
	})
}

func TestSandboxArgv(t *testing.T) {
	s := &sandbox{bwrap: "/usr/bin/bwrap", hide: []string{"/root", "/run", "/srv/docsd"}, private: []string{"/srv/docsd"}}
	ckout, env := "/srv/docsd/builds/checkouts/p", "/srv/docsd/builds/envs/p/latest"
	spec := sandboxSpec{dir: ckout + "/docs", rw: []string{ckout, env}, ro: []string{"/srv/docsd/builds/checkouts/q"}}
	path, argv := s.wrap(env+"/bin/python", []string{env + "/bin/python", "-m", "sphinx"}, spec)
	if path != "/usr/bin/bwrap" || argv[0] != "bwrap" {
		t.Errorf("path %q argv[0] %q", path, argv[0])
	}
	line := strings.Join(argv, " ")
	for _, want := range []string{
		"--ro-bind / / --dev /dev --proc /proc --unshare-pid",
		"--die-with-parent", "--new-session", "--cap-drop ALL", "--unshare-net",
		"--tmpfs /root --tmpfs /run --tmpfs /srv/docsd --perms 1777 --tmpfs /tmp",
		"--perms 0755 --dir /srv/docsd/builds --perms 0755 --dir /srv/docsd/builds/checkouts --bind " + ckout + " " + ckout,
		"--perms 0755 --dir /srv/docsd/builds/envs/p --bind " + env + " " + env,
		"--chdir " + ckout + "/docs -- " + env + "/bin/python -m sphinx",
	} {
		if !strings.Contains(line, want) {
			t.Errorf("argv lacks %q:\n%s", want, line)
		}
	}
	if strings.Contains(line, "checkouts/q") {
		t.Errorf("another project's checkout is bound:\n%s", line)
	}
	spec.network = true
	if _, argv = s.wrap("/usr/bin/git", []string{"git", "fetch"}, spec); slices.Contains(argv, "--unshare-net") {
		t.Errorf("a command with network got --unshare-net: %q", argv)
	}

	// As root: setpriv switches to nobody, and the shell enters the
	// directory as nobody.
	s.setpriv = "/usr/bin/setpriv"
	_, argv = s.wrap("/usr/bin/git", []string{"git", "fetch", "origin"}, spec)
	line = strings.Join(argv, " ")
	for _, want := range []string{
		"--cap-drop ALL --hostname docsd-build --cap-add CAP_SETUID --cap-add CAP_SETGID",
		"--chdir / -- /usr/bin/setpriv --reuid 65534 --regid 65534 --clear-groups --inh-caps=-all -- /bin/sh -c",
	} {
		if !strings.Contains(line, want) {
			t.Errorf("argv lacks %q:\n%s", want, line)
		}
	}
	if tail := argv[len(argv)-5:]; !slices.Equal(tail, []string{"docsd-chdir", ckout + "/docs", "/usr/bin/git", "fetch", "origin"}) {
		t.Errorf("argv ends with %q", tail)
	}
}

// TestSymlinksOutOfTheCheckout: docsd reads and publishes files of the
// checkout outside the sandbox; a link committed to the repository that
// leads out of it is removed before docsd reads anything.
func TestSymlinksOutOfTheCheckout(t *testing.T) {
	f := newFixture(t, store.SQLite, Config{})
	sentinel := secretFixture(t, f)
	r := newRepo(t, "master")
	r.write(markdownSite)
	if err := os.Symlink(filepath.Join(f.data, "docsd.db"), filepath.Join(r.dir, ".readthedocs.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("index.md", filepath.Join(r.dir, "docs", "alias.md")); err != nil {
		t.Fatal(err)
	}
	r.commit("links", nil)
	imp := f.importProject("Links", r)
	f.drain()
	b := f.mustSucceed(imp.Build)
	assertHidden(t, f, b, sentinel, "", nil)
	ckout := filepath.Join(f.data, "checkouts", "links")
	if _, err := os.Lstat(filepath.Join(ckout, ".readthedocs.yaml")); err == nil {
		t.Errorf("the link out of the checkout is still there")
	}
	if target, err := os.Readlink(filepath.Join(ckout, "docs", "alias.md")); err != nil || target != "index.md" {
		t.Errorf("the link inside the checkout: %q, %v", target, err)
	}
}

// TestBuildCannotRedirectOutputs: conf.py replaces _build by a link to
// another project's checkout when Sphinx is done; docsd publishes none of
// it and deletes nothing there.
func TestBuildCannotRedirectOutputs(t *testing.T) {
	toolsOrSkip(t, "sphinx")
	f := newFixture(t, store.SQLite, Config{})
	sentinel := secretFixture(t, f)
	other := filepath.Join(f.data, "checkouts", "other")
	if err := os.MkdirAll(filepath.Join(other, "html"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "html", "index.html"), []byte(sentinel), 0o644); err != nil {
		t.Fatal(err)
	}
	r := newRepo(t, "master")
	r.commit("docs", map[string]string{
		".readthedocs.yaml": "version: 2\nsphinx:\n  configuration: docs/conf.py\n",
		"docs/conf.py": "import os, shutil\nproject = 'Redirect'\n" +
			"def redirect(app, exc):\n" +
			"    shutil.rmtree('_build')\n" +
			"    os.symlink(" + pyQuote(other) + ", '_build')\n" +
			"def setup(app):\n    app.connect('build-finished', redirect)\n",
		"docs/index.rst": "Redirect\n========\n",
	})
	imp := f.importProject("Redirect", r)
	f.drain()
	b := f.build(imp.Build.ID)
	assertHidden(t, f, b, sentinel, "", nil)
	if dir, err := f.arts.HTMLDir("redirect", "latest"); err == nil {
		filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if data, rerr := os.ReadFile(path); err == nil && rerr == nil && strings.Contains(string(data), sentinel) {
				t.Errorf("published %s holds the other project's page", path)
			}
			return nil
		})
	}
	if _, err := os.Stat(filepath.Join(other, "html", "index.html")); err != nil {
		t.Errorf("the other project's page: %v", err)
	}
}
