package builder

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"docsd/repourl"
)

// The values of Config.Network.
const (
	// NetworkAuto gives build commands that need the network (cloning,
	// installing) a network namespace of their own through pasta when it
	// works, and the host's network (with a loud warning) otherwise.
	NetworkAuto = "auto"
	// NetworkPasta requires the namespace: when it can't be set up,
	// builds fail with the internal-error message.
	NetworkPasta = "pasta"
	// NetworkHost gives those commands the host's network, this machine's
	// loopback and private networks included.
	NetworkHost = "host"
)

// NetworkModes lists the accepted values of Config.Network.
var NetworkModes = []string{NetworkAuto, NetworkPasta, NetworkHost}

// dnsForward is the address build commands send DNS queries to inside
// their namespace; pasta forwards them to the host's resolver.
const dnsForward = "169.254.1.53"

// blockedV4 are the IPv4 destinations a build command never reaches from
// its namespace: this network, private, shared (CGNAT), link-local,
// multicast and reserved ranges. 127.0.0.0/8 is the namespace's own
// loopback, not the host's.
var blockedV4 = []string{"0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "169.254.0.0/16", "172.16.0.0/12",
	"192.168.0.0/16", "224.0.0.0/3"}

// netIsolation gives the build commands that need the network a network
// namespace of their own, connected to the internet by pasta (user-mode
// networking from the passt package) with the host's loopback not mapped
// (--no-map-gw), IPv4 only, and routes that refuse (EACCES) private,
// link-local and this host's own addresses. Build commands then reach the
// internet, but not a database or another service of this machine or its
// private networks. It needs root (named network namespaces), pasta, ip
// (iproute2) and nsenter (util-linux), and the bubblewrap sandbox, which
// replaces the namespace's /etc/resolv.conf.
type netIsolation struct {
	ip, pasta, nsenter string
	resolv             string   // file naming dnsForward as the only nameserver
	blocked            []string // prefixes refused inside the namespace
	err                error    // non-nil: required but unavailable
}

// errNetwork ends a job whose commands must run in their own network
// namespace when it can't be set up; the build fails with the
// internal-error message.
var errNetwork = errors.New("build network namespace unavailable")

// newNetIsolation sets up network isolation for mode, writing its
// resolv.conf under dir, and probes it once. With NetworkAuto a failure
// gives nil and a loud warning, with NetworkPasta a netIsolation whose err
// says why; NetworkHost gives nil.
func newNetIsolation(mode, dir string, logger *slog.Logger) *netIsolation {
	if mode == NetworkHost {
		logger.Warn("WARNING: build commands that need the network use the host's network (--build-network=host): they reach this machine's loopback and private networks")
		return nil
	}
	n, err := setupNetIsolation(dir)
	if err == nil {
		err = n.probe()
	}
	if err != nil {
		if mode == NetworkPasta {
			logger.Error("build network isolation is required (--build-network=pasta) but can't run: every build will fail", "err", err)
			return &netIsolation{err: fmt.Errorf("%w: %v", errNetwork, err)}
		}
		logger.Warn("WARNING: BUILD COMMANDS USE THE HOST'S NETWORK: their own network namespace (pasta) can't be set up, so cloning and installing commands reach this machine's loopback and private networks; install passt and run docsd as root, or set --build-network", "err", err)
		return nil
	}
	logger.Info("build commands that need the network run in their own network namespace (pasta)", "pasta", n.pasta)
	return n
}

// setupNetIsolation finds the tools and writes the resolver file.
func setupNetIsolation(dir string) (*netIsolation, error) {
	if os.Geteuid() != 0 {
		return nil, errors.New("network namespaces for builds need docsd to run as root")
	}
	n := &netIsolation{}
	for _, t := range []struct {
		path *string
		name string
	}{{&n.ip, "ip"}, {&n.pasta, "pasta"}, {&n.nsenter, "nsenter"}} {
		p, err := exec.LookPath(t.name)
		if err != nil {
			return nil, err
		}
		*t.path = p
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	n.resolv = filepath.Join(dir, "build-resolv.conf")
	if err := os.WriteFile(n.resolv, []byte("nameserver "+dnsForward+"\n"), 0o644); err != nil {
		return nil, err
	}
	n.blocked = append(append([]string(nil), blockedV4...), hostAddrs()...)
	n.removeStale()
	return n, nil
}

// netnsPrefix begins the names of the namespaces docsd makes, followed by
// the pid of the docsd process that made it.
const netnsPrefix = "docsd-build-"

// removeStale removes the namespaces left by docsd processes that are gone
// (killed before they could remove them).
func (n *netIsolation) removeStale() {
	entries, _ := os.ReadDir("/run/netns")
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), netnsPrefix)
		if !ok {
			continue
		}
		pidText, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || syscall.Kill(pid, 0) != syscall.ESRCH {
			continue
		}
		exec.Command(n.ip, "netns", "delete", e.Name()).Run()
	}
}

