package store

import (
	"encoding/json"
	"time"

	"docsd/internal/rtdconfig"
)

// User is an account. Users are managed with the admin CLI, never the REST API.
type User struct {
	ID       int64  `db:"id"`
	Username string `db:"username"`
	Email    string `db:"email"`
	// EmailVerified: the email was set by an administrator, verified by
	// the identity provider, or confirmed by an invitation; look-ups by
	// email read verified emails only.
	EmailVerified bool      `db:"email_verified"`
	IsActive      bool      `db:"is_active"`
	IsSuperuser   bool      `db:"is_superuser"`
	Created       time.Time `db:"created"`
}

// Token is an API key's stored form: only its SHA-256 hash and first 4
// characters are kept.
type Token struct {
	ID      int64     `db:"id"`
	UserID  int64     `db:"user_id"`
	Hash    string    `db:"hash"`
	Prefix  string    `db:"prefix"`
	Name    string    `db:"name"` // what the key is for; "" when unnamed
	Created time.Time `db:"created"`
}

// Privacy levels of projects and versions.
const (
	Public    = "public"
	Protected = "protected"
	Private   = "private"
)

// Project is a documentation project as stored; the APIs show some of its
// fields only to maintainers, and some not at all.
type Project struct {
	ID                    int64   `db:"id"`
	Name                  string  `db:"name"`
	Slug                  string  `db:"slug"`
	Description           string  `db:"description"`
	Language              string  `db:"language"`
	ProgrammingLanguage   string  `db:"programming_language"`
	Repo                  string  `db:"repo"`
	RepoType              string  `db:"repo_type"`
	Homepage              string  `db:"homepage"`
	DefaultVersion        string  `db:"default_version"`
	DefaultBranch         *string `db:"default_branch"`
	DetectedDefaultBranch *string `db:"detected_default_branch"`
	VersioningScheme      string  `db:"versioning_scheme"`
	DocumentationType     string  `db:"documentation_type"`
	AnalyticsCode         *string `db:"analytics_code"`
	ShowVersionWarning    bool    `db:"show_version_warning"`
	PrivacyLevel          string  `db:"privacy_level"`
	VersionPrivacyLevel   string  `db:"version_privacy_level"`
	TagsJSON              string  `db:"tags"`
	Skip                  bool    `db:"skip"`
	EnablePDFBuild        bool    `db:"enable_pdf_build"`
	EnableEPUBBuild       bool    `db:"enable_epub_build"`
	RequirementsFile      *string `db:"requirements_file"`
	ConfPyFile            string  `db:"conf_py_file"`
	InstallProject        bool    `db:"install_project"`
	PythonInterpreter     string  `db:"python_interpreter"`
	UseSystemPackages     bool    `db:"use_system_packages"`
	ExternalBuildsEnabled bool    `db:"external_builds_enabled"`
	// ExternalBuildsPrivacyLevel is the privacy of the project's pull-request
	// versions, their builds and docs; their own stored level is not used.
	ExternalBuildsPrivacyLevel string    `db:"external_builds_privacy_level"`
	AnalyticsDisabled          bool      `db:"analytics_disabled"` // stored only: docsd injects no analytics
	BuildTimeLimit             *int      `db:"build_time_limit"`
	ReadthedocsYamlPath        *string   `db:"readthedocs_yaml_path"`
	AddonsEnabled              bool      `db:"addons_enabled"` // served HTML pages get the reader client
	TranslationOf              *int64    `db:"translation_of"`
	OrganizationID             *int64    `db:"organization_id"` // nil outside organizations
	Created                    time.Time `db:"created"`
	Modified                   time.Time `db:"modified"`
	// ParentID and ParentAlias are the project's subproject relationship
	// (its parent and its alias there), nil when it is not a subproject:
	// read with the row, so that docs URLs need no other statement. They
	// are what the relationship was when the row was read; a cache of
	// project rows that outlives a request must not rely on them.
	ParentID    *int64  `db:"parent_id"`
	ParentAlias *string `db:"parent_alias"`
}

// Tags returns the project's tags in stored order.
func (p *Project) Tags() []string {
	var tags []string
	if err := json.Unmarshal([]byte(p.TagsJSON), &tags); err != nil || tags == nil {
		return []string{}
	}
	return tags
}

