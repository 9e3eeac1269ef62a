package store

import (
	"context"
	"slices"
	"strings"

	"docsd/internal/errs"
)

// Keyset is a cursor window over a list, in the list's own order: with
// After, only the rows that come after the row with that id; with Before,
// only those that come before it. Backward reads the list from its end, so
// that the filter's Limit keeps the rows nearest Before (or the last rows);
// they are still returned in the list's order. A window is anchored on rows,
// not on positions: rows inserted or deleted elsewhere in the list neither
// repeat nor skip rows of the next window.
type Keyset struct {
	After, Before int64
	Backward      bool
}

// Page is the window of a list without a filter struct: Limit rows (<= 0:
// all) from Offset, or by Keyset.
type Page struct {
	Limit, Offset int
	Keyset        *Keyset
}

// orderKey is one term of a list's ORDER BY: a column of the list's table
// and its direction. The last key of every order is the id.
type orderKey struct {
	col  string
	text bool // compared by code point
	desc bool
}

// orderBy is the ORDER BY clause (without the keyword) of keys on the table
// aliased alias; backward reverses every direction.
func (s *Store) orderBy(alias string, keys []orderKey, backward bool) string {
	terms := make([]string, len(keys))
	for i, k := range keys {
		terms[i] = s.keyExpr(alias, k)
		if k.desc != backward {
			terms[i] += " DESC"
		}
	}
	return strings.Join(terms, ", ")
}

// backward reports whether a window is read from the end of its list.
func backward(k *Keyset) bool { return k != nil && k.Backward }

// inOrder puts rows read backward back into their list's order.
func inOrder[T any](k *Keyset, rows []T) {
	if backward(k) {
		slices.Reverse(rows)
	}
}

func (s *Store) keyExpr(alias string, k orderKey) string {
	if k.text {
		return s.codepoint(alias + "." + k.col)
	}
	return alias + "." + k.col
}

// addKeyset narrows w to the window k of the list of table (aliased alias)
// ordered by keys; from is the list's FROM clause and w its conditions. A
// cursor row that is not in that list as its caller sees it (never was,
// was deleted, belongs to another list, or is hidden from the caller) is
// Invalid on field `after` or `before`, with one message for all of these
// so that a cursor cannot tell whether a row the caller may not see exists
// or where it sorts.
func (s *Store) addKeyset(ctx context.Context, w *where, from, table, alias string, keys []orderKey, k *Keyset) error {
	const op = "store.keyset"
	if k == nil {
		return nil
	}
	for _, c := range []struct {
		id    int64
		field string
		after bool
	}{{k.After, "after", true}, {k.Before, "before", false}} {
		if c.id == 0 {
			continue
		}
		member := &where{conds: append(slices.Clone(w.conds), alias+".id = ?"), args: append(slices.Clone(w.args), c.id)}
		var n int
		if err := s.read().getIn(ctx, &n, `SELECT COUNT(*)`+from+member.String(), member.args...); err != nil {
			return classify(op, err)
		}
		if n == 0 {
			return errs.FieldError(op, c.field, errs.MsgCursorGone)
		}
		// (k0, k1, …) after or before the cursor row's, each key in its
		// own direction: k0 ≷ c0 OR (k0 = c0 AND k1 ≷ c1) OR …
		var ors []string
		var args []any
		for i, key := range keys {
			var ands []string
			for _, prev := range keys[:i] {
				ands = append(ands, s.keyExpr(alias, prev)+" = (SELECT c."+prev.col+" FROM "+table+" c WHERE c.id = ?)")
				args = append(args, c.id)
			}
			cmp := ">"
			if key.desc == c.after {
				cmp = "<"
			}
			ands = append(ands, s.keyExpr(alias, key)+" "+cmp+" (SELECT c."+key.col+" FROM "+table+" c WHERE c.id = ?)")
			args = append(args, c.id)
			ors = append(ors, "("+strings.Join(ands, " AND ")+")")
		}
		w.add("("+strings.Join(ors, " OR ")+")", args...)
	}
	return nil
}

// listRead is one page of a list: SELECT cols FROM from WHERE w ORDER BY
// order, the table of the order's keys aliased alias, Limit rows from Offset
// or by Keyset.
type listRead struct {
	cols, from, table, alias string
	order                    []orderKey
	w                        *where
	limit, offset            int
	keyset                   *Keyset
}

// findPage reads the page l into rows and returns the list's total
// regardless of the page; next makes each row and its destinations (see
// scanAll), to which findPage adds the total's. An offset page reads its
// rows and the total in one statement (COUNT(*) OVER ()); only a page past
// the end, which has no row to carry the total, runs a second one, the
// COUNT. A keyset page counts first, as its window's conditions would
// narrow the count, and selects no window. Rows read backward are returned in the list's order.
func findPage[T any](ctx context.Context, s *Store, rows *[]T, next func(buf []any) (T, []any), l listRead) (int, error) {
	count := func() (int, error) {
		var n int
		err := s.read().getIn(ctx, &n, `SELECT COUNT(*)`+l.from+l.w.String(), l.w.args...)
		return n, err
	}
	n := -1
	if l.keyset != nil {
		var err error
		if n, err = count(); err != nil || n == 0 {
			return n, err
		}
		if err := s.addKeyset(ctx, l.w, l.from, l.table, l.alias, l.order, l.keyset); err != nil {
			return 0, err
		}
	}
	// The window counts every match past the page's end: only an offset
	// page, which has no count yet, selects it.
	cols, makeRow := l.cols, next
	var total int
	if n < 0 {
		cols += `, COUNT(*) OVER () AS page_total`
		makeRow = func(buf []any) (T, []any) {
			row, buf := next(buf)
			return row, append(buf, &total)
		}
	}
	q := s.page(`SELECT `+cols+l.from+l.w.String()+
		` ORDER BY `+s.orderBy(l.alias, l.order, backward(l.keyset)), l.limit, l.offset)
	if err := scanAll(ctx, s.read(), rows, makeRow, q, l.w.args...); err != nil {
		return 0, err
	}
	inOrder(l.keyset, *rows)
	switch {
	case n >= 0:
		return n, nil
	case len(*rows) > 0:
		return total, nil
	case l.offset > 0:
		return count()
	}
	return 0, nil
}
