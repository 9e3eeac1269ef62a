package graph

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/99designs/gqlgen/graphql"

	"docsd/graph/gid"
	"docsd/internal/access"
	"docsd/internal/audit"
	"docsd/internal/choices"
	"docsd/internal/errs"
	"docsd/internal/slug"
	"docsd/store"
)

// Every mutation validates its whole input first, reporting every failing
// field at once (the first failing check per field), and writes nothing
// unless all of it is valid. With validateOnly it stops there and returns
// a nil object (the payload then has no object and no errors).

func (r *Resolver) buildQueued() {
	if r.Hooks.BuildQueued != nil {
		r.Hooks.BuildQueued()
	}
}

// integrationTypeFor picks the integration an import creates: the webhook
// of the repository's host, else a generic one.
func integrationTypeFor(repo string) string {
	host := ""
	if u, err := url.Parse(repo); err == nil {
		host = strings.ToLower(u.Hostname())
	}
	switch host {
	case "github.com":
		return store.GitHubWebhook
	case "gitlab.com":
		return store.GitLabWebhook
	case "bitbucket.org":
		return store.BitbucketWebhook
	}
	return store.APIWebhook
}

// projectFields are the validated values of a project create or update.
type projectFields struct {
	name, repoURL, repoType, homepage, language, programmingLanguage  string
	hasName, hasRepoURL, hasRepoType, hasHomepage, hasLanguage, hasPL bool
}

// checkRepository validates the nested repository input; required says
// whether the object and its url must be present, typeRequired whether its
// type must (an import's; PUT needs only the url). currentType is the
// project's stored VCS type ("" on import): a URL is checked against the
// type it will be used with.
func (r *Resolver) checkRepository(f errs.Fields, in graphql.Omittable[*RepositoryInput], required, typeRequired bool, currentType string, pf *projectFields) {
	if !in.IsSet() {
		if required {
			f.Add("repository", errs.MsgRequired)
		}
		return
	}
	repo := in.Value()
	if repo == nil {
		f.Add("repository", errs.MsgNotNull)
		return
	}
	if t, ok := checkString(f, "repository.type", repo.Type, strRule{required: typeRequired}); ok {
		if checkChoice(f, "repository.type", t, choices.RepoTypes) {
			pf.repoType, pf.hasRepoType = t, true
		}
	}
	vcs := currentType
	if pf.hasRepoType {
		vcs = pf.repoType
	}
	if u, ok := checkString(f, "repository.url", repo.URL, strRule{required: required, max: 255}); ok {
		if msg := r.repositoryURLError(u, vcs); msg != "" {
			f.Add("repository.url", msg)
		} else {
			pf.repoURL, pf.hasRepoURL = u, true
		}
	}
}

// checkCommonProjectFields validates homepage, language and
// programming_language, shared by create and update.
func checkCommonProjectFields(f errs.Fields, homepage, language, pl graphql.Omittable[*string], pf *projectFields) {
	if h, ok := checkString(f, "homepage", homepage, strRule{allowBlank: true, max: 255}); ok {
		if h != "" && !validURL(h) {
			f.Add("homepage", errs.MsgInvalidURL)
		} else {
			pf.homepage, pf.hasHomepage = h, true
		}
	}
	if l, ok := checkString(f, "language", language, strRule{}); ok && checkChoice(f, "language", l, choices.Languages) {
		pf.language, pf.hasLanguage = l, true
	}
	if pl, ok := checkString(f, "programming_language", pl, strRule{allowBlank: true}); ok {
		if pl == "" || checkChoice(f, "programming_language", pl, choices.ProgrammingLanguages) {
			pf.programmingLanguage, pf.hasPL = pl, true
		}
	}
}

