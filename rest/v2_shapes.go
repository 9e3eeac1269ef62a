package rest

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// The v2 representations (behavior.md §5.2–§5.4). Each is asked of the graph
// with a fragment whose aliases are the v2 key names, and decoded into a
// struct whose fields are declared in wire order: v2 keys are not sorted
// (§3.1), and encoding/json writes struct fields in declaration order. The
// few v2 keys that the graph does not have (`setup`, `output`, …) are
// constants filled in by the zero values of the struct.

// v2ProjectFragment selects a v2 Project (§5.2).
const v2ProjectFragment = `
fragment v2Project on Project {
  id: databaseId
  name
  slug
  programming_language: programmingLanguage { code }
  default_version: defaultVersion
  default_branch: storedDefaultBranch
  repo_type: repository { type }
  repo: repository { url }
  description
  language { code }
  documentation_type: documentationType
  canonical_url: canonicalUrl
  users { id: databaseId }
}`

// v2Project is a v2 Project, keys in the order of §5.2.
type v2Project struct {
	ID                  int64           `json:"id"`
	Name                string          `json:"name"`
	Slug                string          `json:"slug"`
	ProgrammingLanguage v2Only[string]  `json:"programming_language"`
	DefaultVersion      string          `json:"default_version"`
	DefaultBranch       *string         `json:"default_branch"` // raw stored value, null when unset
	RepoType            v2Only[string]  `json:"repo_type"`
	Repo                v2Only[string]  `json:"repo"`
	Description         string          `json:"description"`
	Language            v2Only[string]  `json:"language"`
	DocumentationType   string          `json:"documentation_type"`
	CanonicalURL        string          `json:"canonical_url"`
	Users               []v2Only[int64] `json:"users"`         // maintainer ids
	CustomPrefix        *string         `json:"custom_prefix"` // always null (api-2026.md §A1.6)
}

// v2VersionFragment selects a v2 Version (§5.3); it needs v2ProjectFragment.
const v2VersionFragment = `
fragment v2Version on Version {
  id: databaseId
  slug
  verbose_name: verboseName
  built
  active
  type
  identifier
  privacy_level: privacyLevel
  downloads { pdf htmlzip epub }
  project { ...v2Project }
  has_pdf: hasPdf
  has_epub: hasEpub
  has_htmlzip: hasHtmlzip
  documentation_type: documentationType
}` + v2ProjectFragment

// v2Version is a v2 Version, keys in the order of §5.3.
type v2Version struct {
	ID           int64       `json:"id"`
	Slug         string      `json:"slug"`
	VerboseName  string      `json:"verbose_name"`
	Built        bool        `json:"built"`
	Active       bool        `json:"active"`
	Type         string      `json:"type"`
	Identifier   string      `json:"identifier"`
	PrivacyLevel string      `json:"privacy_level"`
	Downloads    v2Downloads `json:"downloads"`
	Project      v2Project   `json:"project"`
	HasPDF       bool        `json:"has_pdf"`
	HasEPUB      bool        `json:"has_epub"`
	HasHTMLZip   bool        `json:"has_htmlzip"`
	// Added keys (api-2026.md §A1.6).
	DocumentationType string `json:"documentation_type"`
}

// v2Downloads has a key only for each format that exists; the graph gives
// null for the others, which decodes to "" and is omitted.
type v2Downloads struct {
	PDF     string `json:"pdf,omitempty"`
	HTMLZip string `json:"htmlzip,omitempty"`
	EPUB    string `json:"epub,omitempty"`
}

// v2BuildFragment selects a v2 Build with its commands (§5.4).
const v2BuildFragment = `
fragment v2Build on Build {
  id: databaseId
  date: created
  length: duration
  type
  state { code }
  success: storedSuccess
  error
  commit
  docs_url: docsUrl
  project { id: databaseId slug }
  version { id: databaseId }
  version_slug: versionSlug
  commands {
    id
    build: buildId
    description
    command
    exit_code: exitCode
    run_time: runTime
    output
    start_time: startTime
    end_time: endTime
  }
  state_display: state { name }
  commit_url: commitUrl
  config
  exit_code: exitCode
  version_name: versionName
  version_type: versionType
  readthedocs_yaml_path: readthedocsYamlPath
}`

