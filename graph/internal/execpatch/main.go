// Command execpatch rewrites six places in the executor that gqlgen
// generates (graph/generated.go) to call functions of package graph
// (graph/execpatch.go, graph/resolvefield.go), so that REST's internal reads
// do not pay for what they do not need. gqlgen has no option for any of them.
//
//   - graphql.MarshalSliceConcurrently, which runs every element of an object
//     list in a goroutine of its own, becomes marshalSlice, which runs them
//     one after another when the operation's reads were primed and otherwise
//     calls MarshalSliceConcurrently.
//   - graphql.NewDeferredGroup(ctx), which every object's marshal function
//     calls and which builds the object's whole path, a field set and a map,
//     becomes newDeferredGroup(ctx, fields), which builds them only when one
//     of the object's fields is @defer'd.
//   - `return out`, the object's *graphql.FieldSet, becomes
//     marshalObject(fields, out), which writes the same JSON without the
//     copies of every field, the map and the closures that
//     FieldSet.MarshalGQL allocates for every object.
//   - graphql.ResolveField, which every field's function calls and which
//     runs the field's resolver through the operation's field middleware,
//     becomes resolveField, which calls the resolver directly when the
//     operation's reads were primed (its executor has no field middleware)
//     and the field has no directive, and otherwise calls ResolveField.
//   - graphql.NewScalarFieldContext, which makes a closure for every scalar
//     field it is called for, becomes newScalarFieldContext, which gives the
//     fields of the schema's scalars and enums one made once.
//   - graphql.CollectFields, which hashes the names of an object's
//     implementors on every call, becomes collectFields, which under primed
//     reads caches the fields by the identity of the selection and of the
//     implementors' slice, and otherwise calls CollectFields.
//
// The functions it calls are copies of gqlgen internals, which an upgrade of
// gqlgen may break: they are fenced. The files that hold them and their
// tests (rewriteFiles) are built only when the rewrite is applied; otherwise
// they start with a `//go:build ignore` line that execpatch writes, and the
// stock counterpart (stockFiles) is built instead. An upgrade of gqlgen is
// therefore `go get` + `go generate ./...` + `go test ./...` whatever
// gqlgen's output became: when it no longer has the shape execpatch
// rewrites, execpatch says so on stderr, leaves gqlgen's executor stock and
// exits 0 (REST lists are then slower: docs/performance.md).
//
// `go generate ./...` runs it twice around gqlgen (graph/doc.go):
//
//	go run ./internal/execpatch -stock
//	go tool gqlgen generate
//	go run ./internal/execpatch generated.go
//
// The first run fences the copies off before gqlgen runs, because gqlgen
// loads and type-checks package graph after it wrote generated.go, and
// copies that no longer compile against the new gqlgen would fail it. The
// second rewrites generated.go in place and builds the copies again.
//
// DOCSD_EXECPATCH=off makes the second run leave gqlgen's executor stock
// (and undo the rewrite of a file already rewritten), so that the stock
// path is one step away:
//
//	DOCSD_EXECPATCH=off go generate ./graph
//
// The rewrite is idempotent (a file already rewritten is left as it is). It
// is refused, leaving the executor stock, when gqlgen's output no longer has
// the shape it rewrites: no call to rewrite, a call it does not recognise, or
// a use of the deferred group that a group built only for @defer'd fields
// would not serve.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"go/format"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// rewriteFiles are the files of package graph, next to generated.go, that
// hold the functions the rewritten executor calls, and their tests: built
// only when generated.go is rewritten.
var rewriteFiles = []string{"execpatch.go", "resolvefield.go", "execpatch_test.go", "resolvefield_test.go"}

// stockFiles are the files built only when generated.go is gqlgen's stock
// executor: what the rest of the package needs of rewriteFiles.
var stockFiles = []string{"execpatch_stock.go"}

// notBuilt is the line execpatch puts at the start of a fenced file that is
// not to be built, followed by a blank line.
const notBuilt = "//go:build ignore\n\n"

// offEnv names the environment variable that, set to "off", keeps gqlgen's
// executor stock.
const offEnv = "DOCSD_EXECPATCH"

