package hosting

import (
	"cmp"
	"net/url"
	"slices"
	"strings"

	"docsd/internal/choices"
	"docsd/internal/docsurl"
	"docsd/internal/pep440"
	"docsd/store"
)

// obj is a JSON object; encoding/json writes its keys sorted.
type obj = map[string]any

// addonsResponse is the api-version 1 answer of `/_/addons/` for aq.
func (rq *request) addonsResponse(aq *addonsQuery) (obj, error) {
	p, v := aq.project, aq.version
	t, err := rq.target(p)
	if err != nil {
		return nil, err
	}
	docVersion := ""
	if v != nil {
		docVersion = v.Slug
	} else if docVersion, err = rq.defaultVersion(p); err != nil {
		return nil, err
	}
	current, err := rq.addonsProject(p, t, docVersion)
	if err != nil {
		return nil, err
	}
	translations, err := rq.addonsTranslations(p, v)
	if err != nil {
		return nil, err
	}
	menu, err := rq.versionsMenu(p)
	if err != nil {
		return nil, err
	}
	active := make([]any, 0, len(menu))
	for _, m := range menu {
		av, err := rq.addonsVersion(p, t, m, true)
		if err != nil {
			return nil, err
		}
		active = append(active, av)
	}
	var currentVersion, currentBuild any
	if v != nil {
		if currentVersion, err = rq.addonsVersion(p, t, v, true); err != nil {
			return nil, err
		}
		if currentBuild, err = rq.addonsBuild(p, v); err != nil {
			return nil, err
		}
	}
	addons, err := rq.addonsSettings(aq, t)
	if err != nil {
		return nil, err
	}
	var filename any
	if aq.filename != nil {
		filename = *aq.filename
	}
	dashboard := ""
	if pu, err := url.Parse(rq.urls.PublicURL); err == nil {
		dashboard = pu.Host
	}
	return obj{
		"addons":      addons,
		"api_version": "1",
		"builds":      obj{"current": currentBuild},
		"domains":     obj{"dashboard": dashboard},
		"projects":    obj{"current": current, "translations": translations},
		"readthedocs": obj{"analytics": obj{"code": nil}, "resolver": obj{"filename": filename}},
		"versions":    obj{"active": active, "current": currentVersion},
	}, nil
}

// addonsProject is an Addons Project object whose documentation URL is at
// version docVersion.
func (rq *request) addonsProject(p *store.Project, t docsurl.Target, docVersion string) (obj, error) {
	u := rq.urls
	var homepage any
	if p.Homepage != "" {
		homepage = p.Homepage
	}
	var subprojectOf, translationOf any
	if t.MainSlug != "" {
		translationOf = obj{"slug": t.MainSlug}
	} else if t.ParentSlug != "" {
		subprojectOf = obj{"slug": t.ParentSlug}
	}
	return obj{
		"created":                       formatTime(p.Created),
		"default_branch":                p.EffectiveDefaultBranch(),
		"default_version":               p.DefaultVersion,
		"external_builds_privacy_level": p.ExternalBuildsPrivacyLevel,
		"homepage":                      homepage,
		"id":                            p.ID,
		"language":                      obj{"code": p.Language, "name": choices.Languages.Name(p.Language)},
		"modified":                      formatTime(p.Modified),
		"name":                          p.Name,
		"privacy_level":                 p.PrivacyLevel,
		"programming_language":          obj{"code": p.ProgrammingLanguage, "name": choices.ProgrammingLanguages.Name(p.ProgrammingLanguage)},
		"readthedocs_yaml_path":         nil,
		"repository":                    obj{"type": p.RepoType, "url": p.Repo},
		"single_version":                p.SingleVersion(),
		"slug":                          p.Slug,
		"subproject_of":                 subprojectOf,
		"translation_of":                translationOf,
		"urls": obj{
			"builds":        u.ProjectBuilds(p.Slug),
			"documentation": u.Docs(t, docVersion, ""),
			"downloads":     nil,
			"home":          u.ProjectHome(p.Slug),
			"versions":      u.ProjectVersions(p.Slug),
		},
		"versioning_scheme": p.VersioningScheme,
	}, nil
}

