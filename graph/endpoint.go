package graph

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	coderws "github.com/coder/websocket"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"

	"docsd/internal/access"
	"docsd/internal/errs"
	"docsd/internal/ratelimit"
	"docsd/store"
)

// Endpoint configures the public `/graphql` endpoint beyond the schema.
type Endpoint struct {
	// Users is the per-user request budget, the same *Limiter API v3 uses
	// so that both share it; nil: signed-in callers are not throttled.
	Users *ratelimit.Limiter
	// Anonymous is the budget of anonymous callers per client address;
	// nil: they are not throttled.
	Anonymous *ratelimit.Limiter
	// ClientAddr names the client of a request (behind trusted proxies,
	// the forwarded address); default: the connection's peer address.
	ClientAddr func(*http.Request) string
	// Limits bounds each operation.
	Limits Limits
	// CORSOrigins are the origins (scheme://host[:port]) whose pages may
	// call the endpoint from a browser; "*" allows any. Empty: none.
	CORSOrigins []string
}

// Handler returns the public `/graphql` endpoint: POST, GET, Server-Sent
// Events (graphql-sse, distinct connections) and WebSocket
// (graphql-transport-ws) transports, introspection, CORS for the
// configured origins, the request budgets and the operation limits; the
// caller is authenticated from the `Authorization: Token` header, or
// else from a dashboard session (Settings.SessionUser; anonymous without
// either), or, on a WebSocket, from the `Authorization` key of the
// connection_init payload.
func (r *Resolver) Handler() http.Handler {
	ep := r.Settings.Endpoint
	limits := ep.Limits.withDefaults()
	clientAddr := ep.ClientAddr
	if clientAddr == nil {
		clientAddr = peerAddr
	}
	es := NewExecutableSchema(schemaConfig(r))
	srv := handler.New(es)
	transports := []graphql.Transport{transport.Options{}, transport.Websocket{
		Implementation:        protocolCloses{transport.CoderWebsocketImplementation{AcceptOptions: websocketOrigins(ep.CORSOrigins)}},
		KeepAlivePingInterval: 15 * time.Second,
		InitTimeout:           30 * time.Second, // a socket that never says connection_init is closed
		InitFunc: func(ctx context.Context, p transport.InitPayload) (context.Context, *transport.InitPayload, error) {
			ctx = withSubscriptionSlots(ctx, limits.MaxSubscriptions)
			header := p.Authorization()
			if header == "" {
				return ctx, nil, nil
			}
			v, err := access.Authenticate(ctx, r.Store, header)
			if err != nil {
				return initRefused(ctx, err), nil, err
			}
			return access.WithViewer(ctx, v), nil, nil
		},
	}, transport.SSE{KeepAlivePingInterval: 15 * time.Second}, getTransport{}, transport.POST{}}
	for _, t := range transports {
		srv.AddTransport(t)
	}
	srv.SetQueryCache(lru.New[*ast.QueryDocument](1000))
	srv.Use(extension.Introspection{})
	srv.Use(extension.AutomaticPersistedQuery{Cache: lru.New[string](100)})
	// After APQ, which fills in the text of a persisted query: the limits
	// measure what runs, with this request's variables.
	srv.Use(&limitsExtension{limits: limits})
	srv.SetErrorPresenter(presentError)
	srv.SetRecoverFunc(recoverPanic)
	srv.AroundOperations(withLoaders(r.Store))
	srv.AroundFields(freshLoadersAfterMutations(r.Store))
	srv.AroundResponses(markUnavailable)
	srv.AroundResponses(freshLoadersPerEvent(r.Store))
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if corsAnswered(w, req, ep.CORSOrigins) {
			return
		}
		if !slices.ContainsFunc(transports, func(t graphql.Transport) bool { return t.Supports(req) }) {
			// gqlgen's own answer has no extensions.code.
			WriteHTTPError(w, errs.E(errs.Invalid, "graph.Handler", MsgTransportNotSupported))
			return
		}
		if !streaming(req) {
			w, req = withUnavailableStatus(w, req)
		}
		// The viewer says how it authenticated: managing API keys needs a
		// session (tokens.go).
		viewer, err := access.Authenticate(req.Context(), r.Store, req.Header.Get("Authorization"))
		if err == nil && viewer.User == nil && req.Header.Get("Authorization") == "" && r.Settings.SessionUser != nil {
			var u *store.User
			u, err = r.Settings.SessionUser(req)
			if u != nil {
				viewer = access.SessionViewer(u)
				// Computed for the session's user: no shared cache may
				// keep it (an answer to a token is kept by none unless
				// it says so).
				w.Header().Set("Cache-Control", "private")
			}
		}
		if err != nil {
			WriteHTTPError(w, err)
			return
		}
		if user := viewer.User; user != nil {
			err = ep.Users.Allow("graph", ratelimit.UserKey(user.ID))
		} else {
			err = ep.Anonymous.Allow("graph", ratelimit.AddrKey(clientAddr(req)))
		}
		if err != nil {
			WriteHTTPError(w, err)
			return
		}
		body, err := limitBody(req, limits.MaxBytes)
		if err != nil {
			WriteHTTPError(w, err)
			return
		}
		if err := undecodableJSON(req, body); err != nil {
			WriteHTTPError(w, err)
			return
		}
		srv.ServeHTTP(w, req.WithContext(access.WithViewer(req.Context(), viewer)))
	})
}

