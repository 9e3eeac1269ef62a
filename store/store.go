// Package store is docsd's persistence: sqlx over PostgreSQL (lib/pq) or the
// embedded SQLite default (modernc.org/sqlite), chosen by the database URL.
//
// Methods are named after what they do (FindProjectBySlug, CreateRedirect,
// UpdateVersion). Public methods that write open one transaction, take one
// `now`, and commit or roll back as a whole: a failed call leaves no partial
// rows. Errors are classified with package errs; "not found" is an error,
// never (nil, nil).
package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"docsd/internal/errs"
)

//go:embed migrations
var migrations embed.FS

func init() {
	// modernc's driver is registered as "sqlite"; sqlx must know its bind type.
	sqlx.BindDriver("sqlite", sqlx.QUESTION)
}

// Dialect names the SQL database behind a Store.
type Dialect string

// The supported dialects.
const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
)

// Store is a handle on docsd's database. It is safe for concurrent use.
//
// On SQLite, writes go through one connection (SQLite allows one writer; a
// single connection serialises them without SQLITE_BUSY) and reads through a
// pool. On PostgreSQL both are the same pool.
type Store struct {
	dialect Dialect
	reader  *sqlx.DB
	writer  *sqlx.DB
	queries atomic.Int64 // statements run, for tests that prove batching
	stmts   stmtCache    // prepared reads of the reader pool
	sealer  *Sealer      // encrypts secrets at rest; nil: plaintext (UseSealer)

	hooksMu sync.Mutex // guards hooks
	hooks   []func(ctx context.Context, tables []string)

	// Now returns the current time; tests may replace it. Times are UTC and
	// truncated to microseconds, the stored precision.
	Now func() time.Time
}

