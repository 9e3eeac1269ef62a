package store

import (
	"context"
	"time"
)

// ArtifactTree names one published HTML tree in object storage: the
// version's project and version slugs and the tree's immutable ID.
type ArtifactTree struct {
	ID      int64  `db:"id"` // the garbage row's ID; 0 for a current tree
	Project string `db:"project"`
	Version string `db:"version"`
	Tree    string `db:"tree"`
}

// FindArtifactTree returns the ID of the version's current tree. It is a
// NotFound error when nothing is published.
func (s *Store) FindArtifactTree(ctx context.Context, project, version string) (string, error) {
	var tree string
	err := s.read().get(ctx, &tree, `SELECT tree FROM artifact_trees WHERE project = ? AND version = ?`, project, version)
	return tree, classify("store.FindArtifactTree", err)
}

// SwapArtifactTree makes tree the version's current tree, in one statement
// visible to every node at once, and hands the tree it replaces to the
// garbage list, to be deleted after grace.
func (s *Store) SwapArtifactTree(ctx context.Context, project, version, tree string, grace time.Duration) error {
	return s.InTx(ctx, "store.SwapArtifactTree", func(tx *Tx) error {
		if err := retireArtifactTrees(ctx, tx, project, version, grace); err != nil {
			return err
		}
		_, err := tx.exec(ctx, `INSERT INTO artifact_trees (project, version, tree, published) VALUES (?, ?, ?, ?)`,
			project, version, tree, tx.Now)
		return err
	})
}

// RetireArtifactTrees unpublishes the version's tree (every version's when
// version is ""), handing the trees to the garbage list, to be deleted
// after grace.
func (s *Store) RetireArtifactTrees(ctx context.Context, project, version string, grace time.Duration) error {
	return s.InTx(ctx, "store.RetireArtifactTrees", func(tx *Tx) error {
		return retireArtifactTrees(ctx, tx, project, version, grace)
	})
}

func retireArtifactTrees(ctx context.Context, tx *Tx, project, version string, grace time.Duration) error {
	where, args := `project = ?`, []any{project}
	if version != "" {
		where, args = where+` AND version = ?`, append(args, version)
	}
	_, err := tx.exec(ctx, `INSERT INTO artifact_garbage (project, version, tree, delete_after)
		SELECT project, version, tree, ? FROM artifact_trees WHERE `+where, append([]any{tx.Now.Add(grace)}, args...)...)
	if err != nil {
		return err
	}
	_, err = tx.exec(ctx, `DELETE FROM artifact_trees WHERE `+where, args...)
	return err
}

// DueArtifactGarbage returns the retired trees whose grace period is over,
// oldest first, at most limit of them.
func (s *Store) DueArtifactGarbage(ctx context.Context, limit int) ([]*ArtifactTree, error) {
	var trees []*ArtifactTree
	err := s.read().sel(ctx, &trees, s.page(`SELECT id, project, version, tree FROM artifact_garbage
		WHERE delete_after <= ? ORDER BY delete_after, id`, limit, 0), s.Now())
	return trees, classify("store.DueArtifactGarbage", err)
}

// DeleteArtifactGarbage forgets a retired tree once its files are deleted.
func (s *Store) DeleteArtifactGarbage(ctx context.Context, id int64) error {
	return s.InTx(ctx, "store.DeleteArtifactGarbage", func(tx *Tx) error {
		_, err := tx.exec(ctx, `DELETE FROM artifact_garbage WHERE id = ?`, id)
		return err
	})
}
