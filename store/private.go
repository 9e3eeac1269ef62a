package store

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// createPrivate makes a SQLite database file owner-only before SQLite opens
// it: its directory, when missing, is created 0700 and a missing file 0600
// (SQLite gives its -wal and -shm files the database file's mode). An
// existing file keeps its mode.
func createPrivate(path string) error {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return f.Close()
}
