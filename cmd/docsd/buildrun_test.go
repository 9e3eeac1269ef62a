package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// sleeperRepo is a repository whose setup.py (run by the install step)
// marks that it runs, in its HOME, and then sleeps.
func sleeperRepo(t *testing.T, title string) string {
	files := repoFiles(title)
	files[".readthedocs.yaml"] = "version: 2\nmkdocs: {}\npython:\n  install:\n    - path: .\n      method: setuptools\n"
	files["setup.py"] = "import os, time\nopen(os.path.join(os.environ['HOME'], 'running'), 'w').write('yes')\nprint('sleeping', flush=True)\ntime.sleep(120)\n"
	return gitRepo(t, files)
}

// lastBuild reads the state and error of the project's last build of
// latest through the graph.
func (s *e2eServer) lastBuild(t *testing.T, slug string) (state, errMsg string) {
	t.Helper()
	var data struct {
		Project struct {
			Version struct {
				LastBuild struct {
					State struct{ Code string }
					Error *string
				}
			}
		}
	}
	s.graphql(t, `query($p: String!) { project(slug: $p) { version(slug: "latest") { lastBuild { state { code } error } } } }`,
		map[string]any{"p": slug}, &data)
	b := data.Project.Version.LastBuild
	if b.Error != nil {
		errMsg = *b.Error
	}
	return b.State.Code, errMsg
}

// TestCancelAndShutdownAcrossProcesses runs the real program: builds run
// in a `docsd worker` while `docsd build cancel`, another command with its
// own database connection, cancels one; the worker sees it through the
// database and stops the build. Stopping the worker then puts the build it
// was running back in the queue.
func TestCancelAndShutdownAcrossProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds Python environments")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("NO GIT BINARY: the build test needs git")
	}
	data := t.TempDir()
	token := createUser(t, data, "alice")
	srv := startServe(t, data, "--build-workers", "0")
	srv.token = token
	srv.importProject(t, "First", sleeperRepo(t, "First"), "en")
	srv.importProject(t, "Second", sleeperRepo(t, "Second"), "en")

	ctx, stopWorker := context.WithCancel(context.Background())
	var workerLog bytes.Buffer
	exited := make(chan int, 1)
	go func() {
		exited <- run(ctx, []string{"worker", "--data-dir", data, "--allow-local-repos", "--build-workers", "1"}, io.Discard, &syncWriter{w: &workerLog})
	}()
	defer stopWorker()
	running := func(slug string) string { return filepath.Join(data, "builds", "homes", slug, "running") }
	exists := func(p string) func() bool { return func() bool { _, err := os.Stat(p); return err == nil } }

	// The worker takes the oldest build (1, First's); cancel it from
	// another command.
	first, second := "first", "second"
	waitFor(t, exists(running(first)))
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"build", "cancel", "1", "--data-dir", data}, &out, &errOut); code != 0 {
		t.Fatalf("build cancel: %d %s", code, errOut.String())
	}
	waitFor(t, func() bool { state, _ := srv.lastBuild(t, first); return state == "finished" })
	if state, msg := srv.lastBuild(t, first); msg != "Build cancelled manually." {
		t.Errorf("cancelled build: %s %q", state, msg)
	}

	// The next build runs; the worker's shutdown requeues it.
	waitFor(t, exists(running(second)))
	stopWorker()
	select {
	case code := <-exited:
		if code != 0 {
			t.Errorf("worker exited with %d:\n%s", code, workerLog.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the worker did not stop")
	}
	if state, msg := srv.lastBuild(t, second); state != "triggered" || msg != "" {
		t.Errorf("build interrupted by shutdown: %s %q, want it queued again", state, msg)
	}
	if strings.Contains(workerLog.String(), "report this to us") {
		t.Errorf("worker log mentions an internal error:\n%s", workerLog.String())
	}
}

func TestBuildRunSettings(t *testing.T) {
	t.Setenv("DOCSD_BUILD_MEMORY_LIMIT", "512")
	t.Setenv("DOCSD_BUILD_DISK_LIMIT", "0")
	c := &command{stdout: io.Discard, stderr: io.Discard}
	fs, env := c.flags("serve", "serve")
	if _, err := c.parse(fs, env, []string{"--build-process-limit", "64", "--allow-private-network"}); err != nil {
		t.Fatal(err)
	}
	s := c.settings
	if s.BuildMemoryLimit != 512 || s.BuildProcessLimit != 64 || s.BuildCPULimit != 600 || s.BuildDiskLimit != 0 ||
		s.BuildNetwork != "auto" || !s.AllowPrivateNetwork {
		t.Fatalf("settings = %+v", s)
	}
	l := buildLimits(s)
	if l.Memory != 512<<20 || l.Processes != 64 || l.CPUTime != 600*time.Second || l.Disk != -1 {
		t.Errorf("limits = %+v; want 512 MiB, 64, 600 s and the disk limit off", l)
	}
	for _, bad := range [][]string{{"--build-network", "slirp"}, {"--build-cpu-limit", "-1"}} {
		c := &command{stdout: io.Discard, stderr: io.Discard}
		fs, env := c.flags("serve", "serve")
		if _, err := c.parse(fs, env, bad); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}
