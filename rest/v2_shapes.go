package rest

import (
	"bytes"
	"errors"
	"strconv"

	"docsd/internal/choices"
)

// The v2 representations of projects, versions and builds. Each is asked of
// the graph with a fragment whose aliases are the v2 key names, and written
// from the executor's data by a v2Shape: its keys in wire order (v2 keys
// are not sorted), each value as the typed field of a Go struct decoded by
// encoding/json and encoded again would be written — null or a missing
// member as that type's zero value, a value of another JSON type an error
// (500). The few v2 keys that the graph does not have (`setup`, `output`,
// …) are constants.

// v2ProjectFragment selects a v2 Project.
const v2ProjectFragment = `
fragment v2Project on Project {
  id: databaseId
  name
  slug
  programming_language: programmingLanguage { code }
  default_version: defaultVersion
  default_branch: storedDefaultBranch
  repo_type: repository { type }
  repo: repository { url }
  description
  language { code }
  documentation_type: documentationType
  canonical_url: canonicalUrl
  users { id: databaseId }
}`

// v2VersionFragment selects a v2 Version; it needs v2ProjectFragment.
const v2VersionFragment = `
fragment v2Version on Version {
  id: databaseId
  slug
  verbose_name: verboseName
  built
  active
  type
  identifier
  privacy_level: privacyLevel
  downloads { pdf htmlzip epub }
  project { ...v2Project }
  has_pdf: hasPdf
  has_epub: hasEpub
  has_htmlzip: hasHtmlzip
  documentation_type: documentationType
}` + v2ProjectFragment

// v2BuildFragment selects a v2 Build with its commands.
const v2BuildFragment = `
fragment v2Build on Build {
  id: databaseId
  date: created
  length: duration
  type
  state { code }
  success: storedSuccess
  error
  commit
  docs_url: docsUrl
  project { id: databaseId slug }
  version { id: databaseId }
  version_slug: versionSlug
  commands {
    id
    description
    command
    exit_code: exitCode
    run_time: runTime
    output
    start_time: startTime
    end_time: endTime
  }
  commit_url: commitUrl
  config
  exit_code: exitCode
  version_name: versionName
  version_type: versionType
  readthedocs_yaml_path: readthedocsYamlPath
}`

// v2Shape is a v2 object: its keys in wire order.
type v2Shape []v2Key

// v2Key is one key of a v2 object.
type v2Key struct {
	name string
	// read finds the key's value in the fetched object obj, written inside
	// object parent (a command inside its build; none at the top); nil
	// reads obj's member of the same name.
	read  func(d *jdoc, obj, parent int) int
	write v2Value
	// writeIn, when set, writes the value instead of write, given the
	// object it belongs to (a build's commands, given the build).
	writeIn func(w *jwriter, v, obj int)
}

// v2Value writes fetched node n (none when it is missing) as a v2 value.
type v2Value func(w *jwriter, n int)

var errV2Type = errors.New("rest: v2 data of an unexpected type")

// fail records that the data does not have the type v2 wants.
func (w *jwriter) fail() {
	if w.err == nil {
		w.err = errV2Type
	}
}

// null reports whether n is missing or null (the zero value is written).
func (w *jwriter) null(n int) bool { k := w.d.kind(n); return k == 0 || k == 'n' }

// write writes object n; missing or null, it is written with every key's
// zero value, as a struct that decoding left alone.
func (s v2Shape) write(w *jwriter, n int) { s.writeIn(w, n, none) }

// writeIn is write for an object written inside object parent.
func (s v2Shape) writeIn(w *jwriter, n, parent int) {
	if !w.null(n) && !w.d.isObject(n) {
		w.fail()
		return
	}
	w.byte('{')
	for i, k := range s {
		if i > 0 {
			w.byte(',')
		}
		w.key(k.name)
		v := none
		if k.read != nil {
			v = k.read(w.d, n, parent)
		} else {
			v = w.d.field(n, k.name)
		}
		if k.writeIn != nil {
			k.writeIn(w, v, n)
		} else {
			k.write(w, v)
		}
	}
	w.byte('}')
}

// v2Const writes raw whatever was fetched.
func v2Const(raw string) v2Value { return func(w *jwriter, _ int) { w.raw(raw) } }

// v2Int writes an int64; null is 0.
func v2Int(w *jwriter, n int) {
	if w.null(n) {
		w.byte('0')
		return
	}
	w.integer(n)
}

