package builder

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"docsd/internal/repourl"
)

// The values of Config.Network.
const (
	// NetworkAuto gives build commands that need the network (cloning,
	// installing, a configuration's build commands) a network namespace
	// of their own through pasta. When it can't be set up they don't run:
	// the build fails with MsgNetworkFormat, which says what is missing.
	// It never falls back to the host's network.
	NetworkAuto = "auto"
	// NetworkPasta is NetworkAuto named after what it requires.
	NetworkPasta = "pasta"
	// NetworkHost gives those commands the host's network, this machine's
	// loopback, own addresses and private networks included. Only an
	// operator's explicit choice gives it.
	NetworkHost = "host"
)

// NetworkModes lists the accepted values of Config.Network.
var NetworkModes = []string{NetworkAuto, NetworkPasta, NetworkHost}

// dnsForward is the address build commands send DNS queries to inside
// their namespace; pasta forwards them to the host's resolver.
const dnsForward = "169.254.1.53"

// alwaysBlocked are the IPv4 destinations a build command never reaches
// from its namespace: this network, link-local (the cloud metadata
// address 169.254.169.254 among them), multicast and reserved ranges.
// 127.0.0.0/8 is the namespace's own loopback, not the host's: pasta runs
// without mapping an address to the host's loopback (--no-map-gw) and
// without forwarding ports (-t/-u/-T/-U none).
var alwaysBlocked = []string{"0.0.0.0/8", "169.254.0.0/16", "224.0.0.0/3"}

// privateBlocked are the private (RFC 1918) and shared (RFC 6598) ranges,
// blocked unless the operator allows private networks
// (Config.AllowPrivateNetwork).
var privateBlocked = []string{"10.0.0.0/8", "100.64.0.0/10", "172.16.0.0/12", "192.168.0.0/16"}

// netIsolation gives the build commands that need the network a network
// namespace of their own, connected to the internet by pasta (user-mode
// networking from the passt package), IPv4 only, with policy rules that
// refuse (EACCES) link-local, private and this host's own addresses. Build
// commands then reach the internet, but no service of this machine or of
// its private networks.
//
// It works as an unprivileged user where the kernel allows user
// namespaces: a holder process (holderScript) is started in a new user
// and network namespace that docsd's user owns, pasta attaches to them,
// and the holder, which keeps CAP_NET_ADMIN in its own namespace only,
// sets the rules. Build commands enter the network namespace through
// nsenter (and its user namespace when docsd is not root) and then
// bubblewrap, which puts them in a user namespace of their own below it:
// they have no capability over the network namespace and can't change
// its rules. It needs pasta, ip (iproute2), nsenter (util-linux), a
// /dev/net/tun docsd's user may open, and the bubblewrap sandbox, which
// replaces the namespace's /etc/resolv.conf.
type netIsolation struct {
	pasta, ip, nsenter string
	resolv             string   // file naming dnsForward as the only nameserver
	blocked            []string // prefixes refused besides the host's own addresses
	rootful            bool     // docsd runs as root: commands enter the network namespace only
	// err, when set, is the failure every command that needs the network
	// ends its build with: isolation is unavailable, and why.
	err error
}

// errNetwork ends a job whose network namespace could not be opened
// although isolation was set up: docsd's problem, the internal-error
// message.
var errNetwork = errors.New("build network namespace unavailable")

