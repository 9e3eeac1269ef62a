package graph

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/99designs/gqlgen/graphql/handler/transport"

	"docsd/internal/errs"
)

// The graphql-transport-ws protocol's close codes
// (github.com/enisdenjo/graphql-ws, PROTOCOL.md) that gqlgen does not use:
// it closes every protocol failure with 1002, a bad connection_init with
// 1000, and a frame it cannot read by ending the connection normally.
const (
	wsInvalidMessage  = 4400 // a frame that is not a protocol message, or not now
	wsUnauthorized    = 4401 // subscribe before connection_ack
	wsForbidden       = 4403 // connection_init refused
	wsInitTimeout     = 4408 // no connection_init in time
	wsTooManyInits    = 4429 // a second connection_init
	wsInternalFailure = 4500 // connection_init failed on the server's side
)

// transportWS is gqlgen's graphql-transport-ws subprotocol name.
const transportWS = "graphql-transport-ws"

// initRefused returns ctx with the close gqlgen sends when connection_init
// fails with err: 4403 Forbidden for credentials that do not sign in,
// 4500 for a server failure (the database not answering).
func initRefused(ctx context.Context, err error) context.Context {
	switch errs.KindOf(err) {
	case errs.Unauthenticated, errs.Forbidden:
		ctx = transport.WithWebsocketCloseCode(ctx, wsForbidden)
		return transport.AppendCloseReason(ctx, "Forbidden")
	default:
		ctx = transport.WithWebsocketCloseCode(ctx, wsInternalFailure)
		return transport.AppendCloseReason(ctx, "Internal server error")
	}
}

// protocolCloses is a WebSocket implementation whose graphql-transport-ws
// connections close with the protocol's own codes (see protocolConn).
type protocolCloses struct {
	transport.WebsocketImplementation
}

// Accept accepts as the wrapped implementation does.
func (p protocolCloses) Accept(w http.ResponseWriter, r *http.Request, options transport.WebsocketAcceptOptions) (transport.WebsocketConn, error) {
	conn, err := p.WebsocketImplementation.Accept(w, r, options)
	if err != nil || conn.Subprotocol() != transportWS {
		return conn, err
	}
	return &protocolConn{WebsocketConn: conn}, nil
}

// protocolConn closes a graphql-transport-ws connection as the protocol
// says, where gqlgen would not: a frame that is not a client message
// closes with 4400, subscribe before connection_ack with 4401, a second
// connection_init with 4429 (each before gqlgen reads the frame, which
// then sees the connection closed), and gqlgen's own 1002 closes become
// 4408 for the init timeout and 4400 otherwise. It is used by one
// connection's reader and writers.
type protocolConn struct {
	transport.WebsocketConn
	acked atomic.Bool // connection_ack was sent
}

// NextReader reads the next frame and closes the connection, answering
// transport.ErrWebsocketClosed, when it breaks the protocol.
func (c *protocolConn) NextReader() (int, io.Reader, error) {
	typ, r, err := c.WebsocketConn.NextReader()
	if err != nil {
		return typ, r, err
	}
	frame, err := io.ReadAll(r)
	if err != nil {
		return typ, nil, err
	}
	var msg struct {
		Type string `json:"type"`
	}
	code, reason := 0, ""
	switch {
	case json.Unmarshal(frame, &msg) != nil:
		code, reason = wsInvalidMessage, "Invalid message received"
	case msg.Type == "subscribe" && !c.acked.Load():
		code, reason = wsUnauthorized, "Unauthorized"
	case msg.Type == "connection_init" && c.acked.Load():
		code, reason = wsTooManyInits, "Too many initialisation requests"
	case msg.Type != "connection_init" && msg.Type != "subscribe" && msg.Type != "complete" && msg.Type != "ping" && msg.Type != "pong":
		code, reason = wsInvalidMessage, "Invalid message type "+msg.Type
	}
	if code != 0 {
		_ = c.WebsocketConn.WriteClose(code, reason)
		return typ, nil, transport.ErrWebsocketClosed
	}
	return typ, bytes.NewReader(frame), nil
}

// WriteJSON writes v. The first message gqlgen writes on a
// graphql-transport-ws connection is connection_ack (it writes nothing
// when connection_init fails, and pings only once acknowledged).
func (c *protocolConn) WriteJSON(v any) error {
	c.acked.Store(true)
	return c.WebsocketConn.WriteJSON(v)
}

// WriteClose closes with code, gqlgen's 1002 translated to the protocol's.
func (c *protocolConn) WriteClose(code int, reason string) error {
	if code == transport.WebsocketCloseProtocolError {
		code = wsInvalidMessage
		if reason == "connection initialisation timeout" {
			code = wsInitTimeout
		}
	}
	return c.WebsocketConn.WriteClose(code, reason)
}

// SetReadLimit passes the payload read limit on.
func (c *protocolConn) SetReadLimit(limit int64) {
	if l, ok := c.WebsocketConn.(transport.WebsocketReadLimiter); ok {
		l.SetReadLimit(limit)
	}
}

// SetReadDeadline passes the ping/pong read deadline on.
func (c *protocolConn) SetReadDeadline(t time.Time) error {
	if d, ok := c.WebsocketConn.(transport.WebsocketReadDeadliner); ok {
		return d.SetReadDeadline(t)
	}
	return nil
}
