package bench

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"math"
	"net/http"
	"sync/atomic"
	"testing"

	"docsd/internal/bench/benchdata"
	"docsd/internal/bench/floor"
	"docsd/internal/storetest"
	"docsd/store"
)

// countRuns is how many times each request is counted; the least count is
// kept.
const countRuns = 5

// TestSQLStatementsPerRequest counts the SQL statements docsd and the floor
// run for each measured request, for lists of 10 and of 100 (the project
// detail takes no limit: its two counts are of the same request, and its
// list, active_versions, has the measured project's 5 versions). It asserts
// the rule that keeps lists cheap: docsd's count does not depend on the
// list's length (nor the floor's), and docsd runs at most one statement
// more than the floor.
func TestSQLStatementsPerRequest(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		url := storetest.DatabaseURL(t, d)
		e := newEnvAt(t, url, testScale)
		floorDB, floorCount := countingDB(t, url)
		fl := floor.New(floorDB, d, urls)
		count := func(t *testing.T, req request) (docsd, floor int64) {
			t.Helper()
			for _, h := range []http.Handler{e.docsd, fl} { // warm caches first
				if status, body := get(t, h, req); status != http.StatusOK {
					t.Fatalf("%s answered %d: %s", req.path, status, body)
				}
			}
			// docsd's dataloaders gather a batch for 1 ms: on a busy machine a
			// batch can be cut in two, adding a statement. The least of
			// several runs is the count of the request's batching, not of
			// the machine's load.
			docsd, floor = math.MaxInt64, math.MaxInt64
			for range countRuns {
				before := e.store.QueryCount()
				get(t, e.docsd, req)
				docsd = min(docsd, e.store.QueryCount()-before)
				before = floorCount.Load()
				get(t, fl, req)
				floor = min(floor, floorCount.Load()-before)
			}
			return docsd, floor
		}
		short, long := requests("10"), requests("100")
		for i := range long {
			name := long[i].name
			t.Run(name, func(t *testing.T) {
				docsd10, floor10 := count(t, short[i])
				docsd100, floor100 := count(t, long[i])
				t.Logf("statements: docsd %d (list of 10) %d (list of 100); floor %d (10) %d (100)", docsd10, docsd100, floor10, floor100)
				if docsd100 != docsd10 {
					t.Errorf("docsd runs %d statements for a list of 100, %d for 10: the count depends on the list's length", docsd100, docsd10)
				}
				if floor100 != floor10 {
					t.Errorf("the floor runs %d statements for a list of 100, %d for 10", floor100, floor10)
				}
				if docsd100 > floor100+1 {
					t.Errorf("docsd runs %d statements, more than the floor's %d + 1", docsd100, floor100)
				}
			})
		}
	})
}

// countingDB opens the database at url through a connector that counts the
// statements run on it.
func countingDB(t *testing.T, url string) (*sql.DB, *atomic.Int64) {
	t.Helper()
	name, dsn, _, err := benchdata.DSN(url)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := sql.Open(name, dsn)
	if err != nil {
		t.Fatal(err)
	}
	c := &countingConnector{drv: plain.Driver(), dsn: dsn}
	plain.Close()
	db := sql.OpenDB(c)
	t.Cleanup(func() { db.Close() })
	return db, &c.n
}

// countingConnector counts the queries and statements its connections run.
type countingConnector struct {
	drv driver.Driver
	dsn string
	n   atomic.Int64
}

func (c *countingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.drv.Open(c.dsn)
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: conn, n: &c.n}, nil
}

func (c *countingConnector) Driver() driver.Driver { return c.drv }

// countingConn passes everything to the driver's connection, counting each
// query, exec and prepared statement.
type countingConn struct {
	driver.Conn
	n *atomic.Int64
}

func (c *countingConn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	c.n.Add(1)
	return c.Conn.(driver.QueryerContext).QueryContext(ctx, q, args)
}

func (c *countingConn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	c.n.Add(1)
	return c.Conn.(driver.ExecerContext).ExecContext(ctx, q, args)
}

func (c *countingConn) PrepareContext(ctx context.Context, q string) (driver.Stmt, error) {
	c.n.Add(1)
	return c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, q)
}
