package rest

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"
)

// jdoc is a JSON document (the executor's answer) read into a flat tree of
// spans over its bytes. REST reads the answer through it and writes its own
// answer from the same bytes in one pass (jwriter): no map, slice or string
// per value, and values that REST shows as fetched are copied as they are
// whenever encoding/json would write the same bytes.
type jdoc struct {
	data  []byte
	nodes []jnode
}

// jnode is one value of a jdoc, in document order: an object's or array's
// members follow it, up to the node numbered after.
type jnode struct {
	kstart, kend int32 // the member's key, quotes included (0, 0 outside objects)
	start, end   int32 // the value's bytes
	after        int32 // the index of the first node after this one's members
	kind         byte  // '{', '[', '"', '0' (number), 't', 'f', 'n' (null)
	plain        bool  // a string without escapes, of printable ASCII: encoding/json writes it as it is
	keyPlain     bool  // the same, of the key
}

var errSyntax = errors.New("rest: JSON syntax error")

// none is the node index of a value that is not there.
const none = -1

var docPool = sync.Pool{New: func() any { return &jdoc{nodes: make([]jnode, 0, 256)} }}

// parseDoc reads data into a pooled jdoc (release it when done). It fails
// on what is not JSON.
func parseDoc(data []byte) (*jdoc, error) {
	d := docPool.Get().(*jdoc)
	d.data, d.nodes = data, d.nodes[:0]
	if want := len(data)/16 + 16; cap(d.nodes) < want { // about one value in 22-26 bytes
		d.nodes = make([]jnode, 0, want)
	}
	p := jparser{d: d}
	p.space()
	err := p.value(0, 0, false)
	if p.space(); err == nil && p.i != len(data) {
		err = errSyntax
	}
	if err != nil {
		d.release()
		return nil, err
	}
	return d, nil
}

// release hands d back to the pool; d is not used after.
func (d *jdoc) release() {
	if d == nil || cap(d.nodes) > 1<<18 {
		return
	}
	d.data = nil
	docPool.Put(d)
}

type jparser struct {
	d *jdoc
	i int
}

