package graph

import (
	"context"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vikstrous/dataloadgen"

	"docsd/errs"
	"docsd/store"
)

// loaders batch the reads of one operation so that a list of N objects with
// their relations costs a constant number of queries. A fresh set is made
// per operation, or per request for the queries of a request that shares
// its reads (see withLoaders and ShareReads): nothing is cached across
// requests.
type loaders struct {
	projectBySlug      *memo[string, *store.Project]
	projectByID        *dataloadgen.Loader[int64, *store.Project]
	versionByID        *dataloadgen.Loader[int64, *store.Version]
	userByID           *dataloadgen.Loader[int64, *store.User]
	maintainersOf      *dataloadgen.Loader[int64, []int64]
	lastBuildOf        *dataloadgen.Loader[int64, *store.Build]
	lastSuccessOf      *dataloadgen.Loader[int64, *store.Build] // last successful build
	activeVersionsOf   *dataloadgen.Loader[int64, []*store.Version]
	internalVersionsOf *dataloadgen.Loader[int64, []*store.Version]
	commandsOf         *dataloadgen.Loader[int64, []*store.BuildCommand]
}

const loaderWait = time.Millisecond

// batch builds a loader from a fetch that returns a map; keys missing from
// the map get missing(key).
func batch[K comparable, V any](fetch func(ctx context.Context, keys []K) (map[K]V, error), missing func(K) (V, error)) *dataloadgen.Loader[K, V] {
	return dataloadgen.NewLoader(func(ctx context.Context, keys []K) ([]V, []error) {
		found, err := fetch(ctx, keys)
		vals := make([]V, len(keys))
		errors := make([]error, len(keys))
		for i, k := range keys {
			if err != nil {
				errors[i] = err
				continue
			}
			v, ok := found[k]
			if !ok {
				v, errors[i] = missing(k)
			}
			vals[i] = v
		}
		return vals, errors
	}, dataloadgen.WithWait(loaderWait))
}

func notFound[K comparable, V any](K) (V, error) {
	var zero V
	return zero, errs.E(errs.NotFound, "graph.loader", errs.MsgNotFound)
}

func empty[K comparable, V any](K) (V, error) {
	var zero V
	return zero, nil
}

func byID[V any](items []V, id func(V) int64) map[int64]V {
	m := make(map[int64]V, len(items))
	for _, it := range items {
		m[id(it)] = it
	}
	return m
}

func newLoaders(s *store.Store) *loaders {
	l := &loaders{}
	l.projectBySlug = &memo[string, *store.Project]{fetch: func(ctx context.Context, slug string) (*store.Project, error) {
		p, err := s.FindProjectBySlug(ctx, slug)
		if err == nil {
			l.projectByID.Prime(p.ID, p)
		}
		return p, err
	}}
	l.projectByID = batch(func(ctx context.Context, ids []int64) (map[int64]*store.Project, error) {
		ps, err := s.FindProjectsByIDs(ctx, ids)
		return byID(ps, func(p *store.Project) int64 { return p.ID }), err
	}, notFound[int64, *store.Project])
	l.versionByID = batch(func(ctx context.Context, ids []int64) (map[int64]*store.Version, error) {
		vs, err := s.FindVersionsByIDs(ctx, ids)
		return byID(vs, func(v *store.Version) int64 { return v.ID }), err
	}, notFound[int64, *store.Version])
	l.userByID = batch(func(ctx context.Context, ids []int64) (map[int64]*store.User, error) {
		us, err := s.FindUsersByIDs(ctx, ids)
		return byID(us, func(u *store.User) int64 { return u.ID }), err
	}, notFound[int64, *store.User])
	// The maintainers come with their users, who are primed.
	l.maintainersOf = batch(func(ctx context.Context, ids []int64) (map[int64][]int64, error) {
		ms, err := s.FindMaintainers(ctx, ids)
		out := map[int64][]int64{}
		for _, m := range ms {
			out[m.ProjectID] = append(out[m.ProjectID], m.ID)
			l.userByID.Prime(m.ID, &m.User)
		}
		return out, err
	}, empty[int64, []int64])
	l.lastBuildOf = batch(s.FindLastBuilds, empty[int64, *store.Build])
	l.lastSuccessOf = batch(s.FindLastSuccessfulBuilds, empty[int64, *store.Build])
	l.activeVersionsOf = batch(func(ctx context.Context, ids []int64) (map[int64][]*store.Version, error) {
		yes, public := true, store.Public
		vs, err := s.FindAllVersions(ctx, store.VersionFilter{ProjectIDs: ids, Active: &yes, Built: &yes, PrivacyLevel: &public, Internal: true})
		return groupVersions(vs), err
	}, empty[int64, []*store.Version])
	l.internalVersionsOf = batch(func(ctx context.Context, ids []int64) (map[int64][]*store.Version, error) {
		vs, err := s.FindAllVersions(ctx, store.VersionFilter{ProjectIDs: ids, Internal: true})
		return groupVersions(vs), err
	}, empty[int64, []*store.Version])
	l.commandsOf = batch(func(ctx context.Context, ids []int64) (map[int64][]*store.BuildCommand, error) {
		cs, err := s.FindBuildCommands(ctx, ids)
		out := map[int64][]*store.BuildCommand{}
		for _, c := range cs {
			out[c.BuildID] = append(out[c.BuildID], c)
		}
		return out, err
	}, empty[int64, []*store.BuildCommand])
	return l
}

