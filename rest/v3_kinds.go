package rest

import (
	"strconv"
	"strings"
)

// A v3Kind describes one v3 resource representation (behavior.md §4): its
// REST keys, the GraphQL selection that fetches each of them, and how the
// fetched data is reshaped where GraphQL can't express the REST form.
// Selections use aliases equal to the REST key names, so most keys are
// copied as fetched.
type v3Kind struct {
	fields []*v3Field
	// helpers are always selected: the ids and slugs _links and the
	// active_versions map are made of. Each is aliased as the REST key that
	// shows the same field, so that when that key is kept the operation
	// asks the field once (GraphQL merges identical selections); when the
	// key is not kept, render leaves the helper out.
	helpers string
	links   func(c v3Ctx, obj map[string]any) map[string]any
}

// A v3Field is one REST key of a kind.
type v3Field struct {
	key string
	// gql selects the key's value; "" when REST computes it (_links, and the
	// project slug of objects nested under a project).
	gql string
	// gqlFn, when set, builds the selection instead of gql (embedded
	// projects, whose selection names fragments).
	gqlFn func(o *v3Op) string
	// value reshapes the fetched value (obj[key]); nil keeps it as fetched.
	value func(c v3Ctx, v any, obj map[string]any) any

	// Expandable fields (behavior.md §3.5).
	expandable   bool
	onlyExpanded bool    // the key is absent unless expanded
	expandKind   *v3Kind // the kind it expands to; nil for a scalar (config)
	expandGQL    string  // selection head when expanded; "" selects nothing
	expanded     func(c v3Ctx, sel *v3Sel, v any, obj map[string]any) any
}

// v3EmbedDepth is how many levels of embedded projects (subproject_of,
// translation_of, subproject child) are fetched below a top-level object.
// The relations of the deepest level render as null: a deeper chain needs a
// parent that is a translation whose main project is itself a subproject,
// and so on, which real data does not reach.
const v3EmbedDepth = 3

// v3Ctx is what rendering needs beyond the fetched data.
type v3Ctx struct {
	links   string // prefix of _links: "" or the public URL (absolute_api_links)
	project string // slug of the project the rendered objects belong to
	get     bool   // the response answers a GET/HEAD (redirect URLs "" → null)
}

func (c v3Ctx) path(parts ...string) string {
	const prefix = "/api/v3/projects/"
	n := len(c.links) + len(prefix)
	for _, p := range parts {
		n += len(p) + 1
	}
	var b strings.Builder // one allocation: _links are written for every listed object
	b.Grow(n)
	b.WriteString(c.links)
	b.WriteString(prefix)
	for _, p := range parts {
		b.WriteString(p)
		b.WriteByte('/')
	}
	return b.String()
}

func (c v3Ctx) withProject(slug string) v3Ctx {
	c.project = slug
	return c
}

// v3Op accumulates what an operation's text needs besides its selections:
// the embedded-project fragments used.
type v3Op struct {
	embedLevels int // fragments V3Embed0 … V3Embed<embedLevels-1> are used
}

// embed names the fragment of an embedded project whose own relations are
// fetched level more times.
func (o *v3Op) embed(level int) string {
	if level+1 > o.embedLevels {
		o.embedLevels = level + 1
	}
	return "...V3Embed" + strconv.Itoa(level)
}

// fragments returns the definitions of the fragments used.
func (o *v3Op) fragments() string {
	var b strings.Builder
	for level := 0; level < o.embedLevels; level++ {
		b.WriteString(" fragment V3Embed")
		b.WriteString(strconv.Itoa(level))
		b.WriteString(" on Project { ")
		b.WriteString(o.sel(v3EmbeddedBase))
		if level > 0 {
			inner := "V3Embed" + strconv.Itoa(level-1)
			b.WriteString(" subproject_of: subprojectOf { ..." + inner + " } translation_of: translationOf { ..." + inner + " }")
		}
		b.WriteString(" }")
	}
	return b.String()
}

