package store

import (
	"encoding/json"
	"time"

	"docsd/internal/choices"
)

// The types and methods in this file are what the GraphQL schema shows of a
// row that needs nothing but the row. gqlgen binds them directly (autobind,
// gqlgen.yml), and the executor runs a field bound to a method without a
// context inline, where a resolver would cost a goroutine per field of
// every listed object.

// Choice is a code of a closed list of choices with its display name.
type Choice struct {
	Code string `json:"code"`
	Name string `json:"name"`
}

// BuildState is a build's step as a code and its display name.
type BuildState struct {
	Code string `json:"code"`
	Name string `json:"name"`
}

// Repository is a project's source repository.
type Repository struct {
	URL  string `json:"url"`
	Type string `json:"type"`
}

// LanguageChoice is the project's language with its display name.
func (p *Project) LanguageChoice() *Choice {
	return &Choice{Code: p.Language, Name: choices.Languages.Name(p.Language)}
}

// ProgrammingLanguageChoice is the project's programming language with its
// display name.
func (p *Project) ProgrammingLanguageChoice() *Choice {
	return &Choice{Code: p.ProgrammingLanguage, Name: choices.ProgrammingLanguages.Name(p.ProgrammingLanguage)}
}

// SingleVersion reports whether the project's versioning scheme is
// single_version_without_translations (choices.IsSingleVersion; v3 REST
// derives its single_version from versioning_scheme with the same rule).
func (p *Project) SingleVersion() bool { return choices.IsSingleVersion(p.VersioningScheme) }

// Repository is the project's repository URL and type.
func (p *Project) Repository() *Repository { return &Repository{URL: p.Repo, Type: p.RepoType} }

// HomepageOrNil is the project's homepage, nil when it has none.
func (p *Project) HomepageOrNil() *string { return orNil(p.Homepage) }

// StateInfo is the build's state with its display name.
func (b *Build) StateInfo() *BuildState {
	return &BuildState{Code: b.State, Name: choices.BuildStates.Name(b.State)}
}

// FinishedSuccess is the build's success once it has finished, nil before
// (v3).
func (b *Build) FinishedSuccess() *bool {
	if b.State != Finished {
		return nil
	}
	ok := b.Success
	return &ok
}

// ErrorOrNil is the build's failure message, nil when there is none.
func (b *Build) ErrorOrNil() *string { return orNil(b.Error) }

// ConfigJSON is the build's stored configuration, as stored.
func (b *Build) ConfigJSON() json.RawMessage { return json.RawMessage(b.Config) }

// RunSeconds is the whole seconds the command ran, nil while it runs.
func (c *BuildCommand) RunSeconds() *int64 {
	if c.EndTime == nil {
		return nil
	}
	n := int64(c.EndTime.Sub(c.StartTime) / time.Second)
	return &n
}

func orNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