// hostAddrs are this machine's own IPv4 addresses as /32 prefixes.
func hostAddrs() []string {
	addrs, _ := net.InterfaceAddrs()
	var out []string
	for _, a := range addrs {
		ipn, ok := a.(*net.IPNet)
		if !ok {
			continue
		}
		if ip, ok := netip.AddrFromSlice(ipn.IP); ok && ip.Unmap().Is4() && !ip.IsLoopback() {
			out = append(out, ip.Unmap().String()+"/32")
		}
	}
	return out
}

// probe opens and closes a namespace.
func (n *netIsolation) probe() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ns, err := n.open(ctx)
	if err != nil {
		return err
	}
	ns.close()
	return nil
}

// netns is one namespace, with the pasta process that connects it.
type netns struct {
	n     *netIsolation
	name  string
	pasta *exec.Cmd
}

// path is the namespace's file, for nsenter.
func (ns *netns) path() string { return "/run/netns/" + ns.name }

// open makes a namespace, connects it with pasta and sets its routes.
func (n *netIsolation) open(ctx context.Context) (*netns, error) {
	if n.err != nil {
		return nil, n.err
	}
	ns := &netns{n: n, name: fmt.Sprintf("%s%d-%s", netnsPrefix, os.Getpid(), randomHex(4))}
	if out, err := exec.CommandContext(ctx, n.ip, "netns", "add", ns.name).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("ip netns add: %v: %s", err, strings.TrimSpace(string(out)))
	}
	ns.pasta = exec.Command(n.pasta, "--foreground", "--quiet", "--runas", "0", "--config-net", "--no-map-gw", "--ipv4-only",
		"-t", "none", "-u", "none", "-T", "none", "-U", "none", "--dns-forward", dnsForward, "--netns", ns.name)
	ns.pasta.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := ns.pasta.Start(); err != nil {
		ns.pasta = nil
		ns.close()
		return nil, err
	}
	dev, err := ns.waitConfigured(ctx)
	if err == nil {
		err = ns.route(ctx, dev)
	}
	if err != nil {
		ns.close()
		return nil, err
	}
	return ns, nil
}

// waitConfigured waits until pasta gave the namespace its default route,
// and returns the route's device.
func (ns *netns) waitConfigured(ctx context.Context) (string, error) {
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline) && ctx.Err() == nil; time.Sleep(20 * time.Millisecond) {
		out, err := exec.CommandContext(ctx, ns.n.ip, "-n", ns.name, "-4", "route", "show", "default").Output()
		if err != nil {
			return "", fmt.Errorf("ip route show: %v", err)
		}
		f := strings.Fields(string(out))
		for i := 0; i+1 < len(f); i++ {
			if f[i] == "dev" {
				return f[i+1], nil
			}
		}
	}
	return "", errors.New("pasta did not configure the build's network namespace")
}

// route refuses the blocked destinations and lets DNS queries reach
// pasta's forwarder through dev.
func (ns *netns) route(ctx context.Context, dev string) error {
	var batch strings.Builder
	for _, p := range ns.n.blocked {
		fmt.Fprintf(&batch, "route replace prohibit %s\n", p)
	}
	fmt.Fprintf(&batch, "route replace %s/32 dev %s\n", dnsForward, dev)
	cmd := exec.CommandContext(ctx, ns.n.ip, "-n", ns.name, "-batch", "-")
	cmd.Stdin = strings.NewReader(batch.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("ip route: %v: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

// close stops pasta and removes the namespace.
func (ns *netns) close() {
	if ns.pasta != nil && ns.pasta.Process != nil {
		syscall.Kill(-ns.pasta.Process.Pid, syscall.SIGKILL)
		ns.pasta.Wait()
	}
	exec.Command(ns.n.ip, "netns", "delete", ns.name).Run()
}

// enter returns path and argv run inside the namespace.
func (ns *netns) enter(path string, argv []string) (string, []string) {
	return ns.n.nsenter, append([]string{"nsenter", "--net=" + ns.path(), "--", path}, argv[1:]...)
}

// checkRepoNetwork refuses, at clone time, a repository or submodule URL
// whose host resolves to a loopback, private, link-local or unspecified
// address, unless the operator allows it (issue 9; the import refused it
// already, but names can change what they resolve to). The namespace of
// netIsolation refuses such connections anyway; this gives the clear
// message.
func (j *job) checkRepoNetwork(ctx context.Context, url string) error {
	p := repourl.Policy{AllowPrivateNetwork: j.pool.cfg.AllowPrivateNetwork}
	if msg := p.CheckNetwork(ctx, url, nil); msg != "" {
		return fail(msg)
	}
	return nil
}

// netns returns the job's network namespace, opening it on first use.
func (j *job) netns(ctx context.Context) (*netns, error) {
	if j.ns == nil {
		ns, err := j.pool.net.open(ctx)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", errNetwork, err)
		}
		j.ns = ns
	}
	return j.ns, nil
}

// closeNet closes the job's network namespace, if it opened one.
func (j *job) closeNet() {
	if j.ns != nil {
		j.ns.close()
		j.ns = nil
	}
}
