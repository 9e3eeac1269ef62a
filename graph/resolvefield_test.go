package graph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/executor"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"docsd/internal/errs"
	"docsd/internal/storetest"
	"docsd/store"
)

// TestQueriesExecutorHasNoFieldMiddleware holds the invariant that lets
// resolvePrimedField skip the field middleware: the executor whose
// operations run under withPrimedReads has no extension that intercepts
// fields. The mutations executor, which has one, shows that the check sees
// it. It reads gqlgen's unexported list of extensions: if gqlgen renames
// it, this test fails rather than passing blind.
func TestQueriesExecutorHasNoFieldMiddleware(t *testing.T) {
	e := NewExecutor(&Resolver{})
	interceptsFields := reflect.TypeFor[graphql.FieldInterceptor]()
	fieldInterceptors := func(exec *executor.Executor) int {
		exts := reflect.ValueOf(exec).Elem().FieldByName("extensions")
		if !exts.IsValid() || exts.Kind() != reflect.Slice {
			t.Fatalf("gqlgen's executor.Executor has no slice `extensions` any more: update this test")
		}
		n := 0
		for i := range exts.Len() {
			if ext := exts.Index(i); !ext.IsNil() && ext.Elem().Type().Implements(interceptsFields) {
				n++
			}
		}
		return n
	}
	if n := fieldInterceptors(e.queries); n != 0 {
		t.Errorf("the queries executor has %d field middlewares: resolvePrimedField, which its operations run, would skip them", n)
	}
	if n := fieldInterceptors(e.mutations); n != 1 {
		t.Errorf("the mutations executor has %d field middlewares, want 1 (freshLoadersAfterMutations)", n)
	}
}

// faultyResolvers is the real resolver with faults in Project's fields,
// chosen by the project's slug: "err" fails viewerIsMaintainer, "panic"
// panics in it, "nil" lists a null among its (non-null) active versions.
type faultyResolvers struct{ *Resolver }

func (f faultyResolvers) Project() ProjectResolver { return faultyProject{f.Resolver.Project()} }

type faultyProject struct{ ProjectResolver }

func (p faultyProject) ViewerIsMaintainer(ctx context.Context, obj *ProjectView) (bool, error) {
	switch obj.Slug {
	case "err":
		return false, errs.E(errs.Invalid, "test", "viewerIsMaintainer fails")
	case "panic":
		panic("viewerIsMaintainer panics")
	}
	return p.ProjectResolver.ViewerIsMaintainer(ctx, obj)
}

func (p faultyProject) ActiveVersions(ctx context.Context, obj *ProjectView) ([]*VersionView, error) {
	vs, err := p.ProjectResolver.ActiveVersions(ctx, obj)
	if obj.Slug == "nil" {
		vs = append(vs, nil)
	}
	return vs, err
}

// TestPrimedFieldsAnswerAsGqlgen runs operations on the real schema with and
// without withPrimedReads, that is through resolvePrimedField and through
// graphql.ResolveField, and wants the same response byte for byte: plain
// answers, and a resolver's error, a panic and a null in a non-null list,
// each propagating its null to the nearest nullable field.
func TestPrimedFieldsAnswerAsGqlgen(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		ctx := context.Background()
		u, err := s.CreateUser(ctx, "alice", "alice@example.com", false)
		if err != nil {
			t.Fatal(err)
		}
		importProjects(t, s, u, "ok", "err", "panic", "nil")
		r := &Resolver{Store: s}
		cfg := schemaConfig(r)
		cfg.Resolvers = faultyResolvers{r}
		exec := executor.New(NewExecutableSchema(cfg))
		exec.SetQueryCache(lru.New[*ast.QueryDocument](10))
		exec.SetErrorPresenter(presentError)
		exec.SetRecoverFunc(recoverPanic)
		exec.AroundOperations(withLoaders(s))
		run := func(query string, primed bool) string {
			handle, ctx := dispatch(t, exec, u, query, primed)
			resp := handle(ctx)
			// Unprimed, the elements of a list run at once and record their
			// errors in the order they happen to fail.
			slices.SortFunc(resp.Errors, func(a, b *gqlerror.Error) int { return strings.Compare(a.Path.String(), b.Path.String()) })
			b, err := json.Marshal(resp)
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
		const project = `slug name id databaseId viewerIsMaintainer viewerCanAdminister activeVersions { slug id }`
		for _, tc := range []struct {
			name, query, want string
		}{
			{"plain", `{ project(slug: "ok") { ` + project + ` } }`, `"viewerIsMaintainer":true`},
			{"a list", `{ projects(limit: 10) { nodes { slug name id databaseId viewerCanAdminister } } }`, `"slug":"ok"`},
			{"an error", `{ project(slug: "err") { ` + project + ` } }`, `viewerIsMaintainer fails`},
			{"a panic", `{ project(slug: "panic") { ` + project + ` } }`, `"path":["project","viewerIsMaintainer"]`},
			{"a null in a non-null list", `{ project(slug: "nil") { ` + project + ` } }`, `"project":null`},
			{"all in a list", `{ projects(limit: 10) { nodes { ` + project + ` } } ok: project(slug: "ok") { slug } }`, `"projects":null,"ok":{"slug":"ok"}`},
			{"nullable fields", `{ a: project(slug: "err") { slug } b: project(slug: "panic") { adminFields { __typename } } }`, `"a":{"slug":"err"}`},
		} {
			t.Run(tc.name, func(t *testing.T) {
				unprimed, primed := run(tc.query, false), run(tc.query, true)
				if primed != unprimed {
					t.Errorf("primed:\n%s\nunprimed:\n%s", primed, unprimed)
				}
				if !strings.Contains(primed, tc.want) {
					t.Errorf("answer %s has no %s", primed, tc.want)
				}
			})
		}
	})
}

