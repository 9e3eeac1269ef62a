//go:build !unix

package builder

import (
	"io/fs"
	"os"
	"os/exec"
	"syscall"
)

// What builder needs of the operating system beyond package os, on systems
// that are not Unix (system_unix.go there): builds need Linux (the
// sandbox, network isolation), so this is only what lets the package
// build and fail with that message.

// No process gets these signals here: values no exit code matches.
const (
	sigXCPU = syscall.Signal(-1 << 20)
	sigXFSZ = syscall.Signal(-1<<20 - 1)
)

// setProcessGroup does nothing: there are no process groups to lead.
func setProcessGroup(*exec.Cmd) {}

// killProcessGroup kills p alone.
func killProcessGroup(p *os.Process) error { return p.Kill() }

// allocatedBytes is a file's size.
func allocatedBytes(info fs.FileInfo) int64 { return info.Size() }

// ownerOf reports no owner: files have none in Unix's sense here.
func ownerOf(fs.FileInfo) (uid, gid int, ok bool) { return 0, 0, false }
