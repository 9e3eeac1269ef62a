package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
)

// The hot reads (projects, versions, builds, build commands, users) scan
// their rows with database/sql directly instead of through sqlx: sqlx maps
// each row's columns to struct fields by reflection, a cost per row and
// column on top of the driver's. A rowType holds a struct's SELECT list and
// the addresses of the fields each column is scanned into, written once
// side by side, so that the SELECT and the Scan cannot drift; TestRowTypes
// checks every column against its field's db tag.

// col is one column of a rowType: the SQL expression that selects it
// (`t.column`, or `expression AS name`) and the address of the field of T
// that it is scanned into, whose db tag is the column's name.
type col[T any] struct {
	expr string
	addr func(*T) any
}

// rowType is the SELECT list of a row type T and how a row is scanned.
type rowType[T any] struct {
	cols  string   // the SELECT list, the columns in order
	exprs []string // each column as declared
	addrs []func(*T) any
	times []timeKind // how each column is scanned when it is a time
}

// timeKind tells the time columns of a rowType: they are scanned through
// timeDest and optTimeDest.
type timeKind uint8

const (
	notTime   timeKind = iota
	isTime             // a time.Time field
	isOptTime          // a *time.Time field, nil for NULL
)

func newRowType[T any](cols ...col[T]) *rowType[T] {
	rt := &rowType[T]{}
	var zero T
	list := make([]string, len(cols))
	for i, c := range cols {
		rt.exprs = append(rt.exprs, c.expr)
		rt.addrs = append(rt.addrs, c.addr)
		kind := notTime
		switch c.addr(&zero).(type) {
		case *time.Time:
			kind = isTime
		case **time.Time:
			kind = isOptTime
		}
		rt.times = append(rt.times, kind)
		list[i] = c.expr
		if kind != notTime {
			list[i] = textTime(c.expr)
		}
	}
	rt.cols = strings.Join(list, ", ")
	return rt
}

// textTime is a time column t.c as `COALESCE(t.c, NULL) AS c`: the same
// timestamptz on PostgreSQL, but on SQLite an expression, which has no
// declared type, so that the driver hands the stored text to timeDest
// instead of parsing it itself. modernc's parser tries Go's time.String
// layout before the one the store writes, and that failed parse was half
// of the driver's allocations on a page of builds.
func textTime(expr string) string {
	if strings.Contains(expr, " AS ") {
		return expr
	}
	return "COALESCE(" + expr + ", NULL) AS " + expr[strings.LastIndexByte(expr, '.')+1:]
}

// dests appends the destinations of t's fields, in column order, to buf:
// their addresses, time fields wrapped in timeDest or optTimeDest.
func (rt *rowType[T]) dests(buf []any, t *T) []any {
	for i, addr := range rt.addrs {
		switch a := addr(t); rt.times[i] {
		case isTime:
			buf = append(buf, timeDest{a.(*time.Time)})
		case isOptTime:
			buf = append(buf, optTimeDest{a.(**time.Time)})
		default:
			buf = append(buf, a)
		}
	}
	return buf
}

// next is a scanAll row maker: a new T and its fields' destinations.
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

// timeDest scans a time column into a time.Time: the driver's time.Time
// (PostgreSQL), or SQLite's stored text, parsed as modernc's driver parses
// it. It is a struct of one pointer, so that it goes into an interface
// without an allocation.
type timeDest struct{ t *time.Time }

func (d timeDest) Scan(src any) error {
	switch v := src.(type) {
	case time.Time:
		*d.t = v
		return nil
	case string:
		t, err := parseSQLiteTime(v)
		if err != nil {
			return err
		}
		*d.t = t
		return nil
	}
	return fmt.Errorf("store: cannot scan %T into a time", src)
}

// optTimeDest is timeDest for a *time.Time field: NULL is nil.
type optTimeDest struct{ t **time.Time }

func (d optTimeDest) Scan(src any) error {
	if src == nil {
		*d.t = nil
		return nil
	}
	t := new(time.Time)
	if err := (timeDest{t}).Scan(src); err != nil {
		return err
	}
	*d.t = t
	return nil
}

// sqliteTimeLayout is how times are stored on SQLite (the DSN's
// _time_format=sqlite), the first of sqliteTimeLayouts.
const sqliteTimeLayout = "2006-01-02 15:04:05.999999999-07:00"

// sqliteTimeLayouts are the layouts modernc's driver tries, in its order,
// after Go's time.String layout; its DSN sets no _loc, so the times are
// as parsed.
var sqliteTimeLayouts = []string{
	sqliteTimeLayout,
	"2006-01-02T15:04:05.999999999-07:00",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04",
	"2006-01-02T15:04",
	"2006-01-02",
}

// parseSQLiteTime parses a stored time as modernc's driver does for a
// DATETIME column (conn.parseTime): the stored layout first, as no string
// that it parses is parsed by an earlier one of the driver's, then the
// driver's sequence, which tries its layouts without a trailing "Z".
func parseSQLiteTime(s string) (time.Time, error) {
	if t, err := time.Parse(sqliteTimeLayout, s); err == nil {
		return t, nil
	}
	ts := s
	if i := strings.Index(ts, "m="); i > 0 {
		ts = ts[:i]
	}
	if t, err := time.Parse("2006-01-02 15:04:05.999999999 -0700 MST", strings.TrimSpace(ts)); err == nil {
		return t, nil
	}
	ts = strings.TrimSuffix(s, "Z")
	for _, layout := range sqliteTimeLayouts {
		if t, err := time.Parse(layout, ts); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("store: %q is not a time", s)
}
