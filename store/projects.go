package store

import (
	"context"
	"encoding/json"
	"strings"
	"unicode"

	"docsd/internal/choices"
	"docsd/internal/errs"
)

// projectRows are the columns of a Project, on the table aliased p.
var projectRows = newRowType(
	col[Project]{"p.id", func(p *Project) any { return &p.ID }},
	col[Project]{"p.name", func(p *Project) any { return &p.Name }},
	col[Project]{"p.slug", func(p *Project) any { return &p.Slug }},
	col[Project]{"p.description", func(p *Project) any { return &p.Description }},
	col[Project]{"p.language", func(p *Project) any { return &p.Language }},
	col[Project]{"p.programming_language", func(p *Project) any { return &p.ProgrammingLanguage }},
	col[Project]{"p.repo", func(p *Project) any { return &p.Repo }},
	col[Project]{"p.repo_type", func(p *Project) any { return &p.RepoType }},
	col[Project]{"p.homepage", func(p *Project) any { return &p.Homepage }},
	col[Project]{"p.default_version", func(p *Project) any { return &p.DefaultVersion }},
	col[Project]{"p.default_branch", func(p *Project) any { return &p.DefaultBranch }},
	col[Project]{"p.detected_default_branch", func(p *Project) any { return &p.DetectedDefaultBranch }},
	col[Project]{"p.versioning_scheme", func(p *Project) any { return &p.VersioningScheme }},
	col[Project]{"p.documentation_type", func(p *Project) any { return &p.DocumentationType }},
	col[Project]{"p.analytics_code", func(p *Project) any { return &p.AnalyticsCode }},
	col[Project]{"p.show_version_warning", func(p *Project) any { return &p.ShowVersionWarning }},
	col[Project]{"p.privacy_level", func(p *Project) any { return &p.PrivacyLevel }},
	col[Project]{"p.version_privacy_level", func(p *Project) any { return &p.VersionPrivacyLevel }},
	col[Project]{"p.tags", func(p *Project) any { return &p.TagsJSON }},
	col[Project]{"p.skip", func(p *Project) any { return &p.Skip }},
	col[Project]{"p.enable_pdf_build", func(p *Project) any { return &p.EnablePDFBuild }},
	col[Project]{"p.enable_epub_build", func(p *Project) any { return &p.EnableEPUBBuild }},
	col[Project]{"p.requirements_file", func(p *Project) any { return &p.RequirementsFile }},
	col[Project]{"p.conf_py_file", func(p *Project) any { return &p.ConfPyFile }},
	col[Project]{"p.install_project", func(p *Project) any { return &p.InstallProject }},
	col[Project]{"p.python_interpreter", func(p *Project) any { return &p.PythonInterpreter }},
	col[Project]{"p.use_system_packages", func(p *Project) any { return &p.UseSystemPackages }},
	col[Project]{"p.external_builds_enabled", func(p *Project) any { return &p.ExternalBuildsEnabled }},
	col[Project]{"p.external_builds_privacy_level", func(p *Project) any { return &p.ExternalBuildsPrivacyLevel }},
	col[Project]{"p.analytics_disabled", func(p *Project) any { return &p.AnalyticsDisabled }},
	col[Project]{"p.build_time_limit", func(p *Project) any { return &p.BuildTimeLimit }},
	col[Project]{"p.readthedocs_yaml_path", func(p *Project) any { return &p.ReadthedocsYamlPath }},
	col[Project]{"p.addons_enabled", func(p *Project) any { return &p.AddonsEnabled }},
	col[Project]{"p.translation_of", func(p *Project) any { return &p.TranslationOf }},
	col[Project]{"p.organization_id", func(p *Project) any { return &p.OrganizationID }},
	col[Project]{"p.created", func(p *Project) any { return &p.Created }},
	col[Project]{"p.modified", func(p *Project) any { return &p.Modified }},
	col[Project]{"(SELECT r.parent_id FROM project_relationships r WHERE r.child_id = p.id) AS parent_id", func(p *Project) any { return &p.ParentID }},
	col[Project]{"(SELECT r.alias FROM project_relationships r WHERE r.child_id = p.id) AS parent_alias", func(p *Project) any { return &p.ParentAlias }},
)

