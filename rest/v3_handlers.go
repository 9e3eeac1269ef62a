package rest

import (
	"net/http"
	"strconv"
	"strings"

	"docsd/graph"
	"docsd/internal/errs"
)

// Expansions each route permits in `expand`.
var (
	v3ProjectExpands = []string{"active_versions", "active_versions.last_build", "active_versions.last_build.config", "organization", "permissions", "teams"}
	v3VersionExpands = []string{"last_build", "last_build.config"}
	v3BuildExpands   = []string{"config"}
)

// v3MethodOrder is the order of methods in `Allow`; HEAD and OPTIONS
// follow the mapped ones.
var v3MethodOrder = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// v3Routes lists the routes of /api/v3/ with their handlers.
func (s *Server) v3Routes() []*v3Route {
	const p = "/api/v3/projects/{project:[^/.]+}/"
	const v = p + "versions/{version:[^/]+}/"
	type h = map[string]func(q *v3Req)
	routes := []*v3Route{
		{path: "/api/v3/", name: "API Root", desc: "The entry points of API v3.", rule: v3Open,
			methods: h{"GET": s.v3Root}},
		{path: "/api/v3/projects/", name: "Projects List", desc: "The caller's projects; POST imports a project.", rule: v3AnyUser,
			methods: h{"GET": s.v3ProjectList, "POST": s.v3ProjectImport}},
		{path: p, name: "Project Instance", desc: "A project; PUT and PATCH update it.", rule: v3AnyUser, detail: true,
			methods:          h{"GET": s.v3ProjectDetail, "PUT": s.v3ProjectUpdate(true), "PATCH": s.v3ProjectUpdate(false)},
			maintainerWrites: []string{http.MethodPut, http.MethodPatch}},
		{path: p + "superproject/", name: "Superproject", desc: "The project this one is a subproject of.", rule: v3AnyUser, detail: true,
			methods: h{"GET": s.v3Superproject}},
		{path: p + "versions/", name: "Versions List", desc: "The project's versions.", rule: v3PublicDetail, readerLists: true,
			methods: h{"GET": s.v3VersionList}},
		{path: v, name: "Version Instance", desc: "A version; PUT and PATCH set its active, hidden and privacy_level fields.", rule: v3PublicDetail, detail: true,
			methods: h{"GET": s.v3VersionDetail, "PUT": s.v3VersionUpdate(true), "PATCH": s.v3VersionUpdate(false)}},
		{path: v + "builds/", name: "Version Builds List", desc: "The version's builds; POST triggers a build.", rule: v3PublicDetail, readerLists: true,
			methods: h{"GET": s.v3VersionBuildList, "POST": s.v3TriggerBuild}},
		{path: v + "builds/{build:[^/.]+}/", name: "Version Build Instance", desc: "A build of the version.", rule: v3PublicDetail, detail: true,
			methods: h{"GET": s.v3VersionBuildDetail}},
		{path: p + "builds/", name: "Builds List", desc: "The project's builds, most recent first.", rule: v3PublicDetail, readerLists: true,
			methods: h{"GET": s.v3BuildList}},
		{path: p + "builds/{build:[^/.]+}/", name: "Build Instance", desc: "A build.", rule: v3PublicDetail, detail: true,
			methods: h{"GET": s.v3BuildDetail}},
		{path: p + "subprojects/", name: "Subprojects List", desc: "The project's subprojects; POST adds one.", rule: v3PublicDetail, readerLists: true,
			methods: h{"GET": s.v3SubprojectList, "POST": s.v3SubprojectCreate}},
		{path: p + "subprojects/{alias:[^/.]+}/", name: "Subproject Instance", desc: "A subproject relationship; DELETE removes it.", rule: v3PublicDetail, detail: true,
			methods: h{"GET": s.v3SubprojectDetail, "DELETE": s.v3SubprojectDelete}},
		{path: p + "translations/", name: "Translations List", desc: "The project's translations.", rule: v3PublicDetail, readerLists: true,
			methods: h{"GET": s.v3TranslationList}},
		{path: p + "redirects/", name: "Redirects List", desc: "The project's redirects; POST adds one.", rule: v3Maintainers,
			methods: h{"GET": s.v3RedirectList, "POST": s.v3RedirectCreate}},
		{path: p + "redirects/{id:[^/.]+}/", name: "Redirect Instance", desc: "A redirect; PUT and PATCH update it, DELETE removes it.", rule: v3Maintainers,
			methods: h{"GET": s.v3RedirectDetail, "PUT": s.v3RedirectUpdate(true), "PATCH": s.v3RedirectUpdate(false), "DELETE": s.v3RedirectDelete}},
		{path: p + "environmentvariables/", name: "Environment Variables List", desc: "The project's build environment variables; POST adds one.", rule: v3Maintainers,
			methods: h{"GET": s.v3EnvVarList, "POST": s.v3EnvVarCreate}},
		{path: p + "environmentvariables/{id:[^/.]+}/", name: "Environment Variable Instance", desc: "A build environment variable; DELETE removes it.", rule: v3Maintainers,
			methods: h{"GET": s.v3EnvVarDetail, "DELETE": s.v3EnvVarDelete}},
	}
	routes = append(routes, s.v3NotificationRoutes()...)
	routes = append(routes, s.v3OrganizationRoutes()...)
	routes = append(routes, s.v3UploadRoutes()...)
	routes = append(routes, s.v3SharingRoutes()...)
	routes = append(routes, s.v3OpenAPIRoute())
	routes = append(routes, s.v3SSHKeyRoute())
	for _, rt := range routes {
		if rt.allow != "" {
			continue
		}
		var allow []string
		for _, m := range v3MethodOrder {
			if rt.methods[m] != nil {
				allow = append(allow, m)
			}
		}
		rt.allow = strings.Join(append(allow, http.MethodHead, http.MethodOptions), ", ")
	}
	return routes
}

