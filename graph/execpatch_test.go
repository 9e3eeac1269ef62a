package graph

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/executor"
	"github.com/vektah/gqlparser/v2/ast"

	"docsd/internal/access"
	"docsd/internal/storetest"
	"docsd/store"
)

// listContext returns a context as the generated code gives a list field's
// marshaller: a response that collects errors, and the field's own context.
func listContext(primed bool) context.Context {
	ctx := graphql.WithResponseContext(context.Background(), graphql.DefaultErrorPresenter,
		func(ctx context.Context, p any) error { return fmt.Errorf("panic: %v", p) })
	ctx = graphql.WithFieldContext(ctx, &graphql.FieldContext{Field: graphql.CollectedField{Field: &ast.Field{Alias: "list"}}})
	if primed {
		ctx = withPrimedReads(ctx)
	}
	return ctx
}

// TestMarshalSlice checks that both forms of marshalSlice give each element
// its index and the list's field context, and turn an element's panic into
// a null and an error at its path; and that the primed form runs them in
// order.
func TestMarshalSlice(t *testing.T) {
	for _, primed := range []bool{false, true} {
		for _, length := range []int{0, 1, 5} {
			t.Run(fmt.Sprintf("primed=%v/length=%d", primed, length), func(t *testing.T) {
				ctx := listContext(primed)
				list := graphql.GetFieldContext(ctx)
				const panics = 3
				var mu sync.Mutex
				var order []int
				ret := marshalSlice(ctx, length, 0, false, func(ctx context.Context, i int) graphql.Marshaler {
					mu.Lock()
					order = append(order, i)
					mu.Unlock()
					fc := graphql.GetFieldContext(ctx)
					if fc.Index == nil || *fc.Index != i || fc.Parent != list {
						t.Errorf("element %d runs under %+v, want index %d under the list", i, fc, i)
					}
					if i == panics {
						panic("element")
					}
					return graphql.MarshalInt(i)
				})
				if len(ret) != length {
					t.Fatalf("got %d elements, want %d", len(ret), length)
				}
				for i, m := range ret {
					want := fmt.Sprint(i)
					if i == panics {
						want = "null"
					}
					var b strings.Builder
					m.MarshalGQL(&b)
					if b.String() != want {
						t.Errorf("element %d = %s, want %s", i, b.String(), want)
					}
				}
				var wantErrs []string
				if length > panics {
					wantErrs = []string{"input: list[3] panic: element"}
				}
				var gotErrs []string
				for _, err := range graphql.GetErrors(ctx) {
					gotErrs = append(gotErrs, err.Error())
				}
				if !slices.Equal(gotErrs, wantErrs) {
					t.Errorf("errors %q, want %q", gotErrs, wantErrs)
				}
				if primed && !slices.Equal(order, []int{0, 1, 2, 3, 4}[:length]) {
					t.Errorf("elements ran in the order %v, want in index order", order)
				}
			})
		}
	}
}

// TestMarshalSliceConcurrentUnlessPrimed checks that, outside an operation
// marked by withPrimedReads, elements still run at the same time: here each
// one waits until all have started, as loads wait for a loader's batch.
func TestMarshalSliceConcurrentUnlessPrimed(t *testing.T) {
	const length = 4
	var started sync.WaitGroup
	started.Add(length)
	done := make(chan graphql.Array)
	go func() {
		done <- marshalSlice(listContext(false), length, 0, false, func(ctx context.Context, i int) graphql.Marshaler {
			started.Done()
			started.Wait()
			return graphql.MarshalInt(i)
		})
	}()
	select {
	case ret := <-done:
		if len(ret) != length {
			t.Errorf("got %d elements, want %d", len(ret), length)
		}
	case <-time.After(time.Minute):
		t.Fatal("the elements did not run concurrently: each waited for the others to start")
	}
}

