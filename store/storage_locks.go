package store

import (
	"context"
	"time"

	"docsd/internal/errs"
)

// TryLock takes the lease on name for holder until ttl from now, and
// reports whether it did: not while another holder's lease runs. A lease
// of holder's own is extended.
func (s *Store) TryLock(ctx context.Context, name, holder string, ttl time.Duration) (bool, error) {
	err := s.InTx(ctx, "store.TryLock", func(tx *Tx) error {
		if _, err := tx.exec(ctx, `DELETE FROM storage_locks WHERE name = ? AND (expires < ? OR holder = ?)`, name, tx.Now, holder); err != nil {
			return err
		}
		_, err := tx.exec(ctx, `INSERT INTO storage_locks (name, holder, expires) VALUES (?, ?, ?)`, name, holder, tx.Now.Add(ttl))
		return err
	})
	if errs.Is(err, errs.Conflict) {
		return false, nil
	}
	return err == nil, err
}

// Unlock ends holder's lease on name, if it has one.
func (s *Store) Unlock(ctx context.Context, name, holder string) error {
	return s.InTx(ctx, "store.Unlock", func(tx *Tx) error {
		_, err := tx.exec(ctx, `DELETE FROM storage_locks WHERE name = ? AND holder = ?`, name, holder)
		return err
	})
}
