package builder

import (
	"archive/zip"
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"docsd/internal/mdsite"
	"docsd/store"
)

// outputs is what the building step produced: the HTML tree and the
// download files by format.
type outputs struct {
	html      string
	downloads map[string]string
}

// buildDocs is a legacy-file build's building state: HTML with Sphinx,
// MkDocs or the built-in builder, then Sphinx's formats.
func (j *job) buildDocs(ctx context.Context, cfg *BuildConfig) (*outputs, error) {
	if isSphinx(cfg.Doctype) {
		return j.buildSphinx(ctx, cfg)
	}
	return j.buildMkDocs(ctx, cfg)
}

// sphinxArgs is `<env>/bin/python -m sphinx -T -E …` for one builder.
func (j *job) sphinxArgs(extra ...string) []string {
	return append([]string{j.python(), "-m", "sphinx", "-T", "-E"}, extra...)
}

func (j *job) buildSphinx(ctx context.Context, cfg *BuildConfig) (*outputs, error) {
	conf := ""
	if cfg.Sphinx != nil && cfg.Sphinx.Configuration != nil {
		conf = *cfg.Sphinx.Configuration
	} else {
		var err error
		if conf, err = writeDefaultSphinxProject(j.ckout, j.project.Name); err != nil {
			return nil, err
		}
	}
	dir := filepath.Dir(filepath.Join(j.ckout, conf))
	for _, d := range []string{"html", "localmedia", "epub", "latex"} {
		if err := os.RemoveAll(filepath.Join(dir, "_build", d)); err != nil {
			return nil, err
		}
	}
	lang := "language=" + j.project.Language
	builder := sphinxBuilderName(cfg.Doctype)
	args := []string{}
	if cfg.Sphinx != nil && cfg.Sphinx.FailOnWarning {
		args = append(args, "-W")
	}
	args = append(args, "-b", builder, "-d", "_build/doctrees-"+builder, "-D", lang, ".", "_build/html")
	if _, err := j.must(ctx, j.sphinxArgs(args...), cmdOpts{dir: dir, inEnv: true}); err != nil {
		return nil, err
	}
	out := &outputs{html: filepath.Join(dir, "_build", "html"), downloads: map[string]string{}}
	if j.version.Type == store.External {
		return out, nil
	}
	if cfg.HasFormat("htmlzip") {
		argv := j.sphinxArgs("-b", "singlehtml", "-d", "_build/doctrees-singlehtml", "-D", lang, ".", "_build/localmedia")
		if _, err := j.must(ctx, argv, cmdOpts{dir: dir, inEnv: true}); err != nil {
			return nil, err
		}
		media := filepath.Join(dir, "_build", "localmedia")
		if isDir(media) {
			zipPath := filepath.Join(dir, "_build", j.project.Slug+".zip")
			if err := zipDir(media, zipPath, j.project.Slug+"-"+j.version.Slug); err != nil {
				return nil, err
			}
			out.downloads["htmlzip"] = zipPath
		}
	}
	if cfg.HasFormat("pdf") {
		pdf, err := j.buildPDF(ctx, dir, lang)
		if err != nil {
			return nil, err
		}
		if pdf != "" {
			out.downloads["pdf"] = pdf
		}
	}
	if cfg.HasFormat("epub") {
		argv := j.sphinxArgs("-b", "epub", "-D", lang, "-d", "_build/doctrees", ".", "_build/epub")
		if _, err := j.must(ctx, argv, cmdOpts{dir: dir, inEnv: true}); err != nil {
			return nil, err
		}
		if epubs := globFiles(filepath.Join(dir, "_build", "epub"), ".epub"); len(epubs) > 0 {
			out.downloads["epub"] = epubs[0]
		}
	}
	return out, nil
}

var pdfWritten = regexp.MustCompile(`Output written on .+\.pdf`)

// buildPDF runs the LaTeX builder and latexmk; without latexmk it records
// why no PDF was made and returns "".
func (j *job) buildPDF(ctx context.Context, dir, lang string) (string, error) {
	if !j.onBuildPath("latexmk") {
		return "", j.recordNote(ctx, latexmkSkipped, "", latexmkSkippedOutput, 0, now())
	}
	argv := j.sphinxArgs("-b", "latex", "-D", lang, "-d", "_build/doctrees", ".", "_build/latex")
	if _, err := j.must(ctx, argv, cmdOpts{dir: dir, inEnv: true}); err != nil {
		return "", err
	}
	return j.latexmk(ctx, filepath.Join(dir, "_build", "latex"))
}

