package store

import (
	"context"
	"database/sql"

	"github.com/jmoiron/sqlx"
)

// snapshotKey is the context key of a read snapshot (see InReadSnapshot).
type snapshotKey struct{}

// snapshot is a read-only transaction on the reader pool.
type snapshot struct {
	s  *Store
	tx *sqlx.Tx
}

// InReadSnapshot runs fn with a context under which the search index's
// reads (FindSearchIndexed, FindSearchWords, FindTopPostings,
// FindSearchPages, FindSearchPageSections, FindSearchCandidates,
// FindSearchSections, CountSearchPages, CountSearchPagesOf) see the
// database as of one moment: a version indexed again meanwhile is seen
// whole before or whole after, never its old postings with its new pages.
// It is a read-only transaction: a repeatable-read one on PostgreSQL, a
// deferred one on SQLite, whose WAL keeps the snapshot of its first read.
func (s *Store) InReadSnapshot(ctx context.Context, fn func(ctx context.Context) error) error {
	const op = "store.InReadSnapshot"
	opts := &sql.TxOptions{ReadOnly: true}
	if s.dialect == Postgres {
		opts.Isolation = sql.LevelRepeatableRead
	}
	tx, err := s.reader.BeginTxx(ctx, opts)
	if err != nil {
		return classify(op, err)
	}
	defer tx.Rollback()
	if err := fn(context.WithValue(ctx, snapshotKey{}, &snapshot{s: s, tx: tx})); err != nil {
		return err
	}
	return classify(op, tx.Commit())
}

// readAt is the conn for the reads made under ctx: the snapshot's
// transaction under InReadSnapshot, else the reader pool.
func (s *Store) readAt(ctx context.Context) conn {
	if snap, ok := ctx.Value(snapshotKey{}).(*snapshot); ok && snap.s == s {
		return conn{s: s, q: snap.tx, snap: snap.tx}
	}
	return s.read()
}
