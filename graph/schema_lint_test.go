package graph_test

import (
	"regexp"
	"strings"
	"testing"

	"docsd/graph"
)

// described is one thing of the schema that carries a description.
type described struct {
	what        string // e.g. "field Project.slug"
	description string
}

// schemaDescribed lists docsd's own types, fields, arguments, enum values
// and input fields with their descriptions. GraphQL's built-in scalars and
// introspection types and fields are not docsd's and are left out, as
// graphql-schema-linter leaves them out.
func schemaDescribed(t *testing.T) []described {
	t.Helper()
	schema := graph.NewExecutableSchema(graph.Config{}).Schema()
	if p := schema.Types["Project"]; p == nil || p.BuiltIn {
		t.Fatal("the schema's own types are not where the test looks")
	}
	var out []described
	for name, def := range schema.Types {
		if def.BuiltIn || strings.HasPrefix(name, "__") {
			continue
		}
		out = append(out, described{"type " + name, def.Description})
		for _, f := range def.Fields {
			if strings.HasPrefix(f.Name, "__") {
				continue
			}
			out = append(out, described{"field " + name + "." + f.Name, f.Description})
			for _, a := range f.Arguments {
				out = append(out, described{"argument " + name + "." + f.Name + "(" + a.Name + ")", a.Description})
			}
		}
		for _, v := range def.EnumValues {
			out = append(out, described{"enum value " + name + "." + v.Name, v.Description})
		}
	}
	return out
}

// TestSchemaDescriptions restates graphql-schema-linter's description
// rules (types-have-descriptions, fields-have-descriptions,
// arguments-have-descriptions, enum-values-have-descriptions,
// input-object-values-have-descriptions) over docsd's own schema: every
// type, field, argument, enum value and input field has a description.
func TestSchemaDescriptions(t *testing.T) {
	for _, d := range schemaDescribed(t) {
		if d.description == "" {
			t.Errorf("%s has no description", d.what)
		}
	}
}

// outsideReference matches what points a reader of the schema at a
// document they do not have: design notes and their sections (U+00A7, the
// section sign), issue numbers.
var outsideReference = regexp.MustCompile(`(?i)\b[a-z]+(-\d+)?\.md\b|\x{00A7}|\bissue \d+|shared/`)

// TestSchemaDescriptionsStandAlone: every description says what it
// describes itself, as GitHub's schema does, for readers who have the
// schema (GraphiQL, introspection) and nothing else.
func TestSchemaDescriptionsStandAlone(t *testing.T) {
	for _, d := range schemaDescribed(t) {
		if m := outsideReference.FindString(d.description); m != "" {
			t.Errorf("%s cites %q: %s", d.what, m, d.description)
		}
	}
}
