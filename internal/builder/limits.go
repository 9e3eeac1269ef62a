package builder

import (
	"context"
	"fmt"
	"io/fs"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Limits are the resources every build command may use (see
// docs/security.md#resource-limits). They are set with the kernel's
// resource limits (rlimits, through util-linux's prlimit) on each
// command, and inherited by every process it starts; the disk limit is
// watched by docsd. Zero values take
// the defaults noted; a negative value turns that limit off.
type Limits struct {
	// Memory is the address space of each process in bytes (RLIMIT_AS);
	// 2 GiB.
	Memory int64
	// Processes is how many processes the build's user may have
	// (RLIMIT_NPROC); 256. The kernel counts every process of the user
	// the command runs as (nobody when docsd runs as root, docsd's own
	// user otherwise) and does not apply it to root.
	Processes int
	// CPUTime is the processor time of each process (RLIMIT_CPU); 600 s.
	CPUTime time.Duration
	// Disk is how many bytes the project's checkout (with the build's
	// output) may hold, and the largest file any command may write
	// (RLIMIT_FSIZE); 1 GiB.
	Disk int64
}

func (l *Limits) defaults() {
	if l.Memory == 0 {
		l.Memory = 2 << 30
	}
	if l.Processes == 0 {
		l.Processes = 256
	}
	if l.CPUTime == 0 {
		l.CPUTime = 600 * time.Second
	}
	if l.Disk == 0 {
		l.Disk = 1 << 30
	}
}

// The notification ids of limits (Read the Docs' ids where it has one).
const (
	errorIDMemory  = "build:user:excessive-memory"
	errorIDGeneric = "build:user:generic"
)

// MsgLimitFormat is the error of a build stopped by a limit: the limit's
// name, its value and the operator setting that changes it.
const MsgLimitFormat = "The build exceeded the %s limit of %s (operator setting %s)."

// MsgDiskFull is the error of a build whose command failed because the
// machine's disk was full.
const MsgDiskFull = "The build ran out of disk space on the server (No space left on device)."

// limitError is a build failure caused by a limit, or by a full disk.
type limitError struct {
	name    string // memory, process, CPU time, disk
	value   string
	setting string
	errorID string
	msg     string // replaces the MsgLimitFormat message when set
}

func (e *limitError) Error() string {
	if e.msg != "" {
		return e.msg
	}
	return fmt.Sprintf(MsgLimitFormat, e.name, e.value, e.setting)
}

func (l Limits) memoryError() *limitError {
	return &limitError{"memory", humanBytes(l.Memory) + " per process", "--build-memory-limit", errorIDMemory, ""}
}

func (l Limits) processError() *limitError {
	return &limitError{"process", strconv.Itoa(l.Processes) + " processes", "--build-process-limit", errorIDGeneric, ""}
}

func (l Limits) cpuError() *limitError {
	return &limitError{"CPU time", l.CPUTime.String() + " per process", "--build-cpu-limit", errorIDGeneric, ""}
}

func (l Limits) diskError() *limitError {
	return &limitError{"disk", humanBytes(l.Disk), "--build-disk-limit", errorIDGeneric, ""}
}

// humanBytes writes n in the largest binary unit that divides it, or in
// MiB rounded down.
func humanBytes(n int64) string {
	for _, u := range []struct {
		size int64
		name string
	}{{1 << 40, "TiB"}, {1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d %s", n/u.size, u.name)
		}
	}
	if n >= 1<<20 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// prlimitArgs returns the prlimit command line that runs a command under
// the limits, or nil when prlimit is missing or no limit is on.
func (l Limits) prlimitArgs(prlimit string) []string {
	if prlimit == "" {
		return nil
	}
	a := []string{prlimit}
	if l.Memory > 0 {
		a = append(a, fmt.Sprintf("--as=%d", l.Memory))
	}
	if l.Processes > 0 {
		a = append(a, fmt.Sprintf("--nproc=%d", l.Processes))
	}
	if l.CPUTime > 0 {
		// SIGXCPU at the limit, SIGKILL a little later for processes
		// that ignore it.
		soft := int64((l.CPUTime + time.Second - 1) / time.Second)
		a = append(a, fmt.Sprintf("--cpu=%d:%d", soft, soft+5))
	}
	if l.Disk > 0 {
		a = append(a, fmt.Sprintf("--fsize=%d", l.Disk))
	}
	if len(a) == 1 {
		return nil
	}
	return append(a, "--")
}

// limited returns path and argv wrapped in prlimit under the pool's
// limits, or as they are without prlimit.
func (p *Pool) limited(path string, argv []string) (string, []string) {
	pre := p.cfg.Limits.prlimitArgs(p.prlimit)
	if pre == nil {
		return path, argv
	}
	return pre[0], append(append(append([]string{"prlimit"}, pre[1:]...), path), argv[1:]...)
}

// lookPrlimit finds prlimit, or warns that limits other than the disk's
// are not enforced.
func (p *Pool) lookPrlimit() {
	path, err := exec.LookPath("prlimit")
	if err != nil {
		p.logger.Warn("WARNING: prlimit (util-linux) is missing: build commands run without memory, process, CPU time and file size limits", "err", err)
		return
	}
	p.prlimit = path
}

// limitHit says which limit, if any, ended a command that failed: from the
// signal that killed it or its output's error messages.
func (l Limits) limitHit(res processResult) *limitError {
	if res.ExitCode == 0 {
		return nil
	}
	code := res.ExitCode
	sig := func(s syscall.Signal) bool { return code == -int(s) || code == 128+int(s) }
	out := res.Output
	switch {
	case l.CPUTime > 0 && sig(sigXCPU):
		return l.cpuError()
	case l.Disk > 0 && (sig(sigXFSZ) || strings.Contains(out, "File too large")):
		return l.diskError()
	case l.Memory > 0 && (strings.Contains(out, "MemoryError") || strings.Contains(out, "Cannot allocate memory") ||
		strings.Contains(out, "std::bad_alloc") || strings.Contains(out, "out of memory")):
		return l.memoryError()
	case strings.Contains(out, "No space left on device"):
		return &limitError{name: "disk", errorID: errorIDGeneric, msg: MsgDiskFull}
	case l.Processes > 0 && forkFailed(out):
		return l.processError()
	}
	return nil
}

// forkFailed reports whether a command's output says a process or thread
// could not be started (EAGAIN from RLIMIT_NPROC): dash's and busybox's
// "Cannot fork" / "can't fork", bash's "fork: retry: Resource temporarily
// unavailable", Python's BlockingIOError, a thread that could not start.
func forkFailed(out string) bool {
	lower := strings.ToLower(out)
	if strings.Contains(lower, "cannot fork") || strings.Contains(lower, "can't fork") || strings.Contains(lower, "fork failed") {
		return true
	}
	return strings.Contains(out, "Resource temporarily unavailable") &&
		(strings.Contains(out, "fork") || strings.Contains(out, "BlockingIOError") || strings.Contains(out, "thread"))
}

// diskWatchEvery is how often a running command's checkout is measured.
const diskWatchEvery = 2 * time.Second

// diskUsage returns the bytes of the regular files under root (not
// following links), stopping early once it passes stop (when positive).
func diskUsage(root string, stop int64) int64 {
	var total int64
	filepath.WalkDir(root, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				total += allocatedBytes(info)
			}
		}
		if stop > 0 && total > stop {
			return filepath.SkipAll
		}
		return nil
	})
	return total
}

// diskWatcher returns the tick function of a running command that kills
// it (kill with the disk limit's error) once the checkout holds more than
// the disk limit; nil without a disk limit.
func (l Limits) diskWatcher(ckout string, kill context.CancelCauseFunc) func() {
	if l.Disk <= 0 {
		return nil
	}
	last := time.Now()
	return func() {
		if time.Since(last) < diskWatchEvery {
			return
		}
		last = time.Now()
		if diskUsage(ckout, l.Disk) > l.Disk {
			kill(l.diskError())
		}
	}
}
