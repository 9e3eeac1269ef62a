package builder

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"docsd/store"
)

// job is one build, or one sync task (build and version nil), as a worker
// runs it: its directories, the variables its commands get and the
// masking of their values.
type job struct {
	pool    *Pool
	owner   string         // the worker holding the build's lease
	build   *store.Build   // nil for a sync task
	project *store.Project //
	version *store.Version // nil for a sync task
	vars    []*store.EnvironmentVariable
	mask    *masker
	logger  *slog.Logger

	ckout  string // the project's checkout, the clone cache
	envDir string // the version's Python environment
	home   string // HOME of the job's commands
	conda  string // conda environments root, "" without conda

	// envKind is how the environment was made (the venv command without
	// its path); installed says whether anything was installed into it.
	// Environments of one kind with nothing installed can run the same
	// tools.
	envKind   string
	installed bool

	exitCodes []int // of every recorded command: a failed build's exit code is their highest

	// submoduleURLs are the URLs of the submodules being checked out, so
	// that local ones are visible to git in the sandbox.
	submoduleURLs []string

	// commit is the build's commit once the checkout is made
	// (READTHEDOCS_GIT_COMMIT_HASH); stableFollows is the name of the
	// version machine `stable` follows (READTHEDOCS_GIT_IDENTIFIER).
	commit, stableFollows string
	// current is set for a current-file build: its install and build
	// steps get the tools' PATH and variables.
	current *currentState
	// access holds the repository credentials while the VCS step runs
	// (openRepoAccess, closeRepoAccess); nil otherwise.
	access *repoAccess
	// ns is the network namespace of the job's commands that need the
	// network, opened by the first of them (netns) and closed with the job
	// (closeNet).
	ns *netns
}

// cmdOpts says how a command runs.
type cmdOpts struct {
	dir         string // working directory; the checkout when empty
	vcs         bool   // a VCS command: stdin closed, no prompts, own HOME; has network
	inEnv       bool   // an install or build step: <env>/bin first on PATH
	network     bool   // needs the network in the sandbox (installing); VCS commands always have it
	description string
	// record, when set, is the command recorded instead of argv (a job
	// command recorded as written).
	record string
	// exitCode, when set, decides the recorded exit code from the output
	// (latexmk's "Output written on" rule).
	exitCode func(output string, code int) int
}

// errLeaseLost ends a job whose build was taken from it (swept after its
// lease expired); such a job must not write its result.
var errLeaseLost = errors.New("build lease lost")

// errStopping ends a job because its worker is shutting down.
var errStopping = errors.New("worker stopping")

// errConfine ends a job whose checkout confineTree could not make safe.
var errConfine = errors.New("builder: confining the checkout")

// errTimeLimit ends a build that ran past its time limit.
var errTimeLimit = errors.New("build time limit exceeded")

// environ returns the environment of a command (see
// docs/security.md#variables).
func (j *job) environ(o cmdOpts) *environ {
	env := newEnviron()
	env.Set("PATH", systemPath)
	env.Set("HOME", j.home)
	env.Set("LANG", "C.UTF-8")
	if o.inEnv {
		bin := filepath.Join(j.envDir, "bin")
		env.Set("BIN_PATH", bin)
		env.Set("PATH", bin+":"+systemPath)
		if j.conda != "" {
			// The commands run inside the environment, as after `conda
			// activate`: its bin first on PATH, CONDA_PREFIX naming it.
			env.Set("CONDA_ENVS_PATH", j.conda)
			env.Set("CONDA_DEFAULT_ENV", j.version.Slug)
			env.Set("CONDA_PREFIX", j.envDir)
		}
		if j.current != nil {
			j.current.environ(j, env)
		}
	}
	// The operator's package index settings, before the project's
	// variables, which may name an index of their own.
	j.pool.cfg.packageEnv(env)
	for _, v := range j.vars {
		env.Set(v.Name, v.Value)
	}
	env.Set("READTHEDOCS", "True")
	env.Set("READTHEDOCS_PROJECT", j.project.Slug)
	if j.version != nil {
		env.Set("READTHEDOCS_VERSION", j.version.Slug)
		j.rtdVariables(env, o.inEnv)
	}
	env.Set("READTHEDOCS_LANGUAGE", j.project.Language)
	if o.vcs {
		env.Set("GIT_TERMINAL_PROMPT", "0")
		env.Set("GIT_SSH_COMMAND", "ssh -o BatchMode=yes")
		env.Set("GIT_CONFIG_NOSYSTEM", "1")
		env.Set("HOME", j.home)
		if j.pool.cfg.AllowLocalRepos {
			// git refuses file:// submodules unless told; the operator
			// allowed local repositories.
			addGitConfig(env, "protocol.file.allow", "always")
		}
		if f := j.pool.cfg.RepositoryCAFile; f != "" {
			addGitConfig(env, "http.sslCAInfo", f)
		}
		j.access.setGitEnv(env)
	}
	return env
}