// MsgTransportNotSupported answers a request that none of the endpoint's
// transports takes (a method other than GET, POST and OPTIONS, a body that
// is not JSON, …): INVALID, HTTP 400.
const MsgTransportNotSupported = "transport not supported: send POST with Content-Type application/json, GET with ?query=, Accept: text/event-stream, or a graphql-transport-ws WebSocket."

// getTransport is gqlgen's GET transport with docsd's answers where
// gqlgen's have no extensions.code: `variables` or `extensions` that are
// not a JSON object are INVALID (HTTP 400) on that parameter, and an
// operation other than a query is GRAPHQL_VALIDATION_FAILED with HTTP 405
// and `Allow: POST`, as the GraphQL-over-HTTP spec requires of a mutation
// asked with GET (gqlgen answers 406 without a code).
type getTransport struct{ transport.GET }

// Do answers the request's errors above itself and hands the rest to
// gqlgen. The operation is parsed here only to learn its type; a document
// that does not parse goes on to gqlgen, whose answer has a code.
func (t getTransport) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	const op = "graph.getTransport"
	params, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		WriteHTTPError(w, errs.E(errs.Invalid, op, "The query string could not be decoded."))
		return
	}
	bad := errs.Fields{}
	for _, name := range []string{"variables", "extensions"} {
		var object map[string]any
		if v := params.Get(name); v != "" && json.Unmarshal([]byte(v), &object) != nil {
			bad.Add(name, "Not a JSON object.")
		}
	}
	if len(bad) > 0 {
		WriteHTTPError(w, bad.Err(op))
		return
	}
	if doc, err := parser.ParseQuery(&ast.Source{Input: params.Get("query")}); err == nil {
		if o := doc.Operations.ForName(params.Get("operationName")); o != nil && o.Operation != ast.Query {
			gqlErr := gqlerror.Errorf("%s", MsgGETQueriesOnly)
			errcode.Set(gqlErr, errcode.ValidationFailed)
			w.Header().Set("Allow", http.MethodPost)
			writeErrors(w, http.StatusMethodNotAllowed, gqlErr)
			return
		}
	}
	t.GET.Do(w, r, exec)
}

// MsgGETQueriesOnly answers a mutation or subscription asked with GET.
const MsgGETQueriesOnly = "GET requests only allow query operations: send a mutation with POST."

// streaming reports whether req opens a stream (WebSocket or SSE), whose
// writer must stay flushable and hijackable.
func streaming(req *http.Request) bool {
	return strings.EqualFold(req.Header.Get("Upgrade"), "websocket") ||
		strings.Contains(req.Header.Get("Accept"), "text/event-stream")
}