func main() {
	args := os.Args[1:]
	var err error
	switch {
	case len(args) == 1 && args[0] == "-stock":
		err = fence(".", false)
	case len(args) == 1 && !strings.HasPrefix(args[0], "-"):
		var note string
		note, err = run(args[0], os.Getenv(offEnv) == "off")
		if note != "" {
			fmt.Fprintln(os.Stderr, "execpatch:", note)
		}
	default:
		fmt.Fprintln(os.Stderr, "usage: execpatch -stock | execpatch <generated.go>")
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "execpatch:", err)
		os.Exit(1)
	}
}

// run rewrites the generated executor at path and builds the copies of
// gqlgen internals, or, when off is set or the rewrite is refused, leaves
// (makes) the executor stock and fences the copies off. note, when not
// empty, says why the executor is stock. err is an error reading or writing
// the files only.
func run(path string, off bool) (note string, err error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	out, why := patch(src)
	switch {
	case off:
		note = offEnv + "=off: gqlgen's executor is left stock"
	case why != nil:
		note = fmt.Sprintf("%s: %v; gqlgen's executor is left stock", path, why)
	}
	if note != "" {
		if out, err = unpatch(src); err != nil {
			return note, fmt.Errorf("%s: %w", path, err)
		}
		note += fmt.Sprintf(" and %s are not built; REST lists run slower until `go generate ./graph` applies the rewrite again", strings.Join(rewriteFiles, ", "))
	}
	if err := writeChanged(path, src, out); err != nil {
		return note, err
	}
	return note, fence(filepath.Dir(path), note == "")
}

// fence builds the files of dir that the rewritten executor needs
// (rewriteFiles) when rewritten is set, and the stock counterpart
// (stockFiles) otherwise, by writing or removing their notBuilt line.
func fence(dir string, rewritten bool) error {
	for _, name := range rewriteFiles {
		if err := setBuilt(filepath.Join(dir, name), rewritten); err != nil {
			return err
		}
	}
	for _, name := range stockFiles {
		if err := setBuilt(filepath.Join(dir, name), !rewritten); err != nil {
			return err
		}
	}
	return nil
}

// setBuilt makes the file at path start with notBuilt unless built, and
// not start with it when built.
func setBuilt(path string, built bool) error {
	src, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out := bytes.TrimPrefix(src, []byte(notBuilt))
	if !built {
		out = append([]byte(notBuilt), out...)
	}
	return writeChanged(path, src, out)
}

// writeChanged writes out to the file at path, whose content is src, only
// when it differs, keeping its permissions.
func writeChanged(path string, src, out []byte) error {
	if bytes.Equal(out, src) {
		return nil
	}
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	return os.WriteFile(path, out, info.Mode().Perm())
}

// rewrite is one textual replacement: every occurrence of from becomes to.
// A file must hold at least one of either, and after the rewrite none of
// stray (the call in any form) remains.
type rewrite struct {
	name     string
	from, to string
	stray    *regexp.Regexp
}

