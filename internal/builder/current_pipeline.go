package builder

import (
	"context"
	"path/filepath"

	"docsd/internal/rtdconfig"
	"docsd/store"
)

// Messages of current-file builds, word for word as Read the Docs words
// them (the note is docsd's).
const (
	MsgExitCode183     = "This build was skipped because one of the commands exited with code 183"
	MsgFileNotFoundFmt = "The file %s doesn't exist. Make sure it's a valid file path."
	preCheckoutNote    = "build.jobs.pre_checkout does not run: the repository is not cloned yet at that point."
)

// currentPipeline runs a current-file build from its checkout jobs to the
// output checks (the submodules are updated already) and returns what to
// publish.
func (j *job) currentPipeline(ctx context.Context, cfg *BuildConfig) (*outputs, error) {
	cur := cfg.Current
	if cmds, ok := cur.Job("pre_checkout"); ok && len(cmds) > 0 {
		if err := j.recordNote(ctx, "build.jobs.pre_checkout (skipped)", "", preCheckoutNote, 0, now()); err != nil {
			return nil, err
		}
	}
	if err := j.runJob(ctx, cur, "post_checkout"); err != nil {
		return nil, err
	}
	if err := j.setState(ctx, store.Installing); err != nil {
		return nil, err
	}
	if len(cur.Commands) > 0 {
		return j.commandMode(ctx, cfg)
	}
	if err := j.currentInstalling(ctx, cfg); err != nil {
		return nil, err
	}
	if err := j.setState(ctx, store.Building); err != nil {
		return nil, err
	}
	if err := j.currentBuilding(ctx, cfg); err != nil {
		return nil, err
	}
	return j.collectOutputs(false)
}

// commandMode is a build with build.commands: build.apt_packages, the
// tools, a venv for a CPython tool, then the commands and the output
// checks.
func (j *job) commandMode(ctx context.Context, cfg *BuildConfig) (*outputs, error) {
	if err := j.aptPackages(ctx, cfg.Current.AptPackages); err != nil {
		return nil, err
	}
	if err := j.toolNotes(ctx, cfg.Current); err != nil {
		return nil, err
	}
	if t := cfg.Current.Tool("python"); t != nil && !rtdconfig.IsConda(t.Version) {
		if err := j.createVenv(ctx, cfg); err != nil {
			return nil, err
		}
	}
	if err := j.setState(ctx, store.Building); err != nil {
		return nil, err
	}
	if err := j.runCommands(ctx, cfg.Current.Commands, "build.commands"); err != nil {
		return nil, err
	}
	return j.collectOutputs(true)
}

// runJob runs a build.jobs job's commands; nothing for an absent or empty
// job. post_checkout runs as a VCS command.
func (j *job) runJob(ctx context.Context, cur *rtdconfig.Current, name string) error {
	cmds, _ := cur.Job(name)
	return j.runCommands(ctx, cmds, "build.jobs."+name)
}

// runCommands runs each string as `/bin/sh -c <string>`, recorded as
// written with description desc. A non-zero exit code fails the build;
// 183 ends it as skipped.
func (j *job) runCommands(ctx context.Context, cmds []string, desc string) error {
	vcs := desc == "build.jobs.post_checkout"
	for _, c := range cmds {
		res, err := j.run(ctx, []string{"/bin/sh", "-c", c}, cmdOpts{record: c, description: desc, vcs: vcs, inEnv: !vcs, network: true})
		if err != nil {
			return err
		}
		switch res.ExitCode {
		case 0:
		case 183:
			return &failure{msg: MsgExitCode183, id: IDExitCode183, exitCode: 183}
		default:
			return commandFailed(c, res.ExitCode)
		}
	}
	return nil
}

// toolNotes is the tools step: each tool's substitution note or failure,
// in file order; the executables' directories go on PATH.
func (j *job) toolNotes(ctx context.Context, cur *rtdconfig.Current) error {
	for i, r := range j.current.tools {
		t := cur.Tools[i]
		if r.failure != nil {
			return r.failure
		}
		if r.note != "" {
			if err := j.recordNote(ctx, "build.tools."+t.Name+" "+t.Version+" (substituted)", "", r.note, 0, now()); err != nil {
				return err
			}
		}
		if t.Name != "python" || rtdconfig.IsConda(t.Version) {
			j.current.toolDirs = append(j.current.toolDirs, filepath.Dir(r.path))
		}
	}
	return nil
}
