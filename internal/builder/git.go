package builder

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"docsd/internal/repourl"
	"docsd/store"
)

// depthArgs is `--depth N`, or nothing for full history.
func (j *job) depthArgs() []string {
	if d := j.pool.cfg.GitCloneDepth; d > 0 {
		return []string{"--depth", strconv.Itoa(d)}
	}
	return nil
}

// repoFailure is the failure of a clone or fetch that failed with output:
// a changed host key when ssh refused the pinned one, else the private or
// the public repository message, by the allow_private_repos setting.
func (j *job) repoFailure(output string) error {
	if err := j.hostKeyFailure(output); err != nil {
		return err
	}
	if j.pool.cfg.AllowPrivateRepos {
		return fail(MsgRepoPrivate)
	}
	return fail(MsgRepoPublic)
}

// checkClient fails when the project's VCS is not git and its client is
// missing. Only git is supported beyond that check.
func (j *job) checkClient() error {
	typ := j.project.RepoType
	if typ == "" || typ == "git" {
		return nil
	}
	client := map[string]string{"hg": "hg", "svn": "svn", "bzr": "bzr"}[typ]
	if client == "" {
		client = typ
	}
	if _, err := j.pool.lookPath(client); err != nil {
		return failf(MsgClientMissingFmt, typ)
	}
	return fmt.Errorf("builder: %s repositories are not supported yet", typ)
}

// getCode gets the code: clone into the empty
// checkout or fetch into the existing one, then let git find the remote's
// default branch. It returns that branch ("" when unknown).
func (j *job) getCode(ctx context.Context) (string, error) {
	if err := j.checkClient(); err != nil {
		return "", err
	}
	if err := j.checkRepoNetwork(ctx, j.project.Repo); err != nil {
		return "", err
	}
	if err := j.openRepoAccess(ctx); err != nil {
		return "", err
	}
	if isDir(filepath.Join(j.ckout, ".git")) {
		res, err := j.run(ctx, []string{"git", "remote", "set-url", "origin", j.project.Repo}, cmdOpts{vcs: true})
		if err != nil {
			return "", err
		}
		if res.ExitCode != 0 {
			return "", j.repoFailure(res.Output)
		}
		argv := append([]string{"git", "fetch", "origin", "--force", "--tags", "--prune", "--prune-tags"}, j.depthArgs()...)
		if res, err = j.run(ctx, argv, cmdOpts{vcs: true}); err != nil {
			return "", err
		}
		if res.ExitCode != 0 {
			return "", j.repoFailure(res.Output)
		}
	} else {
		if err := resetDir(j.ckout); err != nil {
			return "", err
		}
		argv := append(append([]string{"git", "clone", "--no-single-branch"}, j.depthArgs()...), j.project.Repo, ".")
		res, err := j.run(ctx, argv, cmdOpts{vcs: true})
		if err != nil {
			return "", err
		}
		if res.ExitCode != 0 {
			resetDir(j.ckout) // never leave a half-made clone as the cache
			return "", j.repoFailure(res.Output)
		}
	}
	if j.version != nil && j.version.Type == store.External {
		if err := j.fetchPullRequest(ctx); err != nil {
			return "", err
		}
	}
	// A remote whose HEAD can't be determined only leaves the default
	// branch unknown; the build goes on.
	if _, err := j.run(ctx, []string{"git", "remote", "set-head", "origin", "--auto"}, cmdOpts{vcs: true}); err != nil {
		return "", err
	}
	head, err := j.gitOutput(ctx, "symbolic-ref", "-q", "refs/remotes/origin/HEAD")
	if err != nil {
		return "", nil
	}
	return strings.TrimPrefix(strings.TrimSpace(head), "refs/remotes/origin/"), nil
}

// fetchPullRequest fetches a pull/merge request's head for an external
// version, after the clone or fetch: GitLab's ref name for gitlab.com
// repositories, GitHub's for every other host.
func (j *job) fetchPullRequest(ctx context.Context) error {
	n := j.version.VerboseName
	ref := "pull/" + n + "/head:external-" + n
	if strings.Contains(strings.ToLower(j.project.Repo), "gitlab") {
		ref = "merge-requests/" + n + "/head:external-" + n
	}
	argv := append([]string{"git", "fetch", "origin", "--force", ref}, j.depthArgs()...)
	res, err := j.run(ctx, argv, cmdOpts{vcs: true})
	if err != nil {
		return err
	}
	if res.ExitCode != 0 {
		return j.repoFailure(res.Output)
	}
	return nil
}

// resetDir makes dir an empty directory.
func resetDir(dir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	return os.MkdirAll(dir, 0o755)
}

// gitOutput runs an internal git command (not recorded: listing refs,
// reading HEAD) and returns its output; a non-zero exit is an error.
func (j *job) gitOutput(ctx context.Context, args ...string) (string, error) {
	res, err := j.process(ctx, append([]string{"git"}, args...), cmdOpts{vcs: true})
	if err != nil {
		return "", err
	}
	if res.ExitCode != 0 {
		return res.Output, fmt.Errorf("git %s: exit code %d: %s", strings.Join(args, " "), res.ExitCode, tail(res.Output, 500))
	}
	return res.Output, nil
}

// checkoutRef is the ref a version's identifier checks out:
// `origin/…` as is, else `origin/<identifier>` when that branch
// exists, else the identifier itself (a SHA or a tag).
func (j *job) checkoutRef(ctx context.Context, identifier string) string {
	if strings.HasPrefix(identifier, "origin/") {
		return identifier
	}
	if _, err := j.gitOutput(ctx, "rev-parse", "--verify", "-q", "refs/remotes/origin/"+identifier); err == nil {
		return "origin/" + identifier
	}
	return identifier
}