// TestResolvePrimedField compares resolveField under withPrimedReads with
// graphql.ResolveField on the outcomes of a field's resolver that the
// schema cannot produce on demand: an untyped nil (for a nullable and a
// non-null field, and for a field whose context says non-null), a
// marshaller in place of the value, a value of the wrong type, and a field
// context that cannot be built. Each must give the same JSON, the same
// required-null signal, the same errors and the same fc.Result.
func TestResolvePrimedField(t *testing.T) {
	type outcome struct {
		value any
		err   error
	}
	marshalInt := func(ctx context.Context, _ ast.SelectionSet, v int) graphql.Marshaler {
		if graphql.GetFieldContext(ctx).Field.Alias != "f" {
			panic("marshal runs outside the field's context")
		}
		return graphql.MarshalInt(v)
	}
	for _, tc := range []struct {
		name             string
		res              outcome
		fcNonNull        bool
		nonNull          bool
		fcErr, panicking bool
	}{
		{name: "a value", res: outcome{value: 7}, nonNull: true},
		{name: "an error", res: outcome{err: errors.New("boom")}, nonNull: true},
		{name: "an error where the parent wants non-null", res: outcome{err: errors.New("boom")}, fcNonNull: true},
		{name: "nil, nullable", res: outcome{}},
		{name: "nil, non-null", res: outcome{}, nonNull: true},
		{name: "nil where the parent wants non-null", res: outcome{}, fcNonNull: true},
		{name: "a marshaller", res: outcome{value: graphql.MarshalString("m")}},
		{name: "the wrong type", res: outcome{value: "seven"}},
		{name: "no field context", fcErr: true},
		{name: "a panic", panicking: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			answer := func(primed bool) (string, []string) {
				ctx := listContext(primed)
				oc := &graphql.OperationContext{
					RecoverFunc:        func(ctx context.Context, p any) error { return fmt.Errorf("panic: %v", p) },
					ResolverMiddleware: func(ctx context.Context, next graphql.Resolver) (any, error) { return next(ctx) },
				}
				var fc *graphql.FieldContext
				field := graphql.CollectedField{Field: &ast.Field{Alias: "f", Name: "f"}}
				ret := resolveField(ctx, oc, field,
					func(ctx context.Context, field graphql.CollectedField) (*graphql.FieldContext, error) {
						if tc.fcErr {
							return nil, errors.New("no context")
						}
						fc = &graphql.FieldContext{Object: "T", Field: field, NonNull: tc.fcNonNull}
						return fc, nil
					},
					func(ctx context.Context) (any, error) {
						if graphql.GetFieldContext(ctx) != fc {
							t.Errorf("the resolver runs outside the field's context")
						}
						if tc.panicking {
							panic("resolver")
						}
						return tc.res.value, tc.res.err
					},
					nil, marshalInt, true, tc.nonNull)
				var b strings.Builder
				ret.MarshalGQL(&b)
				got := b.String()
				if ret == graphql.RequiredNull {
					got = "RequiredNull"
				}
				if fc != nil {
					got += fmt.Sprintf(" result=%#v", fc.Result)
				}
				var errs []string
				for _, err := range graphql.GetErrors(ctx) {
					errs = append(errs, fmt.Sprintf("%s %v", err.Error(), err.Path))
				}
				return got, errs
			}
			primed, primedErrs := answer(true)
			unprimed, unprimedErrs := answer(false)
			if primed != unprimed || fmt.Sprint(primedErrs) != fmt.Sprint(unprimedErrs) {
				t.Errorf("primed %s %q, unprimed %s %q", primed, primedErrs, unprimed, unprimedErrs)
			}
		})
	}
}

// TestNewScalarFieldContext checks that newScalarFieldContext builds what
// graphql.NewScalarFieldContext builds, for built-in and custom scalars, an
// enum and a type the schema does not have, that the Child answers the same
// error, and that for the schema's types it allocates only the context.
func TestNewScalarFieldContext(t *testing.T) {
	field := graphql.CollectedField{Field: &ast.Field{Alias: "a", Name: "b"}}
	for _, tc := range []struct {
		typeName string
		allocs   float64
	}{{"String", 1}, {"Boolean", 1}, {"Int", 1}, {"ID", 1}, {"Time", 1}, {"JSON", 1}, {"PrivacyLevel", 1}, {"__TypeKind", 1}, {"Unknown", 2}} {
		t.Run(tc.typeName, func(t *testing.T) {
			got, gotErr := newScalarFieldContext("Project", field, true, false, tc.typeName)
			want, wantErr := graphql.NewScalarFieldContext("Project", field, true, false, tc.typeName)
			if gotErr != nil || wantErr != nil {
				t.Fatalf("errors %v, %v", gotErr, wantErr)
			}
			gotChild, gotChildErr := got.Child(context.Background(), field)
			wantChild, wantChildErr := want.Child(context.Background(), field)
			if gotChild != nil || wantChild != nil || gotChildErr == nil || gotChildErr.Error() != wantChildErr.Error() {
				t.Errorf("Child answers %v, %v; want %v, %v", gotChild, gotChildErr, wantChild, wantChildErr)
			}
			got.Child, want.Child = nil, nil
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got %+v, want %+v", got, want)
			}
			var kept *graphql.FieldContext
			if allocs := testing.AllocsPerRun(10, func() { kept, _ = newScalarFieldContext("Project", field, true, false, tc.typeName) }); allocs != tc.allocs || kept == nil {
				t.Errorf("%v allocations, want %v", allocs, tc.allocs)
			}
		})
	}
}
