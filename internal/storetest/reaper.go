package storetest

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// The reaper drops, when a test process exits however it exits (a panic, a
// -timeout, a kill), every database that process made on a server that
// outlives it: the migrated template, and the test databases whose cleanup
// never ran. It is the test binary itself, started again with these
// variables set; init runs it before any test.
const (
	envReaperURL    = "DOCSD_STORETEST_REAPER_URL"
	envReaperPrefix = "DOCSD_STORETEST_REAPER_PREFIX"
)

// reaperPipe is the write end of the reaper's stdin, never written or closed
// by this process (see watchdogPipe).
var reaperPipe *os.File

func init() {
	if url := os.Getenv(envReaperURL); url != "" {
		os.Exit(reap(url, os.Getenv(envReaperPrefix)))
	}
}

// startReaper starts the reaper for srv. When it cannot, no template
// database is made, since nothing would drop it.
func (srv *pgServer) startReaper() {
	exe, err := os.Executable()
	if err != nil {
		srv.noTemplate = fmt.Errorf("no reaper: %w", err)
		return
	}
	r, w, err := os.Pipe()
	if err != nil {
		srv.noTemplate = fmt.Errorf("no reaper: %w", err)
		return
	}
	defer r.Close()
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), envReaperURL+"="+srv.url.String(), envReaperPrefix+"="+srv.prefix())
	cmd.Stdin = r
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		w.Close()
		srv.noTemplate = fmt.Errorf("no reaper: %w", err)
		return
	}
	go cmd.Wait()
	reaperPipe = w
}

// reap waits for the parent to exit (EOF on stdin), then drops the databases
// whose names start with prefix. It returns the exit status.
func reap(url, prefix string) int {
	io.Copy(io.Discard, os.Stdin)
	if prefix == "" {
		return 2
	}
	db, err := sql.Open("postgres", url)
	if err != nil {
		return 1
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rows, err := db.QueryContext(ctx, `SELECT datname FROM pg_database WHERE left(datname, length($1)) = $1`, prefix)
	if err != nil {
		return 1
	}
	var names []string
	for rows.Next() {
		var name string
		if rows.Scan(&name) == nil {
			names = append(names, name)
		}
	}
	rows.Close()
	srv := &pgServer{admin: db}
	status := 0
	for _, name := range names {
		if err := srv.dropDatabase(ctx, name); err != nil {
			status = 1
		}
	}
	return status
}
