package artifacts

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"docsd/internal/errs"
)

// Tree is one published HTML tree opened for reading. Everything read
// through it comes from that tree, even when a newer one is published
// meanwhile. Names follow io/fs rules (fs.ValidPath: no "..", no "."
// segments, no leading slash), and nothing read through a Tree is outside
// it: a symlink inside the tree that points out of it cannot be opened.
type Tree interface {
	fs.FS
	// ID identifies the published tree: two publishes of a version never
	// share one. It suits entity tags.
	ID() string
	// Close releases the tree. Files already opened stay readable.
	Close() error
}

// localTree is a Tree on the local file system, confined with os.Root.
type localTree struct {
	root *os.Root
	id   string
}

// Open implements fs.FS. The returned file is an *os.File, so it also
// implements io.Seeker.
func (t *localTree) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) || strings.ContainsAny(name, "\\\x00") {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	return t.root.Open(name)
}

func (t *localTree) ID() string   { return t.id }
func (t *localTree) Close() error { return t.root.Close() }

// OpenHTML opens the version's current published tree. It is a NotFound
// error when nothing was published. The caller closes the tree.
func (l *Local) OpenHTML(ctx context.Context, project, version string) (Tree, error) {
	const op = "artifacts.OpenHTML"
	if err := checkName(project, version); err != nil {
		return nil, errs.Wrap(errs.NotFound, op, err)
	}
	projectDir := filepath.Join(l.Root, "html", project)
	target, err := os.Readlink(filepath.Join(projectDir, version))
	if err != nil || strings.Contains(target, "/") {
		return nil, errs.E(errs.NotFound, op, errs.MsgNotFound)
	}
	root, err := os.OpenRoot(filepath.Join(projectDir, target))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errs.E(errs.NotFound, op, errs.MsgNotFound)
	}
	if err != nil {
		return nil, errs.Wrap(errs.Internal, op, err)
	}
	return &localTree{root: root, id: strings.TrimPrefix(target, "."+version+".")}, nil
}