func (r *Resolver) importProject(ctx context.Context, in ImportProjectInput) (*store.Project, error) {
	const op = "graph.importProject"
	v := access.ViewerFrom(ctx)
	if v.User == nil {
		return nil, errAnonymous(op)
	}
	f := errs.Fields{}
	var pf projectFields
	name, nameOK := checkString(f, "name", in.Name, strRule{required: true, max: 63})
	projectSlug := ""
	if nameOK {
		projectSlug = slug.Project(name)
		if projectSlug == "" {
			f.Add("name", fmt.Sprintf("Invalid project name %q: no slug generated.", name))
		} else if _, err := r.Store.FindProjectBySlug(ctx, projectSlug); err == nil {
			f.Add("name", slugTaken(projectSlug))
		} else if !notFoundIs(err) {
			return nil, err
		}
	}
	r.checkRepository(f, in.Repository, true, true, "", &pf)
	checkCommonProjectFields(f, in.Homepage, in.Language, in.ProgrammingLanguage, &pf)
	tags, _ := checkTags(f, in.Tags)
	privacy, _ := checkChoiceField(f, "privacy_level", in.PrivacyLevel, choices.PrivacyLevels)
	externalPrivacy, _ := checkChoiceField(f, "external_builds_privacy_level", in.ExternalBuildsPrivacyLevel, choices.PrivacyLevels)
	yamlPath, _ := checkYamlPath(f, in.ReadthedocsYamlPath)
	orgID, teamIDs, err := r.projectPlacement(ctx, f, in.Organization.Value(), in.Teams.Value(), in.Teams.IsSet())
	if err != nil {
		return nil, err
	}
	if err := f.Err(op); err != nil {
		return nil, err
	}
	if isTrue(in.ValidateOnly) {
		return nil, nil
	}
	imp := store.ProjectImport{
		Name: name, Slug: projectSlug, Repo: pf.repoURL, RepoType: pf.repoType, Homepage: pf.homepage,
		Language: "en", ProgrammingLanguage: "words", MaintainerID: v.User.ID, IntegrationType: integrationTypeFor(pf.repoURL),
		Tags: tags, PrivacyLevel: privacy, ExternalBuildsPrivacyLevel: externalPrivacy, ReadthedocsYamlPath: yamlPath,
		OrganizationID: orgID, TeamIDs: teamIDs,
	}
	if pf.hasLanguage {
		imp.Language = pf.language
	}
	if pf.hasPL {
		imp.ProgrammingLanguage = pf.programmingLanguage
	}
	res, err := r.Store.ImportProject(ctx, imp)
	if errs.Is(err, errs.Conflict) {
		// Lost a race for the slug: the same answer as the check above.
		return nil, &errs.Error{Kind: errs.Invalid, Op: op, Fields: errs.Fields{"name": {slugTaken(projectSlug)}}, Err: err}
	}
	if err != nil {
		return nil, err
	}
	if res.Build != nil {
		r.buildQueued()
	}
	return res.Project, nil
}

func slugTaken(s string) string { return fmt.Sprintf("Project with slug %q already exists.", s) }

// translationLanguageClash reports whether p may not take language lang: a
// translation must differ from its main project and the main project's
// other translations; a main project from its translations.
func (r *Resolver) translationLanguageClash(ctx context.Context, p *store.Project, lang string) (bool, error) {
	mainID := p.ID
	if p.TranslationOf != nil {
		main, err := r.Store.FindProjectByID(ctx, *p.TranslationOf)
		if err != nil {
			return false, err
		}
		if main.Language == lang {
			return true, nil
		}
		mainID = main.ID
	}
	siblings, _, err := r.Store.FindProjects(ctx, store.ProjectFilter{TranslationOf: &mainID})
	if err != nil {
		return false, err
	}
	for _, s := range siblings {
		if s.ID != p.ID && s.Language == lang {
			return true, nil
		}
	}
	return false, nil
}

func (r *Resolver) updateProject(ctx context.Context, in UpdateProjectInput) (*store.Project, error) {
	const op = "graph.updateProject"
	replace := isTrue(in.Replace)
	p, err := r.maintainedProject(ctx, in.Slug)
	if err != nil {
		return nil, err
	}
	f := errs.Fields{}
	var pf projectFields
	upd := store.ProjectUpdate{}
	if name, ok := checkString(f, "name", in.Name, strRule{required: replace, max: 63}); ok {
		upd.Name = &name
	}
	r.checkRepository(f, in.Repository, replace, false, p.RepoType, &pf)
	checkCommonProjectFields(f, in.Homepage, in.Language, in.ProgrammingLanguage, &pf)
	if pf.hasRepoURL {
		upd.Repo = &pf.repoURL
	}
	if pf.hasRepoType {
		upd.RepoType = &pf.repoType
	}
	if pf.hasHomepage {
		upd.Homepage = &pf.homepage
	}
	if pf.hasLanguage {
		clash, err := r.translationLanguageClash(ctx, p, pf.language)
		if err != nil {
			return nil, err
		}
		if clash {
			f.Add("language", fmt.Sprintf("A translation with language %q already exists for this project.", pf.language))
		} else {
			upd.Language = &pf.language
		}
	}
	if pf.hasPL {
		upd.ProgrammingLanguage = &pf.programmingLanguage
	}
	if dv, ok := checkString(f, "default_version", in.DefaultVersion, strRule{max: 255}); ok {
		upd.DefaultVersion = &dv
	}
	if in.DefaultBranch.IsSet() {
		if db, ok := checkString(f, "default_branch", in.DefaultBranch, strRule{allowNull: true, allowBlank: true, max: 255}); ok {
			if db != "" && !validBranchName(db) {
				f.Add("default_branch", "Enter a valid branch name.")
			} else {
				upd.DefaultBranch = &db
			}
		} else if in.DefaultBranch.Value() == nil {
			upd.DefaultBranch = ptr("")
		}
	}
	if in.AnalyticsCode.IsSet() {
		if ac, ok := checkString(f, "analytics_code", in.AnalyticsCode, strRule{allowNull: true, allowBlank: true, max: 50}); ok {
			upd.AnalyticsCode = &ac
		} else if in.AnalyticsCode.Value() == nil {
			upd.AnalyticsCode = ptr("")
		}
	}
	if b, ok := checkBool(f, "show_version_warning", in.ShowVersionWarning, false); ok {
		upd.ShowVersionWarning = &b
	}
	checkScheme(f, in.VersioningScheme, in.SingleVersion, &upd)
	if tags, ok := checkTags(f, in.Tags); ok {
		upd.Tags = &tags
	}
	if v, ok := checkChoiceField(f, "privacy_level", in.PrivacyLevel, choices.PrivacyLevels); ok {
		upd.PrivacyLevel = &v
	}
	if v, ok := checkChoiceField(f, "external_builds_privacy_level", in.ExternalBuildsPrivacyLevel, choices.PrivacyLevels); ok {
		upd.ExternalBuildsPrivacyLevel = &v
	}
	if v, ok := checkYamlPath(f, in.ReadthedocsYamlPath); ok {
		upd.ReadthedocsYamlPath = &v
	}
	if b, ok := checkBool(f, "external_builds_enabled", in.ExternalBuildsEnabled, false); ok {
		upd.ExternalBuildsEnabled = &b
	}
	if b, ok := checkBool(f, "analytics_disabled", in.AnalyticsDisabled, false); ok {
		upd.AnalyticsDisabled = &b
	}
	if err := f.Err(op); err != nil {
		return nil, err
	}
	if isTrue(in.ValidateOnly) {
		return nil, nil
	}
	return r.Store.UpdateProject(ctx, p.ID, upd)
}