// Visibility says whose view a read takes. The zero value is the anonymous
// caller: public data only.
type Visibility struct {
	UserID int64 // the caller; 0 for anonymous
	All    bool  // superusers and the system see everything
	// Shared are the sharing grants the caller holds (docs reads only):
	// each makes its project visible, and its covered versions.
	Shared []SharedRead
	// Projects, when not nil, are the only projects on which the caller's
	// roles count (a docs cookie acts only for its host's projects); on
	// the others the caller reads what anyone reads.
	Projects []int64
}

// SharedRead is what one sharing grant lets its holder read: project
// ProjectID's active versions (AllVersions) or those of Versions.
type SharedRead struct {
	ProjectID   int64
	AllVersions bool
	Versions    []string
}

// projectVisible is the SQL condition "project p is visible": public, or
// the caller reads it (a direct maintainer, an owner of its organization,
// a member of a team including it).
func (v Visibility) projectVisible(p string) (string, []any) {
	if v.All {
		return "1=1", nil
	}
	readable, args := v.readable(p)
	cond := "(" + p + ".privacy_level = 'public' OR " + readable
	for _, sh := range v.Shared {
		cond += " OR " + p + ".id = ?"
		args = append(args, sh.ProjectID)
	}
	return cond + ")", args
}

// versionVisible is the SQL condition "version v of project p is visible":
// the version is public and its project visible, or the caller reads the
// project, or a sharing grant of the caller covers the version. A
// pull-request version's level is its project's
// external_builds_privacy_level (Project.VersionIsPublic).
func (v Visibility) versionVisible(ver, p string) (string, []any) {
	if v.All {
		return "1=1", nil
	}
	level := "(CASE WHEN " + ver + ".type = '" + External + "' THEN " + p + ".external_builds_privacy_level ELSE " + ver + ".privacy_level END)"
	readable, args := v.readable(p)
	cond := "((" + level + " = 'public' AND " + p + ".privacy_level = 'public') OR " + readable
	for _, sh := range v.Shared {
		cond += " OR (" + p + ".id = ? AND " + ver + ".type <> '" + External + "' AND "
		args = append(args, sh.ProjectID)
		if sh.AllVersions {
			cond += ver + ".active)"
			continue
		}
		if len(sh.Versions) == 0 {
			cond += "1=0)"
			continue
		}
		cond += ver + ".slug IN (" + marks(len(sh.Versions)) + "))"
		args = append(args, strArgs(sh.Versions)...)
	}
	return cond + ")", args
}

// readable is the SQL condition "the caller reads project p through a
// role": a direct maintainer, an owner of its organization, a member of a
// team including it; only among Projects when they are set.
func (v Visibility) readable(p string) (string, []any) {
	cond, args := p+".id IN ("+readableProjectIDs+")", []any{v.UserID, v.UserID, v.UserID}
	switch {
	case v.Projects == nil:
		return cond, args
	case len(v.Projects) == 0:
		return "1=0", nil
	}
	for _, id := range v.Projects {
		args = append(args, id)
	}
	return "(" + cond + " AND " + p + ".id IN (" + marks(len(v.Projects)) + "))", args
}

// where accumulates SQL conditions and their arguments.
type where struct {
	conds []string
	args  []any
}

func (w *where) add(cond string, args ...any) {
	w.conds = append(w.conds, cond)
	w.args = append(w.args, args...)
}

// addText adds `col = value` for a text column. A value that no text column
// can hold (invalid UTF-8, or a NUL byte) matches nothing: PostgreSQL would
// refuse the whole query instead, and filters come straight from requests.
func (w *where) addText(col, value string) {
	if !storable(value) {
		w.add("1=0")
		return
	}
	w.add(col+" = ?", value)
}

// addSlugContains adds RTD's icontains on a slug column: the value,
// lower-cased, is a substring of the column. Slugs are stored lower-case
// (package slug), so lower-casing the value is enough; LIKE with every
// wildcard escaped compares alike on both databases.
func (w *where) addSlugContains(col, value string) {
	if !storable(value) {
		w.add("1=0")
		return
	}
	w.add(col+` LIKE ? ESCAPE '\'`, "%"+likeEscaper.Replace(foldCase(value))+"%")
}