// limitBody reads a POST body of at most maxBytes (a TooComplex error when
// it is longer), puts it back for the transport and returns it; nil when it
// read nothing (not a POST, or no limit).
func limitBody(req *http.Request, maxBytes int) ([]byte, error) {
	if req.Method != http.MethodPost || req.Body == nil || maxBytes <= 0 {
		return nil, nil
	}
	if req.ContentLength > int64(maxBytes) {
		return nil, RequestTooLarge(maxBytes, req.ContentLength)
	}
	body, err := io.ReadAll(io.LimitReader(req.Body, int64(maxBytes)+1))
	req.Body.Close()
	if err != nil {
		return nil, errs.Wrap(errs.Invalid, "graph.limitBody", err)
	}
	if len(body) > maxBytes {
		return nil, RequestTooLarge(maxBytes, int64(len(body)))
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	return body, nil
}

// undecodableJSON refuses a JSON POST body that is not a JSON object with
// INVALID and the decoder's reason. gqlgen's POST transport would answer it
// itself, but its message repeats the whole body (200 KB of garbage came
// back as a 200 KB error); this one names the fault only. body is what
// limitBody read; when it read nothing the body is read (and put back) here.
func undecodableJSON(req *http.Request, body []byte) error {
	if req.Method != http.MethodPost || req.Body == nil {
		return nil
	}
	if mt, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type")); mt != "application/json" {
		return nil
	}
	if body == nil {
		var err error
		body, err = io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return errs.Wrap(errs.Invalid, "graph.undecodableJSON", err)
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	const msg = "json request body could not be decoded: "
	if !json.Valid(body) {
		err := json.Unmarshal(body, new(json.RawMessage))
		return errs.E(errs.Invalid, "graph.undecodableJSON", msg+err.Error())
	}
	if first := bytes.TrimLeft(body, " \t\r\n"); len(first) == 0 || first[0] != '{' {
		return errs.E(errs.Invalid, "graph.undecodableJSON", msg+"the body must be a JSON object")
	}
	return nil
}

// peerAddr is the host of the connection's peer.
func peerAddr(req *http.Request) string {
	host, _, err := net.SplitHostPort(req.RemoteAddr)
	if err != nil {
		return req.RemoteAddr
	}
	return host
}

// corsAllowed returns the Access-Control-Allow-Origin value for origin, ""
// when origin may not call the endpoint.
func corsAllowed(origin string, allowed []string) string {
	switch {
	case origin == "":
		return ""
	case slices.Contains(allowed, "*"):
		return "*"
	case slices.Contains(allowed, origin):
		return origin
	}
	return ""
}

// corsAnswered sets the CORS headers of an allowed origin and reports
// whether req was a preflight, which it then answered (204 for allowed
// origins, 403 for others).
func corsAnswered(w http.ResponseWriter, req *http.Request, allowed []string) bool {
	h := w.Header()
	h.Add("Vary", "Origin")
	allow := corsAllowed(req.Header.Get("Origin"), allowed)
	if allow != "" {
		h.Set("Access-Control-Allow-Origin", allow)
		h.Set("Access-Control-Expose-Headers", "Retry-After")
	}
	if req.Method != http.MethodOptions || req.Header.Get("Access-Control-Request-Method") == "" {
		return false
	}
	if allow == "" {
		w.WriteHeader(http.StatusForbidden)
		return true
	}
	h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
	h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Accept")
	h.Set("Access-Control-Max-Age", "600")
	w.WriteHeader(http.StatusNoContent)
	return true
}

// websocketOrigins are the accept options that let pages of the CORS
// origins open a WebSocket (same-origin pages always may).
func websocketOrigins(allowed []string) coderws.AcceptOptions {
	var patterns []string
	for _, o := range allowed {
		if o == "*" {
			patterns = append(patterns, "*")
			continue
		}
		if u, err := url.Parse(o); err == nil && u.Host != "" {
			patterns = append(patterns, u.Host)
		}
	}
	return coderws.AcceptOptions{OriginPatterns: patterns}
}

// WriteHTTPError answers a /graphql request that could not start an
// operation (bad credentials, a spent budget, an oversized body): err's
// HTTP status and headers (errs.HTTPStatus), and a GraphQL response whose
// one error is err as presentError shows it.
func WriteHTTPError(w http.ResponseWriter, err error) {
	gqlErr := presentError(context.Background(), err)
	errs.SetHTTPHeaders(w.Header(), err)
	writeErrors(w, errs.HTTPStatus(errs.KindOf(err)), gqlErr)
}

// writeErrors writes a GraphQL response with status, gqlErr and no data.
func writeErrors(w http.ResponseWriter, status int, gqlErr *gqlerror.Error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	body, _ := json.Marshal(map[string]any{"errors": []any{gqlErr}, "data": nil})
	fmt.Fprintf(w, "%s", body)
}
