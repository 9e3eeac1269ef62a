package hosting

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"docsd/store"
)

// addonSchemas restates, per addon docsd enables, what the official
// client's src/data-validation.js (readthedocs/addons 0.49.0) requires of
// the `/_/addons/` answer: a dotted path and
// the JSON type(s) it must have. "?" before a path: checked only when it is
// present (the schema's optional properties).
var addonSchemas = map[string][][2]string{
	"flyout": {
		{"addons", "object"}, {"projects", "object"}, {"versions", "object"}, {"readthedocs", "object"},
		{"addons.flyout.enabled", "boolean"},
		{"projects.current.slug", "string"}, {"projects.current.urls.home", "string"}, {"projects.current.urls.builds", "string"},
		{"projects.current.versioning_scheme", "enum:multiple_versions_with_translations,multiple_versions_without_translations,single_version_without_translations"},
		{"projects.translations", "array"},
		{"versions.current.slug", "string"}, {"versions.current.downloads", "object"},
		{"versions.active", "array"},
		{"readthedocs.resolver.filename", "string|null"},
	},
	"notifications": {
		{"addons", "object"}, {"readthedocs", "object"}, {"addons.notifications", "object"},
		{"builds.current", "object|null"}, {"?builds.current.urls.build", "string"},
		{"?projects.current.slug", "string"},
		{"?projects.current.versioning_scheme", "enum:multiple_versions_with_translations,multiple_versions_without_translations,single_version_without_translations"},
		{"?projects.current.repository.url", "string"}, {"?projects.current.language.code", "string"},
		{"versions.current.slug", "string"}, {"versions.current.urls.documentation", "string"}, {"versions.current.urls.vcs", "string"},
		{"versions.current.type", "enum:branch,tag,external"}, {"versions.current.aliases", "array"},
		{"versions.active", "array"},
		{"readthedocs.resolver.filename", "string|null"},
	},
	"search": {
		{"addons.search.enabled", "boolean"}, {"addons.search.default_filter", "string"}, {"addons.search.filters", "array"},
		{"projects.current.slug", "string"},
	},
	"hotkeys": {
		{"addons.hotkeys.enabled", "boolean"}, {"addons.hotkeys.doc_diff.enabled", "boolean"}, {"addons.hotkeys.doc_diff.trigger", "string"},
		{"addons.hotkeys.search.enabled", "boolean"}, {"addons.hotkeys.search.trigger", "string"},
	},
}

// jsonType names the JSON type of v as JSON Schema does.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case float64:
		return "number"
	case []any:
		return "array"
	}
	return "object"
}

// lookup follows a dotted path; ok is false when a step is missing.
func lookup(data any, path string) (v any, ok bool) {
	v = data
	for _, p := range strings.Split(path, ".") {
		m, isObj := v.(map[string]any)
		if !isObj {
			return nil, false
		}
		if v, ok = m[p]; !ok {
			return nil, false
		}
	}
	return v, true
}

// schemaErrors lists the rules of addon that data breaks.
func schemaErrors(data any, addon string) []string {
	var out []string
	for _, rule := range addonSchemas[addon] {
		path, want := rule[0], rule[1]
		optional := strings.HasPrefix(path, "?")
		path = strings.TrimPrefix(path, "?")
		v, ok := lookup(data, path)
		if !ok {
			if !optional {
				out = append(out, path+" missing")
			}
			continue
		}
		if values, isEnum := strings.CutPrefix(want, "enum:"); isEnum {
			if s, _ := v.(string); !slices.Contains(strings.Split(values, ","), s) {
				out = append(out, path+" not one of "+values)
			}
			continue
		}
		if !slices.Contains(strings.Split(want, "|"), jsonType(v)) {
			out = append(out, path+" is "+jsonType(v)+", want "+want)
		}
	}
	return out
}

// TestAddonsSatisfyOfficialSchemas checks that every answer a page with the
// injected client gets passes the official client's schemas of the addons
// docsd enables, and that those addons are enabled.
func TestAddonsSatisfyOfficialSchemas(t *testing.T) {
	f := newFixture(t, store.SQLite)
	newReaderWorld(f)
	one := f.project("one", "en")
	single := true
	f.update(one, store.ProjectUpdate{SingleVersion: &single})
	yes := true
	f.updateVersion(f.version(one, "latest"), store.VersionUpdate{Built: &yes})
	external := store.External
	f.updateVersion(f.version(f.mustProject("demo"), "12"), store.VersionUpdate{Type: &external, Built: &yes})

	pages := []string{
		"project-slug=demo&version-slug=v1.0",
		"project-slug=demo&version-slug=latest",
		"project-slug=demo&version-slug=stable",
		"project-slug=demo-es&version-slug=latest",
		"project-slug=lib&version-slug=1.0",
		"project-slug=one&version-slug=latest",
		"project-slug=demo&version-slug=12",
		"url=https%3A%2F%2Fdocs.example.com%2Fdocs%2Fdemo%2Fen%2Fv1.1%2Fguide%2F",
	}
	for _, q := range pages {
		t.Run(q, func(t *testing.T) {
			resp := f.get("https://docs.example.com/_/addons/?api-version=1&client-version=0.49.0&" + q)
			var data any
			if err := json.Unmarshal([]byte(body(t, resp)), &data); err != nil || resp.StatusCode != 200 {
				t.Fatalf("status %d, %v", resp.StatusCode, err)
			}
			for addon := range addonSchemas {
				if enabled, _ := lookup(data, "addons."+addon+".enabled"); enabled != true {
					t.Errorf("%s is not enabled", addon)
				}
				if errs := schemaErrors(data, addon); len(errs) > 0 {
					t.Errorf("%s schema: %v", addon, errs)
				}
			}
			for _, off := range []string{"analytics", "customscript", "linkpreviews", "filetreediff"} {
				if enabled, _ := lookup(data, "addons."+off+".enabled"); enabled != false {
					t.Errorf("%s enabled = %v, want false", off, enabled)
				}
			}
			if _, has := lookup(data, "addons.ethicalads"); has {
				t.Errorf("ethicalads present")
			}
		})
	}
	// The validator itself catches what it must.
	bad := map[string]any{"addons": map[string]any{"search": map[string]any{"enabled": true, "default_filter": 3, "filters": []any{}}}}
	if errs := schemaErrors(bad, "search"); len(errs) != 2 {
		t.Errorf("validator on a bad answer: %v", errs)
	}
}

func (f *fixture) mustProject(slug string) *store.Project {
	f.t.Helper()
	p, err := f.s.FindProjectBySlug(f.t.Context(), slug)
	if err != nil {
		f.t.Fatal(err)
	}
	return p
}