// ConfigSettings returns the project's settings that reading its build
// configuration uses.
func (p *Project) ConfigSettings() rtdconfig.ProjectSettings {
	return rtdconfig.ProjectSettings{
		ReadthedocsYamlPath: p.ReadthedocsYamlPath,
		ConfPyFile:          p.ConfPyFile,
		DocumentationType:   p.DocumentationType,
		PythonInterpreter:   p.PythonInterpreter,
		RequirementsFile:    p.RequirementsFile,
		InstallProject:      p.InstallProject,
		UseSystemPackages:   p.UseSystemPackages,
		EnablePDFBuild:      p.EnablePDFBuild,
		EnableEPUBBuild:     p.EnableEPUBBuild,
	}
}

// IsPublic reports whether the project's privacy level is public.
func (p *Project) IsPublic() bool { return p.PrivacyLevel == Public }

// VersionIsPublic reports whether version v of p is visible to anyone: the
// project is public and so is the version, whose level is the project's
// external_builds_privacy_level when it is a pull-request version.
func (p *Project) VersionIsPublic(v *Version) bool {
	if !p.IsPublic() {
		return false
	}
	if v.Type == External {
		return p.ExternalBuildsPrivacyLevel == Public
	}
	return v.IsPublic()
}

// VCSFallbackBranch is the default branch a VCS uses when nothing else is
// known.
func VCSFallbackBranch(repoType string) string {
	switch repoType {
	case "hg":
		return "default"
	case "svn":
		return "/trunk/"
	case "bzr":
		return ""
	default:
		return "master"
	}
}

// EffectiveDefaultBranch is the stored default branch, else the detected
// one, else the VCS fallback.
func (p *Project) EffectiveDefaultBranch() string {
	if p.DefaultBranch != nil && *p.DefaultBranch != "" {
		return *p.DefaultBranch
	}
	if p.DetectedDefaultBranch != nil && *p.DetectedDefaultBranch != "" {
		return *p.DetectedDefaultBranch
	}
	return VCSFallbackBranch(p.RepoType)
}

// Version types; External is a pull request's version.
const (
	Branch   = "branch"
	Tag      = "tag"
	Unknown  = "unknown"
	External = "external"
)

// Machine version slugs.
const (
	Latest = "latest"
	Stable = "stable"
)

// Version is a buildable ref of a project.
type Version struct {
	ID           int64     `db:"id"`
	ProjectID    int64     `db:"project_id"`
	Slug         string    `db:"slug"`
	VerboseName  string    `db:"verbose_name"`
	Identifier   string    `db:"identifier"`
	Type         string    `db:"type"`
	Active       bool      `db:"active"`
	Built        bool      `db:"built"`
	Uploaded     bool      `db:"uploaded"`
	Machine      bool      `db:"machine"`
	PrivacyLevel string    `db:"privacy_level"`
	HasPDF       bool      `db:"has_pdf"`
	HasEPUB      bool      `db:"has_epub"`
	HasHTMLZip   bool      `db:"has_htmlzip"`
	Created      time.Time `db:"created"`
	// Hidden leaves the version out of reader-facing version listings (the
	// flyout, footer_html, search); it stays served and in every API list.
	Hidden bool `db:"hidden"`
}

// IsPublic reports whether the version's own privacy level is public.
func (v *Version) IsPublic() bool { return v.PrivacyLevel == Public }

// Build states, in the order a build goes through them.
const (
	Triggered  = "triggered"
	Cloning    = "cloning"
	Installing = "installing"
	Building   = "building"
	Finished   = "finished"
)

