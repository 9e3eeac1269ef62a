package hosting

import (
	"strings"

	"docsd/internal/choices"
	"docsd/internal/docsurl"
	"docsd/internal/pep440"
	"docsd/store"
)

// addonsVersion is an Addons Version object of v of p; with aliases set
// its `aliases` are computed, else `[]` (an alias object).
func (rq *request) addonsVersion(p *store.Project, t docsurl.Target, v *store.Version, aliases bool) (obj, error) {
	u := rq.urls
	downloads := obj{}
	for _, d := range []struct {
		has bool
		typ string
	}{{v.HasPDF, "pdf"}, {v.HasHTMLZip, "htmlzip"}, {v.HasEPUB, "epub"}} {
		if d.has {
			downloads[d.typ] = u.Download(t, v.Slug, d.typ)
		}
	}
	typ := v.Type
	if typ != store.Tag && typ != store.External {
		typ = store.Branch
	}
	docs := u.Docs(t, v.Slug, "")
	if v.Type == store.External {
		docs = u.External(p.Slug, v.VerboseName)
	}
	ref, err := rq.versionRef(p, v)
	if err != nil {
		return nil, err
	}
	var refValue any
	if ref != "" {
		refValue = ref
	}
	vcs, err := rq.versionVCS(p, v, ref)
	if err != nil {
		return nil, err
	}
	al := []any{}
	if aliases {
		if al, err = rq.addonsAliases(p, t, v, ref); err != nil {
			return nil, err
		}
	}
	return obj{
		"active":        v.Active,
		"aliases":       al,
		"built":         v.Built,
		"downloads":     downloads,
		"hidden":        v.Hidden,
		"id":            v.ID,
		"identifier":    v.Identifier,
		"privacy_level": v.PrivacyLevel,
		"ref":           refValue,
		"slug":          v.Slug,
		"type":          typ,
		"urls": obj{
			"dashboard":     obj{"edit": u.VersionPage(p.Slug, v.Slug)},
			"documentation": docs,
			"vcs":           vcs,
		},
		"verbose_name": v.VerboseName,
	}, nil
}

// versionRef is the v3 `ref` of v: for the machine `stable`, the slug of
// the version `stable` follows (the highest release); else "".
func (rq *request) versionRef(p *store.Project, v *store.Version) (string, error) {
	if !v.Machine || v.Slug != store.Stable {
		return "", nil
	}
	vs, err := rq.h.store.FindAllVersions(rq.ctx, store.VersionFilter{ProjectIDs: []int64{p.ID}, Internal: true})
	if err != nil {
		return "", err
	}
	cands := make([]pep440.Candidate, 0, len(vs))
	slugs := map[int64]string{}
	for _, x := range vs {
		cands = append(cands, pep440.Candidate{ID: x.ID, VerboseName: x.VerboseName, Type: x.Type})
		slugs[x.ID] = x.Slug
	}
	c, ok := pep440.StableCandidate(cands)
	if !ok {
		return "", nil
	}
	return slugs[c.ID], nil
}

// versionVCS is `urls.vcs` of v: the tree of the version on GitHub,
// GitLab or Bitbucket (else the repository), or for an external version
// its pull or merge request.
func (rq *request) versionVCS(p *store.Project, v *store.Version, ref string) (string, error) {
	repo := p.Repo
	if strings.HasPrefix(repo, "git://") {
		repo = "https://" + strings.TrimPrefix(repo, "git://")
	}
	repo = strings.TrimSuffix(repo, ".git")
	github, gitlab := strings.Contains(repo, "github"), strings.Contains(repo, "gitlab")
	if v.Type == store.External {
		switch {
		case github:
			return repo + "/pull/" + v.VerboseName, nil
		case gitlab:
			return repo + "/-/merge_requests/" + v.VerboseName, nil
		}
		return repo, nil
	}
	switch {
	case github || gitlab:
		x := v.Slug
		switch v.Slug {
		case store.Stable:
			if ref != "" {
				x = ref
			}
		case store.Latest:
			x = p.EffectiveDefaultBranch()
		}
		return repo + "/tree/" + x + "/", nil
	case strings.Contains(repo, "bitbucket"):
		return repo + "/src/" + v.Identifier, nil
	}
	return repo, nil
}