// v3Root answers `GET /api/v3/`: the entry points.
func (s *Server) v3Root(q *v3Req) {
	writeJSON(q.w, q.r, http.StatusOK, map[string]any{
		"audit-logs":    s.cfg.PublicURL + "/api/v3/audit-logs/",
		"organizations": s.cfg.PublicURL + "/api/v3/organizations/",
		"projects":      s.cfg.PublicURL + "/api/v3/projects/",
	})
}

// Reads.

// v3Query is a read operation: head and tail surround the selection of the
// object or list items; path leads through the data to the object, or to the
// list's {totalCount nodes}.
type v3Query struct {
	head, tail string
	vars       map[string]any
	path       []string
	// match, when set, must accept the object found, else it is not found.
	match func(d *jdoc, obj int) bool
}

// text returns the operation's text for a selection.
func (oq v3Query) text(sel *v3Sel) string {
	op := &v3Op{}
	body := op.sel(sel)
	return oq.head + body + oq.tail + op.fragments()
}

// object answers a detail read: 200 with the rendered object, 404 when the
// graph finds nothing. ctxOf gives the rendering context of the object.
func (q *v3Req) object(sel *v3Sel, oq v3Query, ctxOf func(d *jdoc, obj int) v3Ctx) {
	d, err := q.run(oq.text(sel), oq.vars)
	if err != nil {
		q.fail(err)
		return
	}
	obj := d.at(0, oq.path)
	if obj == none || (oq.match != nil && !oq.match(d, obj)) {
		writeNotFound(q.w, q.r)
		return
	}
	w := newWriter(d)
	defer w.done()
	ctxOf(d, obj).write(w, sel, obj)
	writeRendered(q.w, q.r, http.StatusOK, w)
}

// list answers a list read with the paginated envelope: count, next,
// previous, results.
func (q *v3Req) list(sel *v3Sel, oq v3Query, ctxOf func(d *jdoc, obj int) v3Ctx) {
	pg := q.s.pageOf(q.query)
	oq.vars["limit"], oq.vars["offset"] = pg.limit, pg.offset
	d, err := q.run(oq.text(sel), oq.vars)
	if err != nil {
		q.fail(err)
		return
	}
	l := d.at(0, oq.path)
	if l == none {
		writeNotFound(q.w, q.r)
		return
	}
	count, _ := strconv.Atoi(string(d.text(d.field(l, "totalCount"))))
	base := q.r.URL.EscapedPath()
	if q.s.cfg.AbsoluteAPILinks {
		base = q.s.cfg.PublicURL + base
	}
	next, previous := pageLinks(base, q.query, pg, count)
	w := newWriter(d)
	defer w.done()
	w.listHead(count, next, previous)
	w.byte('[')
	first := true
	if items := d.field(l, "nodes"); d.kind(items) == '[' {
		for obj, end := d.members(items); obj < end; obj = d.next(obj) {
			w.comma(&first)
			ctxOf(d, obj).write(w, sel, obj)
		}
	}
	w.raw("]}")
	writeRendered(q.w, q.r, http.StatusOK, w)
}