// deleteProject deletes a project and returns its global id.
func (r *Resolver) deleteProject(ctx context.Context, projectSlug string) (string, error) {
	p, err := r.maintainedProject(ctx, projectSlug)
	if err != nil {
		return "", err
	}
	if err := r.Store.DeleteProject(ctx, p.ID); err != nil {
		return "", err
	}
	if r.Hooks.ProjectDeleted != nil {
		r.Hooks.ProjectDeleted(ctx, p.Slug)
	}
	return gid.Encode(nodeProject, p.ID), nil
}

func (r *Resolver) setProjectPrivacy(ctx context.Context, projectSlug, level string) (*store.Project, error) {
	p, err := r.maintainedProject(ctx, projectSlug)
	if err != nil {
		return nil, err
	}
	if !choices.PrivacyLevels.Has(level) {
		return nil, fieldInvalid("privacy_level", level)
	}
	return r.Store.UpdateProject(ctx, p.ID, store.ProjectUpdate{PrivacyLevel: &level})
}

// setProjectAdminFields sets the stored fields the REST APIs do not write;
// only superusers (and the admin CLI) may.
func (r *Resolver) setProjectAdminFields(ctx context.Context, in SetProjectAdminFieldsInput) (*store.Project, error) {
	const op = "graph.setProjectAdminFields"
	v := access.ViewerFrom(ctx)
	if v.User == nil && !v.System {
		return nil, errAnonymous(op)
	}
	if !v.SeesAll() {
		return nil, errForbidden(op)
	}
	p, err := r.Store.FindProjectBySlug(ctx, in.Slug)
	if err != nil {
		return nil, err
	}
	f := errs.Fields{}
	if in.VersionPrivacyLevel != nil {
		checkChoice(f, "version_privacy_level", *in.VersionPrivacyLevel, choices.PrivacyLevels)
	}
	if in.DocumentationType != nil {
		checkChoice(f, "documentation_type", *in.DocumentationType, choices.DocumentationTypes)
	}
	if in.PythonInterpreter != nil {
		checkChoice(f, "python_interpreter", *in.PythonInterpreter, choices.PythonInterpreters)
	}
	if in.BuildTimeLimit != nil && *in.BuildTimeLimit < 0 {
		f.Add("build_time_limit", "Ensure this value is greater than or equal to 0.")
	}
	if err := f.Err(op); err != nil {
		return nil, err
	}
	upd := store.ProjectUpdate{
		Skip: in.Skip, EnablePDFBuild: in.EnablePDFBuild, EnableEPUBBuild: in.EnableEpubBuild,
		RequirementsFile: in.RequirementsFile, ConfPyFile: in.ConfPyFile, InstallProject: in.InstallProject,
		PythonInterpreter: in.PythonInterpreter, UseSystemPackages: in.UseSystemPackages,
		ExternalBuildsEnabled: in.ExternalBuildsEnabled, VersionPrivacyLevel: in.VersionPrivacyLevel,
		Description: in.Description, DocumentationType: in.DocumentationType,
		AddonsEnabled: in.AddonsEnabled,
	}
	if in.BuildTimeLimit != nil {
		upd.BuildTimeLimit = ptr(int(*in.BuildTimeLimit))
	}
	if in.Tags != nil {
		upd.Tags = &in.Tags
	}
	return r.Store.UpdateProject(ctx, p.ID, upd)
}