// checkout is a forced checkout of ref, then `git clean`.
func (j *job) checkout(ctx context.Context, ref string) error {
	res, err := j.run(ctx, []string{"git", "checkout", "--force", ref}, cmdOpts{vcs: true})
	if err != nil {
		return err
	}
	if res.ExitCode != 0 {
		return failf(MsgCheckoutFormat, ref)
	}
	_, err = j.must(ctx, []string{"git", "clean", "-d", "-f", "-f"}, cmdOpts{vcs: true})
	return err
}

// headCommit is the commit the checkout is at.
func (j *job) headCommit(ctx context.Context) (string, error) {
	res, err := j.must(ctx, []string{"git", "rev-parse", "HEAD"}, cmdOpts{vcs: true})
	return strings.TrimSpace(res.Output), err
}

// listRefs reads the checkout's branches and tags, which become versions:
// remote-tracking branches of origin except HEAD, and tags that resolve to
// a commit (annotated tags are peeled; tags of trees and blobs skipped).
func (j *job) listRefs(ctx context.Context) ([]Ref, error) {
	out, err := j.gitOutput(ctx, "for-each-ref",
		// Ref names never contain spaces; peeled fields may be empty.
		"--format=%(refname) %(objectname) %(objecttype) %(*objectname) %(*objecttype)",
		"refs/remotes/origin", "refs/tags")
	if err != nil {
		return nil, err
	}
	var refs []Ref
	for _, line := range strings.Split(out, "\n") {
		f := strings.Split(line, " ")
		if len(f) != 5 {
			continue
		}
		name, sha, typ, peeled, peeledType := f[0], f[1], f[2], f[3], f[4]
		switch {
		case strings.HasPrefix(name, "refs/remotes/origin/"):
			branch := strings.TrimPrefix(name, "refs/remotes/origin/")
			if branch == "HEAD" {
				continue
			}
			refs = append(refs, Ref{Name: branch, Identifier: "origin/" + branch, Type: store.Branch})
		case strings.HasPrefix(name, "refs/tags/"):
			tag := strings.TrimPrefix(name, "refs/tags/")
			commit := ""
			switch {
			case typ == "commit":
				commit = sha
			case typ == "tag" && peeledType == "commit":
				commit = peeled
			case typ == "tag" && peeledType == "tag":
				// A tag of a tag: let git peel it all the way.
				if c, err := j.gitOutput(ctx, "rev-parse", "--verify", "-q", name+"^{commit}"); err == nil {
					commit = strings.TrimSpace(c)
				}
			}
			if commit != "" {
				refs = append(refs, Ref{Name: tag, Identifier: commit, Type: store.Tag})
			}
		}
	}
	return refs, nil
}

// submodulePaths returns the paths and URLs of the checkout's submodules,
// from .gitmodules, sorted by path.
func (j *job) submoduleList(ctx context.Context) (paths []string, urls map[string]string, err error) {
	if !isFile(filepath.Join(j.ckout, ".gitmodules")) {
		return nil, nil, nil
	}
	out, err := j.gitOutput(ctx, "config", "--file", ".gitmodules", "--get-regexp", `^submodule\..*\.(path|url)$`)
	if err != nil {
		return nil, nil, nil // no submodule entries
	}
	byName := map[string]map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		key, value, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		key = strings.TrimPrefix(key, "submodule.")
		dot := strings.LastIndex(key, ".")
		if dot < 0 {
			continue
		}
		name, field := key[:dot], key[dot+1:]
		if byName[name] == nil {
			byName[name] = map[string]string{}
		}
		byName[name][field] = value
	}
	urls = map[string]string{}
	for _, m := range byName {
		if p := m["path"]; p != "" {
			paths = append(paths, p)
			urls[p] = m["url"]
		}
	}
	sort.Strings(paths)
	return paths, urls, nil
}

// updateSubmodules checks out the submodules the config asks for, after
// checking their URLs against the repository URL rules (relative URLs
// allowed).
func (j *job) updateSubmodules(ctx context.Context, sc SubmoduleConfig) error {
	if !sc.Wanted() {
		return nil
	}
	all, urls, err := j.submoduleList(ctx)
	if err != nil || len(all) == 0 {
		return err
	}
	var paths []string
	if sc.IncludeAll || len(sc.Include) == 0 {
		excluded := map[string]bool{}
		for _, p := range sc.Exclude {
			excluded[p] = true
		}
		for _, p := range all {
			if !sc.ExcludeAll && !excluded[p] {
				paths = append(paths, p)
			}
		}
	} else {
		paths = sc.Include
	}
	if len(paths) == 0 {
		return nil
	}
	policy := repourl.Policy{AllowLocal: j.pool.cfg.AllowLocalRepos, AllowPrivate: j.pool.cfg.AllowPrivateRepos}
	var bad []string
	for _, p := range paths {
		u := urls[p]
		if strings.HasPrefix(u, "./") || strings.HasPrefix(u, "../") {
			continue
		}
		if policy.Check(u) != "" {
			bad = append(bad, p)
		} else if err := j.checkRepoNetwork(ctx, u); err != nil {
			return err
		}
	}
	if len(bad) > 0 {
		return failf(MsgSubmoduleFormat, strings.Join(bad, ", "))
	}
	for _, p := range paths {
		j.submoduleURLs = append(j.submoduleURLs, urls[p])
	}
	if _, err := j.must(ctx, []string{"git", "submodule", "sync"}, cmdOpts{vcs: true}); err != nil {
		return err
	}
	argv := []string{"git", "submodule", "update", "--init", "--force"}
	if sc.Recursive {
		argv = append(argv, "--recursive")
	}
	_, err = j.must(ctx, append(argv, paths...), cmdOpts{vcs: true})
	return err
}
