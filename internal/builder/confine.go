package builder

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// confineTree removes every symbolic link under root that leads outside
// root or nowhere, and every named pipe and socket. docsd itself reads and writes in the checkout (the
// configuration file, the default Sphinx project, the built-in builder,
// the removal of old output, the outputs it publishes), outside the build
// sandbox; a link committed to the repository or made by a build command
// (`_build -> /srv/docsd/artifacts`, `index.md -> /proc/self/environ`)
// must not lead it anywhere else, and a pipe must not block it. Links
// inside root stay. The checkout's
// own .git directory is left alone: only git, in the sandbox, reads it.
//
// It is called after every command, when no process of the build runs any
// more (the sandbox ends with its command), so nothing can make a new link
// before docsd reads the tree.
func confineTree(root string) error {
	real, err := filepath.EvalSymlinks(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return filepath.WalkDir(real, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == real {
				return err
			}
			return nil // unreadable: docsd can't read it either
		}
		if d.IsDir() && d.Name() == ".git" && filepath.Dir(path) == real {
			return filepath.SkipDir
		}
		switch t := d.Type(); {
		case t&(fs.ModeNamedPipe|fs.ModeSocket) != 0:
		case t&fs.ModeSymlink == 0:
			return nil
		default:
			if target, err := filepath.EvalSymlinks(path); err == nil && within(target, real) {
				return nil
			}
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	})
}

// writeNewFile writes data to path, replacing whatever is there without
// following a symbolic link: a file in a directory build commands write to
// (the environment's markers) may have been replaced by a link.
func writeNewFile(path string, data []byte) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// readRegularFile reads path unless it is something else than a regular
// file (a link to /dev/zero, a pipe) in a directory build commands write
// to.
func readRegularFile(path string) ([]byte, error) {
	st, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: path, Err: errors.New("not a regular file")}
	}
	return os.ReadFile(path)
}
