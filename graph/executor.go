package graph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/executor"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"docsd/errs"
)

// presentError is the one table that turns a classified error into a
// GraphQL error: the kind becomes extensions.code, per-field messages become
// extensions.fields, and the cause stays reachable with errors.As for
// in-process callers. Unclassified errors are logged and shown as
// "A server error occurred.".
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
type Executor struct {
	exec     *executor.Executor
	resolver *Resolver
}

// NewExecutor returns an in-process executor over r.
func NewExecutor(r *Resolver) *Executor {
	exec := executor.New(NewExecutableSchema(schemaConfig(r)))
	exec.SetQueryCache(lru.New[*ast.QueryDocument](1000))
	exec.SetErrorPresenter(presentError)
	exec.SetRecoverFunc(recoverPanic)
	exec.AroundOperations(withLoaders(r.Store))
	exec.AroundFields(freshLoadersAfterMutations(r.Store))
	return &Executor{exec: exec, resolver: r}
}

// Authenticate reads an `Authorization` header value (behavior.md §1.1) and
// returns ctx with the caller as the viewer: anonymous without credentials,
// the token's user with good ones. Bad credentials are an Unauthenticated
// error carrying the exact §1.1 message.
func (e *Executor) Authenticate(ctx context.Context, header string) (context.Context, error) {
	u, err := Authenticate(ctx, e.resolver.Store, header)
	if err != nil {
		return ctx, err
	}
	return WithUser(ctx, u), nil
}

// Run executes an operation as the viewer in ctx (see WithUser) and returns
// the raw response.
func (e *Executor) Run(ctx context.Context, query string, variables map[string]any) *graphql.Response {
	ctx = graphql.StartOperationTrace(ctx)
	params := &graphql.RawParams{Query: query, Variables: variables}
	opCtx, gqlErrs := e.exec.CreateOperationContext(ctx, params)
	if gqlErrs != nil {
		return e.exec.DispatchError(graphql.WithOperationContext(ctx, opCtx), gqlErrs)
	}
	handle, ctx := e.exec.DispatchOperation(ctx, opCtx)
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

// ResponseError returns the first error of a response as a classified error
// (nil when there is none). The resolver's own *errs.Error is returned when
// it is reachable; otherwise one is rebuilt from extensions.code.
func ResponseError(resp *graphql.Response) error {
	if len(resp.Errors) == 0 {
		return nil
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

// Handler returns the public `/graphql` endpoint: POST and GET transports,
// introspection, a complexity limit, the caller authenticated from the
// `Authorization: Token` header, or else from a dashboard session
// (Settings.SessionUser), anonymous without either.
func (r *Resolver) Handler() http.Handler {
	srv := handler.New(NewExecutableSchema(schemaConfig(r)))
	srv.AddTransport(transport.Options{})
	srv.AddTransport(transport.GET{})
	srv.AddTransport(transport.POST{})
	srv.SetQueryCache(lru.New[*ast.QueryDocument](1000))
	srv.Use(extension.Introspection{})
	srv.Use(extension.AutomaticPersistedQuery{Cache: lru.New[string](100)})
	limit := r.Settings.ComplexityLimit
	if limit <= 0 {
		limit = 20000
	}
	srv.Use(extension.FixedComplexityLimit(limit))
	srv.SetErrorPresenter(presentError)
	srv.SetRecoverFunc(recoverPanic)
	srv.AroundOperations(withLoaders(r.Store))
	srv.AroundFields(freshLoadersAfterMutations(r.Store))
	srv.AroundResponses(markUnavailable)
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w, req = withUnavailableStatus(w, req)
		user, err := Authenticate(req.Context(), r.Store, req.Header.Get("Authorization"))
		if err == nil && user == nil && req.Header.Get("Authorization") == "" && r.Settings.SessionUser != nil {
			user, err = r.Settings.SessionUser(req)
		}
		if err != nil {
			writeGraphQLError(w, err)
			return
		}
		srv.ServeHTTP(w, req.WithContext(WithUser(req.Context(), user)))
	})
}

// writeGraphQLError answers a request that could not start an operation.
func writeGraphQLError(w http.ResponseWriter, err error) {
	kind := errs.KindOf(err)
	msg := errs.MsgServerError
	var e *errs.Error
	if errors.As(err, &e) && kind != errs.Internal {
		msg = e.Text()
	}
	status := http.StatusInternalServerError
	switch kind {
	case errs.Unauthenticated:
		status = http.StatusUnauthorized
		w.Header().Set("WWW-Authenticate", "Token")
	case errs.Unavailable:
		status = http.StatusServiceUnavailable
		w.Header().Set("Retry-After", errs.RetryAfterUnavailable)
		msg = errs.MsgUnavailable
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	body, _ := json.Marshal(map[string]any{
		"errors": []any{map[string]any{"message": msg, "extensions": map[string]any{"code": kind.String()}}},
		"data":   nil,
	})
	fmt.Fprintf(w, "%s", body)
}