// Open connects to the database named by databaseURL, applies pending
// migrations and returns the Store. A URL starting with postgres:// or
// postgresql:// selects PostgreSQL; anything else is a SQLite file path
// (optionally prefixed with sqlite:// or file:).
func Open(ctx context.Context, databaseURL string) (*Store, error) {
	s, err := open(databaseURL)
	if err != nil {
		return nil, err
	}
	if err := s.Migrate(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// OpenWithoutMigrating connects like Open but leaves the schema alone.
func OpenWithoutMigrating(databaseURL string) (*Store, error) { return open(databaseURL) }

// DSN returns the database/sql driver name and data source name of the
// database at databaseURL, with the connection settings docsd uses:
// PostgreSQL sessions in UTC (lib/pq then returns times in UTC whatever the
// server's TimeZone), SQLite's pragmas (per connection, so in the DSN) and
// time format. path is the SQLite file ("" for PostgreSQL).
func DSN(databaseURL string) (driver, dsn, path string, d Dialect, err error) {
	if strings.HasPrefix(databaseURL, "postgres://") || strings.HasPrefix(databaseURL, "postgresql://") {
		u, err := url.Parse(databaseURL)
		if err != nil {
			return "", "", "", "", err
		}
		q := u.Query()
		q.Set("timezone", "UTC")
		u.RawQuery = q.Encode()
		return "postgres", u.String(), "", Postgres, nil
	}
	path = strings.TrimPrefix(strings.TrimPrefix(databaseURL, "sqlite://"), "file:")
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	q := url.Values{}
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Set("_time_format", "sqlite")
	return "sqlite", "file:" + path + "?" + q.Encode(), path, SQLite, nil
}

func open(databaseURL string) (*Store, error) {
	const op = "store.Open"
	s := &Store{Now: func() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }}
	driver, dsn, path, dialect, err := DSN(databaseURL)
	if err != nil {
		return nil, errs.Wrap(errs.Invalid, op, err)
	}
	if dialect == Postgres {
		db, err := sqlx.Open(driver, dsn)
		if err != nil {
			return nil, errs.Wrap(errs.Internal, op, err)
		}
		db.SetMaxOpenConns(20)
		db.SetMaxIdleConns(10)
		db.SetConnMaxIdleTime(5 * time.Minute)
		s.dialect, s.reader, s.writer = Postgres, db, db
		return s, nil
	}
	if path == "" {
		return nil, errs.E(errs.Invalid, op, "empty database path")
	}
	if err := createPrivate(path); err != nil {
		return nil, errs.Wrap(errs.Internal, op, err)
	}
	writer, err := sqlx.Open(driver, dsn+"&_txlock=immediate")
	if err != nil {
		return nil, errs.Wrap(errs.Internal, op, err)
	}
	writer.SetMaxOpenConns(1)
	reader, err := sqlx.Open(driver, dsn)
	if err != nil {
		writer.Close()
		return nil, errs.Wrap(errs.Internal, op, err)
	}
	reader.SetMaxOpenConns(8)
	// Keep them all: database/sql keeps only 2 idle by default, and a reopened
	// SQLite connection re-runs its pragmas and re-prepares its statements.
	reader.SetMaxIdleConns(8)
	s.dialect, s.reader, s.writer = SQLite, reader, writer
	return s, nil
}

// Migrate applies every pending migration of the store's dialect.
func (s *Store) Migrate(ctx context.Context) error { return s.MigrateTo(ctx, 0) }

// MigrateTo applies the pending migrations of the store's dialect up to
// and including version (0: all of them). Tests of data migrations use it
// to write rows in an older schema.
func (s *Store) MigrateTo(ctx context.Context, version int64) error {
	const op = "store.Migrate"
	p, err := s.migrations(op)
	if err != nil {
		return err
	}
	if version > 0 {
		_, err = p.UpTo(ctx, version)
	} else {
		_, err = p.Up(ctx)
	}
	if err != nil {
		return errs.Wrap(errs.Internal, op, err)
	}
	return nil
}

// migrations returns the goose provider of the store's dialect.
func (s *Store) migrations(op string) (*goose.Provider, error) {
	sub, err := fs.Sub(migrations, "migrations/"+string(s.dialect))
	if err != nil {
		return nil, errs.Wrap(errs.Internal, op, err)
	}
	dialect := goose.DialectSQLite3
	if s.dialect == Postgres {
		dialect = goose.DialectPostgres
	}
	var opts []goose.ProviderOption
	if s.dialect == Postgres {
		// Nodes starting together against one database take turns.
		locker, err := lock.NewPostgresSessionLocker()
		if err != nil {
			return nil, errs.Wrap(errs.Internal, op, err)
		}
		opts = append(opts, goose.WithSessionLocker(locker))
	}
	p, err := goose.NewProvider(dialect, s.writer.DB, sub, opts...)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, op, err)
	}
	return p, nil
}

// Dialect reports which database the store talks to.
func (s *Store) Dialect() Dialect { return s.dialect }

// Close releases the database connections.
func (s *Store) Close() error {
	s.stmts.close()
	err := s.writer.Close()
	if s.reader != s.writer {
		if rerr := s.reader.Close(); err == nil {
			err = rerr
		}
	}
	return err
}

// Ping checks that the database answers: it runs a statement (a bare
// connection check would pass on a PostgreSQL that refuses queries). A
// database that does not answer is errs.Unavailable.
func (s *Store) Ping(ctx context.Context) error {
	var one int
	if err := s.reader.GetContext(ctx, &one, "SELECT 1"); err != nil {
		if e := classify("store.Ping", err); !errs.Is(e, errs.Internal) {
			return e
		}
		return errs.Wrap(errs.Unavailable, "store.Ping", err)
	}
	return nil
}

// QueryCount returns how many statements the store has run so far. Tests use
// it to prove that resolvers batch their reads.
func (s *Store) QueryCount() int64 { return s.queries.Load() }

