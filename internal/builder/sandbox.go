package builder

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The values of Config.Sandbox.
const (
	// SandboxAuto runs build commands in bubblewrap when it is installed
	// and works, and runs them unsandboxed (with a loud warning) otherwise.
	SandboxAuto = "auto"
	// SandboxBwrap requires bubblewrap: when it can't run, builds fail with
	// the internal-error message.
	SandboxBwrap = "bwrap"
	// SandboxOff runs build commands as docsd's own user with access to
	// everything docsd can reach.
	SandboxOff = "off"
)

// SandboxModes lists the accepted values of Config.Sandbox.
var SandboxModes = []string{SandboxAuto, SandboxBwrap, SandboxOff}

// errSandbox ends a job whose commands must run in the sandbox when the
// sandbox can't run; the build fails with the internal-error message.
var errSandbox = errors.New("build sandbox unavailable")

// sandbox runs the processes of builds inside bubblewrap (bwrap), which
// executes project code (conf.py, setup.py, MkDocs plugins) and must not
// see docsd's data: the file system is read-only except for the job's own
// directories, docsd's data directory, HOME, /tmp and /run are replaced by
// empty file systems, the process sees only its own process tree, keeps
// no capabilities, and has no network during the building step.
//
// A nil *sandbox, or one with an empty bwrap, runs commands as they are.
type sandbox struct {
	bwrap     string   // bwrap's path
	hide      []string // absolute directories mounted over with an empty tmpfs, parents first
	hideFiles []string // files replaced by /dev/null when they exist (a database outside the data directory)
	private   []string // docsd's data directories: never bound into the sandbox, even read-only
	err       error    // non-nil: the sandbox is required but can't run

	// setpriv, when set, switches the command to buildUID:buildGID inside
	// the sandbox: docsd runs as root, and root without capabilities still
	// reads root's own files (/etc/shadow, keys, operator configuration).
	// bwrap itself stays root to set up mounts from directories only root
	// may enter.
	setpriv string
}

// buildUID and buildGID are whom build commands run as when docsd runs as
// root: nobody and nogroup.
const (
	buildUID = 65534
	buildGID = 65534
)

// sandboxSpec is what one sandboxed command may use.
type sandboxSpec struct {
	dir     string   // working directory, inside one of rw
	rw      []string // directories bound read-write (the job's checkout, environment, HOME)
	ro      []string // paths bound read-only over the hidden directories (local repositories)
	network bool     // keep the network (cloning and installing)
	// resolv, when set, is the resolver configuration of the network
	// namespace the command runs in (netIsolation): it replaces
	// /etc/resolv.conf.
	resolv string
}

// publicTmp are the directories every user may write to; they are
// replaced by empty ones with the same mode.
var publicTmp = []string{"/tmp", "/var/tmp", "/dev/shm"}

// alwaysHidden are directories of the machine the build never sees: local
// sockets of PostgreSQL and other daemons (a Unix socket is reachable
// without network) and root's home.
var alwaysHidden = []string{"/run", "/var/run", "/root"}

// runVisible are read-only paths under /run that commands with network
// need: the resolver configuration that /etc/resolv.conf may point to.
var runVisible = []string{"/run/systemd/resolve", "/run/resolvconf"}

// newSandbox sets up the sandbox for mode, hiding hide (docsd's data
// directories and files) besides HOME, /tmp and /run. It probes bwrap once; with
// SandboxAuto a bwrap that can't run gives a nil sandbox and a loud
// warning, with SandboxBwrap a sandbox whose err says why.
func newSandbox(mode string, hide []string, logger *slog.Logger) *sandbox {
	if mode == SandboxOff {
		logger.Warn("WARNING: the build sandbox is off (--build-sandbox=off): build commands run project code as docsd's own user, with access to docsd's data directory, database and network")
		return nil
	}
	unavailable := func(err error) *sandbox {
		if mode != SandboxAuto {
			logger.Error("the build sandbox is required (--build-sandbox=bwrap) but can't run: every build will fail", "err", err)
			return &sandbox{err: fmt.Errorf("%w: %v", errSandbox, err)}
		}
		logger.Warn("WARNING: BUILDS RUN UNSANDBOXED: bubblewrap (bwrap) can't run, so build commands run project code as docsd's own user, with access to docsd's data directory, database and network; install bubblewrap (apt-get install bubblewrap) or set --build-sandbox", "err", err)
		return nil
	}
	if errSandboxPlatform != nil {
		return unavailable(errSandboxPlatform)
	}
	path, err := exec.LookPath("bwrap")
	if err != nil {
		return unavailable(err)
	}
	s := &sandbox{bwrap: path, hide: hiddenDirs(hide), private: resolveDirs(hide)}
	if os.Geteuid() == 0 {
		if s.setpriv, err = exec.LookPath("setpriv"); err != nil {
			logger.Warn("WARNING: setpriv (util-linux) is missing: sandboxed build commands run as root without capabilities, and can read root's own files outside docsd's data directory", "err", err)
		}
	}
	for _, f := range hide {
		if f != "" && !isDir(f) {
			if abs, err := filepath.Abs(f); err == nil {
				s.hideFiles = append(s.hideFiles, abs)
			}
		}
	}
	if err := s.probe(nil); err != nil && s.setpriv != "" {
		logger.Warn("WARNING: sandboxed build commands can't switch to nobody, they run as root without capabilities and can read root's own files outside docsd's data directory", "err", err)
		s.setpriv = ""
	}
	if err := s.probe(nil); err != nil {
		return unavailable(err)
	}
	logger.Info("build commands run in a bubblewrap sandbox", "bwrap", path, "hidden", s.hide)
	return s
}

