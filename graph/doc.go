// Package graph is docsd's resource graph: the GraphQL schema's resolvers,
// their per-operation dataloaders, the authorization rules (access.go), and
// the in-process executor that the REST façades call.
package graph

//go:generate sh -c "cd .. && go tool gqlgen generate"
//go:generate go run ./internal/execpatch generated.go
