package buildnotify

import (
	"encoding/json"
	"strconv"
	"strings"
)

// DefaultPayload is a new webhook's payload when none is given (Read the
// Docs' default).
const DefaultPayload = `{
  "event": "{{ event }}",
  "name": "{{ project.name }}",
  "slug": "{{ project.slug }}",
  "version": "{{ version.slug }}",
  "commit": "{{ build.commit }}",
  "build": "{{ build.id }}",
  "start_date": "{{ build.start_date }}",
  "build_url": "{{ build.url }}",
  "docs_url": "{{ build.docs_url }}"
}`

// MaxPayloadLength bounds a payload template, in characters (Read the
// Docs' limit).
const MaxPayloadLength = 25000

// MsgPayloadNotJSON refuses a payload that is not a JSON object once its
// variables are substituted.
const MsgPayloadNotJSON = "The payload must be a valid JSON object after its variables are substituted."

// Variables are the values a payload's `{{ name }}` placeholders stand
// for; the names are Read the Docs'.
type Variables struct {
	Event            string
	BuildID          int64
	BuildCommit      string
	BuildURL         string
	BuildDocsURL     string
	BuildStartDate   string // 2006-01-02T15:04:05, UTC, no zone
	OrganizationName string
	OrganizationSlug string
	ProjectSlug      string
	ProjectName      string
	ProjectURL       string
	VersionSlug      string
	VersionName      string
}

// VariableNames lists the substitutions in the order the docs show them.
var VariableNames = []string{"event", "build.id", "build.commit", "build.url", "build.docs_url", "build.start_date",
	"organization.name", "organization.slug", "project.slug", "project.name", "project.url", "version.slug", "version.name"}

func (v Variables) pairs() []string {
	return []string{
		"event", v.Event, "build.id", strconv.FormatInt(v.BuildID, 10), "build.commit", v.BuildCommit,
		"build.url", v.BuildURL, "build.docs_url", v.BuildDocsURL, "build.start_date", v.BuildStartDate,
		"organization.name", v.OrganizationName, "organization.slug", v.OrganizationSlug,
		"project.slug", v.ProjectSlug, "project.name", v.ProjectName, "project.url", v.ProjectURL,
		"version.slug", v.VersionSlug, "version.name", v.VersionName,
	}
}

// maxSubstitutions bounds the replacements of each placeholder form, as
// Read the Docs does.
const maxSubstitutions = 99

// Render substitutes the variables into a payload template: `{{ name }}`
// and `{{name}}`, at most 99 of each. Values are JSON-escaped (without
// quotes), so a placeholder inside a JSON string keeps the payload JSON
// whatever the value holds (a project name with a quote, say).
func Render(template string, v Variables) string {
	p := v.pairs()
	for i := 0; i < len(p); i += 2 {
		val := jsonEscape(p[i+1])
		template = strings.Replace(template, "{{ "+p[i]+" }}", val, maxSubstitutions)
		template = strings.Replace(template, "{{"+p[i]+"}}", val, maxSubstitutions)
	}
	return template
}

func jsonEscape(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// sample are values of every variable, for checking a template.
var sample = Variables{Event: "build:failed", BuildID: 1, BuildCommit: "0123456789abcdef", BuildURL: "https://example.com/b/1/",
	BuildDocsURL: "https://example.com/en/latest/", BuildStartDate: "2026-01-02T03:04:05", ProjectSlug: "project",
	ProjectName: "Project", ProjectURL: "https://example.com/projects/project/", VersionSlug: "latest", VersionName: "latest"}

// IsJSONObject reports whether s is one JSON object.
func IsJSONObject(s string) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal([]byte(s), &m) == nil && m != nil
}

// CheckPayload returns why a payload template cannot be used ("" when it
// can): it must be a JSON object once sample values are substituted.
func CheckPayload(template string) string {
	if !IsJSONObject(Render(template, sample)) {
		return MsgPayloadNotJSON
	}
	return ""
}
