package errs

import (
	"errors"
	"sort"
	"strings"
)

// UserError is one message about a mutation's input, as GraphQL mutation
// payloads list it (`errors: [UserError!]!`): Path names the input field in
// the schema's camelCase, from the argument down (["input", "toUrl"]; a
// message about the whole input, or a whole nested object, stops at it);
// Code is the kind's code (INVALID, CONFLICT).
//
// The API's Fields keys stay snake_case (REST renders them as they are);
// InputPath and FieldKey convert between the two, here and nowhere else.
type UserError struct {
	Path    []string `json:"path"`
	Message string   `json:"message"`
	Code    string   `json:"code"`
}

// InputArg is the name of every mutation's one argument, the first element
// of a UserError's path.
const InputArg = "input"

// InputPath turns a Fields key ("repository.url", "to_url",
// "non_field_errors") into its input path (["input", "repository", "url"],
// ["input", "toUrl"], ["input"]).
func InputPath(field string) []string {
	path := []string{InputArg}
	for _, part := range strings.Split(field, ".") {
		if part == NonField || part == "" {
			continue
		}
		path = append(path, camel(part))
	}
	return path
}

// FieldKey is InputPath's inverse: ["input", "toUrl"] → "to_url", ["input"]
// → "non_field_errors".
func FieldKey(path []string) string {
	if len(path) > 0 && path[0] == InputArg {
		path = path[1:]
	}
	parts := make([]string, 0, len(path)+1)
	for _, p := range path {
		parts = append(parts, snake(p))
	}
	if len(parts) == 0 {
		return NonField
	}
	return strings.Join(parts, ".")
}

// UserErrors returns the messages an Invalid or Conflict error carries as
// UserErrors: its field messages in the order of their keys, or, when it has
// none, its message with an empty path (it concerns the state of things, not
// an input field: a build already finished). Any other error, and one with
// no text, gives nil: those stay top-level errors (not found, forbidden,
// throttled, …).
func UserErrors(err error) []UserError {
	k := KindOf(err)
	if err == nil || (k != Invalid && k != Conflict) {
		return nil
	}
	f := FieldsOf(err)
	if len(f) == 0 {
		var e *Error
		if errors.As(err, &e) && e.Text() != "" {
			return []UserError{{Path: []string{}, Message: e.Text(), Code: k.String()}}
		}
		return nil
	}
	keys := make([]string, 0, len(f))
	for key := range f {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	var out []UserError
	for _, key := range keys {
		for _, msg := range f[key] {
			out = append(out, UserError{Path: InputPath(key), Message: msg, Code: k.String()})
		}
	}
	return out
}

// FromUserErrors is UserErrors' inverse, for callers that read a payload's
// errors (REST): an error of the first UserError's kind carrying their
// messages under snake_case keys, or the first one's message alone when its
// path is empty; nil when there are none.
func FromUserErrors(op string, list []UserError) error {
	if len(list) == 0 {
		return nil
	}
	kind := KindFromCode(list[0].Code)
	if len(list[0].Path) == 0 {
		return &Error{Kind: kind, Op: op, Message: list[0].Message}
	}
	f := Fields{}
	for _, ue := range list {
		key := FieldKey(ue.Path)
		f[key] = append(f[key], ue.Message)
	}
	return &Error{Kind: kind, Op: op, Fields: f}
}

// camel turns snake_case into camelCase: "to_url" → "toUrl".
func camel(s string) string {
	parts := strings.Split(s, "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

// snake turns camelCase into snake_case: "toUrl" → "to_url".
func snake(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 'A' && r <= 'Z' {
			b.WriteByte('_')
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}
