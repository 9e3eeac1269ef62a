package store

import (
	"context"
	"fmt"
	"time"

	"docsd/internal/errs"
)

// buildRows are the columns of a Build, on the table aliased b.
var buildRows = newRowType(
	col[Build]{"b.id", func(b *Build) any { return &b.ID }},
	col[Build]{"b.project_id", func(b *Build) any { return &b.ProjectID }},
	col[Build]{"b.version_id", func(b *Build) any { return &b.VersionID }},
	col[Build]{"b.type", func(b *Build) any { return &b.Type }},
	col[Build]{"b.state", func(b *Build) any { return &b.State }},
	col[Build]{"b.created", func(b *Build) any { return &b.Created }},
	col[Build]{"b.started", func(b *Build) any { return &b.Started }},
	col[Build]{"b.finished_at", func(b *Build) any { return &b.FinishedAt }},
	col[Build]{"b.success", func(b *Build) any { return &b.Success }},
	col[Build]{"b.error", func(b *Build) any { return &b.Error }},
	col[Build]{"b.error_id", func(b *Build) any { return &b.ErrorID }},
	col[Build]{"b.exit_code", func(b *Build) any { return &b.ExitCode }},
	col[Build]{"b.commit_hash", func(b *Build) any { return &b.Commit }},
	col[Build]{"b.length", func(b *Build) any { return &b.Length }},
	col[Build]{"b.config", func(b *Build) any { return &b.Config }},
	col[Build]{"b.readthedocs_yaml_path", func(b *Build) any { return &b.ConfigPath }},
	col[Build]{"b.version_name", func(b *Build) any { return &b.VersionName }},
	col[Build]{"b.version_type", func(b *Build) any { return &b.VersionType }},
	col[Build]{"b.builder", func(b *Build) any { return &b.Builder }},
	col[Build]{"b.lease_owner", func(b *Build) any { return &b.LeaseOwner }},
	col[Build]{"b.lease_expires", func(b *Build) any { return &b.LeaseExpires }},
	col[Build]{"(SELECT vs.slug FROM versions vs WHERE vs.id = b.version_id) AS version_slug", func(b *Build) any { return &b.VersionSlug }},
)

// findBuild reads the build with that id into b.
func (c conn) findBuild(ctx context.Context, b *Build, id int64) error {
	return getRow(ctx, c, buildRows, b, `SELECT `+buildRows.cols+` FROM builds b WHERE b.id = ?`, id)
}

// runningStates are the states of a build that a worker is working on.
const runningStates = `('cloning', 'installing', 'building')`

// BuildFilter selects builds. Nil fields do not filter.
type BuildFilter struct {
	IDs         []int64
	ProjectID   *int64
	ProjectSlug *string
	VersionID   *int64
	Commit      *string
	Running     *bool // true: state != finished; false: state == finished
	Internal    bool  // leave out builds of external versions
	Visible     *Visibility
	Limit       int
	Offset      int
	// Keyset, when set, pages by cursor instead of Offset.
	Keyset *Keyset
}

// buildOrder is the order of build lists: most recent first.
var buildOrder = []orderKey{{col: "created", desc: true}, {col: "id", desc: true}}

func (f BuildFilter) where() *where {
	w := &where{}
	if f.IDs != nil {
		if len(f.IDs) == 0 {
			w.add("1=0")
		} else {
			w.add("b.id IN (?)", f.IDs)
		}
	}
	if f.ProjectID != nil {
		w.add("b.project_id = ?", *f.ProjectID)
	}
	if f.ProjectSlug != nil {
		w.addText("p.slug", *f.ProjectSlug)
	}
	if f.VersionID != nil {
		w.add("b.version_id = ?", *f.VersionID)
	}
	if f.Commit != nil {
		w.addText("b.commit_hash", *f.Commit)
	}
	if f.Running != nil {
		if *f.Running {
			w.add("b.state <> 'finished'")
		} else {
			w.add("b.state = 'finished'")
		}
	}
	if f.Internal {
		w.add("v.type <> 'external'")
	}
	if f.Visible != nil {
		c, a := f.Visible.versionVisible("v", "p")
		w.add(c, a...)
	}
	return w
}

// FindBuilds returns matching builds, most recent first (created, then id,
// descending), and the total count of matches.
func (s *Store) FindBuilds(ctx context.Context, f BuildFilter) ([]*Build, int, error) {
	var builds []*Build
	total, err := findPage(ctx, s, &builds, buildRows.next, f.listRead(buildRows.cols))
	return builds, total, classify("store.FindBuilds", err)
}

