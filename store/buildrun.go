package store

import (
	"context"
	"time"

	"docsd/internal/errs"
)

// CancelledMessage is the error of a build a maintainer cancelled.
const CancelledMessage = "Build cancelled manually."

// CancelledErrorID is the notification message id of a cancelled build.
const CancelledErrorID = "build:user:cancelled"

// CancelBuild cancels a build. A queued build, or a running one whose lease
// has expired (its worker is gone), is finished at once: state `finished`,
// success false, error CancelledMessage, exit code null. For a running
// build the cancel is only requested: the worker that runs it sees the
// request within a second (BuildCancelRequested), kills its processes and
// finishes it the same way. It returns the build as it is after the call.
// Cancelling a finished build is a Conflict; an unknown id is NotFound.
func (s *Store) CancelBuild(ctx context.Context, id int64) (*Build, error) {
	const op = "store.CancelBuild"
	var out Build
	err := s.InTx(ctx, op, func(tx *Tx) error {
		var b Build
		if err := tx.findBuild(ctx, &b, id); err != nil {
			return err
		}
		switch {
		case b.State == Finished:
			return errs.E(errs.Conflict, op, errs.MsgBuildFinished)
		case b.State == Triggered || b.LeaseExpires == nil || b.LeaseExpires.Before(tx.Now):
			started := b.Started
			if started == nil {
				started = &tx.Now
			}
			if _, err := tx.exec(ctx, `UPDATE builds SET state = 'finished', success = ?, error = ?, error_id = ?, exit_code = NULL,
				finished_at = ?, started = ?, length = ?, lease_owner = NULL, lease_expires = NULL, cancel_requested = NULL WHERE id = ?`,
				false, CancelledMessage, CancelledErrorID, tx.Now, *started, lengthSince(started, tx.Now), id); err != nil {
				return err
			}
		default:
			if _, err := tx.exec(ctx, `UPDATE builds SET cancel_requested = ? WHERE id = ? AND cancel_requested IS NULL`, tx.Now, id); err != nil {
				return err
			}
		}
		return tx.findBuild(ctx, &out, id)
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// BuildCancelRequested reports whether a cancel of the running build was
// requested (CancelBuild). Workers poll it about every second.
func (s *Store) BuildCancelRequested(ctx context.Context, id int64) (bool, error) {
	var n int
	err := s.read().get(ctx, &n, `SELECT COUNT(*) FROM builds WHERE id = ? AND cancel_requested IS NOT NULL`, id)
	return n > 0, classify("store.BuildCancelRequested", err)
}

// RequeueBuild puts a running build held by owner back in the queue, as
// if it had never been claimed: state `triggered`, no start, length,
// lease or builder, its recorded commands, configuration and error
// removed, and the checked-out commit forgotten unless the build was
// created for one (pull-request builds). docsd calls it for the build a
// worker was running when docsd itself shut down, so that the next worker
// runs it again. A build whose cancel was requested is finished as
// cancelled instead. It is a Conflict when owner no longer holds the
// build.
func (s *Store) RequeueBuild(ctx context.Context, id int64, owner string) error {
	const op = "store.RequeueBuild"
	return s.InTx(ctx, op, func(tx *Tx) error {
		var row struct {
			Cancel      *time.Time `db:"cancel_requested"`
			VersionType string     `db:"type"`
		}
		err := tx.get(ctx, &row, `SELECT b.cancel_requested, v.type FROM builds b JOIN versions v ON v.id = b.version_id
			WHERE b.id = ? AND b.lease_owner = ? AND b.state IN `+runningStates, id, owner)
		if errs.Is(classify(op, err), errs.NotFound) {
			return errs.E(errs.Conflict, op, "build lease lost")
		}
		if err != nil {
			return err
		}
		if row.Cancel != nil {
			_, err := tx.exec(ctx, `UPDATE builds SET state = 'finished', success = ?, error = ?, error_id = ?, exit_code = NULL,
				finished_at = ?, lease_owner = NULL, lease_expires = NULL WHERE id = ?`, false, CancelledMessage, CancelledErrorID, tx.Now, id)
			return err
		}
		commit := `commit_hash = NULL,`
		if row.VersionType == External {
			commit = ``
		}
		if _, err := tx.exec(ctx, `DELETE FROM build_commands WHERE build_id = ?`, id); err != nil {
			return err
		}
		_, err = tx.exec(ctx, `UPDATE builds SET state = 'triggered', started = NULL, length = NULL, finished_at = NULL, `+commit+`
			config = '{}', readthedocs_yaml_path = NULL, error = '', error_id = '', exit_code = NULL, success = ?,
			builder = '', lease_owner = NULL, lease_expires = NULL, cancel_requested = NULL WHERE id = ?`, true, id)
		return err
	})
}

// UpdateBuildCommand replaces the output of a recorded command of a
// running build and, when end is set, closes it with its exit code and end
// time. Workers call it while the command runs (live output) and when it
// ends. It is a Conflict when the build has finished.
func (s *Store) UpdateBuildCommand(ctx context.Context, c BuildCommand) error {
	const op = "store.UpdateBuildCommand"
	if c.EndTime != nil {
		end := c.EndTime.UTC().Truncate(time.Microsecond)
		c.EndTime = &end
	}
	return s.InTx(ctx, op, func(tx *Tx) error {
		var state string
		if err := tx.get(ctx, &state, `SELECT state FROM builds WHERE id = ?`, c.BuildID); err != nil {
			return err
		}
		if state == Finished {
			return errs.E(errs.Conflict, op, errs.MsgBuildFinished)
		}
		_, err := tx.exec(ctx, `UPDATE build_commands SET output = ?, exit_code = ?, end_time = ? WHERE id = ? AND build_id = ?`,
			c.Output, c.ExitCode, c.EndTime, c.ID, c.BuildID)
		return err
	})
}
