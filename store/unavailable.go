package store

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"net"

	"github.com/lib/pq"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// unreachable reports whether err means the database cannot answer right
// now (connection refused or lost, server shutting down or not accepting
// connections, SQLite file unreadable or locked past the busy timeout), as
// opposed to a failure of the statement itself. Such errors are classified
// errs.Unavailable, which the APIs answer with 503 and Retry-After. It reads
// error types and codes, never text.
func unreachable(err error) bool {
	var netErr net.Error
	if errors.As(err, &netErr) || errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) {
		return true
	}
	var pqErr *pq.Error
	if errors.As(err, &pqErr) {
		switch pqErr.Code.Class() {
		case "08": // connection_exception
			return true
		case "57": // operator_intervention: admin_shutdown, crash_shutdown, cannot_connect_now
			return pqErr.Code != "57014" // query_canceled is the caller's own cancel
		case "53": // insufficient_resources: too_many_connections, out of memory, disk full
			return true
		}
		return false
	}
	var liteErr *sqlite.Error
	if errors.As(err, &liteErr) {
		switch liteErr.Code() & 0xff { // primary result code
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_CANTOPEN,
			sqlite3.SQLITE_IOERR, sqlite3.SQLITE_FULL, sqlite3.SQLITE_READONLY:
			return true
		}
	}
	return false
}
