package graph

import (
	"context"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vikstrous/dataloadgen"

	"docsd/errs"
	"docsd/store"
)

// loaders batch the reads of one operation so that a list of N objects with
// their relations costs a constant number of queries. A fresh set is made
// per operation (see withLoaders): nothing is cached across requests.
type loaders struct {
	projectByID        *dataloadgen.Loader[int64, *store.Project]
	versionByID        *dataloadgen.Loader[int64, *store.Version]
	userByID           *dataloadgen.Loader[int64, *store.User]
	maintainersOf      *dataloadgen.Loader[int64, []int64]
	lastBuildOf        *dataloadgen.Loader[int64, *store.Build]
	lastSuccessOf      *dataloadgen.Loader[int64, *store.Build] // last successful build
	activeVersionsOf   *dataloadgen.Loader[int64, []*store.Version]
	internalVersionsOf *dataloadgen.Loader[int64, []*store.Version]
	parentRelationOf   *dataloadgen.Loader[int64, *store.Relationship]
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
	return &loaders{
		projectByID: batch(func(ctx context.Context, ids []int64) (map[int64]*store.Project, error) {
			ps, err := s.FindProjectsByIDs(ctx, ids)
			return byID(ps, func(p *store.Project) int64 { return p.ID }), err
		}, notFound[int64, *store.Project]),
		versionByID: batch(func(ctx context.Context, ids []int64) (map[int64]*store.Version, error) {
			vs, err := s.FindVersionsByIDs(ctx, ids)
			return byID(vs, func(v *store.Version) int64 { return v.ID }), err
		}, notFound[int64, *store.Version]),
		userByID: batch(func(ctx context.Context, ids []int64) (map[int64]*store.User, error) {
			us, err := s.FindUsersByIDs(ctx, ids)
			return byID(us, func(u *store.User) int64 { return u.ID }), err
		}, notFound[int64, *store.User]),
		maintainersOf: batch(func(ctx context.Context, ids []int64) (map[int64][]int64, error) {
			ms, err := s.FindMaintainerships(ctx, ids)
			out := map[int64][]int64{}
			for _, m := range ms {
				out[m.ProjectID] = append(out[m.ProjectID], m.UserID)
			}
			return out, err
		}, empty[int64, []int64]),
		lastBuildOf:   batch(s.FindLastBuilds, empty[int64, *store.Build]),
		lastSuccessOf: batch(s.FindLastSuccessfulBuilds, empty[int64, *store.Build]),
		activeVersionsOf: batch(func(ctx context.Context, ids []int64) (map[int64][]*store.Version, error) {
			yes, public := true, store.Public
			vs, err := s.FindAllVersions(ctx, store.VersionFilter{ProjectIDs: ids, Active: &yes, Built: &yes, PrivacyLevel: &public, Internal: true})
			return groupVersions(vs), err
		}, empty[int64, []*store.Version]),
		internalVersionsOf: batch(func(ctx context.Context, ids []int64) (map[int64][]*store.Version, error) {
			vs, err := s.FindAllVersions(ctx, store.VersionFilter{ProjectIDs: ids, Internal: true})
			return groupVersions(vs), err
		}, empty[int64, []*store.Version]),
		parentRelationOf: batch(func(ctx context.Context, ids []int64) (map[int64]*store.Relationship, error) {
			rels, _, err := s.FindRelationships(ctx, store.RelationshipFilter{ChildIDs: ids})
			return byID(rels, func(r *store.Relationship) int64 { return r.ChildID }), err
		}, empty[int64, *store.Relationship]),
		commandsOf: batch(func(ctx context.Context, ids []int64) (map[int64][]*store.BuildCommand, error) {
			cs, err := s.FindBuildCommands(ctx, ids)
			out := map[int64][]*store.BuildCommand{}
			for _, c := range cs {
				out[c.BuildID] = append(out[c.BuildID], c)
			}
			return out, err
		}, empty[int64, []*store.BuildCommand]),
	}
}

func groupVersions(vs []*store.Version) map[int64][]*store.Version {
	out := map[int64][]*store.Version{}
	for _, v := range vs {
		out[v.ProjectID] = append(out[v.ProjectID], v)
	}
	return out
}

type loadersKey struct{}

// withLoaders is the AroundOperations hook that gives each operation its own
// loaders.
func withLoaders(s *store.Store) graphql.OperationMiddleware {
	return func(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
		return next(context.WithValue(ctx, loadersKey{}, newLoaders(s)))
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
