package upload

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
)

// Validation failures of an uploaded archive: the
// build's error and its notification message id.
type invalid struct{ msg, id string }

func (e *invalid) Error() string { return e.msg }

var (
	errInvalidZip = &invalid{"The uploaded artifacts zip file is invalid. Make sure the zip file is valid and contains the expected files.",
		"build:user:artifacts-zip-invalid"}
	errNoIndex = &invalid{"Your documentation did not generate an index.html at its root directory. This is required for documentation serving at the root URL for this version.",
		"build:user:output:html-no-index-file"}
)

func errNotDir(format string) error {
	return &invalid{fmt.Sprintf(`Build output directory for format "%s" is not a directory.`, format), "build:user:output:is-no-a-directory"}
}

func errNoFiles(format string) error {
	return &invalid{fmt.Sprintf(`Build output directory for format "%s" does not contain any files.`, format), "build:user:output:has-0-files"}
}

func errManyFiles(format string) error {
	return &invalid{fmt.Sprintf(`Build output directory for format "%s" contains multiple files and it is not currently supported.`, format),
		"build:user:output:has-multiple-files"}
}

// Limits bound what an archive may expand to.
type Limits struct {
	MaxEntries       int   // upload_max_entries
	MaxExtractedSize int64 // upload_max_extracted_size, bytes
}

// downloadExt is the extension of each download format's one file.
var downloadExt = map[string]string{"pdf": ".pdf", "epub": ".epub", "htmlzip": ".zip"}

// formats lists the download formats in a fixed order.
var formats = []string{"htmlzip", "pdf", "epub"}

// layout is an archive extracted and validated: the HTML tree and the file
// of each download format present.
type layout struct {
	html      string
	downloads map[string]string
}

// extract checks every entry of the zip file archive and writes the
// entries under html/, pdf/, epub/ and htmlzip/ below dir. Any unsafe
// entry (absolute, `..`, symlink), too many entries or too many bytes is
// errInvalidZip; nothing outside dir is ever written.
func extract(archive, dir string, lim Limits) error {
	zr, err := zip.OpenReader(archive)
	if err != nil {
		return errInvalidZip
	}
	defer zr.Close()
	if len(zr.File) > lim.MaxEntries {
		return errInvalidZip
	}
	var declared uint64
	for _, f := range zr.File {
		if !safeName(f.Name) || f.Mode()&os.ModeSymlink != 0 || (f.Mode()&os.ModeType != 0 && !f.FileInfo().IsDir()) {
			return errInvalidZip
		}
		declared += f.UncompressedSize64
	}
	if declared > uint64(lim.MaxExtractedSize) {
		return errInvalidZip
	}
	budget := lim.MaxExtractedSize
	for _, f := range zr.File {
		name := strings.TrimSuffix(f.Name, "/")
		top, _, _ := strings.Cut(name, "/")
		if top != "html" && downloadExt[top] == "" {
			continue // other top-level entries are ignored
		}
		target := filepath.Join(dir, filepath.FromSlash(name))
		if f.FileInfo().IsDir() {
			if err := os.MkdirAll(target, 0o755); err != nil {
				return clashAsInvalid(err)
			}
			continue
		}
		n, err := writeEntry(f, target, budget)
		if err != nil {
			return err
		}
		budget -= n
	}
	return nil
}

// safeName reports whether an entry name is relative and has no `..`
// segment (and no backslash or NUL, which other tools read as separators
// or terminators).
func safeName(name string) bool {
	if name == "" || strings.HasPrefix(name, "/") || strings.ContainsAny(name, "\\\x00") || (len(name) > 1 && name[1] == ':') {
		return false
	}
	for _, seg := range strings.Split(strings.TrimSuffix(name, "/"), "/") {
		if seg == ".." {
			return false
		}
	}
	return path.Clean(name) != ".."
}

// clashAsInvalid is errInvalidZip for a directory the archive's own
// entries keep from being made (a file entry where it must go: `html/a`
// then `html/a/b` or `html/a/`), else err, a failure on docsd's side.
func clashAsInvalid(err error) error {
	if errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.EEXIST) {
		return errInvalidZip
	}
	return err
}

// writeEntry writes one file entry, refusing to write more than budget
// bytes whatever its header declared (a lying header is errInvalidZip).
func writeEntry(f *zip.File, target string, budget int64) (int64, error) {
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return 0, clashAsInvalid(err)
	}
	rc, err := f.Open()
	if err != nil {
		return 0, errInvalidZip
	}
	defer rc.Close()
	out, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return 0, errInvalidZip // e.g. a file entry where a directory was
		}
		return 0, err
	}
	n, err := io.Copy(out, io.LimitReader(rc, budget+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	switch {
	case err != nil:
		return n, errInvalidZip
	case n > budget:
		return n, errInvalidZip
	}
	return n, nil
}

// validate checks the extracted layout (first failure wins): html/index.html,
// then each download format's directory.
func validate(dir string, zipEntries map[string]bool) (*layout, error) {
	html := filepath.Join(dir, "html")
	if st, err := os.Stat(filepath.Join(html, "index.html")); err != nil || !st.Mode().IsRegular() {
		return nil, errNoIndex
	}
	out := &layout{html: html, downloads: map[string]string{}}
	for _, format := range formats {
		if zipEntries[format] {
			return nil, errNotDir(format)
		}
		fdir := filepath.Join(dir, format)
		entries, err := os.ReadDir(fdir)
		if errors.Is(err, os.ErrNotExist) {
			continue
		} else if err != nil {
			return nil, err
		}
		switch {
		case len(entries) > 1:
			return nil, errManyFiles(format)
		case len(entries) == 0 || entries[0].IsDir() || !strings.HasSuffix(entries[0].Name(), downloadExt[format]):
			return nil, errNoFiles(format)
		}
		out.downloads[format] = filepath.Join(fdir, entries[0].Name())
	}
	return out, nil
}

// fileEntries lists the top-level download-format names that the archive
// holds as files (`pdf` rather than `pdf/…`).
func fileEntries(archive string) (map[string]bool, error) {
	zr, err := zip.OpenReader(archive)
	if err != nil {
		return nil, errInvalidZip
	}
	defer zr.Close()
	out := map[string]bool{}
	for _, f := range zr.File {
		if downloadExt[f.Name] != "" && !f.FileInfo().IsDir() {
			out[f.Name] = true
		}
	}
	return out, nil
}
