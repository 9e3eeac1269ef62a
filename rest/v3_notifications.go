package rest

import (
	"net/http"
	"slices"
	"strings"

	"docsd/graph"
	"docsd/internal/choices"
)

// The endpoints of sync-versions and of the build and project
// notifications. Their Allow headers are Read the Docs' (no HEAD on the
// POST-only routes).

// v3NotificationRoutes returns the routes of sync-versions and of project
// and build notifications, with their Allow headers set.
func (s *Server) v3NotificationRoutes() []*v3Route {
	const p = "/api/v3/projects/{project:[^/.]+}/"
	const b = p + "builds/{build:[^/.]+}/"
	type h = map[string]func(q *v3Req)
	const readAllow, postAllow = "GET, HEAD, OPTIONS", "POST, OPTIONS"
	return []*v3Route{
		{path: p + "sync-versions/", name: "Sync Versions", desc: "POST queues a sync of the project's versions.", rule: v3PublicDetail,
			allow: postAllow, methods: h{"POST": s.v3SyncVersions}},
		{path: p + "notifications/", name: "Project Notifications List", desc: "The project's notifications.", rule: v3Maintainers,
			allow: readAllow, methods: h{"GET": s.v3ProjectNotificationList}},
		{path: p + "notifications/{notification:[^/.]+}/", name: "Project Notification Instance", desc: "A project notification.", rule: v3Maintainers,
			allow: readAllow, methods: h{"GET": s.v3ProjectNotificationDetail}},
		// Readable by whoever can see the build (as the build's detail),
		// so both are detail routes.
		{path: b + "notifications/", name: "Build Notifications List", desc: "The build's notifications.", rule: v3PublicDetail, detail: true,
			allow: readAllow, methods: h{"GET": s.v3BuildNotificationList}},
		{path: b + "notifications/{notification:[^/.]+}/", name: "Build Notification Instance", desc: "A build notification.", rule: v3PublicDetail, detail: true,
			allow: readAllow, methods: h{"GET": s.v3BuildNotificationDetail}},
	}
}

const v3SyncVersionsOp = `mutation($input: SyncVersionsInput!) { syncVersions(input: $input) { triggered ` + graph.PayloadErrors + ` } }`

// v3SyncVersions answers `POST …/sync-versions/`: 202 when a sync is
// queued (or already was), 400 when none can be (builds disabled, no
// `latest`); the body is never read.
func (s *Server) v3SyncVersions(q *v3Req) {
	data, err := q.run(v3SyncVersionsOp, map[string]any{"input": map[string]any{"project": q.project()}})
	if err != nil {
		q.fail(err)
		return
	}
	triggered := data.isTrue(data.field(data.field(0, "syncVersions"), "triggered"))
	status := http.StatusAccepted
	if !triggered {
		status = http.StatusBadRequest
	}
	writeJSON(q.w, q.r, status, map[string]any{"triggered": triggered})
}

// v3NotificationStates are the choices of the `state` filters.
var v3NotificationStates = choices.Table{{Code: "unread"}, {Code: "read"}, {Code: "dismissed"}, {Code: "cancelled"}}

// v3NotificationFilters reads `state` and `state__in` into a
// NotificationFilterInput: the states both allow.
func v3NotificationFilters(q map[string][]string) *v3Filters {
	f := v3NewFilters(q)
	var in []string
	given := false
	if v := lastValue(f.q, "state"); v != "" {
		given = true
		if v3NotificationStates.Has(v) {
			in = []string{v}
		} else {
			f.failed.Add("state", "Select a valid choice. "+v+" is not one of the available choices.")
		}
	}
	if v := lastValue(f.q, "state__in"); v != "" {
		var members []string
		for _, m := range strings.Split(v, ",") {
			if !v3NotificationStates.Has(m) {
				f.failed.Add("state__in", "Select a valid choice. "+m+" is not one of the available choices.")
				break
			}
			if !given || slices.Contains(in, m) {
				members = append(members, m)
			}
		}
		in, given = members, true
	}
	if given {
		if in == nil {
			in = []string{}
		}
		f.input["stateIn"] = in
	}
	return f
}