// Build is one attempt to build one version.
type Build struct {
	ID         int64      `db:"id"`
	ProjectID  int64      `db:"project_id"`
	VersionID  int64      `db:"version_id"`
	Type       string     `db:"type"`
	State      string     `db:"state"`
	Created    time.Time  `db:"created"`
	Started    *time.Time `db:"started"`
	FinishedAt *time.Time `db:"finished_at"`
	Success    bool       `db:"success"`
	Error      string     `db:"error"`
	ErrorID    string     `db:"error_id"`
	ExitCode   *int       `db:"exit_code"`
	Commit     *string    `db:"commit_hash"`
	Length     *int       `db:"length"`
	Config     string     `db:"config"`
	// ConfigPath is the custom configuration path the build used, if any.
	ConfigPath *string `db:"readthedocs_yaml_path"`
	// VersionName and VersionType are the version's verbose_name and type
	// when the build was created (v2 shows them).
	VersionName string `db:"version_name"`
	VersionType string `db:"version_type"`
	// VersionSlug is the slug of the build's version now, read with the row.
	VersionSlug  string     `db:"version_slug"`
	Builder      string     `db:"builder"`
	LeaseOwner   *string    `db:"lease_owner"`
	LeaseExpires *time.Time `db:"lease_expires"`
}

// BuildCommand is one recorded process execution inside a build.
type BuildCommand struct {
	ID          int64      `db:"id"`
	BuildID     int64      `db:"build_id"`
	Command     string     `db:"command"`
	Description string     `db:"description"`
	Output      string     `db:"output"`
	ExitCode    *int       `db:"exit_code"`
	StartTime   time.Time  `db:"start_time"`
	EndTime     *time.Time `db:"end_time"`
}

// SyncTask is a queued version sync that has no Build record.
type SyncTask struct {
	ID           int64      `db:"id"`
	ProjectID    int64      `db:"project_id"`
	Created      time.Time  `db:"created"`
	Started      *time.Time `db:"started"`
	LeaseOwner   *string    `db:"lease_owner"`
	LeaseExpires *time.Time `db:"lease_expires"`
}

// Relationship nests a child project under a parent with an alias.
type Relationship struct {
	ID       int64  `db:"id"`
	ParentID int64  `db:"parent_id"`
	ChildID  int64  `db:"child_id"`
	Alias    string `db:"alias"`
}

// Redirect is a per-project rule applied when a docs page is not found,
// or before an existing page is served when Force is set.
// A project's redirects hold the positions 0…N−1, each once: the order in
// which they are tried.
type Redirect struct {
	ID          int64     `db:"id"`
	ProjectID   int64     `db:"project_id"`
	Type        string    `db:"type"`
	FromURL     string    `db:"from_url"`
	ToURL       string    `db:"to_url"`
	HTTPStatus  int       `db:"http_status"`
	Position    int       `db:"position"`
	Force       bool      `db:"force"`
	Enabled     bool      `db:"enabled"`
	Description string    `db:"description"`
	Created     time.Time `db:"created"`
	Modified    time.Time `db:"modified"`
}

// EnvironmentVariable is a per-project name/value pair injected into builds.
// Value is write-only through every API.
type EnvironmentVariable struct {
	ID        int64     `db:"id"`
	ProjectID int64     `db:"project_id"`
	Name      string    `db:"name"`
	Value     string    `db:"value"`
	Created   time.Time `db:"created"`
	Modified  time.Time `db:"modified"`
	// Public variables are also given to pull-request builds.
	Public bool `db:"public"`
}

// Integration types of incoming webhooks.
const (
	GitHubWebhook    = "github_webhook"
	GitLabWebhook    = "gitlab_webhook"
	BitbucketWebhook = "bitbucket_webhook"
	APIWebhook       = "api_webhook"
)

// IntegrationTypes lists the integration types in table order.
var IntegrationTypes = []string{GitHubWebhook, GitLabWebhook, BitbucketWebhook, APIWebhook}

// Integration is a per-project incoming-webhook endpoint with its secret.
type Integration struct {
	ID        int64     `db:"id"`
	ProjectID int64     `db:"project_id"`
	Type      string    `db:"integration_type"`
	Secret    string    `db:"secret"`
	Created   time.Time `db:"created"`
}

// WebhookExchange is one recorded webhook request and its answer.
type WebhookExchange struct {
	ID             int64     `db:"id"`
	IntegrationID  int64     `db:"integration_id"`
	Created        time.Time `db:"created"`
	RequestHeaders string    `db:"request_headers"`
	RequestBody    string    `db:"request_body"`
	ResponseStatus int       `db:"response_status"`
	ResponseBody   string    `db:"response_body"`
}
