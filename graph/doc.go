// Package graph is docsd's resource graph: the GraphQL schema's resolvers,
// their per-operation dataloaders, and the in-process executor that the
// REST façades call. Who may see and change what is package access's to
// decide; access.go asks it with the operation's viewer.
package graph

//go:generate sh -c "cd .. && go tool gqlgen generate"
//go:generate go run ./internal/execpatch generated.go
