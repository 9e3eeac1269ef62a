package graph

import (
	"cmp"

	"github.com/vektah/gqlparser/v2/ast"
)

// hiddenDirectives are the directives the served schema leaves out, so that
// introspection lists only directives a client can use: `@defer`, which
// gqlparser's prelude declares but docsd's transports do not serve (so it is
// not accepted either: validation answers unknown directive), and
// `@goField`, which only steers gqlgen's code generation.
var hiddenDirectives = map[string]bool{"defer": true, "goField": true}

// servedSchema returns a copy of s without the hidden directives.
func servedSchema(s *ast.Schema) *ast.Schema {
	out := *s
	out.Directives = make(map[string]*ast.DirectiveDefinition, len(s.Directives))
	for name, d := range s.Directives {
		if !hiddenDirectives[name] {
			out.Directives[name] = d
		}
	}
	return &out
}

// schemaConfig is the generated schema configuration for r, with the
// complexity of list fields scaled by the number of rows they may return, so
// that the public endpoint's complexity limit bounds the work of a query.
func schemaConfig(r *Resolver) Config {
	cfg := Config{Resolvers: r, Schema: servedSchema(NewExecutableSchema(Config{}).Schema())}
	cfg.Directives.MaintainersOnly = r.maintainersOnly
	c := &cfg.Complexity
	rows := func(limit *int64) int {
		l, _ := r.window(limit, nil)
		return l
	}
	// pageRows is rows for a connection: its page size is first, last or
	// the deprecated limit.
	pageRows := func(first, last, limit *int64) int { return rows(cmp.Or(first, last, limit)) }
	const unpaged = 10 // rough size of lists without limit (users, commands…)
	c.Query.Projects = func(child int, _ *ProjectFilterInput, first *int64, _ *string, last *int64, _ *string, limit, _ *int64) int {
		return 1 + child*pageRows(first, last, limit)
	}
	c.Query.Versions = func(child int, _ *VersionFilterInput, first *int64, _ *string, last *int64, _ *string, limit, _ *int64) int {
		return 1 + child*pageRows(first, last, limit)
	}
	c.Query.Builds = func(child int, _ *BuildFilterInput, first *int64, _ *string, last *int64, _ *string, limit, _ *int64) int {
		return 1 + child*pageRows(first, last, limit)
	}
	c.Project.Versions = func(child int, _ *VersionFilterInput, first *int64, _ *string, last *int64, _ *string, limit, _ *int64) int {
		return 1 + child*pageRows(first, last, limit)
	}
	c.Project.Builds = func(child int, _ *BuildFilterInput, first *int64, _ *string, last *int64, _ *string, limit, _ *int64) int {
		return 1 + child*pageRows(first, last, limit)
	}
	c.Project.Subprojects = func(child int, first *int64, _ *string, last *int64, _ *string, limit, _ *int64) int {
		return 1 + child*pageRows(first, last, limit)
	}
	c.Project.Translations = func(child int, first *int64, _ *string, last *int64, _ *string, limit, _ *int64) int {
		return 1 + child*pageRows(first, last, limit)
	}
	c.Project.Redirects = func(child int, first *int64, _ *string, last *int64, _ *string, limit, _ *int64) int {
		return 1 + child*pageRows(first, last, limit)
	}
	c.Project.EnvironmentVariables = func(child int, first *int64, _ *string, last *int64, _ *string, limit, _ *int64) int {
		return 1 + child*pageRows(first, last, limit)
	}
	c.Version.Builds = func(child int, _ *BuildFilterInput, first *int64, _ *string, last *int64, _ *string, limit, _ *int64) int {
		return 1 + child*pageRows(first, last, limit)
	}
	c.Query.Nodes = func(child int, ids []string) int { return 1 + child*len(ids) }
	analyticsComplexity(c, rows)
	c.Project.ActiveVersions = func(child int) int { return 1 + child*unpaged }
	c.Project.Users = func(child int) int { return 1 + child*unpaged }
	c.Project.Maintainers = func(child int, first *int64, _ *string, last *int64, _ *string) int {
		return 1 + child*pageRows(first, last, nil)
	}
	c.Project.Integrations = func(child int) int { return 1 + child*unpaged }
	c.Project.Webhooks = func(child int, first *int64, _ *string, last *int64, _ *string) int {
		return 1 + child*pageRows(first, last, nil)
	}
	c.Webhook.Deliveries = func(child int, first *int64, _ *string, last *int64, _ *string) int {
		return 1 + child*pageRows(first, last, nil)
	}
	c.WebhookDelivery.Attempts = func(child int) int { return 1 + child*5 }
	c.Project.EmailNotifications = func(child int) int { return 1 + child*unpaged }
	c.Project.AutomationRules = func(child int, first *int64, _ *string, last *int64, _ *string) int {
		return 1 + child*pageRows(first, last, nil)
	}
	c.AutomationRule.Matches = func(child int) int { return 1 + child*15 }
	c.Build.Commands = func(child int) int { return 1 + child*unpaged }
	c.Query.Search = func(child int, _ string, _ *SearchFamilyInput, _, limit *int64) int {
		l := int64(15)
		if limit != nil {
			l = min(max(*limit, 0), maxSearchLimit)
		}
		return 1 + child*int(l)
	}
	return cfg
}