// listRead is the read of f's page selecting cols (of builds b, their
// versions v and projects p).
func (f BuildFilter) listRead(cols string) listRead {
	return listRead{cols: cols,
		from:  ` FROM builds b JOIN versions v ON v.id = b.version_id JOIN projects p ON p.id = b.project_id`,
		table: "builds", alias: "b", order: buildOrder, w: f.where(), limit: f.Limit, offset: f.Offset, keyset: f.Keyset}
}

// BuildPage is a page of builds with the versions they belong to, read in
// the same statement.
type BuildPage struct {
	Builds   []*Build
	Versions []*Version // the version of each build, in the order of Builds
	Total    int        // the number of matches regardless of Limit/Offset
}

// buildRow is a row of a build list: the build and its version.
type buildRow struct {
	Build
	Version Version
}

// nextBuildRow is a scanAll row maker for buildRows and versionRows.
func nextBuildRow(buf []any) (*buildRow, []any) {
	r := new(buildRow)
	return r, versionRows.dests(buildRows.dests(buf, &r.Build), &r.Version)
}

// FindBuildPage is FindBuilds with each build's version.
func (s *Store) FindBuildPage(ctx context.Context, f BuildFilter) (BuildPage, error) {
	var rows []*buildRow
	total, err := findPage(ctx, s, &rows, nextBuildRow, f.listRead(buildRows.cols+", "+versionRows.cols))
	page := BuildPage{Builds: make([]*Build, len(rows)), Versions: make([]*Version, len(rows)), Total: total}
	for i, r := range rows {
		page.Builds[i], page.Versions[i] = &r.Build, &r.Version
	}
	return page, classify("store.FindBuilds", err)
}

// FindBuildByID returns the build with that id, whoever can see it.
func (s *Store) FindBuildByID(ctx context.Context, id int64) (*Build, error) {
	var b Build
	err := s.read().findBuild(ctx, &b, id)
	return &b, classify("store.FindBuildByID", err)
}

// CreateBuild queues a new build of the version in state `triggered`.
// commit is set for pull-request builds, nil otherwise.
func (s *Store) CreateBuild(ctx context.Context, v *Version, commit *string) (*Build, error) {
	var b *Build
	err := s.InTx(ctx, "store.CreateBuild", func(tx *Tx) error {
		var err error
		b, err = tx.CreateBuild(ctx, v, commit)
		return err
	})
	return b, err
}

// CreateBuild is CreateBuild inside tx.
func (tx *Tx) CreateBuild(ctx context.Context, v *Version, commit *string) (*Build, error) {
	b := &Build{ProjectID: v.ProjectID, VersionID: v.ID, VersionSlug: v.Slug, Type: "html", State: Triggered, Created: tx.Now,
		Success: true, Commit: commit, Config: "{}"}
	// The version's name and type are read in the statement: v may be older.
	err := tx.get(ctx, b, `INSERT INTO builds (project_id, version_id, type, state, created, success, error, commit_hash, config,
		version_name, version_type) VALUES (?, ?, ?, ?, ?, ?, '', ?, '{}',
		COALESCE((SELECT verbose_name FROM versions WHERE id = ?), ''), COALESCE((SELECT type FROM versions WHERE id = ?), ''))
		RETURNING id, version_name, version_type`,
		b.ProjectID, b.VersionID, b.Type, b.State, b.Created, b.Success, b.Commit, b.VersionID, b.VersionID)
	if err != nil {
		return nil, err
	}
	return b, tx.queueBuildNotifications(ctx, b.ID, EventBuildTriggered)
}

