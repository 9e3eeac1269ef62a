package graph_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"

	"docsd/graph"
	"docsd/graph/gid"
	"docsd/internal/storetest"
	"docsd/store"
)

// liveDeadline bounds every wait for an event; events come within a poll
// interval, so only a broken stream reaches it.
const liveDeadline = 30 * time.Second

// event is one message of a subscription: a payload, an error, or the end.
type event struct {
	payload map[string]any // {"data": …, "errors": …}
	done    bool           // the stream completed
}

// subscriber is an open subscription: events arrive on its channel.
type subscriber struct {
	t      *testing.T
	events chan event
}

// next returns the next event, failing the test after liveDeadline.
func (s *subscriber) next() event {
	s.t.Helper()
	select {
	case ev, ok := <-s.events:
		if !ok {
			return event{done: true}
		}
		return ev
	case <-time.After(liveDeadline):
		s.t.Fatal("no subscription event before the deadline")
		return event{}
	}
}

// until skips events until one satisfies ok and returns it.
func (s *subscriber) until(what string, ok func(event) bool) event {
	s.t.Helper()
	for {
		ev := s.next()
		if ok(ev) {
			return ev
		}
		if ev.done {
			s.t.Fatalf("the stream ended before %s", what)
		}
	}
}

// deliver hands ev to the test and reports whether more may follow.
func (s *subscriber) deliver(ctx context.Context, ev event) bool {
	select {
	case s.events <- ev:
		return !ev.done
	case <-ctx.Done():
		return false
	}
}

// subscribeWS opens a graphql-transport-ws WebSocket to srv, authenticated
// in connection_init when auth is set, and subscribes to query.
func subscribeWS(t *testing.T, srv *httptest.Server, auth, query string) *subscriber {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http")+"/graphql", &websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.CloseNow() })
	init := map[string]any{"type": "connection_init"}
	if auth != "" {
		init["payload"] = map[string]any{"Authorization": auth}
	}
	if err := wsjson.Write(ctx, conn, init); err != nil {
		t.Fatal(err)
	}
	var ack map[string]any
	if err := wsjson.Read(ctx, conn, &ack); err != nil || ack["type"] != "connection_ack" {
		t.Fatalf("connection_init: %v, %v", ack, err)
	}
	if err := wsjson.Write(ctx, conn, map[string]any{"id": "1", "type": "subscribe", "payload": map[string]any{"query": query}}); err != nil {
		t.Fatal(err)
	}
	s := &subscriber{t: t, events: make(chan event)}
	go func() {
		defer close(s.events)
		for {
			var msg struct {
				Type    string          `json:"type"`
				Payload json.RawMessage `json:"payload"`
			}
			if err := wsjson.Read(ctx, conn, &msg); err != nil {
				return
			}
			var ev event
			switch msg.Type {
			case "next":
				json.Unmarshal(msg.Payload, &ev.payload)
			case "error": // a list of GraphQL errors
				var list []any
				json.Unmarshal(msg.Payload, &list)
				ev = event{payload: map[string]any{"errors": list}, done: true}
			case "complete":
				ev.done = true
			default: // ping, pong
				continue
			}
			if !s.deliver(ctx, ev) {
				return
			}
		}
	}()
	return s
}

// subscribeSSE opens a graphql-sse stream (distinct connections mode) to
// srv with the Authorization header auth.
func subscribeSSE(t *testing.T, srv *httptest.Server, auth, query string) *subscriber {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	body, _ := json.Marshal(map[string]string{"query": query})
	req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL+"/graphql", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("SSE answer: status %d, Content-Type %q", resp.StatusCode, ct)
	}
	s := &subscriber{t: t, events: make(chan event)}
	go func() {
		defer close(s.events)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		kind := ""
		for sc.Scan() {
			line := sc.Text()
			var ev event
			switch {
			case strings.HasPrefix(line, "event:"):
				kind = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
				if kind != "complete" {
					continue
				}
				ev.done = true
			case strings.HasPrefix(line, "data:") && kind == "next":
				json.Unmarshal([]byte(strings.TrimSpace(strings.TrimPrefix(line, "data:"))), &ev.payload)
			default:
				continue
			}
			if !s.deliver(ctx, ev) {
				return
			}
		}
	}()
	return s
}

// followQuery is the subscription to build id (its database id) that the
// tests send.
func followQuery(id int64) string {
	return followQueryRef(strconv.FormatInt(id, 10))
}

// followQueryRef is the subscription to the build ref names: a global id
// or a database id, as an ID string.
func followQueryRef(ref string) string {
	return fmt.Sprintf(`subscription { buildUpdated(id: %q) { id: databaseId state { code } success commands { description output exitCode } } }`, ref)
}

