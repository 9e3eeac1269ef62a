package store

import (
	"context"
	"fmt"
	"time"

	"docsd/internal/errs"
)

// Upload states of a build created by the upload API.
const (
	// UploadPending: the build awaits `complete`; workers never claim it.
	UploadPending = "pending"
	// UploadQueued: `complete` succeeded; the build waits for a worker.
	UploadQueued = "queued"
	// UploadDone: processed, failed or expired.
	UploadDone = "done"
)

// Upload is the upload-API side of a build created by initiate.
type Upload struct {
	BuildID    int64     `db:"build_id"`
	ProjectID  int64     `db:"project_id"`
	TokenHash  string    `db:"token_hash"`
	StorageKey string    `db:"storage_key"`
	Status     string    `db:"status"`
	Created    time.Time `db:"created"`
	Expires    time.Time `db:"expires"`
}

const uploadColumns = `u.build_id, u.project_id, u.token_hash, u.storage_key, u.status, u.created, u.expires`

// UploadKey is the storage key of a build's archive.
func UploadKey(projectID, buildID int64) string {
	return fmt.Sprintf("%d/%d/artifacts.zip", projectID, buildID)
}

// PendingUploads returns how many of the project's uploads await
// `complete` and are not expired, and when the oldest of them expires.
func (s *Store) PendingUploads(ctx context.Context, projectID int64) (int, time.Time, error) {
	const op = "store.PendingUploads"
	var expires []time.Time
	err := s.read().sel(ctx, &expires, `SELECT expires FROM uploads WHERE project_id = ? AND status = ? AND expires > ? ORDER BY expires`,
		projectID, UploadPending, s.Now())
	if err != nil || len(expires) == 0 {
		return 0, time.Time{}, classify(op, err)
	}
	return len(expires), expires[0], nil
}

