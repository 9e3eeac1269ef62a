package graph_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"

	"docsd/graph"
	"docsd/internal/storetest"
	"docsd/store"
)

// TestWebSocketCloseCodes drives the graphql-transport-ws protocol's
// failure closes with a real client: a bad token in connection_init is
// 4403 Forbidden, a frame that is not a protocol message is 4400, both
// before and after the connection is acknowledged, and a good init is
// acknowledged.
func TestWebSocketCloseCodes(t *testing.T) {
	s := storetest.Open(t, store.SQLite)
	r := &graph.Resolver{Store: s}
	srv := httptest.NewServer(r.Handler())
	defer srv.Close()
	ack := `{"type":"connection_init"}`
	for _, tc := range []struct {
		name   string
		frames []string // sent in order; the ones before the last are acknowledged
		code   websocket.StatusCode
	}{
		{"bad token", []string{`{"type":"connection_init","payload":{"Authorization":"Token nope"}}`}, 4403},
		{"token without a key", []string{`{"type":"connection_init","payload":{"Authorization":"Token"}}`}, 4403},
		{"second init", []string{ack, ack}, 4429},
		{"not JSON before init", []string{`not json`}, 4400},
		{"not JSON after init", []string{ack, `{not json`}, 4400},
		{"unknown type after init", []string{ack, `{"type":"hello"}`}, 4400},
		{"subscribe before init", []string{`{"id":"1","type":"subscribe","payload":{"query":"{ viewer { username } }"}}`}, 4401},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http")+"/graphql", &websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}})
			if err != nil {
				t.Fatal(err)
			}
			defer conn.CloseNow()
			for i, frame := range tc.frames {
				if err := conn.Write(ctx, websocket.MessageText, []byte(frame)); err != nil {
					t.Fatal(err)
				}
				if i < len(tc.frames)-1 {
					var msg map[string]any
					if err := wsjson.Read(ctx, conn, &msg); err != nil || msg["type"] != "connection_ack" {
						t.Fatalf("%s answered %v, %v; want connection_ack", frame, msg, err)
					}
				}
			}
			for {
				var msg map[string]any
				err := wsjson.Read(ctx, conn, &msg)
				if err == nil {
					continue // a ping, or the legacy protocol's connection_error
				}
				var closed websocket.CloseError
				if !errors.As(err, &closed) || closed.Code != tc.code {
					t.Fatalf("closed with %v, want %d", err, tc.code)
				}
				return
			}
		})
	}
}
