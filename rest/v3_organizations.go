package rest

import (
	"net/http"

	"docsd/internal/errs"
)

// The read-only organization endpoints of v3 (Read the Docs for Business):
// organizations, their projects, teams and notifications. Organizations are
// written through GraphQL, the dashboard and the admin commands.

// v3OrgNeed is what a caller must be in the route's organization, checked
// after authentication for every method (the organization's own detail
// route needs nothing: its writes are 405 for everyone, its read is the
// graph's to find or not).
type v3OrgNeed int

const (
	v3OrgNone   v3OrgNeed = iota
	v3OrgMember           // an owner or in a team (403 otherwise)
	v3OrgOwner            // an owner (403 otherwise)
)

const v3OrgAccessOp = `query($slug: String!) { viewer { username } organizationAccess(slug: $slug) { exists member owner } }`

// orgAllowed asks the graph how the caller relates to {organization} and
// answers 404 (missing) or 403 (not enough) when need is not met.
func (q *v3Req) orgAllowed(need v3OrgNeed) bool {
	data, err := q.run(v3OrgAccessOp, map[string]any{"slug": q.vars["organization"]})
	if err != nil {
		q.fail(err)
		return false
	}
	acc := data.at(0, []string{"organizationAccess"})
	field := "member"
	if need == v3OrgOwner {
		field = "owner"
	}
	switch {
	case !data.isTrue(data.field(acc, "exists")):
		writeNotFound(q.w, q.r)
		return false
	case !data.isTrue(data.field(acc, field)):
		writeJSON(q.w, q.r, http.StatusForbidden, map[string]any{"detail": errs.MsgForbidden})
		return false
	}
	return true
}

var (
	v3OrganizationKind  = &v3Kind{}
	v3TeamKind          = &v3Kind{}
	v3OrganizationLinks = []string{"_self", "notifications", "projects"}
	v3TeamExpands       = []string{"members", "projects"}
)

// writeOrganizationLinks writes the three _links of organization slug.
func (c v3Ctx) writeOrganizationLinks(w *jwriter, slug string) {
	base := c.links + "/api/v3/organizations/" + slug + "/"
	w.byte('{')
	for i, name := range v3OrganizationLinks {
		if i > 0 {
			w.byte(',')
		}
		w.key(name)
		if name == "_self" {
			w.str(base)
		} else {
			w.str(base + name + "/")
		}
	}
	w.byte('}')
}

// writeList writes the array v (a JSON array of objects, or anything
// else as []) with each item written by item.
func writeList(w *jwriter, v int, item func(it int)) {
	d := w.d
	w.byte('[')
	first := true
	if d.kind(v) == '[' {
		for it, end := d.members(v); it < end; it = d.next(it) {
			w.comma(&first)
			item(it)
		}
	}
	w.byte(']')
}

func init() {
	usernames := func(_ v3Ctx, w *jwriter, v, _ int) {
		writeList(w, w.d.field(v, "nodes"), func(it int) {
			w.raw(`{"username":`)
			w.value(w.d.field(it, "username"))
			w.byte('}')
		})
	}
	*v3OrganizationKind = v3Kind{
		helpers: "slug",
		links: func(c v3Ctx, w *jwriter, obj int) {
			c.writeOrganizationLinks(w, w.d.str(w.d.field(obj, "slug")))
		},
		fields: []*v3Field{
			{key: "_links"},
			{key: "created", gql: "created"},
			{key: "description", gql: "description"},
			{key: "disabled", gql: "disabled"},
			{key: "email", gql: "email"},
			{key: "modified", gql: "modified"},
			{key: "name", gql: "name"},
			{key: "owners", gql: "owners { username }"},
			{key: "slug", gql: "slug"},
			{key: "url", gql: "url"},
		},
	}
	*v3TeamKind = v3Kind{
		fields: []*v3Field{
			{key: "access", gql: "access"},
			{key: "created", gql: "created"},
			{key: "members", expandable: true, onlyExpanded: true, expandGQL: "members: members(first: 1000) { nodes { username } }",
				expanded: func(c v3Ctx, w *jwriter, _ *v3Sel, v, obj int) { usernames(c, w, v, obj) }},
			{key: "modified", gql: "modified"},
			{key: "name", gql: "name"},
			{key: "projects", expandable: true, onlyExpanded: true, expandGQL: "projects: projects(first: 1000) { nodes { slug } }",
				expanded: func(c v3Ctx, w *jwriter, _ *v3Sel, v, _ int) {
					writeList(w, w.d.field(v, "nodes"), func(it int) {
						slug := w.d.strText(w.d.field(it, "slug"))
						w.raw(`{"_links":{"_self":`)
						w.path(c.links, slug)
						w.raw(`},"slug":`)
						w.value(w.d.field(it, "slug"))
						w.byte('}')
					})
				}},
			{key: "slug", gql: "slug"},
		},
	}
}

