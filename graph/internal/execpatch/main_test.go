package main

import (
	"go/format"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// generated is a trimmed copy of what gqlgen v0.17.98 writes: an object's
// marshal function, a field's and a list's.
const generated = `package graph

func (ec *executionContext) _Build(ctx context.Context, sel ast.SelectionSet, obj *BuildView) graphql.Marshaler {
	fields := graphql.CollectFields(ec.OperationContext, sel, buildImplementors)

	out := graphql.NewFieldSet(fields)
	deferred := graphql.NewDeferredGroup(ctx)
	for i, field := range fields {
		switch field.Name {
		case "project":
			out.ResolveConcurrently(ec.OperationContext, &deferred, i,
				true, true,
				func(ctx context.Context) graphql.Marshaler {
					return ec._Build_project(ctx, field, obj)
				})
		}
	}
	out.Dispatch(ctx)
	if out.Invalids > 0 {
		return graphql.Null
	}

	if n := len(deferred.Defers); n > 0 {
		atomic.AddInt32(&ec.Deferred, int32(min(n, math.MaxInt32)))
		ec.ProcessDeferredGroup(deferred)
	}

	return out
}

func (ec *executionContext) _Build_slug(ctx context.Context, field graphql.CollectedField, obj *BuildView) (ret graphql.Marshaler) {
	return graphql.ResolveField(
		ctx,
		ec.OperationContext,
		field,
		func(ctx context.Context, field graphql.CollectedField) (*graphql.FieldContext, error) {
			return ec.fieldContext_Build_slug(ctx, field)
		},
		func(ctx context.Context) (any, error) {
			return obj.Slug, nil
		},
		nil,
		func(ctx context.Context, selections ast.SelectionSet, v string) graphql.Marshaler {
			return ec.marshalNString2string(ctx, selections, v)
		},
		true,
		true,
	)
}
func (ec *executionContext) fieldContext_Build_slug(_ context.Context, field graphql.CollectedField) (fc *graphql.FieldContext, err error) {
	return graphql.NewScalarFieldContext("Build", field, false, false, "String")
}

func (ec *executionContext) _Subscription_builds(ctx context.Context, field graphql.CollectedField) (ret func(ctx context.Context) graphql.Marshaler) {
	return graphql.ResolveFieldStream(
		ctx,
		ec.OperationContext,
		field,
		nil,
		nil,
		nil,
		nil,
		true,
		true,
	)
}

func (ec *executionContext) marshalNBuild2ᚕᚖBuildᚄ(ctx context.Context, sel ast.SelectionSet, v []*BuildView) graphql.Marshaler {
	ret := graphql.MarshalSliceConcurrently(ctx, len(v), 0, false, func(ctx context.Context, i int) graphql.Marshaler {
		fc := graphql.GetFieldContext(ctx)
		fc.Result = &v[i]
		return ec.marshalNBuild2ᚖBuildView(ctx, sel, v[i])
	})
	return ret
}
`

func TestPatch(t *testing.T) {
	got, err := patch([]byte(generated))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.NewReplacer(
		"graphql.MarshalSliceConcurrently(ctx, ", "marshalSlice(ctx, ",
		"graphql.NewDeferredGroup(ctx)", "newDeferredGroup(ctx, fields)",
		"return out\n", "return marshalObject(fields, out)\n",
		"return graphql.ResolveField(\n", "return resolveField(\n",
		"return graphql.NewScalarFieldContext(", "return newScalarFieldContext(",
		"fields := graphql.CollectFields(ec.OperationContext, sel, ", "fields := collectFields(ctx, ec.OperationContext, sel, ",
	).Replace(generated)
	if string(got) != want {
		t.Errorf("patched:\n%s\nwant:\n%s", got, want)
	}
	again, err := patch(got)
	if err != nil {
		t.Fatalf("patching the patched source: %v", err)
	}
	if string(again) != string(got) {
		t.Errorf("patching the patched source changed it:\n%s", again)
	}
}

// TestPatchRefuses checks that a change in gqlgen's output that the rewrite
// would miss, or that would make it wrong, fails go generate.
func TestPatchRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, from, to, want string
	}{
		{"no list call", "graphql.MarshalSliceConcurrently(ctx, len(v), 0, false, ", "graphql.MarshalSlice(ctx, len(v), ",
			`no "graphql.MarshalSliceConcurrently(ctx, " any more`},
		{"another list call form", "return ret\n}", "_ = graphql.MarshalSliceConcurrently\n\treturn ret\n}",
			`has "MarshalSliceConcurrently" in a form execpatch does not rewrite`},
		{"no deferred group", "deferred := graphql.NewDeferredGroup(ctx)", "deferred := graphql.DeferredGroup{}",
			`no "out := graphql.NewFieldSet(fields)\n\tdeferred := graphql.NewDeferredGroup(ctx)\n" any more`},
		{"another deferred group form", "\tout.Dispatch(ctx)\n", "\t_ = graphql.NewDeferredGroup(ctx)\n\tout.Dispatch(ctx)\n",
			`has "NewDeferredGroup" in a form execpatch does not rewrite`},
		{"the group's path read", "\tout.Dispatch(ctx)\n", "\t_ = deferred.Path\n\tout.Dispatch(ctx)\n",
			"uses the deferred group as newDeferredGroup may not serve: _ = deferred.Path"},
		{"no object answer", "\treturn out\n", "\treturn graphql.Marshaler(out)\n",
			`no "\t\tec.ProcessDeferredGroup(deferred)\n\t}\n\n\treturn out\n}\n" any more`},
		{"another object answer", "\tout.Dispatch(ctx)\n", "\tif obj == nil {\n\t\treturn out\n\t}\n\tout.Dispatch(ctx)\n",
			`has "return out\n" in a form execpatch does not rewrite`},
		{"an object marshalled another way", "\t\tec.ProcessDeferredGroup(deferred)\n\t}\n\n\treturn out\n}\n",
			"\t\tec.ProcessDeferredGroup(deferred)\n\t}\n\n\treturn out\n}\n\nfunc (ec *executionContext) _Other(ctx context.Context) graphql.Marshaler {\n\tif n := len(deferred.Defers); n > 0 {\n\t\tec.ProcessDeferredGroup(deferred)\n\t}\n\n\treturn out\n}\n",
			"2 object answers rewritten for 1 deferred groups"},
		{"no field resolution", "return graphql.ResolveField(\n", "return graphql.ResolveFieldV2(\n",
			`no "return graphql.ResolveField(\n" any more`},
		{"another field resolution form", "return ret\n}", "_ = graphql.ResolveField[int]\n\treturn ret\n}",
			`has "graphql.ResolveField" in a form execpatch does not rewrite`},
		{"no scalar field context", "return graphql.NewScalarFieldContext(", "return graphql.NewFieldContext(",
			`no "return graphql.NewScalarFieldContext(" any more`},
		{"another scalar field context form", "return ret\n}", "_ = graphql.NewScalarFieldContext\n\treturn ret\n}",
			`has "graphql.NewScalarFieldContext" in a form execpatch does not rewrite`},
		{"no field collection", "graphql.CollectFields(ec.OperationContext, sel, ", "graphql.CollectFieldsCtx(ec.OperationContext, sel, ",
			`no "fields := graphql.CollectFields(ec.OperationContext, sel, " any more`},
		{"another field collection form", "return ret\n}", "_ = graphql.CollectFields(ec.OperationContext, nil, nil)\n\treturn ret\n}",
			`has "graphql.CollectFields" in a form execpatch does not rewrite`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(generated, tc.from, tc.to, 1)
			if src == generated {
				t.Fatalf("%q is not in the sample", tc.from)
			}
			_, err := patch([]byte(src))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("patch: %v, want an error saying %q", err, tc.want)
			}
		})
	}
}