var likeEscaper = strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`)

// Contains is RTD's icontains: whether value, lower-cased with Unicode
// simple case mapping, is a substring of s lower-cased alike.
func Contains(s, value string) bool { return strings.Contains(foldCase(s), foldCase(value)) }

func foldCase(s string) string { return strings.Map(unicode.ToLower, s) }

func (w *where) String() string {
	if len(w.conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(w.conds, " AND ")
}

// ProjectFilter selects projects. Nil fields do not filter.
type ProjectFilter struct {
	IDs                 []int64
	Slug                *string
	SlugContains        *string // icontains
	NameContains        *string // icontains, Unicode simple case mapping
	Language            *string
	ProgrammingLanguage *string
	MaintainerID        *int64  // only projects this user administers (directly or through an organization)
	OrganizationID      *int64  // only projects of this organization
	OrganizationSlug    *string // only projects of the organization with this slug
	TranslationOf       *int64
	Visible             *Visibility
	Limit, Offset       int
	// Keyset, when set, pages by cursor instead of Offset.
	Keyset *Keyset
}

// projectOrder is the order of project lists: by slug (code point).
var projectOrder = []orderKey{{col: "slug", text: true}, {col: "id"}}

func (f ProjectFilter) where() *where {
	w := &where{}
	if f.IDs != nil {
		if len(f.IDs) == 0 {
			w.add("1=0")
		} else {
			w.add("p.id IN (?)", f.IDs)
		}
	}
	if f.Slug != nil {
		w.addText("p.slug", *f.Slug)
	}
	if f.SlugContains != nil {
		w.addSlugContains("p.slug", *f.SlugContains)
	}
	if f.Language != nil {
		w.addText("p.language", *f.Language)
	}
	if f.ProgrammingLanguage != nil {
		w.addText("p.programming_language", *f.ProgrammingLanguage)
	}
	if f.MaintainerID != nil {
		w.add("p.id IN ("+adminProjectIDs+")", *f.MaintainerID, *f.MaintainerID, *f.MaintainerID)
	}
	if f.OrganizationID != nil {
		w.add("p.organization_id = ?", *f.OrganizationID)
	}
	if f.OrganizationSlug != nil {
		if !storable(*f.OrganizationSlug) {
			w.add("1=0")
		} else {
			w.add("p.organization_id IN (SELECT id FROM organizations WHERE slug = ?)", *f.OrganizationSlug)
		}
	}
	if f.TranslationOf != nil {
		w.add("p.translation_of = ?", *f.TranslationOf)
	}
	if f.Visible != nil {
		c, a := f.Visible.projectVisible("p")
		w.add(c, a...)
	}
	return w
}

// FindProjects returns the matching projects ordered by slug (code point) and
// the total number that match regardless of Limit/Offset.
func (s *Store) FindProjects(ctx context.Context, f ProjectFilter) ([]*Project, int, error) {
	const op = "store.FindProjects"
	w := f.where()
	if f.NameContains != nil {
		if err := s.whereNameContains(ctx, w, *f.NameContains); err != nil {
			return nil, 0, classify(op, err)
		}
	}
	projects := []*Project{}
	total, err := findPage(ctx, s, &projects, projectRows.next, listRead{cols: projectRows.cols, from: ` FROM projects p`, table: "projects", alias: "p",
		order: projectOrder, w: w, limit: f.Limit, offset: f.Offset, keyset: f.Keyset})
	return projects, total, classify(op, err)
}

// whereNameContains narrows w to the projects whose name contains value in
// any case. Names are free Unicode text, and neither database lower-cases
// it the same way (SQLite only ASCII, PostgreSQL by its locale), so the
// names w selects are compared here and w gets their ids.
func (s *Store) whereNameContains(ctx context.Context, w *where, value string) error {
	var rows []struct {
		ID   int64  `db:"id"`
		Name string `db:"name"`
	}
	if err := s.read().selIn(ctx, &rows, `SELECT p.id, p.name FROM projects p`+w.String(), w.args...); err != nil {
		return err
	}
	ids := []int64{}
	for _, r := range rows {
		if Contains(r.Name, value) {
			ids = append(ids, r.ID)
		}
	}
	if len(ids) == 0 {
		w.add("1=0")
	} else {
		w.add("p.id IN (?)", ids)
	}
	return nil
}

// FindProjectByID returns the project with that id, whoever can see it.
func (s *Store) FindProjectByID(ctx context.Context, id int64) (*Project, error) {
	var p Project
	err := getRow(ctx, s.read(), projectRows, &p, `SELECT `+projectRows.cols+` FROM projects p WHERE p.id = ?`, id)
	return &p, classify("store.FindProjectByID", err)
}

// FindProjectBySlug returns the project with that slug, whoever can see it.
func (s *Store) FindProjectBySlug(ctx context.Context, slug string) (*Project, error) {
	if !storable(slug) {
		return nil, errNotStorable("store.FindProjectBySlug")
	}
	var p Project
	err := getRow(ctx, s.read(), projectRows, &p, `SELECT `+projectRows.cols+` FROM projects p WHERE p.slug = ?`, slug)
	return &p, classify("store.FindProjectBySlug", err)
}

// FindProjectsByIDs returns the projects with the given ids, in no order.
func (s *Store) FindProjectsByIDs(ctx context.Context, ids []int64) ([]*Project, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var ps []*Project
	err := scanAll(ctx, s.read(), &ps, projectRows.next, `SELECT `+projectRows.cols+` FROM projects p WHERE p.id IN (?)`, ids)
	return ps, classify("store.FindProjectsByIDs", err)
}

// ProjectImport is what importing a project needs. The caller has validated
// the fields and derived the slug.
type ProjectImport struct {
	Name, Slug          string
	Repo, RepoType      string
	Homepage            string
	Language            string
	ProgrammingLanguage string
	MaintainerID        int64
	IntegrationType     string
	IntegrationSecret   string
	// The optional fields of a create; zero values take the defaults (no
	// tags, public, public, no custom configuration path).
	Tags                       []string
	PrivacyLevel               string
	ExternalBuildsPrivacyLevel string
	ReadthedocsYamlPath        string
	// OrganizationID, when set, puts the project in that organization and
	// in its teams TeamIDs.
	OrganizationID *int64
	TeamIDs        []int64
}

// ImportResult is everything an import created.
type ImportResult struct {
	Project     *Project
	Latest      *Version
	Build       *Build // nil when the project's builds are disabled
	Integration *Integration
}

// ImportProject stores a project with a new project's defaults, its
// machine `latest` version, the caller as its maintainer, a triggered build
// of `latest` and an integration, all in one transaction. A taken slug is a
// Conflict.
func (s *Store) ImportProject(ctx context.Context, imp ProjectImport) (*ImportResult, error) {
	const op = "store.ImportProject"
	var res ImportResult
	err := s.InTx(ctx, op, func(tx *Tx) error {
		tags, _ := json.Marshal(imp.Tags)
		if imp.Tags == nil {
			tags = []byte("[]")
		}
		id, err := tx.insert(ctx, `INSERT INTO projects (name, slug, language, programming_language, repo, repo_type, homepage,
			tags, privacy_level, external_builds_privacy_level, readthedocs_yaml_path, organization_id, created, modified)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			imp.Name, imp.Slug, imp.Language, imp.ProgrammingLanguage, imp.Repo, imp.RepoType, imp.Homepage,
			string(tags), orDefault(imp.PrivacyLevel, Public), orDefault(imp.ExternalBuildsPrivacyLevel, Public),
			nullIfEmpty(imp.ReadthedocsYamlPath), imp.OrganizationID, tx.Now, tx.Now)
		if err != nil {
			return err
		}
		for _, tid := range imp.TeamIDs {
			if err := tx.setTeamProjects(ctx, tid, []int64{id}); err != nil {
				return err
			}
		}
		if _, err := tx.exec(ctx, `INSERT INTO project_users (project_id, user_id) VALUES (?, ?)`, id, imp.MaintainerID); err != nil {
			return err
		}
		p, err := tx.findProject(ctx, id)
		if err != nil {
			return err
		}
		res.Project = p
		res.Latest, err = tx.createVersion(ctx, &Version{
			ProjectID: id, Slug: Latest, VerboseName: Latest, Identifier: p.EffectiveDefaultBranch(),
			Type: Branch, Active: true, Machine: true, PrivacyLevel: p.VersionPrivacyLevel,
		})
		if err != nil {
			return err
		}
		if !p.Skip {
			if res.Build, err = tx.CreateBuild(ctx, res.Latest, nil); err != nil {
				return err
			}
		}
		res.Integration, err = tx.CreateIntegration(ctx, id, imp.IntegrationType, imp.IntegrationSecret)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &res, nil
}