// v2Build is a v2 Build, keys in the order of §5.4.
type v2Build struct {
	ID           int64          `json:"id"`
	Date         v2Time         `json:"date"`
	Length       *int64         `json:"length"`
	Type         string         `json:"type"`
	State        v2Only[string] `json:"state"`
	Success      bool           `json:"success"` // the stored flag
	Error        string         `json:"error"`   // the graph's null decodes to ""
	Commit       *string        `json:"commit"`
	DocsURL      string         `json:"docs_url"`
	Project      v2ProjectRef   `json:"project"`
	ProjectSlug  string         `json:"project_slug"` // from the project read for Project
	Version      v2Only[int64]  `json:"version"`
	VersionSlug  string         `json:"version_slug"`
	Commands     []v2Command    `json:"commands"`
	StateDisplay v2Only[string] `json:"state_display"`
	CommitURL    *string        `json:"commit_url"`
	Config       v2Config       `json:"config"`
	Setup        string         `json:"setup"`        // always ""
	SetupError   string         `json:"setup_error"`  // always ""
	Output       string         `json:"output"`       // always ""
	ExitCode     *int64         `json:"exit_code"`    // null until finished
	ColdStorage  *bool          `json:"cold_storage"` // always null
	// Added keys (api-2026.md §A1.6).
	VersionName         string  `json:"version_name"`
	VersionType         string  `json:"version_type"`
	ReadthedocsYamlPath *string `json:"readthedocs_yaml_path"`
}

// UnmarshalJSON decodes a build and fills ProjectSlug from its project,
// which the operation reads once for both keys.
func (b *v2Build) UnmarshalJSON(data []byte) error {
	type plain v2Build
	if err := json.Unmarshal(data, (*plain)(b)); err != nil {
		return err
	}
	b.ProjectSlug = b.Project.Slug
	return nil
}

// v2ProjectRef is a build's project as read ({id, slug}), written as its id.
type v2ProjectRef struct {
	ID   int64  `json:"id"`
	Slug string `json:"slug"`
}

func (p v2ProjectRef) MarshalJSON() ([]byte, error) { return strconv.AppendInt(nil, p.ID, 10), nil }

// v2Command is a v2 build command, keys in the order of §5.4.
type v2Command struct {
	ID          int64   `json:"id"`
	Build       int64   `json:"build"`
	Description string  `json:"description"`
	Command     string  `json:"command"`
	ExitCode    *int64  `json:"exit_code"`
	RunTime     *int64  `json:"run_time"`
	Output      string  `json:"output"`
	StartTime   v2Time  `json:"start_time"`
	EndTime     *v2Time `json:"end_time"`
}

// v2Time is a datetime as v2 writes it: the graph's UTC form without the
// `Z` (behavior.md §3.2), e.g. `2019-04-29T10:00:00.512000`.
type v2Time string

func (t *v2Time) UnmarshalJSON(b []byte) error {
	v, err := decodeJSON(b)
	if err == nil && v == nil { // null, as encoding/json: no time
		*t = ""
		return nil
	}
	s, ok := v.(string)
	if err != nil || !ok {
		return fmt.Errorf("rest: v2 wants a time string, got %s", b)
	}
	*t = v2Time(strings.TrimSuffix(s, "Z"))
	return nil
}

// v2Only is a GraphQL object of which one field was selected, written as
// that field's value: `state { code }` is written as `"finished"`, each of
// `users { id: databaseId }` as an integer.
type v2Only[T any] struct{ value T }

func (o *v2Only[T]) UnmarshalJSON(b []byte) error {
	obj, err := decodeObject(b)
	if err != nil {
		return err
	}
	if len(obj) != 1 {
		return fmt.Errorf("rest: v2 wants an object with one field, got %s", b)
	}
	for _, v := range obj {
		switch dst := any(&o.value).(type) {
		case *string:
			if s, ok := v.(string); ok {
				*dst = s
				return nil
			}
		case *int64:
			if n, ok := v.(json.Number); ok {
				*dst, err = n.Int64()
				return err
			}
		}
		raw, err := marshal(v) // any other type, through encoding/json
		if err != nil {
			return err
		}
		return json.Unmarshal(raw, &o.value)
	}
	return nil
}

func (o v2Only[T]) MarshalJSON() ([]byte, error) { return marshal(o.value) }

// v2Config is a stored build configuration, written with its keys sorted at
// every level and its numbers in their stored form (behavior.md §3.1).
type v2Config json.RawMessage

func (c *v2Config) UnmarshalJSON(b []byte) error {
	v, err := decodeJSON(b) // numbers as json.Number: their stored form
	if err != nil {
		return err
	}
	sorted, err := marshal(v) // maps are written with sorted keys
	*c = sorted
	return err
}

func (c v2Config) MarshalJSON() ([]byte, error) {
	if len(c) == 0 {
		return []byte("{}"), nil
	}
	return c, nil
}

// v2Envelope is a v2 list (behavior.md §3.4). The graph fills count and
// results (aliases of totalCount and nodes); the handler adds the links.
type v2Envelope[T any] struct {
	Count    int     `json:"count"`
	Next     *string `json:"next"`
	Previous *string `json:"previous"`
	Results  []T     `json:"results"`
}