// inProject renders objects as belonging to the route's project.
func (q *v3Req) inProject(*jdoc, int) v3Ctx { return q.ctxFor(q.project()) }

// own renders projects with their own slug.
func (q *v3Req) own(d *jdoc, obj int) v3Ctx { return q.ctxFor(d.str(d.field(obj, "slug"))) }

// filters validates the request's filters (400 naming each bad one).
func (q *v3Req) filters(f *v3Filters) (map[string]any, bool) {
	if err := f.err(); err != nil {
		q.fail(err)
		return nil, false
	}
	return f.input, true
}

func (s *Server) v3ProjectList(q *v3Req) {
	filter, ok := q.filters(v3ProjectFilters(q.query))
	if !ok {
		return
	}
	filter["maintainedByViewer"] = true
	q.list(v3Selection(v3ProjectKind, q.query, v3ProjectExpands, true), v3Query{
		head: `query($filter: ProjectFilterInput, $limit: Int, $offset: Int) { list: projects(filter: $filter, limit: $limit, offset: $offset) { totalCount nodes { `,
		tail: ` } } }`,
		vars: map[string]any{"filter": filter}, path: []string{"list"},
	}, q.own)
}

func (s *Server) v3ProjectDetail(q *v3Req) { q.projectRead(false) }

func (s *Server) v3Superproject(q *v3Req) { q.projectRead(true) }

// projectRead answers the detail of {project}, or with superproject of the
// project {project} is a subproject of (404 when none, or not visible).
// The project filters narrow the lookup of {project}.
func (q *v3Req) projectRead(superproject bool) {
	filter, ok := q.filters(v3ProjectFilters(q.query))
	if !ok {
		return
	}
	oq := v3Query{
		head: `query($slug: String!, $filter: ProjectFilterInput) { obj: project(slug: $slug, filter: $filter) { `,
		tail: ` } }`,
		vars: map[string]any{"slug": q.project(), "filter": filter}, path: []string{"obj"},
	}
	if superproject {
		oq.head += `obj: subprojectOf { `
		oq.tail += ` }`
		oq.path = []string{"obj", "obj"}
	}
	q.object(v3Selection(v3ProjectKind, q.query, v3ProjectExpands, false), oq, q.own)
}

func (s *Server) v3VersionList(q *v3Req) {
	filter, ok := q.filters(v3VersionFilters(q.query))
	if !ok {
		return
	}
	q.nestedList(v3VersionKind, v3VersionExpands, "versions", "VersionFilterInput", filter)
}

func (s *Server) v3VersionDetail(q *v3Req) {
	filter, ok := q.filters(v3VersionFilters(q.query))
	if !ok {
		return
	}
	q.object(v3Selection(v3VersionKind, q.query, v3VersionExpands, false), v3Query{
		head: `query($slug: String!, $version: String!, $filter: VersionFilterInput) { project(slug: $slug) { obj: version(slug: $version, filter: $filter) { `,
		tail: ` } } }`,
		vars: map[string]any{"slug": q.project(), "version": q.vars["version"], "filter": filter}, path: []string{"project", "obj"},
	}, q.inProject)
}

func (s *Server) v3BuildList(q *v3Req) {
	if filter, ok := q.filters(v3BuildFilters(q.query)); ok {
		q.nestedList(v3BuildKind, v3BuildExpands, "builds", "BuildFilterInput", filter)
	}
}

