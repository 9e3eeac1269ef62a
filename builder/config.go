package builder

import (
	"context"

	"docsd/rtdconfig"
)

// BuildConfig is a validated build configuration (package rtdconfig).
type BuildConfig = rtdconfig.Config

// SubmoduleConfig is the `submodules` section.
type SubmoduleConfig = rtdconfig.SubmoduleConfig

// ConfigFileNames are the configuration files looked for at the checkout
// root, in this order (behavior.md §7.5).
var ConfigFileNames = rtdconfig.ConfigFileNames

// loadConfig reads the checkout's configuration (rtdconfig.Load) and
// records which file the build used as its readthedocs_yaml_path
// (api-2026.md §A1.6, §A1.9) when the project names one.
func (j *job) loadConfig(ctx context.Context) (*BuildConfig, error) {
	cfg, err := rtdconfig.Load(rtdconfig.Input{Ckout: j.ckout, Project: j.project, ImagePrefix: j.pool.cfg.BuildImagePrefix,
		ExtraToolVersions: j.pool.cfg.BuildTools.versions()})
	if p := j.project.ReadthedocsYamlPath; p != nil && *p != "" {
		if serr := j.pool.store.SetBuildConfigPath(ctx, j.build.ID, p); serr != nil {
			return nil, serr
		}
	}
	return cfg, err
}
