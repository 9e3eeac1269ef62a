package builder

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"docsd/store"
)

// outDir is <ckout>/_readthedocs/<sub>: $READTHEDOCS_OUTPUT.
func (j *job) outDir(sub string) string { return filepath.Join(j.ckout, "_readthedocs", sub) }

// currentBuilding is the building state of a current-file build without
// build.commands: pre_build, HTML (build.jobs.build.html or the
// doctype's default), the formats asked for, post_build.
func (j *job) currentBuilding(ctx context.Context, cfg *BuildConfig) error {
	cur := cfg.Current
	if err := j.runJob(ctx, cur, "pre_build"); err != nil {
		return err
	}
	if _, given := cur.Job("build.html"); given {
		if err := j.runJob(ctx, cur, "build.html"); err != nil {
			return err
		}
	} else if err := j.defaultHTML(ctx, cfg); err != nil {
		return err
	}
	if j.version.Type != store.External {
		for _, format := range []string{"htmlzip", "pdf", "epub"} {
			if !cfg.HasFormat(format) {
				continue
			}
			if _, given := cur.Job("build." + format); given {
				if err := j.runJob(ctx, cur, "build."+format); err != nil {
					return err
				}
			} else if isSphinx(cfg.Doctype) {
				if err := j.sphinxFormat(ctx, cfg, format); err != nil {
					return err
				}
			}
		}
	}
	return j.runJob(ctx, cur, "post_build")
}

// fileNotFound is the failure for a configured file that is missing.
func fileNotFound(path string) error {
	return Failure(IDFileNotFound, fmt.Sprintf(MsgFileNotFoundFmt, path))
}

// defaultHTML is the doctype's default HTML step, when build.jobs does not
// replace it.
func (j *job) defaultHTML(ctx context.Context, cfg *BuildConfig) error {
	switch {
	case isSphinx(cfg.Doctype):
		return j.currentSphinx(ctx, cfg, sphinxBuilderName(cfg.Doctype), j.outDir("html"))
	case cfg.Doctype == doctypeMkDocs:
		return j.currentMkDocs(ctx, cfg)
	}
	return nil
}

// currentSphinx runs `cat <conf.py>` (once, for HTML) and one Sphinx builder
// into out, cwd the directory of conf.py.
func (j *job) currentSphinx(ctx context.Context, cfg *BuildConfig, builder, out string) error {
	conf := cfg.Current.ConfPy
	if !isFile(filepath.Join(j.ckout, conf)) {
		return fileNotFound(conf)
	}
	if out == j.outDir("html") {
		if _, err := j.must(ctx, []string{"cat", conf}, cmdOpts{}); err != nil {
			return err
		}
	}
	args := []string{"-T", "-E"}
	if cfg.Sphinx.FailOnWarning {
		args = append(args, "-W", "--keep-going")
	}
	args = append(args, "-b", builder, "-d", "_build/doctrees", "-D", "language="+j.project.Language, ".", out)
	argv := append([]string{j.python(), "-m", "sphinx"}, args...)
	if j.current.uv != nil {
		argv = append([]string{j.current.uv.path, "run", "--no-sync", "--no-dev", "sphinx-build"}, args...)
	}
	_, err := j.must(ctx, argv, cmdOpts{dir: filepath.Dir(filepath.Join(j.ckout, conf)), inEnv: true})
	return err
}

// currentMkDocs is the MkDocs HTML step: MkDocs when the configuration file
// exists and MkDocs is importable, else the built-in builder.
func (j *job) currentMkDocs(ctx context.Context, cfg *BuildConfig) error {
	file, strict := "mkdocs.yml", cfg.MkDocs.FailOnWarning
	if c := cfg.MkDocs.Configuration; c != nil {
		file = *c
		if !isFile(filepath.Join(j.ckout, file)) {
			return fileNotFound(file)
		}
	}
	out := j.outDir("html")
	if !isFile(filepath.Join(j.ckout, file)) || (j.current.uv == nil && !j.mkdocsInstalled(ctx)) {
		source := file
		if !isFile(filepath.Join(j.ckout, file)) {
			source = "README.md"
			if hasMarkdownIn(filepath.Join(j.ckout, "docs")) {
				source = "docs"
			}
		}
		return j.builtinMarkdown(ctx, source, out, strict)
	}
	if _, err := j.must(ctx, []string{"cat", file}, cmdOpts{}); err != nil {
		return err
	}
	args := []string{"build", "--clean", "--site-dir", out, "--config-file", file}
	if strict {
		args = append(args, "--strict")
	}
	argv := append([]string{j.python(), "-m", "mkdocs"}, args...)
	if j.current.uv != nil {
		argv = append([]string{j.current.uv.path, "run", "--no-sync", "--no-dev", "mkdocs"}, args...)
	}
	_, err := j.must(ctx, argv, cmdOpts{inEnv: true})
	return err
}

// sphinxFormat is a default htmlzip, pdf or epub step for Sphinx: the
// builder writes into <out>/<format>, and exactly one file is left there.
// A format that produced nothing is simply not produced.
func (j *job) sphinxFormat(ctx context.Context, cfg *BuildConfig, format string) error {
	dir := j.outDir(format)
	var file string
	var err error
	switch format {
	case "htmlzip":
		file, err = j.sphinxHTMLZip(ctx, cfg, dir)
	case "pdf":
		file, err = j.sphinxPDF(ctx, cfg, dir)
	case "epub":
		if err = j.currentSphinx(ctx, cfg, "epub", dir); err == nil {
			if epubs := globFiles(dir, ".epub"); len(epubs) > 0 {
				file = epubs[0]
			}
		}
	}
	if err != nil {
		return err
	}
	return keepOnly(dir, file, j.project.Slug+"."+downloadExtensions[format])
}

// sphinxHTMLZip builds singlehtml into dir and zips it there.
func (j *job) sphinxHTMLZip(ctx context.Context, cfg *BuildConfig, dir string) (string, error) {
	if err := j.currentSphinx(ctx, cfg, "singlehtml", dir); err != nil {
		return "", err
	}
	zipPath := filepath.Join(filepath.Dir(dir), j.project.Slug+".zip")
	if err := zipDir(dir, zipPath, j.project.Slug+"-"+j.version.Slug); err != nil {
		return "", err
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	final := filepath.Join(dir, j.project.Slug+".zip")
	return final, os.Rename(zipPath, final)
}

// sphinxPDF builds LaTeX into dir and runs latexmk there; without latexmk
// it records `latexmk (skipped)` and produces nothing.
func (j *job) sphinxPDF(ctx context.Context, cfg *BuildConfig, dir string) (string, error) {
	if !j.onBuildPath("latexmk") {
		return "", j.recordNote(ctx, latexmkSkipped, "", latexmkSkippedOutput, 0, now())
	}
	if err := j.currentSphinx(ctx, cfg, "latex", dir); err != nil {
		return "", err
	}
	return j.latexmk(ctx, dir)
}

// keepOnly leaves exactly file, renamed to name, in dir; with no file the
// directory is removed.
func keepOnly(dir, file, name string) error {
	if file == "" {
		return os.RemoveAll(dir)
	}
	tmp := filepath.Join(filepath.Dir(dir), "."+name+".keep")
	if err := os.Rename(file, tmp); err != nil {
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, name))
}