// integer writes number n as an int64 (an error when it is not one).
func (w *jwriter) integer(n int) {
	raw := w.d.text(n)
	if w.d.kind(n) != '0' {
		w.fail()
		return
	}
	if shortInteger(raw) && !bytes.HasPrefix(raw, []byte("-0")) && (len(raw) == 1 || raw[0] != '0') {
		w.b = append(w.b, raw...) // as strconv writes it
		return
	}
	i, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		w.fail()
		return
	}
	w.b = strconv.AppendInt(w.b, i, 10)
}

// v2NullInt writes a *int64.
func v2NullInt(w *jwriter, n int) {
	if w.null(n) {
		w.raw("null")
		return
	}
	w.integer(n)
}

// v2String writes a string; null is "".
func v2String(w *jwriter, n int) {
	if w.textOrZero(n) {
		w.value(n)
	}
}

// textOrZero reports whether n is a string for the caller to write in its
// form; a null or missing n is written as "" and a value of another type
// is an error.
func (w *jwriter) textOrZero(n int) bool {
	if w.null(n) {
		w.raw(`""`)
		return false
	}
	if w.d.kind(n) != '"' {
		w.fail()
		return false
	}
	return true
}

// string writes string n (an error when it is not one).
func (w *jwriter) string(n int) {
	if w.d.kind(n) != '"' {
		w.fail()
		return
	}
	w.value(n)
}

// v2NullString writes a *string.
func v2NullString(w *jwriter, n int) {
	if w.null(n) {
		w.raw("null")
		return
	}
	w.string(n)
}

// v2Boolean writes a bool; null is false.
func v2Boolean(w *jwriter, n int) {
	switch w.d.kind(n) {
	case 0, 'n', 'f':
		w.raw("false")
	case 't':
		w.raw("true")
	default:
		w.fail()
	}
}

// v2Time writes a datetime as v2 does: the graph's UTC form without the
// `Z`, e.g. `2019-04-29T10:00:00.512000`; null is "".
func v2Time(w *jwriter, n int) {
	if w.textOrZero(n) {
		w.strBytes(bytes.TrimSuffix(w.d.text(n), []byte("Z")))
	}
}

// v2NullTime writes a datetime that may be null.
func v2NullTime(w *jwriter, n int) {
	if w.null(n) {
		w.raw("null")
		return
	}
	v2Time(w, n)
}

// v2Only writes a GraphQL object of which one field was selected as that
// field's value: `state { code }` as `"finished"`, each of
// `users { id: databaseId }` as an integer. A null object is an error;
// a missing one, and a null field, are the zero value.
func v2Only(value v2Value) v2Value {
	return func(w *jwriter, n int) {
		if n == none {
			value(w, none)
			return
		}
		if !w.d.isObject(n) || int(w.d.nodes[n].after) == n+1 || int(w.d.nodes[n+1].after) != int(w.d.nodes[n].after) {
			w.fail() // not an object of exactly one member
			return
		}
		value(w, n+1)
	}
}

// v2ChoiceName writes the display name of a code fetched as a string, as
// v2String writes the graph's name field of the same Choice (or
// BuildState): the name from t, the table the graph's resolver names the
// code with (store.Build.StateInfo). Asking the code alone saves the
// executor a field and an object per build.
func v2ChoiceName(t choices.Table) v2Value {
	return func(w *jwriter, n int) {
		if w.textOrZero(n) {
			w.str(t.Name(string(w.d.strText(n))))
		}
	}
}

// v2Array writes a list; null is null.
func v2Array(elem v2Value) v2Value {
	return func(w *jwriter, n int) {
		if w.null(n) {
			w.raw("null")
			return
		}
		if w.d.kind(n) != '[' {
			w.fail()
			return
		}
		w.byte('[')
		first := true
		for c, end := w.d.members(n); c < end; c = w.d.next(c) {
			w.comma(&first)
			elem(w, c)
		}
		w.byte(']')
	}
}

// v2Downloads has a key only for each format that exists; the graph gives
// null for the others.
func v2Downloads(w *jwriter, n int) {
	if !w.null(n) && !w.d.isObject(n) {
		w.fail()
		return
	}
	w.byte('{')
	first := true
	for _, format := range []string{"pdf", "htmlzip", "epub"} {
		v := w.d.field(n, format)
		if w.null(v) {
			continue
		}
		if w.d.kind(v) != '"' {
			w.fail()
			return
		}
		if w.d.nodes[v].end-w.d.nodes[v].start == 2 {
			continue // "": omitted
		}
		w.comma(&first)
		w.key(format)
		w.value(v)
	}
	w.byte('}')
}

// v2Config writes a stored build configuration with its keys sorted at
// every level and its numbers in their stored form; {} when the graph gave
// none.
func v2Config(w *jwriter, n int) {
	if n == none {
		w.raw("{}")
		return
	}
	w.value(n)
}