// queryer is what both *sqlx.DB and *sqlx.Tx offer; helpers take it so that
// they run inside or outside a transaction alike.
type queryer interface {
	sqlx.ExtContext
	GetContext(ctx context.Context, dest any, query string, args ...any) error
	SelectContext(ctx context.Context, dest any, query string, args ...any) error
}

// conn wraps a queryer: it rebinds `?` placeholders for the dialect and counts
// statements. All SQL in this package is written once, with `?`.
type conn struct {
	s *Store
	q queryer
	// wrote collects the tables a transaction's statements write; nil
	// outside a transaction.
	wrote *[]string
	// snap is the read snapshot q is, if any (see InReadSnapshot).
	snap *sqlx.Tx
}

// noteWrite records the table a statement of a transaction writes.
func (c conn) noteWrite(query string) {
	if c.wrote == nil {
		return
	}
	if t := writtenTable(query); t != "" && !slices.Contains(*c.wrote, t) {
		*c.wrote = append(*c.wrote, t)
	}
}

// writtenTable is the table an INSERT, UPDATE or DELETE statement writes,
// "" for any other statement.
func writtenTable(query string) string {
	words := strings.Fields(query[:min(len(query), 120)])
	if len(words) < 2 {
		return ""
	}
	var i int
	switch strings.ToUpper(words[0]) {
	case "UPDATE":
		i = 1
	case "INSERT", "DELETE": // INSERT [OR …] INTO t, DELETE FROM t
		for i = 1; i < len(words)-1 && !strings.EqualFold(words[i], "INTO") && !strings.EqualFold(words[i], "FROM"); i++ {
		}
		i++
	default:
		return ""
	}
	if i >= len(words) {
		return ""
	}
	t, _, _ := strings.Cut(words[i], "(")
	return strings.ToLower(t)
}

func (c conn) get(ctx context.Context, dest any, query string, args ...any) error {
	c.s.queries.Add(1)
	c.noteWrite(query) // INSERT … RETURNING
	query = c.q.Rebind(query)
	if stmt := c.prepared(ctx, query); stmt != nil {
		return stmt.GetContext(ctx, dest, args...)
	}
	return c.q.GetContext(ctx, dest, query, args...)
}

func (c conn) sel(ctx context.Context, dest any, query string, args ...any) error {
	c.s.queries.Add(1)
	query = c.q.Rebind(query)
	if stmt := c.prepared(ctx, query); stmt != nil {
		return stmt.SelectContext(ctx, dest, args...)
	}
	return c.q.SelectContext(ctx, dest, query, args...)
}

// prepared returns the reader pool's prepared statement for query (in a
// read snapshot, bound to its transaction), nil inside a write
// transaction or when it can't be prepared.
func (c conn) prepared(ctx context.Context, query string) *sqlx.Stmt {
	if db, ok := c.q.(*sqlx.DB); ok && db == c.s.reader {
		return c.s.stmts.get(ctx, db, query)
	}
	if c.snap != nil {
		// The pool's statement, on the snapshot's connection. Preparing
		// it takes another connection of the pool, which snapshots
		// waiting for it could all hold: a statement not prepared yet is
		// prepared in the background for the next time, and this one
		// runs unprepared.
		if stmt := c.s.stmts.lookup(query); stmt != nil {
			return c.snap.StmtxContext(ctx, stmt)
		}
		go c.s.stmts.get(context.WithoutCancel(ctx), c.s.reader, query)
	}
	return nil
}

func (c conn) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	c.s.queries.Add(1)
	c.noteWrite(query)
	return c.q.ExecContext(ctx, c.q.Rebind(query), args...)
}

// selIn expands a query with `IN (?)` slice arguments (sqlx.In) before running it.
func (c conn) selIn(ctx context.Context, dest any, query string, args ...any) error {
	q, a, err := sqlx.In(query, args...)
	if err != nil {
		return err
	}
	return c.sel(ctx, dest, q, a...)
}

