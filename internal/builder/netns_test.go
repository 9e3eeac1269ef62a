package builder

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"docsd/graph"
	"docsd/internal/repourl"
	"docsd/store"
)

// isolationOrSkip skips a test that needs network isolation where it
// can't be set up (no bwrap, passt, or user namespaces), loudly.
func isolationOrSkip(t *testing.T, f *fixture) {
	t.Helper()
	if f.pool.sandbox() == nil || f.pool.net == nil || f.pool.net.err != nil {
		var why any = "builds use the host's network"
		switch {
		case f.pool.net != nil && f.pool.net.err != nil:
			why = f.pool.net.err
		case f.pool.sandbox() == nil:
			why = "no sandbox"
		}
		msg := fmt.Sprintf("builder: NO BUILD NETWORK ISOLATION HERE, this test is not run: %v", why)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
}

// probeScript is a setup.py (which runs with network, as installing
// does) that connects over TCP to port on each of hosts and prints
// "<host> CONNECTED" or "<host> refused <errno>", then says for each of
// routed whether the namespace has a route to it ("<host> routed" or
// "<host> unroutable <errno>", by a UDP connect), then prints its
// /etc/resolv.conf.
func probeScript(hosts []string, port int, routed []string) string {
	return "import socket\n" +
		fmt.Sprintf("for host, port in %s:\n", pyPairs(hosts, port)) +
		"    s = socket.socket()\n" +
		"    s.settimeout(5)\n" +
		"    try:\n" +
		"        s.connect((host, port)); print(host, 'CONNECTED')\n" +
		"    except OSError as e:\n" +
		"        print(host, 'refused', e.errno)\n" +
		fmt.Sprintf("for host in %s:\n", pyList(routed)) +
		"    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n" +
		"    try:\n" +
		"        u.connect((host, 53)); print(host, 'routed')\n" +
		"    except OSError as e:\n" +
		"        print(host, 'unroutable', e.errno)\n" +
		"print(open('/etc/resolv.conf').read())\n"
}

// pyPairs writes (host, port) pairs as a Python list; a host "a:p" has
// its own port p.
func pyPairs(hosts []string, port int) string {
	q := make([]string, len(hosts))
	for i, h := range hosts {
		p := port
		if host, ps, err := net.SplitHostPort(h); err == nil {
			h = host
			fmt.Sscan(ps, &p)
		}
		q[i] = fmt.Sprintf("(%s, %d)", pyQuote(h), p)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// probeOutput builds a setuptools project whose setup.py is script and
// returns that command's output.
func probeOutput(t *testing.T, f *fixture, name, script string) string {
	t.Helper()
	imp, _ := setupPyProject(t, f, name, script)
	f.drain()
	f.mustSucceed(f.build(imp.Build.ID))
	for _, c := range f.commands(imp.Build.ID) {
		if strings.Contains(c.Command, "setup.py") {
			return c.Output
		}
	}
	t.Fatalf("no setup.py command in %q", commandLines(f.commands(imp.Build.ID)))
	return ""
}

// countingListener accepts TCP connections on addr and counts them.
type countingListener struct {
	net.Listener
	mu       sync.Mutex
	accepted int
}

func listenCounting(t *testing.T, network, addr string) *countingListener {
	t.Helper()
	ln, err := net.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	return serveCounting(t, ln)
}

// serveCounting counts the connections ln accepts until the test ends.
func serveCounting(t *testing.T, ln net.Listener) *countingListener {
	c := &countingListener{Listener: ln}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			c.mu.Lock()
			c.accepted++
			c.mu.Unlock()
			conn.Close()
		}
	}()
	return c
}

func (c *countingListener) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.accepted
}

func (c *countingListener) port() int { return c.Addr().(*net.TCPAddr).Port }

// interfaceAddrs are this machine's IPv4 addresses, loopback aside.
func interfaceAddrs(t *testing.T) []string {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, a := range addrs {
		if ipn, ok := a.(*net.IPNet); ok && ipn.IP.To4() != nil && !ipn.IP.IsLoopback() {
			out = append(out, ipn.IP.String())
		}
	}
	return out
}

// TestNetworkIsolation: a setup.py (which runs with network, as
// installing does) reaches neither this host's loopback nor its own
// addresses, where a server listens; link-local addresses (the cloud
// metadata one among them) are refused by route, private ranges too
// unless --allow-private-network, and DNS goes to pasta's forwarder.
func TestNetworkIsolation(t *testing.T) {
	for _, tc := range []struct {
		name         string
		allowPrivate bool
		want         []string
	}{
		{"Default", false, []string{"10.1.2.3 unroutable 13", "192.168.77.1 unroutable 13", "100.64.0.1 unroutable 13"}},
		{"AllowPrivateNetwork", true, []string{"10.1.2.3 routed", "192.168.77.1 routed", "100.64.0.1 routed"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, store.SQLite, Config{Network: NetworkPasta, AllowPrivateNetwork: tc.allowPrivate})
			isolationOrSkip(t, f)
			ln := listenCounting(t, "tcp4", "0.0.0.0:0")
			targets := append([]string{"127.0.0.1"}, interfaceAddrs(t)...)
			out := probeOutput(t, f, "Isolated", probeScript(targets, ln.port(),
				[]string{"10.1.2.3", "192.168.77.1", "100.64.0.1", "169.254.169.254", dnsForward}))
			if strings.Contains(out, "CONNECTED") || ln.count() != 0 {
				t.Fatalf("setup.py reached a server of this host (%d connections):\n%s", ln.count(), out)
			}
			for _, want := range append(tc.want, "127.0.0.1 refused 111", "169.254.169.254 unroutable 13",
				dnsForward+" routed", "nameserver "+dnsForward) {
				if !strings.Contains(out, want) {
					t.Errorf("setup.py output lacks %q:\n%s", want, out)
				}
			}
		})
	}
}