func (s *Server) v3VersionBuildList(q *v3Req) {
	filter, ok := q.filters(v3BuildFilters(q.query))
	if !ok {
		return
	}
	q.list(v3Selection(v3BuildKind, q.query, v3BuildExpands, true), v3Query{
		head: `query($slug: String!, $version: String!, $filter: BuildFilterInput, $limit: Int, $offset: Int) { project(slug: $slug) { version(slug: $version) { list: builds(filter: $filter, limit: $limit, offset: $offset) { totalCount nodes { `,
		tail: ` } } } } }`,
		vars: map[string]any{"slug": q.project(), "version": q.vars["version"], "filter": filter}, path: []string{"project", "version", "list"},
	}, q.inProject)
}

// buildDetail answers both build detail routes; on the version route the
// build must belong to {version}.
func (q *v3Req) buildDetail(version string) {
	filter, ok := q.filters(v3BuildFilters(q.query))
	if !ok {
		return
	}
	id, ok := q.id("build")
	if !ok {
		return
	}
	q.object(v3Selection(v3BuildKind, q.query, v3BuildExpands, false), v3Query{
		head: `query($slug: String!, $id: ID!, $filter: BuildFilterInput) { project(slug: $slug) { obj: build(id: $id, filter: $filter) { `,
		tail: ` } } }`,
		vars: map[string]any{"slug": q.project(), "id": id, "filter": filter}, path: []string{"project", "obj"},
		match: func(d *jdoc, obj int) bool {
			return version == "" || d.str(d.field(obj, "version")) == version
		},
	}, q.inProject)
}

func (s *Server) v3BuildDetail(q *v3Req) { q.buildDetail("") }

func (s *Server) v3VersionBuildDetail(q *v3Req) { q.buildDetail(q.vars["version"]) }

func (s *Server) v3SubprojectList(q *v3Req) {
	q.nestedList(v3SubprojectKind, nil, "subprojects", "", nil)
}

func (s *Server) v3SubprojectDetail(q *v3Req) {
	q.object(v3Selection(v3SubprojectKind, q.query, nil, false), v3Query{
		head: `query($slug: String!, $alias: String!) { project(slug: $slug) { obj: subproject(alias: $alias) { `,
		tail: ` } } }`,
		vars: map[string]any{"slug": q.project(), "alias": q.vars["alias"]}, path: []string{"project", "obj"},
	}, q.inProject)
}

func (s *Server) v3TranslationList(q *v3Req) {
	q.nestedList(v3ProjectKind, nil, "translations", "", nil)
}

func (s *Server) v3RedirectList(q *v3Req) { q.nestedList(v3RedirectKind, nil, "redirects", "", nil) }

func (s *Server) v3RedirectDetail(q *v3Req) { q.nestedByID(v3RedirectKind, "redirect") }

func (s *Server) v3EnvVarList(q *v3Req) {
	q.nestedList(v3EnvVarKind, nil, "environmentVariables", "", nil)
}

func (s *Server) v3EnvVarDetail(q *v3Req) { q.nestedByID(v3EnvVarKind, "environmentVariable") }

// nestedList answers the list of {project}'s gqlField (a Project field
// taking limit, offset and, when filterType is set, a filter). Projects
// (translations) render with their own slug, anything else as belonging to
// {project}.
func (q *v3Req) nestedList(kind *v3Kind, permitted []string, gqlField, filterType string, filter map[string]any) {
	decl, args := "$slug: String!, $limit: Int, $offset: Int", "limit: $limit, offset: $offset"
	vars := map[string]any{"slug": q.project()}
	if filterType != "" {
		decl, args = "$slug: String!, $filter: "+filterType+", $limit: Int, $offset: Int", "filter: $filter, "+args
		vars["filter"] = filter
	}
	ctxOf := q.inProject
	if kind == v3ProjectKind {
		ctxOf = q.own
	}
	q.list(v3Selection(kind, q.query, permitted, true), v3Query{
		head: "query(" + decl + ") { project(slug: $slug) { list: " + gqlField + "(" + args + ") { totalCount nodes { ",
		tail: " } } } }",
		vars: vars, path: []string{"project", "list"},
	}, ctxOf)
}