// v3OrganizationRoutes are the organization endpoints.
func (s *Server) v3OrganizationRoutes() []*v3Route {
	const o = "/api/v3/organizations/{organization:[^/.]+}/"
	type h = map[string]func(q *v3Req)
	return []*v3Route{
		{path: "/api/v3/organizations/", name: "Organizations List", desc: "The organizations the caller is a member of.", rule: v3AnyUser,
			methods: h{"GET": s.v3OrganizationList}},
		{path: o, name: "Organization Instance", desc: "An organization.", rule: v3AnyUser, detail: true,
			methods: h{"GET": s.v3OrganizationDetail}},
		{path: o + "projects/", name: "Organization Projects List", desc: "The organization's projects the caller may see.", rule: v3AnyUser,
			org: v3OrgMember, methods: h{"GET": s.v3OrganizationProjects}},
		{path: o + "teams/", name: "Organization Teams List", desc: "The organization's teams.", rule: v3AnyUser,
			org: v3OrgOwner, methods: h{"GET": s.v3OrganizationTeams}},
		{path: o + "notifications/", name: "Organization Notifications List", desc: "The organization's notifications: docsd attaches none.", rule: v3AnyUser,
			org: v3OrgOwner, methods: h{"GET": s.v3OrganizationNotifications}},
		{path: o + "notifications/{id:[^/.]+}/", name: "Organization Notification Instance", desc: "An organization's notification.", rule: v3AnyUser,
			org: v3OrgOwner, detail: true, methods: h{"GET": func(q *v3Req) { writeNotFound(q.w, q.r) }}},
	}
}

func (s *Server) v3OrganizationList(q *v3Req) {
	q.list(v3Selection(v3OrganizationKind, q.query, nil, true), v3Query{
		head: `query($limit: Int, $offset: Int) { list: organizations(limit: $limit, offset: $offset) { totalCount nodes { `,
		tail: ` } } }`, vars: map[string]any{}, path: []string{"list"},
	}, q.plain)
}

func (s *Server) v3OrganizationDetail(q *v3Req) {
	q.object(v3Selection(v3OrganizationKind, q.query, nil, false), v3Query{
		head: `query($slug: String!) { obj: organization(slug: $slug) { `,
		tail: ` } }`, vars: map[string]any{"slug": q.vars["organization"]}, path: []string{"obj"},
	}, q.plain)
}

func (s *Server) v3OrganizationProjects(q *v3Req) {
	q.list(v3Selection(v3ProjectKind, q.query, nil, true), v3Query{
		head: `query($slug: String!, $limit: Int, $offset: Int) { obj: organization(slug: $slug) { list: projects(limit: $limit, offset: $offset) { totalCount nodes { `,
		tail: ` } } } }`, vars: map[string]any{"slug": q.vars["organization"]}, path: []string{"obj", "list"},
	}, q.own)
}

func (s *Server) v3OrganizationTeams(q *v3Req) {
	q.list(v3Selection(v3TeamKind, q.query, v3TeamExpands, true), v3Query{
		head: `query($slug: String!, $limit: Int, $offset: Int) { obj: organization(slug: $slug) { list: teams(limit: $limit, offset: $offset) { totalCount nodes { `,
		tail: ` } } } }`, vars: map[string]any{"slug": q.vars["organization"]}, path: []string{"obj", "list"},
	}, q.plain)
}

// v3OrganizationNotifications is always the empty page: docsd attaches no
// notifications to organizations.
func (s *Server) v3OrganizationNotifications(q *v3Req) {
	writeJSON(q.w, q.r, http.StatusOK, map[string]any{"count": 0, "next": nil, "previous": nil, "results": []any{}})
}

// plain renders objects that belong to no project.
func (q *v3Req) plain(*jdoc, int) v3Ctx { return q.ctxFor("") }
