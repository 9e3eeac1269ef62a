package builder

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"docsd/graph"
	"docsd/internal/storetest"
	"docsd/store"
)

// simpleIndex is a PEP 503 ("simple") package index of pure-Python
// wheels, under one or more roots, that answers only requests carrying
// its credentials (HTTP basic), as a private mirror does.
type simpleIndex struct {
	user, pass string
	files      map[string][]byte // path → body

	mu   sync.Mutex
	seen []string // paths requested with the credentials
}

func newSimpleIndex(user, pass string) *simpleIndex {
	return &simpleIndex{user: user, pass: pass, files: map[string][]byte{}}
}

// add publishes a wheel of project name (version 1.0) under root (like
// "/simple/"): its module, the name with underscores, holds MARK = mark.
func (x *simpleIndex) add(root, name, mark string) {
	module := strings.ReplaceAll(name, "-", "_")
	dist := module + "-1.0"
	wheel := dist + "-py3-none-any.whl"
	files := [][2]string{
		{module + "/__init__.py", "MARK = " + pyQuote(mark) + "\n"},
		{dist + ".dist-info/METADATA", "Metadata-Version: 2.1\nName: " + name + "\nVersion: 1.0\n"},
		{dist + ".dist-info/WHEEL", "Wheel-Version: 1.0\nGenerator: docsd-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"},
	}
	var record strings.Builder
	for _, f := range files {
		sum := sha256.Sum256([]byte(f[1]))
		fmt.Fprintf(&record, "%s,sha256=%s,%d\n", f[0], base64.RawURLEncoding.EncodeToString(sum[:]), len(f[1]))
	}
	record.WriteString(dist + ".dist-info/RECORD,,\n")
	files = append(files, [2]string{dist + ".dist-info/RECORD", record.String()})
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		w, err := zw.Create(f[0])
		if err == nil {
			_, err = w.Write([]byte(f[1]))
		}
		if err != nil {
			panic(err)
		}
	}
	if err := zw.Close(); err != nil {
		panic(err)
	}
	x.files[root+"files/"+wheel] = buf.Bytes()
	x.files[root+name+"/"] = []byte(`<!DOCTYPE html><html><body><a href="` + root + "files/" + wheel + `">` + wheel + "</a></body></html>\n")
	x.files[root] = append(x.files[root], []byte(`<a href="`+name+`/">`+name+"</a>\n")...)
}

func (x *simpleIndex) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if u, p, ok := r.BasicAuth(); !ok || u != x.user || p != x.pass {
		w.Header().Set("WWW-Authenticate", `Basic realm="mirror"`)
		http.Error(w, "credentials, please", http.StatusUnauthorized)
		return
	}
	x.mu.Lock()
	x.seen = append(x.seen, r.URL.Path)
	x.mu.Unlock()
	body, ok := x.files[r.URL.Path]
	if !ok {
		http.NotFound(w, r)
		return
	}
	if strings.HasSuffix(r.URL.Path, "/") {
		w.Header().Set("Content-Type", "text/html")
	}
	w.Write(body)
}

// requested reports whether path was requested with the credentials.
func (x *simpleIndex) requested(path string) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return slices.Contains(x.seen, path)
}

