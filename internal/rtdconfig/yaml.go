package rtdconfig

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Map is a YAML mapping that remembers the order of its keys, so that
// "the first unknown key, depth-first", which messages name, is well
// defined.
type Map struct {
	keys []string
	vals map[string]any
}

func (m *Map) Get(key string) (any, bool) {
	v, ok := m.vals[key]
	return v, ok
}

func (m *Map) has(key string) bool { _, ok := m.vals[key]; return ok }

// pop removes key and returns its value.
func (m *Map) pop(key string) (any, bool) {
	v, ok := m.vals[key]
	if !ok {
		return nil, false
	}
	delete(m.vals, key)
	for i, k := range m.keys {
		if k == key {
			m.keys = append(m.keys[:i], m.keys[i+1:]...)
			break
		}
	}
	return v, true
}

func (m *Map) len() int { return len(m.keys) }

// yamlFloat is a YAML float; it is kept apart from integers so that values
// render as Python would (3.0, not 3).
type yamlFloat float64

// fromNode converts a decoded YAML node into Map, []any, string, int64,
// yamlFloat, bool or nil.
func fromNode(n *yaml.Node) (any, error) {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return fromNode(n.Content[0])
	case yaml.AliasNode:
		return fromNode(n.Alias)
	case yaml.MappingNode:
		m := &Map{vals: map[string]any{}}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, err := fromNode(n.Content[i])
			if err != nil {
				return nil, err
			}
			key := pyStr(k)
			if n.Content[i].Tag == "!!merge" {
				continue
			}
			v, err := fromNode(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			if !m.has(key) {
				m.keys = append(m.keys, key)
			}
			m.vals[key] = v
		}
		return m, nil
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := fromNode(c)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return nil, nil
		case "!!bool":
			var b bool
			if err := n.Decode(&b); err != nil {
				return nil, err
			}
			return b, nil
		case "!!int":
			var i int64
			if err := n.Decode(&i); err != nil {
				return n.Value, nil
			}
			return i, nil
		case "!!float":
			var f float64
			if err := n.Decode(&f); err != nil {
				return nil, err
			}
			return yamlFloat(f), nil
		default:
			if b, ok := yaml11Bools[n.Value]; ok && n.Style == 0 {
				return b, nil
			}
			return n.Value, nil
		}
	}
	return nil, fmt.Errorf("unsupported YAML node kind %d", n.Kind)
}

// yaml11Bools are the plain scalars YAML 1.1 (PyYAML, which Read the Docs
// parses with) reads as booleans and YAML 1.2 as strings, in every file.
var yaml11Bools = map[string]bool{
	"yes": true, "Yes": true, "YES": true, "on": true, "On": true, "ON": true,
	"no": false, "No": false, "NO": false, "off": false, "Off": false, "OFF": false,
}

// pyStr renders a value the way Python's str() does, which is how the
// validation messages show values.
func pyStr(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case bool:
		if x {
			return "True"
		}
		return "False"
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case int:
		return strconv.Itoa(x)
	case yamlFloat:
		f := float64(x)
		switch {
		case math.IsInf(f, 1):
			return "inf"
		case math.IsInf(f, -1):
			return "-inf"
		case math.IsNaN(f):
			return "nan"
		}
		s := strconv.FormatFloat(f, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eEn") {
			s += ".0"
		}
		return s
	case float64:
		return pyStr(yamlFloat(x))
	case json.Number:
		return string(x)
	default:
		return pyRepr(v)
	}
}

// pyRepr renders a value the way Python's repr() does (strings quoted).
func pyRepr(v any) string {
	switch x := v.(type) {
	case string:
		return "'" + strings.ReplaceAll(strings.ReplaceAll(x, `\`, `\\`), "'", `\'`) + "'"
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = pyRepr(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case *Map:
		parts := make([]string, 0, len(x.keys))
		for _, k := range x.keys {
			parts = append(parts, pyRepr(k)+": "+pyRepr(x.vals[k]))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	default:
		return pyStr(v)
	}
}

// Keys returns the mapping's keys in file order.
func (m *Map) Keys() []string { return m.keys }

// ParseYAML decodes a YAML document into *Map, []any, string, int64,
// float64-like numbers, bool or nil, keeping mapping key order.
func ParseYAML(data []byte) (any, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	return fromNode(&doc)
}

// PyRepr renders a value the way Python's repr() does.
func PyRepr(v any) string { return pyRepr(v) }
