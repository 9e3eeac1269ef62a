package graph

import (
	"docsd/graph/gid"
	"docsd/internal/errs"
	"docsd/store"
)

// Relay cursor connections. A list field takes first/after or last/before
// (cursor paging, keyset windows of the store) or the deprecated
// limit/offset the REST façades page with; the two cannot be mixed. A cursor
// is gid.Encode(<node type>+"Cursor", row id).

// pageArgs are a connection field's paging arguments.
type pageArgs struct {
	first, last   *int64
	after, before *string
	limit, offset *int64
}

// pager is a page asked of the store: Limit rows (one more than the page
// in cursor mode, to learn whether more follow), from Offset or Keyset.
type pager struct {
	size   int
	Limit  int
	Offset int
	Keyset *store.Keyset
}

// store is p as a store.Page.
func (p pager) store() store.Page {
	return store.Page{Limit: p.Limit, Offset: p.Offset, Keyset: p.Keyset}
}

// page reads a for the list of node type typ.
func (r *Resolver) page(typ string, a pageArgs) (pager, error) {
	const op = "graph.page"
	cursorMode := a.first != nil || a.last != nil || a.after != nil || a.before != nil
	if !cursorMode {
		l, o := r.window(a.limit, a.offset)
		return pager{size: l, Limit: l, Offset: o}, nil
	}
	if a.limit != nil || a.offset != nil {
		return pager{}, errs.FieldError(op, "limit", "limit and offset cannot be combined with first, after, last or before.")
	}
	if a.first != nil && a.last != nil {
		return pager{}, errs.FieldError(op, "last", "first and last cannot be combined.")
	}
	for _, n := range []struct {
		v     *int64
		field string
	}{{a.first, "first"}, {a.last, "last"}} {
		if n.v != nil && *n.v < 0 {
			return pager{}, errs.FieldError(op, n.field, "Ensure this value is greater than or equal to 0.")
		}
	}
	ks := &store.Keyset{Backward: a.last != nil || (a.first == nil && a.before != nil && a.after == nil)}
	for _, c := range []struct {
		v     *string
		field string
		id    *int64
	}{{a.after, "after", &ks.After}, {a.before, "before", &ks.Before}} {
		if c.v == nil {
			continue
		}
		t, keys, ok := gid.Decode(*c.v)
		if !ok || t != typ+"Cursor" || len(keys) != 1 {
			return pager{}, errs.FieldError(op, c.field, "Not a cursor of this list.")
		}
		*c.id = keys[0]
	}
	size, _ := r.window(cmpOr(a.first, a.last), nil)
	if p := cmpOr(a.first, a.last); p != nil && *p == 0 {
		size = 0
	}
	return pager{size: size, Limit: size + 1, Keyset: ks}, nil
}

func cmpOr(a, b *int64) *int64 {
	if a != nil {
		return a
	}
	return b
}

// connect trims the rows read for p to its page and returns them with
// their edges (made by edge from each row's cursor) and the page's
// PageInfo; total is the length of the whole list.
func connect[T, E any](typ string, p pager, rows []T, total int, id func(T) int64, edge func(string, T) E) ([]T, []E, *PageInfo) {
	info := &PageInfo{}
	if p.Keyset == nil {
		info.HasPreviousPage = p.Offset > 0
		info.HasNextPage = p.Offset+len(rows) < total
	} else {
		more := len(rows) > p.size
		if p.Keyset.Backward {
			if more {
				rows = rows[len(rows)-p.size:]
			}
			info.HasPreviousPage, info.HasNextPage = more, p.Keyset.Before != 0
		} else {
			if more {
				rows = rows[:p.size]
			}
			info.HasNextPage, info.HasPreviousPage = more, p.Keyset.After != 0
		}
	}
	edges := make([]E, len(rows))
	for i, row := range rows {
		cursor := gid.Encode(typ+"Cursor", id(row))
		if i == 0 {
			info.StartCursor = &cursor
		}
		info.EndCursor = &cursor
		edges[i] = edge(cursor, row)
	}
	return rows, edges, info
}

// projectConnection, versionConnection, … are connect for each node type.

func projectConnection(p pager, rows []*ProjectView, total int) *ProjectConnection {
	c := &ProjectConnection{TotalCount: int64(total)}
	c.Nodes, c.Edges, c.PageInfo = connect(nodeProject, p, rows, total, func(x *ProjectView) int64 { return x.ID },
		func(cursor string, x *ProjectView) *ProjectEdge { return &ProjectEdge{Cursor: cursor, Node: x} })
	return c
}