// run runs argv and records it as a build command (for builds; sync tasks
// record nothing). The command is recorded when it starts and its output
// while it runs (liveRecord). A command that cannot be started is recorded
// with exit code 127 and the reason as output. When the job's context ends
// while the command runs, its process group is killed, the command is
// recorded, and the context's cause is returned; a command stopped by a
// limit, or that failed because of one, returns the limit's error.
func (j *job) run(ctx context.Context, argv []string, o cmdOpts) (processResult, error) {
	if sbx := j.pool.sandbox(); sbx != nil && sbx.err != nil {
		return processResult{}, sbx.err // docsd's problem: nothing ran, nothing is recorded
	}
	if n := j.pool.net; n != nil && n.err != nil && (o.vcs || o.network) {
		return processResult{}, n.err // the network step fails with why; nothing ran, nothing is recorded
	}
	command := strings.Join(argv, " ")
	if o.record != "" {
		command = o.record
	}
	live, err := j.startRecord(ctx, command, o.description)
	if err != nil {
		return processResult{}, err
	}
	res, limitErr, err := j.processLimited(ctx, argv, o, live.tick)
	if errors.Is(err, errSandbox) || errors.Is(err, errConfine) || errors.Is(err, errNetwork) {
		return res, errors.Join(err, live.abandon(ctx))
	}
	if err != nil {
		t := now()
		res = processResult{Output: err.Error(), ExitCode: 127, Start: t, End: t}
	}
	if o.exitCode != nil && !res.Killed {
		res.ExitCode = o.exitCode(res.Output, res.ExitCode)
	}
	if rerr := j.record(ctx, live, command, o.description, res); rerr != nil {
		return res, rerr
	}
	if res.Killed && ctx.Err() == nil && limitErr != nil {
		return res, limitErr
	}
	if res.Killed || ctx.Err() != nil {
		return res, context.Cause(ctx)
	}
	if limitErr != nil {
		return res, limitErr
	}
	if lim := j.pool.cfg.Limits.limitHit(res); lim != nil && j.build != nil {
		return res, lim
	}
	return res, nil
}

// process is processLive without live output.
func (j *job) process(ctx context.Context, argv []string, o cmdOpts) (processResult, error) {
	return j.processLive(ctx, argv, o, nil)
}

// processLimited runs argv as a process of the job, in the sandbox when builds
// are sandboxed, without recording it, and then confines the checkout
// (confineTree). An error is returned when the process could not be
// started, errSandbox when the sandbox is required and can't run, and
// errConfine when the checkout could not be confined. tick, when set, sees
// the output while the process runs. The process runs under the pool's
// limits; limitErr is the disk limit's error when the checkout grew past
// it (the process was killed for it, or it ended just past it).
func (j *job) processLimited(ctx context.Context, argv []string, o cmdOpts, tick func(raw []byte, cut bool)) (res processResult, limitErr *limitError, err error) {
	ctx, kill := context.WithCancelCause(ctx)
	defer kill(nil)
	watch := j.pool.cfg.Limits.diskWatcher(j.ckout, kill)
	ticked := func(raw []byte, cut bool) {
		if tick != nil {
			tick(raw, cut)
		}
		if watch != nil {
			watch()
		}
	}
	res, err = j.processLive(ctx, argv, o, ticked)
	if err == nil && j.pool.cfg.Limits.Disk > 0 && j.build != nil {
		var lim *limitError
		if errors.As(context.Cause(ctx), &lim) {
			return res, lim, nil
		}
		if diskUsage(j.ckout, j.pool.cfg.Limits.Disk) > j.pool.cfg.Limits.Disk {
			return res, j.pool.cfg.Limits.diskError(), nil
		}
	}
	return res, nil, err
}

