package builder

import (
	"fmt"
	"os"
	"path/filepath"

	"docsd/store"
)

// The output failures of current-file builds, as Read the Docs words them.
const (
	MsgOutputNoHTML       = `No content was output to the path "$READTHEDOCS_OUTPUT/html". Read more about where to put your built files.`
	MsgOutputNoIndex      = "Your documentation did not generate an index.html at its root directory. This is required for documentation serving at the root URL for this version."
	MsgOutputNotDirFmt    = `Build output directory for format "%s" is not a directory. Make sure you created this directory properly when running build.commands.`
	MsgOutputNoFilesFmt   = `Build output directory for format "%s" does not contain any files. It seems the build process created the directory but did not save any file to it.`
	MsgOutputManyFilesFmt = `Build output directory for format "%s" contains multiple files and it is not currently supported. Please, remove all the files but the "%s" you want to upload.`
)

// downloadExtensions are the published file extensions per format.
var downloadExtensions = map[string]string{"htmlzip": "zip", "pdf": "pdf", "epub": "epub"}

// collectOutputs checks $READTHEDOCS_OUTPUT after the last building
// command and returns what to publish. Pull-request builds publish
// only HTML.
func (j *job) collectOutputs(commandMode bool) (*outputs, error) {
	html := j.outDir("html")
	if commandMode && !isDir(html) {
		return nil, Failure(IDOutputNoHTML, MsgOutputNoHTML)
	}
	if !isFile(filepath.Join(html, "index.html")) {
		return nil, Failure(IDOutputNoIndex, MsgOutputNoIndex)
	}
	out := &outputs{html: html, downloads: map[string]string{}}
	if j.version.Type == store.External {
		return out, nil
	}
	for _, format := range []string{"htmlzip", "pdf", "epub"} {
		file, err := j.formatOutput(format)
		if err != nil {
			return nil, err
		}
		if file != "" {
			out.downloads[format] = file
		}
	}
	return out, nil
}

// formatOutput checks <out>/<format>: absent → "", else exactly one file,
// renamed <project slug>.<extension>.
func (j *job) formatOutput(format string) (string, error) {
	dir := j.outDir(format)
	st, err := os.Lstat(dir)
	switch {
	case os.IsNotExist(err):
		return "", nil
	case err != nil:
		return "", err
	case !st.IsDir():
		return "", Failure(IDOutputNotADirectory, fmt.Sprintf(MsgOutputNotDirFmt, format))
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	switch len(entries) {
	case 0:
		return "", Failure(IDOutputNoFiles, fmt.Sprintf(MsgOutputNoFilesFmt, format))
	case 1:
	default:
		return "", Failure(IDOutputManyFiles, fmt.Sprintf(MsgOutputManyFilesFmt, format, format))
	}
	if !entries[0].Type().IsRegular() {
		return "", Failure(IDOutputNoFiles, fmt.Sprintf(MsgOutputNoFilesFmt, format))
	}
	final := filepath.Join(dir, j.project.Slug+"."+downloadExtensions[format])
	if err := os.Rename(filepath.Join(dir, entries[0].Name()), final); err != nil {
		return "", err
	}
	return final, nil
}
