package graph

import (
	"context"
	"errors"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// resolveField is graphql.ResolveField, whose parameters and results it has
// (the generated executor calls it there: graph/internal/execpatch). Under
// withPrimedReads, for a field without directives (middlewareChain nil), it
// resolves the field itself without the operation's field middleware;
// elsewhere (the public endpoint, mutations, a field with directives) it
// calls graphql.ResolveField, middleware and all.
//
// Skipping the field middleware is sound only because the executor whose
// operations run marked (Executor.queries, see Executor.Run) has none:
// TestQueriesExecutorHasNoFieldMiddleware fails if one is added.
//
// The primed form mirrors gqlgen v0.17.98's graphql.ResolveField (its
// resolveField with Null and RequiredNull as the default and required-null
// results). It calls fieldResolver itself where gqlgen calls it through the
// middleware, and so allocates none of the closures that chain needs (nor
// the context variable they share, nor the closure that marshals the
// result). It records the result as fc.Result in the form fieldResolver
// returned it, which holds the same dynamic type and value as gqlgen's
// any(res) without boxing it a second time. Errors, nulls, panics and the
// field context its children see are as there: TestPrimedFieldsAnswerAsGqlgen
// compares the two on the real schema, TestResolvePrimedField on what the
// schema cannot produce on demand.
func resolveField[T any](
	ctx context.Context,
	oc *graphql.OperationContext,
	field graphql.CollectedField,
	initializeFieldContext func(ctx context.Context, field graphql.CollectedField) (*graphql.FieldContext, error),
	fieldResolver func(ctx context.Context) (any, error),
	middlewareChain func(ctx context.Context, next graphql.Resolver) graphql.Resolver,
	marshal func(ctx context.Context, sel ast.SelectionSet, v T) graphql.Marshaler,
	recoverFromPanic bool,
	nonNull bool,
) (ret graphql.Marshaler) {
	if middlewareChain != nil || !readsPrimed(ctx) {
		return graphql.ResolveField(ctx, oc, field, initializeFieldContext, fieldResolver, middlewareChain, marshal, recoverFromPanic, nonNull)
	}
	fc, err := initializeFieldContext(ctx, field)
	if err != nil {
		return graphql.Null
	}
	fieldCtx := graphql.WithFieldContext(ctx, fc)
	if recoverFromPanic {
		defer func() {
			if r := recover(); r != nil {
				oc.Error(fieldCtx, oc.Recover(fieldCtx, r))
				ret = graphql.Null
			}
		}()
	}
	resTmp, err := fieldResolver(fieldCtx)
	if err != nil {
		oc.Error(fieldCtx, graphql.AddFieldLocationToError(fieldCtx, err))
		if fc.NonNull && !nonNull {
			return graphql.RequiredNull
		}
		return graphql.Null
	}
	if resTmp == nil {
		if nonNull || fc.NonNull {
			graphql.AddInvalidNullError(fieldCtx, "")
		}
		if fc.NonNull && !nonNull {
			return graphql.RequiredNull
		}
		return graphql.Null
	}
	if res, ok := resTmp.(T); ok {
		fc.Result = resTmp
		return marshal(fieldCtx, field.Selections, res)
	}
	if res, ok := resTmp.(graphql.Marshaler); ok {
		fc.Result = res
		return res
	}
	var t T
	oc.Errorf(fieldCtx, `unexpected type %T from middleware/directive chain, should be %T`, resTmp, t)
	return graphql.Null
}

// newScalarFieldContext is graphql.NewScalarFieldContext (gqlgen v0.17.98),
// whose parameters and result it has (the generated executor calls it there:
// graph/internal/execpatch), except that the Child of a field of a scalar or
// enum of the schema is a function made once (scalarChildren), where gqlgen's
// makes a closure over typeName for every scalar field of every object.
// Child answers the same error either way.
func newScalarFieldContext(objectName string, field graphql.CollectedField, isMethod, isResolver bool, typeName string) (*graphql.FieldContext, error) {
	return &graphql.FieldContext{
		Object:     objectName,
		Field:      field,
		IsMethod:   isMethod,
		IsResolver: isResolver,
		Child:      scalarChild(typeName),
	}, nil
}

// childFunc is a graphql.FieldContext's Child.
type childFunc = func(ctx context.Context, field graphql.CollectedField) (*graphql.FieldContext, error)

// scalarChildren holds, for every scalar and enum of the schema, the Child
// of a field of that type, made once. It is only read after init.
var scalarChildren = func() map[string]childFunc {
	children := map[string]childFunc{}
	for name, def := range parsedSchema.Types {
		if def.Kind == ast.Scalar || def.Kind == ast.Enum {
			children[name] = noChildFields(name)
		}
	}
	return children
}()

// scalarChild returns the Child of a field of the scalar (or enum) typeName.
func scalarChild(typeName string) childFunc {
	if child, ok := scalarChildren[typeName]; ok {
		return child
	}
	return noChildFields(typeName)
}

// noChildFields returns the Child that graphql.NewScalarFieldContext gives a
// field of type typeName: it has none.
func noChildFields(typeName string) childFunc {
	return func(context.Context, graphql.CollectedField) (*graphql.FieldContext, error) {
		return nil, errors.New("field of type " + typeName + " does not have child fields")
	}
}
