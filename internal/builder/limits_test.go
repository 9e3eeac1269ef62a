package builder

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"docsd/store"
)

// TestLimitsStopBuilds: a setup.py that forks hundreds of processes,
// allocates 2 GiB or writes past the disk limit (one big file or many
// small ones) is stopped, and its build ends failed with a message naming
// the limit (real processes, in the real sandbox when bwrap works).
func TestLimitsStopBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Python environment")
	}
	const mib = 1 << 20
	limits := Limits{Memory: 768 * mib, Processes: 150, Disk: 24 * mib}
	f := newFixture(t, store.SQLite, Config{Limits: limits})
	if os.Geteuid() == 0 && f.pool.sandbox() == nil {
		t.Skip("builder: process limits don't apply to root, and the sandbox (which runs builds as nobody) is unavailable")
	}
	imp, r := setupPyProject(t, f, "Limits", "print('fine')\n")
	f.drain()
	f.mustSucceed(f.build(imp.Build.ID))
	l := f.pool.cfg.Limits
	for _, tc := range []struct {
		name, script string
		want         *limitError
		stopped      bool // the process itself was stopped (the disk total is measured, possibly after it ended)
	}{
		{"forks", "import os, sys, time\nfor i in range(400):\n    if os.fork() == 0:\n        time.sleep(60)\n        os._exit(0)\nprint('forked 400')\n", l.processError(), true},
		{"shell forks", "import subprocess, sys\nr = subprocess.run(['/bin/sh', '-c', 'for i in $(seq 400); do sleep 60 & done; wait; echo forked 400'])\nsys.exit(r.returncode)\n", l.processError(), true},
		{"allocates", "b = bytearray(2 << 30)\nprint('allocated', len(b))\n", l.memoryError(), true},
		{"big file", "open('big', 'wb').write(b'x' * (40 << 20))\nprint('written')\n", l.diskError(), true},
		{"many files", "for i in range(8):\n    open('part%d' % i, 'wb').write(b'x' * (6 << 20))\nprint('written')\n", l.diskError(), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r.commit(tc.name, map[string]string{"setup.py": tc.script})
			b := f.trigger(f.version(imp.Project.ID, "latest"))
			f.drain()
			b = f.build(b.ID)
			if b.State != store.Finished || b.Success || b.Error != tc.want.Error() || b.ErrorID != tc.want.errorID {
				t.Errorf("build: state %s success %v error %q id %q; want %q", b.State, b.Success, b.Error, b.ErrorID, tc.want.Error())
			}
			cmds := f.commands(b.ID)
			if last := cmds[len(cmds)-1]; tc.stopped && (strings.Contains(last.Output, "forked 400") ||
				strings.Contains(last.Output, "allocated") || strings.Contains(last.Output, "written")) {
				t.Errorf("the command got past its limit: %q", last.Output)
			}
		})
	}
}

func TestLimitsPrlimitArgs(t *testing.T) {
	l := Limits{Memory: 2 << 30, Processes: 256, CPUTime: 90 * time.Second, Disk: 1 << 30}
	got := strings.Join(l.prlimitArgs("/usr/bin/prlimit"), " ")
	want := "/usr/bin/prlimit --as=2147483648 --nproc=256 --cpu=90:95 --fsize=1073741824 --"
	if got != want {
		t.Errorf("prlimit args %q, want %q", got, want)
	}
	if args := (Limits{Memory: -1, Processes: -1, CPUTime: -1, Disk: -1}).prlimitArgs("/usr/bin/prlimit"); args != nil {
		t.Errorf("limits off: %q, want no prlimit", args)
	}
	if e := l.cpuError(); e.Error() != "The build exceeded the CPU time limit of 1m30s per process (operator setting --build-cpu-limit)." {
		t.Errorf("CPU message %q", e.Error())
	}
	if e := l.limitHit(processResult{ExitCode: -int(syscall.SIGXCPU)}); e == nil || e.name != "CPU time" {
		t.Errorf("SIGXCPU: %v, want the CPU time limit", e)
	}
	if e := l.limitHit(processResult{ExitCode: 1, Output: "OSError: [Errno 28] No space left on device"}); e == nil || e.Error() != MsgDiskFull {
		t.Errorf("a full disk: %v", e)
	}
	if e := l.limitHit(processResult{ExitCode: 1, Output: "all fine"}); e != nil {
		t.Errorf("an ordinary failure was taken for %v", e)
	}
}

// TestLimitsForkFailures: the ways commands report a fork refused by the
// process limit all give the process limit's message.
func TestLimitsForkFailures(t *testing.T) {
	l := Limits{Processes: 256}
	want := "The build exceeded the process limit of 256 processes (operator setting --build-process-limit)."
	for _, out := range []string{
		"/bin/sh: 0: Cannot fork\n",
		"sh: 1: Cannot fork",
		"sh: can't fork: Resource temporarily unavailable",
		"bash: fork: retry: Resource temporarily unavailable\nbash: fork: Resource temporarily unavailable",
		"BlockingIOError: [Errno 11] Resource temporarily unavailable",
		"RuntimeError: can't start new thread: Resource temporarily unavailable",
		"make: vfork failed",
	} {
		if e := l.limitHit(processResult{ExitCode: 2, Output: out}); e == nil || e.Error() != want {
			t.Errorf("%q: %v, want %q", out, e, want)
		}
	}
	for _, out := range []string{"Resource temporarily unavailable (connecting to pypi.org)", "git: fork of a repository"} {
		if e := l.limitHit(processResult{ExitCode: 1, Output: out}); e != nil {
			t.Errorf("%q taken for %v", out, e)
		}
	}
	if e := (Limits{Processes: -1}).limitHit(processResult{ExitCode: 2, Output: "sh: 1: Cannot fork"}); e != nil {
		t.Errorf("no process limit, yet %v", e)
	}
}

// TestFullDiskFailsTheBuild: a command that fills the disk (a small tmpfs
// mounted as the checkouts' directory) fails the build with a clear message;
// the build ends finished.
func TestFullDiskFailsTheBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Python environment")
	}
	if os.Geteuid() != 0 {
		t.Skip("builder: mounting a small file system needs root")
	}
	f := newFixture(t, store.SQLite, Config{Limits: Limits{Disk: 256 << 20}})
	imp, _ := setupPyProject(t, f, "Full", "open('fill', 'wb').write(b'x' * (64 << 20))\nprint('written')\n")
	ckout := filepath.Join(f.data, "checkouts")
	if err := os.MkdirAll(ckout, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", ckout, "tmpfs", 0, "size=16m"); err != nil {
		t.Skipf("builder: can't mount a tmpfs here: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(ckout, syscall.MNT_DETACH) })
	f.drain()
	b := f.build(imp.Build.ID)
	if b.State != store.Finished || b.Success || b.Error != MsgDiskFull {
		t.Errorf("build: state %s success %v error %q; want %q", b.State, b.Success, b.Error, MsgDiskFull)
	}
}
