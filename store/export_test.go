package store

import (
	"context"

	"docsd/errs"
)

// MigrateUpTo applies the pending migrations up to version, so that tests
// can store data in an older schema and migrate it.
func (s *Store) MigrateUpTo(ctx context.Context, version int64) error {
	p, err := s.migrations("store.MigrateUpTo")
	if err != nil {
		return err
	}
	if _, err := p.UpTo(ctx, version); err != nil {
		return errs.Wrap(errs.Internal, "store.MigrateUpTo", err)
	}
	return nil
}