// sel returns the GraphQL selection set (without braces) of a selection.
func (o *v3Op) sel(s *v3Sel) string {
	parts := make([]string, 0, len(s.keep)+1)
	for _, f := range s.keep {
		if child, ok := s.exp[f.key]; ok {
			if child.kind == nil {
				if f.expandGQL != "" { // "": REST renders the expansion alone
					parts = append(parts, f.expandGQL)
				}
			} else {
				parts = append(parts, f.expandGQL+" { "+o.sel(child)+" }")
			}
			continue
		}
		switch {
		case f.gqlFn != nil:
			parts = append(parts, f.gqlFn(o))
		case f.gql != "":
			parts = append(parts, f.gql)
		}
	}
	if s.kind.helpers != "" {
		parts = append(parts, s.kind.helpers)
	}
	if len(parts) == 0 {
		return "__typename"
	}
	return strings.Join(parts, " ")
}

// render reshapes one fetched object into its REST representation.
func (c v3Ctx) render(s *v3Sel, obj map[string]any) map[string]any {
	out := make(map[string]any, len(s.keep))
	for _, f := range s.keep {
		switch child, ok := s.exp[f.key]; {
		case f.key == "_links":
			out[f.key] = s.kind.links(c, obj)
		case ok:
			out[f.key] = f.expanded(c, child, obj[f.key], obj)
		case f.value != nil:
			out[f.key] = f.value(c, obj[f.key], obj)
		default:
			out[f.key] = obj[f.key]
		}
	}
	return out
}

// v3Str returns v as a string ("" when it is not one).
func v3Str(v any) string {
	s, _ := v.(string)
	return s
}

// v3Obj returns obj[key] as an object (nil when it is not one).
func v3Obj(obj map[string]any, key string) map[string]any {
	m, _ := obj[key].(map[string]any)
	return m
}

var (
	v3ProjectKind     = &v3Kind{}
	v3VersionKind     = &v3Kind{}
	v3BuildKind       = &v3Kind{}
	v3SubprojectKind  = &v3Kind{}
	v3RedirectKind    = &v3Kind{}
	v3EnvVarKind      = &v3Kind{}
	v3AliasVersion    *v3Sel // a version inside another's aliases
	v3EmbeddedBase    *v3Sel // an embedded project's keys without its relations
	v3EmbeddedProject *v3Sel // an embedded project, relations included
	v3ChildProject    *v3Sel // a subproject's child: no subproject_of key
)

