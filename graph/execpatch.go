package graph

import (
	"context"
	"io"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// The generated executor (generated.go) calls marshalSlice, newDeferredGroup,
// marshalObject, collectFields, resolveField and newScalarFieldContext
// (resolvefield.go) where gqlgen writes graphql.MarshalSliceConcurrently,
// graphql.NewDeferredGroup, an object's `return out`, graphql.CollectFields,
// graphql.ResolveField and graphql.NewScalarFieldContext:
// graph/internal/execpatch rewrites them when `go generate ./...` has run
// gqlgen. This file and resolvefield.go are copies of gqlgen internals,
// built only while generated.go is rewritten: execpatch puts a
// `//go:build ignore` line on them (and their tests) when it leaves the
// executor stock, and execpatch_stock.go is built instead.

// primedReadsKey marks a context whose operation finds every read its list
// elements make already done (see withPrimedReads).
type primedReadsKey struct{}

// primedOperation is what a context marked by withPrimedReads holds: the
// state its operation's rewritten executor code shares.
type primedOperation struct {
	// mu guards collected: the fields of an object that the generated code
	// resolves concurrently (FieldSet.Dispatch) marshal their objects on
	// goroutines of their own.
	mu sync.Mutex
	// collected is collectFields' cache: the fields of a selection set on
	// an object type, as graphql.CollectFields collected them.
	collected map[collectKey][]graphql.CollectedField
}

// withPrimedReads returns ctx marked as running an operation whose reads the
// lookahead primes (prefetch.go): no resolver under one of its lists waits
// for a loader's batch, so the elements of its lists are marshalled one after
// another instead of in a goroutine each. An element that did wait would wait
// alone, and so would every element after it: only operations proved not to
// wait (TestRESTWaitsForNoLoader) may run marked. A context is marked for one
// operation: the mark holds that operation's state.
func withPrimedReads(ctx context.Context) context.Context {
	return context.WithValue(ctx, primedReadsKey{}, &primedOperation{})
}

// primedOperationOf returns the state of ctx's operation when ctx is marked
// by withPrimedReads, nil otherwise.
func primedOperationOf(ctx context.Context) *primedOperation {
	op, _ := ctx.Value(primedReadsKey{}).(*primedOperation)
	return op
}

// readsPrimed reports whether ctx is marked by withPrimedReads.
func readsPrimed(ctx context.Context) bool {
	return primedOperationOf(ctx) != nil
}

// collectKey identifies a call of graphql.CollectFields within an operation:
// the selection set (its first element and length, as gqlgen's own cache
// key) and the implementors, which the generated code passes as one of its
// package-level slices, so that the slice's first element identifies it.
type collectKey struct {
	sel          *ast.Selection
	selLen       int
	implementors *string
}

// collectFields is graphql.CollectFields(oc, sel, implementors), whose
// results it has (the generated executor calls it there with the ctx of the
// object being marshalled: graph/internal/execpatch). Under withPrimedReads
// it caches the result in the operation's state by the identity of sel and
// implementors, where graphql.CollectFields hashes the names of the
// implementors, allocating, on every call before it looks in its own
// per-operation cache. Both caches last the operation (whose variables, which
// @skip and @include read, do not change), so the answer is the same.
func collectFields(ctx context.Context, oc *graphql.OperationContext, sel ast.SelectionSet, implementors []string) []graphql.CollectedField {
	op := primedOperationOf(ctx)
	if op == nil || len(sel) == 0 || len(implementors) == 0 {
		return graphql.CollectFields(oc, sel, implementors)
	}
	key := collectKey{sel: &sel[0], selLen: len(sel), implementors: &implementors[0]}
	op.mu.Lock()
	fields, ok := op.collected[key]
	op.mu.Unlock()
	if ok {
		return fields
	}
	fields = graphql.CollectFields(oc, sel, implementors)
	op.mu.Lock()
	if op.collected == nil {
		op.collected = map[collectKey][]graphql.CollectedField{}
	}
	op.collected[key] = fields
	op.mu.Unlock()
	return fields
}

// marshalSlice is graphql.MarshalSliceConcurrently, whose signature and
// results it has, except that under withPrimedReads it marshals the
// elements in order on the calling goroutine: a goroutine per element costs
// its creation, scheduling, stack growth and a WaitGroup, and buys nothing
// when no element waits. Each element runs, as there, under a FieldContext of
// its own that holds its index, and one that panics (unless omitPanicHandler)
// is recorded as the operation's error and marshals as null. workerLimit
// bounds only the concurrent form.
//
// Elsewhere (the public endpoint, mutations) elements still run at once, so
// that the loads of all of them reach their loaders within one batch.
func marshalSlice(ctx context.Context, length int, workerLimit int64, omitPanicHandler bool, marshalElement func(ctx context.Context, i int) graphql.Marshaler) graphql.Array {
	if length <= 1 || !readsPrimed(ctx) {
		return graphql.MarshalSliceConcurrently(ctx, length, workerLimit, omitPanicHandler, marshalElement)
	}
	ret := make(graphql.Array, length)
	// One allocation each for all the elements' indexes and field contexts,
	// where the concurrent form makes two per element.
	indexes := make([]int, length)
	fcs := make([]graphql.FieldContext, length)
	for i := range length {
		indexes[i] = i
		fcs[i].Index = &indexes[i]
		ret[i] = marshalElementAt(graphql.WithFieldContext(ctx, &fcs[i]), i, omitPanicHandler, marshalElement)
	}
	return ret
}

// marshalElementAt returns marshalElement(ctx, i), or graphql.Null with the
// panic recorded as an error of the operation when it panics and
// omitPanicHandler is false.
func marshalElementAt(ctx context.Context, i int, omitPanicHandler bool, marshalElement func(ctx context.Context, i int) graphql.Marshaler) (ret graphql.Marshaler) {
	if !omitPanicHandler {
		defer func() {
			if r := recover(); r != nil {
				graphql.AddError(ctx, graphql.Recover(ctx, r))
				ret = graphql.Null
			}
		}()
	}
	return marshalElement(ctx, i)
}

// newDeferredGroup is graphql.NewDeferredGroup(ctx) for an object whose
// collected fields are fields, when one of them is @defer'd. Otherwise it is
// the zero group: the generated code touches a group only for a @defer'd
// field (FieldSet.ResolveConcurrently) and processes it only when it holds
// some (len(Defers) > 0), so the path of the object, which NewDeferredGroup
// builds element by element, its field set and its map would be made for
// every object of every answer and never read.
func newDeferredGroup(ctx context.Context, fields []graphql.CollectedField) graphql.DeferredGroup {
	for i := range fields {
		if fields[i].IsDeferred() {
			return graphql.NewDeferredGroup(ctx)
		}
	}
	return graphql.DeferredGroup{}
}

// marshalObject returns what an object's marshal function answers once out,
// the field set of its collected fields, is dispatched: out itself would
// write the same JSON through graphql.FieldSet.MarshalGQL, which allocates
// for every field a copy of it, and for every object a map of the aliases
// written and two closures.
func marshalObject(fields []graphql.CollectedField, out *graphql.FieldSet) graphql.Marshaler {
	return &objectJSON{fields: fields, values: out.Values}
}

// objectJSON is an object's answer: values[i] is the value of fields[i].
type objectJSON struct {
	fields []graphql.CollectedField
	values []graphql.Marshaler
}

var (
	openBrace  = []byte(`{`)
	closeBrace = []byte(`}`)
	quote      = []byte(`"`)
	quoteColon = []byte(`":`)
	comma      = []byte(`,`)
)

// MarshalGQL writes the object as graphql.FieldSet.MarshalGQL does: each
// alias with its value, in order, an alias collected twice (the same field
// selected through fragments on different types) written once, with the
// first one's value. Aliases are GraphQL names, which need no escaping.
func (o *objectJSON) MarshalGQL(w io.Writer) {
	w.Write(openBrace)
	first := true
	for i := range o.fields {
		alias := o.fields[i].Alias
		if aliasCollectedBefore(o.fields[:i], alias) {
			continue
		}
		if !first {
			w.Write(comma)
		}
		first = false
		w.Write(quote)
		io.WriteString(w, alias)
		w.Write(quoteColon)
		o.values[i].MarshalGQL(w)
	}
	w.Write(closeBrace)
}

// aliasCollectedBefore reports whether one of fields has the alias. An
// object has a few dozen fields at most: comparing costs less than the map
// FieldSet.MarshalGQL makes.
func aliasCollectedBefore(fields []graphql.CollectedField, alias string) bool {
	for i := range fields {
		if fields[i].Alias == alias {
			return true
		}
	}
	return false
}
