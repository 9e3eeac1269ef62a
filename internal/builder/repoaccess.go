package builder

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"docsd/internal/audit"
	"docsd/internal/errs"
	"docsd/internal/repocreds"
	"docsd/store"
)

// repoAccess is what a job's VCS commands, and only they, use to reach a
// private repository: the project's deploy key in a directory of its own
// (outside the checkout, never bound into the sandbox of other commands,
// removed when the VCS step ends), and its HTTPS credentials as git
// configuration in the environment (see
// docs/user-guide/private-repositories.md).
type repoAccess struct {
	ssh *repocreds.SSH // nil: no key, or not an SSH URL
	// gitConfig are extra `key=value` git settings of VCS commands
	// (GIT_CONFIG_KEY_n / GIT_CONFIG_VALUE_n): the Authorization header
	// scoped to the repository's origin.
	gitConfig [][2]string
}

// credentialsDir is where the ssh directories of VCS commands are made:
// Config.CredentialsDir, else tmp under the builder's data directory.
func (c *Config) credentialsDir() string {
	if c.CredentialsDir != "" {
		return c.CredentialsDir
	}
	return filepath.Join(c.DataDir, "tmp")
}

// RemoveStaleCredentials deletes the key directories a stopped process
// left under the data directory; Start calls it.
func (p *Pool) RemoveStaleCredentials() error {
	return repocreds.RemoveStale(p.cfg.credentialsDir())
}

// openRepoAccess prepares the project's repository credentials for the
// VCS commands that follow; closeRepoAccess must end them. A project
// without credentials, or whose URL does not use them, gets nothing.
func (j *job) openRepoAccess(ctx context.Context) error {
	if j.access != nil {
		return nil
	}
	a := &repoAccess{}
	s := j.pool.store
	repo := j.project.Repo
	if address, ok := repocreds.SSHAddress(repo); ok {
		private, err := s.FindSSHPrivateKey(ctx, j.project.ID)
		switch {
		case errs.Is(err, errs.NotFound):
		case err != nil:
			return err
		default:
			hosts, err := s.FindKnownHosts(ctx, j.project.ID)
			if err != nil {
				return err
			}
			lines := make([]string, len(hosts))
			for i, h := range hosts {
				lines[i] = h.Line
			}
			if a.ssh, err = repocreds.PrepareSSH(j.pool.cfg.credentialsDir(), private, lines, j.pool.cfg.SSHKnownHosts, address); err != nil {
				return err
			}
			if uid, gid, ok := j.pool.sandbox().owner(); ok && os.Geteuid() == 0 {
				// ssh runs as the sandbox's user and must read the key.
				if err := a.ssh.Chown(uid, gid); err != nil {
					a.ssh.Remove()
					return fmt.Errorf("builder: handing the key over: %w", err)
				}
			}
		}
	}
	user, token, err := s.FindRepositoryToken(ctx, j.project.ID)
	switch {
	case errs.Is(err, errs.NotFound):
	case err != nil:
		a.close()
		return err
	default:
		if key, value, ok := repocreds.HTTPSHeader(repo, user, token); ok {
			a.gitConfig = append(a.gitConfig, [2]string{key, value})
			j.mask = j.mask.with(token, repocreds.BasicAuth(user, token), user+":"+token)
		}
	}
	j.access = a
	return nil
}

// closeRepoAccess ends the credentials of the VCS step: host keys ssh
// accepted on first use are stored as the project's learned lines, and
// the key's directory is removed. It may be called more than once.
func (j *job) closeRepoAccess(ctx context.Context) {
	a := j.access
	if a == nil {
		return
	}
	j.access = nil
	if a.ssh != nil {
		learned, err := a.ssh.Learned()
		if err == nil && len(learned) > 0 {
			err = j.learnHosts(context.WithoutCancel(ctx), learned)
		}
		if err != nil {
			j.logger.Warn("storing the host keys learned on first use", "err", err)
		}
	}
	if err := a.close(); err != nil {
		j.logger.Warn("removing the SSH key directory", "err", err)
	}
}

// learnHosts stores host keys ssh accepted on first use and records the
// hosts newly pinned in the audit log, as done by nobody: no user asked
// for them.
func (j *job) learnHosts(ctx context.Context, learned []repocreds.KnownHost) error {
	rows := make([]store.KnownHost, len(learned))
	for i, h := range learned {
		rows[i] = store.KnownHost{Hosts: h.Hosts, KeyType: h.KeyType, Line: h.Line}
	}
	added, err := j.pool.store.AddLearnedKnownHosts(ctx, j.project.ID, rows)
	if err != nil {
		return err
	}
	if len(added) > 0 {
		hosts := make([]string, len(added))
		for i, h := range added {
			hosts[i] = h.Hosts
		}
		j.pool.cfg.Audit.Record(ctx, audit.Event{Action: store.AuditKnownHostsChanged, Project: j.project,
			Data: map[string]any{"hosts": hosts, "learned": true}})
	}
	return nil
}

func (a *repoAccess) close() error {
	if a.ssh == nil {
		return nil
	}
	return a.ssh.Remove()
}

// setGitEnv sets the credentials' variables of a VCS command, after the
// git settings already in env (GIT_CONFIG_COUNT).
func (a *repoAccess) setGitEnv(env *environ) {
	if a == nil {
		return
	}
	if a.ssh != nil {
		env.Set("GIT_SSH_COMMAND", a.ssh.Command())
	}
	for _, kv := range a.gitConfig {
		addGitConfig(env, kv[0], kv[1])
	}
}

// addGitConfig adds a git setting to env through GIT_CONFIG_COUNT,
// GIT_CONFIG_KEY_n and GIT_CONFIG_VALUE_n, after those already there.
func addGitConfig(env *environ, key, value string) {
	n := 0
	fmt.Sscan(env.Get("GIT_CONFIG_COUNT"), &n)
	env.Set(fmt.Sprintf("GIT_CONFIG_KEY_%d", n), key)
	env.Set(fmt.Sprintf("GIT_CONFIG_VALUE_%d", n), value)
	env.Set("GIT_CONFIG_COUNT", fmt.Sprint(n+1))
}

// hostKeyFailure is the failure of a VCS command whose output says ssh
// refused the host's key, when the project's key was in use; nil
// otherwise.
func (j *job) hostKeyFailure(output string) error {
	if j.access == nil || j.access.ssh == nil || !repocreds.HostKeyFailure(output) {
		return nil
	}
	return Failure(IDPrivateCloneError, repocreds.MsgHostKeyChanged(j.access.ssh.Host))
}
