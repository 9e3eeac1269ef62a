package graph_test

import (
	"slices"
	"testing"

	"docsd/choices"
	"docsd/graph"
)

// TestEnumsMatchChoices checks that each schema enum lists exactly the
// codes of its choice table, which are what the store holds and what REST
// shows, so that no stored value falls outside its enum.
func TestEnumsMatchChoices(t *testing.T) {
	schema := graph.NewExecutableSchema(graph.Config{}).Schema()
	for enum, table := range map[string]choices.Table{
		"PrivacyLevel": choices.PrivacyLevels, "VersionType": choices.VersionTypes, "BuildStateCode": choices.BuildStates,
		"RedirectType": choices.RedirectTypes, "RepositoryType": choices.RepoTypes, "IntegrationType": choices.IntegrationTypes,
		"VersioningScheme": choices.VersioningSchemes, "BuildType": choices.BuildTypes, "DocumentationType": choices.DocumentationTypes,
	} {
		def := schema.Types[enum]
		if def == nil {
			t.Errorf("no enum %s", enum)
			continue
		}
		var got []string
		for _, v := range def.EnumValues {
			got = append(got, v.Name)
		}
		want := table.Codes()
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("enum %s = %v, want the codes %v", enum, got, want)
		}
	}
}