// newNetIsolation sets network isolation up for cfg.Network with the
// build sandbox sbx (nil when builds run unsandboxed), writing its
// resolv.conf under cfg.DataDir, and probes it once. NetworkHost gives nil
// (commands use the host's network) with a warning, every start; when
// isolation can't work, the result's err names what is missing.
func newNetIsolation(cfg Config, sbx *sandbox, logger *slog.Logger) *netIsolation {
	if cfg.Network == NetworkHost {
		logger.Warn("WARNING: BUILDS USE THE HOST'S NETWORK (--build-network=host): build commands that need the network (cloning, installing, build commands) reach this machine's loopback services (database, docsd's API and metrics), its own addresses and its private networks")
		return nil
	}
	n, err := setupNetIsolation(cfg, sbx)
	if err == nil {
		err = n.probe(sbx)
	}
	if err != nil {
		logger.Warn("WARNING: BUILD NETWORK ISOLATION IS UNAVAILABLE: build steps that need the network (cloning, installing, build commands) fail until it is fixed; --build-network=host would give them this machine's network instead", "reason", err.Error())
		return &netIsolation{err: &failure{msg: fmt.Sprintf(MsgNetworkFormat, err), id: IDNetworkUnavailable}}
	}
	logger.Info("build commands that need the network run in their own network namespace (pasta)", "pasta", n.pasta, "rootful", n.rootful)
	return n
}

// setupNetIsolation checks what isolation needs, finds the tools and
// writes the resolver file. Its errors name what is missing and the
// setting or package that brings it.
func setupNetIsolation(cfg Config, sbx *sandbox) (*netIsolation, error) {
	switch {
	case errNetnsPlatform != nil:
		return nil, errNetnsPlatform
	case sbx == nil && cfg.Sandbox == SandboxOff:
		return nil, errors.New("it needs the build sandbox, which is off (--build-sandbox=off)")
	case sbx == nil || sbx.err != nil:
		return nil, errors.New("it needs the build sandbox, and bubblewrap (bwrap) can't run (install bubblewrap; docsd's log says why)")
	case os.Geteuid() == 0 && sbx.setpriv == "":
		// Root without capabilities still owns the namespace's user
		// namespace, and could change its rules.
		return nil, errors.New("as root, it needs build commands to run as nobody (setpriv, util-linux), which they can't")
	}
	n := &netIsolation{rootful: os.Geteuid() == 0, blocked: append([]string(nil), alwaysBlocked...)}
	if !cfg.AllowPrivateNetwork {
		n.blocked = append(n.blocked, privateBlocked...)
	}
	for _, t := range []struct {
		path       *string
		name, from string
	}{
		{&n.pasta, cfg.Pasta, "install passt, or name pasta's binary with --build-pasta"},
		{&n.ip, "ip", "install iproute2"},
		{&n.nsenter, "nsenter", "install util-linux"},
	} {
		p, err := exec.LookPath(t.name)
		if err != nil {
			return nil, fmt.Errorf("%v (%s)", err, t.from)
		}
		*t.path = p
	}
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return nil, err
	}
	n.resolv = filepath.Join(cfg.DataDir, "build-resolv.conf")
	if err := os.WriteFile(n.resolv, []byte("nameserver "+dnsForward+"\n"), 0o644); err != nil {
		return nil, err
	}
	return n, nil
}

// hostAddrs are this machine's own IPv4 addresses (loopback aside) as /32
// prefixes, read each time a namespace opens: addresses come and go.
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

// probe opens a namespace and runs `true` in it through the sandbox, as a
// build command that needs the network would run.
func (n *netIsolation) probe(sbx *sandbox) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ns, err := n.open(ctx)
	if err != nil {
		return err
	}
	defer ns.close()
	return sbx.probe(ns)
}

// holderScript holds a namespace: it reads ip batch lines from stdin up
// to a line ".", runs them with CAP_NET_ADMIN (the ambient capability it
// was started with, in its own user namespace only), waits until pasta
// gave the namespace its default route, says "ready", and then waits
// until its stdin closes (docsd closes the namespace, or is gone).
const holderScript = `ip=$1
batch=
while IFS= read -r line && [ "$line" != . ]; do
	batch="$batch$line
"
done
printf '%s' "$batch" | "$ip" -4 -batch - || exit 1
until [ -n "$("$ip" -4 route show default)" ]; do
	sleep 0.02
done
echo ready
exec cat >/dev/null
`