// probe runs `true` in the sandbox as a build command would: without
// network when ns is nil, in the network namespace ns otherwise.
func (s *sandbox) probe(ns *netns) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dir, err := os.MkdirTemp("", "docsd-sandbox-probe-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if uid, gid, ok := s.owner(); ok {
		if err := os.Chown(dir, uid, gid); err != nil {
			return err
		}
	}
	truePath, err := exec.LookPath("true")
	if err != nil {
		return err
	}
	spec := sandboxSpec{dir: dir, rw: []string{dir}}
	spec.network = ns != nil
	path, argv := s.wrapIn(ns, truePath, []string{"true"}, spec)
	res, err := runProcess(ctx, path, argv, dir, []string{"PATH=" + systemPath})
	if err != nil {
		return err
	}
	if res.ExitCode != 0 {
		return fmt.Errorf("%s exited with %d: %s", strings.Join(argv, " "), res.ExitCode, strings.TrimSpace(tail(res.Output, 500)))
	}
	return nil
}

// hiddenDirs returns the directories to hide, absolute, with symlinks
// resolved, without those that don't exist, without "/" and without
// those inside another, parents first.
func hiddenDirs(extra []string) []string {
	cands := append(append([]string(nil), alwaysHidden...), extra...)
	if home, err := os.UserHomeDir(); err == nil {
		cands = append(cands, home)
	}
	var dirs []string
	for _, d := range resolveDirs(cands) {
		if d != "/" && !isPublicTmp(d) {
			dirs = append(dirs, d)
		}
	}
	sort.Strings(dirs)
	var out []string
	for _, d := range dirs {
		if len(out) > 0 && within(d, out[len(out)-1]) {
			continue // the same or inside one already hidden
		}
		out = append(out, d)
	}
	return out
}

// resolveDirs returns the directories of dirs that exist, absolute and
// with symlinks resolved.
func resolveDirs(dirs []string) []string {
	var out []string
	for _, d := range dirs {
		if d == "" {
			continue
		}
		abs, err := filepath.Abs(d)
		if err != nil {
			continue
		}
		if abs, err = filepath.EvalSymlinks(abs); err == nil && isDir(abs) {
			out = append(out, abs)
		}
	}
	return out
}

// isPublicTmp reports whether dir is one of publicTmp or inside it.
func isPublicTmp(dir string) bool {
	for _, t := range publicTmp {
		if within(dir, t) {
			return true
		}
	}
	return false
}

// within reports whether path is dir or inside it (both clean and
// absolute).
func within(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, strings.TrimSuffix(dir, "/")+"/")
}

