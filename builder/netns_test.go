package builder

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"

	"docsd/repourl"
	"docsd/store"
)

// TestNetworkIsolation: a setup.py (which runs with network, as
// installing does) reaches neither this host's loopback nor its own
// address where a server listens, private networks are refused by route,
// and DNS goes to pasta's forwarder.
func TestNetworkIsolation(t *testing.T) {
	f := newFixture(t, store.SQLite, Config{Network: NetworkPasta})
	if f.pool.sandbox() == nil || f.pool.net == nil || f.pool.net.err != nil {
		t.Skip("builder: no sandbox or no pasta network namespace here (needs bwrap, passt and root)")
	}
	ln, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	targets := []string{"127.0.0.1"}
	for _, p := range hostAddrs() {
		targets = append(targets, strings.TrimSuffix(p, "/32"))
	}
	script := "import socket\n" +
		fmt.Sprintf("for host in %s:\n", pyList(targets)) +
		"    s = socket.socket()\n" +
		"    s.settimeout(5)\n" +
		"    try:\n" +
		fmt.Sprintf("        s.connect((host, %d)); print(host, 'CONNECTED')\n", port) +
		"    except OSError as e:\n" +
		"        print(host, 'refused', e.errno)\n" +
		"for host in ['10.1.2.3', '192.168.77.1', '169.254.169.254', '" + dnsForward + "']:\n" +
		"    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n" +
		"    try:\n" +
		"        u.connect((host, 53)); print(host, 'routed')\n" +
		"    except OSError as e:\n" +
		"        print(host, 'unroutable', e.errno)\n" +
		"print(open('/etc/resolv.conf').read())\n"
	imp, _ := setupPyProject(t, f, "Isolated", script)
	f.drain()
	f.mustSucceed(f.build(imp.Build.ID))
	var out string
	for _, c := range f.commands(imp.Build.ID) {
		if strings.Contains(c.Command, "setup.py") {
			out = c.Output
		}
	}
	if out == "" || strings.Contains(out, "CONNECTED") {
		t.Fatalf("setup.py output %q: it reached a server of this host", out)
	}
	for _, want := range []string{"127.0.0.1 refused", "10.1.2.3 unroutable 13", "192.168.77.1 unroutable 13",
		"169.254.169.254 unroutable 13", dnsForward + " routed", "nameserver " + dnsForward} {
		if !strings.Contains(out, want) {
			t.Errorf("setup.py output lacks %q:\n%s", want, out)
		}
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

// TestNetnsRemovesStale: namespaces left by a docsd process that is gone
// are removed when network isolation is set up; others stay.
func TestNetnsRemovesStale(t *testing.T) {
	n, err := setupNetIsolation(t.TempDir())
	if err != nil {
		t.Skipf("builder: no network isolation here: %v", err)
	}
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	stale := fmt.Sprintf("%s%d-test", netnsPrefix, dead.Process.Pid)
	live := fmt.Sprintf("%s%d-test", netnsPrefix, os.Getpid())
	for _, name := range []string{stale, live} {
		if out, err := exec.Command(n.ip, "netns", "add", name).CombinedOutput(); err != nil {
			t.Fatalf("ip netns add: %v %s", err, out)
		}
	}
	defer exec.Command(n.ip, "netns", "delete", live).Run()
	defer exec.Command(n.ip, "netns", "delete", stale).Run()
	n.removeStale()
	if _, err := os.Stat("/run/netns/" + stale); err == nil {
		t.Errorf("the namespace of a gone process stayed")
	}
	if _, err := os.Stat("/run/netns/" + live); err != nil {
		t.Errorf("the namespace of a live process was removed: %v", err)
	}
}