// getIn is get with sqlx.In expansion.
func (c conn) getIn(ctx context.Context, dest any, query string, args ...any) error {
	q, a, err := sqlx.In(query, args...)
	if err != nil {
		return err
	}
	return c.get(ctx, dest, q, a...)
}

// insert runs an INSERT … RETURNING id and returns the new id.
func (c conn) insert(ctx context.Context, query string, args ...any) (int64, error) {
	var id int64
	err := c.get(ctx, &id, query+" RETURNING id", args...)
	return id, err
}

// stmtCache keeps one prepared statement per distinct read query, so that
// the database parses and plans it once per connection instead of on every
// call (with SQLite, parsing was most of a small read's cost). It holds at
// most maxPrepared statements: queries whose text varies (IN lists of many
// lengths) stop being cached when it is full.
type stmtCache struct {
	mu     sync.Mutex
	stmts  map[string]*sqlx.Stmt
	closed bool
}

const maxPrepared = 512

// lookup returns the prepared statement for query, nil when there is
// none yet.
func (c *stmtCache) lookup(query string) *sqlx.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stmts[query]
}

func (c *stmtCache) get(ctx context.Context, db *sqlx.DB, query string) *sqlx.Stmt {
	c.mu.Lock()
	stmt, ok := c.stmts[query]
	full := len(c.stmts) >= maxPrepared || c.closed
	c.mu.Unlock()
	if ok {
		return stmt
	}
	if full {
		return nil
	}
	// Prepared outside the lock; a statement prepared twice by racing
	// callers is closed again.
	stmt, err := db.PreparexContext(context.WithoutCancel(ctx), query)
	if err != nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if prev, ok := c.stmts[query]; ok || c.closed {
		stmt.Close()
		return prev
	}
	if c.stmts == nil {
		c.stmts = map[string]*sqlx.Stmt{}
	}
	c.stmts[query] = stmt
	return stmt
}

func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, stmt := range c.stmts {
		stmt.Close()
	}
	c.stmts, c.closed = nil, true
}

// read is a conn on the reader pool.
func (s *Store) read() conn { return conn{s: s, q: s.reader} }

// Tx is a write transaction. Methods of Store that take a *Tx let several
// writes commit or fail together.
type Tx struct {
	conn
	Now time.Time // one `now` per transaction
}

// InTx runs fn in a write transaction and commits it if fn returns nil.
func (s *Store) InTx(ctx context.Context, op string, fn func(tx *Tx) error) error {
	sqltx, err := s.writer.BeginTxx(ctx, nil)
	if err != nil {
		return classify(op, err)
	}
	defer sqltx.Rollback()
	var wrote []string
	tx := &Tx{conn: conn{s: s, q: sqltx, wrote: &wrote}, Now: s.Now()}
	if err := fn(tx); err != nil {
		return classify(op, err)
	}
	if err := sqltx.Commit(); err != nil {
		return classify(op, err)
	}
	if len(wrote) > 0 {
		s.hooksMu.Lock()
		hooks := s.hooks
		s.hooksMu.Unlock()
		for _, fn := range hooks {
			fn(ctx, wrote)
		}
	}
	return nil
}

// OnCommit registers fn to be called after every committed transaction
// that wrote rows, with the tables it wrote (lower case, each once). It
// runs in the committing goroutine before the writing method returns, so a
// cache it cleans is clean before the writer's caller goes on; it must be
// quick.
func (s *Store) OnCommit(fn func(ctx context.Context, tables []string)) {
	s.hooksMu.Lock()
	defer s.hooksMu.Unlock()
	s.hooks = append(slices.Clip(s.hooks), fn)
}