func (s *Server) v3ProjectNotificationList(q *v3Req) {
	filter, ok := q.filters(v3NotificationFilters(q.query))
	if !ok {
		return
	}
	q.nestedList(v3NotificationKind, nil, "notifications", "NotificationFilterInput", filter)
}

func (s *Server) v3ProjectNotificationDetail(q *v3Req) {
	if _, ok := q.filters(v3NotificationFilters(q.query)); !ok {
		return
	}
	q.nestedByIDVar(v3NotificationKind, "notification", "notification")
}

// buildNotificationArgs reads the notification filters and the build id
// of a build-notification route (400 or 404 answered when bad).
func (q *v3Req) buildNotificationArgs() (map[string]any, int64, bool) {
	filter, ok := q.filters(v3NotificationFilters(q.query))
	if !ok {
		return nil, 0, false
	}
	id, ok := q.id("build")
	return filter, id, ok
}

func (s *Server) v3BuildNotificationList(q *v3Req) {
	filter, id, ok := q.buildNotificationArgs()
	if !ok {
		return
	}
	q.list(v3Selection(v3NotificationKind, q.query, nil, true), v3Query{
		head: `query($slug: String!, $id: ID!, $filter: NotificationFilterInput, $limit: Int, $offset: Int) { project(slug: $slug) { build(id: $id) { list: notifications(filter: $filter, limit: $limit, offset: $offset) { totalCount nodes { `,
		tail: ` } } } } }`,
		vars: map[string]any{"slug": q.project(), "id": id, "filter": filter}, path: []string{"project", "build", "list"},
	}, q.inProject)
}

func (s *Server) v3BuildNotificationDetail(q *v3Req) {
	filter, id, ok := q.buildNotificationArgs()
	if !ok {
		return
	}
	nid, ok := q.id("notification")
	if !ok {
		return
	}
	q.object(v3Selection(v3NotificationKind, q.query, nil, false), v3Query{
		head: `query($slug: String!, $id: ID!, $nid: Int!) { project(slug: $slug) { build(id: $id) { obj: notification(id: $nid) { `,
		tail: ` _state: state } } } }`,
		vars: map[string]any{"slug": q.project(), "id": id, "nid": nid}, path: []string{"project", "build", "obj"},
		match: func(d *jdoc, obj int) bool {
			in, given := filter["stateIn"].([]string)
			return !given || slices.Contains(in, d.str(d.field(obj, "_state")))
		},
	}, q.inProject)
}

// nestedByIDVar answers the detail of {project}'s gqlField(id: {param}).
func (q *v3Req) nestedByIDVar(kind *v3Kind, gqlField, param string) {
	id, ok := q.id(param)
	if !ok {
		return
	}
	q.object(v3Selection(kind, q.query, nil, false), v3Query{
		head: "query($slug: String!, $id: Int!) { project(slug: $slug) { obj: " + gqlField + "(id: $id) { ",
		tail: " } } }",
		vars: map[string]any{"slug": q.project(), "id": id}, path: []string{"project", "obj"},
	}, q.inProject)
}

// v3NotificationKind is a notification of a build or a project.
var v3NotificationKind = &v3Kind{
	helpers: "_id: id _on: attachedToContentType _to: attachedToId",
	links: func(c v3Ctx, w *jwriter, obj int) {
		d, p := w.d, []byte(c.project)
		id := d.text(d.field(obj, "_id"))
		if d.str(d.field(obj, "_on")) == "build" {
			c.writeLinks(w, []string{"_self"}, [][]byte{p, v3Builds, d.text(d.field(obj, "_to")), []byte("notifications"), id})
			return
		}
		c.writeLinks(w, []string{"_self"}, [][]byte{p, []byte("notifications"), id})
	},
	fields: []*v3Field{
		{key: "_links"},
		{key: "attached_to_content_type", gql: "attached_to_content_type: attachedToContentType"},
		{key: "attached_to_id", gql: "attached_to_id: attachedToId"},
		{key: "dismissable", gql: "dismissable"},
		{key: "id", gql: "id"},
		{key: "message", gql: "message { body header icon_classes: iconClasses id type }"},
		{key: "news", gql: "news"},
		{key: "state", gql: "state"},
	},
}