// serveIndex serves x where builds reach it and returns its address and
// the build network to use. Builds' own network namespace reaches neither
// this host's loopback nor its own addresses, so, as root with pasta, the
// index listens in a network namespace of its own behind a veth pair on
// within (a benchmarking, RFC 2544, subnet stands for a mirror on another
// machine); elsewhere it listens on the loopback and builds get the
// host's network.
func serveIndex(t *testing.T, x *simpleIndex, within netip.Prefix) (addr, network string) {
	t.Helper()
	var ln net.Listener
	network = NetworkPasta
	_, perr := exec.LookPath("pasta")
	if os.Geteuid() == 0 && perr == nil {
		var err error
		if ln, err = vethListen(t, within); err != nil {
			t.Logf("no index behind a veth pair (%v): builds use the host's network", err)
		}
	}
	if ln == nil {
		var err error
		if ln, err = net.Listen("tcp4", "127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
		network = NetworkHost
	}
	srv := &http.Server{Handler: x}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String(), network
}

// mirrorConfig is a fixture configuration whose builds install from the
// index at addr (root /simple/, extra root /extra/simple/) with the
// credentials docsd:secret.
func mirrorConfig(addr, network, secret string) Config {
	base := "http://docsd:" + secret + "@" + addr
	host, _, _ := net.SplitHostPort(addr)
	return Config{BuildPython: "/usr/bin/python3", Network: network,
		PackageIndexURL: base + "/simple/", PackageExtraIndexURLs: []string{base + "/extra/simple/"}, PackageTrustedHosts: []string{host}}
}

// mkdocsProject is a current-file MkDocs project with build keys buildExtra
// (indented), further top-level configuration extra, and files.
func mkdocsProject(t *testing.T, f *fixture, name, buildExtra, extra string, files map[string]string) *store.ImportResult {
	t.Helper()
	r := newRepo(t, "main")
	r.commit("docs", withFiles(map[string]string{
		".readthedocs.yaml": "version: 2\nbuild:\n  os: ubuntu-24.04\n  tools:\n    python: \"3\"\n" + buildExtra + "mkdocs:\n  configuration: mkdocs.yml\n" + extra,
		"mkdocs.yml":        "site_name: " + name + "\n", "docs/index.md": "# " + name + "\n",
	}, files))
	return f.importProject(name, r)
}

// commandsProject is a current-file project whose build is its build.commands
// (then one that publishes a page), with extra build keys.
func commandsProject(t *testing.T, f *fixture, name, buildExtra string, commands ...string) *store.ImportResult {
	t.Helper()
	commands = append(commands, `mkdir -p $READTHEDOCS_OUTPUT/html && echo ok > $READTHEDOCS_OUTPUT/html/index.html`)
	var cfg strings.Builder
	cfg.WriteString("version: 2\nbuild:\n  os: ubuntu-24.04\n" + buildExtra + "  commands:\n")
	for _, c := range commands {
		cfg.WriteString("    - " + strconv.Quote(c) + "\n")
	}
	r := newRepo(t, "main")
	r.commit("docs", map[string]string{".readthedocs.yaml": cfg.String()})
	return f.importProject(name, r)
}

// commandOutput is the output of the build's command that is c.
func commandOutput(t *testing.T, f *fixture, b *store.Build, c string) string {
	t.Helper()
	for _, cmd := range f.commands(b.ID) {
		if cmd.Command == c {
			return cmd.Output
		}
	}
	t.Errorf("build %d has no command %q: %q", b.ID, c, commandLines(f.commands(b.ID)))
	return ""
}

// noSecret fails the test when a command or output of the build shows
// secret.
func noSecret(t *testing.T, f *fixture, b *store.Build, secret string) {
	t.Helper()
	for _, c := range f.commands(b.ID) {
		if strings.Contains(c.Command+c.Output, secret) {
			t.Errorf("command %q shows the index credentials:\n%s", c.Command, c.Output)
		}
	}
}

// TestPackageIndexSettings: with --package-index-url (a mirror that wants
// credentials), --package-extra-index-url and --package-trusted-host, the
// requirements of python.install come from the mirror and the extra
// index, a build command's own `pip install` uses them too, build commands
// see pip's and uv's variables, and the credentials never show in a log.
func TestPackageIndexSettings(t *testing.T) {
	toolsOrSkip(t, "mkdocs")
	const secret = "s3cret-mirror-token"
	x := newSimpleIndex("docsd", secret)
	x.add("/simple/", "docsd-probe", "from the mirror")
	x.add("/extra/simple/", "docsd-extra", "from the extra index")
	x.add("/simple/", "docsd-command", "installed by a build command")
	addr, network := serveIndex(t, x, netip.MustParsePrefix("198.18.0.0/15"))
	f := newFixture(t, store.SQLite, mirrorConfig(addr, network, secret))
	if network == NetworkPasta {
		isolationOrSkip(t, f)
	}
	const importBoth = `python -c "import docsd_probe, docsd_extra; print(docsd_probe.MARK + '/' + docsd_extra.MARK)"`
	reqs := mkdocsProject(t, f, "Mirrored", "  jobs:\n    post_install:\n      - "+strconv.Quote(importBoth)+"\n",
		"python:\n  install:\n    - requirements: docs/requirements.txt\n",
		map[string]string{"docs/requirements.txt": "docsd-probe==1.0\ndocsd-extra\n"})
	const show = `echo "pip=$PIP_INDEX_URL extra=$PIP_EXTRA_INDEX_URL trusted=$PIP_TRUSTED_HOST uv=$UV_DEFAULT_INDEX $UV_INDEX $UV_INSECURE_HOST"`
	const importCommand = `python -c "import docsd_command; print(docsd_command.MARK)"`
	cmds := commandsProject(t, f, "Commands", "  tools:\n    python: \"3\"\n",
		"pip install --no-cache-dir docsd-command", importCommand, show)
	f.drain()

	b := f.mustSucceed(reqs.Build)
	if out := commandOutput(t, f, b, importBoth); !strings.Contains(out, "from the mirror/from the extra index") {
		t.Errorf("post_install did not import the mirror's packages:\n%s", out)
	}
	noSecret(t, f, b, secret)
	c := f.mustSucceed(cmds.Build)
	if out := commandOutput(t, f, c, importCommand); !strings.Contains(out, "installed by a build command") {
		t.Errorf("the build command's pip install did not use the mirror:\n%s", out)
	}
	host, _, _ := net.SplitHostPort(addr)
	masked := "http://docsd:***@" + addr
	want := fmt.Sprintf("pip=%s/simple/ extra=%s/extra/simple/ trusted=%s uv=%s/simple/ %s/extra/simple/ %s\n", masked, masked, host, masked, masked, host)
	if out := commandOutput(t, f, c, show); out != want {
		t.Errorf("build commands see\n%q\nwant\n%q", out, want)
	}
	noSecret(t, f, c, secret)
	for _, p := range []string{"/simple/docsd-probe/", "/extra/simple/docsd-extra/", "/simple/docsd-command/"} {
		if !x.requested(p) {
			t.Errorf("the index never served %s", p)
		}
	}
}

// TestPackageIndexUnreachableFromBuilds: an index this machine reaches
// but builds don't (a private network, without --allow-private-network)
// fails the build with pip's own error and the index notification.
func TestPackageIndexUnreachableFromBuilds(t *testing.T) {
	toolsOrSkip(t, "mkdocs")
	x := newSimpleIndex("docsd", "secret")
	x.add("/simple/", "docsd-probe", "unreachable")
	addr, network := serveIndex(t, x, netip.MustParsePrefix("100.64.0.0/10"))
	if network != NetworkPasta {
		t.Skip("builder: NO PRIVATE NETWORK BEHIND A VETH PAIR HERE (root and pasta needed), this test is not run")
	}
	f := newFixture(t, store.SQLite, mirrorConfig(addr, network, "secret"))
	isolationOrSkip(t, f)
	imp := mkdocsProject(t, f, "Private", "", "python:\n  install:\n    - requirements: requirements.txt\n",
		map[string]string{"requirements.txt": "docsd-probe==1.0\n"})
	f.drain()
	if !f.pool.indexReachable(t.Context()) {
		t.Fatalf("this machine does not reach the index at %s", addr)
	}
	checkIndexFailure(t, f, imp.Build, "http://docsd:***@"+addr+"/simple/", "after connection broken by")
	if x.requested("/simple/docsd-probe/") {
		t.Errorf("the build reached the index on a private network")
	}
}

// checkIndexFailure checks a build that failed because pip could not
// reach the index (shown as index): its error and notification, and
// pip's own error, holding mark, in its log.
func checkIndexFailure(t *testing.T, f *fixture, b *store.Build, index, mark string) {
	t.Helper()
	b = f.build(b.ID)
	if b.Success || b.ErrorID != IDPackageIndexUnreachable {
		t.Fatalf("build: success %v error %q (%s), want the package index failure", b.Success, b.Error, b.ErrorID)
	}
	for _, want := range []string{`Command "`, " -m pip install ", "the package index " + index + " is not reachable from this build", "--package-index-url", "--offline-builds"} {
		if !strings.Contains(b.Error, want) {
			t.Errorf("build error %q lacks %q", b.Error, want)
		}
	}
	if h := graph.NotificationHeader(b.ErrorID); h != "The package index is not reachable" {
		t.Errorf("notification header %q", h)
	}
	cmds := f.commands(b.ID)
	last := cmds[len(cmds)-1]
	if !strings.Contains(last.Command, " -m pip install ") || deref(last.ExitCode) == 0 ||
		!strings.Contains(last.Output, "ERROR: ") || !strings.Contains(last.Output, "docsd-probe") || !strings.Contains(last.Output, mark) {
		t.Errorf("the last command is not pip's failure with %q: %q (exit %v)\n%s", mark, last.Command, deref(last.ExitCode), last.Output)
	}
}

// TestBuildsThatCannotInstall: a build whose requirements can't be
// installed (the index does not answer), or whose build.apt_packages this
// machine lacks, fails, with pip's error in its log and a notification
// that says why; --offline-builds lets it go on, each skipped step naming
// the setting. The failures, which are stored, on both databases; the
// older rules' install step and the rest on one.
func TestBuildsThatCannotInstall(t *testing.T) {
	toolsOrSkip(t, "mkdocs")
	hasDpkg := exec.Command("dpkg-query", "-W", "dpkg").Run() == nil
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		for _, offline := range []bool{false, true} {
			full := d == store.SQLite && !offline
			if offline && d != store.SQLite {
				continue
			}
			t.Run(fmt.Sprintf("offline=%v", offline), func(t *testing.T) {
				// The fixture's index, 127.0.0.1:1, refuses at once.
				f := newFixture(t, d, Config{BuildPython: "/usr/bin/python3", OfflineBuilds: offline})
				reqs := mkdocsProject(t, f, "Requirements", "", "python:\n  install:\n    - requirements: docs/requirements.txt\n",
					map[string]string{"docs/requirements.txt": "docsd-probe==1.0\n"})
				apt := commandsProject(t, f, "Apt", "  apt_packages: [dpkg, docsd-absent-package]\n")
				var older, present *store.ImportResult
				if full {
					r := newRepo(t, "main")
					r.commit("docs", map[string]string{"mkdocs.yml": "site_name: Older\n", "docs/index.md": "# Older\n", "requirements.txt": "docsd-probe==1.0\n",
						".readthedocs.yaml": "version: 2\nmkdocs:\n  configuration: mkdocs.yml\npython:\n  install:\n    - requirements: requirements.txt\n"})
					older = f.importProject("Older", r)
					if hasDpkg {
						present = commandsProject(t, f, "Apt Present", "  apt_packages: [dpkg]\n")
					}
				}
				f.drain()

				if !offline {
					checkIndexFailure(t, f, reqs.Build, "http://127.0.0.1:1/simple/", "Connection refused")
					if older != nil {
						checkIndexFailure(t, f, older.Build, "http://127.0.0.1:1/simple/", "Connection refused")
					}
					b := f.build(apt.Build.ID)
					if b.Success || b.ErrorID != IDAptPackagesUnavailable || !strings.Contains(b.Error, "lacks docsd-absent-package.") ||
						!strings.Contains(b.Error, "--offline-builds") || graph.NotificationHeader(b.ErrorID) != "System packages are not available" {
						t.Errorf("apt build: success %v error %q (%s)", b.Success, b.Error, b.ErrorID)
					}
					note := commandOutput(t, f, b, "apt-get install dpkg docsd-absent-package (not installed)")
					if !strings.Contains(note, "lacks docsd-absent-package") || (hasDpkg && !strings.Contains(note, "(it has dpkg)")) {
						t.Errorf("apt note %q", note)
					}
				} else {
					for _, imp := range []*store.ImportResult{reqs, apt} {
						b := f.mustSucceed(imp.Build)
						skipped := 0
						for _, c := range f.commands(b.ID) {
							if strings.Contains(c.Command, "skipped") {
								skipped++
								if !strings.HasSuffix(c.Command, offlineSkipped) || !strings.Contains(c.Output, "--offline-builds") {
									t.Errorf("skipped step %q does not name --offline-builds:\n%s", c.Command, c.Output)
								}
							}
						}
						if skipped != 1 {
							t.Errorf("%d skipped steps in %q, want 1", skipped, commandLines(f.commands(b.ID)))
						}
					}
					if out := commandOutput(t, f, f.build(apt.Build.ID), "apt-get install dpkg docsd-absent-package"+offlineSkipped); !strings.Contains(out, "docsd-absent-package") {
						t.Errorf("apt note %q", out)
					}
				}
				if present != nil {
					b := f.mustSucceed(present.Build)
					if out := commandOutput(t, f, b, "apt-get install dpkg (installed already)"); !strings.Contains(out, "has them already: dpkg.") {
						t.Errorf("apt note %q", out)
					}
				}
			})
		}
	})
}
