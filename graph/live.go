package graph

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"docsd/internal/access"
	"docsd/internal/errs"
	"docsd/store"
)

// BuildChanges tells live subscriptions when a build may have changed
// (its row or its recorded commands). A signal may be spurious: the
// subscription reads the build and sends it only when it differs from
// what it sent last.
type BuildChanges interface {
	// Watch returns a channel that receives a value after build id may
	// have changed, and is closed when ctx ends.
	Watch(ctx context.Context, id int64) <-chan struct{}
}

// DefaultBuildPollInterval is how often PollBuildChanges signals.
const DefaultBuildPollInterval = 500 * time.Millisecond

// PollBuildChanges is the BuildChanges of a store without notifications:
// it signals every Interval (DefaultBuildPollInterval when zero), which
// sees builds run by workers on other machines too.
type PollBuildChanges struct {
	Interval time.Duration
}

// Watch signals every Interval until ctx ends: a SignalledBuildChanges
// that nothing signals.
func (p PollBuildChanges) Watch(ctx context.Context, id int64) <-chan struct{} {
	interval := p.Interval
	if interval <= 0 {
		interval = DefaultBuildPollInterval
	}
	return (&SignalledBuildChanges{Fallback: interval}).Watch(ctx, id)
}

// DefaultBuildFallbackInterval is how often SignalledBuildChanges wakes
// its watchers without a signal.
const DefaultBuildFallbackInterval = 5 * time.Second

// SignalledBuildChanges is the BuildChanges of a node that hears of build
// writes: whoever learns that builds or their commands were written (a
// store commit hook, a LISTEN/NOTIFY subscription) calls Signal, and every
// watcher wakes (a signal names no build: each subscription reads its own
// and sends only what changed). Watchers also wake every Fallback, for
// signals lost in a reconnection and for writes no hook hears (another
// process on a SQLite file).
type SignalledBuildChanges struct {
	Fallback time.Duration // DefaultBuildFallbackInterval when zero

	mu       sync.Mutex // guards watchers
	watchers map[chan struct{}]bool
}

// Signal wakes every watcher; it never blocks (a watcher with a wake-up
// pending needs no second one).
func (s *SignalledBuildChanges) Signal() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for w := range s.watchers {
		select {
		case w <- struct{}{}:
		default:
		}
	}
}

// Watch implements BuildChanges: the channel receives after each Signal
// and each Fallback, and is closed when ctx ends.
func (s *SignalledBuildChanges) Watch(ctx context.Context, id int64) <-chan struct{} {
	fallback := s.Fallback
	if fallback <= 0 {
		fallback = DefaultBuildFallbackInterval
	}
	w := make(chan struct{}, 1) // never closed: Signal may send at any time
	s.mu.Lock()
	if s.watchers == nil {
		s.watchers = map[chan struct{}]bool{}
	}
	s.watchers[w] = true
	s.mu.Unlock()
	out := make(chan struct{}, 1)
	go func() {
		defer close(out)
		defer func() {
			s.mu.Lock()
			delete(s.watchers, w)
			s.mu.Unlock()
		}()
		t := time.NewTicker(fallback)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-w:
			case <-t.C:
			}
			select {
			case out <- struct{}{}:
			default: // a wake-up is already pending
			}
		}
	}()
	return out
}

func (r *Resolver) buildChanges() BuildChanges {
	if r.Changes != nil {
		return r.Changes
	}
	return PollBuildChanges{}
}