// classify turns driver errors into errs kinds by their codes (never by
// text): unique violations are Conflict, foreign-key violations NotFound,
// sql.ErrNoRows NotFound. Already classified errors pass through.
func classify(op string, err error) error {
	if err == nil {
		return nil
	}
	var e *errs.Error
	if errors.As(err, &e) {
		return err
	}
	if errors.Is(err, sql.ErrNoRows) {
		return &errs.Error{Kind: errs.NotFound, Op: op, Message: errs.MsgNotFound, Err: err}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return errs.Wrap(errs.Internal, op, err)
	}
	if unreachable(err) {
		return errs.Wrap(errs.Unavailable, op, err)
	}
	var pqErr *pq.Error
	if errors.As(err, &pqErr) {
		switch pqErr.Code {
		case "23505":
			return errs.Wrap(errs.Conflict, op, err)
		case "23503":
			return errs.Wrap(errs.NotFound, op, err)
		case "23502", "23514", "22001", "22021", "22P05":
			return errs.Wrap(errs.Invalid, op, err)
		}
	}
	var liteErr *sqlite.Error
	if errors.As(err, &liteErr) {
		switch liteErr.Code() {
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return errs.Wrap(errs.Conflict, op, err)
		case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
			return errs.Wrap(errs.NotFound, op, err)
		case sqlite3.SQLITE_CONSTRAINT_NOTNULL, sqlite3.SQLITE_CONSTRAINT_CHECK:
			return errs.Wrap(errs.Invalid, op, err)
		}
	}
	return errs.Wrap(errs.Internal, op, err)
}

// codepoint returns an ORDER BY expression that sorts col by Unicode code
// point on both dialects (SQLite's default BINARY collation already does).
func (s *Store) codepoint(col string) string {
	if s.dialect == Postgres {
		return col + ` COLLATE "C"`
	}
	return col
}

// page appends LIMIT/OFFSET to a query. limit <= 0 means no limit.
func (s *Store) page(query string, limit, offset int) string {
	if limit > 0 {
		query += fmt.Sprintf(" LIMIT %d", limit)
	} else if offset > 0 && s.dialect == SQLite {
		query += " LIMIT -1" // SQLite needs a LIMIT before OFFSET
	}
	if offset > 0 {
		query += fmt.Sprintf(" OFFSET %d", offset)
	}
	return query
}

// Redact returns a database URL with any password replaced, for logs.
func Redact(databaseURL string) string {
	u, err := url.Parse(databaseURL)
	if err != nil || u.User == nil {
		return databaseURL
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

// storable reports whether s can be stored in and compared with a text
// column on both dialects: PostgreSQL rejects invalid UTF-8 and NUL.
func storable(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsRune(s, 0)
}

// errNotStorable is the NotFound of a lookup by a value no row can hold.
func errNotStorable(op string) error {
	return &errs.Error{Kind: errs.NotFound, Op: op, Message: errs.MsgNotFound}
}

// WatchCommits calls fn, about every interval until ctx ends, when
// transactions were committed to a SQLite database by any connection other
// than the watcher's own: another process (the docsd command line on the
// same file) or this store's writer. It is how one process hears of
// another's writes, which reach no hook of its own (OnCommit); PostgreSQL
// nodes tell each other with LISTEN/NOTIFY instead, and there it returns at
// once. It also calls fn whenever it starts watching anew (at first, and
// after a failed connection), since commits may have been missed meanwhile.
func (s *Store) WatchCommits(ctx context.Context, interval time.Duration, fn func()) {
	if s.dialect != SQLite {
		return
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	var c *sql.Conn
	defer func() {
		if c != nil {
			c.Close()
		}
	}()
	last := int64(-1)
	for {
		if c == nil {
			c, _ = s.reader.Conn(ctx)
		}
		// data_version changes when another connection commits (SQLite's
		// PRAGMA data_version); its value means nothing across connections.
		var v int64
		if c != nil {
			if err := c.QueryRowContext(ctx, "PRAGMA data_version").Scan(&v); err != nil {
				c.Close()
				c, last = nil, -1
			} else if v != last {
				fn()
				last = v
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