// liveEnv is the fixture served by a /graphql endpoint that polls every
// 20 ms, with a queued build of pub's v1.0.
func liveEnv(t *testing.T, d store.Dialect) (*env, *httptest.Server, *store.Build) {
	t.Helper()
	return liveEnvWith(t, d, func(*store.Store) graph.BuildChanges { return graph.PollBuildChanges{Interval: 20 * time.Millisecond} })
}

// liveEnvWith is liveEnv with the BuildChanges changes makes for its store.
func liveEnvWith(t *testing.T, d store.Dialect, changes func(*store.Store) graph.BuildChanges) (*env, *httptest.Server, *store.Build) {
	t.Helper()
	e := newEnv(t, d)
	e.fixture()
	ctx := context.Background()
	r := &graph.Resolver{Store: e.store, Changes: changes(e.store)}
	srv := httptest.NewServer(r.Handler())
	t.Cleanup(srv.Close)
	pub, _ := e.store.FindProjectBySlug(ctx, "pub")
	v, _ := e.store.FindVersionBySlug(ctx, pub.ID, "v1.0")
	b, err := e.store.CreateBuild(ctx, v, nil)
	if err != nil {
		t.Fatal(err)
	}
	return e, srv, b
}

// TestBuildUpdated follows a build over WebSocket and SSE while a worker
// (played by the test through the store) claims it, records a command's
// output as it grows and finishes it; each change arrives, and the
// stream completes after the build has finished.
func TestBuildUpdated(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e, srv, b := liveEnv(t, d)
		testBuildUpdated(t, e, srv, b)
	})
}

// TestBuildUpdatedSignalled is TestBuildUpdated woken by signals only (as
// docsd serve wires it: the store's commits of builds and commands signal,
// on PostgreSQL through LISTEN/NOTIFY): the fallback poll is an hour, so
// every event the test waits for came from a signal.
func TestBuildUpdatedSignalled(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e, srv, b := liveEnvWith(t, d, func(s *store.Store) graph.BuildChanges {
			changes := &graph.SignalledBuildChanges{Fallback: time.Hour}
			s.OnCommit(func(_ context.Context, tables []string) {
				if slices.Contains(tables, "builds") || slices.Contains(tables, "build_commands") {
					changes.Signal()
				}
			})
			return changes
		})
		testBuildUpdated(t, e, srv, b)
	})
}

func testBuildUpdated(t *testing.T, e *env, srv *httptest.Server, b *store.Build) {
	ctx := context.Background()
	key, _, err := e.store.CreateToken(ctx, e.users["alice"].ID)
	if err != nil {
		t.Fatal(err)
	}
	query := followQuery(b.ID)
	subs := map[string]*subscriber{
		"websocket as alice":   subscribeWS(t, srv, "Token "+key, query),
		"sse as alice":         subscribeSSE(t, srv, "Token "+key, query),
		"websocket, anonymous": subscribeWS(t, srv, "", query),
		"sse, anonymous":       subscribeSSE(t, srv, "", query),
	}
	state := func(ev event) any { return dig(ev.payload, "data", "buildUpdated", "state", "code") }
	output := func(ev event) any { return dig(ev.payload, "data", "buildUpdated", "commands", 0, "output") }
	for name, s := range subs {
		ev := s.next()
		if state(ev) != "triggered" || dig(ev.payload, "errors") != nil {
			t.Fatalf("%s: first event %v; want the triggered build", name, ev.payload)
		}
	}

	claimed, err := e.store.ClaimBuild(ctx, "test", time.Minute)
	if err != nil || claimed.ID != b.ID {
		t.Fatalf("claim: %v, %v; want build %d", claimed, err, b.ID)
	}
	for name, s := range subs {
		s.until(name+" sees cloning", func(ev event) bool { return state(ev) == "cloning" })
	}
	c, err := e.store.AddBuildCommand(ctx, store.BuildCommand{BuildID: b.ID, Command: "sphinx-build", Description: "building", Output: "line 1\n", StartTime: time.Now().UTC()})
	if err != nil {
		t.Fatal(err)
	}
	for name, s := range subs {
		s.until(name+" sees the first line", func(ev event) bool { return output(ev) == "line 1\n" })
	}
	c.Output = "line 1\nline 2\n"
	if err := e.store.UpdateBuildCommand(ctx, *c); err != nil {
		t.Fatal(err)
	}
	for name, s := range subs {
		s.until(name+" sees the output grow", func(ev event) bool { return output(ev) == "line 1\nline 2\n" })
	}
	if _, err := e.store.FinishBuild(ctx, b.ID, store.BuildResult{Success: true}); err != nil {
		t.Fatal(err)
	}
	for name, s := range subs {
		ev := s.until(name+" sees the build finish", func(ev event) bool { return state(ev) == "finished" })
		if dig(ev.payload, "data", "buildUpdated", "success") != true {
			t.Errorf("%s: last build %v", name, ev.payload)
		}
		if ev := s.next(); !ev.done {
			t.Errorf("%s: after the build finished: %v; want the end of the stream", name, ev.payload)
		}
	}
}