// processLive is processLimited without the disk limit.
func (j *job) processLive(ctx context.Context, argv []string, o cmdOpts, tick func(raw []byte, cut bool)) (processResult, error) {
	dir := o.dir
	if dir == "" {
		dir = j.ckout
	}
	path, err := j.pool.lookPath(argv[0])
	if err != nil {
		return processResult{}, err
	}
	env := j.environ(o).List()
	sbx := j.pool.sandbox()
	var ns *netns
	if o.vcs || o.network {
		// Never the host's network unless the operator chose it: a
		// command that needs the network and can't have its own does
		// not run.
		if ns, err = j.network(ctx); err != nil {
			return processResult{}, err
		}
	}
	if err := j.handOver(sbx); err != nil {
		return processResult{}, fmt.Errorf("%w: %v", errConfine, err)
	}
	if sbx == nil {
		lpath, largv := j.pool.limited(path, argv)
		return j.confined(runProcessLive(ctx, lpath, largv, dir, env, tick))
	}
	if sbx.err != nil {
		return processResult{}, sbx.err
	}
	spec := sandboxSpec{dir: dir, network: o.vcs || o.network}
	for _, d := range []string{j.ckout, j.home, j.envDir, j.conda} {
		if d != "" && isDir(d) {
			spec.rw = append(spec.rw, d)
		}
	}
	if o.vcs {
		spec.ro = j.localRepos()
		if f := j.pool.cfg.RepositoryCAFile; f != "" {
			spec.ro = append(spec.ro, f)
		}
		if j.access != nil && j.access.ssh != nil {
			// ssh reads the key and writes known_hosts there.
			spec.rw = append(spec.rw, j.access.ssh.Dir)
			if f := j.pool.cfg.SSHKnownHosts; f != "" {
				spec.ro = append(spec.ro, f)
			}
		}
	}
	wpath, wargv := sbx.wrapIn(ns, path, argv, spec)
	wpath, wargv = j.pool.limited(wpath, wargv)
	return j.confined(runSandboxed(ctx, wpath, wargv, dir, env, tick))
}

// runSandboxed is runProcessLive for a command wrapped in bwrap. bwrap binds
// the whole root, then remounts each mount under it read-only; a named
// network namespace (a mount under /run/netns, made by ip netns) removed
// between the two makes bwrap fail before the command starts. Nothing ran
// then, so the command is started again, a few times.
func runSandboxed(ctx context.Context, path string, argv []string, dir string, env []string, tick func(raw []byte, cut bool)) (processResult, error) {
	for attempt := 1; ; attempt++ {
		res, err := runProcessLive(ctx, path, argv, dir, env, tick)
		if err != nil || attempt == 5 || ctx.Err() != nil || !lostMountRace(res) {
			return res, err
		}
	}
}

// lostMountRace reports whether res is bwrap's own failure to remount a
// mount under /run/netns that was removed while it set the sandbox up:
// gone already (ENOENT), or caught while being unmounted (EINVAL; seen in
// two concurrent full test runs).
func lostMountRace(res processResult) bool {
	return res.ExitCode == 1 && strings.HasPrefix(res.Output, "bwrap: ") &&
		strings.Contains(res.Output, "/run/netns/") &&
		(strings.Contains(res.Output, "No such file or directory") || strings.Contains(res.Output, "Invalid argument")) &&
		!strings.Contains(strings.TrimSpace(res.Output), "\n")
}

// handOver gives the job's directories to whom its commands run as, when
// docsd runs as root: nobody in the sandbox, root itself otherwise (git
// refuses a checkout of another user, as one a sandboxed build left). The
// checkout is walked every time, since docsd writes into it between
// commands; the other directories only when their top is someone else's.
func (j *job) handOver(sbx *sandbox) error {
	if os.Geteuid() != 0 {
		return nil
	}
	uid, gid, ok := sbx.owner()
	if !ok {
		uid, gid = 0, 0
	}
	for _, d := range []string{j.ckout, j.home, j.envDir, j.conda} {
		if d == "" {
			continue
		}
		if err := handOver(d, uid, gid, d == j.ckout); err != nil {
			return err
		}
	}
	return nil
}