// buildUpdated streams the build ref names (its global id or its database
// id, read as the mutations read theirs: buildID) as the viewer may see
// it: at once, then after every change of its row or its commands, until
// it has finished or ctx ends. An invisible build, or an id that names no
// build, is NotFound, as for the build query; a build that becomes
// invisible (its project or version made private, or deleted) ends the
// stream with that same NotFound, at the next wake-up of its watch
// (liveStream.end). The stream holds one of its connection's subscription
// slots while it runs.
func (r *Resolver) buildUpdated(ctx context.Context, ref string) (<-chan *BuildView, error) {
	id, err := buildID(ref)
	if err != nil {
		return nil, err
	}
	release, err := takeSubscriptionSlot(ctx)
	if err != nil {
		return nil, err
	}
	b, err := r.Store.FindBuildByID(ctx, id)
	if err == nil {
		_, err = r.visibleBuild(ctx, b, false)
	}
	if err != nil {
		release()
		return nil, err
	}
	st := &liveStream{}
	if fc := graphql.GetFieldContext(ctx); fc != nil {
		st.path = fc.Path()
	}
	if graphql.HasOperationContext(ctx) {
		graphql.GetOperationContext(ctx).Stats.SetExtension(liveStreamExtension, st)
	}
	out := make(chan *BuildView)
	req := ctx // the events' fields read with the operation's context, not the stream's
	ctx, stop := context.WithCancel(ctx)
	wake := r.buildChanges().Watch(ctx, id)
	go func() {
		defer close(out)
		defer stop()
		defer release()
		last := ""
		for {
			b, mark, err := r.buildState(ctx, id)
			if err == nil {
				err = r.stillVisible(ctx, b)
			}
			switch {
			case ctx.Err() != nil:
				return
			case errs.Is(err, errs.NotFound): // made private, or deleted with its project
				st.fail(err)
				return
			case err != nil:
				slog.WarnContext(ctx, "graph: following a build", "build", id, "err", err)
			case mark != last:
				select {
				case out <- r.buildView(req, b):
					last = mark
				case <-ctx.Done():
					return
				}
			}
			if err == nil && b.State == store.Finished {
				return
			}
			if _, ok := <-wake; !ok {
				return
			}
		}
	}()
	return out, nil
}

// liveStreamExtension names the *liveStream of a buildUpdated operation
// among its OperationContext's Stats extensions: the resolver puts it
// there, freshLoadersPerEvent reads it for every event.
const liveStreamExtension = "docsd.liveStream"

// liveStream is what a buildUpdated subscription's goroutine and the
// endpoint's per-event hook (freshLoadersPerEvent) share.
type liveStream struct {
	path ast.Path // the subscription field's, for the error that ends it

	mu  sync.Mutex // guards end
	end error      // why the goroutine closed the stream early, if it did

	last []byte // the data of the last event sent; only the hook uses it
}

// fail records why the stream ends early; the goroutine then closes it.
func (st *liveStream) fail(err error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.end = err
}

// endEvent is the last event of a stream whose channel was closed: nil
// (complete) when it ended normally; when it ended on an error, that
// error as a new subscription would get it (presented, on the
// subscription field's path): in a graphql-transport-ws `error` message
// on a WebSocket (so nil here, the transport sends it instead of
// `complete`), else in a `next` without data, the complete following on
// the next call.
func (st *liveStream) endEvent(ctx context.Context, oc *graphql.OperationContext) *graphql.Response {
	st.mu.Lock()
	err := st.end
	st.end = nil
	st.mu.Unlock()
	if err == nil {
		return nil
	}
	gqlErr := presentError(ctx, err)
	gqlErr.Path = st.path
	if strings.EqualFold(oc.Headers.Get("Upgrade"), "websocket") {
		transport.AddSubscriptionError(ctx, gqlErr)
		return nil
	}
	return &graphql.Response{Errors: gqlerror.List{gqlErr}}
}

// stillVisible returns the error a new subscription to b would get now
// (NotFound when its project or version was made private since the
// subscription started), nil when the viewer may still see it. It reads
// with loaders of its own: the operation's are replaced between events,
// concurrently with this goroutine.
func (r *Resolver) stillVisible(ctx context.Context, b *store.Build) error {
	ctx = context.WithValue(ctx, loadersKey{}, newLoaders(r.Store))
	_, err := r.visibleBuild(ctx, b, false)
	return err
}

