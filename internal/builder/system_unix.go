//go:build unix

package builder

import (
	"io/fs"
	"os"
	"os/exec"
	"syscall"
)

// What builder needs of the operating system beyond package os, on Unix
// systems (system_other.go elsewhere).

// The signals a process gets past its CPU time and file size limits.
const (
	sigXCPU = syscall.SIGXCPU
	sigXFSZ = syscall.SIGXFSZ
)

// setProcessGroup makes cmd lead a process group of its own, so that
// killProcessGroup reaches every process it starts.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killProcessGroup kills the process group p leads (setProcessGroup).
func killProcessGroup(p *os.Process) error {
	// The negative pid names the process group.
	return syscall.Kill(-p.Pid, syscall.SIGKILL)
}

// allocatedBytes is the disk space a file takes: its blocks, which a
// sparse file has fewer of than its size says.
func allocatedBytes(info fs.FileInfo) int64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return st.Blocks * 512
	}
	return info.Size()
}

// ownerOf returns the user and group that own a file.
func ownerOf(info fs.FileInfo) (uid, gid int, ok bool) {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid), int(st.Gid), true
	}
	return 0, 0, false
}