// TestBuildUpdatedNotFound checks that a subscription to a build the
// caller cannot see gets the NOT_FOUND of the build query, on both
// transports.
func TestBuildUpdatedNotFound(t *testing.T) {
	e := newEnv(t, store.SQLite)
	e.fixture()
	ctx := context.Background()
	r := &graph.Resolver{Store: e.store}
	srv := httptest.NewServer(r.Handler())
	t.Cleanup(srv.Close)
	priv, _ := e.store.FindProjectBySlug(ctx, "priv")
	bs, _, err := e.store.FindBuilds(ctx, store.BuildFilter{ProjectID: &priv.ID})
	if err != nil || len(bs) == 0 {
		t.Fatalf("builds of priv: %v, %v", bs, err)
	}
	key, _, _ := e.store.CreateToken(ctx, e.users["bob"].ID)
	// The build's id, as a global id or a database id, like a mutation's
	// input; an id of another type or of nothing is not found either.
	global := gid.Encode("Build", bs[0].ID)
	database := strconv.FormatInt(bs[0].ID, 10)
	for _, ref := range []string{global, database, "999999", gid.Encode("Project", priv.ID), "not-an-id", "0"} {
		query := followQueryRef(ref)
		for name, s := range map[string]*subscriber{
			"websocket": subscribeWS(t, srv, "Token "+key, query),
			"sse":       subscribeSSE(t, srv, "Token "+key, query),
		} {
			ev := s.next()
			if dig(ev.payload, "errors", 0, "extensions", "code") != "NOT_FOUND" {
				t.Errorf("%s, build %q: %v; want NOT_FOUND", name, ref, ev.payload)
			}
		}
	}
	// The maintainer sees the private build by either id, authenticated
	// by the connection_init payload on a WebSocket.
	aliceKey, _, _ := e.store.CreateToken(ctx, e.users["alice"].ID)
	for _, ref := range []string{global, database} {
		query := followQueryRef(ref)
		for name, s := range map[string]*subscriber{
			"websocket": subscribeWS(t, srv, "Token "+aliceKey, query),
			"sse":       subscribeSSE(t, srv, "Token "+aliceKey, query),
		} {
			ev := s.next()
			if got, _ := dig(ev.payload, "data", "buildUpdated", "id").(float64); int64(got) != bs[0].ID || dig(ev.payload, "errors") != nil {
				t.Errorf("%s as the maintainer, id %q: %v; want build %d", name, ref, ev.payload, bs[0].ID)
			}
		}
	}
}

// TestCancelAndRetryBuild checks the mutations' permissions and effects.
func TestCancelAndRetryBuild(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d)
		e.fixture()
		ctx := context.Background()
		pub, _ := e.store.FindProjectBySlug(ctx, "pub")
		priv, _ := e.store.FindProjectBySlug(ctx, "priv")
		v, _ := e.store.FindVersionBySlug(ctx, pub.ID, "v1.0")
		queued, err := e.store.CreateBuild(ctx, v, nil)
		if err != nil {
			t.Fatal(err)
		}
		privBuilds, _, _ := e.store.FindBuilds(ctx, store.BuildFilter{ProjectID: &priv.ID})
		const cancel = `mutation($id: ID!) { cancelBuild(input: {id: $id}) { build { id state { code } success error } errors { path message code } } }`
		const retry = `mutation($id: ID!) { retryBuild(input: {id: $id}) { triggered build { id: databaseId state { code } version { slug } } errors { path message code } } }`
		for _, tc := range []struct {
			name, user, query string
			id                int64
			want              string
		}{
			{"anonymous cancel", "", cancel, queued.ID, "UNAUTHENTICATED"},
			{"non-maintainer cancel", "bob", cancel, queued.ID, "FORBIDDEN"},
			{"invisible build", "bob", cancel, privBuilds[0].ID, "NOT_FOUND"},
			{"unknown build", "alice", cancel, 999999, "NOT_FOUND"},
			{"non-maintainer retry", "bob", retry, queued.ID, "FORBIDDEN"},
			{"anonymous retry", "", retry, queued.ID, "UNAUTHENTICATED"},
		} {
			if _, err := e.do(e.as(tc.user), tc.query, map[string]any{"id": tc.id}); kind(err) != tc.want {
				t.Errorf("%s: %v; want %s", tc.name, err, tc.want)
			}
		}
		data := e.must(e.as("alice"), cancel, map[string]any{"id": queued.ID})
		if dig(data, "cancelBuild", "build", "state", "code") != "finished" || dig(data, "cancelBuild", "build", "success") != false || dig(data, "cancelBuild", "build", "error") != store.CancelledMessage {
			t.Errorf("cancel of a queued build: %v", data)
		}
		if _, err := e.do(e.as("alice"), cancel, map[string]any{"id": queued.ID}); kind(err) != "CONFLICT" {
			t.Errorf("cancelling a finished build: %v; want CONFLICT", err)
		}
		data = e.must(e.as("alice"), retry, map[string]any{"id": queued.ID})
		newID, _ := dig(data, "retryBuild", "build", "id").(float64)
		if dig(data, "retryBuild", "triggered") != true || int64(newID) == queued.ID || newID == 0 ||
			dig(data, "retryBuild", "build", "state", "code") != "triggered" || dig(data, "retryBuild", "build", "version", "slug") != "v1.0" {
			t.Errorf("retry: %v; want a new triggered build of v1.0", data)
		}
	})
}