// nestedByID answers the detail of {project}'s gqlField(id: {id}).
func (q *v3Req) nestedByID(kind *v3Kind, gqlField string) {
	id, ok := q.id("id")
	if !ok {
		return
	}
	q.object(v3Selection(kind, q.query, nil, false), v3Query{
		head: "query($slug: String!, $id: Int!) { project(slug: $slug) { obj: " + gqlField + "(id: $id) { ",
		tail: " } } }",
		vars: map[string]any{"slug": q.project(), "id": id}, path: []string{"project", "obj"},
	}, q.inProject)
}

// Writes.

// body reads the request body as an object. lookup, when given, is a read
// that finds the object the request addresses: it runs before a body error
// is answered, so that a missing object is 404 whatever the body.
func (q *v3Req) body(lookup *v3Query) (map[string]any, bool) {
	raw, err := v3ReadBody(q.r)
	var obj map[string]any
	if err == nil {
		obj, err = v3Object(raw)
	}
	if err == nil {
		return obj, true
	}
	if lookup != nil {
		data, lerr := q.run(lookup.head+"id"+lookup.tail, lookup.vars)
		if lerr != nil {
			q.fail(lerr)
			return nil, false
		}
		if data.at(0, lookup.path) == none {
			writeNotFound(q.w, q.r)
			return nil, false
		}
	}
	q.fail(err)
	return nil, false
}

// mutate runs a write operation (which declares `$validateOnly: Boolean`).
// When REST found type errors in the body itself (failed), the operation
// runs with validateOnly and the answer is 400 with REST's and the graph's
// messages merged; a lookup failure of the graph (404) wins over both.
func (q *v3Req) mutate(op string, input map[string]any, failed errs.Fields) (*jdoc, bool) {
	vars := map[string]any{"input": input}
	if len(failed) == 0 {
		data, err := q.run(op, vars)
		if err != nil {
			q.fail(err)
			return nil, false
		}
		return data, true
	}
	input["validateOnly"] = true
	_, err := q.run(op, vars)
	graphFields := errs.FieldsOf(err)
	if err != nil && len(graphFields) == 0 {
		q.fail(err)
		return nil, false
	}
	q.fail(v3MergeFields(failed, graphFields).Err("rest.v3"))
	return nil, false
}

// writeObject renders a write's result in full (fields, omit and expand do
// not apply to writes) and answers status.
func (q *v3Req) writeObject(status int, data *jdoc, sel *v3Sel, ctxOf func(d *jdoc, obj int) v3Ctx) {
	obj := data.at(0, []string{"obj", "obj"})
	if obj == none {
		writeNotFound(q.w, q.r)
		return
	}
	w := newWriter(data)
	defer w.done()
	ctxOf(data, obj).write(w, sel, obj)
	writeRendered(q.w, q.r, status, w)
}

// v3ProjectInput reads the project fields of an import (or an update):
// every field Read the Docs' current API accepts.
func v3ProjectInput(in *v3Input, update bool) {
	in.str("name", "name")
	in.object("repository", "repository", func(repo *v3Input) {
		repo.str("url", "url")
		repo.choice("type", "type", v3RepositoryType)
	})
	in.str("homepage", "homepage")
	in.str("language", "language")
	in.str("programming_language", "programmingLanguage")
	in.tags("tags", "tags")
	in.choice("privacy_level", "privacyLevel", v3PrivacyLevel)
	in.choice("external_builds_privacy_level", "externalBuildsPrivacyLevel", v3PrivacyLevel)
	in.str("readthedocs_yaml_path", "readthedocsYamlPath")
	if update {
		in.str("default_version", "defaultVersion")
		in.str("default_branch", "defaultBranch")
		in.str("analytics_code", "analyticsCode")
		in.boolean("show_version_warning", "showVersionWarning")
		in.boolean("single_version", "singleVersion")
		in.choice("versioning_scheme", "versioningScheme", v3VersioningScheme)
		in.boolean("external_builds_enabled", "externalBuildsEnabled")
		in.boolean("analytics_disabled", "analyticsDisabled")
	}
}