// ClaimBuild hands the oldest triggered build whose project has nothing in
// progress to owner, with a lease until now+lease, and moves it to
// `cloning` (started = now, length = 0). A build of a project whose builds
// are disabled is finished instead (finishIfSkipped) and not handed out.
// It returns NotFound when there is nothing to claim. Two claimers never
// get the same build, nor two builds of one project: the project row is
// locked (FOR UPDATE SKIP LOCKED on PostgreSQL; SQLite's single writer
// serialises) while the claim re-checks.
func (s *Store) ClaimBuild(ctx context.Context, owner string, lease time.Duration) (*Build, error) {
	const op = "store.ClaimBuild"
	var cands []claimCandidate
	err := s.read().sel(ctx, &cands, `SELECT b.id, b.project_id FROM builds b WHERE b.state = 'triggered'
		AND NOT EXISTS (SELECT 1 FROM builds r WHERE r.project_id = b.project_id AND r.state IN `+runningStates+`)
		AND NOT EXISTS (SELECT 1 FROM sync_tasks t WHERE t.project_id = b.project_id AND t.started IS NOT NULL)
		AND NOT EXISTS (SELECT 1 FROM uploads u WHERE u.build_id = b.id AND u.status = '`+UploadPending+`')
		ORDER BY b.created, b.id LIMIT 20`)
	if err != nil {
		return nil, classify(op, err)
	}
	var b Build
	err = s.claimFirst(ctx, op, cands, func(tx *Tx, c claimCandidate) (bool, error) {
		// A build of a project whose builds are disabled goes straight to
		// finished when a worker picks it up; the next candidate is tried.
		if skipped, err := tx.finishIfSkipped(ctx, c.ID, c.ProjectID); err != nil || skipped {
			return false, err
		}
		id := c.ID
		res, err := tx.exec(ctx, `UPDATE builds SET state = 'cloning', started = ?, length = 0, lease_owner = ?, lease_expires = ?, builder = ?
			WHERE id = ? AND state = 'triggered'`, tx.Now, owner, tx.Now.Add(lease), owner, id)
		if err != nil {
			return false, err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return false, nil
		}
		return true, tx.findBuild(ctx, &b, id)
	})
	if err != nil {
		return nil, err
	}
	return &b, nil
}

// claimCandidate is a queued row (build or sync task) and its project.
type claimCandidate struct {
	ID        int64 `db:"id"`
	ProjectID int64 `db:"project_id"`
}

// claimFirst tries the candidates oldest first, at most one per project: in
// a transaction that holds the project's lock and has re-checked that the
// project is idle, take claims the row. It returns NotFound when no
// candidate could be taken.
func (s *Store) claimFirst(ctx context.Context, op string, cands []claimCandidate, take func(tx *Tx, c claimCandidate) (bool, error)) error {
	seen := map[int64]bool{}
	for _, c := range cands {
		if seen[c.ProjectID] {
			continue
		}
		seen[c.ProjectID] = true
		claimed := false
		err := s.InTx(ctx, op, func(tx *Tx) error {
			idle, err := tx.lockIdleProject(ctx, c.ProjectID)
			if err != nil || !idle {
				return err
			}
			claimed, err = take(tx, c)
			return err
		})
		if err != nil {
			return err
		}
		if claimed {
			return nil
		}
	}
	return &errs.Error{Kind: errs.NotFound, Op: op, Message: "nothing to claim"}
}

// lockIdleProject locks the project row for the rest of tx and reports
// whether the project has no build or sync task in progress. It reports false
// without waiting when another claimer holds the lock.
func (tx *Tx) lockIdleProject(ctx context.Context, projectID int64) (bool, error) {
	lock := `SELECT id FROM projects WHERE id = ?`
	if tx.s.dialect == Postgres {
		lock += ` FOR UPDATE SKIP LOCKED`
	}
	var ids []int64
	if err := tx.sel(ctx, &ids, lock, projectID); err != nil || len(ids) == 0 {
		return false, err
	}
	var busy int
	err := tx.get(ctx, &busy, `SELECT (SELECT COUNT(*) FROM builds WHERE project_id = ? AND state IN `+runningStates+`)
		+ (SELECT COUNT(*) FROM sync_tasks WHERE project_id = ? AND started IS NOT NULL)`, projectID, projectID)
	return busy == 0, err
}

// ExtendBuildLease moves the lease of a running build held by owner to
// now+lease. It is a Conflict when owner no longer holds it (the build was
// swept or finished).
func (s *Store) ExtendBuildLease(ctx context.Context, id int64, owner string, lease time.Duration) error {
	const op = "store.ExtendBuildLease"
	return s.InTx(ctx, op, func(tx *Tx) error {
		res, err := tx.exec(ctx, `UPDATE builds SET lease_expires = ? WHERE id = ? AND lease_owner = ? AND state IN `+runningStates,
			tx.Now.Add(lease), id, owner)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return errs.E(errs.Conflict, op, "build lease lost")
		}
		return nil
	})
}