// TestBuildUpdatedEndsWhenHidden follows a running build of a public
// project anonymously and makes the project private: without any change
// of the build, the stream ends with the NOT_FOUND a new subscription
// gets, in a graphql-transport-ws `error` message on a WebSocket, in a
// `next` without data before `complete` over SSE.
func TestBuildUpdatedEndsWhenHidden(t *testing.T) {
	for _, tc := range []struct {
		transport string
		subscribe func(*testing.T, *httptest.Server, string, string) *subscriber
		errorMsg  bool // the error comes as the message that ends the stream
	}{
		{"websocket", subscribeWS, true},
		{"sse", subscribeSSE, false},
	} {
		t.Run(tc.transport, func(t *testing.T) {
			e, srv, b := liveEnv(t, store.SQLite)
			ctx := context.Background()
			pub, _ := e.store.FindProjectBySlug(ctx, "pub")
			if _, err := e.store.ClaimBuild(ctx, "test", time.Minute); err != nil {
				t.Fatal(err)
			}
			s := tc.subscribe(t, srv, "", followQuery(b.ID))
			if ev := s.next(); dig(ev.payload, "data", "buildUpdated", "state", "code") != "cloning" {
				t.Fatalf("first event: %v", ev.payload)
			}
			private := store.Private
			if _, err := e.store.UpdateProject(ctx, pub.ID, store.ProjectUpdate{PrivacyLevel: &private}); err != nil {
				t.Fatal(err)
			}
			ev := s.next()
			if dig(ev.payload, "errors", 0, "extensions", "code") != "NOT_FOUND" || dig(ev.payload, "data") != nil ||
				fmt.Sprint(dig(ev.payload, "errors", 0, "path")) != "[buildUpdated]" {
				t.Fatalf("after the project became private: %v; want one NOT_FOUND on [buildUpdated], no data", ev.payload)
			}
			if ev.done != tc.errorMsg {
				t.Errorf("the error ended the stream: %v; want %v", ev.done, tc.errorMsg)
			}
			if !ev.done {
				if ev := s.next(); !ev.done {
					t.Errorf("after the error: %v; want the end of the stream", ev.payload)
				}
			}
		})
	}
}