// wrap returns the program and argv that run path with argv in the
// sandbox under spec. The environment is bwrap's own (exec passes the
// command's minimal environment to bwrap, which hands it on unchanged), so
// no value appears in the sandbox's command line.
func (s *sandbox) wrap(path string, argv []string, spec sandboxSpec) (string, []string) {
	a := []string{"bwrap",
		"--ro-bind", "/", "/",
		"--dev", "/dev",
		"--proc", "/proc",
		"--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
		"--die-with-parent", "--new-session",
		"--cap-drop", "ALL",
		"--hostname", "docsd-build",
	}
	if s.setpriv != "" {
		// Only for setpriv, which gives them up with root.
		a = append(a, "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID")
	}
	if !spec.network {
		a = append(a, "--unshare-net")
	}
	for _, d := range s.hide {
		a = append(a, "--tmpfs", d)
	}
	for _, d := range publicTmp {
		a = append(a, "--perms", "1777", "--tmpfs", d)
	}
	for _, f := range s.hideFiles {
		if real, err := filepath.EvalSymlinks(f); err == nil && isFile(real) && !s.hidden(real) {
			a = append(a, "--ro-bind", "/dev/null", real)
		}
	}
	if spec.network {
		for _, p := range runVisible {
			if exists(p) {
				a = append(a, "--ro-bind", p, p)
			}
		}
		if spec.resolv != "" {
			a = append(a, "--ro-bind", spec.resolv, resolvConfPath())
		}
	}
	made := map[string]bool{}
	for _, p := range spec.ro {
		if s.isPrivate(p) || !exists(p) {
			continue // another project's checkout is no local repository
		}
		a = append(s.parents(a, p, made), "--ro-bind", p, p)
	}
	for _, d := range spec.rw {
		a = append(s.parents(a, d, made), "--bind", d, d)
	}
	if s.setpriv != "" {
		// bwrap enters directories after giving up its capabilities, so
		// root could not enter a directory of nobody's with mode 0700:
		// the shell does, as nobody (exit code 125 when it can't, like
		// env --chdir).
		a = append(a, "--chdir", "/", "--", s.setpriv, "--reuid", strconv.Itoa(buildUID), "--regid", strconv.Itoa(buildGID),
			"--clear-groups", "--inh-caps=-all", "--", "/bin/sh", "-c", chdirScript, "docsd-chdir", spec.dir)
	} else {
		a = append(a, "--chdir", spec.dir, "--")
	}
	a = append(a, path)
	return s.bwrap, append(a, argv[1:]...)
}

// wrapIn is wrap for a command that runs in the network namespace ns, or
// on the host's network (spec.network) or none when ns is nil.
func (s *sandbox) wrapIn(ns *netns, path string, argv []string, spec sandboxSpec) (string, []string) {
	if ns == nil {
		return s.wrap(path, argv, spec)
	}
	spec.resolv = ns.n.resolv
	return ns.enter(s.wrap(path, argv, spec))
}

// resolvConfPath is where /etc/resolv.conf leads, the file a network
// namespace's resolver configuration replaces.
func resolvConfPath() string {
	if p, err := filepath.EvalSymlinks("/etc/resolv.conf"); err == nil {
		return p
	}
	return "/etc/resolv.conf"
}

// parents appends to a the directories above path inside the empty file
// systems of the sandbox, made with mode 0755 (bwrap would make them
// 0700, closed to nobody), except those in made, which it extends.
func (s *sandbox) parents(a []string, path string, made map[string]bool) []string {
	var above []string
	for d := filepath.Dir(path); d != "/" && d != "."; d = filepath.Dir(d) {
		above = append(above, d)
	}
	for i := len(above) - 1; i >= 0; i-- {
		d := above[i]
		if made[d] || !s.underTmpfs(d) {
			continue
		}
		made[d] = true
		a = append(a, "--perms", "0755", "--dir", d)
	}
	return a
}

// underTmpfs reports whether dir is strictly inside one of the empty file
// systems the sandbox mounts.
func (s *sandbox) underTmpfs(dir string) bool {
	for _, m := range append(append([]string(nil), s.hide...), publicTmp...) {
		if dir != m && within(dir, m) {
			return true
		}
	}
	return false
}

// chdirScript enters its first argument and runs the rest as a command.
const chdirScript = `cd -- "$1" || exit 125; shift; exec "$@"`

// owner returns whom the sandbox runs commands as, when that is not
// docsd's own user: the directories bound read-write must be theirs.
func (s *sandbox) owner() (uid, gid int, ok bool) {
	if s == nil || s.setpriv == "" {
		return 0, 0, false
	}
	return buildUID, buildGID, true
}

// handOver makes everything under dir owned by uid:gid, without following
// links. With deep false, it does nothing when dir itself is theirs
// already.
func handOver(dir string, uid, gid int, deep bool) error {
	st, err := os.Lstat(dir)
	if err != nil || !st.IsDir() {
		return nil
	}
	if u, g, ok := ownerOf(st); ok && !deep && u == uid && g == gid {
		return nil
	}
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		if u, g, ok := ownerOf(info); ok && (u != uid || g != gid) {
			return os.Lchown(path, uid, gid)
		}
		return nil
	})
}

// hidden reports whether path is in a directory the sandbox replaces.
func (s *sandbox) hidden(path string) bool {
	if isPublicTmp(path) {
		return true
	}
	for _, d := range s.hide {
		if within(path, d) {
			return true
		}
	}
	return false
}

// isPrivate reports whether path is in one of docsd's data directories.
func (s *sandbox) isPrivate(path string) bool {
	if abs, err := filepath.EvalSymlinks(path); err == nil {
		path = abs
	}
	for _, d := range s.private {
		if within(path, d) {
			return true
		}
	}
	return false
}
