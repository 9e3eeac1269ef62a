package rest

import (
	"fmt"
	"net/http"

	"docsd/graph"
)

// Sharing methods (`/api/v3/projects/{p}/sharing/`, admins of the project
// only) and the audit log (`/api/v3/audit-logs/`, what the caller may
// read).

// v3SharingRoutes returns the sharing and audit-log routes.
func (s *Server) v3SharingRoutes() []*v3Route {
	const p = "/api/v3/projects/{project:[^/.]+}/"
	type h = map[string]func(q *v3Req)
	return []*v3Route{
		{path: p + "sharing/", name: "Sharing Methods List", desc: "The project's sharing methods, newest first; POST adds one.", rule: v3Maintainers,
			methods: h{"GET": s.v3SharingList, "POST": s.v3SharingCreate}},
		{path: p + "sharing/{id:[^/.]+}/", name: "Sharing Method Instance", desc: "A sharing method; PATCH changes it, DELETE removes it and ends its grants.", rule: v3Maintainers,
			methods: h{"GET": s.v3SharingDetail, "PATCH": s.v3SharingUpdate, "DELETE": s.v3SharingDelete}},
		{path: "/api/v3/audit-logs/", name: "Audit Logs List", desc: "The audit entries the caller may read, newest first.", rule: v3AnyUser,
			methods: h{"GET": s.v3AuditLogList}},
		{path: "/api/v3/audit-logs/{id:[^/.]+}/", name: "Audit Log Instance", desc: "An audit entry the caller may read.", rule: v3AnyUser, detail: true,
			methods: h{"GET": s.v3AuditLogDetail}},
	}
}

// v3SharingKind is a sharing method.
var v3SharingKind = &v3Kind{
	helpers: "id: databaseId",
	links: func(c v3Ctx, w *jwriter, obj int) {
		p := []byte(c.project)
		c.writeLinks(w, []string{"_self", "project"}, [][]byte{p, []byte("sharing"), w.d.text(w.d.field(obj, "id"))}, [][]byte{p})
	},
	fields: []*v3Field{
		{key: "_links"},
		{key: "access_type", gql: "access_type: accessType"},
		{key: "allow_all", gql: "allow_all: allowAll"},
		{key: "description", gql: "description"},
		{key: "expires", gql: "expires"},
		{key: "id", gql: "id: databaseId"},
		{key: "last_used_at", gql: "last_used_at: lastUsedAt"},
		{key: "project", value: func(c v3Ctx, w *jwriter, _, _ int) { w.str(c.project) }},
		{key: "token", gql: "token"},
		{key: "url", gql: "url"},
		{key: "versions", gql: "versions"},
	},
}

func (s *Server) v3SharingList(q *v3Req) {
	q.nestedList(v3SharingKind, nil, "sharingMethods", "", nil)
}

func (s *Server) v3SharingDetail(q *v3Req) { q.nestedByID(v3SharingKind, "sharingMethod") }

// v3SharingInput reads a sharing method's fields; id, token, url, project
// and last_used_at are read-only and ignored.
func v3SharingInput(body map[string]any) *v3Input {
	in := v3NewInput(body)
	in.str("access_type", "accessType")
	in.str("password", "password")
	in.boolean("allow_all", "allowAll")
	in.strList("versions", "versions")
	in.str("description", "description")
	in.str("expires", "expires")
	return in
}

func (s *Server) v3SharingCreate(q *v3Req) {
	body, ok := q.body(nil)
	if !ok {
		return
	}
	in := v3SharingInput(body)
	in.input["slug"] = q.project()
	sel := v3SharingKind.full()
	text := `mutation($input: CreateSharingMethodInput!) { obj: createSharingMethod(input: $input) { obj: sharingMethod { ` +
		(&v3Op{}).sel(sel) + ` } ` + graph.PayloadErrors + ` } }`
	if data, ok := q.mutate(text, in.input, in.failed); ok {
		q.writeObject(http.StatusCreated, data, sel, q.inProject)
	}
}

