package builder

import (
	"context"
	"os"
	"path/filepath"
	"strings"
)

// Notes recorded instead of steps docsd cannot run on this server.
const (
	latexmkSkipped       = "latexmk (skipped)"
	latexmkSkippedOutput = "LaTeX (latexmk) is not installed on this server; the PDF was not built."
)

// envMarker is the file in an environment that says how it was made, so
// that a later build of the version reuses it only when nothing changed.
const envMarker = ".docsd-env"

// installedMarker is in an environment something was installed into.
const installedMarker = ".docsd-installed"

// python is the environment's interpreter.
func (j *job) python() string { return filepath.Join(j.envDir, "bin", "python") }

// interpreter picks the interpreter that creates the environment: the
// requested python<X.Y> when it exists next to build_python, else
// build_python itself.
func (p *Pool) interpreter(minor string) string {
	base := p.cfg.BuildPython
	if minor != "" && !strings.HasPrefix(minor, "pypy") {
		candidate := filepath.Join(filepath.Dir(base), "python"+minor)
		if filepath.IsAbs(base) && isFile(candidate) {
			return candidate
		}
	}
	return base
}

// prepareEnv creates the version's
// environment unless it exists and was made the same way.
func (j *job) prepareEnv(ctx context.Context, cfg *BuildConfig) error {
	if cfg.Conda != nil {
		exe, err := j.condaExe()
		if err != nil {
			return err
		}
		return j.prepareConda(ctx, exe, *cfg.Conda)
	}
	interp := j.pool.interpreter(cfg.PythonMinor())
	argv := []string{interp, "-m", "venv"}
	switch {
	case !j.pool.cfg.InstallCoreRequirements:
		argv = append(argv, "--system-site-packages", "--without-pip")
	case cfg.SystemSite:
		argv = append(argv, "--system-site-packages")
	}
	j.envKind = strings.Join(argv, " ")
	argv = append(argv, j.envDir)
	marker := strings.Join(argv, " ") + "\nimage=" + cfg.Image + "\n"
	if b, err := readRegularFile(filepath.Join(j.envDir, envMarker)); err == nil && string(b) == marker && isFile(j.python()) {
		j.installed = exists(filepath.Join(j.envDir, installedMarker))
		return nil
	}
	if err := os.RemoveAll(j.envDir); err != nil {
		return err
	}
	// An empty directory, so that the sandbox can bind it for venv to fill.
	if err := os.MkdirAll(j.envDir, 0o755); err != nil {
		return err
	}
	if _, err := j.must(ctx, argv, cmdOpts{}); err != nil {
		return err
	}
	return writeNewFile(filepath.Join(j.envDir, envMarker), []byte(marker))
}

// prepareConda creates a conda environment named after the version in the
// project's conda directory; it becomes the build's environment.
func (j *job) prepareConda(ctx context.Context, exe, envFile string) error {
	envsPath := filepath.Join(j.pool.cfg.DataDir, "conda", j.project.Slug)
	j.envDir = filepath.Join(envsPath, j.version.Slug)
	if err := os.RemoveAll(j.envDir); err != nil {
		return err
	}
	if err := os.MkdirAll(envsPath, 0o755); err != nil {
		return err
	}
	j.conda = envsPath
	j.installed = true
	argv := condaCreateArgv(exe, j.envDir, j.version.Slug, envFile)
	_, err := j.must(ctx, argv, cmdOpts{inEnv: true, network: true, record: strings.Join(append([]string{filepath.Base(exe)}, argv[1:]...), " ")})
	return err
}

// condaCreateArgv is the command that creates the environment env (named
// name, under CONDA_ENVS_PATH) from envFile: `conda env create --quiet
// --name <name> --file <file>` (mamba alike);
// micromamba, which has no environments directory of its own, creates the
// prefix itself: `micromamba env create --yes --prefix <env> --file <file>`.
func condaCreateArgv(exe, env, name, envFile string) []string {
	if filepath.Base(exe) == "micromamba" {
		return []string{exe, "env", "create", "--yes", "--prefix", env, "--file", envFile}
	}
	return []string{exe, "env", "create", "--quiet", "--name", name, "--file", envFile}
}

// install installs into a legacy-file build's environment: the core
// requirements when install_core_requirements is set, then each
// python.install entry in order.
func (j *job) install(ctx context.Context, cfg *BuildConfig) error {
	py := j.python()
	pipInstall := func(args ...string) installStep {
		return installStep{argv: append([]string{py, "-m", "pip", "install"}, args...), index: true, pip: true}
	}
	var steps []installStep
	if j.pool.cfg.InstallCoreRequirements {
		steps = append(steps, pipInstall("--upgrade", "--no-cache-dir", "pip"))
		core := []string{"sphinx", "sphinx-rtd-theme"}
		if cfg.Doctype == doctypeMkDocs {
			core = []string{"mkdocs"}
		}
		steps = append(steps, pipInstall(append([]string{"--upgrade", "--no-cache-dir"}, core...)...))
	}
	for _, in := range cfg.Install {
		switch {
		case in.IsRequirements:
			file := ""
			if in.Requirements != nil {
				file = *in.Requirements
			} else {
				file = j.findRequirements()
			}
			if file != "" {
				steps = append(steps, pipInstall("--exists-action=w", "--no-cache-dir", "-r", file))
			}
		case in.Method == "setuptools":
			steps = append(steps, installStep{argv: []string{py, in.Path + "/setup.py", "install", "--force"}})
		default:
			steps = append(steps, pipInstall("--upgrade", "--upgrade-strategy", "eager", "--no-cache-dir", pipTarget(in)))
		}
	}
	return j.runInstallSteps(ctx, steps)
}

// findRequirements is v1's requirements auto-discovery:
// pip_requirements.txt then requirements.txt, in the docs directory, then
// at the checkout root.
func (j *job) findRequirements() string {
	for _, dir := range []string{docsDir(j.ckout, "docs", "doc", "Doc"), "."} {
		for _, name := range []string{"pip_requirements.txt", "requirements.txt"} {
			rel := filepath.ToSlash(filepath.Join(dir, name))
			if isFile(filepath.Join(j.ckout, rel)) {
				return rel
			}
		}
	}
	return ""
}