// lengthSince is whole seconds from started to now.
func lengthSince(started *time.Time, now time.Time) int {
	if started == nil {
		return 0
	}
	return int(now.Sub(*started) / time.Second)
}

// SetBuildState moves a running build to state (cloning, installing,
// building) and updates its length.
func (s *Store) SetBuildState(ctx context.Context, id int64, state string) error {
	const op = "store.SetBuildState"
	return s.InTx(ctx, op, func(tx *Tx) error {
		var b Build
		if err := tx.findBuild(ctx, &b, id); err != nil {
			return err
		}
		if b.State == Finished {
			return errs.E(errs.Conflict, op, errs.MsgBuildFinished)
		}
		_, err := tx.exec(ctx, `UPDATE builds SET state = ?, length = ? WHERE id = ?`, state, lengthSince(b.Started, tx.Now), id)
		return err
	})
}

// SetBuildCommit records the commit a build checked out, unless one is set.
func (s *Store) SetBuildCommit(ctx context.Context, id int64, commit string) error {
	return s.InTx(ctx, "store.SetBuildCommit", func(tx *Tx) error {
		_, err := tx.exec(ctx, `UPDATE builds SET commit_hash = ? WHERE id = ? AND commit_hash IS NULL`, commit, id)
		return err
	})
}

// SetBuildConfig stores the build's validated configuration (JSON object).
func (s *Store) SetBuildConfig(ctx context.Context, id int64, configJSON string) error {
	return s.InTx(ctx, "store.SetBuildConfig", func(tx *Tx) error {
		_, err := tx.exec(ctx, `UPDATE builds SET config = ? WHERE id = ?`, configJSON, id)
		return err
	})
}

// SetBuildConfigPath records the custom configuration path the build used
// (the project's readthedocs_yaml_path, shown by v2); nil clears it.
func (s *Store) SetBuildConfigPath(ctx context.Context, id int64, path *string) error {
	return s.InTx(ctx, "store.SetBuildConfigPath", func(tx *Tx) error {
		_, err := tx.exec(ctx, `UPDATE builds SET readthedocs_yaml_path = ? WHERE id = ?`, path, id)
		return err
	})
}

// BuildResult is how a build ended.
type BuildResult struct {
	Success bool
	Error   string
	// ErrorID is the notification message id of a failure, e.g.
	// build:user:generic; empty on success.
	ErrorID  string
	ExitCode *int
}

