// Package notify carries signals between docsd nodes: a build was queued
// (wake a worker), a version's docs changed (clean caches). On PostgreSQL
// they travel by LISTEN/NOTIFY, so a trigger on one node wakes a worker on
// another at once; on SQLite, which one process serves, they stay in the
// process.
package notify

import (
	"context"
	"database/sql"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lib/pq"
)

// The channels docsd uses.
const (
	// BuildQueued: a build or sync task was queued; the payload is empty.
	BuildQueued = "docsd_build_queued"
	// DocsChanged: a version's published docs were replaced or removed;
	// the payload is "PROJECT/VERSION", or "PROJECT/" for every version.
	DocsChanged = "docsd_docs_changed"
	// ServedChanged: rows the docs host caches (projects, versions,
	// redirects, maintainers, …) were written; the payload is empty.
	// Nodes empty their docs caches.
	ServedChanged = "docsd_served_changed"
	// BuildChanged: builds or their recorded commands were written (a
	// worker's progress, a cancel); the payload is empty. Nodes wake their
	// live build subscriptions.
	BuildChanged = "docsd_build_changed"
)

// Notifier sends and receives signals. Subscribers are called from a
// goroutine of the notifier, one signal at a time per notifier, with the
// payload; an empty payload on a channel whose signals carry one means
// that signals may have been lost (a reconnection): subscribers then
// refresh everything.
type Notifier interface {
	// Notify sends payload on channel to every subscribed node, this one
	// included.
	Notify(ctx context.Context, channel, payload string) error
	// Subscribe calls fn for every signal on channel from now on.
	Subscribe(channel string, fn func(payload string)) error
	// Close stops receiving.
	Close() error
}

// Local is a Notifier inside one process (SQLite).
type Local struct {
	mu   sync.Mutex // guards subs
	subs map[string][]func(string)
	send chan signal
	done chan struct{}
	once sync.Once
}

type signal struct{ channel, payload string }

// NewLocal returns an in-process notifier.
func NewLocal() *Local {
	l := &Local{subs: map[string][]func(string){}, send: make(chan signal, 256), done: make(chan struct{})}
	go l.loop()
	return l
}

func (l *Local) loop() {
	for {
		select {
		case s := <-l.send:
			l.deliver(s.channel, s.payload)
		case <-l.done:
			return
		}
	}
}

func (l *Local) deliver(channel, payload string) {
	l.mu.Lock()
	subs := append([]func(string){}, l.subs[channel]...)
	l.mu.Unlock()
	for _, fn := range subs {
		fn(payload)
	}
}

// Notify implements Notifier. It never blocks on slow subscribers: when
// the queue is full the signal is delivered by its own goroutine.
func (l *Local) Notify(_ context.Context, channel, payload string) error {
	select {
	case l.send <- signal{channel, payload}:
	default:
		go l.deliver(channel, payload)
	}
	return nil
}

// Subscribe implements Notifier.
func (l *Local) Subscribe(channel string, fn func(string)) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.subs[channel] = append(l.subs[channel], fn)
	return nil
}

// Close implements Notifier.
func (l *Local) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

// Postgres is a Notifier over PostgreSQL LISTEN/NOTIFY: one listening
// connection per node, reconnected when lost (subscribers then get an
// empty payload, since signals may have been missed meanwhile).
type Postgres struct {
	db       *sql.DB
	listener *pq.Listener
	local    *Local
	logger   *slog.Logger
	done     chan struct{}
	once     sync.Once
	down     atomic.Bool // a Subscribe found the database not answering
}

// NewPostgres connects to the database at dsn for notifications.
func NewPostgres(dsn string, logger *slog.Logger) (*Postgres, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	db, err := sql.Open("postgres", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(2)
	p := &Postgres{db: db, local: NewLocal(), logger: logger.With("component", "notify"), done: make(chan struct{})}
	p.listener = pq.NewListener(dsn, 100*time.Millisecond, 5*time.Second, func(ev pq.ListenerEventType, err error) {
		if err != nil {
			p.logger.Warn("notification connection", "event", ev, "err", err)
		}
	})
	go p.loop()
	return p, nil
}

func (p *Postgres) loop() {
	ping := time.NewTicker(60 * time.Second)
	defer ping.Stop()
	for {
		select {
		case n := <-p.listener.Notify:
			if n == nil { // reconnected: anything may have been missed
				p.local.mu.Lock()
				var channels []string
				for c := range p.local.subs {
					channels = append(channels, c)
				}
				p.local.mu.Unlock()
				for _, c := range channels {
					p.local.deliver(c, "")
				}
				continue
			}
			p.local.deliver(n.Channel, n.Extra)
		case <-ping.C:
			go p.listener.Ping() // finds a dead connection, which then reconnects
		case <-p.done:
			return
		}
	}
}

// Notify implements Notifier.
func (p *Postgres) Notify(ctx context.Context, channel, payload string) error {
	_, err := p.db.ExecContext(ctx, `SELECT pg_notify($1, $2)`, channel, payload)
	return err
}

// listenWait bounds how long Subscribe waits for the database: a node
// that starts while PostgreSQL is down still starts (and answers 503), and
// listens once the connection is up.
const listenWait = 5 * time.Second

// Subscribe implements Notifier. It returns once the node listens on
// channel, or after listenWait when the database does not answer (at once
// when an earlier Subscribe found it so); the listening then starts when
// the connection comes up.
func (p *Postgres) Subscribe(channel string, fn func(string)) error {
	p.local.Subscribe(channel, fn)
	done := make(chan error, 1)
	go func() { done <- p.listener.Listen(channel) }()
	select {
	case err := <-done:
		if err != nil && err != pq.ErrChannelAlreadyOpen {
			return err
		}
	case <-time.After(p.wait()):
		p.down.Store(true)
		p.logger.Warn("the database does not answer yet: listening once it does", "channel", channel)
	}
	return nil
}

func (p *Postgres) wait() time.Duration {
	if p.down.Load() {
		return 0
	}
	return listenWait
}

// Close implements Notifier.
func (p *Postgres) Close() error {
	p.once.Do(func() { close(p.done) })
	p.local.Close()
	err := p.listener.Close()
	p.db.Close()
	return err
}