// v2ProjectShape is a v2 Project, keys in Read the Docs' v2 order.
var v2ProjectShape = v2Shape{
	{name: "id", write: v2Int},
	{name: "name", write: v2String},
	{name: "slug", write: v2String},
	{name: "programming_language", write: v2Only(v2String)},
	{name: "default_version", write: v2String},
	{name: "default_branch", write: v2NullString}, // raw stored value, null when unset
	{name: "repo_type", write: v2Only(v2String)},
	{name: "repo", write: v2Only(v2String)},
	{name: "description", write: v2String},
	{name: "language", write: v2Only(v2String)},
	{name: "documentation_type", write: v2String},
	{name: "canonical_url", write: v2String},
	{name: "users", write: v2Array(v2Only(v2Int))},  // maintainer ids
	{name: "custom_prefix", write: v2Const("null")}, // always null, as on Read the Docs
}

// v2VersionShape is a v2 Version, keys in Read the Docs' v2 order.
var v2VersionShape = v2Shape{
	{name: "id", write: v2Int},
	{name: "slug", write: v2String},
	{name: "verbose_name", write: v2String},
	{name: "built", write: v2Boolean},
	{name: "active", write: v2Boolean},
	{name: "type", write: v2String},
	{name: "identifier", write: v2String},
	{name: "privacy_level", write: v2String},
	{name: "downloads", write: v2Downloads},
	{name: "project", write: v2ProjectShape.write},
	{name: "has_pdf", write: v2Boolean},
	{name: "has_epub", write: v2Boolean},
	{name: "has_htmlzip", write: v2Boolean},
	// Keys Read the Docs added to v2 later, after the original ones.
	{name: "documentation_type", write: v2String},
}

// v2CommandShape is a v2 build command, keys in Read the Docs' v2 order.
// A command's build is the build it is listed in (the graph reads a build's
// commands by their build id): its id is not asked again per command.
var v2CommandShape = v2Shape{
	{name: "id", write: v2Int},
	{name: "build", read: func(d *jdoc, _, build int) int { return d.field(build, "id") }, write: v2Int},
	{name: "description", write: v2String},
	{name: "command", write: v2String},
	{name: "exit_code", write: v2NullInt},
	{name: "run_time", write: v2NullInt},
	{name: "output", write: v2String},
	{name: "start_time", write: v2Time},
	{name: "end_time", write: v2NullTime},
}

// v2BuildShape is a v2 Build, keys in Read the Docs' v2 order.
var v2BuildShape = v2Shape{
	{name: "id", write: v2Int},
	{name: "date", write: v2Time},
	{name: "length", write: v2NullInt},
	{name: "type", write: v2String},
	{name: "state", write: v2Only(v2String)},
	{name: "success", write: v2Boolean}, // the stored flag
	{name: "error", write: v2String},
	{name: "commit", write: v2NullString},
	{name: "docs_url", write: v2String},
	// The project is read once ({id, slug}) for both keys.
	{name: "project", write: v2BuildProject},
	{name: "project_slug", read: func(d *jdoc, b, _ int) int { return d.field(d.field(b, "project"), "slug") }, write: v2String},
	{name: "version", write: v2Only(v2Int)},
	{name: "version_slug", write: v2String},
	{name: "commands", writeIn: func(w *jwriter, v, b int) {
		v2Array(func(w *jwriter, c int) { v2CommandShape.writeIn(w, c, b) })(w, v)
	}},
	// The state's display name is written from its code (see v2ChoiceName).
	{name: "state_display", read: func(d *jdoc, b, _ int) int { return d.field(b, "state") }, write: v2Only(v2ChoiceName(choices.BuildStates))},
	{name: "commit_url", write: v2NullString},
	{name: "config", write: v2Config},
	{name: "setup", write: v2Const(`""`)},       // always ""
	{name: "setup_error", write: v2Const(`""`)}, // always ""
	{name: "output", write: v2Const(`""`)},      // always ""
	{name: "exit_code", write: v2NullInt},       // null until finished
	{name: "cold_storage", write: v2Const("null")},
	// Keys Read the Docs added to v2 later, after the original ones.
	{name: "version_name", write: v2String},
	{name: "version_type", write: v2String},
	{name: "readthedocs_yaml_path", write: v2NullString},
}

// v2BuildProject writes a build's project, read as {id, slug}, as its id
// (the slug's type is checked where project_slug is written).
func v2BuildProject(w *jwriter, n int) {
	if !w.null(n) && !w.d.isObject(n) {
		w.fail()
		return
	}
	v2Int(w, w.d.field(n, "id"))
}