func (s *Server) v3ProjectImport(q *v3Req) {
	body, ok := q.body(nil)
	if !ok {
		return
	}
	in := v3NewInput(body)
	v3ProjectInput(in, false)
	in.slugRef("organization", "organization")
	in.slugList("teams", "teams")
	sel := v3ProjectKind.full()
	op := &v3Op{}
	text := `mutation($input: ImportProjectInput!) { obj: importProject(input: $input) { obj: project { ` +
		op.sel(sel) + ` } ` + graph.PayloadErrors + ` } }` + op.fragments()
	data, ok := q.mutate(text, in.input, in.failed)
	if ok {
		q.writeObject(http.StatusCreated, data, sel, q.own)
	}
}

func (s *Server) v3ProjectUpdate(replace bool) func(q *v3Req) {
	return func(q *v3Req) {
		body, ok := q.body(nil)
		if !ok {
			return
		}
		in := v3NewInput(body)
		v3ProjectInput(in, true)
		const op = `mutation($input: UpdateProjectInput!) { obj: updateProject(input: $input) { project { id } ` + graph.PayloadErrors + ` } }`
		in.input["slug"], in.input["replace"] = q.project(), replace
		if _, ok := q.mutate(op, in.input, in.failed); ok {
			writeNoContent(q.w)
		}
	}
}

func (s *Server) v3VersionUpdate(replace bool) func(q *v3Req) {
	return func(q *v3Req) {
		vars := map[string]any{"slug": q.project(), "version": q.vars["version"]}
		body, ok := q.body(&v3Query{
			head: `query($slug: String!, $version: String!) { project(slug: $slug) { obj: version(slug: $version) { `,
			tail: ` } } }`, vars: vars, path: []string{"project", "obj"},
		})
		if !ok {
			return
		}
		in := v3NewInput(body)
		in.boolean("active", "active")
		in.boolean("hidden", "hidden")
		in.choice("privacy_level", "privacyLevel", v3VersionPrivacy)
		in.input["project"], in.input["version"], in.input["replace"] = vars["slug"], vars["version"], replace
		const op = `mutation($input: UpdateVersionInput!) { obj: updateVersion(input: $input) { version { id } ` + graph.PayloadErrors + ` } }`
		if _, ok := q.mutate(op, in.input, in.failed); ok {
			writeNoContent(q.w)
		}
	}
}

// v3TriggerBuild queues a build of {version}: 202 with the build, its
// project and version; 400 with no build when the project's builds are
// disabled. The body is never read.
func (s *Server) v3TriggerBuild(q *v3Req) {
	op := &v3Op{}
	build, project, version := v3BuildKind.full(), v3ProjectKind.full(), v3VersionKind.full()
	text := `mutation($input: TriggerBuildInput!) { triggerBuild(input: $input) { build { ` +
		op.sel(build) + ` } project { ` + op.sel(project) + ` } version { ` + op.sel(version) + ` } triggered ` + graph.PayloadErrors + ` } }` + op.fragments()
	data, err := q.run(text, map[string]any{"input": map[string]any{"project": q.project(), "version": q.vars["version"]}})
	if err != nil {
		q.fail(err)
		return
	}
	payload := data.at(0, []string{"triggerBuild"})
	c := q.ctxFor(q.project())
	triggered := data.field(payload, "triggered")
	out := map[string]any{"build": nil, "triggered": data.valueJSON(triggered),
		"project": c.rendered(project, data, data.field(payload, "project")),
		"version": c.rendered(version, data, data.field(payload, "version"))}
	if b := data.field(payload, "build"); data.isObject(b) {
		out["build"] = c.rendered(build, data, b)
	}
	status := http.StatusAccepted
	if !data.isTrue(triggered) {
		status = http.StatusBadRequest
	}
	writeJSON(q.w, q.r, status, out)
}

func (s *Server) v3SubprojectCreate(q *v3Req) {
	body, ok := q.body(nil)
	if !ok {
		return
	}
	in := v3NewInput(body)
	in.slugRef("child", "child")
	in.str("alias", "alias")
	sel := v3SubprojectKind.full()
	op := &v3Op{}
	in.input["project"] = q.project()
	text := `mutation($input: CreateSubprojectInput!) { obj: createSubproject(input: $input) { obj: subproject { ` +
		op.sel(sel) + ` } ` + graph.PayloadErrors + ` } }` + op.fragments()
	data, ok := q.mutate(text, in.input, in.failed)
	if ok {
		q.writeObject(http.StatusCreated, data, sel, q.inProject)
	}
}

