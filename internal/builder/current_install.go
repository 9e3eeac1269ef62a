package builder

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"docsd/internal/rtdconfig"
)

// pipLauncher is the `pip` script written into environments made without
// pip, so that `pip install …` in job commands installs into them.
const pipLauncher = "#!/bin/sh\nexec \"$(dirname \"$0\")/python\" -m pip \"$@\"\n"

// currentInstalling is the installing state of a current-file build: the
// system-dependency jobs around the apt note, the tools, creating the
// environment, installing, each with its pre_ and post_ jobs.
func (j *job) currentInstalling(ctx context.Context, cfg *BuildConfig) error {
	cur := cfg.Current
	steps := []func() error{
		func() error { return j.runJob(ctx, cur, "pre_system_dependencies") },
		func() error { return j.aptPackages(ctx, cur.AptPackages) },
		func() error { return j.runJob(ctx, cur, "post_system_dependencies") },
		func() error { return j.toolNotes(ctx, cur) },
		func() error { return j.checkUV(cfg) },
		func() error { return j.runJob(ctx, cur, "pre_create_environment") },
		func() error { return j.createEnvironment(ctx, cfg) },
		func() error { return j.runJob(ctx, cur, "post_create_environment") },
		func() error { return j.runJob(ctx, cur, "pre_install") },
		func() error { return j.currentInstall(ctx, cfg) },
		func() error { return j.runJob(ctx, cur, "post_install") },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// createEnvironment is the create_environment step: the job when given,
// else conda's environment, uv's, or a venv (none for a generic build
// without a python tool).
func (j *job) createEnvironment(ctx context.Context, cfg *BuildConfig) error {
	cur := cfg.Current
	if _, given := cur.Job("create_environment"); given {
		return j.runJob(ctx, cur, "create_environment")
	}
	python := cur.Tool("python")
	switch {
	case python != nil && rtdconfig.IsConda(python.Version) && cfg.Conda != nil:
		return j.prepareConda(ctx, python.Path, *cfg.Conda)
	case uvEntry(cfg) != nil:
		return j.createUVEnv(ctx, cfg)
	case (python != nil && !rtdconfig.IsConda(python.Version)) || cfg.Doctype != doctypeGeneric:
		return j.createVenv(ctx, cfg)
	}
	return nil
}

// currentInterpreter is the resolved Python, build_python without a tool.
func (j *job) currentInterpreter(cfg *BuildConfig) string {
	if t := cfg.Current.Tool("python"); t != nil && t.Path != "" && !rtdconfig.IsConda(t.Version) {
		return t.Path
	}
	return j.pool.cfg.BuildPython
}

// createVenv makes a fresh environment with the resolved interpreter and
// writes pip launchers when it has no pip.
func (j *job) createVenv(ctx context.Context, cfg *BuildConfig) error {
	argv := []string{j.currentInterpreter(cfg), "-m", "venv"}
	if !j.pool.cfg.InstallCoreRequirements {
		argv = append(argv, "--system-site-packages", "--without-pip")
	}
	if err := j.freshEnvDir(); err != nil {
		return err
	}
	if _, err := j.must(ctx, append(argv, j.envDir), cmdOpts{}); err != nil {
		return err
	}
	j.envKind, j.installed = "", true // never reused: every current-file build makes its own
	for _, name := range []string{"pip", "pip3"} {
		p := filepath.Join(j.envDir, "bin", name)
		if !exists(p) {
			if err := os.WriteFile(p, []byte(pipLauncher), 0o755); err != nil {
				return err
			}
		}
	}
	return nil
}

// freshEnvDir empties the environment directory (an empty directory, so
// that the sandbox can bind it).
func (j *job) freshEnvDir() error {
	if err := os.RemoveAll(j.envDir); err != nil {
		return err
	}
	return os.MkdirAll(j.envDir, 0o755)
}

// uvEntry is the `method: uv` install entry, nil when there is none.
func uvEntry(cfg *BuildConfig) *rtdconfig.UVInstall {
	for _, in := range cfg.Install {
		if in.UV != nil {
			return in.UV
		}
	}
	return nil
}

// uvPath resolves uv: build_tools uv:latest, then the build PATH.
func (j *job) uvPath() (string, error) {
	if p := j.pool.cfg.BuildTools.lookup("uv", "latest"); p != "" && isFile(p) {
		return p, nil
	}
	if p, ok := j.lookTool("uv"); ok {
		return p, nil
	}
	return "", Failure(IDCommandFailed, `python.install method "uv": uv is not installed on this server.`)
}

// checkUV is the uv part of the tools step: a `method: uv` install
// entry needs uv, found like a tool before any environment is made;
// without it the build fails here, as for a missing tool.
func (j *job) checkUV(cfg *BuildConfig) error {
	u := uvEntry(cfg)
	if u == nil {
		return nil
	}
	uv, err := j.uvPath()
	if err != nil {
		return err
	}
	project := j.ckout
	if u.Path != nil {
		project = filepath.Join(j.ckout, *u.Path)
	}
	j.current.uv = &uvEnv{path: uv, project: project}
	return nil
}

// createUVEnv is `<uv> venv --python <python> <env>`, uv found at I4.
func (j *job) createUVEnv(ctx context.Context, cfg *BuildConfig) error {
	if err := j.freshEnvDir(); err != nil {
		return err
	}
	j.installed = true
	_, err := j.must(ctx, []string{j.current.uv.path, "venv", "--python", j.currentInterpreter(cfg), j.envDir}, cmdOpts{inEnv: true, network: true})
	return err
}

// currentInstall is the install step: the install job when given, else
// the default commands (none for generic builds, except uv).
func (j *job) currentInstall(ctx context.Context, cfg *BuildConfig) error {
	cur := cfg.Current
	if _, given := cur.Job("install"); given {
		return j.runJob(ctx, cur, "install")
	}
	if u := uvEntry(cfg); u != nil {
		return j.uvInstall(ctx, u)
	}
	if cfg.Doctype == doctypeGeneric {
		return nil
	}
	py := j.python()
	pip := func(args ...string) installStep {
		return installStep{argv: append([]string{py, "-m", "pip", "install"}, args...), index: true, pip: true}
	}
	var steps []installStep
	if j.pool.cfg.InstallCoreRequirements {
		core := "sphinx"
		if cfg.Doctype == doctypeMkDocs {
			core = "mkdocs"
		}
		steps = append(steps, pip("--upgrade", "--no-cache-dir", "pip", "setuptools"), pip("--upgrade", "--no-cache-dir", core))
	}
	for _, in := range cfg.Install {
		switch {
		case in.IsRequirements:
			steps = append(steps, pip("--exists-action=w", "--no-cache-dir", "-r", *in.Requirements))
		case in.Method == "setuptools":
			steps = append(steps, installStep{argv: []string{py, in.Path + "/setup.py", "install", "--force"}})
		default:
			steps = append(steps, pip("--upgrade", "--upgrade-strategy", "only-if-needed", "--no-cache-dir", pipTarget(in)))
		}
	}
	return j.runInstallSteps(ctx, steps)
}

// pipTarget is a path entry as pip gets it: `./<path>` (`.` stays `.`)
// with its extras; extras written in the path (`.[docs]`) are merged.
func pipTarget(in rtdconfig.Install) string {
	target := in.Path
	if target != "." && !strings.HasPrefix(target, ".[") {
		target = "./" + target
	}
	if len(in.ExtraRequirements) == 0 {
		return target
	}
	extras := strings.Join(in.ExtraRequirements, ",")
	if strings.HasSuffix(target, "]") {
		return strings.TrimSuffix(target, "]") + "," + extras + "]"
	}
	return target + "[" + extras + "]"
}

// uvInstall is the default install of a uv entry.
func (j *job) uvInstall(ctx context.Context, u *rtdconfig.UVInstall) error {
	uv := j.current.uv.path
	argv := []string{uv, "sync"}
	if u.Command == "pip" {
		argv = []string{uv, "pip", "install"}
		if u.Requirements != nil {
			argv = append(argv, "-r", *u.Requirements)
		} else {
			argv = append(argv, pipTarget(rtdconfig.Install{Path: *u.Path, ExtraRequirements: u.Extras}))
		}
	} else {
		argv = append(argv, uvSelect(u.GroupsAll, u.Groups, "--all-groups", "--group")...)
		argv = append(argv, uvSelect(u.ExtrasAll, u.Extras, "--all-extras", "--extra")...)
	}
	return j.runInstallSteps(ctx, []installStep{{argv: argv, index: true}})
}

// uvSelect is `--all-…` or one `--<flag> <name>` per name.
func uvSelect(all bool, names []string, allFlag, flag string) []string {
	if all {
		return []string{allFlag}
	}
	var out []string
	for _, n := range names {
		out = append(out, flag, n)
	}
	return out
}
