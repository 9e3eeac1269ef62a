package main

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"docsd/internal/errs"
	"docsd/internal/search"
	"docsd/rest"
	"docsd/store"
)

// searchParts wires the indexer the build pool calls after publishing
// for each internal version. Queries need nothing here: the graph's
// search field builds its service from the resolver's store and URLs.
func (a *app) searchParts() {
	a.indexer = &search.Indexer{Store: a.store, Trees: a.artifacts, Logger: a.logger}
}

// upgradeSearchIndex indexes again the versions whose search entries are
// in an older format (after an upgrade of docsd), in the background; they
// are searched through their old entries until then.
func (a *app) upgradeSearchIndex(ctx context.Context) {
	n, err := a.indexer.UpgradeIndex(ctx, a.lastSuccessfulConfig)
	if err != nil && ctx.Err() == nil {
		a.logger.ErrorContext(ctx, "upgrading the search index failed", "err", err)
	}
	if n > 0 {
		a.logger.InfoContext(ctx, "upgraded the search index", "versions", n)
	}
}

// searchCommand runs `docsd search reindex [PROJECT[/VERSION]]`.
// searchSynopsis is `docsd search reindex`'s usage line.
const searchSynopsis = "search reindex [PROJECT[/VERSION]]"

func (c *command) searchCommand(ctx context.Context, sub string, args []string) error {
	if sub != "reindex" {
		return c.group("search", firstArg(args))
	}
	// reindex reads the published docs: the admin settings and where the
	// artifacts are.
	c.shown = append(slices.Clip(adminFlags), "artifacts-url", "s3-endpoint", "s3-region")
	fs, env := c.flags("search reindex", searchSynopsis)
	pos, err := c.parse(fs, env, args[1:])
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usageError("usage: docsd " + searchSynopsis)
	}
	a, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer a.close()
	var project, version string
	if len(pos) == 1 {
		project, version, _ = strings.Cut(pos[0], "/")
	}
	return a.reindex(ctx, project, version, func(p *store.Project, v *store.Version, pages int, err error) {
		if err != nil {
			fmt.Fprintf(c.stderr, "%s/%s: %s\n", p.Slug, v.Slug, message(err))
			return
		}
		fmt.Fprintf(c.stdout, "%s/%s: %d pages\n", p.Slug, v.Slug, pages)
	})
}

// reindex rebuilds the index entries of the active, built, internal
// versions of one project (or all when project is ""), or of one version,
// from their published trees and their last successful build's stored
// configuration. A version whose tree can't be read loses its entries; the
// error is reported and the others go on. A named project or version that
// does not exist (or does not qualify) is an error.
func (a *app) reindex(ctx context.Context, project, version string, report func(*store.Project, *store.Version, int, error)) error {
	pf := store.ProjectFilter{}
	if project != "" {
		pf.Slug = &project
	}
	projects, _, err := a.store.FindProjects(ctx, pf)
	if err != nil {
		return err
	}
	if project != "" && len(projects) == 0 {
		return errs.E(errs.NotFound, "search reindex", fmt.Sprintf("no project %q", project))
	}
	yes, done := true, 0
	for _, p := range projects {
		vf := store.VersionFilter{ProjectIDs: []int64{p.ID}, Active: &yes, Built: &yes, Internal: true}
		if version != "" {
			vf.Slug = &version
		}
		versions, err := a.store.FindAllVersions(ctx, vf)
		if err != nil {
			return err
		}
		for _, v := range versions {
			config, err := a.lastSuccessfulConfig(ctx, v.ID)
			if err == nil {
				err = a.indexer.IndexVersion(ctx, p, v, config)
			}
			if err != nil {
				if derr := a.store.DeleteSearchIndex(ctx, v.ID); derr != nil {
					return derr
				}
				report(p, v, 0, err)
				continue
			}
			n, err := a.store.CountSearchPages(ctx, v.ID)
			report(p, v, n, err)
			done++
		}
	}
	if version != "" && done == 0 {
		return errs.E(errs.NotFound, "search reindex", fmt.Sprintf("no active, built version %q of %q", version, project))
	}
	return nil
}

// lastSuccessfulConfig is the stored configuration of the version's most
// recent successful build, "" when it has none.
func (a *app) lastSuccessfulConfig(ctx context.Context, versionID int64) (string, error) {
	finished := false
	for offset := 0; ; offset += 50 {
		builds, total, err := a.store.FindBuilds(ctx, store.BuildFilter{VersionID: &versionID, Running: &finished, Limit: 50, Offset: offset})
		if err != nil {
			return "", err
		}
		for _, b := range builds {
			if b.Success {
				return b.Config, nil
			}
		}
		if offset+50 >= total {
			return "", nil
		}
	}
}

// searchFirstPath reports whether searchFirst sends p to the API.
func searchFirstPath(p string) bool {
	return strings.HasPrefix(p, "/_/api/") && rest.IsSearchPath(p)
}

// searchFirst sends the search endpoints' /_/api/ forms, on any host (the
// public one and docs subdomains), to the REST handler, and
// everything else to next.
func searchFirst(api, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if searchFirstPath(r.URL.Path) {
			api.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}