func (p *jparser) space() {
	for p.i < len(p.d.data) {
		switch p.d.data[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// value reads one value at i, whose key (if any) spans [ks, ke).
func (p *jparser) value(ks, ke int, keyPlain bool) error {
	data := p.d.data
	if p.i >= len(data) {
		return errSyntax
	}
	idx := len(p.d.nodes)
	p.d.nodes = append(p.d.nodes, jnode{kstart: int32(ks), kend: int32(ke), keyPlain: keyPlain, start: int32(p.i)})
	var kind byte
	plain := false
	switch c := data[p.i]; {
	case c == '{' || c == '[':
		kind = c
		closing := byte(']')
		if c == '{' {
			closing = '}'
		}
		p.i++
		p.space()
		if p.i < len(data) && data[p.i] == closing {
			p.i++
			break
		}
		for {
			p.space()
			ks, ke, kp := 0, 0, false
			if kind == '{' {
				ks = p.i
				var err error
				if kp, err = p.str(); err != nil {
					return err
				}
				ke = p.i
				p.space()
				if p.i >= len(data) || data[p.i] != ':' {
					return errSyntax
				}
				p.i++
				p.space()
			}
			if err := p.value(ks, ke, kp); err != nil {
				return err
			}
			if more, err := p.next(closing); !more {
				if err != nil {
					return err
				}
				break
			}
		}
	case c == '"':
		kind = '"'
		var err error
		if plain, err = p.str(); err != nil {
			return err
		}
	case c == 't' || c == 'f' || c == 'n':
		kind = c
		lit := "null"
		switch c {
		case 't':
			lit = "true"
		case 'f':
			lit = "false"
		}
		if len(data)-p.i < len(lit) || string(data[p.i:p.i+len(lit)]) != lit {
			return errSyntax
		}
		p.i += len(lit)
	default:
		kind = '0'
		if !p.number() {
			return errSyntax
		}
	}
	n := &p.d.nodes[idx]
	n.kind, n.plain, n.end, n.after = kind, plain, int32(p.i), int32(len(p.d.nodes))
	return nil
}

// number reads a number at i as JSON writes it: -?int frac? exp?.
func (p *jparser) number() bool {
	data := p.d.data
	digits := func() int {
		start := p.i
		for p.i < len(data) && '0' <= data[p.i] && data[p.i] <= '9' {
			p.i++
		}
		return p.i - start
	}
	if p.i < len(data) && data[p.i] == '-' {
		p.i++
	}
	start := p.i
	if n := digits(); n == 0 || (n > 1 && data[start] == '0') {
		return false
	}
	if p.i < len(data) && data[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return false
		}
	}
	if p.i < len(data) && (data[p.i] == 'e' || data[p.i] == 'E') {
		p.i++
		if p.i < len(data) && (data[p.i] == '+' || data[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return false
		}
	}
	return true
}

// shortInteger reports whether n is an integer literal of at most 15
// digits: one that marshal writes as it is.
func shortInteger(n []byte) bool {
	if len(n) > 0 && n[0] == '-' {
		n = n[1:]
	}
	if len(n) == 0 || len(n) > 15 {
		return false
	}
	for _, c := range n {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// next reads what follows a member: a comma (more follow) or closing.
func (p *jparser) next(closing byte) (more bool, err error) {
	p.space()
	if p.i >= len(p.d.data) {
		return false, errSyntax
	}
	p.i++
	switch p.d.data[p.i-1] {
	case ',':
		return true, nil
	case closing:
		return false, nil
	}
	return false, errSyntax
}

// str reads a string at i and reports whether it is plain. Escapes are
// checked here, so that unquoting a string later cannot fail.
func (p *jparser) str() (plain bool, err error) {
	data := p.d.data
	if p.i >= len(data) || data[p.i] != '"' {
		return false, errSyntax
	}
	plain = true
	for p.i++; p.i < len(data); p.i++ {
		switch c := data[p.i]; {
		case c == '"':
			p.i++
			return plain, nil
		case c == '\\':
			plain = false
			p.i++
			if p.i >= len(data) {
				return false, errSyntax
			}
			switch data[p.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if p.i+4 >= len(data) {
					return false, errSyntax
				}
				for _, h := range data[p.i+1 : p.i+5] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return false, errSyntax
					}
				}
				p.i += 4
			default:
				return false, errSyntax
			}
		case c < 0x20:
			return false, errSyntax
		case c >= utf8.RuneSelf:
			plain = false
		}
	}
	return false, errSyntax
}

// kind is the kind of node n (0 when n is none).
func (d *jdoc) kind(n int) byte {
	if n < 0 {
		return 0
	}
	return d.nodes[n].kind
}

// isObject reports whether n is an object.
func (d *jdoc) isObject(n int) bool { return d.kind(n) == '{' }

// isTrue reports whether n is true.
func (d *jdoc) isTrue(n int) bool { return d.kind(n) == 't' }

// members returns the first member of object or array n and the index
// past its last (the same index when it has none, or is not one); the
// member after c is d.next(c):
//
//	for c, end := d.members(n); c < end; c = d.next(c) {
func (d *jdoc) members(n int) (first, end int) {
	if k := d.kind(n); k != '{' && k != '[' {
		return 0, 0
	}
	return n + 1, int(d.nodes[n].after)
}

// next returns the member after member c.
func (d *jdoc) next(c int) int { return int(d.nodes[c].after) }

// keyIs reports whether member c's key is k.
func (d *jdoc) keyIs(c int, k string) bool {
	nd := &d.nodes[c]
	if nd.keyPlain {
		return string(d.data[nd.kstart+1:nd.kend-1]) == k
	}
	return d.key(c) == k
}

// key returns member c's key, unquoted.
func (d *jdoc) key(c int) string {
	nd := &d.nodes[c]
	if nd.keyPlain {
		return string(d.data[nd.kstart+1 : nd.kend-1])
	}
	return unquote(d.data[nd.kstart:nd.kend])
}

// field returns the member k of object n (none when n is not an object or
// has no such member). The executor writes each key of an object once.
func (d *jdoc) field(n int, k string) int {
	if !d.isObject(n) {
		return none
	}
	for c, end := d.members(n); c < end; c = d.next(c) {
		if d.keyIs(c, k) {
			return c
		}
	}
	return none
}

// at follows path from n through objects; none when a step is missing or
// is not an object.
func (d *jdoc) at(n int, path []string) int {
	if !d.isObject(n) {
		return none
	}
	for _, k := range path {
		if n = d.field(n, k); !d.isObject(n) {
			return none
		}
	}
	return n
}

// str returns string n unquoted ("" when n is not a string).
func (d *jdoc) str(n int) string {
	if d.kind(n) != '"' {
		return ""
	}
	nd := &d.nodes[n]
	if nd.plain {
		return string(d.data[nd.start+1 : nd.end-1])
	}
	return unquote(d.data[nd.start:nd.end])
}

// text returns string n unquoted, or number n as written, as bytes that
// the caller must not keep or change (nil for anything else).
func (d *jdoc) text(n int) []byte {
	switch d.kind(n) {
	case '"':
		nd := &d.nodes[n]
		if nd.plain {
			return d.data[nd.start+1 : nd.end-1]
		}
		return []byte(d.str(n))
	case '0':
		return d.data[d.nodes[n].start:d.nodes[n].end]
	}
	return nil
}

// strText is text for a string n only (nil for anything else).
func (d *jdoc) strText(n int) []byte {
	if d.kind(n) != '"' {
		return nil
	}
	return d.text(n)
}

// unquote unquotes a JSON string whose escapes were checked by jparser.str,
// as encoding/json does (invalid UTF-8 becomes U+FFFD).
func unquote(quoted []byte) string {
	var s string
	json.Unmarshal(quoted, &s)
	return s
}

// jwriter writes REST's JSON from a jdoc. Its first error sticks.
type jwriter struct {
	d   *jdoc
	b   []byte
	err error
}

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

// newWriter returns a writer over d with a pooled buffer (see done), large
// enough for REST's answer from d: its bytes and about as many again.
func newWriter(d *jdoc) *jwriter {
	b := (*bufPool.Get().(*[]byte))[:0]
	if d != nil && cap(b) < 2*len(d.data)+512 {
		b = make([]byte, 0, 2*len(d.data)+512)
	}
	return &jwriter{d: d, b: b}
}

// done hands the buffer back to the pool; w.b is not used after.
func (w *jwriter) done() {
	if cap(w.b) <= 4<<20 {
		b := w.b[:0]
		bufPool.Put(&b)
	}
	w.b = nil
}

func (w *jwriter) raw(s string) { w.b = append(w.b, s...) }

func (w *jwriter) byte(c byte) { w.b = append(w.b, c) }

// key writes `"k":` for one of REST's own keys.
func (w *jwriter) key(k string) {
	w.str(k)
	w.b = append(w.b, ':')
}

// comma writes the comma before every member but the first.
func (w *jwriter) comma(first *bool) {
	if !*first {
		w.b = append(w.b, ',')
	}
	*first = false
}

// str writes s as marshal does.
func (w *jwriter) str(s string) {
	if w.err != nil {
		return
	}
	w.b, w.err = appendString(w.b, s)
}

// nullString writes s as marshal writes a *string.
func (w *jwriter) nullString(s *string) {
	if s == nil {
		w.raw("null")
		return
	}
	w.str(*s)
}

// listHead writes a list answer's envelope up to its results array (v2 and
// v3 alike): {"count":N,"next":…,"previous":…,"results":
func (w *jwriter) listHead(count int, next, previous *string) {
	w.raw(`{"count":`)
	w.b = strconv.AppendInt(w.b, int64(count), 10)
	w.raw(`,"next":`)
	w.nullString(next)
	w.raw(`,"previous":`)
	w.nullString(previous)
	w.raw(`,"results":`)
}

// strBytes writes s as marshal writes string(s).
func (w *jwriter) strBytes(s []byte) {
	for _, c := range s {
		if c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' {
			w.str(string(s))
			return
		}
	}
	w.b = append(w.b, '"')
	w.b = append(w.b, s...)
	w.b = append(w.b, '"')
}

// path writes the string links + "/api/v3/projects/" + each part and "/",
// as marshal writes it.
func (w *jwriter) path(links string, parts ...[]byte) {
	start := len(w.b)
	w.b = append(w.b, '"')
	w.b = append(w.b, links...)
	w.b = append(w.b, "/api/v3/projects/"...)
	for _, p := range parts {
		w.b = append(w.b, p...)
		w.b = append(w.b, '/')
	}
	for _, c := range w.b[start+1:] {
		if c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' {
			s := string(w.b[start+1:])
			w.b = w.b[:start]
			w.str(s)
			return
		}
	}
	w.b = append(w.b, '"')
}

// value writes node n as marshal writes encoding/json's decoding of it
// (UseNumber; null for none): strings and numbers as they are when encoding/json would
// write the same bytes, objects with their keys sorted.
func (w *jwriter) value(n int) {
	if w.err != nil {
		return
	}
	d := w.d
	switch d.kind(n) {
	case 0, 'n':
		w.raw("null")
	case 't':
		w.raw("true")
	case 'f':
		w.raw("false")
	case '"':
		if nd := &d.nodes[n]; nd.plain {
			w.b = append(w.b, d.data[nd.start:nd.end]...)
		} else {
			w.str(d.str(n))
		}
	case '0':
		if num := d.data[d.nodes[n].start:d.nodes[n].end]; shortInteger(num) {
			w.b = append(w.b, num...)
		} else {
			w.b, w.err = appendJSON(w.b, json.Number(num))
		}
	case '[':
		w.byte('[')
		for c, end := d.members(n); c < end; c = d.next(c) {
			if c > n+1 {
				w.byte(',')
			}
			w.value(c)
		}
		w.byte(']')
	case '{':
		w.object(n, false, "", "")
	}
}

// jmember is a member of an object being written in key order.
type jmember struct {
	key  []byte // unquoted
	node int    // none: the extra member
}

// memberKey returns member c's key unquoted, as bytes the caller must not
// keep or change.
func (d *jdoc) memberKey(c int) []byte {
	if nd := &d.nodes[c]; nd.keyPlain {
		return d.data[nd.kstart+1 : nd.kend-1]
	}
	return []byte(d.key(c))
}

// sortMembers sorts ms by key as marshal sorts a map's keys, and leaves
// out each member whose key a later one repeats (the decoded map keeps the
// last).
func sortMembers(ms []jmember) []jmember {
	slices.SortStableFunc(ms, func(a, b jmember) int { return bytes.Compare(a.key, b.key) })
	out := ms[:0]
	for i, m := range ms {
		if i+1 < len(ms) && bytes.Equal(ms[i+1].key, m.key) {
			continue
		}
		out = append(out, m)
	}
	return out
}

// object writes object n as marshal writes its decoded map: keys sorted, a
// repeated key with its last value, members whose value is null left out
// when skipNull. extraKey, when not "", is one more member (extraVal, raw
// JSON) that replaces any member of that name.
func (w *jwriter) object(n int, skipNull bool, extraKey, extraVal string) {
	d := w.d
	first, end := d.members(n)
	// Fast path: plain keys in strictly increasing order, none named
	// extraKey, as encoding/json writes a map.
	sorted := true
	var prev []byte
	for c := first; c < end && sorted; c = d.next(c) {
		nd := &d.nodes[c]
		k := d.data[nd.kstart+1 : nd.kend-1]
		sorted = nd.keyPlain && (c == first || bytes.Compare(prev, k) < 0) && (extraKey == "" || string(k) != extraKey)
		prev = k
	}
	w.byte('{')
	if sorted {
		pending, comma := extraKey != "", false
		for c := first; c < end; c = d.next(c) {
			nd := &d.nodes[c]
			if pending && string(d.data[nd.kstart+1:nd.kend-1]) > extraKey {
				w.extra(&comma, extraKey, extraVal)
				pending = false
			}
			if skipNull && nd.kind == 'n' {
				continue
			}
			if comma {
				w.byte(',')
			}
			comma = true
			w.b = append(w.b, d.data[nd.kstart:nd.kend]...)
			w.byte(':')
			w.value(c)
		}
		if pending {
			w.extra(&comma, extraKey, extraVal)
		}
		w.byte('}')
		return
	}
	ms := make([]jmember, 0, end-first+1)
	for c := first; c < end; c = d.next(c) {
		if k := d.memberKey(c); extraKey == "" || string(k) != extraKey {
			ms = append(ms, jmember{k, c})
		}
	}
	if extraKey != "" {
		ms = append(ms, jmember{[]byte(extraKey), none})
	}
	comma := false
	for _, m := range sortMembers(ms) {
		if m.node == none {
			w.extra(&comma, extraKey, extraVal)
			continue
		}
		if skipNull && d.kind(m.node) == 'n' {
			continue
		}
		if comma {
			w.byte(',')
		}
		comma = true
		w.strBytes(m.key)
		w.byte(':')
		w.value(m.node)
	}
	w.byte('}')
}

// extra writes the member key: raw of object.
func (w *jwriter) extra(comma *bool, key, raw string) {
	if *comma {
		w.byte(',')
	}
	*comma = true
	w.key(key)
	w.raw(raw)
}

// rawJSON is JSON that REST has already written; marshal copies it. A nil
// rawJSON is one whose writing failed: marshal fails on it.
type rawJSON []byte

var errRawJSON = errors.New("rest: JSON not written")

// valueJSON returns node n written as jwriter.value writes it.
func (d *jdoc) valueJSON(n int) rawJSON {
	w := &jwriter{d: d}
	w.value(n)
	return w.result()
}

// result returns what w wrote, nil after an error.
func (w *jwriter) result() rawJSON {
	if w.err != nil {
		return nil
	}
	return rawJSON(w.b)
}
