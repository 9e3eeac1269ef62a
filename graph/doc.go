// Package graph is docsd's resource graph: the GraphQL schema's resolvers,
// their per-operation dataloaders, and the in-process executor that the
// REST façades call. Who may see and change what is package access's to
// decide; access.go asks it with the operation's viewer.
package graph

// gqlgen writes generated.go; execpatch rewrites its executor for REST's
// reads, or leaves it stock when gqlgen's output changed shape or
// DOCSD_EXECPATCH=off (graph/internal/execpatch says how the copies of
// gqlgen internals it needs are fenced).
//go:generate go run ./internal/execpatch -stock
//go:generate sh -c "cd .. && go tool gqlgen generate"
//go:generate go run ./internal/execpatch generated.go