func (tx *Tx) findProject(ctx context.Context, id int64) (*Project, error) {
	var p Project
	err := getRow(ctx, tx.conn, projectRows, &p, `SELECT `+projectRows.cols+` FROM projects p WHERE p.id = ?`, id)
	return &p, err
}

// ProjectUpdate lists the fields to change; nil fields stay as they are.
// For DefaultBranch, AnalyticsCode, RequirementsFile and
// ReadthedocsYamlPath an empty string stores NULL; for BuildTimeLimit zero
// does. SingleVersion is the boolean view of VersioningScheme: true sets
// single_version_without_translations; false turns that scheme into
// multiple_versions_with_translations and leaves any other alone. It
// applies after VersioningScheme.
type ProjectUpdate struct {
	Name                  *string
	Repo                  *string
	RepoType              *string
	Homepage              *string
	Language              *string
	ProgrammingLanguage   *string
	DefaultVersion        *string
	DefaultBranch         *string
	AnalyticsCode         *string
	ShowVersionWarning    *bool
	SingleVersion         *bool
	Description           *string
	DocumentationType     *string
	PrivacyLevel          *string
	VersionPrivacyLevel   *string
	Tags                  *[]string
	Skip                  *bool
	AddonsEnabled         *bool
	EnablePDFBuild        *bool
	EnableEPUBBuild       *bool
	RequirementsFile      *string
	ConfPyFile            *string
	InstallProject        *bool
	PythonInterpreter     *string
	UseSystemPackages     *bool
	ExternalBuildsEnabled *bool
	BuildTimeLimit        *int

	VersioningScheme           *string
	ExternalBuildsPrivacyLevel *string
	AnalyticsDisabled          *bool
	ReadthedocsYamlPath        *string
}

