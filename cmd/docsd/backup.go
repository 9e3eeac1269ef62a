package main

import (
	"context"
	"fmt"
	"path/filepath"
)

// backupSynopsis is the usage of `docsd backup`.
const backupSynopsis = "backup FILE"

// backup runs `docsd backup FILE`: a consistent copy of the SQLite
// database, taken while docsd keeps running. The data directory's
// artifacts are copied separately (README, Backup and restore).
func (c *command) backup(ctx context.Context, args []string) error {
	fs, env := c.flags("backup", backupSynopsis)
	c.shown = adminFlags
	pos, err := c.parse(fs, env, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError("usage: docsd " + backupSynopsis)
	}
	a, err := c.openExisting(ctx)
	if err != nil {
		return err
	}
	defer a.close()
	dest, err := filepath.Abs(pos[0])
	if err != nil {
		return err
	}
	if err := a.store.Backup(ctx, dest); err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "database copied to %s\n", dest)
	return nil
}