// buildState reads build id and returns it with a mark of everything a
// subscriber may see of it and its commands: equal marks, nothing new.
// A query may select less than that (no output): freshLoadersPerEvent
// drops the events whose result did not change.
func (r *Resolver) buildState(ctx context.Context, id int64) (*store.Build, string, error) {
	b, err := r.Store.FindBuildByID(ctx, id)
	if err != nil {
		return nil, "", err
	}
	cmds, err := r.Store.FindBuildCommands(ctx, []int64{id})
	if err != nil {
		return nil, "", err
	}
	seen := *b
	seen.LeaseOwner, seen.LeaseExpires = nil, nil // extended while it runs, never shown
	mark, err := json.Marshal(struct {
		Build    store.Build
		Commands []*store.BuildCommand
	}{seen, cmds})
	if err != nil {
		return nil, "", errs.Wrap(errs.Internal, "graph.buildState", err)
	}
	return b, string(mark), nil
}

// freshLoadersPerEvent is the AroundResponses hook of subscription
// events. It gives each event new loaders, so that an event never shows
// what an earlier one cached (a command's output as it was); events are
// made one after the other, so nothing reads the loaders while they are
// replaced. For a buildUpdated stream it also sends an event only when
// its result differs from the last one sent (the stream wakes for changes
// the query may not select), and ends a stream its goroutine closed on an
// error with that error (liveStream.endEvent).
func freshLoadersPerEvent(s *store.Store) graphql.ResponseMiddleware {
	return func(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
		if !graphql.HasOperationContext(ctx) {
			// A request that failed before parsing (a malformed body) has no
			// operation: nothing to refresh.
			return next(ctx)
		}
		oc := graphql.GetOperationContext(ctx)
		if oc.Operation == nil || oc.Operation.Operation != ast.Subscription {
			return next(ctx)
		}
		for {
			if l, ok := ctx.Value(loadersKey{}).(*loaders); ok {
				*l = *newLoaders(s)
			}
			resp := next(ctx)
			st, ok := oc.Stats.GetExtension(liveStreamExtension).(*liveStream)
			switch {
			case !ok:
				return resp
			case resp == nil:
				return st.endEvent(ctx, oc)
			case len(resp.Errors) > 0 || !bytes.Equal(resp.Data, st.last):
				// A skipped event added no errors to ctx (it had none), so
				// the one sent carries its own only. Data is the generated
				// executor's buffer, reused by the next event: copied.
				st.last = bytes.Clone(resp.Data)
				return resp
			}
		}
	}
}

// cancelBuild cancels build id (store.CancelBuild) for a maintainer of
// its project; an invisible build is NotFound.
func (r *Resolver) cancelBuild(ctx context.Context, id int64) (*store.Build, error) {
	b, _, err := r.maintainedBuild(ctx, id)
	if err != nil {
		return nil, err
	}
	return r.Store.CancelBuild(ctx, b.ID)
}

// retryBuild queues a new build of build id's version, as triggerBuild.
func (r *Resolver) retryBuild(ctx context.Context, id int64) (*TriggerBuildPayload, error) {
	b, p, err := r.maintainedBuild(ctx, id)
	if err != nil {
		return nil, err
	}
	v, err := r.loaders(ctx).versionByID.Load(ctx, b.VersionID)
	if err != nil {
		return nil, err
	}
	return r.triggerBuild(ctx, p.Slug, v.Slug)
}

// maintainedBuild returns build id and its project when the viewer
// maintains the project: anonymous callers are Unauthenticated, invisible
// builds NotFound, visible ones of other projects Forbidden.
func (r *Resolver) maintainedBuild(ctx context.Context, id int64) (*store.Build, *store.Project, error) {
	v := access.ViewerFrom(ctx)
	if v.User == nil && !v.System {
		return nil, nil, errAnonymous("graph.maintainedBuild")
	}
	b, err := r.Store.FindBuildByID(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	if _, err := r.visibleBuild(ctx, b, false); err != nil {
		return nil, nil, err
	}
	p, err := r.loaders(ctx).projectByID.Load(ctx, b.ProjectID)
	if err != nil {
		return nil, nil, err
	}
	if err := r.requireMaintainer(ctx, p); err != nil {
		return nil, nil, err
	}
	return b, p, nil
}
