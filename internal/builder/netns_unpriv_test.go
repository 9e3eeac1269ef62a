//go:build linux

package builder

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"docsd/store"
)

// unprivilegedEnv, set in the environment of a copy of this test binary,
// makes TestBuildNetworkUnprivileged the child that runs a build as the
// unprivileged user it was started as; its value is an unprivTargets in
// JSON.
const unprivilegedEnv = "DOCSD_TEST_UNPRIVILEGED_BUILD"

// unprivUser is the throwaway system user the child runs as; the test
// makes it when it is missing.
const unprivUser = "docsd-build-test"

// unprivTargets are what the child's build tries to reach.
type unprivTargets struct {
	Port    int      // of a listener on every address of the host
	Host    []string // the host's addresses, 127.0.0.1 first
	Outside string   // "addr:port" of a listener on the "internet", no address of the host
	Private string   // "addr:port" of a listener on a private network the host reaches
}

// TestBuildNetworkUnprivileged runs a build of docsd's builder as an
// unprivileged user (the way the shipped systemd unit and Docker image
// run docsd) with the default --build-network=auto, and proves that its
// network step reaches neither a listener on the host's 127.0.0.1 nor
// one on the host's other addresses nor 169.254.169.254 nor a server on a
// private network the host reaches, while it does reach an allowed
// outside address: a listener in a network namespace of its own, joined
// to the host by a veth pair on a benchmarking (RFC 2544) subnet, as a
// server on the internet would be. The private server is another such
// listener, on a shared-address (RFC 6598) subnet.
//
// The test runs as root (it makes the user, the veth pair and the
// listeners) and starts a copy of its own binary as that user.
func TestBuildNetworkUnprivileged(t *testing.T) {
	if spec := os.Getenv(unprivilegedEnv); spec != "" {
		unprivilegedChild(t, spec)
		return
	}
	need := func(format string, args ...any) {
		t.Helper()
		msg := "builder: " + fmt.Sprintf(format, args...) + ", the unprivileged build test is not run"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	if os.Geteuid() != 0 {
		need("NOT ROOT (it makes a throwaway user %s and a veth pair)", unprivUser)
	}
	bwrapOrSkip(t)
	toolsOrSkip(t, "mkdocs")
	for _, tool := range []string{"pasta", "ip", "nsenter", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			need("%s IS MISSING (apt-get install passt iproute2 util-linux git)", strings.ToUpper(tool))
		}
	}
	if st, err := os.Stat("/dev/net/tun"); err != nil || st.Mode().Perm()&0o006 != 0o006 {
		need("/DEV/NET/TUN IS NOT USABLE BY EVERY USER (%v; udev's default mode is 0666: chmod 0666 /dev/net/tun)", tunMode(st, err))
	}
	uid, gid := throwawayUser(t, need)

	dir, err := os.MkdirTemp("", "docsd-unprivileged-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	work := filepath.Join(dir, "work")
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(work, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(work, uid, gid); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "builder.test")
	copyExecutable(t, bin)

	host := listenCounting(t, "tcp4", "0.0.0.0:0")
	outside, err := vethListener(t, netip.MustParsePrefix("198.18.0.0/15"))
	if err != nil {
		need("NO OUTSIDE LISTENER (%v)", err)
	}
	private, err := vethListener(t, netip.MustParsePrefix("100.64.0.0/10"))
	if err != nil {
		need("NO PRIVATE LISTENER (%v)", err)
	}
	// The host's sides of the veth pairs are among its addresses now.
	targets := unprivTargets{Port: host.port(), Host: append([]string{"127.0.0.1"}, interfaceAddrs(t)...),
		Outside: outside.Addr().String(), Private: private.Addr().String()}
	spec, _ := json.Marshal(targets)

	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-test.run=^TestBuildNetworkUnprivileged$", "-test.count=1", "-test.v")
	cmd.Dir = work
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + work, "TMPDIR=" + work, "LANG=C.UTF-8",
		"CI=" + os.Getenv("CI"), unprivilegedEnv + "=" + string(spec)}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}}
	out, err := cmd.CombinedOutput()
	t.Logf("the build as %s (uid %d):\n%s", unprivUser, uid, out)
	if err != nil {
		t.Fatalf("the unprivileged child failed: %v", err)
	}
	if strings.Contains(string(out), "--- SKIP") {
		need("THE UNPRIVILEGED CHILD SKIPPED (see its output)")
	}
	if !strings.Contains(string(out), "--- PASS: TestBuildNetworkUnprivileged") {
		t.Fatalf("the child did not pass")
	}
	if n := host.count(); n != 0 {
		t.Errorf("the build connected %d times to the host's listener", n)
	}
	if outside.count() == 0 {
		t.Errorf("the build never reached the outside listener")
	}
	if n := private.count(); n != 0 {
		t.Errorf("the build connected %d times to the listener on a private network", n)
	}
}