func init() {
	embedded := func(c v3Ctx, v any, _ map[string]any) any {
		obj, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		return c.withProject(v3Str(obj["slug"])).render(v3EmbeddedProject, obj)
	}
	relation := func(key, gqlName string) *v3Field {
		return &v3Field{key: key, gqlFn: func(o *v3Op) string {
			return key + ": " + gqlName + " { " + o.embed(v3EmbedDepth-1) + " }"
		}, value: embedded}
	}

	*v3ProjectKind = v3Kind{
		helpers: "slug",
		links: func(c v3Ctx, obj map[string]any) map[string]any {
			p := v3Str(obj["slug"])
			return map[string]any{
				"_self":                c.path(p),
				"builds":               c.path(p, "builds"),
				"environmentvariables": c.path(p, "environmentvariables"),
				"notifications":        c.path(p, "notifications"),
				"redirects":            c.path(p, "redirects"),
				"subprojects":          c.path(p, "subprojects"),
				"superproject":         c.path(p, "superproject"),
				"sync_versions":        c.path(p, "sync-versions"),
				"translations":         c.path(p, "translations"),
				"versions":             c.path(p, "versions"),
			}
		},
		fields: []*v3Field{
			{key: "_links"},
			{key: "active_versions", expandable: true, onlyExpanded: true, expandKind: v3VersionKind,
				expandGQL: "active_versions: activeVersions",
				expanded: func(c v3Ctx, sel *v3Sel, v any, obj map[string]any) any {
					items, _ := v.([]any)
					c = c.withProject(v3Str(obj["slug"]))
					out := make(map[string]any, len(items))
					for _, it := range items {
						version, _ := it.(map[string]any)
						out[v3Str(version["slug"])] = c.render(sel, version)
					}
					return out
				}},
			{key: "created", gql: "created"},
			{key: "default_branch", gql: "default_branch: defaultBranch"},
			{key: "default_version", gql: "default_version: defaultVersion"},
			{key: "external_builds_privacy_level", gql: "external_builds_privacy_level: externalBuildsPrivacyLevel"},
			{key: "homepage", gql: "homepage"},
			{key: "id", gql: "id: databaseId"},
			{key: "language", gql: "language { code name }"},
			{key: "modified", gql: "modified"},
			{key: "name", gql: "name"},
			// Expansions of api-2026.md §A6 #1 and #2: whether the caller
			// maintains the project, and the organization docsd does not have.
			{key: "organization", expandable: true, onlyExpanded: true,
				expanded: func(v3Ctx, *v3Sel, any, map[string]any) any { return nil }},
			{key: "permissions", expandable: true, onlyExpanded: true, expandGQL: "permissions: viewerIsMaintainer",
				expanded: func(_ v3Ctx, _ *v3Sel, v any, _ map[string]any) any { return map[string]any{"admin": v} }},
			{key: "privacy_level", gql: "privacy_level: privacyLevel"},
			{key: "programming_language", gql: "programming_language: programmingLanguage { code name }"},
			{key: "readthedocs_yaml_path", gql: "readthedocs_yaml_path: readthedocsYamlPath"},
			{key: "repository", gql: "repository { type url }"},
			{key: "single_version", gql: "single_version: singleVersion"},
			{key: "slug", gql: "slug"},
			relation("subproject_of", "subprojectOf"),
			{key: "tags", gql: "tags"},
			relation("translation_of", "translationOf"),
			// urls.downloads is always null (api-2026.md §A1.1).
			{key: "urls", gql: "urls { builds documentation home versions }", value: func(_ v3Ctx, v any, _ map[string]any) any {
				if u, ok := v.(map[string]any); ok {
					u["downloads"] = nil
				}
				return v
			}},
			{key: "users", gql: "users { username }"},
			{key: "versioning_scheme", gql: "versioning_scheme: versioningScheme"},
		},
	}

	*v3VersionKind = v3Kind{
		helpers: "slug",
		links: func(c v3Ctx, obj map[string]any) map[string]any {
			v := v3Str(obj["slug"])
			return map[string]any{
				"_self":   c.path(c.project, "versions", v),
				"builds":  c.path(c.project, "versions", v, "builds"),
				"project": c.path(c.project),
			}
		},
		fields: []*v3Field{
			{key: "_links"},
			{key: "active", gql: "active"},
			// Each alias is a full Version whose own aliases are [] (api-2026.md
			// §A1.2); fields, omit and expand do not apply inside.
			{key: "aliases", gqlFn: func(o *v3Op) string { return "aliases { " + o.sel(v3AliasVersion) + " }" },
				value: func(c v3Ctx, v any, _ map[string]any) any {
					items, _ := v.([]any)
					out := make([]any, 0, len(items))
					for _, it := range items {
						alias, _ := it.(map[string]any)
						obj := c.render(v3AliasVersion, alias)
						obj["aliases"] = []any{}
						out = append(out, obj)
					}
					return out
				}},
			{key: "built", gql: "built"},
			{key: "downloads", gql: "downloads { epub htmlzip pdf }", value: func(_ v3Ctx, v any, _ map[string]any) any {
				out := map[string]any{}
				d, _ := v.(map[string]any)
				for k, url := range d {
					if url != nil {
						out[k] = url
					}
				}
				return out
			}},
			{key: "hidden", gql: "hidden"},
			{key: "id", gql: "id: databaseId"},
			{key: "identifier", gql: "identifier"},
			{key: "last_build", gql: "last_build: lastBuild { id: databaseId }",
				value: func(_ v3Ctx, v any, _ map[string]any) any {
					if b, ok := v.(map[string]any); ok {
						return b["id"]
					}
					return nil
				},
				expandable: true, expandKind: v3BuildKind, expandGQL: "last_build: lastBuild",
				expanded: func(c v3Ctx, sel *v3Sel, v any, _ map[string]any) any {
					b, ok := v.(map[string]any)
					if !ok {
						return nil
					}
					return c.render(sel, b)
				}},
			{key: "privacy_level", gql: "privacy_level: privacyLevel"},
			{key: "ref", gql: "ref"},
			{key: "slug", gql: "slug"},
			{key: "type", gql: "type"},
			{key: "urls", gql: "urls { dashboard { edit } documentation vcs }"},
			{key: "verbose_name", gql: "verbose_name: verboseName"},
		},
	}

	*v3BuildKind = v3Kind{
		helpers: "id: databaseId version: versionSlug",
		links: func(c v3Ctx, obj map[string]any) map[string]any {
			return map[string]any{
				"_self":         c.path(c.project, "builds", v3Text(obj["id"])),
				"notifications": c.path(c.project, "builds", v3Text(obj["id"]), "notifications"),
				"project":       c.path(c.project),
				"version":       c.path(c.project, "versions", v3Str(obj["version"])),
			}
		},
		fields: []*v3Field{
			{key: "_links"},
			{key: "commit", gql: "commit"},
			{key: "config", expandable: true, onlyExpanded: true, expandGQL: "config",
				expanded: func(_ v3Ctx, _ *v3Sel, v any, _ map[string]any) any { return v }},
			{key: "created", gql: "created"},
			{key: "duration", gql: "duration"},
			{key: "error", gql: "error"},
			{key: "finished", gql: "finished"},
			{key: "id", gql: "id: databaseId"},
			{key: "project", value: func(c v3Ctx, _ any, _ map[string]any) any { return c.project }},
			{key: "state", gql: "state { code name }"},
			{key: "success", gql: "success"},
			{key: "urls", gql: "urls { build project version }"},
			{key: "version", gql: "version: versionSlug"},
		},
	}

	*v3SubprojectKind = v3Kind{
		helpers: "alias",
		links: func(c v3Ctx, obj map[string]any) map[string]any {
			return map[string]any{
				"_self":  c.path(c.project, "subprojects", v3Str(obj["alias"])),
				"parent": c.path(c.project),
			}
		},
		fields: []*v3Field{
			{key: "_links"},
			{key: "alias", gql: "alias"},
			{key: "child",
				gqlFn: func(o *v3Op) string {
					return "child { " + o.embed(0) + " translation_of: translationOf { " + o.embed(v3EmbedDepth-1) + " } }"
				},
				value: func(c v3Ctx, v any, _ map[string]any) any {
					obj, ok := v.(map[string]any)
					if !ok {
						return nil
					}
					return c.withProject(v3Str(obj["slug"])).render(v3ChildProject, obj)
				}},
		},
	}

	// Redirect URLs are stored as "" when not given; GET shows them as null
	// (behavior.md §4.6.1).
	redirectURL := func(c v3Ctx, v any, _ map[string]any) any {
		if c.get && v == "" {
			return nil
		}
		return v
	}
	objectLinks := func(collection string) func(c v3Ctx, obj map[string]any) map[string]any {
		return func(c v3Ctx, obj map[string]any) map[string]any {
			return map[string]any{
				"_self":   c.path(c.project, collection, v3Text(obj["pk"])),
				"project": c.path(c.project),
			}
		}
	}
	projectSlug := func(c v3Ctx, _ any, _ map[string]any) any { return c.project }

	*v3RedirectKind = v3Kind{
		helpers: "pk: databaseId",
		links:   objectLinks("redirects"),
		fields: []*v3Field{
			{key: "_links"},
			{key: "created", gql: "created"},
			{key: "description", gql: "description"},
			{key: "enabled", gql: "enabled"},
			{key: "force", gql: "force"},
			{key: "from_url", gql: "from_url: fromUrl", value: redirectURL},
			{key: "http_status", gql: "http_status: httpStatus"},
			{key: "modified", gql: "modified"},
			{key: "pk", gql: "pk: databaseId"},
			{key: "position", gql: "position"},
			{key: "project", value: projectSlug},
			{key: "to_url", gql: "to_url: toUrl", value: redirectURL},
			{key: "type", gql: "type"},
		},
	}

	*v3EnvVarKind = v3Kind{
		helpers: "pk: databaseId",
		links:   objectLinks("environmentvariables"),
		fields: []*v3Field{
			{key: "_links"},
			{key: "created", gql: "created"},
			{key: "modified", gql: "modified"},
			{key: "name", gql: "name"},
			{key: "pk", gql: "pk: databaseId"},
			{key: "project", value: projectSlug},
			{key: "public", gql: "public"},
		},
	}

	v3AliasVersion = v3VersionKind.full().without("aliases")
	v3EmbeddedProject = v3ProjectKind.full()
	v3EmbeddedBase = v3EmbeddedProject.without("subproject_of", "translation_of")
	v3ChildProject = v3EmbeddedProject.without("subproject_of")
}

// v3Text writes a JSON number (or string) as text, for paths.
func v3Text(v any) string {
	switch n := v.(type) {
	case string:
		return n
	case interface{ String() string }:
		return n.String()
	}
	return ""
}
