package graph

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sort"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/executor"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"docsd/internal/access"
	"docsd/internal/docsurl"
	"docsd/internal/errs"
)

// presentError is the one table that turns a classified error into a
// GraphQL error: the kind becomes extensions.code, per-field messages
// become extensions.fields, details extensions.details, and the cause
// stays reachable with errors.As for in-process callers. Unclassified
// errors are logged and shown as "A server error occurred.".
func presentError(ctx context.Context, err error) *gqlerror.Error {
	gqlErr := graphql.DefaultErrorPresenter(ctx, err)
	var e *errs.Error
	if !errors.As(err, &e) {
		// Resolvers return classified errors only (the store classifies every
		// driver error, panics are recovered as Internal), so an unclassified
		// error comes from gqlgen itself: an argument or variable that does
		// not fit its type. That is the caller's input, not a server failure.
		if gqlErr.Extensions == nil {
			gqlErr.Extensions = map[string]any{"code": errs.Invalid.String()}
		}
		return gqlErr
	}
	switch e.Kind {
	case errs.Internal:
		slog.ErrorContext(ctx, "graph: internal error", "err", err)
		gqlErr.Message = errs.MsgServerError
	case errs.Unavailable:
		slog.WarnContext(ctx, "graph: unavailable", "err", err)
		gqlErr.Message = errs.MsgUnavailable
	default:
		gqlErr.Message = e.Text()
	}
	ext := map[string]any{"code": e.Kind.String()}
	if f := errs.FieldsOf(err); len(f) > 0 {
		ext["fields"] = f
	}
	if d := errs.DetailsOf(err); len(d) > 0 {
		ext["details"] = d
	}
	gqlErr.Extensions = ext
	return gqlErr
}

func recoverPanic(ctx context.Context, p any) error {
	slog.ErrorContext(ctx, "graph: panic", "panic", p)
	return errs.Internalf("graph", "panic: %v", p)
}

// Executor runs GraphQL operations in process, for the REST façades, with
// the same schema and configuration as the public endpoint. Parsed and
// validated operations are cached, so REST should build deterministic
// operation text for a given request shape.
//
// Queries and mutations run on two executors that differ in one hook:
// mutations refresh the operation's loaders after each mutation field
// (freshLoadersAfterMutations), a field middleware that gqlgen would
// otherwise call around every field of every query.
type Executor struct {
	queries   *executor.Executor
	mutations *executor.Executor
	resolver  *Resolver
}

// NewExecutor returns an in-process executor over r.
func NewExecutor(r *Resolver) *Executor {
	es := NewExecutableSchema(schemaConfig(r))
	newExec := func() *executor.Executor {
		exec := executor.New(es)
		exec.SetQueryCache(lru.New[*ast.QueryDocument](1000))
		exec.SetErrorPresenter(presentError)
		exec.SetRecoverFunc(recoverPanic)
		exec.AroundOperations(withLoaders(r.Store))
		return exec
	}
	e := &Executor{queries: newExec(), mutations: newExec(), resolver: r}
	e.mutations.AroundFields(freshLoadersAfterMutations(r.Store))
	return e
}

// URLs is the URL configuration the resolvers build URLs with. An
// in-process caller that writes a URL field itself from values it fetched
// (REST writes a project's dashboard URLs from its slug) calls
// the docsurl function the resolver calls with this, so that both write
// the same URL.
func (e *Executor) URLs() docsurl.Config { return e.resolver.Settings.URLs }

// Authenticate reads an `Authorization` header value (`Token <key>`) and
// returns ctx with the caller as the viewer: anonymous without credentials,
// the token's user with good ones. Bad credentials are an Unauthenticated
// error carrying Read the Docs' exact message (access.Authenticate). The
// viewer says it authenticated with a key (access.AuthToken), which the
// audit log records as the writes' auth_backend; a key still may not
// manage API keys (mayManageKeys).
func (e *Executor) Authenticate(ctx context.Context, header string) (context.Context, error) {
	v, err := access.Authenticate(ctx, e.resolver.Store, header)
	if err != nil {
		return ctx, err
	}
	return access.WithViewer(ctx, v), nil
}

// Run executes an operation as the viewer in ctx (see WithUser) and returns
// the raw response. A query marshals the elements of its lists one after
// another (withPrimedReads): it must be one whose reads the lookahead primes,
// as REST's are (TestRESTWaitsForNoLoader), or its elements wait for their
// loaders one at a time.
func (e *Executor) Run(ctx context.Context, query string, variables map[string]any) *graphql.Response {
	ctx = graphql.StartOperationTrace(ctx)
	params := &graphql.RawParams{Query: query, Variables: variables}
	exec := e.queries
	opCtx, gqlErrs := exec.CreateOperationContext(ctx, params)
	if gqlErrs == nil && opCtx.Operation != nil && opCtx.Operation.Operation != ast.Query {
		exec = e.mutations
		opCtx, gqlErrs = exec.CreateOperationContext(ctx, params)
	}
	if gqlErrs != nil {
		return exec.DispatchError(graphql.WithOperationContext(ctx, opCtx), gqlErrs)
	}
	if exec == e.queries {
		ctx = withPrimedReads(ctx)
	}
	handle, ctx := exec.DispatchOperation(ctx, opCtx)
	return handle(ctx)
}

// Do executes an operation, decodes its data into out (when out is not nil)
// and returns the first error of the response as a classified error, so
// callers can use errors.As / errs.KindOf. The data is decoded even when
// there is an error (partial results).
func (e *Executor) Do(ctx context.Context, query string, variables map[string]any, out any) error {
	resp := e.Run(ctx, query, variables)
	if out != nil && len(resp.Data) > 0 {
		if err := json.Unmarshal(resp.Data, out); err != nil {
			return errs.Wrap(errs.Internal, "graph.Do", err)
		}
	}
	return ResponseError(resp)
}

// PayloadErrors is the selection of a mutation payload's `errors` that
// ResponseError reads: in-process callers add it to each mutation they run.
const PayloadErrors = "errors { path message code }"

// ResponseError returns the first error of a response as a classified error
// (nil when there is none). The resolver's own *errs.Error is returned when
// it is reachable; otherwise one is rebuilt from extensions.code. Without a
// top-level error, a mutation payload's `errors` (UserErrors) come back as
// the Invalid or Conflict error they were made from, with snake_case field
// keys: in-process callers (REST, the dashboard, the admin commands) read
// validation failures the same way whichever list carried them.
func ResponseError(resp *graphql.Response) error {
	if len(resp.Errors) == 0 {
		return payloadError(resp.Data)
	}
	first := resp.Errors[0]
	var e *errs.Error
	if errors.As(first, &e) {
		return e
	}
	code, _ := first.Extensions["code"].(string)
	if code == "" {
		// The operation itself is wrong (a bug in the caller's query text).
		return errs.Internalf("graph", "operation error: %s", first.Message)
	}
	return &errs.Error{Kind: errs.KindFromCode(code), Op: "graph", Message: first.Message}
}

// payloadError returns the UserErrors of the first top-level field (in name
// order) of data
// whose object lists any, as one classified error; nil when none does.
func payloadError(data json.RawMessage) error {
	// Only a non-empty payload `errors` list is worth a second decode.
	if !bytes.Contains(data, []byte(`"errors":[{`)) {
		return nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return nil
	}
	names := make([]string, 0, len(fields))
	for name := range fields {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		var payload struct {
			Errors []errs.UserError `json:"errors"`
		}
		if json.Unmarshal(fields[name], &payload) == nil && len(payload.Errors) > 0 {
			return errs.FromUserErrors("graph", payload.Errors)
		}
	}
	return nil
}