func (s *Server) v3SharingUpdate(q *v3Req) {
	id, ok := q.id("id")
	if !ok {
		return
	}
	vars := map[string]any{"slug": q.project(), "id": id}
	body, ok := q.body(&v3Query{
		head: `query($slug: String!, $id: Int!) { project(slug: $slug) { obj: sharingMethod(id: $id) { `,
		tail: ` } } }`, vars: vars, path: []string{"project", "obj"},
	})
	if !ok {
		return
	}
	in := v3SharingInput(body)
	in.input["slug"], in.input["id"] = q.project(), fmt.Sprint(id)
	sel := v3SharingKind.full()
	text := `mutation($input: UpdateSharingMethodInput!) { obj: updateSharingMethod(input: $input) { obj: sharingMethod { ` +
		(&v3Op{}).sel(sel) + ` } ` + graph.PayloadErrors + ` } }`
	if data, ok := q.mutate(text, in.input, in.failed); ok {
		q.writeObject(http.StatusOK, data, sel, q.inProject)
	}
}

func (s *Server) v3SharingDelete(q *v3Req) {
	if id, ok := q.id("id"); ok {
		q.remove(`mutation($input: DeleteSharingMethodInput!) { deleteSharingMethod(input: $input) { deletedId `+graph.PayloadErrors+` } }`,
			map[string]any{"slug": q.project(), "id": fmt.Sprint(id)})
	}
}

// strList reads a list of strings: anything but an array is `Expected a
// list of items but got type "<type>".`, an item that is not a string
// `Not a valid string.`.
func (in *v3Input) strList(key, gqlName string) {
	v, ok := in.take(key, gqlName)
	if !ok {
		return
	}
	items, isList := v.([]any)
	if !isList {
		in.failed.Add(in.prefix+key, fmt.Sprintf("Expected a list of items but got type %q.", v3TypeWord(v)))
		return
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		s, isStr := it.(string)
		if !isStr {
			in.failed.Add(in.prefix+key, "Not a valid string.")
			return
		}
		out = append(out, s)
	}
	in.input[gqlName] = out
}

// v3AuditKind is an audit entry.
var v3AuditKind = &v3Kind{
	helpers: "id: databaseId",
	links: func(c v3Ctx, w *jwriter, obj int) {
		w.byte('{')
		w.key("_self")
		w.str(c.links + "/api/v3/audit-logs/" + string(w.d.text(w.d.field(obj, "id"))) + "/")
		w.byte('}')
	},
	fields: []*v3Field{
		{key: "_links"},
		{key: "action", gql: "action"},
		{key: "auth_backend", gql: "auth_backend: authBackend"},
		{key: "browser", gql: "browser"},
		{key: "created", gql: "created"},
		{key: "data", gql: "data"},
		{key: "id", gql: "id: databaseId"},
		{key: "ip", gql: "ip"},
		{key: "organization", gql: "organization { id: databaseId slug }"},
		{key: "project", gql: "project { id: databaseId slug }"},
		{key: "resource", gql: "resource"},
		{key: "user", gql: "user { id: databaseId username }"},
	},
}

// v3AuditFilters reads the audit log's filters; the graph checks them.
func v3AuditFilters(q map[string][]string) *v3Filters {
	f := v3NewFilters(q)
	for _, n := range [][2]string{{"action", "action"}, {"ip", "ip"}, {"project", "project"}, {"organization", "organization"},
		{"user", "user"}, {"date_after", "dateAfter"}, {"date_before", "dateBefore"}} {
		f.text(n[0], n[1])
	}
	return f
}

func (s *Server) v3AuditLogList(q *v3Req) {
	filter, ok := q.filters(v3AuditFilters(q.query))
	if !ok {
		return
	}
	q.list(v3Selection(v3AuditKind, q.query, nil, true), v3Query{
		head: `query($filter: AuditLogFilterInput, $limit: Int, $offset: Int) { list: auditLogs(filter: $filter, limit: $limit, offset: $offset) { totalCount nodes { `,
		tail: ` } } }`,
		vars: map[string]any{"filter": filter}, path: []string{"list"},
	}, q.inProject)
}

func (s *Server) v3AuditLogDetail(q *v3Req) {
	id, ok := q.id("id")
	if !ok {
		return
	}
	q.object(v3Selection(v3AuditKind, q.query, nil, false), v3Query{
		head: `query($id: Int!) { obj: auditLog(id: $id) { `,
		tail: ` } }`,
		vars: map[string]any{"id": id}, path: []string{"obj"},
	}, q.inProject)
}
