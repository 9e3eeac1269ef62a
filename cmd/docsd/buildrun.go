package main

import (
	"time"

	"context"
	"docsd/internal/builder"
	"fmt"
	"strconv"

	"docsd/internal/errs"
	"docsd/store"
)

// cancelBuild is `docsd build cancel ID`: a queued
// build is finished as cancelled at once; for a running one the cancel is
// requested, and the worker running it, in this process or another, stops
// it within seconds.
func (c *command) cancelBuild(ctx context.Context, a *app, arg string) error {
	id, err := strconv.ParseInt(arg, 10, 64)
	if err != nil || id <= 0 {
		return usageError("build ID must be a positive integer")
	}
	b, err := a.store.CancelBuild(ctx, id)
	switch {
	case errs.Is(err, errs.NotFound):
		return notFoundAs(err, fmt.Sprintf("build %d does not exist", id))
	case errs.Is(err, errs.Conflict):
		return errs.E(errs.Conflict, "admin", fmt.Sprintf("build %d has already finished", id))
	case err != nil:
		return err
	}
	if b.State == store.Finished {
		fmt.Fprintf(c.stdout, "build %d cancelled\n", id)
	} else {
		fmt.Fprintf(c.stdout, "build %d: cancel requested; its worker stops it within seconds\n", id)
	}
	return nil
}

// buildLimits turns the limit settings (MiB, seconds, 0 for off) into the
// builder's (bytes, durations, negative for off).
func buildLimits(s Settings) builder.Limits {
	orOff := func(n int, unit int64) int64 {
		if n == 0 {
			return -1
		}
		return int64(n) * unit
	}
	return builder.Limits{
		Memory:    orOff(s.BuildMemoryLimit, 1<<20),
		Processes: int(orOff(s.BuildProcessLimit, 1)),
		CPUTime:   time.Duration(orOff(s.BuildCPULimit, int64(time.Second))),
		Disk:      orOff(s.BuildDiskLimit, 1<<20),
	}
}
