package graph

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vikstrous/dataloadgen"

	"docsd/internal/errs"
	"docsd/store"
)

// loaders batch the reads of one operation so that a list of N objects with
// their relations costs a constant number of queries. A fresh set is made
// per operation, or per request for the queries of a request that shares
// its reads (see withLoaders and ShareReads): nothing is cached across
// requests.
type loaders struct {
	projectBySlug *memo[string, *store.Project]
	projectByID   *batched[int64, *store.Project]
	versionByID   *batched[int64, *store.Version]
	userByID      *batched[int64, *store.User]
	maintainersOf *batched[int64, []int64]
	// organizationRolesOf are the roles of a project's organization
	// (owners, team members), read only for projects in one.
	organizationRolesOf *batched[int64, []store.RoleGrant]
	lastBuildOf         *batched[int64, *store.Build]
	lastSuccessOf       *batched[int64, *store.Build] // last successful build
	activeVersionsOf    *batched[int64, []*store.Version]
	internalVersionsOf  *batched[int64, []*store.Version]
	commandsOf          *batched[int64, []*store.BuildCommand]
}

// loaderWait is how long a loader gathers the keys its resolvers ask for
// before it reads them in one batch.
const loaderWait = time.Millisecond

// batched reads values by key for one operation (or request) and keeps
// what it read, so that each key is read once. It reads in two ways:
//
//   - Load and LoadAll gather the keys asked within loaderWait into one
//     read: the per-row resolvers of shapes that nobody prefetches
//     (dashboards) then cost one read per relation, however long the list.
//   - prefetch reads the keys it is given at once, without waiting: the
//     lookahead of prefetch.go, which knows every key a selection will ask
//     before the row resolvers run. The REST operations are prefetched
//     whole, so they wait for no timer.
//
// Keys missing from fetch's map get missing(key).
type batched[K comparable, V any] struct {
	name    string // for the test hook, CountWaitedBatches
	fetch   func(ctx context.Context, keys []K) (map[K]V, error)
	missing func(K) (V, error)
	waiting *dataloadgen.Loader[K, V] // the keys Load asked for that were not read yet

	mu   sync.Mutex // guards read
	read map[K]memoResult[V]
}

func newBatched[K comparable, V any](name string, fetch func(ctx context.Context, keys []K) (map[K]V, error), missing func(K) (V, error)) *batched[K, V] {
	b := &batched[K, V]{name: name, fetch: fetch, missing: missing, read: map[K]memoResult[V]{}}
	b.waiting = dataloadgen.NewLoader(func(ctx context.Context, keys []K) ([]V, []error) {
		countWaitedBatch(ctx, name, len(keys))
		return b.readKeys(ctx, keys)
	}, dataloadgen.WithWait(loaderWait))
	return b
}

// readKeys fetches keys and keeps the results.
func (b *batched[K, V]) readKeys(ctx context.Context, keys []K) ([]V, []error) {
	found, err := b.fetch(ctx, keys)
	vals := make([]V, len(keys))
	errors := make([]error, len(keys))
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, k := range keys {
		if err != nil {
			errors[i] = err
		} else if v, ok := found[k]; ok {
			vals[i] = v
		} else {
			vals[i], errors[i] = b.missing(k)
		}
		if _, ok := b.read[k]; !ok {
			b.read[k] = memoResult[V]{vals[i], errors[i]}
		}
	}
	return vals, errors
}

// cached returns what was read for k.
func (b *batched[K, V]) cached(k K) (memoResult[V], bool) {
	b.mu.Lock()
	r, ok := b.read[k]
	b.mu.Unlock()
	return r, ok
}

// Load returns the value of k, read with the other keys asked within
// loaderWait unless it was read before.
func (b *batched[K, V]) Load(ctx context.Context, k K) (V, error) {
	if r, ok := b.cached(k); ok {
		return r.v, r.err
	}
	return b.waiting.Load(ctx, k)
}

// LoadAll returns the values of keys (Load for each, in one batch), and the
// first error.
func (b *batched[K, V]) LoadAll(ctx context.Context, keys []K) ([]V, error) {
	vals := make([]V, len(keys))
	var thunks []func() (V, error)
	var at []int
	var first error
	for i, k := range keys {
		if r, ok := b.cached(k); ok {
			vals[i] = r.v
			first = firstErr(first, r.err)
			continue
		}
		thunks = append(thunks, b.waiting.LoadThunk(ctx, k))
		at = append(at, i)
	}
	for j, thunk := range thunks {
		v, err := thunk()
		vals[at[j]] = v
		first = firstErr(first, err)
	}
	return vals, first
}

// LoadNow returns the value of k, read at once (prefetch) unless it was
// read before: for the single objects whose keys no lookahead knew.
func (b *batched[K, V]) LoadNow(ctx context.Context, k K) (V, error) {
	b.prefetch(ctx, []K{k})
	return b.Load(ctx, k)
}

