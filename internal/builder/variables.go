package builder

import (
	"context"
	"net/url"
	"path/filepath"
	"strings"

	"docsd/store"
)

// rtdVariables are the READTHEDOCS_* variables of every build (legacy and
// current files alike). They are set after the project's
// variables, so they win over them.
func (j *job) rtdVariables(env *environ, inEnv bool) {
	v := j.version
	env.Set("READTHEDOCS_VERSION_NAME", v.VerboseName)
	env.Set("READTHEDOCS_VERSION_TYPE", v.Type)
	env.Set("READTHEDOCS_REPOSITORY_PATH", j.ckout)
	env.Set("READTHEDOCS_OUTPUT", filepath.Join(j.ckout, "_readthedocs")+"/")
	env.Set("READTHEDOCS_GIT_CLONE_URL", j.project.Repo)
	env.Set("READTHEDOCS_GIT_IDENTIFIER", j.gitIdentifierOf(v))
	if j.commit != "" {
		env.Set("READTHEDOCS_GIT_COMMIT_HASH", j.commit)
	}
	if u, err := url.Parse(j.pool.cfg.PublicURL); err == nil && u.Host != "" {
		env.Set("READTHEDOCS_PRODUCTION_DOMAIN", u.Host)
	}
	if !inEnv {
		return
	}
	if f := j.pool.cfg.CanonicalURL; f != nil {
		env.Set("READTHEDOCS_CANONICAL_URL", f(j.project, v))
	}
	env.Set("READTHEDOCS_VIRTUALENV_PATH", j.envDir)
	env.Set("NO_COLOR", "1")
}

// gitIdentifierOf is READTHEDOCS_GIT_IDENTIFIER: the branch of
// machine `latest` (as the build found it), the name of the version
// machine `stable` follows, else the version's name (a pull request's
// number).
func (j *job) gitIdentifierOf(v *store.Version) string {
	switch {
	case !v.Machine:
		return v.VerboseName
	case v.Slug == store.Stable && j.stableFollows != "":
		return j.stableFollows
	}
	return v.Identifier
}

// findStableFollows is the name of the version machine `stable` follows,
// "" for other versions.
func (j *job) findStableFollows(ctx context.Context) (string, error) {
	v := j.version
	if !v.Machine || v.Slug != store.Stable {
		return "", nil
	}
	vs, err := j.pool.store.FindAllVersions(ctx, store.VersionFilter{ProjectIDs: []int64{v.ProjectID}})
	if err != nil {
		return "", err
	}
	for _, o := range vs {
		if !o.Machine && o.Type != store.External && o.Identifier == v.Identifier {
			return o.VerboseName, nil
		}
	}
	return "", nil
}

// currentState is the state of a current-file build that its commands'
// environment depends on.
type currentState struct {
	tools    []resolution // of build.tools, in file order
	toolDirs []string     // directories of resolved tool executables, in build.tools order
	uv       *uvEnv       // set with a `method: uv` install entry
}

// uvEnv is what a uv install entry adds to the environment.
type uvEnv struct {
	path    string // the resolved uv
	project string // UV_PROJECT
}

// environ adds the variables only current-file builds give their install
// and build steps: PATH with the tools' directories, uv's, and the
// per-build install prefixes of npm, cargo, go and gem.
func (c *currentState) environ(j *job, env *environ) {
	local := filepath.Join(j.home, ".local")
	path := []string{filepath.Join(j.envDir, "bin")}
	path = append(path, c.toolDirs...)
	if c.uv != nil {
		path = append(path, filepath.Dir(c.uv.path))
		env.Set("UV_PYTHON", filepath.Join(j.envDir, "bin", "python"))
		env.Set("UV_PROJECT", c.uv.project)
		env.Set("UV_PROJECT_ENVIRONMENT", j.envDir)
	}
	path = append(path, filepath.Join(local, "bin"), filepath.Join(local, "share", "gem", "bin"), systemPath)
	env.Set("PATH", strings.Join(path, ":"))
	env.Set("NPM_CONFIG_PREFIX", local)
	env.Set("CARGO_INSTALL_ROOT", local)
	env.Set("GOBIN", filepath.Join(local, "bin"))
	env.Set("GEM_HOME", filepath.Join(local, "share", "gem"))
}
