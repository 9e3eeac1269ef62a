package builder

import (
	"context"
	"os"
	"path/filepath"

	"docsd/internal/rtdconfig"
)

// BuildConfig is a validated build configuration (package rtdconfig).
type BuildConfig = rtdconfig.Config

// SubmoduleConfig is the `submodules` section.
type SubmoduleConfig = rtdconfig.SubmoduleConfig

// ConfigFileNames are the configuration files looked for at the checkout
// root, in this order.
var ConfigFileNames = rtdconfig.ConfigFileNames

// retiredOSNote is the line recorded for `build.os: ubuntu-20.04`.
const retiredOSNote = "build.os ubuntu-20.04 is retired on Read the Docs; docsd builds with this server's tools."

// configure reads the configuration (rtdconfig.Load), records
// `cat <file>` first for a current file, resolves its tools and clears
// its output directory, then stores the config. The file a project's
// readthedocs_yaml_path names is recorded as the build's.
func (j *job) configure(ctx context.Context) (*BuildConfig, error) {
	in := rtdconfig.Input{Ckout: j.ckout, Project: j.project.ConfigSettings(), ImagePrefix: j.pool.cfg.BuildImagePrefix,
		ExtraToolVersions: j.pool.cfg.BuildTools.versions()}
	if file, buildOS, ok := rtdconfig.Classify(in); ok {
		if err := j.catConfig(ctx, file, buildOS == rtdconfig.RetiredOS); err != nil {
			return nil, err
		}
	}
	if p := j.project.ReadthedocsYamlPath; p != nil && *p != "" {
		if err := j.pool.store.SetBuildConfigPath(ctx, j.build.ID, p); err != nil {
			return nil, err
		}
	}
	cfg, err := rtdconfig.Load(in)
	if err != nil {
		return nil, err
	}
	if cfg.Current != nil {
		j.current = &currentState{tools: j.resolveTools(ctx, cfg.Current)}
		if err := os.RemoveAll(filepath.Join(j.ckout, "_readthedocs")); err != nil {
			return nil, err
		}
	}
	if err := j.pool.store.SetBuildConfig(ctx, j.build.ID, cfg.JSON()); err != nil {
		return nil, err
	}
	return cfg, nil
}

// catConfig records `cat <file>` (cwd the checkout), with a note
// for a retired build.os.
func (j *job) catConfig(ctx context.Context, file string, retired bool) error {
	argv := []string{"cat", file}
	res, err := j.process(ctx, argv, cmdOpts{})
	if err != nil {
		return err
	}
	if retired {
		res.Output += retiredOSNote + "\n"
	}
	if err := j.record(ctx, nil, "cat "+file, "", res); err != nil {
		return err
	}
	if res.ExitCode != 0 {
		return commandFailed("cat "+file, res.ExitCode)
	}
	return nil
}