func versionConnection(p pager, rows []*VersionView, total int) *VersionConnection {
	c := &VersionConnection{TotalCount: int64(total)}
	c.Nodes, c.Edges, c.PageInfo = connect(nodeVersion, p, rows, total, func(x *VersionView) int64 { return x.ID },
		func(cursor string, x *VersionView) *VersionEdge { return &VersionEdge{Cursor: cursor, Node: x} })
	return c
}

func buildConnection(p pager, rows []*BuildView, total int) *BuildConnection {
	c := &BuildConnection{TotalCount: int64(total)}
	c.Nodes, c.Edges, c.PageInfo = connect(nodeBuild, p, rows, total, func(x *BuildView) int64 { return x.ID },
		func(cursor string, x *BuildView) *BuildEdge { return &BuildEdge{Cursor: cursor, Node: x} })
	return c
}

func subprojectConnection(p pager, rows []*store.Relationship, total int) *SubprojectConnection {
	c := &SubprojectConnection{TotalCount: int64(total)}
	c.Nodes, c.Edges, c.PageInfo = connect(nodeSubproject, p, rows, total, func(x *store.Relationship) int64 { return x.ID },
		func(cursor string, x *store.Relationship) *SubprojectEdge {
			return &SubprojectEdge{Cursor: cursor, Node: x}
		})
	return c
}

func redirectConnection(p pager, rows []*store.Redirect, total int) *RedirectConnection {
	c := &RedirectConnection{TotalCount: int64(total)}
	c.Nodes, c.Edges, c.PageInfo = connect(nodeRedirect, p, rows, total, func(x *store.Redirect) int64 { return x.ID },
		func(cursor string, x *store.Redirect) *RedirectEdge { return &RedirectEdge{Cursor: cursor, Node: x} })
	return c
}

func environmentVariableConnection(p pager, rows []*store.EnvironmentVariable, total int) *EnvironmentVariableConnection {
	c := &EnvironmentVariableConnection{TotalCount: int64(total)}
	c.Nodes, c.Edges, c.PageInfo = connect(nodeEnvironmentVariable, p, rows, total, func(x *store.EnvironmentVariable) int64 { return x.ID },
		func(cursor string, x *store.EnvironmentVariable) *EnvironmentVariableEdge {
			return &EnvironmentVariableEdge{Cursor: cursor, Node: x}
		})
	return c
}

func userConnection(p pager, rows []*store.User, total int) *UserConnection {
	c := &UserConnection{TotalCount: int64(total)}
	c.Nodes, c.Edges, c.PageInfo = connect(nodeUser, p, rows, total, func(x *store.User) int64 { return x.ID },
		func(cursor string, x *store.User) *UserEdge { return &UserEdge{Cursor: cursor, Node: x} })
	return c
}

// pageSlice is the store's keyset window (or offset page) of p over rows,
// a whole list in its order, for short lists read whole (a project's
// maintainers): after and before name rows by id, and one that is not in
// the list is INVALID on its argument, as the store answers.
func pageSlice[T any](p pager, rows []T, id func(T) int64) ([]T, error) {
	if p.Keyset == nil {
		lo := min(p.Offset, len(rows))
		return rows[lo:min(lo+p.Limit, len(rows))], nil
	}
	index := func(field string, want int64) (int, error) {
		for i, row := range rows {
			if id(row) == want {
				return i, nil
			}
		}
		return 0, errs.FieldError("graph.pageSlice", field, errs.MsgCursorGone)
	}
	lo, hi := 0, len(rows)
	if p.Keyset.After != 0 {
		i, err := index("after", p.Keyset.After)
		if err != nil {
			return nil, err
		}
		lo = i + 1
	}
	if p.Keyset.Before != 0 {
		i, err := index("before", p.Keyset.Before)
		if err != nil {
			return nil, err
		}
		hi = i
	}
	if lo > hi {
		return rows[:0], nil
	}
	window := rows[lo:hi]
	if p.Keyset.Backward {
		return window[max(len(window)-p.Limit, 0):], nil
	}
	return window[:min(p.Limit, len(window))], nil
}

// wholeConnection pages rows, a short list read whole in its order (an
// organization's teams, a team's members), with a's arguments into the
// connection that conn makes.
func wholeConnection[T, C any](r *Resolver, typ string, a pageArgs, rows []T, id func(T) int64, conn func(pager, []T, int) C) (C, error) {
	var zero C
	pg, err := r.page(typ, a)
	if err != nil {
		return zero, err
	}
	page, err := pageSlice(pg, rows, id)
	if err != nil {
		return zero, err
	}
	return conn(pg, page, len(rows)), nil
}