// netns is one namespace: its holder process and the pasta process that
// connects it.
type netns struct {
	n      *netIsolation
	holder *exec.Cmd
	stdin  io.WriteCloser // the holder's; closing it ends the holder
	pasta  *exec.Cmd
	waited chan struct{} // closed when pasta has exited
	// holderGone says the holder was waited for.
	holderGone bool
}

// nsPath is the file of the holder's namespace of type kind (net, user).
func (ns *netns) nsPath(kind string) string {
	return fmt.Sprintf("/proc/%d/ns/%s", ns.holder.Process.Pid, kind)
}

// usernsHint says what lets docsd's user make user namespaces with
// capabilities in them.
const usernsHint = "user namespaces must be allowed to docsd's user: sysctl user.max_user_namespaces above 0 and, " +
	"where they exist, kernel.unprivileged_userns_clone=1 and kernel.apparmor_restrict_unprivileged_userns=0 " +
	"or an AppArmor profile allowing userns for docsd; under systemd no RestrictNamespaces=; " +
	"in Docker a seccomp profile that allows them"

// ruleBatch returns the ip batch of the rules that refuse (EACCES) the
// blocked prefixes in a namespace, except the DNS forwarder's address.
// Rules come before the main routing table, so no route pasta adds to it
// (it copies the host's, its subnets among them) leads around them.
func ruleBatch(blocked []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "rule add to %s/32 pref 90 table main\n", dnsForward)
	for _, p := range blocked {
		fmt.Fprintf(&b, "rule add to %s pref 100 prohibit\n", p)
	}
	return b.String()
}

// firstLines is the meaningful part of a tool's error output: the lines
// that are not about a missing system logger, at most a few.
func firstLines(out *limitedBuffer) string {
	raw, _ := out.snapshot()
	var keep []string
	for _, l := range strings.Split(string(raw), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.Contains(l, "to syslog") {
			continue
		}
		if keep = append(keep, l); len(keep) == 4 {
			break
		}
	}
	if len(keep) == 0 {
		return "no message"
	}
	return strings.Join(keep, "; ")
}

// waitHolder waits for the holder to exit, once.
func (ns *netns) waitHolder() {
	if !ns.holderGone {
		ns.holderGone = true
		ns.holder.Wait()
	}
}

// enter returns path and argv run inside the namespace: in its network
// namespace, and in its user namespace too unless docsd is root (root's
// sandbox switches to nobody from the host's user namespace).
func (ns *netns) enter(path string, argv []string) (string, []string) {
	a := []string{"nsenter"}
	if !ns.n.rootful {
		a = append(a, "--user="+ns.nsPath("user"), "--preserve-credentials")
	}
	a = append(a, "--net="+ns.nsPath("net"), "--", path)
	return ns.n.nsenter, append(a, argv[1:]...)
}

// checkRepoNetwork refuses, at clone time, a repository or submodule URL
// whose host resolves to a loopback, private, link-local or unspecified
// address, unless the operator allows it (the import refused it already,
// but names can change what they resolve to). The namespace of
// netIsolation refuses such connections anyway; this gives the clear
// message.
func (j *job) checkRepoNetwork(ctx context.Context, url string) error {
	p := repourl.Policy{AllowPrivateNetwork: j.pool.cfg.AllowPrivateNetwork}
	if msg := p.CheckNetwork(ctx, url, nil); msg != "" {
		return fail(msg)
	}
	return nil
}

// network returns the namespace the job's commands that need the network
// run in, opening it on first use; nil with the host's network
// (NetworkHost). When isolation is unavailable it returns the failure that
// says why.
func (j *job) network(ctx context.Context) (*netns, error) {
	n := j.pool.net
	if n == nil {
		return nil, nil
	}
	if n.err != nil {
		return nil, n.err
	}
	if j.ns == nil {
		ns, err := n.open(ctx)
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