// remove runs a delete mutation with input and answers 204.
func (q *v3Req) remove(op string, input map[string]any) {
	if _, err := q.run(op, map[string]any{"input": input}); err != nil {
		q.fail(err)
		return
	}
	writeNoContent(q.w)
}

func (s *Server) v3SubprojectDelete(q *v3Req) {
	q.remove(`mutation($input: DeleteSubprojectInput!) { deleteSubproject(input: $input) { deletedId `+graph.PayloadErrors+` } }`,
		map[string]any{"project": q.project(), "alias": q.vars["alias"]})
}

// v3RedirectInput reads a redirect's fields.
func v3RedirectInput(body map[string]any) *v3Input {
	in := v3NewInput(body)
	in.choice("type", "type", v3RedirectType)
	in.str("from_url", "fromUrl")
	in.str("to_url", "toUrl")
	in.intChoice("http_status", "httpStatus")
	in.integer("position", "position")
	in.boolean("force", "force")
	in.boolean("enabled", "enabled")
	in.str("description", "description")
	return in
}

func (s *Server) v3RedirectCreate(q *v3Req) {
	body, ok := q.body(nil)
	if !ok {
		return
	}
	in := v3RedirectInput(body)
	sel := v3RedirectKind.full()
	in.input["project"] = q.project()
	text := `mutation($input: CreateRedirectInput!) { obj: createRedirect(input: $input) { obj: redirect { ` +
		(&v3Op{}).sel(sel) + ` } ` + graph.PayloadErrors + ` } }`
	if data, ok := q.mutate(text, in.input, in.failed); ok {
		q.writeObject(http.StatusCreated, data, sel, q.inProject)
	}
}

func (s *Server) v3RedirectUpdate(replace bool) func(q *v3Req) {
	return func(q *v3Req) {
		id, ok := q.id("id")
		if !ok {
			return
		}
		vars := map[string]any{"slug": q.project(), "id": id}
		body, ok := q.body(&v3Query{
			head: `query($slug: String!, $id: Int!) { project(slug: $slug) { obj: redirect(id: $id) { `,
			tail: ` } } }`, vars: vars, path: []string{"project", "obj"},
		})
		if !ok {
			return
		}
		in := v3RedirectInput(body)
		in.input["project"], in.input["id"], in.input["replace"] = q.project(), id, replace
		sel := v3RedirectKind.full()
		text := `mutation($input: UpdateRedirectInput!) { obj: updateRedirect(input: $input) { obj: redirect { ` +
			(&v3Op{}).sel(sel) + ` } ` + graph.PayloadErrors + ` } }`
		if data, ok := q.mutate(text, in.input, in.failed); ok {
			q.writeObject(http.StatusOK, data, sel, q.inProject)
		}
	}
}

func (s *Server) v3RedirectDelete(q *v3Req) {
	if id, ok := q.id("id"); ok {
		q.remove(`mutation($input: DeleteRedirectInput!) { deleteRedirect(input: $input) { deletedId `+graph.PayloadErrors+` } }`, map[string]any{"project": q.project(), "id": id})
	}
}

func (s *Server) v3EnvVarCreate(q *v3Req) {
	body, ok := q.body(nil)
	if !ok {
		return
	}
	in := v3NewInput(body)
	in.str("name", "name")
	in.str("value", "value")
	in.boolean("public", "public")
	sel := v3EnvVarKind.full()
	in.input["project"] = q.project()
	text := `mutation($input: CreateEnvironmentVariableInput!) { obj: createEnvironmentVariable(input: $input) { obj: environmentVariable { ` +
		(&v3Op{}).sel(sel) + ` } ` + graph.PayloadErrors + ` } }`
	if data, ok := q.mutate(text, in.input, in.failed); ok {
		q.writeObject(http.StatusCreated, data, sel, q.inProject)
	}
}

func (s *Server) v3EnvVarDelete(q *v3Req) {
	if id, ok := q.id("id"); ok {
		q.remove(`mutation($input: DeleteEnvironmentVariableInput!) { deleteEnvironmentVariable(input: $input) { deletedId `+graph.PayloadErrors+` } }`, map[string]any{"project": q.project(), "id": id})
	}
}