// memo keeps the result of one lookup per key for the loaders' lifetime,
// without batching, for lookups that come one at a time (a project by
// slug). Two concurrent first lookups of a key may both fetch it.
type memo[K comparable, V any] struct {
	fetch func(ctx context.Context, k K) (V, error)
	mu    sync.Mutex // guards done
	done  map[K]memoResult[V]
}

type memoResult[V any] struct {
	v   V
	err error
}

// Load returns the result of fetch(ctx, k), fetching it on the first call.
func (m *memo[K, V]) Load(ctx context.Context, k K) (V, error) {
	m.mu.Lock()
	r, ok := m.done[k]
	m.mu.Unlock()
	if ok {
		return r.v, r.err
	}
	v, err := m.fetch(ctx, k)
	m.mu.Lock()
	if m.done == nil {
		m.done = map[K]memoResult[V]{}
	}
	m.done[k] = memoResult[V]{v, err}
	m.mu.Unlock()
	return v, err
}

func groupVersions(vs []*store.Version) map[int64][]*store.Version {
	out := map[int64][]*store.Version{}
	for _, v := range vs {
		out[v.ProjectID] = append(out[v.ProjectID], v)
	}
	return out
}

type loadersKey struct{}

// sharedReadsKey marks a context whose operations share their loaders.
type sharedReadsKey struct{}

// sharedReads holds the loaders that the queries of one request share.
type sharedReads struct {
	mu sync.Mutex // guards l
	l  *loaders
}

// ShareReads returns ctx in which the query operations run by an Executor
// share one set of loaders, so that a request running several of them (REST's
// access check, then its read) reads each row once. Use it for one request:
// what a query read stays cached until the context ends. A mutation gets
// loaders of its own and makes the queries after it read afresh.
func ShareReads(ctx context.Context) context.Context {
	return context.WithValue(ctx, sharedReadsKey{}, &sharedReads{})
}

// forOperation returns the loaders an operation of kind op uses.
func (sh *sharedReads) forOperation(s *store.Store, op ast.Operation) *loaders {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if op != ast.Query {
		sh.l = nil
		return newLoaders(s)
	}
	if sh.l == nil {
		sh.l = newLoaders(s)
	}
	return sh.l
}

// withLoaders is the AroundOperations hook that gives each operation its
// loaders: its own, or its request's (ShareReads).
func withLoaders(s *store.Store) graphql.OperationMiddleware {
	return func(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
		var l *loaders
		sh, _ := ctx.Value(sharedReadsKey{}).(*sharedReads)
		oc := graphql.GetOperationContext(ctx)
		if sh != nil && oc != nil && oc.Operation != nil {
			l = sh.forOperation(s, oc.Operation.Operation)
		} else {
			l = newLoaders(s)
		}
		return next(context.WithValue(ctx, loadersKey{}, l))
	}
}

// freshLoadersAfterMutations is the AroundFields hook that replaces the
// operation's loaders after each mutation field has run, so that the fields
// selected on its result never read what was cached before the write.
// Mutation fields run one at a time and before their children, so nothing
// reads the loaders while they are replaced.
func freshLoadersAfterMutations(s *store.Store) graphql.FieldMiddleware {
	return func(ctx context.Context, next graphql.Resolver) (any, error) {
		res, err := next(ctx)
		if fc := graphql.GetFieldContext(ctx); fc != nil && fc.Object == "Mutation" {
			if l, ok := ctx.Value(loadersKey{}).(*loaders); ok {
				*l = *newLoaders(s)
			}
		}
		return res, err
	}
}

// loaders returns the operation's loaders, or fresh ones for a resolver
// called outside an operation (tests).
func (r *Resolver) loaders(ctx context.Context) *loaders {
	if l, ok := ctx.Value(loadersKey{}).(*loaders); ok {
		return l
	}
	return newLoaders(r.Store)
}