// TestBuildUpdatedSendsChangesOnly follows a running build with a query
// that does not select the commands' output while the output grows: each
// event differs from the one before (a witness that selects the output
// shows the stream woke for each line).
func TestBuildUpdatedSendsChangesOnly(t *testing.T) {
	e, srv, b := liveEnv(t, store.SQLite)
	ctx := context.Background()
	states := subscribeSSE(t, srv, "", fmt.Sprintf(`subscription { buildUpdated(id: "%d") { state { code } } }`, b.ID))
	witness := subscribeSSE(t, srv, "", followQuery(b.ID))
	var got []string
	record := func() {
		ev := states.next()
		if ev.done {
			return
		}
		p, _ := json.Marshal(ev.payload)
		got = append(got, string(p))
	}
	record() // triggered
	if _, err := e.store.ClaimBuild(ctx, "test", time.Minute); err != nil {
		t.Fatal(err)
	}
	record() // cloning
	c, err := e.store.AddBuildCommand(ctx, store.BuildCommand{BuildID: b.ID, Command: "sphinx-build", Description: "building", StartTime: time.Now().UTC()})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		c.Output += fmt.Sprintf("line %d\n", i)
		if err := e.store.UpdateBuildCommand(ctx, *c); err != nil {
			t.Fatal(err)
		}
		witness.until("the witness sees the line", func(ev event) bool {
			return dig(ev.payload, "data", "buildUpdated", "commands", 0, "output") == c.Output
		})
	}
	if _, err := e.store.FinishBuild(ctx, b.ID, store.BuildResult{Success: true}); err != nil {
		t.Fatal(err)
	}
	for {
		ev := states.next()
		if ev.done {
			break
		}
		p, _ := json.Marshal(ev.payload)
		got = append(got, string(p))
	}
	for i := 1; i < len(got); i++ {
		if got[i] == got[i-1] {
			t.Errorf("event %d repeats the one before: %s (all: %q)", i, got[i], got)
		}
	}
	if len(got) != 3 || !strings.Contains(got[2], "finished") {
		t.Errorf("events %q; want triggered, cloning, finished", got)
	}
}

// TestSubscriptionsPerConnection: one WebSocket connection runs at most
// Limits.MaxSubscriptions subscriptions at once; one more is an error
// event with QUERY_TOO_COMPLEX, and completing one frees its slot.
func TestSubscriptionsPerConnection(t *testing.T) {
	e := newEnv(t, store.SQLite)
	e.fixture()
	ctx, cancel := context.WithTimeout(context.Background(), liveDeadline)
	defer cancel()
	pub, _ := e.store.FindProjectBySlug(ctx, "pub")
	v, _ := e.store.FindVersionBySlug(ctx, pub.ID, "v1.0")
	b, err := e.store.CreateBuild(ctx, v, nil) // queued: its streams stay open
	if err != nil {
		t.Fatal(err)
	}
	r := &graph.Resolver{Store: e.store, Changes: graph.PollBuildChanges{Interval: 20 * time.Millisecond},
		Settings: graph.Settings{Endpoint: graph.Endpoint{Limits: graph.Limits{MaxSubscriptions: 2}}}}
	srv := httptest.NewServer(r.Handler())
	defer srv.Close()
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http")+"/graphql", &websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	send := func(msg map[string]any) {
		t.Helper()
		if err := wsjson.Write(ctx, conn, msg); err != nil {
			t.Fatal(err)
		}
	}
	// first returns the first message about subscription id, skipping the rest.
	first := func(id string) (typ string, payload json.RawMessage) {
		t.Helper()
		for {
			var msg struct {
				ID      string          `json:"id"`
				Type    string          `json:"type"`
				Payload json.RawMessage `json:"payload"`
			}
			if err := wsjson.Read(ctx, conn, &msg); err != nil {
				t.Fatalf("reading the answer to %s: %v", id, err)
			}
			if msg.ID == id {
				return msg.Type, msg.Payload
			}
		}
	}
	subscribe := func(id string) {
		send(map[string]any{"id": id, "type": "subscribe", "payload": map[string]any{"query": followQuery(b.ID)}})
	}
	send(map[string]any{"type": "connection_init"})
	if typ, _ := first(""); typ != "connection_ack" {
		t.Fatalf("connection_init answered %s", typ)
	}
	for _, id := range []string{"1", "2"} {
		subscribe(id)
		if typ, p := first(id); typ != "next" {
			t.Fatalf("subscription %s: %s %s, want next", id, typ, p)
		}
	}
	subscribe("3")
	typ, p := first("3") // a resolver's error: `next` with errors and no data, as for NOT_FOUND
	var answer map[string]any
	json.Unmarshal(p, &answer)
	if typ != "next" || answer["data"] != nil || dig(answer, "errors", 0, "extensions", "code") != "QUERY_TOO_COMPLEX" ||
		dig(answer, "errors", 0, "extensions", "details", "maximum") != float64(2) {
		t.Fatalf("a third subscription: %s %s, want one QUERY_TOO_COMPLEX error with maximum 2", typ, p)
	}
	// Completing one frees its slot (released when its stream ends, so
	// the next subscribe may come a moment before: try until it fits).
	send(map[string]any{"id": "1", "type": "complete"})
	for i := 4; ; i++ {
		id := fmt.Sprint(i)
		subscribe(id)
		typ, p := first(id)
		var answer map[string]any
		json.Unmarshal(p, &answer)
		if typ == "next" && dig(answer, "data", "buildUpdated", "id") == float64(b.ID) {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("no slot came free after a complete")
		}
	}
}