var rewrites = []rewrite{
	{
		name:  "list marshalling",
		from:  "graphql.MarshalSliceConcurrently(ctx, ",
		to:    "marshalSlice(ctx, ",
		stray: regexp.MustCompile(`\bMarshalSliceConcurrently\b`),
	},
	{
		// The end of an object's marshal function, whose field set out is
		// made of the object's collected fields (the deferred group's
		// rewrite checks that line): counted against it below.
		name:  "object answer",
		from:  "\t\tec.ProcessDeferredGroup(deferred)\n\t}\n\n\treturn out\n}\n",
		to:    "\t\tec.ProcessDeferredGroup(deferred)\n\t}\n\n\treturn marshalObject(fields, out)\n}\n",
		stray: regexp.MustCompile(`\breturn out\n`),
	},
	{
		// The two lines together: fields is then the object's collected
		// fields, the set the group is for.
		name:  "deferred group",
		from:  "out := graphql.NewFieldSet(fields)\n\tdeferred := graphql.NewDeferredGroup(ctx)\n",
		to:    "out := graphql.NewFieldSet(fields)\n\tdeferred := newDeferredGroup(ctx, fields)\n",
		stray: regexp.MustCompile(`\bNewDeferredGroup\b`),
	},
	{
		// Same parameters, type argument inferred in both.
		name:  "field resolution",
		from:  "return graphql.ResolveField(\n",
		to:    "return resolveField(\n",
		stray: regexp.MustCompile(`\bgraphql\.ResolveField\b`),
	},
	{
		// An object's marshal function, whose ctx is the object's.
		name:  "field collection",
		from:  "fields := graphql.CollectFields(ec.OperationContext, sel, ",
		to:    "fields := collectFields(ctx, ec.OperationContext, sel, ",
		stray: regexp.MustCompile(`\bgraphql\.CollectFields\b`),
	},
	{
		name:  "scalar field context",
		from:  "return graphql.NewScalarFieldContext(",
		to:    "return newScalarFieldContext(",
		stray: regexp.MustCompile(`\bgraphql\.NewScalarFieldContext\b`),
	},
}

// deferredUse matches a line that names the object's deferred group; every
// such line must be one of deferredUses.
var deferredUse = regexp.MustCompile(`\bdeferred\b`)

// deferredUses are the uses of the group that a zero group (no field
// @defer'd) serves as a full one would: ResolveConcurrently touches the group
// only for a @defer'd field, and len of a nil map is 0, so the group is never
// processed.
var deferredUses = [][]byte{
	[]byte("deferred := newDeferredGroup(ctx, fields)"),
	[]byte("out.ResolveConcurrently(ec.OperationContext, &deferred, i,"),
	[]byte("if n := len(deferred.Defers); n > 0 {"),
	[]byte("ec.ProcessDeferredGroup(deferred)"),
}

// patch returns src, the Go source gqlgen generated, with rewrites applied
// and formatted.
func patch(src []byte) ([]byte, error) {
	out := src
	for _, rw := range rewrites {
		from, to := []byte(rw.from), []byte(rw.to)
		if !bytes.Contains(out, from) && !bytes.Contains(out, to) {
			return nil, fmt.Errorf("%s: gqlgen's output has no %q any more: update graph/internal/execpatch", rw.name, rw.from)
		}
		out = bytes.ReplaceAll(out, from, to)
		if loc := rw.stray.FindIndex(out); loc != nil {
			return nil, fmt.Errorf("%s: line %d has %q in a form execpatch does not rewrite: update graph/internal/execpatch", rw.name, lineOf(out, loc[0]), out[loc[0]:loc[1]])
		}
	}
	// Every object's marshal function is rewritten whole or not at all.
	if answers, groups := bytes.Count(out, []byte(rewrites[1].to)), bytes.Count(out, []byte(rewrites[2].to)); answers != groups {
		return nil, fmt.Errorf("%d object answers rewritten for %d deferred groups: gqlgen's object marshal functions changed shape: update graph/internal/execpatch", answers, groups)
	}
	var errs []error
	for i, line := range bytes.Split(out, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if !deferredUse.Match(line) || bytes.HasPrefix(line, []byte("//")) {
			continue
		}
		known := false
		for _, use := range deferredUses {
			known = known || bytes.Equal(line, use)
		}
		if !known {
			errs = append(errs, fmt.Errorf("line %d uses the deferred group as newDeferredGroup may not serve: %s", i+1, line))
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%w: update graph/internal/execpatch", errors.Join(errs...))
	}
	return format.Source(out)
}

// unpatch returns src with every rewrite undone: gqlgen's stock executor
// when src is gqlgen's output, rewritten or not.
func unpatch(src []byte) ([]byte, error) {
	out := src
	for _, rw := range rewrites {
		out = bytes.ReplaceAll(out, []byte(rw.to), []byte(rw.from))
	}
	return format.Source(out)
}

// lineOf returns the 1-based line of src that offset falls on.
func lineOf(src []byte, offset int) int {
	return bytes.Count(src[:offset], []byte("\n")) + 1
}
