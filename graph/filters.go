package graph

import (
	"strings"

	"docsd/internal/access"
	"docsd/internal/choices"
	"docsd/store"
)

// projectFilter turns a GraphQL project filter into a store filter for the
// viewer, validating its choices.
func projectFilter(v access.Viewer, in *ProjectFilterInput) (store.ProjectFilter, error) {
	f := store.ProjectFilter{Visible: access.API.Visibility(v)}
	if in == nil {
		return f, nil
	}
	if err := filterChoice("language", in.Language, choices.Languages); err != nil {
		return f, err
	}
	if in.ProgrammingLanguage != nil && *in.ProgrammingLanguage != "" {
		if err := filterChoice("programming_language", in.ProgrammingLanguage, choices.ProgrammingLanguages); err != nil {
			return f, err
		}
	}
	f.Slug, f.Language, f.ProgrammingLanguage = in.Slug, in.Language, in.ProgrammingLanguage
	f.SlugContains, f.NameContains = containsValue(in.SlugContains), containsValue(in.NameContains)
	f.OrganizationSlug = in.Organization
	if in.MaintainedByViewer != nil && *in.MaintainedByViewer {
		id := v.UserID()
		f.MaintainerID, f.Visible = &id, nil
	}
	return f, nil
}

// versionFilter turns a GraphQL version filter into a store filter; internal
// versions only unless includeExternal.
func versionFilter(in *VersionFilterInput) (store.VersionFilter, error) {
	f := store.VersionFilter{Internal: true}
	if in == nil {
		return f, nil
	}
	if err := filterChoice("privacy_level", in.PrivacyLevel, choices.PrivacyLevels); err != nil {
		return f, err
	}
	if err := filterChoice("type", in.Type, choices.VersionTypes); err != nil {
		return f, err
	}
	f.SlugContains, f.Type, f.Hidden = containsValue(in.SlugContains), in.Type, in.Hidden
	f.ProjectSlug, f.Slug, f.Active, f.Built, f.VerboseName, f.PrivacyLevel = in.ProjectSlug, in.Slug, in.Active, in.Built, in.VerboseName, in.PrivacyLevel
	f.Uploaded = in.Uploaded
	f.Internal = in.IncludeExternal == nil || !*in.IncludeExternal
	return f, nil
}

// containsValue is an icontains filter's value, trimmed as django-filter's
// CharFilter trims it on Read the Docs; one that is empty after trimming does
// not filter.
func containsValue(v *string) *string {
	if v == nil {
		return nil
	}
	t := strings.TrimSpace(*v)
	if t == "" {
		return nil
	}
	return &t
}

// buildFilter turns a GraphQL build filter into a store filter; builds of
// internal versions only unless includeExternal.
func buildFilter(in *BuildFilterInput) store.BuildFilter {
	f := store.BuildFilter{Internal: true}
	if in == nil {
		return f
	}
	f.ProjectSlug, f.Commit, f.Running = in.ProjectSlug, in.Commit, in.Running
	f.Internal = in.IncludeExternal == nil || !*in.IncludeExternal
	return f
}

// matchesVersionFilter applies a version filter to one version (filters
// narrow detail lookups too: a detail that does not match is not found).
func matchesVersionFilter(v *store.Version, f store.VersionFilter) bool {
	return (f.Active == nil || *f.Active == v.Active) &&
		(f.Hidden == nil || *f.Hidden == v.Hidden) &&
		(f.Type == nil || *f.Type == v.Type) &&
		(f.SlugContains == nil || store.Contains(v.Slug, *f.SlugContains)) &&
		(f.Built == nil || *f.Built == v.Built) &&
		(f.Uploaded == nil || *f.Uploaded == v.Uploaded) &&
		(f.VerboseName == nil || *f.VerboseName == v.VerboseName) &&
		(f.PrivacyLevel == nil || *f.PrivacyLevel == v.PrivacyLevel) &&
		(!f.Internal || v.Type != store.External)
}

// matchesBuildFilter applies a build filter's own conditions to one build.
func matchesBuildFilter(b *store.Build, f store.BuildFilter) bool {
	if f.Commit != nil && (b.Commit == nil || *b.Commit != *f.Commit) {
		return false
	}
	if f.Running != nil && *f.Running == (b.State == store.Finished) {
		return false
	}
	return true
}

// matchesProjectFilter applies a project filter's own conditions to one project.
func matchesProjectFilter(p *store.Project, f store.ProjectFilter) bool {
	return (f.Slug == nil || *f.Slug == p.Slug) &&
		(f.SlugContains == nil || store.Contains(p.Slug, *f.SlugContains)) &&
		(f.NameContains == nil || store.Contains(p.Name, *f.NameContains)) &&
		(f.Language == nil || *f.Language == p.Language) &&
		(f.ProgrammingLanguage == nil || *f.ProgrammingLanguage == p.ProgrammingLanguage)
}
