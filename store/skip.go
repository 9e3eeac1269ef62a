package store

import "context"

// SkipMessage is the error of a build whose project has its builds
// disabled (`skip`) when a worker picks it up; the build fails with it
// instead of running.
const SkipMessage = "Builds for this project are temporarily disabled"

// SkipErrorID is the notification message id of such a build.
const SkipErrorID = "build:app:project-builds-disabled"

// finishIfSkipped finishes a triggered build straight away, `triggered` →
// `finished` with SkipMessage and exit code 1, when its project has `skip`
// set, and reports whether it did.
func (tx *Tx) finishIfSkipped(ctx context.Context, buildID, projectID int64) (bool, error) {
	var skip bool
	if err := tx.get(ctx, &skip, `SELECT skip FROM projects WHERE id = ?`, projectID); err != nil || !skip {
		return false, err
	}
	res, err := tx.exec(ctx, `UPDATE builds SET state = 'finished', success = ?, error = ?, error_id = ?, exit_code = 1, started = ?,
		finished_at = ?, length = 0 WHERE id = ? AND state = 'triggered'`, false, SkipMessage, SkipErrorID, tx.Now, tx.Now, buildID)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}