type setter struct {
	cols []string
	args []any
}

func (s *setter) set(col string, v any) {
	s.cols = append(s.cols, col+" = ?")
	s.args = append(s.args, v)
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func nullIfEmpty(v string) any {
	if v == "" {
		return nil
	}
	return v
}

// UpdateProject applies upd and advances `modified`. When the effective
// default branch changes and `latest` is a machine version, `latest`
// follows it.
func (s *Store) UpdateProject(ctx context.Context, id int64, upd ProjectUpdate) (*Project, error) {
	const op = "store.UpdateProject"
	var out *Project
	err := s.InTx(ctx, op, func(tx *Tx) error {
		before, err := tx.findProject(ctx, id)
		if err != nil {
			return err
		}
		st := &setter{}
		str := func(col string, v *string) {
			if v != nil {
				st.set(col, *v)
			}
		}
		boolean := func(col string, v *bool) {
			if v != nil {
				st.set(col, *v)
			}
		}
		str("name", upd.Name)
		str("repo", upd.Repo)
		str("repo_type", upd.RepoType)
		str("homepage", upd.Homepage)
		str("language", upd.Language)
		str("programming_language", upd.ProgrammingLanguage)
		str("default_version", upd.DefaultVersion)
		if upd.DefaultBranch != nil {
			st.set("default_branch", nullIfEmpty(*upd.DefaultBranch))
		}
		if upd.AnalyticsCode != nil {
			st.set("analytics_code", nullIfEmpty(*upd.AnalyticsCode))
		}
		boolean("show_version_warning", upd.ShowVersionWarning)
		scheme := before.VersioningScheme
		if upd.VersioningScheme != nil {
			scheme = *upd.VersioningScheme
		}
		if upd.SingleVersion != nil {
			if *upd.SingleVersion {
				scheme = choices.SingleVersionWithoutTranslations
			} else if choices.IsSingleVersion(scheme) {
				scheme = choices.MultipleVersionsWithTranslations
			}
		}
		if scheme != before.VersioningScheme {
			st.set("versioning_scheme", scheme)
		}
		str("external_builds_privacy_level", upd.ExternalBuildsPrivacyLevel)
		boolean("analytics_disabled", upd.AnalyticsDisabled)
		if upd.ReadthedocsYamlPath != nil {
			st.set("readthedocs_yaml_path", nullIfEmpty(*upd.ReadthedocsYamlPath))
		}
		str("description", upd.Description)
		str("documentation_type", upd.DocumentationType)
		str("privacy_level", upd.PrivacyLevel)
		str("version_privacy_level", upd.VersionPrivacyLevel)
		if upd.Tags != nil {
			tags, _ := json.Marshal(*upd.Tags)
			st.set("tags", string(tags))
		}
		boolean("skip", upd.Skip)
		boolean("addons_enabled", upd.AddonsEnabled)
		boolean("enable_pdf_build", upd.EnablePDFBuild)
		boolean("enable_epub_build", upd.EnableEPUBBuild)
		if upd.RequirementsFile != nil {
			st.set("requirements_file", nullIfEmpty(*upd.RequirementsFile))
		}
		str("conf_py_file", upd.ConfPyFile)
		boolean("install_project", upd.InstallProject)
		str("python_interpreter", upd.PythonInterpreter)
		boolean("use_system_packages", upd.UseSystemPackages)
		boolean("external_builds_enabled", upd.ExternalBuildsEnabled)
		if upd.BuildTimeLimit != nil {
			if *upd.BuildTimeLimit == 0 {
				st.set("build_time_limit", nil)
			} else {
				st.set("build_time_limit", *upd.BuildTimeLimit)
			}
		}
		st.set("modified", tx.Now)
		if _, err := tx.exec(ctx, `UPDATE projects SET `+strings.Join(st.cols, ", ")+` WHERE id = ?`, append(st.args, id)...); err != nil {
			return err
		}
		if out, err = tx.findProject(ctx, id); err != nil {
			return err
		}
		if out.EffectiveDefaultBranch() != before.EffectiveDefaultBranch() {
			return tx.repointLatest(ctx, out)
		}
		return nil
	})
	return out, err
}

// repointLatest sets a machine `latest` version's identifier to the
// project's effective default branch.
func (tx *Tx) repointLatest(ctx context.Context, p *Project) error {
	_, err := tx.exec(ctx, `UPDATE versions SET identifier = ? WHERE project_id = ? AND slug = ? AND machine = ?`,
		p.EffectiveDefaultBranch(), p.ID, Latest, true)
	return err
}

// RecordBuildFacts stores what a build learnt about the project (the
// repository's default branch, the doctype it used) without counting as a
// save: `modified` does not change. Nil arguments are left alone. A machine
// `latest` follows a newly detected default branch.
func (s *Store) RecordBuildFacts(ctx context.Context, projectID int64, detectedDefaultBranch, documentationType *string) error {
	const op = "store.RecordBuildFacts"
	return s.InTx(ctx, op, func(tx *Tx) error {
		before, err := tx.findProject(ctx, projectID)
		if err != nil {
			return err
		}
		if detectedDefaultBranch != nil {
			if _, err := tx.exec(ctx, `UPDATE projects SET detected_default_branch = ? WHERE id = ?`, nullIfEmpty(*detectedDefaultBranch), projectID); err != nil {
				return err
			}
		}
		if documentationType != nil {
			if _, err := tx.exec(ctx, `UPDATE projects SET documentation_type = ? WHERE id = ?`, *documentationType, projectID); err != nil {
				return err
			}
		}
		after, err := tx.findProject(ctx, projectID)
		if err != nil {
			return err
		}
		if after.EffectiveDefaultBranch() != before.EffectiveDefaultBranch() {
			return tx.repointLatest(ctx, after)
		}
		return nil
	})
}

// DeleteProject removes a project and everything that belongs to it:
// versions, builds, commands, relationships, redirects, variables,
// integrations and maintainerships. Its translations become main projects.
// Hosted files are the caller's to remove.
func (s *Store) DeleteProject(ctx context.Context, id int64) error {
	const op = "store.DeleteProject"
	return s.InTx(ctx, op, func(tx *Tx) error {
		if _, err := tx.exec(ctx, `UPDATE projects SET translation_of = NULL WHERE translation_of = ?`, id); err != nil {
			return err
		}
		res, err := tx.exec(ctx, `DELETE FROM projects WHERE id = ?`, id)
		return mustAffect(op, res, err)
	})
}

// SetTranslationOf links a project as a translation of mainID, or unlinks it
// when mainID is nil. The caller checks the language rules.
func (s *Store) SetTranslationOf(ctx context.Context, id int64, mainID *int64) error {
	const op = "store.SetTranslationOf"
	return s.InTx(ctx, op, func(tx *Tx) error {
		res, err := tx.exec(ctx, `UPDATE projects SET translation_of = ?, modified = ? WHERE id = ?`, mainID, tx.Now, id)
		return mustAffect(op, res, err)
	})
}

// Maintainership links a user to a project they maintain.
type Maintainership struct {
	ProjectID int64 `db:"project_id"`
	UserID    int64 `db:"user_id"`
}

// FindMaintainerships returns the maintainers of the given projects in the
// order they were added.
func (s *Store) FindMaintainerships(ctx context.Context, projectIDs []int64) ([]Maintainership, error) {
	if len(projectIDs) == 0 {
		return nil, nil
	}
	var ms []Maintainership
	err := s.read().selIn(ctx, &ms, `SELECT project_id, user_id FROM project_users WHERE project_id IN (?) ORDER BY id`, projectIDs)
	return ms, classify("store.FindMaintainerships", err)
}

// Maintainer is a maintainer of a project, with the user's row.
type Maintainer struct {
	ProjectID int64 `db:"project_id"`
	User
}

// nextMaintainer is a scanAll row maker for m.project_id and userRows.
func nextMaintainer(buf []any) (*Maintainer, []any) {
	m := new(Maintainer)
	return m, userRows.dests(append(buf, &m.ProjectID), &m.User)
}

// FindMaintainers returns the maintainers of the given projects with their
// users, in the order they were added: FindMaintainerships and
// FindUsersByIDs in one statement.
func (s *Store) FindMaintainers(ctx context.Context, projectIDs []int64) ([]*Maintainer, error) {
	if len(projectIDs) == 0 {
		return nil, nil
	}
	var ms []*Maintainer
	err := scanAll(ctx, s.read(), &ms, nextMaintainer, `SELECT m.project_id, `+userRows.cols+`
		FROM project_users m JOIN users u ON u.id = m.user_id WHERE m.project_id IN (?) ORDER BY m.id`, projectIDs)
	return ms, classify("store.FindMaintainers", err)
}

// AddMaintainer makes the user a maintainer of the project. Adding an
// existing maintainer is a Conflict.
func (s *Store) AddMaintainer(ctx context.Context, projectID, userID int64) error {
	const op = "store.AddMaintainer"
	return s.InTx(ctx, op, func(tx *Tx) error {
		_, err := tx.exec(ctx, `INSERT INTO project_users (project_id, user_id) VALUES (?, ?)`, projectID, userID)
		if err = classify(op, err); errs.Is(err, errs.Conflict) {
			return errs.E(errs.Conflict, op, "The user is already a maintainer of this project.")
		}
		return err
	})
}

// RemoveMaintainerInOrganization removes a maintainer of a project in an
// organization, the last one included (the organization's owners keep
// control). One who is no maintainer is NotFound.
func (s *Store) RemoveMaintainerInOrganization(ctx context.Context, projectID, userID int64) error {
	const op = "store.RemoveMaintainerInOrganization"
	return s.InTx(ctx, op, func(tx *Tx) error {
		res, err := tx.exec(ctx, `DELETE FROM project_users WHERE project_id = ? AND user_id = ?`, projectID, userID)
		return mustAffect(op, res, err)
	})
}

// RemoveMaintainer removes a maintainer. The last maintainer can't be
// removed (Conflict).
func (s *Store) RemoveMaintainer(ctx context.Context, projectID, userID int64) error {
	const op = "store.RemoveMaintainer"
	return s.InTx(ctx, op, func(tx *Tx) error {
		// Lock the project so that two removals can't both see two maintainers.
		if tx.s.dialect == Postgres {
			if _, err := tx.exec(ctx, `SELECT id FROM projects WHERE id = ? FOR UPDATE`, projectID); err != nil {
				return err
			}
		}
		var n int
		if err := tx.get(ctx, &n, `SELECT COUNT(*) FROM project_users WHERE project_id = ?`, projectID); err != nil {
			return err
		}
		res, err := tx.exec(ctx, `DELETE FROM project_users WHERE project_id = ? AND user_id = ?`, projectID, userID)
		if err := mustAffect(op, res, err); err != nil {
			return err
		}
		if n <= 1 {
			return errs.E(errs.Conflict, op, "The last maintainer of a project can't be removed.")
		}
		return nil
	})
}