// CreateUploadBuild creates, in one transaction, the version that
// version returns (it gets or creates it inside the transaction), a
// triggered build of it at commit and its pending upload, whose token
// (stored as tokenHash) is valid for ttl.
func (s *Store) CreateUploadBuild(ctx context.Context, version func(tx *Tx) (*Version, error), commit, tokenHash string, ttl time.Duration) (*Build, *Upload, error) {
	var b *Build
	var u *Upload
	err := s.InTx(ctx, "store.CreateUploadBuild", func(tx *Tx) error {
		v, err := version(tx)
		if err != nil {
			return err
		}
		if b, err = tx.CreateBuild(ctx, v, &commit); err != nil {
			return err
		}
		u = &Upload{BuildID: b.ID, ProjectID: v.ProjectID, TokenHash: tokenHash, StorageKey: UploadKey(v.ProjectID, b.ID),
			Status: UploadPending, Created: tx.Now, Expires: tx.Now.Add(ttl)}
		_, err = tx.exec(ctx, `INSERT INTO uploads (build_id, project_id, token_hash, storage_key, status, created, expires)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, u.BuildID, u.ProjectID, u.TokenHash, u.StorageKey, u.Status, u.Created, u.Expires)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return b, u, nil
}

// FindUploadByBuildID returns the upload of a build (NotFound when the
// build was not created by initiate).
func (s *Store) FindUploadByBuildID(ctx context.Context, buildID int64) (*Upload, error) {
	var u Upload
	if err := s.read().get(ctx, &u, `SELECT `+uploadColumns+` FROM uploads u WHERE u.build_id = ?`, buildID); err != nil {
		return nil, classify("store.FindUploadByBuildID", err)
	}
	return &u, nil
}

// FindPendingUploadByToken returns the pending, unexpired upload whose
// token hashes to tokenHash (NotFound otherwise).
func (s *Store) FindPendingUploadByToken(ctx context.Context, tokenHash string) (*Upload, error) {
	var u Upload
	err := s.read().get(ctx, &u, `SELECT `+uploadColumns+` FROM uploads u WHERE u.token_hash = ? AND u.status = ? AND u.expires > ?`,
		tokenHash, UploadPending, s.Now())
	if err != nil {
		return nil, classify("store.FindPendingUploadByToken", err)
	}
	return &u, nil
}

// QueueUpload moves a pending upload to queued, so that a worker claims
// its build, and returns the build as it is then (triggered), read in the
// same transaction; a Conflict when the upload is not pending (or
// expired).
func (s *Store) QueueUpload(ctx context.Context, buildID int64) (*Build, error) {
	const op = "store.QueueUpload"
	var out Build
	err := s.InTx(ctx, op, func(tx *Tx) error {
		res, err := tx.exec(ctx, `UPDATE uploads SET status = ? WHERE build_id = ? AND status = ? AND expires > ?`,
			UploadQueued, buildID, UploadPending, tx.Now)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return errs.E(errs.Conflict, op, "upload no longer pending")
		}
		return tx.findBuild(ctx, &out, buildID)
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// FinishUpload finishes an upload's build with r and marks the
// upload done, in one transaction. With pendingOnly, only a pending
// unexpired upload is failed (else Conflict). It returns the finished
// build.
func (s *Store) FinishUpload(ctx context.Context, buildID int64, r BuildResult, pendingOnly bool) (*Build, error) {
	const op = "store.FinishUpload"
	var out Build
	err := s.InTx(ctx, op, func(tx *Tx) error {
		q := `UPDATE uploads SET status = ? WHERE build_id = ? AND status <> ?`
		args := []any{UploadDone, buildID, UploadDone}
		if pendingOnly {
			q += ` AND status = ? AND expires > ?`
			args = append(args, UploadPending, tx.Now)
		}
		res, err := tx.exec(ctx, q, args...)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return errs.E(errs.Conflict, op, "upload already done")
		}
		if err := tx.finishBuild(ctx, buildID, r); err != nil {
			return err
		}
		return tx.findBuild(ctx, &out, buildID)
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// UploadDone marks an upload done once its build was processed.
func (s *Store) UploadDone(ctx context.Context, buildID int64) error {
	return s.InTx(ctx, "store.UploadDone", func(tx *Tx) error {
		_, err := tx.exec(ctx, `UPDATE uploads SET status = ? WHERE build_id = ?`, UploadDone, buildID)
		return err
	})
}

// ExpiredUploads lists the uploads to expire: pending ones past their
// expiry, and queued ones whose build is not finished maxAge after its
// creation.
func (s *Store) ExpiredUploads(ctx context.Context, maxAge time.Duration) ([]*Upload, error) {
	var out []*Upload
	now := s.Now()
	err := s.read().sel(ctx, &out, `SELECT `+uploadColumns+` FROM uploads u
		WHERE (u.status = ? AND u.expires <= ?) OR (u.status = ? AND u.created <= ?) ORDER BY u.build_id`,
		UploadPending, now, UploadQueued, now.Add(-maxAge))
	return out, classify("store.ExpiredUploads", err)
}

// finishBuild finishes an unfinished build with r inside tx (FinishBuild's
// update, for callers that change other rows with it).
func (tx *Tx) finishBuild(ctx context.Context, id int64, r BuildResult) error {
	var b Build
	if err := tx.findBuild(ctx, &b, id); err != nil {
		return err
	}
	if b.State == Finished {
		return errs.E(errs.Conflict, "store.finishBuild", errs.MsgBuildFinished)
	}
	started := b.Started
	if started == nil {
		started = &tx.Now
	}
	_, err := tx.exec(ctx, `UPDATE builds SET state = 'finished', success = ?, error = ?, error_id = ?, exit_code = ?, finished_at = ?,
		started = ?, length = ?, lease_owner = NULL, lease_expires = NULL WHERE id = ?`,
		r.Success, r.Error, r.ErrorID, r.ExitCode, tx.Now, *started, lengthSince(started, tx.Now), id)
	if err != nil || r.ErrorID == CancelledErrorID {
		// A build cancelled by hand notifies nobody (as Read the Docs).
		return err
	}
	event := EventBuildPassed
	if !r.Success {
		event = EventBuildFailed
	}
	return tx.queueBuildNotifications(ctx, id, event)
}