// TestNetworkFailsClosed: when isolation can't be set up, a build's
// first step that needs the network (the clone) fails with the message
// naming what is missing and the settings, nothing runs, and docsd warns
// when it starts; only --build-network=host gives the host's network.
func TestNetworkFailsClosed(t *testing.T) {
	bwrapOrSkip(t)
	noPasta := filepath.Join(t.TempDir(), "pasta")
	for _, tc := range []struct {
		name string
		cfg  Config
		want []string // in the build's error; none: the build succeeds
	}{
		{"AutoWithoutPasta", Config{Pasta: noPasta}, []string{noPasta, "install passt", "--build-pasta", "--build-network=host"}},
		{"PastaWithoutPasta", Config{Network: NetworkPasta, Pasta: noPasta}, []string{noPasta, "--build-pasta", "--build-network=host"}},
		{"AutoWithoutSandbox", Config{Sandbox: SandboxOff}, []string{"--build-sandbox=off", "--build-network=host"}},
		{"HostWithoutPasta", Config{Network: NetworkHost, Pasta: noPasta}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, store.SQLite, tc.cfg)
			log := &lockedBuffer{}
			f.pool = New(f.store, f.arts, f.pool.cfg, slog.New(slog.NewTextHandler(log, nil)))
			f.pool.sandbox()
			r := newRepo(t, "master")
			r.commit("docs", markdownSite)
			imp := f.importProject("Closed", r)
			f.drain()
			if tc.want == nil {
				f.mustSucceed(imp.Build)
				if !strings.Contains(log.String(), "WARNING: BUILDS USE THE HOST'S NETWORK") {
					t.Errorf("no warning about the host's network in the log:\n%s", log.String())
				}
				return
			}
			b := f.build(imp.Build.ID)
			if b.Success || b.ErrorID != IDNetworkUnavailable || !strings.HasPrefix(b.Error, "This build needs the network") {
				t.Fatalf("build: success %v error %q (%s), want the network failure", b.Success, b.Error, b.ErrorID)
			}
			if h := graph.NotificationHeader(b.ErrorID); h != "The build's network can't be isolated" {
				t.Errorf("notification header %q, want the network's own", h)
			}
			for _, w := range tc.want {
				if !strings.Contains(b.Error, w) {
					t.Errorf("build error %q does not name %q", b.Error, w)
				}
			}
			if cmds := f.commands(b.ID); len(cmds) != 0 {
				t.Errorf("commands ran: %q", commandLines(cmds))
			}
			if !strings.Contains(log.String(), "WARNING: BUILD NETWORK ISOLATION IS UNAVAILABLE") {
				t.Errorf("no warning in the log:\n%s", log.String())
			}
		})
	}
}

func TestRuleBatch(t *testing.T) {
	got := ruleBatch([]string{"10.0.0.0/8", "192.0.2.7/32"})
	want := "rule add to 169.254.1.53/32 pref 90 table main\n" +
		"rule add to 10.0.0.0/8 pref 100 prohibit\nrule add to 192.0.2.7/32 pref 100 prohibit\n"
	if got != want {
		t.Errorf("ruleBatch = %q, want %q", got, want)
	}
}

// TestCloneRefusesPrivateHosts: a project whose repository host resolves
// to this machine (imported before the rule, or renamed since) fails at
// clone time with the message naming the setting; nothing is cloned.
func TestCloneRefusesPrivateHosts(t *testing.T) {
	f := newFixture(t, store.SQLite, Config{})
	r := newRepo(t, "master")
	r.commit("docs", markdownSite)
	imp := f.importProject("Local", r)
	repo := "http://2130706433:9/r.git"
	if _, err := f.store.UpdateProject(context.Background(), imp.Project.ID, store.ProjectUpdate{Repo: &repo}); err != nil {
		t.Fatal(err)
	}
	f.drain()
	b := f.build(imp.Build.ID)
	if b.Success || b.Error != repourl.MsgPrivateNetwork {
		t.Errorf("build: success %v error %q; want the private-network refusal", b.Success, b.Error)
	}
	if cmds := f.commands(b.ID); len(cmds) != 0 {
		t.Errorf("commands ran: %q", commandLines(cmds))
	}
}

// pyList writes strings as a Python list.
func pyList(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = pyQuote(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