// fencedDir writes a package directory holding the generated source src,
// the files the rewrite needs and their stock counterpart, and returns the
// generated file's path.
func fencedDir(t *testing.T, src string) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range append(append([]string{}, rewriteFiles...), stockFiles...) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("package graph\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "generated.go")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// checkFence checks that the copies of gqlgen internals in dir are built
// when rewritten is set and the stock counterpart otherwise.
func checkFence(t *testing.T, dir string, rewritten bool) {
	t.Helper()
	for _, f := range []struct {
		names []string
		built bool
	}{{rewriteFiles, rewritten}, {stockFiles, !rewritten}} {
		for _, name := range f.names {
			src, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			if built := !strings.HasPrefix(string(src), notBuilt); built != f.built {
				t.Errorf("%s built: %t, want %t (rewritten %t):\n%s", name, built, f.built, rewritten, src)
			}
		}
	}
}

// TestRun checks that the file is rewritten in place with the copies built,
// and left alone (not even written) when it is already rewritten.
func TestRun(t *testing.T) {
	path := fencedDir(t, generated)
	if err := fence(filepath.Dir(path), false); err != nil { // as the run before gqlgen's
		t.Fatal(err)
	}
	checkFence(t, filepath.Dir(path), false)
	if note, err := run(path, false); err != nil || note != "" {
		t.Fatalf("run: note %q, error %v", note, err)
	}
	checkFence(t, filepath.Dir(path), true)
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(got), "graphql.MarshalSliceConcurrently") || !strings.Contains(string(got), "marshalSlice(ctx, ") {
		t.Errorf("not rewritten:\n%s", got)
	}
	// A rewritten file is left alone, not even written: its time stays.
	// (Making it read-only would not tell: root may write it anyway.)
	old := time.Unix(1, 0)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	if _, err := run(path, false); err != nil {
		t.Errorf("patching a rewritten file: %v", err)
	}
	if info, err := os.Stat(path); err != nil {
		t.Fatal(err)
	} else if !info.ModTime().Equal(old) {
		t.Errorf("patching a rewritten file wrote it (modified %v)", info.ModTime())
	}
	checkFence(t, filepath.Dir(path), true)
}