// Prime keeps v as the value of k unless k was read already.
func (b *batched[K, V]) Prime(k K, v V) {
	b.mu.Lock()
	if _, ok := b.read[k]; !ok {
		b.read[k] = memoResult[V]{v: v}
	}
	b.mu.Unlock()
}

// prefetch reads the keys not read yet in one fetch, now, and returns the
// values of all keys (zero where reading failed: the resolvers that Load
// such a key get its error).
func (b *batched[K, V]) prefetch(ctx context.Context, keys []K) []V {
	var todo []K
	b.mu.Lock()
	for _, k := range keys {
		if _, ok := b.read[k]; !ok && !slices.Contains(todo, k) {
			todo = append(todo, k)
		}
	}
	b.mu.Unlock()
	if len(todo) > 0 {
		b.readKeys(ctx, todo)
	}
	vals := make([]V, len(keys))
	b.mu.Lock()
	for i, k := range keys {
		vals[i] = b.read[k].v
	}
	b.mu.Unlock()
	return vals
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
	l.projectByID = newBatched("projectByID", func(ctx context.Context, ids []int64) (map[int64]*store.Project, error) {
		ps, err := s.FindProjectsByIDs(ctx, ids)
		return byID(ps, func(p *store.Project) int64 { return p.ID }), err
	}, notFound[int64, *store.Project])
	l.versionByID = newBatched("versionByID", func(ctx context.Context, ids []int64) (map[int64]*store.Version, error) {
		vs, err := s.FindVersionsByIDs(ctx, ids)
		return byID(vs, func(v *store.Version) int64 { return v.ID }), err
	}, notFound[int64, *store.Version])
	l.userByID = newBatched("userByID", func(ctx context.Context, ids []int64) (map[int64]*store.User, error) {
		us, err := s.FindUsersByIDs(ctx, ids)
		return byID(us, func(u *store.User) int64 { return u.ID }), err
	}, notFound[int64, *store.User])
	// The maintainers come with their users, who are primed.
	l.maintainersOf = newBatched("maintainersOf", func(ctx context.Context, ids []int64) (map[int64][]int64, error) {
		ms, err := s.FindMaintainers(ctx, ids)
		out := map[int64][]int64{}
		for _, m := range ms {
			out[m.ProjectID] = append(out[m.ProjectID], m.ID)
			l.userByID.Prime(m.ID, &m.User)
		}
		return out, err
	}, empty[int64, []int64])
	l.organizationRolesOf = newBatched("organizationRolesOf", func(ctx context.Context, ids []int64) (map[int64][]store.RoleGrant, error) {
		gs, err := s.FindOrganizationRoles(ctx, ids)
		out := map[int64][]store.RoleGrant{}
		for _, g := range gs {
			out[g.ProjectID] = append(out[g.ProjectID], g)
		}
		return out, err
	}, empty[int64, []store.RoleGrant])
	l.lastBuildOf = newBatched("lastBuildOf", s.FindLastBuilds, empty[int64, *store.Build])
	l.lastSuccessOf = newBatched("lastSuccessOf", s.FindLastSuccessfulBuilds, empty[int64, *store.Build])
	l.activeVersionsOf = newBatched("activeVersionsOf", func(ctx context.Context, ids []int64) (map[int64][]*store.Version, error) {
		yes, public := true, store.Public
		vs, err := s.FindAllVersions(ctx, store.VersionFilter{ProjectIDs: ids, Active: &yes, Built: &yes, PrivacyLevel: &public, Internal: true})
		return groupVersions(vs), err
	}, empty[int64, []*store.Version])
	l.internalVersionsOf = newBatched("internalVersionsOf", func(ctx context.Context, ids []int64) (map[int64][]*store.Version, error) {
		vs, err := s.FindAllVersions(ctx, store.VersionFilter{ProjectIDs: ids, Internal: true})
		return groupVersions(vs), err
	}, empty[int64, []*store.Version])
	l.commandsOf = newBatched("commandsOf", func(ctx context.Context, ids []int64) (map[int64][]*store.BuildCommand, error) {
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

// waitedBatchesKey marks a context whose loader batches are recorded (the
// test hook CountWaitedBatches).
type waitedBatchesKey struct{}

// waitedBatches records the batches the loaders read after waiting.
type waitedBatches struct {
	mu      sync.Mutex // guards batches
	batches []string
}

// countWaitedBatch records a batch of n keys of the named loader when ctx
// asks for it.
func countWaitedBatch(ctx context.Context, name string, n int) {
	if w, ok := ctx.Value(waitedBatchesKey{}).(*waitedBatches); ok {
		w.mu.Lock()
		w.batches = append(w.batches, fmt.Sprintf("%s(%d keys)", name, n))
		w.mu.Unlock()
	}
}