// translationFamily is the main project of p's family and its visible
// translations, p included, by language code.
func (rq *request) translationFamily(p *store.Project) ([]*store.Project, error) {
	main := p
	if p.TranslationOf != nil {
		m, err := rq.h.store.FindProjectByID(rq.ctx, *p.TranslationOf)
		if err != nil {
			return nil, err
		}
		main = m
	}
	ps, _, err := rq.h.store.FindProjects(rq.ctx, store.ProjectFilter{TranslationOf: &main.ID})
	if err != nil {
		return nil, err
	}
	family := []*store.Project{}
	for _, x := range append([]*store.Project{main}, ps...) {
		if x.ID != p.ID {
			ok, err := rq.canSee(x)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
		}
		family = append(family, x)
	}
	slices.SortStableFunc(family, func(a, b *store.Project) int { return strings.Compare(a.Language, b.Language) })
	return family, nil
}

// addonsTranslations is projects.translations: each other member of p's
// family at the version with v's slug when it has a readable built one,
// else at its effective default version.
func (rq *request) addonsTranslations(p *store.Project, v *store.Version) ([]any, error) {
	family, err := rq.translationFamily(p)
	if err != nil {
		return nil, err
	}
	out := []any{}
	for _, x := range family {
		if x.ID == p.ID {
			continue
		}
		slug, err := rq.translationVersion(x, v)
		if err != nil {
			return nil, err
		}
		t, err := rq.target(x)
		if err != nil {
			return nil, err
		}
		ap, err := rq.addonsProject(x, t, slug)
		if err != nil {
			return nil, err
		}
		out = append(out, ap)
	}
	return out, nil
}

// translationVersion is the version of translation x a reader of v is sent
// to (its `urls.documentation`): the same slug when the translation has it
// built and the reader may see it, else the translation's default version.
func (rq *request) translationVersion(x *store.Project, v *store.Version) (string, error) {
	if v != nil && v.Type != store.External {
		tv, err := rq.findVersion(x, v.Slug)
		if err != nil {
			return "", err
		}
		if tv != nil && tv.Built && tv.Type != store.External {
			if tv, err = rq.readable(x, tv); err != nil {
				return "", err
			}
			if tv != nil {
				return tv.Slug, nil
			}
		}
	}
	return rq.defaultVersion(x)
}

// versionsMenu is the versions menu: p's internal versions that are
// active, built, visible and not hidden (a hidden version is served but
// listed nowhere), in the flyout order; a single-version project lists only its
// effective default version.
func (rq *request) versionsMenu(p *store.Project) ([]*store.Version, error) {
	active, built, hidden := true, true, false
	vs, err := rq.h.store.FindAllVersions(rq.ctx, store.VersionFilter{ProjectIDs: []int64{p.ID}, Internal: true, Active: &active, Built: &built, Hidden: &hidden})
	if err != nil {
		return nil, err
	}
	def := ""
	if p.SingleVersion() {
		if def, err = rq.defaultVersion(p); err != nil {
			return nil, err
		}
	}
	out := []*store.Version{}
	for _, v := range vs {
		if def != "" && v.Slug != def {
			continue
		}
		ok, err := rq.canSeeVersion(p, v)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, v)
		}
	}
	sortFlyout(out, store.VCSFallbackBranch(p.RepoType))
	return out, nil
}

// flyoutKey ranks a version for the flyout: the rank of its class (the
// project's default version, then latest, then stable, then PEP 440
// versions, then the rest), and its parsed version for the PEP 440 class.
func flyoutKey(v *store.Version, fallback string) (int, pep440.Version) {
	switch {
	case v.VerboseName == fallback:
		return 4, pep440.Version{}
	case v.Slug == store.Latest && v.Machine || v.VerboseName == store.Latest:
		return 3, pep440.Version{}
	case v.Slug == store.Stable && v.Machine || v.VerboseName == store.Stable:
		return 2, pep440.Version{}
	}
	if pv, ok := pep440.ParseVerboseName(v.VerboseName); ok {
		return 1, pv
	}
	return 0, pep440.Version{}
}

// sortFlyout orders vs by flyoutKey descending, ties by slug descending.
func sortFlyout(vs []*store.Version, fallback string) {
	sortVersions(vs, fallback, func(a, b *store.Version) int { return strings.Compare(b.Slug, a.Slug) })
}

// sortVersions orders vs by flyoutKey descending, ties by tie.
func sortVersions(vs []*store.Version, fallback string, tie func(a, b *store.Version) int) {
	slices.SortStableFunc(vs, func(a, b *store.Version) int {
		ka, pa := flyoutKey(a, fallback)
		kb, pb := flyoutKey(b, fallback)
		if c := cmp.Compare(kb, ka); c != 0 {
			return c
		}
		if ka == 1 {
			if c := pep440.Compare(pb, pa); c != 0 {
				return c
			}
		}
		return tie(a, b)
	})
}