// TestRunLeavesStock checks that, when gqlgen's output changed shape or
// DOCSD_EXECPATCH=off, the executor is gqlgen's stock one (a rewritten file
// is unwritten), the copies of gqlgen internals are fenced off, the stock
// counterpart is built, a note says so, and there is no error: go generate
// goes on.
func TestRunLeavesStock(t *testing.T) {
	rewritten, err := patch([]byte(generated))
	if err != nil {
		t.Fatal(err)
	}
	stock, err := format.Source([]byte(generated))
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(generated, "return graphql.ResolveField(\n", "return graphql.ResolveFieldV2(\n", 1)
	for _, tc := range []struct {
		name, src string
		off       bool
		want      string // the file afterwards
		note      string
	}{
		{"off", generated, true, string(stock), "DOCSD_EXECPATCH=off"},
		{"off, already rewritten", string(rewritten), true, string(stock), "DOCSD_EXECPATCH=off"},
		{"changed shape", changed, false, changed, `no "return graphql.ResolveField(\n" any more: update graph/internal/execpatch; gqlgen's executor is left stock`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := fencedDir(t, tc.src)
			if err := fence(filepath.Dir(path), true); err != nil { // as after an earlier rewrite
				t.Fatal(err)
			}
			note, err := run(path, tc.off)
			if err != nil {
				t.Fatalf("run: %v (a stock executor is no error)", err)
			}
			if !strings.Contains(note, tc.note) || !strings.Contains(note, "execpatch.go, resolvefield.go, execpatch_test.go, resolvefield_test.go are not built") {
				t.Errorf("note %q, want it to say %q and which files are not built", note, tc.note)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("generated file:\n%s\nwant:\n%s", got, tc.want)
			}
			checkFence(t, filepath.Dir(path), false)
			// Rewriting again builds the copies again.
			if tc.off {
				if note, err := run(path, false); err != nil || note != "" {
					t.Fatalf("run: note %q, error %v", note, err)
				}
				checkFence(t, filepath.Dir(path), true)
			}
		})
	}
}

// TestGraphFence checks the committed package graph: its copies of gqlgen
// internals are built exactly when its generated.go is rewritten.
func TestGraphFence(t *testing.T) {
	src, err := os.ReadFile("../../generated.go")
	if err != nil {
		t.Fatal(err)
	}
	checkFence(t, "../..", strings.Contains(string(src), "marshalSlice(ctx, "))
}
