// Package artifacts stores what builds produce: each version's HTML tree and
// its downloads (htmlzip, pdf, epub). The builder publishes; the docs host
// reads. Storage is an interface so that S3-compatible object storage can
// replace the local data directory when several machines serve.
package artifacts

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"docsd/internal/errs"
)

// DownloadExtensions maps the download formats a build may produce to the
// extension of their file.
var DownloadExtensions = map[string]string{"htmlzip": "zip", "pdf": "pdf", "epub": "epub"}

// Storage keeps built documentation per project and version slug.
type Storage interface {
	// PublishHTML replaces the version's HTML tree with a copy of the
	// directory dir, atomically: a reader sees the old tree or the new one,
	// never a mix.
	PublishHTML(ctx context.Context, project, version, dir string) error
	// HTML returns the version's published tree, as it is at the moment of
	// the call (a later publish does not change what it reads). It is a
	// NotFound error when nothing was published.
	HTML(ctx context.Context, project, version string) (fs.FS, error)
	// PublishDownload replaces the version's download of format with the file
	// at path.
	PublishDownload(ctx context.Context, project, version, format, path string) error
	// RemoveDownload deletes the version's download of format, if any.
	RemoveDownload(ctx context.Context, project, version, format string) error
	// OpenDownload opens the version's download of format (NotFound when
	// absent). The caller closes it.
	OpenDownload(ctx context.Context, project, version, format string) (File, error)
	// RemoveVersion deletes everything stored for the version.
	RemoveVersion(ctx context.Context, project, version string) error
	// RemoveProject deletes everything stored for the project.
	RemoveProject(ctx context.Context, project string) error
}

// File is an open stored file.
type File interface {
	io.ReadSeekCloser
	Stat() (fs.FileInfo, error)
}

// Local is Storage on the local file system, under Root:
//
//	html/<project>/<version>            symlink to the current tree
//	html/<project>/.<version>.<random>  the trees themselves
//	downloads/<project>/<version>/<project>.<ext>
//
// Publishing writes a new tree beside the old one and renames a new symlink
// over the old one, which is atomic on POSIX file systems. The old tree is
// removed only after a grace period (RetireAfter), so a reader that resolved
// it just before the swap never finds its files gone.
type Local struct {
	Root string
	// RetireAfter is how long a replaced tree stays readable after a
	// publish (DefaultRetireAfter when zero).
	RetireAfter time.Duration
}

// NewLocal returns local storage under root, creating it.
func NewLocal(root string) (*Local, error) {
	for _, d := range []string{"html", "downloads"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			return nil, errs.Wrap(errs.Internal, "artifacts.NewLocal", err)
		}
	}
	return &Local{Root: root}, nil
}