// unprivilegedChild is the build as the unprivileged user.
func unprivilegedChild(t *testing.T, spec string) {
	if os.Geteuid() == 0 {
		t.Fatal("the unprivileged child runs as root")
	}
	var targets unprivTargets
	if err := json.Unmarshal([]byte(spec), &targets); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, store.SQLite, Config{})
	isolationOrSkip(t, f)
	hosts := append(append([]string(nil), targets.Host...), "169.254.169.254:80", targets.Private, targets.Outside)
	script := "import os\nprint('uid', os.getuid())\n" + probeScript(hosts, targets.Port, []string{dnsForward})
	out := probeOutput(t, f, "Unprivileged", script)
	outsideHost, _, _ := net.SplitHostPort(targets.Outside)
	privateHost, _, _ := net.SplitHostPort(targets.Private)
	want := []string{fmt.Sprintf("uid %d\n", os.Geteuid()), "127.0.0.1 refused 111", "169.254.169.254 refused 13",
		privateHost + " refused 13", outsideHost + " CONNECTED", dnsForward + " routed", "nameserver " + dnsForward}
	for _, h := range targets.Host {
		want = append(want, h+" refused")
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("setup.py output lacks %q", w)
		}
	}
	if strings.Count(out, "CONNECTED") != 1 {
		t.Errorf("setup.py connected somewhere besides the outside listener")
	}
	t.Logf("setup.py said:\n%s", out)
}

// tunMode describes /dev/net/tun's mode for a message.
func tunMode(st os.FileInfo, err error) string {
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("mode %04o", st.Mode().Perm())
}

// throwawayUser returns the uid and gid of unprivUser, making it (a
// system user without home or shell) when it is missing.
func throwawayUser(t *testing.T, need func(string, ...any)) (int, int) {
	t.Helper()
	u, err := user.Lookup(unprivUser)
	if err != nil {
		out, uerr := exec.Command("useradd", "--system", "--no-create-home", "--home-dir", "/nonexistent",
			"--shell", "/usr/sbin/nologin", unprivUser).CombinedOutput()
		// Another test run may have made it meanwhile.
		if u, err = user.Lookup(unprivUser); err != nil {
			need("NO USER %s (useradd: %v %s)", unprivUser, uerr, strings.TrimSpace(string(out)))
		}
	}
	uid, err1 := strconv.Atoi(u.Uid)
	gid, err2 := strconv.Atoi(u.Gid)
	if err1 != nil || err2 != nil || uid == 0 {
		t.Fatalf("user %s: uid %q gid %q", unprivUser, u.Uid, u.Gid)
	}
	return uid, gid
}

// copyExecutable copies this test binary to path, where every user may
// run it (go test keeps it in a directory only its user may enter).
func copyExecutable(t *testing.T, path string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.Open(self)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}

// vethListener is a vethListen listener that counts what it accepts.
func vethListener(t *testing.T, within netip.Prefix) (*countingListener, error) {
	t.Helper()
	ln, err := vethListen(t, within)
	if err != nil {
		return nil, err
	}
	return serveCounting(t, ln), nil
}

// vethListen listens in a network namespace of its own, joined to this
// one by a veth pair on a random /30 of within, and returns the listener.
// Everything goes when the test ends.
func vethListen(t *testing.T, within netip.Prefix) (net.Listener, error) {
	t.Helper()
	holder := exec.Command("cat")
	holder.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNET, Pdeathsig: syscall.SIGKILL}
	stdin, err := holder.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := holder.Start(); err != nil {
		return nil, fmt.Errorf("a network namespace: %v", err)
	}
	t.Cleanup(func() {
		stdin.Close()
		holder.Process.Kill()
		holder.Wait()
	})
	nsPath := fmt.Sprintf("/proc/%d/ns/net", holder.Process.Pid)
	first := within.Masked().Addr().As4()
	var a [4]byte
	binary.BigEndian.PutUint32(a[:], binary.BigEndian.Uint32(first[:])+uint32(rand.IntN(1<<(30-within.Bits())))*4)
	hostSide := netip.AddrFrom4(a).Next()
	nsSide := hostSide.Next()
	name := fmt.Sprintf("dt%06x", rand.IntN(1<<24))
	run := func(args ...string) error {
		if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			return fmt.Errorf("%s: %v %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
		}
		return nil
	}
	if err := run("ip", "link", "add", name+"h", "type", "veth", "peer", "name", name+"n", "netns", strconv.Itoa(holder.Process.Pid)); err != nil {
		return nil, err
	}
	t.Cleanup(func() { exec.Command("ip", "link", "delete", name+"h").Run() })
	for _, args := range [][]string{
		{"ip", "addr", "add", hostSide.String() + "/30", "dev", name + "h"},
		{"ip", "link", "set", name + "h", "up"},
		{"nsenter", "--net=" + nsPath, "ip", "addr", "add", nsSide.String() + "/30", "dev", name + "n"},
		{"nsenter", "--net=" + nsPath, "ip", "link", "set", name + "n", "up"},
	} {
		if err := run(args...); err != nil {
			return nil, err
		}
	}
	// A socket belongs to the network namespace of the thread that makes
	// it: a locked thread enters the namespace, listens, and is thrown
	// away (its goroutine ends without unlocking it).
	type result struct {
		ln  net.Listener
		err error
	}
	done := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		fd, err := unix.Open(nsPath, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			done <- result{err: err}
			return
		}
		defer unix.Close(fd)
		if err := unix.Setns(fd, unix.CLONE_NEWNET); err != nil {
			done <- result{err: fmt.Errorf("setns: %v", err)}
			return
		}
		ln, err := net.Listen("tcp4", net.JoinHostPort(nsSide.String(), "0"))
		done <- result{ln, err}
	}()
	r := <-done
	if r.err != nil {
		return nil, r.err
	}
	t.Cleanup(func() { r.ln.Close() })
	return r.ln, nil
}