// FinishBuild moves a build to `finished` with its result, final length and
// finish time, and releases its lease. Finishing a finished build is a
// Conflict (it was swept meanwhile).
func (s *Store) FinishBuild(ctx context.Context, id int64, r BuildResult) (*Build, error) {
	const op = "store.FinishBuild"
	var out Build
	err := s.InTx(ctx, op, func(tx *Tx) error {
		if err := tx.finishBuild(ctx, id, r); err != nil {
			return err
		}
		return tx.findBuild(ctx, &out, id)
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// InactivityMessage is the error of a build whose worker stopped renewing
// its lease, Read the Docs' text.
func InactivityMessage(id int64) string {
	return fmt.Sprintf("This build was terminated due to inactivity. If you continue to encounter this error, file a support request with and reference this build id (%d).", id)
}

// InactivityErrorID is the notification message id of a swept build.
const InactivityErrorID = "build:app:terminated-due-inactivity"

// SweepStaleBuilds finishes as failed every running build whose lease has
// expired, or that started more than 1.2 × its time limit ago
// (defaultLimit unless the project overrides it). Triggered builds are never
// swept. It returns the ids it finished.
func (s *Store) SweepStaleBuilds(ctx context.Context, defaultLimit time.Duration) ([]int64, error) {
	const op = "store.SweepStaleBuilds"
	type row struct {
		ID           int64      `db:"id"`
		Started      *time.Time `db:"started"`
		LeaseExpires *time.Time `db:"lease_expires"`
		Limit        *int       `db:"build_time_limit"`
	}
	var rows []row
	err := s.read().sel(ctx, &rows, `SELECT b.id, b.started, b.lease_expires, p.build_time_limit FROM builds b
		JOIN projects p ON p.id = b.project_id WHERE b.state IN `+runningStates)
	if err != nil {
		return nil, classify(op, err)
	}
	now := s.Now()
	var swept []int64
	for _, r := range rows {
		limit := defaultLimit
		if r.Limit != nil {
			limit = time.Duration(*r.Limit) * time.Second
		}
		expired := r.LeaseExpires == nil || r.LeaseExpires.Before(now)
		tooOld := r.Started != nil && now.Sub(*r.Started) > limit*12/10
		if !expired && !tooOld {
			continue
		}
		if !expired {
			// Too old but its worker still renews the lease: the build's
			// processes may still run in the project's checkout. Revoke the
			// lease instead of finishing it, so the project stays busy until
			// the worker has noticed, stopped and let the lease run out; a
			// later sweep finishes it. Finishing it now would let the next
			// build of the project start beside it.
			err := s.InTx(ctx, op, func(tx *Tx) error {
				_, err := tx.exec(ctx, `UPDATE builds SET lease_owner = NULL WHERE id = ? AND state IN `+runningStates, r.ID)
				return err
			})
			if err != nil {
				return swept, err
			}
			continue
		}
		err := s.InTx(ctx, op, func(tx *Tx) error {
			// Re-check inside the transaction: the worker may have renewed
			// its lease since the candidates were read.
			res, err := tx.exec(ctx, `UPDATE builds SET state = 'finished', success = ?, error = ?, error_id = ?, exit_code = NULL, finished_at = ?,
				length = ?, lease_owner = NULL, lease_expires = NULL WHERE id = ? AND state IN `+runningStates+`
				AND (lease_expires IS NULL OR lease_expires < ?)`,
				false, InactivityMessage(r.ID), InactivityErrorID, tx.Now, lengthSince(r.Started, tx.Now), r.ID, tx.Now)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n > 0 {
				swept = append(swept, r.ID)
				return tx.queueBuildNotifications(ctx, r.ID, EventBuildFailed)
			}
			return nil
		})
		if err != nil {
			return swept, err
		}
	}
	return swept, nil
}

// buildCommandRows are the columns of a BuildCommand.
var buildCommandRows = newRowType(
	col[BuildCommand]{"id", func(c *BuildCommand) any { return &c.ID }},
	col[BuildCommand]{"build_id", func(c *BuildCommand) any { return &c.BuildID }},
	col[BuildCommand]{"command", func(c *BuildCommand) any { return &c.Command }},
	col[BuildCommand]{"description", func(c *BuildCommand) any { return &c.Description }},
	col[BuildCommand]{"output", func(c *BuildCommand) any { return &c.Output }},
	col[BuildCommand]{"exit_code", func(c *BuildCommand) any { return &c.ExitCode }},
	col[BuildCommand]{"start_time", func(c *BuildCommand) any { return &c.StartTime }},
	col[BuildCommand]{"end_time", func(c *BuildCommand) any { return &c.EndTime }},
)

// AddBuildCommand records a command a build ran and returns it with its id.
func (s *Store) AddBuildCommand(ctx context.Context, c BuildCommand) (*BuildCommand, error) {
	c.StartTime = c.StartTime.UTC().Truncate(time.Microsecond)
	if c.EndTime != nil {
		end := c.EndTime.UTC().Truncate(time.Microsecond)
		c.EndTime = &end
	}
	const op = "store.AddBuildCommand"
	err := s.InTx(ctx, op, func(tx *Tx) error {
		// A finished build's record is closed: a worker that lost its lease
		// must not add to it.
		var state string
		if err := tx.get(ctx, &state, `SELECT state FROM builds WHERE id = ?`, c.BuildID); err != nil {
			return err
		}
		if state == Finished {
			return errs.E(errs.Conflict, op, errs.MsgBuildFinished)
		}
		id, err := tx.insert(ctx, `INSERT INTO build_commands (build_id, command, description, output, exit_code, start_time, end_time)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, c.BuildID, c.Command, c.Description, c.Output, c.ExitCode, c.StartTime, c.EndTime)
		c.ID = id
		return err
	})
	if err != nil {
		return nil, err
	}
	return &c, nil
}

// FindBuildCommands returns the commands of the given builds ordered by
// start time, then id.
func (s *Store) FindBuildCommands(ctx context.Context, buildIDs []int64) ([]*BuildCommand, error) {
	if len(buildIDs) == 0 {
		return nil, nil
	}
	var cs []*BuildCommand
	err := scanAll(ctx, s.read(), &cs, buildCommandRows.next, `SELECT `+buildCommandRows.cols+` FROM build_commands WHERE build_id IN (?) ORDER BY start_time, id`, buildIDs)
	return cs, classify("store.FindBuildCommands", err)
}
