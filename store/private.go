package store

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"docsd/internal/errs"
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

// Backup writes a consistent copy of a SQLite database to path while the
// database stays in use (VACUUM INTO). path must not exist; the copy is
// created owner-only. PostgreSQL databases are backed up with pg_dump:
// Backup refuses them with an Invalid error saying so.
func (s *Store) Backup(ctx context.Context, path string) error {
	const op = "store.Backup"
	if s.dialect != SQLite {
		return errs.E(errs.Invalid, op, "docsd backup copies SQLite databases; back up PostgreSQL with pg_dump (see docs/operations/backups.md)")
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return errs.Wrap(errs.Invalid, op, err)
	}
	f.Close()
	if _, err := s.reader.ExecContext(ctx, `VACUUM INTO ?`, path); err != nil {
		os.Remove(path)
		return classify(op, err)
	}
	return nil
}