// confined passes on a process's result after confineTree made the
// checkout safe for docsd to read again.
func (j *job) confined(res processResult, err error) (processResult, error) {
	if err != nil {
		return res, err
	}
	if err := confineTree(j.ckout); err != nil {
		return res, fmt.Errorf("%w: %v", errConfine, err)
	}
	return res, nil
}

// localRepos are the local repositories (file:// URLs, which the
// operator allowed) that VCS commands read: the project's and its
// submodules', relative submodule URLs taken from the project's.
func (j *job) localRepos() []string {
	if !j.pool.cfg.AllowLocalRepos {
		return nil
	}
	base, ok := strings.CutPrefix(j.project.Repo, "file://")
	if !ok {
		return nil
	}
	paths := []string{base}
	for _, u := range j.submoduleURLs {
		switch {
		case strings.HasPrefix(u, "file://"):
			paths = append(paths, strings.TrimPrefix(u, "file://"))
		case strings.HasPrefix(u, "./"), strings.HasPrefix(u, "../"):
			paths = append(paths, filepath.Join(base, u))
		}
	}
	return paths
}

// must runs argv and fails the build when it exits non-zero.
func (j *job) must(ctx context.Context, argv []string, o cmdOpts) (processResult, error) {
	res, err := j.run(ctx, argv, o)
	if err != nil {
		return res, err
	}
	if res.ExitCode != 0 {
		return res, commandFailed(strings.Join(argv, " "), res.ExitCode)
	}
	return res, nil
}

// record stores a command of a build with its output masked: it closes
// the command's live record, or adds the command when live is nil. It
// writes even when ctx has ended (a killed command is recorded too),
// except when the build's lease was lost: the build is someone else's now,
// nothing is recorded and errLeaseLost is returned.
func (j *job) record(ctx context.Context, live *liveRecord, command, description string, res processResult) error {
	if errors.Is(context.Cause(ctx), errLeaseLost) {
		return errLeaseLost
	}
	if j.build == nil {
		if res.ExitCode != 0 {
			j.logger.Info("sync command failed", "command", j.mask.Mask(command), "exit_code", res.ExitCode,
				"output", tail(j.mask.Mask(res.Output), 2000))
		}
		return nil
	}
	j.exitCodes = append(j.exitCodes, res.ExitCode)
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	end := res.End
	code := res.ExitCode
	c := store.BuildCommand{
		BuildID: j.build.ID, Command: j.mask.Mask(command), Description: description,
		Output: recordedOutput(res.Output, res.Cut, j.mask), ExitCode: &code, StartTime: res.Start, EndTime: &end,
	}
	if live != nil {
		return live.close(wctx, c)
	}
	_, err := j.pool.store.AddBuildCommand(wctx, c)
	return err
}

// recordNote records a command docsd did not run as a process (skipped
// steps, the built-in builder).
func (j *job) recordNote(ctx context.Context, command, description, output string, code int, start time.Time) error {
	return j.record(ctx, nil, command, description, processResult{Output: output, ExitCode: code, Start: start, End: now()})
}

// tail returns the last n bytes of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

// lookPath resolves a program name: absolute paths as they are, names
// first on docsd's own PATH (where the operator installed git), then on
// the build PATH.
func (p *Pool) lookPath(name string) (string, error) {
	if filepath.IsAbs(name) {
		if _, err := os.Stat(name); err != nil {
			return "", fmt.Errorf("%s: %w", name, exec.ErrNotFound)
		}
		return name, nil
	}
	if path, err := exec.LookPath(name); err == nil {
		return path, nil
	}
	for _, dir := range filepath.SplitList(systemPath) {
		path := filepath.Join(dir, name)
		if st, err := os.Stat(path); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return path, nil
		}
	}
	return "", fmt.Errorf("%s: %w", name, exec.ErrNotFound)
}