// setTranslationOf links projectSlug as a translation of mainSlug (or
// unlinks it when mainSlug is nil), for a maintainer of both.
// Linking adds a translation to main, as createSubproject adds a child to
// its project: main not found is NotFound, while a translation that is
// blank, missing or not the viewer's is a message on the input's `slug`,
// as createSubproject's `child`; so is a clashing language, which is the
// translation's (the input has no language field).
func (r *Resolver) setTranslationOf(ctx context.Context, projectSlug string, mainSlug *string) (*store.Project, error) {
	const op = "graph.setTranslationOf"
	if mainSlug == nil {
		p, err := r.maintainedProject(ctx, projectSlug)
		if err != nil {
			return nil, err
		}
		if err := r.Store.SetTranslationOf(ctx, p.ID, nil); err != nil {
			return nil, err
		}
		return r.Store.FindProjectByID(ctx, p.ID)
	}
	main, err := r.maintainedProject(ctx, *mainSlug)
	if err != nil {
		return nil, err
	}
	p, err := r.translationToLink(ctx, projectSlug)
	if err != nil {
		return nil, err
	}
	f := errs.Fields{}
	switch {
	case main.ID == p.ID:
		f.Add(errs.NonField, "A project can not be a translation of itself.")
	case main.TranslationOf != nil:
		f.Add(errs.NonField, fmt.Sprintf("Project %q is itself a translation.", main.Slug))
	case main.Language == p.Language:
		f.Add("slug", fmt.Sprintf("A translation with language %q already exists for this project.", p.Language))
	case !sameOrganization(main, p):
		f.Add("main", msgTranslationSameOrg)
	}
	if len(f) == 0 {
		translations, _, err := r.Store.FindProjects(ctx, store.ProjectFilter{TranslationOf: &p.ID})
		if err != nil {
			return nil, err
		}
		if len(translations) > 0 {
			f.Add(errs.NonField, fmt.Sprintf("Project %q has translations of its own.", p.Slug))
		}
		siblings, _, err := r.Store.FindProjects(ctx, store.ProjectFilter{TranslationOf: &main.ID})
		if err != nil {
			return nil, err
		}
		for _, s := range siblings {
			if s.ID != p.ID && s.Language == p.Language {
				f.Add("slug", fmt.Sprintf("A translation with language %q already exists for this project.", p.Language))
			}
		}
	}
	if err := f.Err(op); err != nil {
		return nil, err
	}
	if err := r.Store.SetTranslationOf(ctx, p.ID, &main.ID); err != nil {
		return nil, err
	}
	return r.Store.FindProjectByID(ctx, p.ID)
}

// translationToLink returns the project slug names for setTranslationOf
// to link, or the Invalid error on `slug` when it is blank or names no
// project the viewer maintains (one message for both: it does not tell
// others' projects from missing ones).
func (r *Resolver) translationToLink(ctx context.Context, slug string) (*store.Project, error) {
	const op = "graph.setTranslationOf"
	slug = strings.TrimSpace(slug)
	if slug == "" {
		return nil, errs.FieldError(op, "slug", errs.MsgNotBlank)
	}
	p, err := r.projectMaintainedOrNil(ctx, slug)
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, errs.FieldError(op, "slug", fmt.Sprintf("Object with slug=%s does not exist.", slug))
	}
	return p, nil
}

