package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// openExisting opens the app like open, for commands that work on an
// existing installation (the admin commands, `secrets rotate`): a SQLite
// database that does not exist is an error naming the path and the fix,
// never a new empty database created by a mistyped --data-dir.
func (c *command) openExisting(ctx context.Context) (*app, error) {
	if path, ok := sqlitePath(c.settings.DatabaseURL); ok {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("no database at %s (--data-dir %s): check --data-dir/--database-url, or create one with `docsd migrate` or `docsd serve` and the same flags",
				path, c.settings.DataDir)
		}
	}
	return c.open(ctx)
}

// sqlitePath returns the file of a SQLite database URL (as store.Open reads
// it); ok is false for PostgreSQL.
func sqlitePath(databaseURL string) (string, bool) {
	files := sqliteFiles(databaseURL)
	if len(files) == 0 {
		return "", false
	}
	return files[0], true
}