// latexmk turns the LaTeX sources in latexDir into <slug>.pdf there; it
// returns "" when latexmk wrote no PDF.
func (j *job) latexmk(ctx context.Context, latexDir string) (string, error) {
	if len(globFiles(latexDir, ".tex")) == 0 {
		return "", fail(MsgNoTeX)
	}
	latexmk := []string{"latexmk", "-r", "latexmkrc", "-pdf", "-f", "-dvi-", "-ps-", "-jobname=" + j.project.Slug, "-interaction=nonstopmode"}
	if j.project.Language == "ja" {
		latexmk = []string{"latexmk", "-r", "latexmkjarc", "-pdfdvi", "-f", "-dvi-", "-ps-", "-jobname=" + j.project.Slug, "-interaction=nonstopmode"}
	}
	fix := func(output string, code int) int {
		if pdfWritten.MatchString(output) {
			return 0
		}
		return code
	}
	if _, err := j.must(ctx, latexmk, cmdOpts{dir: latexDir, inEnv: true, exitCode: fix}); err != nil {
		return "", err
	}
	pdf := filepath.Join(latexDir, j.project.Slug+".pdf")
	if !isFile(pdf) {
		return "", nil
	}
	return pdf, nil
}

// onBuildPath reports whether a program is on the PATH of build steps.
func (j *job) onBuildPath(name string) bool {
	for _, dir := range append([]string{filepath.Join(j.envDir, "bin")}, filepath.SplitList(systemPath)...) {
		if st, err := os.Stat(filepath.Join(dir, name)); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return true
		}
	}
	return false
}

func (j *job) buildMkDocs(ctx context.Context, cfg *BuildConfig) (*outputs, error) {
	configFile := "mkdocs.yml"
	strict := false
	if cfg.MkDocs != nil {
		if cfg.MkDocs.Configuration != nil {
			configFile = *cfg.MkDocs.Configuration
		}
		strict = cfg.MkDocs.FailOnWarning
	}
	hasConfig := isFile(filepath.Join(j.ckout, configFile))
	if hasConfig && j.mkdocsInstalled(ctx) {
		siteDir := filepath.Join(filepath.Dir(filepath.Join(j.ckout, configFile)), "_build", "html")
		if err := os.RemoveAll(siteDir); err != nil {
			return nil, err
		}
		argv := []string{j.python(), "-m", "mkdocs", "build", "--clean", "--site-dir", "_build/html", "--config-file", configFile}
		if strict {
			argv = append(argv, "--strict")
		}
		if _, err := j.must(ctx, argv, cmdOpts{inEnv: true}); err != nil {
			return nil, err
		}
		return &outputs{html: siteDir, downloads: map[string]string{}}, nil
	}
	source := configFile
	if !hasConfig {
		source = "README.md"
		if hasMarkdownIn(filepath.Join(j.ckout, "docs")) {
			source = "docs"
		}
	}
	html := filepath.Join(j.ckout, "_build", "html")
	if err := j.builtinMarkdown(ctx, source, html, strict); err != nil {
		return nil, err
	}
	return &outputs{html: html, downloads: map[string]string{}}, nil
}

// builtinMarkdown runs the built-in Markdown builder (package mdsite)
// into html and records it as a command.
func (j *job) builtinMarkdown(ctx context.Context, source, html string, strict bool) error {
	start := now()
	log, err := mdsite.Build(ctx, mdsite.Options{
		Root: j.ckout, Source: source, Out: html, SiteName: j.project.Name, Strict: strict, Language: j.project.Language,
	})
	code := 0
	if err != nil {
		code = 1
		log += "\nError: " + err.Error() + "\n"
	}
	command := "docsd build-markdown " + source
	if rerr := j.recordNote(ctx, command, "Built-in Markdown builder", log, code, start); rerr != nil {
		return rerr
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if code != 0 {
		return commandFailed(command, code)
	}
	return nil
}

// mkdocsInstalled checks, without recording, that the environment can run
// MkDocs (`<env>/bin/python -m mkdocs --version` succeeds). A success is
// remembered for a few minutes for environments of the same kind with
// nothing installed into them, which see exactly the system's packages.
func (j *job) mkdocsInstalled(ctx context.Context) bool {
	cacheable := j.envKind != "" && !j.installed
	if cacheable && j.pool.toolKnown("mkdocs", j.envKind) {
		return true
	}
	res, err := j.process(ctx, []string{j.python(), "-m", "mkdocs", "--version"}, cmdOpts{inEnv: true})
	ok := err == nil && res.ExitCode == 0
	if ok && cacheable {
		j.pool.rememberTool("mkdocs", j.envKind)
	}
	return ok
}

// globFiles returns the files in dir with the extension ext, sorted.
func globFiles(dir, ext string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() && strings.EqualFold(filepath.Ext(e.Name()), ext) {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(out)
	return out
}

// zipDir writes the files of dir into a zip archive at dst, under the
// top-level folder prefix (as RTD's htmlzip did).
func zipDir(dir, dst, prefix string) error {
	f, err := os.Create(dst)
	if err != nil {
		return err
	}
	zw := zip.NewWriter(f)
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		w, err := zw.Create(prefix + "/" + filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		in, err := os.Open(path)
		if err != nil {
			return err
		}
		defer in.Close()
		_, err = io.Copy(w, in)
		return err
	})
	if cerr := zw.Close(); err == nil {
		err = cerr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
