package store

import (
	"context"
	"time"

	"docsd/internal/errs"
)

const syncTaskColumns = `t.id, t.project_id, t.created, t.started, t.lease_owner, t.lease_expires`

// CreateSyncTask queues a version sync of the project: a fetch and sync
// without a Build record, requested by webhooks.
func (s *Store) CreateSyncTask(ctx context.Context, projectID int64) (*SyncTask, error) {
	t := &SyncTask{ProjectID: projectID}
	err := s.InTx(ctx, "store.CreateSyncTask", func(tx *Tx) error {
		t.Created = tx.Now
		id, err := tx.insert(ctx, `INSERT INTO sync_tasks (project_id, created) VALUES (?, ?)`, projectID, tx.Now)
		t.ID = id
		return err
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// ClaimSyncTask hands the oldest queued sync task whose project has nothing
// in progress to owner with a lease until now+lease, like ClaimBuild. It
// returns NotFound when there is nothing to claim.
func (s *Store) ClaimSyncTask(ctx context.Context, owner string, lease time.Duration) (*SyncTask, error) {
	const op = "store.ClaimSyncTask"
	var cands []claimCandidate
	err := s.read().sel(ctx, &cands, `SELECT t.id, t.project_id FROM sync_tasks t WHERE t.started IS NULL
		AND NOT EXISTS (SELECT 1 FROM builds r WHERE r.project_id = t.project_id AND r.state IN `+runningStates+`)
		AND NOT EXISTS (SELECT 1 FROM sync_tasks o WHERE o.project_id = t.project_id AND o.started IS NOT NULL)
		ORDER BY t.created, t.id LIMIT 20`)
	if err != nil {
		return nil, classify(op, err)
	}
	var t SyncTask
	err = s.claimFirst(ctx, op, cands, func(tx *Tx, c claimCandidate) (bool, error) {
		id := c.ID
		res, err := tx.exec(ctx, `UPDATE sync_tasks SET started = ?, lease_owner = ?, lease_expires = ? WHERE id = ? AND started IS NULL`,
			tx.Now, owner, tx.Now.Add(lease), id)
		if err != nil {
			return false, err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return false, nil
		}
		return true, tx.get(ctx, &t, `SELECT `+syncTaskColumns+` FROM sync_tasks t WHERE t.id = ?`, id)
	})
	if err != nil {
		return nil, err
	}
	return &t, nil
}

// ExtendSyncTaskLease moves the lease of a running sync task held by owner
// to now+lease; a Conflict when owner no longer holds it.
func (s *Store) ExtendSyncTaskLease(ctx context.Context, id int64, owner string, lease time.Duration) error {
	const op = "store.ExtendSyncTaskLease"
	return s.InTx(ctx, op, func(tx *Tx) error {
		res, err := tx.exec(ctx, `UPDATE sync_tasks SET lease_expires = ? WHERE id = ? AND lease_owner = ?`, tx.Now.Add(lease), id, owner)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return errs.E(errs.Conflict, op, "sync task lease lost")
		}
		return nil
	})
}

// FinishSyncTask removes a sync task that ran (successfully or not).
func (s *Store) FinishSyncTask(ctx context.Context, id int64) error {
	return s.InTx(ctx, "store.FinishSyncTask", func(tx *Tx) error {
		_, err := tx.exec(ctx, `DELETE FROM sync_tasks WHERE id = ?`, id)
		return err
	})
}

// SweepStaleSyncTasks removes started sync tasks whose lease has expired
// (their worker died); the next webhook or build syncs again.
func (s *Store) SweepStaleSyncTasks(ctx context.Context) (int64, error) {
	var n int64
	err := s.InTx(ctx, "store.SweepStaleSyncTasks", func(tx *Tx) error {
		res, err := tx.exec(ctx, `DELETE FROM sync_tasks WHERE started IS NOT NULL AND (lease_expires IS NULL OR lease_expires < ?)`, tx.Now)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n, err
}

// QueueSyncTask queues a version sync of the project unless one is already
// queued and not started. It reports whether a task was added.
func (s *Store) QueueSyncTask(ctx context.Context, projectID int64) (bool, error) {
	added := false
	err := s.InTx(ctx, "store.QueueSyncTask", func(tx *Tx) error {
		var n int
		if err := tx.get(ctx, &n, `SELECT COUNT(*) FROM sync_tasks WHERE project_id = ? AND started IS NULL`, projectID); err != nil {
			return err
		}
		if n > 0 {
			return nil
		}
		_, err := tx.insert(ctx, `INSERT INTO sync_tasks (project_id, created) VALUES (?, ?)`, projectID, tx.Now)
		added = err == nil
		return err
	})
	return added, err
}
