package rest

import (
	"strconv"
	"strings"

	"docsd/internal/choices"
	"docsd/internal/docsurl"
)

// A v3Kind describes one v3 resource representation: its REST keys, the
// GraphQL selection that fetches each of them, and how the fetched data is
// reshaped where GraphQL can't express the REST form. Selections use
// aliases equal to the REST key names, so most keys are copied as fetched.
type v3Kind struct {
	fields []*v3Field
	// helpers are always selected: the ids and slugs _links and the
	// active_versions map are made of. Each is aliased as the REST key that
	// shows the same field, so that when that key is kept the operation
	// asks the field once (GraphQL merges identical selections); when the
	// key is not kept, the object's write leaves the helper out. (The
	// notification helpers _id, _on, _to have no REST key of their own.)
	helpers string
	// links writes the object's _links.
	links func(c v3Ctx, w *jwriter, obj int)
}

// A v3Field is one REST key of a kind.
type v3Field struct {
	key string
	// gql selects the key's value; "" when REST computes it (_links, and the
	// project slug of objects nested under a project). A key that REST
	// derives from other values, with the function the graph's resolver
	// uses (each field the executor resolves costs), selects what
	// it is derived from, aliased as that value's own REST key if it has
	// one, and its value reads it from obj.
	gql string
	// gqlFn, when set, builds the selection instead of gql (embedded
	// projects, whose selection names fragments).
	gqlFn func(o *v3Op) string
	// value writes the fetched value v (obj's member key) reshaped; nil
	// writes it as fetched.
	value func(c v3Ctx, w *jwriter, v, obj int)

	// Expandable fields: named in `expand`, they are replaced by the
	// object they refer to (or added, when onlyExpanded).
	expandable   bool
	onlyExpanded bool    // the key is absent unless expanded
	expandKind   *v3Kind // the kind it expands to; nil for a scalar (config)
	expandGQL    string  // selection head when expanded; "" selects nothing
	expanded     func(c v3Ctx, w *jwriter, sel *v3Sel, v, obj int)
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
	// urls is the graph's URL configuration (graph.Executor.URLs). A URL
	// that REST writes from values it fetched, instead of selecting it, is
	// made with it by the docsurl function the graph's resolver calls.
	urls docsurl.Config
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

// write writes one fetched object (node obj of w's document; none or not
// an object reads as an object without members) in its REST
// representation: the kept keys in their (sorted) order, each reshaped
// where GraphQL can't express it.
func (c v3Ctx) write(w *jwriter, s *v3Sel, obj int) {
	d := w.d
	w.byte('{')
	// The fetched members come in the selection's order, which is the
	// order of s.keep: each is looked for first where the last one ended.
	hint, end := obj+1, obj+1
	if d.isObject(obj) {
		end = int(d.nodes[obj].after)
	}
	for i, f := range s.keep {
		if i > 0 {
			w.byte(',')
		}
		w.key(f.key)
		v := none
		if hint < end && d.keyIs(hint, f.key) {
			v, hint = hint, int(d.nodes[hint].after)
		} else if v = d.field(obj, f.key); v != none {
			hint = int(d.nodes[v].after)
		}
		switch child, ok := s.exp[f.key]; {
		case f.key == "_links":
			s.kind.links(c, w, obj)
		case ok:
			f.expanded(c, w, child, v, obj)
		case f.value != nil:
			f.value(c, w, v, obj)
		default:
			w.value(v)
		}
	}
	w.byte('}')
}

// rendered returns object obj of d written by write, for a larger answer
// built by marshal.
func (c v3Ctx) rendered(s *v3Sel, d *jdoc, obj int) rawJSON {
	w := &jwriter{d: d}
	c.write(w, s, obj)
	return w.result()
}

// writeLinks writes an object of links: names[i] to the path of parts[i].
func (c v3Ctx) writeLinks(w *jwriter, names []string, parts ...[][]byte) {
	w.byte('{')
	for i, name := range names {
		if i > 0 {
			w.byte(',')
		}
		w.key(name)
		w.path(c.links, parts[i]...)
	}
	w.byte('}')
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
	embedded := func(c v3Ctx, w *jwriter, v, _ int) {
		if !w.d.isObject(v) {
			w.raw("null")
			return
		}
		c.withProject(w.d.str(w.d.field(v, "slug"))).write(w, v3EmbeddedProject, v)
	}
	relation := func(key, gqlName string) *v3Field {
		return &v3Field{key: key, gqlFn: func(o *v3Op) string {
			return key + ": " + gqlName + " { " + o.embed(v3EmbedDepth-1) + " }"
		}, value: embedded}
	}

	*v3ProjectKind = v3Kind{
		helpers: "slug",
		links: func(c v3Ctx, w *jwriter, obj int) {
			p := w.d.strText(w.d.field(obj, "slug"))
			c.writeLinks(w, v3ProjectLinks, [][]byte{p}, [][]byte{p, v3Builds}, [][]byte{p, []byte("environmentvariables")},
				[][]byte{p, []byte("notifications")}, [][]byte{p, []byte("redirects")}, [][]byte{p, []byte("subprojects")},
				[][]byte{p, []byte("superproject")}, [][]byte{p, []byte("sync-versions")}, [][]byte{p, []byte("translations")},
				[][]byte{p, v3Versions})
		},
		fields: []*v3Field{
			{key: "_links"},
			{key: "active_versions", expandable: true, onlyExpanded: true, expandKind: v3VersionKind,
				expandGQL: "active_versions: activeVersions",
				expanded: func(c v3Ctx, w *jwriter, sel *v3Sel, v, obj int) {
					// An object keyed by slug, in slug order; a repeated slug
					// keeps its last version.
					d := w.d
					c = c.withProject(d.str(d.field(obj, "slug")))
					var items []jmember
					if d.kind(v) == '[' {
						for it, end := d.members(v); it < end; it = d.next(it) {
							items = append(items, jmember{d.strText(d.field(it, "slug")), it})
						}
					}
					w.byte('{')
					first := true
					for _, it := range sortMembers(items) {
						w.comma(&first)
						w.strBytes(it.key)
						w.byte(':')
						c.write(w, sel, it.node)
					}
					w.byte('}')
				}},
			{key: "created", gql: "created"},
			{key: "default_branch", gql: "default_branch: defaultBranch"},
			{key: "default_version", gql: "default_version: defaultVersion"},
			{key: "external_builds_privacy_level", gql: "external_builds_privacy_level: externalBuildsPrivacyLevel"},
			{key: "homepage", gql: "homepage"},
			{key: "id", gql: "id: databaseId"},
			{key: "language", gql: "language { code }", value: choiceValue(choices.Languages)},
			{key: "modified", gql: "modified"},
			{key: "name", gql: "name"},
			// Expansions Read the Docs added: whether the caller maintains
			// the project, and its organization (its slug and links only,
			// so that a public project leaks nothing of it).
			{key: "organization", expandable: true, onlyExpanded: true, expandGQL: "organization: organizationSlug",
				expanded: func(c v3Ctx, w *jwriter, _ *v3Sel, v, _ int) {
					if w.d.kind(v) != '"' {
						w.raw("null")
						return
					}
					w.raw(`{"_links":`)
					c.writeOrganizationLinks(w, w.d.str(v))
					w.raw(`,"slug":`)
					w.value(v)
					w.byte('}')
				}},
			{key: "permissions", expandable: true, onlyExpanded: true, expandGQL: "permissions: viewerIsMaintainer",
				expanded: func(_ v3Ctx, w *jwriter, _ *v3Sel, v, _ int) {
					w.raw(`{"admin":`)
					w.value(v)
					w.byte('}')
				}},
			{key: "privacy_level", gql: "privacy_level: privacyLevel"},
			{key: "programming_language", gql: "programming_language: programmingLanguage { code }",
				value: choiceValue(choices.ProgrammingLanguages)},
			{key: "readthedocs_yaml_path", gql: "readthedocs_yaml_path: readthedocsYamlPath"},
			{key: "repository", gql: "repository { type url }"},
			// single_version is written from versioning_scheme by the rule the
			// graph's singleVersion resolves with (store.Project.SingleVersion).
			// When both keys are kept the operation asks versioningScheme once.
			{key: "single_version", gql: "versioning_scheme: versioningScheme", value: func(_ v3Ctx, w *jwriter, _, obj int) {
				scheme := w.d.field(obj, "versioning_scheme")
				if w.d.kind(scheme) != '"' {
					w.value(scheme)
					return
				}
				w.raw(strconv.FormatBool(choices.IsSingleVersion(string(w.d.strText(scheme)))))
			}},
			{key: "slug", gql: "slug"},
			relation("subproject_of", "subprojectOf"),
			{key: "tags", gql: "tags"},
			// teams (docsd): the teams including the project that the
			// caller may see.
			{key: "teams", expandable: true, onlyExpanded: true, expandKind: v3TeamKind, expandGQL: "teams",
				expanded: func(c v3Ctx, w *jwriter, sel *v3Sel, v, _ int) {
					writeList(w, v, func(it int) { c.write(w, sel, it) })
				}},
			relation("translation_of", "translationOf"),
			// urls is written from the project's docs URL and slug: canonicalUrl
			// is ProjectUrls.documentation (both resolve with the graph's
			// projectDocsURL), and the dashboard links are made by the docsurl
			// functions ProjectView.Urls calls. urls.downloads is always null,
			// as on Read the Docs.
			{key: "urls", gql: "urls: canonicalUrl", value: func(c v3Ctx, w *jwriter, v, obj int) {
				if w.d.kind(v) != '"' {
					w.value(v)
					return
				}
				slug := w.d.str(w.d.field(obj, "slug"))
				w.raw(`{"builds":`)
				w.str(c.urls.ProjectBuilds(slug))
				w.raw(`,"documentation":`)
				w.value(v)
				w.raw(`,"downloads":null,"home":`)
				w.str(c.urls.ProjectHome(slug))
				w.raw(`,"versions":`)
				w.str(c.urls.ProjectVersions(slug))
				w.byte('}')
			}},
			{key: "users", gql: "users { username }"},
			{key: "versioning_scheme", gql: "versioning_scheme: versioningScheme"},
		},
	}

	*v3VersionKind = v3Kind{
		helpers: "slug",
		links: func(c v3Ctx, w *jwriter, obj int) {
			p, v := []byte(c.project), w.d.strText(w.d.field(obj, "slug"))
			c.writeLinks(w, v3VersionLinks, [][]byte{p, v3Versions, v}, [][]byte{p, v3Versions, v, v3Builds}, [][]byte{p})
		},
		fields: []*v3Field{
			{key: "_links"},
			{key: "active", gql: "active"},
			// Each alias is a full Version whose own aliases are []; fields,
			// omit and expand do not apply inside.
			{key: "aliases", gqlFn: func(o *v3Op) string { return "aliases { " + o.sel(v3AliasVersion) + " }" },
				value: func(c v3Ctx, w *jwriter, v, _ int) {
					w.byte('[')
					first := true
					if w.d.kind(v) == '[' {
						for alias, end := w.d.members(v); alias < end; alias = w.d.next(alias) {
							w.comma(&first)
							c.write(w, v3AliasVersion, alias)
						}
					}
					w.byte(']')
				}},
			{key: "built", gql: "built"},
			{key: "downloads", gql: "downloads { epub htmlzip pdf }", value: func(_ v3Ctx, w *jwriter, v, _ int) {
				if !w.d.isObject(v) {
					w.raw("{}")
					return
				}
				w.object(v, true, "", "") // formats that exist only
			}},
			{key: "hidden", gql: "hidden"},
			{key: "id", gql: "id: databaseId"},
			{key: "identifier", gql: "identifier"},
			{key: "last_build", gql: "last_build: lastBuild { id: databaseId }",
				value:      func(_ v3Ctx, w *jwriter, v, _ int) { w.value(w.d.field(v, "id")) },
				expandable: true, expandKind: v3BuildKind, expandGQL: "last_build: lastBuild",
				expanded: func(c v3Ctx, w *jwriter, sel *v3Sel, v, _ int) {
					if !w.d.isObject(v) {
						w.raw("null")
						return
					}
					c.write(w, sel, v)
				}},
			{key: "privacy_level", gql: "privacy_level: privacyLevel"},
			{key: "ref", gql: "ref"},
			{key: "slug", gql: "slug"},
			{key: "type", gql: "type"},
			// urls.dashboard.edit is written from the project's and the
			// version's slugs by the docsurl function VersionView.Urls calls.
			{key: "urls", gql: "urls { documentation vcs }", value: func(c v3Ctx, w *jwriter, v, obj int) {
				if !w.d.isObject(v) {
					w.value(v)
					return
				}
				w.raw(`{"dashboard":{"edit":`)
				w.str(c.urls.VersionPage(c.project, w.d.str(w.d.field(obj, "slug"))))
				w.raw(`},"documentation":`)
				w.value(w.d.field(v, "documentation"))
				w.raw(`,"vcs":`)
				w.value(w.d.field(v, "vcs"))
				w.byte('}')
			}},
			{key: "verbose_name", gql: "verbose_name: verboseName"},
		},
	}

	*v3BuildKind = v3Kind{
		helpers: "id: databaseId version: versionSlug",
		links: func(c v3Ctx, w *jwriter, obj int) {
			p, id := []byte(c.project), w.d.text(w.d.field(obj, "id"))
			c.writeLinks(w, v3BuildLinks, [][]byte{p, v3Builds, id}, [][]byte{p, v3Builds, id, []byte("notifications")},
				[][]byte{p}, [][]byte{p, v3Versions, w.d.strText(w.d.field(obj, "version"))})
		},
		fields: []*v3Field{
			{key: "_links"},
			{key: "commit", gql: "commit"},
			{key: "config", expandable: true, onlyExpanded: true, expandGQL: "config",
				expanded: func(_ v3Ctx, w *jwriter, _ *v3Sel, v, _ int) { w.value(v) }},
			{key: "created", gql: "created"},
			{key: "duration", gql: "duration"},
			{key: "error", gql: "error"},
			{key: "finished", gql: "finished"},
			{key: "id", gql: "id: databaseId"},
			{key: "project", value: func(c v3Ctx, w *jwriter, _, _ int) { w.str(c.project) }},
			{key: "state", gql: "state { code }", value: choiceValue(choices.BuildStates)},
			{key: "success", gql: "success"},
			// urls is written from the project's slug and the build's id and
			// version slug (the helpers) by the docsurl functions
			// BuildView.Urls calls.
			{key: "urls", value: func(c v3Ctx, w *jwriter, _, obj int) {
				d := w.d
				id, err := strconv.ParseInt(string(d.text(d.field(obj, "id"))), 10, 64)
				if err != nil { // not reached: the helpers select the id
					w.raw("null")
					return
				}
				w.raw(`{"build":`)
				w.str(c.urls.BuildPage(c.project, id))
				w.raw(`,"project":`)
				w.str(c.urls.ProjectHome(c.project))
				w.raw(`,"version":`)
				w.str(c.urls.VersionPage(c.project, d.str(d.field(obj, "version"))))
				w.byte('}')
			}},
			{key: "version", gql: "version: versionSlug"},
		},
	}

	*v3SubprojectKind = v3Kind{
		helpers: "alias",
		links: func(c v3Ctx, w *jwriter, obj int) {
			p := []byte(c.project)
			c.writeLinks(w, []string{"_self", "parent"}, [][]byte{p, []byte("subprojects"), w.d.strText(w.d.field(obj, "alias"))}, [][]byte{p})
		},
		fields: []*v3Field{
			{key: "_links"},
			{key: "alias", gql: "alias"},
			{key: "child",
				gqlFn: func(o *v3Op) string {
					return "child { " + o.embed(0) + " translation_of: translationOf { " + o.embed(v3EmbedDepth-1) + " } }"
				},
				value: func(c v3Ctx, w *jwriter, v, _ int) {
					if !w.d.isObject(v) {
						w.raw("null")
						return
					}
					c.withProject(w.d.str(w.d.field(v, "slug"))).write(w, v3ChildProject, v)
				}},
		},
	}

	// Redirect URLs are stored as "" when not given; GET shows them as
	// null, writes as "" (Read the Docs' answers).
	redirectURL := func(c v3Ctx, w *jwriter, v, _ int) {
		if c.get && w.d.kind(v) == '"' && w.d.str(v) == "" {
			w.raw("null")
			return
		}
		w.value(v)
	}
	objectLinks := func(collection string) func(c v3Ctx, w *jwriter, obj int) {
		return func(c v3Ctx, w *jwriter, obj int) {
			p := []byte(c.project)
			c.writeLinks(w, []string{"_self", "project"}, [][]byte{p, []byte(collection), w.d.text(w.d.field(obj, "pk"))}, [][]byte{p})
		}
	}
	projectSlug := func(c v3Ctx, w *jwriter, _, _ int) { w.str(c.project) }

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

	// An alias shows aliases as [] whatever it has: nothing is fetched.
	v3AliasVersion = v3VersionKind.full().replacing(&v3Field{key: "aliases",
		value: func(_ v3Ctx, w *jwriter, _, _ int) { w.raw("[]") }})
	v3EmbeddedProject = v3ProjectKind.full()
	v3EmbeddedBase = v3EmbeddedProject.without("subproject_of", "translation_of")
	v3ChildProject = v3EmbeddedProject.without("subproject_of")
}

// choiceValue writes a Choice (or BuildState) fetched as `{ code }` as the
// graph writes it with its name: `{"code":…,"name":…}`, the name from t,
// the table the graph's resolver names the code with
// (store.Project.LanguageChoice, ProgrammingLanguageChoice,
// store.Build.StateInfo). Asking the code alone saves the executor a field
// per object.
func choiceValue(t choices.Table) func(c v3Ctx, w *jwriter, v, obj int) {
	return func(_ v3Ctx, w *jwriter, v, _ int) {
		code := w.d.field(v, "code")
		if w.d.kind(code) != '"' {
			w.value(v)
			return
		}
		w.raw(`{"code":`)
		w.value(code)
		w.raw(`,"name":`)
		w.str(t.Name(string(w.d.strText(code))))
		w.byte('}')
	}
}

// The names of _links, in key order, and path parts they share.
var (
	v3ProjectLinks = []string{"_self", "builds", "environmentvariables", "notifications", "redirects",
		"subprojects", "superproject", "sync_versions", "translations", "versions"}
	v3VersionLinks = []string{"_self", "builds", "project"}
	v3BuildLinks   = []string{"_self", "notifications", "project", "version"}
	v3Builds       = []byte("builds")
	v3Versions     = []byte("versions")
)
