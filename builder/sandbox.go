package builder

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
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
}

// sandboxSpec is what one sandboxed command may use.
type sandboxSpec struct {
	dir     string   // working directory, inside one of rw
	rw      []string // directories bound read-write (the job's checkout, environment, HOME)
	ro      []string // paths bound read-only over the hidden directories (local repositories)
	network bool     // keep the host's network (cloning and installing)
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
	path, err := exec.LookPath("bwrap")
	if err != nil {
		return unavailable(err)
	}
	s := &sandbox{bwrap: path, hide: hiddenDirs(hide), private: resolveDirs(hide)}
	for _, f := range hide {
		if f != "" && !isDir(f) {
			if abs, err := filepath.Abs(f); err == nil {
				s.hideFiles = append(s.hideFiles, abs)
			}
		}
	}
	if err := s.probe(); err != nil {
		return unavailable(err)
	}
	logger.Info("build commands run in a bubblewrap sandbox", "bwrap", path, "hidden", s.hide)
	return s
}

// probe runs `true` in the sandbox as a build command would.
func (s *sandbox) probe() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dir, err := os.MkdirTemp("", "docsd-sandbox-probe-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	truePath, err := exec.LookPath("true")
	if err != nil {
		return err
	}
	path, argv := s.wrap(truePath, []string{"true"}, sandboxSpec{dir: dir, rw: []string{dir}})
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
	}
	for _, p := range spec.ro {
		if s.isPrivate(p) || !exists(p) {
			continue // another project's checkout is no local repository
		}
		a = append(a, "--ro-bind", p, p)
	}
	for _, d := range spec.rw {
		a = append(a, "--bind", d, d)
	}
	a = append(a, "--chdir", spec.dir, "--", path)
	return s.bwrap, append(a, argv[1:]...)
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