// TestNewDeferredGroup checks that newDeferredGroup is NewDeferredGroup when
// a field is @defer'd and the zero group, which the generated code never
// processes, when none is.
func TestNewDeferredGroup(t *testing.T) {
	ctx := listContext(false)
	plain := graphql.CollectedField{Field: &ast.Field{Alias: "a"}}
	deferred := graphql.CollectedField{Field: &ast.Field{Alias: "b"}, Deferrables: []*graphql.Deferrable{{Label: "later"}}}
	for _, tc := range []struct {
		name   string
		fields []graphql.CollectedField
		want   graphql.DeferredGroup
	}{
		{"no fields", nil, graphql.DeferredGroup{}},
		{"none deferred", []graphql.CollectedField{plain, plain}, graphql.DeferredGroup{}},
		{"one deferred", []graphql.CollectedField{plain, deferred}, graphql.NewDeferredGroup(ctx)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.want.FieldSet != nil && tc.want.Path == nil {
				t.Fatal("the fixture's context gives no path: the comparison would not check it")
			}
			got := newDeferredGroup(ctx, tc.fields)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestDefer runs a @defer'd field through the generated executor, which the
// served schema does not offer (complexity.go) but the generated code still
// handles, with and without withPrimedReads: the deferred value arrives in
// a payload of its own at the path of its object, in both.
func TestDefer(t *testing.T) {
	s := storetest.Open(t, store.SQLite)
	ctx := context.Background()
	u, err := s.CreateUser(ctx, "alice", "alice@example.com", false)
	if err != nil {
		t.Fatal(err)
	}
	importProjects(t, s, u, "one", "two")
	r := &Resolver{Store: s}
	cfg := schemaConfig(r)
	cfg.Schema = nil // the generated schema, with gqlparser's @defer
	exec := executor.New(NewExecutableSchema(cfg))
	exec.AroundOperations(withLoaders(s))
	const query = `{ projects(limit: 2) { nodes { slug ... @defer(label: "later") { viewerIsMaintainer } } } }`
	for _, primed := range []bool{false, true} {
		t.Run(fmt.Sprintf("primed=%v", primed), func(t *testing.T) {
			handle, ctx := dispatch(t, exec, u, query, primed)
			var got []string
			var hasNext []bool
			for resp := handle(ctx); resp != nil; resp = handle(ctx) {
				hasNext = append(hasNext, resp.HasNext != nil && *resp.HasNext)
				resp.HasNext = nil
				b, err := json.Marshal(resp)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, string(b))
			}
			if want := []bool{true, true, false}; !slices.Equal(hasNext, want) {
				t.Errorf("hasNext %v, want %v", hasNext, want)
			}
			// The deferred payloads arrive in either order.
			if len(got) > 1 {
				slices.Sort(got[1:])
			}
			want := []string{
				`{"data":{"projects":{"nodes":[{"slug":"one","viewerIsMaintainer":null},{"slug":"two","viewerIsMaintainer":null}]}}}`,
				`{"data":{"viewerIsMaintainer":true},"label":"later","path":["projects","nodes",0]}`,
				`{"data":{"viewerIsMaintainer":true},"label":"later","path":["projects","nodes",1]}`,
			}
			if !slices.Equal(got, want) {
				t.Errorf("responses:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// importProjects imports a project of each slug, maintained by u.
func importProjects(t *testing.T, s *store.Store, u *store.User, slugs ...string) {
	t.Helper()
	for _, slug := range slugs {
		if _, err := s.ImportProject(context.Background(), store.ProjectImport{Name: slug, Slug: slug, Repo: "https://github.com/a/" + slug,
			RepoType: "git", Language: "en", ProgrammingLanguage: "words", MaintainerID: u.ID, IntegrationType: store.GitHubWebhook}); err != nil {
			t.Fatal(err)
		}
	}
}

// dispatch starts query on exec as u, marked by withPrimedReads when primed,
// and returns its response handler and the context to call it with.
func dispatch(t *testing.T, exec *executor.Executor, u *store.User, query string, primed bool) (graphql.ResponseHandler, context.Context) {
	t.Helper()
	ctx := graphql.StartOperationTrace(access.WithUser(context.Background(), u))
	opCtx, gqlErrs := exec.CreateOperationContext(ctx, &graphql.RawParams{Query: query})
	if gqlErrs != nil {
		t.Fatal(gqlErrs)
	}
	if primed {
		ctx = withPrimedReads(ctx)
	}
	return exec.DispatchOperation(ctx, opCtx)
}

// TestMarshalObject checks that marshalObject writes what the field set it
// replaces writes, an alias collected twice included.
func TestMarshalObject(t *testing.T) {
	field := func(alias string) graphql.CollectedField {
		return graphql.CollectedField{Field: &ast.Field{Alias: alias, Name: alias}}
	}
	for _, tc := range []struct {
		name   string
		fields []graphql.CollectedField
		want   string
	}{
		{"no fields", nil, `{}`},
		{"one", []graphql.CollectedField{field("a")}, `{"a":0}`},
		{"several", []graphql.CollectedField{field("__typename"), field("b"), field("default_branch")}, `{"__typename":0,"b":1,"default_branch":2}`},
		{"an alias twice", []graphql.CollectedField{field("a"), field("b"), field("a"), field("c")}, `{"a":0,"b":1,"c":3}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := graphql.NewFieldSet(tc.fields)
			for i := range out.Values {
				out.Values[i] = graphql.MarshalInt(i)
			}
			var got, fromFieldSet strings.Builder
			marshalObject(tc.fields, out).MarshalGQL(&got)
			out.MarshalGQL(&fromFieldSet)
			if got.String() != tc.want || fromFieldSet.String() != tc.want {
				t.Errorf("marshalObject wrote %s, the field set %s, want %s", got.String(), fromFieldSet.String(), tc.want)
			}
		})
	}
}

// TestCollectFields checks that collectFields answers what
// graphql.CollectFields answers, for one selection on two object types and
// with a field that @include leaves out, marked by withPrimedReads or not,
// and that the marked form keeps each (selection, type) pair in the
// operation's cache.
func TestCollectFields(t *testing.T) {
	exec := executor.New(NewExecutableSchema(Config{}))
	const query = `query($with: Boolean!) { node(id: "x") { id ... on Project { slug name @include(if: $with) } ... on Build { state { code } } } }`
	for _, with := range []bool{false, true} {
		for _, primed := range []bool{false, true} {
			t.Run(fmt.Sprintf("with=%v/primed=%v", with, primed), func(t *testing.T) {
				ctx := graphql.StartOperationTrace(context.Background())
				params := &graphql.RawParams{Query: query, Variables: map[string]any{"with": with}}
				opCtx, gqlErrs := exec.CreateOperationContext(ctx, params)
				if gqlErrs != nil {
					t.Fatal(gqlErrs)
				}
				ref, gqlErrs := exec.CreateOperationContext(ctx, params)
				if gqlErrs != nil {
					t.Fatal(gqlErrs)
				}
				if primed {
					ctx = withPrimedReads(ctx)
				}
				sel := opCtx.Operation.SelectionSet[0].(*ast.Field).SelectionSet
				refSel := ref.Operation.SelectionSet[0].(*ast.Field).SelectionSet
				aliases := func(fields []graphql.CollectedField) []string {
					var names []string
					for _, f := range fields {
						names = append(names, f.Alias)
					}
					return names
				}
				for _, tc := range []struct {
					implementors []string
					want         []string
				}{
					{projectImplementors, []string{"id", "slug", "name"}},
					{buildImplementors, []string{"id", "state"}},
				} {
					if !with && tc.want[len(tc.want)-1] == "name" {
						tc.want = tc.want[:len(tc.want)-1]
					}
					first := collectFields(ctx, opCtx, sel, tc.implementors)
					again := collectFields(ctx, opCtx, sel, tc.implementors)
					if got := aliases(first); !slices.Equal(got, tc.want) || !reflect.DeepEqual(first, graphql.CollectFields(ref, refSel, tc.implementors)) {
						t.Errorf("%v: collected %v, want %v as graphql.CollectFields", tc.implementors, got, tc.want)
					}
					if !reflect.DeepEqual(again, first) {
						t.Errorf("%v: collected %v, then %v", tc.implementors, aliases(first), aliases(again))
					}
				}
				if op := primedOperationOf(ctx); primed && len(op.collected) != 2 {
					t.Errorf("the operation's cache holds %d selections, want 2 (one per type)", len(op.collected))
				}
			})
		}
	}
}
