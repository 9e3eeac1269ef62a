package graph_test

import (
	"strings"
	"testing"

	"docsd/graph"
)

// TestSchemaDescriptions restates graphql-schema-linter's description
// rules (types-have-descriptions, fields-have-descriptions,
// arguments-have-descriptions, enum-values-have-descriptions,
// input-object-values-have-descriptions) over docsd's own schema: every
// type, field, argument, enum value and input field has a description.
// GraphQL's built-in scalars and introspection types and fields are not
// docsd's and are left out, as the linter leaves them out.
func TestSchemaDescriptions(t *testing.T) {
	schema := graph.NewExecutableSchema(graph.Config{}).Schema()
	if p := schema.Types["Project"]; p == nil || p.BuiltIn {
		t.Fatal("the schema's own types are not where the test looks")
	}
	var missing []string
	for name, def := range schema.Types {
		if def.BuiltIn || strings.HasPrefix(name, "__") {
			continue
		}
		if def.Description == "" {
			missing = append(missing, "type "+name)
		}
		for _, f := range def.Fields {
			if strings.HasPrefix(f.Name, "__") {
				continue
			}
			if f.Description == "" {
				missing = append(missing, "field "+name+"."+f.Name)
			}
			for _, a := range f.Arguments {
				if a.Description == "" {
					missing = append(missing, "argument "+name+"."+f.Name+"("+a.Name+")")
				}
			}
		}
		for _, v := range def.EnumValues {
			if v.Description == "" {
				missing = append(missing, "enum value "+name+"."+v.Name)
			}
		}
	}
	for _, m := range missing {
		t.Errorf("%s has no description", m)
	}
}
