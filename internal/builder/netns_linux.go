package builder

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// errNetnsPlatform is nil: Linux has the namespaces network isolation
// needs.
var errNetnsPlatform error

// open makes a namespace, sets its rules, connects it with pasta and
// waits until pasta configured it.
func (n *netIsolation) open(ctx context.Context) (*netns, error) {
	if n.err != nil {
		return nil, n.err
	}
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	ns := &netns{n: n, waited: make(chan struct{})}
	uid, gid := os.Geteuid(), os.Getegid()
	h := exec.Command("/bin/sh", "-c", holderScript, "docsd-netns", n.ip)
	h.Env = []string{"PATH=" + systemPath, "LANG=C"}
	h.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
		AmbientCaps: []uintptr{unix.CAP_NET_ADMIN}, // for the rules, in its own namespaces only
		Setpgid:     true,
		Pdeathsig:   syscall.SIGKILL,
	}
	holderErr := &limitedBuffer{max: 4096}
	h.Stderr = holderErr
	stdin, err := h.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := h.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := h.Start(); err != nil {
		return nil, fmt.Errorf("can't make a user and network namespace: %v (%s)", err, usernsHint)
	}
	ns.holder, ns.stdin = h, stdin
	lines := make(chan string, 1)
	go func() {
		defer close(lines)
		if line, err := bufio.NewReader(stdout).ReadString('\n'); err == nil {
			lines <- strings.TrimSpace(line)
		}
	}()
	if _, err := io.WriteString(stdin, ruleBatch(append(append([]string(nil), n.blocked...), hostAddrs()...))+".\n"); err != nil {
		ns.close()
		return nil, err
	}

	args := []string{"--foreground", "--quiet", "--config-net", "--no-map-gw", "--ipv4-only",
		"-t", "none", "-u", "none", "-T", "none", "-U", "none", "--dns-forward", dnsForward,
		"--no-netns-quit", "--userns", ns.nsPath("user"), "--netns", ns.nsPath("net")}
	if n.rootful {
		// pasta would switch to nobody, who may not enter a namespace
		// root owns.
		args = append([]string{"--runas", "0"}, args...)
	}
	pastaErr := &limitedBuffer{max: 4096}
	ns.pasta = exec.Command(n.pasta, args...)
	ns.pasta.Stdout, ns.pasta.Stderr = pastaErr, pastaErr
	ns.pasta.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := ns.pasta.Start(); err != nil {
		ns.pasta = nil
		ns.close()
		return nil, err
	}
	go func() {
		ns.pasta.Wait()
		close(ns.waited)
	}()

	select {
	case line, ok := <-lines:
		if ok && line == "ready" {
			return ns, nil
		}
		ns.waitHolder()
		err = fmt.Errorf("setting the namespace's rules failed: %s (%s)", firstLines(holderErr), usernsHint)
	case <-ns.waited:
		err = fmt.Errorf("pasta failed: %s (pasta needs /dev/net/tun, readable and writable by docsd's user)", firstLines(pastaErr))
	case <-ctx.Done():
		err = errors.New("pasta did not configure the build's network namespace in time")
	}
	ns.close()
	return nil, err
}

// close stops pasta and the holder, which ends the namespace.
func (ns *netns) close() {
	if ns.pasta != nil && ns.pasta.Process != nil {
		syscall.Kill(-ns.pasta.Process.Pid, syscall.SIGKILL)
		<-ns.waited
	}
	if ns.holder != nil {
		ns.stdin.Close()
		syscall.Kill(-ns.holder.Process.Pid, syscall.SIGKILL)
		ns.waitHolder()
	}
}