// addonsAliases is a version's `aliases`: stable's chosen version, latest's
// branch version, each only when active and visible.
func (rq *request) addonsAliases(p *store.Project, t docsurl.Target, v *store.Version, ref string) ([]any, error) {
	if !v.Machine {
		return []any{}, nil
	}
	vs, err := rq.h.store.FindAllVersions(rq.ctx, store.VersionFilter{ProjectIDs: []int64{p.ID}, Internal: true})
	if err != nil {
		return nil, err
	}
	alias := store.VersionAlias(v, ref, vs)
	if alias, err = rq.readable(p, alias); err != nil || alias == nil {
		return []any{}, err
	}
	a, err := rq.addonsVersion(p, t, alias, false)
	if err != nil {
		return nil, err
	}
	return []any{a}, nil
}

// addonsBuild is `builds.current`: v's most recent successful finished
// build as an Addons Build, nil when there is none.
func (rq *request) addonsBuild(p *store.Project, v *store.Version) (any, error) {
	b, err := rq.lastSuccessfulBuild(v)
	if err != nil || b == nil {
		return nil, err
	}
	u := rq.urls
	var commit, finished, duration any
	if b.Commit != nil {
		commit = *b.Commit
	}
	if b.FinishedAt != nil {
		finished = formatTime(*b.FinishedAt)
	}
	if b.Length != nil {
		duration = *b.Length
	}
	return obj{
		"commit":   commit,
		"created":  formatTime(b.Created),
		"duration": duration,
		"error":    "",
		"finished": finished,
		"id":       b.ID,
		"project":  p.Slug,
		"state":    obj{"code": b.State, "name": choices.BuildStates.Name(b.State)},
		"success":  true,
		"urls": obj{
			"build":   u.BuildPage(p.Slug, b.ID),
			"project": u.ProjectHome(p.Slug),
			"version": u.VersionPage(p.Slug, v.Slug),
		},
		"version": v.Slug,
	}, nil
}

// lastSuccessfulBuild is v's most recent finished successful build, nil
// when none of its last 100 finished builds succeeded.
func (rq *request) lastSuccessfulBuild(v *store.Version) (*store.Build, error) {
	running := false
	bs, _, err := rq.h.store.FindBuilds(rq.ctx, store.BuildFilter{VersionID: &v.ID, Running: &running, Limit: 100})
	if err != nil {
		return nil, err
	}
	for _, b := range bs {
		if b.Success {
			return b, nil
		}
	}
	return nil, nil
}

// addonsSettings is the answer's `addons`: each addon's settings.
func (rq *request) addonsSettings(aq *addonsQuery, t docsurl.Target) (obj, error) {
	p, v := aq.project, aq.version
	var analytics any
	if p.AnalyticsCode != nil && *p.AnalyticsCode != "" {
		analytics = *p.AnalyticsCode
	}
	defaultFilter := "project:" + p.Slug
	filters := []any{}
	if v != nil {
		defaultFilter += "/" + v.Slug
		family, err := rq.searchFamily(p, t)
		if err != nil {
			return nil, err
		}
		if family != "" {
			filters = append(filters, []any{"Include subprojects", "subprojects:" + family + "/" + v.Slug, true})
		}
	}
	a := obj{
		"analytics":     obj{"code": analytics, "enabled": false},
		"customscript":  obj{"enabled": false, "src": nil},
		"filetreediff":  obj{"enabled": false},
		"flyout":        obj{"enabled": true, "position": nil},
		"hotkeys":       obj{"doc_diff": obj{"enabled": false, "trigger": "KeyD"}, "enabled": true, "search": obj{"enabled": true, "trigger": "Slash"}},
		"linkpreviews":  obj{"enabled": false, "selector": nil},
		"notifications": obj{"enabled": true, "show_on_external": false, "show_on_latest": true, "show_on_non_stable": true},
		"options":       obj{"load_when_embedded": false, "root_selector": nil},
		"search":        obj{"default_filter": defaultFilter, "enabled": true, "filters": filters},
	}
	if aq.withURL {
		var base any
		if aq.filename != nil {
			base = rq.urls.Docs(t, store.Latest, strings.TrimPrefix(*aq.filename, "/"))
		}
		a["doc_diff"] = obj{"base_url": base, "enabled": false, "inject_styles": true}
	}
	return a, nil
}

// searchFamily is the parent slug S of the search addon's subprojects
// filter: p when
// p is a parent, p's parent when p is a child, else "".
func (rq *request) searchFamily(p *store.Project, t docsurl.Target) (string, error) {
	if t.ParentSlug != "" && t.MainSlug == "" {
		return t.ParentSlug, nil
	}
	rels, _, err := rq.h.store.FindRelationships(rq.ctx, store.RelationshipFilter{ParentIDs: []int64{p.ID}, Limit: 1})
	if err != nil {
		return "", err
	}
	if len(rels) > 0 {
		return p.Slug, nil
	}
	return "", nil
}