// checkName rejects slugs that could escape the storage root.
func checkName(names ...string) error {
	for _, n := range names {
		if n == "" || n == "." || n == ".." || strings.ContainsAny(n, `/\`) || strings.HasPrefix(n, ".") {
			return errs.E(errs.Invalid, "artifacts", fmt.Sprintf("invalid artifact name %q", n))
		}
	}
	return nil
}

func randomSuffix() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// PublishHTML implements Storage. The new tree is copied under a name no
// reader resolves, renamed into place, and then the version's symlink is
// swapped to it. The replaced tree is retired: it stays readable for
// RetireAfter so that requests which resolved it before the swap finish
// reading it, and is removed afterwards (or by a later publish).
func (l *Local) PublishHTML(ctx context.Context, project, version, dir string) error {
	const op = "artifacts.PublishHTML"
	if err := checkName(project, version); err != nil {
		return err
	}
	projectDir := filepath.Join(l.Root, "html", project)
	if err := os.MkdirAll(projectDir, 0o755); err != nil {
		return errs.Wrap(errs.Internal, op, err)
	}
	incoming := filepath.Join(projectDir, incomingPrefix+randomSuffix())
	if err := copyTree(dir, incoming); err != nil {
		os.RemoveAll(incoming)
		return errs.Wrap(errs.Internal, op, err)
	}
	treeName := "." + version + "." + randomSuffix()
	tree := filepath.Join(projectDir, treeName)
	if err := os.Rename(incoming, tree); err != nil {
		os.RemoveAll(incoming)
		return errs.Wrap(errs.Internal, op, err)
	}
	link := filepath.Join(projectDir, version)
	old, _ := os.Readlink(link)
	tmpLink := filepath.Join(projectDir, incomingPrefix+"link."+randomSuffix())
	if err := os.Symlink(treeName, tmpLink); err != nil {
		os.RemoveAll(tree)
		return errs.Wrap(errs.Internal, op, err)
	}
	if err := os.Rename(tmpLink, link); err != nil {
		os.Remove(tmpLink)
		os.RemoveAll(tree)
		return errs.Wrap(errs.Internal, op, err)
	}
	l.retire(projectDir, version, old)
	return nil
}

// incomingPrefix starts the names of trees and links being written. `~`
// never occurs in a version slug, so no reader or sweep mistakes them for a
// published tree.
const incomingPrefix = ".incoming~"

// DefaultRetireAfter is how long a replaced tree stays readable when
// Local.RetireAfter is zero.
const DefaultRetireAfter = time.Minute

func (l *Local) retireAfter() time.Duration {
	if l.RetireAfter > 0 {
		return l.RetireAfter
	}
	return DefaultRetireAfter
}

// isTreeOf reports whether name is a tree of version: "."+version+"."
// followed by exactly the random suffix, so that version "1" never claims
// the trees of version "1.0".
func isTreeOf(name, version string) bool {
	rest, ok := strings.CutPrefix(name, "."+version+".")
	if !ok || len(rest) != 16 {
		return false
	}
	_, err := hex.DecodeString(rest)
	return err == nil
}

// retire marks the tree old (just replaced) as retired now and removes it
// after the grace period, unless it became current again; it also removes
// every other tree of the version that is not current and has been retired
// (or left behind) for longer than the grace period.
func (l *Local) retire(projectDir, version, old string) {
	grace := l.retireAfter()
	now := time.Now()
	current, _ := os.Readlink(filepath.Join(projectDir, version))
	if old != "" && old != current && isTreeOf(old, version) {
		os.Chtimes(filepath.Join(projectDir, old), now, now)
		time.AfterFunc(grace, func() {
			if cur, _ := os.Readlink(filepath.Join(projectDir, version)); cur != old {
				os.RemoveAll(filepath.Join(projectDir, old))
			}
		})
	}
	entries, _ := os.ReadDir(projectDir)
	for _, e := range entries {
		name := e.Name()
		if name == current || name == old || !isTreeOf(name, version) {
			continue
		}
		if info, err := e.Info(); err == nil && now.Sub(info.ModTime()) > grace {
			os.RemoveAll(filepath.Join(projectDir, name))
		}
	}
}

// copyTree copies regular files and directories of src into dst. Symlinks
// are not copied: a published tree never points outside itself.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type().IsRegular():
			return copyFile(path, target)
		default:
			return nil // symlinks, devices, sockets
		}
	})
}

// CopyFile copies the file src to dst (created or truncated, mode 0644).
func CopyFile(src, dst string) error { return copyFile(src, dst) }

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// HTML implements Storage. The returned FS is rooted at the resolved tree,
// so a concurrent publish does not change what it serves.
func (l *Local) HTML(ctx context.Context, project, version string) (fs.FS, error) {
	if err := checkName(project, version); err != nil {
		return nil, errs.Wrap(errs.NotFound, "artifacts.HTML", err)
	}
	projectDir := filepath.Join(l.Root, "html", project)
	target, err := os.Readlink(filepath.Join(projectDir, version))
	if err != nil || strings.Contains(target, "/") {
		return nil, errs.E(errs.NotFound, "artifacts.HTML", errs.MsgNotFound)
	}
	return os.DirFS(filepath.Join(projectDir, target)), nil
}

// HTMLDir returns the directory of the version's current tree on disk, for
// callers that serve files by path. It is a NotFound error when nothing was
// published.
func (l *Local) HTMLDir(project, version string) (string, error) {
	if err := checkName(project, version); err != nil {
		return "", errs.Wrap(errs.NotFound, "artifacts.HTMLDir", err)
	}
	projectDir := filepath.Join(l.Root, "html", project)
	target, err := os.Readlink(filepath.Join(projectDir, version))
	if err != nil || strings.Contains(target, "/") {
		return "", errs.E(errs.NotFound, "artifacts.HTMLDir", errs.MsgNotFound)
	}
	return filepath.Join(projectDir, target), nil
}

func (l *Local) downloadPath(project, version, format string) (string, error) {
	ext, ok := DownloadExtensions[format]
	if !ok {
		return "", errs.E(errs.Invalid, "artifacts", fmt.Sprintf("unknown download format %q", format))
	}
	if err := checkName(project, version); err != nil {
		return "", err
	}
	return filepath.Join(l.Root, "downloads", project, version, project+"."+ext), nil
}

// PublishDownload implements Storage.
func (l *Local) PublishDownload(ctx context.Context, project, version, format, path string) error {
	const op = "artifacts.PublishDownload"
	dst, err := l.downloadPath(project, version, format)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return errs.Wrap(errs.Internal, op, err)
	}
	tmp := dst + ".tmp." + randomSuffix()
	if err := copyFile(path, tmp); err != nil {
		os.Remove(tmp)
		return errs.Wrap(errs.Internal, op, err)
	}
	return errs.Wrap(errs.Internal, op, os.Rename(tmp, dst))
}

// RemoveDownload implements Storage.
func (l *Local) RemoveDownload(ctx context.Context, project, version, format string) error {
	dst, err := l.downloadPath(project, version, format)
	if err != nil {
		return err
	}
	if err := os.Remove(dst); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return errs.Wrap(errs.Internal, "artifacts.RemoveDownload", err)
	}
	return nil
}

// OpenDownload implements Storage.
func (l *Local) OpenDownload(ctx context.Context, project, version, format string) (File, error) {
	dst, err := l.downloadPath(project, version, format)
	if err != nil {
		return nil, errs.Wrap(errs.NotFound, "artifacts.OpenDownload", err)
	}
	f, err := os.Open(dst)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errs.E(errs.NotFound, "artifacts.OpenDownload", errs.MsgNotFound)
	}
	if err != nil {
		return nil, errs.Wrap(errs.Internal, "artifacts.OpenDownload", err)
	}
	return f, nil
}

// RemoveVersion implements Storage.
func (l *Local) RemoveVersion(ctx context.Context, project, version string) error {
	const op = "artifacts.RemoveVersion"
	if err := checkName(project, version); err != nil {
		return err
	}
	projectDir := filepath.Join(l.Root, "html", project)
	os.Remove(filepath.Join(projectDir, version))
	entries, _ := os.ReadDir(projectDir)
	for _, e := range entries {
		if isTreeOf(e.Name(), version) {
			os.RemoveAll(filepath.Join(projectDir, e.Name()))
		}
	}
	return errs.Wrap(errs.Internal, op, os.RemoveAll(filepath.Join(l.Root, "downloads", project, version)))
}

// RemoveProject implements Storage.
func (l *Local) RemoveProject(ctx context.Context, project string) error {
	const op = "artifacts.RemoveProject"
	if err := checkName(project); err != nil {
		return err
	}
	if err := os.RemoveAll(filepath.Join(l.Root, "html", project)); err != nil {
		return errs.Wrap(errs.Internal, op, err)
	}
	return errs.Wrap(errs.Internal, op, os.RemoveAll(filepath.Join(l.Root, "downloads", project)))
}
