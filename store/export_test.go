package store

import "context"

// MigrateTo applies the migrations up to and including version, so that
// tests can store data as an older docsd did and then migrate it.
func (s *Store) MigrateTo(ctx context.Context, version int64) error {
	p, err := s.migrator()
	if err != nil {
		return err
	}
	_, err = p.UpTo(ctx, version)
	return err
}
