package builder

import (
	"context"
	"errors"
	"sync"
	"time"

	"docsd/store"
)

// liveRecord is the record of a build command that is running: it is
// stored when the command starts (no exit code, no end time) and its
// output replaced about every second while it runs, masked like the final
// output, so that the v2 build detail, the `.txt` log and the graph show
// a long step progressing. A nil *liveRecord (sync
// tasks) records nothing.
type liveRecord struct {
	j   *job
	cmd store.BuildCommand

	mu   sync.Mutex // guards last and closed; serialises writes
	last string     // the output last stored
	done bool       // closed: ticks write nothing any more
}

// startRecord stores a command of a build as started; nil for sync tasks.
func (j *job) startRecord(ctx context.Context, command, description string) (*liveRecord, error) {
	if j.build == nil {
		return nil, nil
	}
	if errors.Is(context.Cause(ctx), errLeaseLost) {
		return nil, errLeaseLost
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	c, err := j.pool.store.AddBuildCommand(wctx, store.BuildCommand{
		BuildID: j.build.ID, Command: j.mask.Mask(command), Description: description, StartTime: now(),
	})
	if err != nil {
		return nil, err
	}
	return &liveRecord{j: j, cmd: *c}, nil
}

// tick stores the output captured so far when it changed. A failed write
// is logged and retried at the next tick; the final write (close) is the
// one that counts.
func (l *liveRecord) tick(raw []byte, cut bool) {
	if l == nil {
		return
	}
	out := liveOutput(raw, cut, l.j.mask)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done || out == l.last {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := l.cmd
	c.Output = out
	if err := l.j.pool.store.UpdateBuildCommand(ctx, c); err != nil {
		l.j.logger.Warn("recording live output", "err", err)
		return
	}
	l.last = out
}

// close stores the command's final record c (its output, exit code and
// end time); the start time stays the one stored at the start.
func (l *liveRecord) close(ctx context.Context, c store.BuildCommand) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.done = true
	c.ID, c.StartTime = l.cmd.ID, l.cmd.StartTime
	return l.j.pool.store.UpdateBuildCommand(ctx, c)
}

// abandon closes the record of a command that docsd could not run
// (sandbox or confinement problems, docsd's own, logged and not shown)
// with no output and exit code 1.
func (l *liveRecord) abandon(ctx context.Context) error {
	if l == nil {
		return nil
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	end, code := now(), 1
	c := l.cmd
	c.Output, c.ExitCode, c.EndTime = "", &code, &end
	if err := l.close(wctx, c); err != nil && !errors.Is(context.Cause(ctx), errLeaseLost) {
		return err
	}
	return nil
}
