package rtdconfig

import (
	"fmt"
	"path"
	"strings"
)

// The messages of the current rules: Read the Docs' generic validation
// messages (ConfigValidationError) and rule messages (ConfigError). Read the
// Docs shows them as HTML notifications; a build's error is that text as
// plain text (tags removed, entities decoded, each run of whitespace one
// space) after MsgConfigPrefix, with the notification's message id.

// rule is a ConfigError: a rule about the file.
func rule(id, msg string) error { return fail(id, MsgConfigPrefix+msg) }

// validation is a ConfigValidationError about key.
func validation(id, key, text string) error {
	return fail(id, MsgConfigPrefix+"Config validation error in "+key+". "+text)
}

// typed renders "type <type> (<value>)".
func typed(x any) string { return fmt.Sprintf("type %s (%s)", pyType(x), pyStr(x)) }

func notFound(key string) error {
	return validation("config:validation:value-not-found", key, "Value "+key[strings.LastIndex(key, ".")+1:]+" not found.")
}

func choiceError(key string, choices []string, x any) error {
	return validation("config:validation:invalid-choice", key, fmt.Sprintf(
		`Expected one of (%s), got %s. Double check the type of the value. A string may be required (e.g. "3.10" instead of 3.10)`,
		strings.Join(choices, ", "), typed(x)))
}

// pyType is Python's type name of a parsed value.
func pyType(x any) string {
	switch x.(type) {
	case nil:
		return "NoneType"
	case bool:
		return "bool"
	case string:
		return "str"
	case int64, int:
		return "int"
	case yamlFloat, float64:
		return "float"
	case []any:
		return "list"
	case *Map:
		return "dict"
	}
	return fmt.Sprintf("%T", x)
}

func vDict(key string, x any) (*Map, error) {
	if m, ok := x.(*Map); ok {
		return m, nil
	}
	return nil, validation("config:validation:invalid-dict", key, "Expected a dictionary, got "+typed(x)+".")
}

func vList(key string, x any) ([]any, error) {
	if l, ok := x.([]any); ok {
		return l, nil
	}
	return nil, validation("config:validation:invalid-list", key, "Expected a list, got "+typed(x)+".")
}

func vString(key string, x any) (string, error) {
	if s, ok := x.(string); ok {
		return s, nil
	}
	return "", validation("config:validation:invalid-string", key, "Expected a string, got "+typed(x)+".")
}

// vStrings validates a list of strings; items are named by key.
func vStrings(key string, x any) ([]string, error) {
	l, err := vList(key, x)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(l))
	for _, e := range l {
		s, err := vString(key, e)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// vChoice validates a string among choices; numbers never match.
func vChoice(key string, x any, choices []string) (string, error) {
	if s, ok := x.(string); ok {
		for _, c := range choices {
			if c == s {
				return s, nil
			}
		}
	}
	return "", choiceError(key, choices, x)
}

// vBool reads m[last segment of key] as Read the Docs' validate_bool does.
func vBool(key string, m *Map, def bool) (bool, error) {
	x, ok := m.Get(key[strings.LastIndex(key, ".")+1:])
	if !ok {
		return def, nil
	}
	if b, ok := pyBool(x); ok {
		return b, nil
	}
	return false, validation("config:validation:invalid-bool", key,
		"Expected one of [0, 1, true, false], got "+typed(x)+". Make sure the type of the value is not a string.")
}

// vPath validates a path relative to the checkout (existence is not
// checked) and returns it normalised.
func vPath(key string, x any) (string, error) {
	s, err := vString(key, x)
	if err != nil {
		return "", err
	}
	rel := CleanRel(s)
	if strings.TrimSpace(s) == "" || rel == "" {
		text := "The path " + s + " does not exist."
		if s == "" {
			text = "The path does not exist."
		}
		return "", validation("config:validation:invalid-path", key, text)
	}
	return rel, nil
}

// pathPattern is Read the Docs' validate_path_pattern: a non-empty pattern
// made relative to the root.
func pathPattern(key string, x any) (string, error) {
	s, err := vString(key, x)
	if err != nil {
		return "", err
	}
	p, ok := normalPattern(s)
	if !ok {
		return "", validation("config:validation:invalid-path-pattern", key, "The path "+s+" is not a valid path pattern.")
	}
	return p, nil
}

// normalPattern makes a path pattern relative to the root: prefixed with
// `/`, cleaned, the leading `/` removed. A pattern left empty is not
// valid.
func normalPattern(s string) (string, bool) {
	p := strings.TrimLeft(path.Clean("/"+strings.TrimLeft(s, "/")), "/")
	return p, p != ""
}
