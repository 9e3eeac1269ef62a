package main

import (
	"context"
	"fmt"
	"slices"
)

// auditSynopsis is the usage of `docsd audit prune`.
const auditSynopsis = "audit prune [--audit-retention-days N]"

// auditCommand runs `docsd audit prune`: the audit log's entries older
// than --audit-retention-days are deleted once, as `serve` does every
// hour.
func (c *command) auditCommand(ctx context.Context, sub string, args []string) error {
	if sub != "prune" {
		return c.group("audit", firstArg(args))
	}
	c.shown = append(slices.Clip(adminFlags), "audit-retention-days")
	fs, env := c.flags("audit prune", auditSynopsis)
	pos, err := c.parse(fs, env, args[1:])
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usageError("usage: docsd " + auditSynopsis)
	}
	a, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer a.close()
	n, err := a.audit.Prune(ctx)
	if err != nil {
		return err
	}
	if a.settings.AuditRetentionDays == 0 {
		fmt.Fprintln(c.stdout, "--audit-retention-days is 0: entries are kept for ever, none deleted")
		return nil
	}
	fmt.Fprintf(c.stdout, "%d audit entries older than %d days deleted\n", n, a.settings.AuditRetentionDays)
	return nil
}
