package store

import (
	"context"
	"database/sql"
	"strings"

	"github.com/jmoiron/sqlx"
)

// The hot reads (projects, versions, builds, build commands, users) scan
// their rows with database/sql directly instead of through sqlx: sqlx maps
// each row's columns to struct fields by reflection, which cost more than
// the database itself on a list of wide rows. A rowType holds a struct's
// SELECT list and the addresses of the fields each column is scanned
// into, written once side by side, so that the SELECT and the Scan cannot
// drift; TestRowTypes checks every column against its field's db tag.

// col is one column of a rowType: the SQL expression that selects it
// (`t.column`, or `expression AS name`) and the address of the field of T
// that it is scanned into, whose db tag is the column's name.
type col[T any] struct {
	expr string
	addr func(*T) any
}

// rowType is the SELECT list of a row type T and how a row is scanned.
type rowType[T any] struct {
	cols  string // the SELECT list, the columns in order
	exprs []string
	addrs []func(*T) any
}

func newRowType[T any](cols ...col[T]) *rowType[T] {
	rt := &rowType[T]{}
	for _, c := range cols {
		rt.exprs = append(rt.exprs, c.expr)
		rt.addrs = append(rt.addrs, c.addr)
	}
	rt.cols = strings.Join(rt.exprs, ", ")
	return rt
}

// dests appends the addresses of t's fields, in column order, to buf.
func (rt *rowType[T]) dests(buf []any, t *T) []any {
	for _, addr := range rt.addrs {
		buf = append(buf, addr(t))
	}
	return buf
}

// next is a scanRows row maker: a new T and its fields' addresses.
func (rt *rowType[T]) next(buf []any) (*T, []any) {
	t := new(T)
	return t, rt.dests(buf, t)
}

// query runs a read with `?` placeholders, through the reader pool's
// prepared statement when there is one.
func (c conn) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	c.s.queries.Add(1)
	query = c.q.Rebind(query)
	if stmt := c.prepared(ctx, query); stmt != nil {
		return stmt.QueryContext(ctx, args...)
	}
	return c.q.QueryContext(ctx, query, args...)
}

// scanAll runs query (its `IN (?)` slice arguments expanded by sqlx.In)
// and appends one row to *out for each row read: next returns the new row
// and, appended to the buffer it is given, the destinations to scan it
// into. *out is left as it was (nil or empty) when no row matches.
func scanAll[T any](ctx context.Context, c conn, out *[]T, next func(buf []any) (T, []any), query string, args ...any) error {
	query, args, err := sqlx.In(query, args...)
	if err != nil {
		return err
	}
	rows, err := c.query(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var buf []any
	for rows.Next() {
		var row T
		row, buf = next(buf[:0])
		if err := rows.Scan(buf...); err != nil {
			return err
		}
		*out = append(*out, row)
	}
	return rows.Err()
}

// scanOne runs query and scans its first row into dests; no row is
// sql.ErrNoRows.
func (c conn) scanOne(ctx context.Context, dests []any, query string, args ...any) error {
	rows, err := c.query(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return err
		}
		return sql.ErrNoRows
	}
	if err := rows.Scan(dests...); err != nil {
		return err
	}
	return rows.Close()
}

// getRow reads the first row of query into t; no row is sql.ErrNoRows.
func getRow[T any](ctx context.Context, c conn, rt *rowType[T], t *T, query string, args ...any) error {
	return c.scanOne(ctx, rt.dests(nil, t), query, args...)
}