// projectMaintainedOrNil returns project slug when the viewer maintains
// it, nil (and no error) when it is missing or not theirs: for an input
// field that names another project, whose message does not tell the two
// apart.
func (r *Resolver) projectMaintainedOrNil(ctx context.Context, slug string) (*store.Project, error) {
	p, err := r.Store.FindProjectBySlug(ctx, slug)
	if notFoundIs(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	maintains, err := r.isMaintainer(ctx, p)
	if err != nil || !maintains {
		return nil, err
	}
	return p, nil
}

// changeMaintainer adds or removes a direct maintainer. For a project in
// an organization only the organization's owners may (a maintainer may
// still remove themself), and its last maintainer may go: the owners keep
// control.
func (r *Resolver) changeMaintainer(ctx context.Context, projectSlug, username string, add bool) (*store.Project, error) {
	p, err := r.maintainedProject(ctx, projectSlug)
	if err != nil {
		return nil, err
	}
	u, err := r.Store.FindUserByUsername(ctx, username)
	if notFoundIs(err) {
		return nil, errs.FieldError("graph.changeMaintainer", "username", fmt.Sprintf("Object with username=%s does not exist.", username))
	}
	if err != nil {
		return nil, err
	}
	v := access.ViewerFrom(ctx)
	if p.OrganizationID != nil {
		st, err := r.standing(ctx, *p.OrganizationID)
		if err != nil {
			return nil, err
		}
		self := !add && v.UserID() == u.ID
		if !self && !access.CanChangeMaintainers(v, p, st) {
			return nil, errForbidden("graph.changeMaintainer")
		}
	}
	action := store.AuditMaintainerAdded
	switch {
	case add:
		err = r.Store.AddMaintainer(ctx, p.ID, u.ID)
	case p.OrganizationID != nil:
		action = store.AuditMaintainerRemoved
		err = r.Store.RemoveMaintainerInOrganization(ctx, p.ID, u.ID)
	default:
		action = store.AuditMaintainerRemoved
		err = r.Store.RemoveMaintainer(ctx, p.ID, u.ID)
	}
	if err != nil {
		return nil, err
	}
	r.record(ctx, audit.Event{Action: action, Project: p, Data: map[string]any{"project": audit.Project(p), "maintainer": audit.User(u)}})
	return r.Store.FindProjectByID(ctx, p.ID)
}

// internalVersion finds a version of p by slug for a write; pull-request
// versions are not found.
func (r *Resolver) internalVersion(ctx context.Context, p *store.Project, versionSlug string) (*store.Version, error) {
	v, err := r.Store.FindVersionBySlug(ctx, p.ID, versionSlug)
	if err != nil {
		return nil, err
	}
	if v.Type == store.External {
		return nil, errNotFound("graph.version")
	}
	return v, nil
}

// updateVersion applies a v3 version PATCH or PUT: every field is optional
// in both, as on Read the Docs, so replace changes nothing here. A write
// that turns `active` from false to true also queues one build of the
// version, unless the project's builds are disabled or the version is
// uploaded.
func (r *Resolver) updateVersion(ctx context.Context, in UpdateVersionInput) (*store.Version, error) {
	const op = "graph.updateVersion"
	p, err := r.maintainedProject(ctx, in.Project)
	if err != nil {
		return nil, err
	}
	v, err := r.internalVersion(ctx, p, in.Version)
	if err != nil {
		return nil, err
	}
	f := errs.Fields{}
	var upd store.VersionUpdate
	if active, ok := checkBool(f, "active", in.Active, false); ok {
		upd.Active = &active
	}
	if hidden, ok := checkBool(f, "hidden", in.Hidden, false); ok {
		upd.Hidden = &hidden
	}
	if in.PrivacyLevel.IsSet() {
		switch level := in.PrivacyLevel.Value(); {
		case level == nil:
			f.Add("privacy_level", errs.MsgNotNull)
		case checkChoice(f, "privacy_level", *level, choices.PrivacyLevels):
			upd.PrivacyLevel = level
		}
	}
	if err := f.Err(op); err != nil {
		return nil, err
	}
	if isTrue(in.ValidateOnly) {
		return nil, nil
	}
	activates := upd.Active != nil && *upd.Active && !v.Active && !p.Skip && !v.Uploaded
	var out *store.Version
	err = r.Store.InTx(ctx, op, func(tx *store.Tx) error {
		var err error
		if out, err = tx.UpdateVersion(ctx, v.ID, upd); err != nil || !activates {
			return err
		}
		_, err = tx.CreateBuild(ctx, out, nil)
		return err
	})
	if err != nil {
		return nil, err
	}
	if activates {
		r.buildQueued()
	}
	return out, nil
}

func (r *Resolver) setVersionPrivacy(ctx context.Context, projectSlug, versionSlug, level string) (*store.Version, error) {
	v, err := r.maintainedVersion(ctx, projectSlug, versionSlug)
	if err != nil {
		return nil, err
	}
	if !choices.PrivacyLevels.Has(level) {
		return nil, fieldInvalid("privacy_level", level)
	}
	return r.Store.UpdateVersion(ctx, v.ID, store.VersionUpdate{PrivacyLevel: &level})
}

// triggerBuild queues a build of any internal version, active or not; when
// the project's builds are disabled nothing is queued.
func (r *Resolver) triggerBuild(ctx context.Context, projectSlug, versionSlug string) (*TriggerBuildPayload, error) {
	p, err := r.maintainedProject(ctx, projectSlug)
	if err != nil {
		return nil, err
	}
	v, err := r.internalVersion(ctx, p, versionSlug)
	if err != nil {
		return nil, err
	}
	if v.Uploaded {
		return nil, errs.E(errs.Invalid, "graph.triggerBuild", MsgUploadedVersionBuild)
	}
	if p.Skip {
		return &TriggerBuildPayload{Project: r.projectView(ctx, p), Version: r.versionView(ctx, v), Triggered: false}, nil
	}
	b, err := r.Store.CreateBuild(ctx, v, nil)
	if err != nil {
		return nil, err
	}
	r.buildQueued()
	return &TriggerBuildPayload{Build: r.buildView(ctx, b), Project: r.projectView(ctx, p), Version: r.versionView(ctx, v), Triggered: true}, nil
}

var aliasPattern = regexp.MustCompile(`^[-a-zA-Z0-9_]+$`)

// createSubproject applies the create rules in Read the Docs' order, each
// field reporting its first failing check: child given, a project the
// caller maintains, not already a subproject or a superproject, not the
// project itself; alias a slug of at most 255 characters (the child's slug
// by default) not used by another subproject of the project; then the
// project must not itself be a subproject (no nesting).
func (r *Resolver) createSubproject(ctx context.Context, in CreateSubprojectInput) (*store.Relationship, error) {
	const op = "graph.createSubproject"
	parent, err := r.maintainedProject(ctx, in.Project)
	if err != nil {
		return nil, err
	}
	f := errs.Fields{}
	var child *store.Project
	switch {
	case !in.Child.IsSet():
		f.Add("child", errs.MsgRequired)
	case in.Child.Value() == nil || strings.TrimSpace(*in.Child.Value()) == "":
		f.Add("child", errs.MsgNotNull)
	default:
		childSlug := strings.TrimSpace(*in.Child.Value())
		c, err := r.projectMaintainedOrNil(ctx, childSlug)
		if err != nil {
			return nil, err
		}
		if c == nil {
			f.Add("child", fmt.Sprintf("Object with slug=%s does not exist.", childSlug))
			break
		}
		asChild, _, err := r.Store.FindRelationships(ctx, store.RelationshipFilter{ChildIDs: []int64{c.ID}})
		if err != nil {
			return nil, err
		}
		asParent, _, err := r.Store.FindRelationships(ctx, store.RelationshipFilter{ParentIDs: []int64{c.ID}, Limit: 1})
		if err != nil {
			return nil, err
		}
		switch {
		case len(asChild) > 0:
			f.Add("child", "Child is already a subproject of another project")
		case len(asParent) > 0:
			f.Add("child", "Child is already a superproject")
		case c.ID == parent.ID:
			f.Add("child", "Project can not be subproject of itself")
		case !sameOrganization(c, parent):
			f.Add("child", msgChildSameOrg)
		default:
			child = c
		}
	}
	alias := ""
	if in.Alias.IsSet() && in.Alias.Value() != nil {
		alias = strings.TrimSpace(*in.Alias.Value())
	}
	aliasOK := true
	switch {
	case alias != "" && !aliasPattern.MatchString(alias):
		f.Add("alias", errs.MsgInvalidSlug)
		aliasOK = false
	case len(alias) > 255:
		f.Add("alias", errs.TooLong(255))
		aliasOK = false
	}
	if alias == "" && child != nil {
		alias = child.Slug
	}
	if aliasOK && alias != "" {
		taken, _, err := r.Store.FindRelationships(ctx, store.RelationshipFilter{ParentIDs: []int64{parent.ID}, Alias: &alias})
		if err != nil {
			return nil, err
		}
		if len(taken) > 0 {
			f.Add("alias", "A subproject with this alias already exists")
		}
	}
	if len(f) == 0 {
		nested, _, err := r.Store.FindRelationships(ctx, store.RelationshipFilter{ChildIDs: []int64{parent.ID}})
		if err != nil {
			return nil, err
		}
		if len(nested) > 0 {
			f.Add(errs.NonField, "Subproject nesting is not supported")
		}
	}
	if err := f.Err(op); err != nil {
		return nil, err
	}
	if isTrue(in.ValidateOnly) {
		return nil, nil
	}
	rel, err := r.Store.CreateRelationship(ctx, parent.ID, child.ID, alias)
	if errs.Is(err, errs.Conflict) {
		return nil, &errs.Error{Kind: errs.Invalid, Op: op, Fields: errs.Fields{"alias": {"A subproject with this alias already exists"}}, Err: err}
	}
	return rel, err
}

// deleteSubproject un-nests a subproject and returns the relationship's
// global id.
func (r *Resolver) deleteSubproject(ctx context.Context, parentSlug, alias string) (string, error) {
	parent, err := r.maintainedProject(ctx, parentSlug)
	if err != nil {
		return "", err
	}
	rels, _, err := r.Store.FindRelationships(ctx, store.RelationshipFilter{ParentIDs: []int64{parent.ID}, Alias: &alias})
	if err != nil {
		return "", err
	}
	if len(rels) == 0 {
		return "", errNotFound("graph.deleteSubproject")
	}
	if err := r.Store.DeleteRelationship(ctx, rels[0].ID); err != nil {
		return "", err
	}
	return gid.Encode(nodeSubproject, parent.ID, rels[0].ID), nil
}

// redirectNeeds says which URLs a redirect type requires.
func redirectNeeds(typ string) (from, to bool) {
	switch typ {
	case "prefix":
		return true, false
	case "page", "exact":
		return true, true
	}
	return false, false
}

// redirectOncePerProject reports whether a project may have only one
// redirect of type typ.
func redirectOncePerProject(typ string) bool {
	return typ == "clean_url_to_html" || typ == "html_to_clean_url"
}

// redirectTypeTaken is the message for a second redirect of such a type.
func redirectTypeTaken(typ string) string {
	return fmt.Sprintf("Only one redirect of type `%s` is allowed per project.", typ)
}

// maxPosition is the largest redirect position accepted (a 32-bit field).
const maxPosition = 2147483647

// saveRedirect creates (create) or updates redirect in.ID, reporting every
// failing field together. Create and PUT (in.Replace) require the type.
// Fields not sent keep their stored values (defaults on create), and the
// checks run on the redirect as it would be stored.
func (r *Resolver) saveRedirect(ctx context.Context, in RedirectInput, create bool) (*store.Redirect, error) {
	const op = "graph.saveRedirect"
	replace := create || isTrue(in.Replace)
	p, err := r.maintainedProject(ctx, in.Project)
	if err != nil {
		return nil, err
	}
	red := store.Redirect{ProjectID: p.ID, HTTPStatus: 302, Enabled: true}
	if !create {
		id, err := projectObjectID(nodeRedirect, in.ID, p.ID)
		if err != nil {
			return nil, err
		}
		old, err := r.Store.FindRedirect(ctx, p.ID, id)
		if err != nil {
			return nil, err
		}
		red = *old
	}
	f := errs.Fields{}
	if t, ok := checkString(f, "type", in.Type, strRule{required: replace}); ok {
		if checkChoice(f, "type", t, choices.RedirectTypes) {
			red.Type = t
		}
	}
	from, fromSet := checkString(f, "from_url", in.FromURL, strRule{allowBlank: true, max: 255})
	to, toSet := checkString(f, "to_url", in.ToURL, strRule{allowBlank: true, max: 255})
	if fromSet {
		red.FromURL = from
	}
	if toSet {
		red.ToURL = to
	}
	if in.HTTPStatus.IsSet() {
		switch v := in.HTTPStatus.Value(); {
		case v == nil:
			f.Add("http_status", errs.MsgNotNull)
		case *v != 301 && *v != 302:
			f.Add("http_status", errs.BadChoice(strconv.FormatInt(*v, 10)))
		default:
			red.HTTPStatus = int(*v)
		}
	}
	if b, ok := checkBool(f, "force", in.Force, false); ok {
		red.Force = b
	}
	if b, ok := checkBool(f, "enabled", in.Enabled, false); ok {
		red.Enabled = b
	}
	if in.Description.IsSet() {
		if d, ok := checkString(f, "description", in.Description, strRule{allowNull: true, allowBlank: true, max: 255}); ok {
			red.Description = d
		} else if in.Description.Value() == nil {
			red.Description = ""
		}
	}
	var moveTo *int
	if in.Position.IsSet() {
		switch v := in.Position.Value(); {
		case v == nil:
			f.Add("position", errs.MsgNotNull)
		case *v < 0:
			f.Add("position", errs.AtLeast(0))
		case *v > maxPosition:
			f.Add("position", errs.AtMost(maxPosition))
		default:
			moveTo = ptr(int(*v))
		}
	}
	if !f.Has("type") && red.Type != "" {
		if err := r.checkRedirectRules(ctx, f, &red, fromSet, toSet); err != nil {
			return nil, err
		}
	}
	if err := f.Err(op); err != nil {
		return nil, err
	}
	if isTrue(in.ValidateOnly) {
		return nil, nil
	}
	var saved *store.Redirect
	if create {
		if moveTo != nil {
			red.Position = *moveTo
		}
		saved, err = r.Store.CreateRedirect(ctx, red)
	} else {
		saved, err = r.Store.UpdateRedirect(ctx, red, moveTo)
	}
	if errs.Is(err, errs.Conflict) { // lost a race with redirectOncePerProject's check
		return nil, &errs.Error{Kind: errs.Invalid, Op: op, Fields: errs.Fields{"type": {redirectTypeTaken(red.Type)}}, Err: err}
	}
	return saved, err
}

// checkRedirectRules adds the per-type checks on red, the redirect as it
// would be stored: the URLs the type requires, the `*` wildcard only at the
// end of a page or exact from_url (and `:splat` only with it), and the
// types allowed once per project. fromSet and toSet say which URLs the
// write sent. A field that already failed gets no second message.
func (r *Resolver) checkRedirectRules(ctx context.Context, f errs.Fields, red *store.Redirect, fromSet, toSet bool) error {
	needFrom, needTo := redirectNeeds(red.Type)
	requireURL := func(field string, need, sent bool, value string) {
		if !need || value != "" || f.Has(field) {
			return
		}
		if sent {
			f.Add(field, errs.MsgNotBlank)
		} else {
			f.Add(field, errs.MsgRequired)
		}
	}
	requireURL("from_url", needFrom, fromSet, red.FromURL)
	requireURL("to_url", needTo, toSet, red.ToURL)
	if red.Type == "page" || red.Type == "exact" {
		if i := strings.Index(red.FromURL, "*"); i >= 0 && i != len(red.FromURL)-1 && !f.Has("from_url") {
			f.Add("from_url", "The * wildcard must be at the end of the path.")
		}
		if strings.Contains(red.ToURL, ":splat") && !strings.HasSuffix(red.FromURL, "*") && !f.Has("to_url") {
			f.Add("to_url", "The * wildcard must be at the end of from_url to use the :splat placeholder in to_url.")
		}
	}
	if redirectOncePerProject(red.Type) {
		others, _, err := r.Store.FindRedirects(ctx, red.ProjectID, store.Page{})
		if err != nil {
			return err
		}
		for _, o := range others {
			if o.Type == red.Type && o.ID != red.ID {
				f.Add("type", redirectTypeTaken(red.Type))
				break
			}
		}
	}
	return nil
}

var envName = regexp.MustCompile(`^[A-Za-z0-9_]+$`)

// Limits of environment variable values, in characters.
const (
	envValueMax = 48000  // one value
	envTotalMax = 256000 // all values of a project
)

// MsgEnvTotalSize refuses a value that takes a project's values past envTotalMax.
const MsgEnvTotalSize = "The total size of all environment variables in the project cannot exceed 256 KB."

// envValuesFit reports whether value fits beside the project's existing
// variables within envTotalMax.
func envValuesFit(existing []*store.EnvironmentVariable, value string) bool {
	total := utf8.RuneCountInString(value)
	for _, e := range existing {
		total += utf8.RuneCountInString(e.Value)
	}
	return total <= envTotalMax
}

// createEnvironmentVariable applies the create rules: name required, at
// most 128 characters, then the first of Read the Docs' dashboard rules it
// breaks (no leading __ or READTHEDOCS, unique in the project, no spaces,
// letters, digits and _ only); value required within the size limits.
func (r *Resolver) createEnvironmentVariable(ctx context.Context, in CreateEnvironmentVariableInput) (*store.EnvironmentVariable, error) {
	const op = "graph.createEnvironmentVariable"
	p, err := r.maintainedProject(ctx, in.Project)
	if err != nil {
		return nil, err
	}
	f := errs.Fields{}
	taken := "There is already a variable with this name for this project"
	existing, _, err := r.Store.FindEnvironmentVariables(ctx, p.ID, store.Page{})
	if err != nil {
		return nil, err
	}
	name, nameOK := checkString(f, "name", in.Name, strRule{required: true, max: 128})
	if nameOK {
		used := false
		for _, e := range existing {
			used = used || e.Name == name
		}
		switch {
		case strings.HasPrefix(name, "__"):
			f.Add("name", "Variable name can't start with __ (double underscore)")
		case strings.HasPrefix(name, "READTHEDOCS"):
			f.Add("name", "Variable name can't start with READTHEDOCS")
		case used:
			f.Add("name", taken)
		case strings.Contains(name, " "):
			f.Add("name", "Variable name can't contain spaces")
		case !envName.MatchString(name):
			f.Add("name", "Only letters, numbers and underscore are allowed")
		}
	}
	value, valueOK := checkString(f, "value", in.Value, strRule{required: true, max: envValueMax})
	if valueOK && !envValuesFit(existing, value) {
		f.Add("value", MsgEnvTotalSize)
	}
	public, _ := checkBool(f, "public", in.Public, false)
	if err := f.Err(op); err != nil {
		return nil, err
	}
	if isTrue(in.ValidateOnly) {
		return nil, nil
	}
	ev, err := r.Store.CreateEnvironmentVariable(ctx, p.ID, name, value, public)
	if errs.Is(err, errs.Conflict) {
		return nil, &errs.Error{Kind: errs.Invalid, Op: op, Fields: errs.Fields{"name": {taken}}, Err: err}
	}
	return ev, err
}

// RedirectInput is the Go side of CreateRedirectInput and UpdateRedirectInput
// (gqlgen.yml binds both to it, so saveRedirect reads one struct): ID is
// empty and Replace nil when creating.
type RedirectInput struct {
	Project      string
	ID           string
	Type         graphql.Omittable[*string]
	FromURL      graphql.Omittable[*string]
	ToURL        graphql.Omittable[*string]
	HTTPStatus   graphql.Omittable[*int64]
	Position     graphql.Omittable[*int64]
	Force        graphql.Omittable[*bool]
	Enabled      graphql.Omittable[*bool]
	Description  graphql.Omittable[*string]
	Replace      *bool
	ValidateOnly *bool
}

// createIntegration creates an incoming-webhook integration of type typ.
func (r *Resolver) createIntegration(ctx context.Context, projectSlug, typ string) (*store.Integration, error) {
	p, err := r.maintainedProject(ctx, projectSlug)
	if err != nil {
		return nil, err
	}
	if !choices.IntegrationTypes.Has(typ) {
		return nil, fieldInvalid("type", typ)
	}
	return r.Store.CreateIntegration(ctx, p.ID, typ)
}
