package storetest

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/lib/pq"

	"docsd/store"
)

// pgServer is the PostgreSQL server this test process makes databases on.
type pgServer struct {
	url   *url.URL // a database to connect to for CREATE/DROP DATABASE
	admin *sql.DB  // connections to url
	how   string   // where the server came from, for messages
	dir   string   // the throwaway cluster's directory, if it is one

	err   error // why there is no server
	fatal bool  // err is a broken configuration, not a missing server

	noICU atomic.Bool // the server can't make ICU databases

	announce     sync.Once // logs where the databases are, once
	noTemplate   error     // why no template database may be made
	templateOnce sync.Once
	template     string // the migrated template database, once made
	templateErr  error
}

var (
	pgOnce   sync.Once
	pgChosen *pgServer
	dbSerial atomic.Int64

	// watchdogPipe is the write end of the throwaway cluster's watchdog's
	// stdin. It is never written and never closed: when this process exits,
	// however it exits, the watchdog reads EOF, stops the cluster and removes
	// its directory. Holding it here also keeps the finalizer from closing it.
	watchdogPipe *os.File
)

// postgresServer returns the server chosen for this process, choosing it on
// first use.
func postgresServer() *pgServer {
	pgOnce.Do(func() { pgChosen = choosePostgres() })
	return pgChosen
}

// choosePostgres applies the order documented on the package.
func choosePostgres() *pgServer {
	var tried []string
	if !truthy(EnvThrowaway) {
		if u := os.Getenv(EnvPostgresURL); u != "" {
			srv, err := connectPostgres(u, 10*time.Second)
			if err != nil {
				return &pgServer{err: fmt.Errorf("%s does not answer: %w", EnvPostgresURL, err), fatal: true}
			}
			srv.how = EnvPostgresURL
			srv.startReaper()
			return srv
		}
		srv, err := connectPostgres(LocalPostgresURL, 2*time.Second)
		if err == nil {
			srv.how = "local server " + redact(srv.url)
			srv.startReaper()
			return srv
		}
		tried = append(tried, fmt.Sprintf("local server %s: %v", LocalPostgresURL, err))
	}
	srv, err := startThrowaway()
	if err != nil {
		tried = append(tried, "throwaway cluster: "+err.Error())
		return &pgServer{err: errors.New(strings.Join(tried, "; ")), fatal: truthy(EnvThrowaway)}
	}
	return srv
}

// connectPostgres opens an admin pool on rawURL and checks that the server
// answers within timeout.
func connectPostgres(rawURL string, timeout time.Duration) (*pgServer, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return nil, fmt.Errorf("want a postgres:// URL, got %q", rawURL)
	}
	// CREATE DATABASE writes a lot of WAL; not waiting for it to be flushed
	// halves its time, and a test database needs no durability.
	admin := *u
	q := admin.Query()
	q.Set("synchronous_commit", "off")
	admin.RawQuery = q.Encode()
	db, err := sql.Open("postgres", admin.String())
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(4)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return &pgServer{url: u, admin: db}, nil
}

// postgresDatabase creates a database for one test and returns its URL.
// When migrated, the database is a copy of this process's migrated template
// (copying is faster than running the migrations); otherwise it
// is empty.
func postgresDatabase(tb testing.TB, migrated bool) string {
	tb.Helper()
	srv := postgresServer()
	if srv.err != nil {
		if srv.fatal {
			tb.Fatalf("storetest: %v", srv.err)
		}
		unavailable(tb, srv.err)
	}
	srv.announce.Do(func() { tb.Logf("storetest: PostgreSQL databases on %s", srv.how) })
	template := "template0"
	if migrated {
		if t, err := srv.migratedTemplate(); err == nil {
			template = t
		} else {
			tb.Logf("storetest: no template database, migrating each database: %v", err)
		}
	}
	name := fmt.Sprintf("%s%d_%s", srv.prefix(), dbSerial.Add(1), randomHex(4))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := srv.createDatabase(ctx, name, template); err != nil {
		tb.Fatalf("storetest: create database %s on %s: %v", name, srv.how, err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := srv.dropDatabase(ctx, name); err != nil {
			tb.Logf("storetest: drop database %s on %s: %v", name, srv.how, err)
		}
	})
	return srv.databaseURL(name)
}

// prefix starts the name of every database this process makes.
func (srv *pgServer) prefix() string { return fmt.Sprintf("docsd_test_%d_", os.Getpid()) }

// databaseURL is the server's URL with the database name replaced.
func (srv *pgServer) databaseURL(name string) string {
	u := *srv.url
	u.Path = "/" + name
	u.RawPath = ""
	return u.String()
}

// migratedTemplate returns the name of this process's migrated template
// database, making it on first use. It lives until the process exits: on a
// throwaway cluster it goes with the cluster, elsewhere the reaper drops it.
func (srv *pgServer) migratedTemplate() (string, error) {
	srv.templateOnce.Do(func() {
		if srv.noTemplate != nil {
			srv.templateErr = srv.noTemplate
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		name := srv.prefix() + "template"
		if err := srv.createDatabase(ctx, name, "template0"); err != nil {
			srv.templateErr = err
			return
		}
		s, err := store.Open(ctx, srv.databaseURL(name))
		if err != nil {
			srv.templateErr = err
			return
		}
		// CREATE DATABASE … TEMPLATE needs nobody connected to the template,
		// and closed connections' backends end a little later.
		if err := s.Close(); err != nil {
			srv.templateErr = err
			return
		}
		for {
			var n int
			err := srv.admin.QueryRowContext(ctx, `SELECT COUNT(*) FROM pg_stat_activity WHERE datname = $1`, name).Scan(&n)
			if err != nil {
				srv.templateErr = err
				return
			}
			if n == 0 {
				break
			}
			select {
			case <-ctx.Done():
				srv.templateErr = fmt.Errorf("%d sessions still on %s: %w", n, name, ctx.Err())
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
		srv.template = name
	})
	return srv.template, srv.templateErr
}

// createDatabase makes a database as a copy of template. A copy of template0
// gets an ICU en-US default collation where the server has one; copies of
// other templates inherit theirs. Nobody may be connected to the template,
// which is why template0 (which takes no connections) is the base.
func (srv *pgServer) createDatabase(ctx context.Context, name, template string) error {
	ident := pq.QuoteIdentifier(name)
	create := `CREATE DATABASE ` + ident + ` TEMPLATE ` + pq.QuoteIdentifier(template)
	if template == "template0" && !srv.noICU.Load() {
		if _, err := srv.admin.ExecContext(ctx, create+` LOCALE_PROVIDER icu ICU_LOCALE 'en-US'`); err == nil {
			return srv.tune(ctx, ident)
		}
		srv.noICU.Store(true)
	}
	for attempt := 1; ; attempt++ {
		_, err := srv.admin.ExecContext(ctx, create)
		// 55006: someone is still connected to the template; PostgreSQL
		// waits 5 s for them, which a loaded machine may exceed.
		var pqErr *pq.Error
		if errors.As(err, &pqErr) && pqErr.Code == "55006" && attempt < 5 {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		if err != nil {
			return err
		}
		return srv.tune(ctx, ident)
	}
}

// tune makes sessions of a test database commit without waiting for the
// WAL flush: several times faster on a server with fsync on, and a test
// database needs no durability.
func (srv *pgServer) tune(ctx context.Context, ident string) error {
	_, err := srv.admin.ExecContext(ctx, `ALTER DATABASE `+ident+` SET synchronous_commit = off`)
	return err
}

// dropDatabase removes a test database, ending its sessions first.
func (srv *pgServer) dropDatabase(ctx context.Context, name string) error {
	ident := pq.QuoteIdentifier(name)
	_, err := srv.admin.ExecContext(ctx, `DROP DATABASE IF EXISTS `+ident+` WITH (FORCE)`)
	if err == nil {
		return nil
	}
	// Before PostgreSQL 13 there is no FORCE.
	if _, err := srv.admin.ExecContext(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE datname = $1 AND pid <> pg_backend_pid()`, name); err != nil {
		return err
	}
	_, err = srv.admin.ExecContext(ctx, `DROP DATABASE IF EXISTS `+ident)
	return err
}

// startThrowaway creates and starts a private PostgreSQL cluster for this
// process, with a watchdog that stops and removes it when the process exits.
func startThrowaway() (*pgServer, error) {
	bin, err := postgresBinDir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "docsd-pg-")
	if err != nil {
		return nil, err
	}
	// PostgreSQL refuses to run as root: run its tools as the postgres user.
	asUser := func(name string, args ...string) *exec.Cmd {
		return exec.Command(filepath.Join(bin, name), args...)
	}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("running as root and there is no postgres user: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		runuser, err := exec.LookPath("runuser")
		if err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("running as root and runuser is missing: %w", err)
		}
		asUser = func(name string, args ...string) *exec.Cmd {
			return exec.Command(runuser, append([]string{"-u", "postgres", "--", filepath.Join(bin, name)}, args...)...)
		}
	}
	data := filepath.Join(dir, "data")
	stop := asUser("pg_ctl", "-D", data, "stop", "-m", "immediate", "-w")
	if err := startWatchdog(dir, stop.Args); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("watchdog: %w", err)
	}
	if out, err := asUser("initdb", "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "-N").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("initdb: %v: %s", err, lastLines(out, 10))
	}
	// Settings for a disposable, fast server reachable only from here.
	conf := fmt.Sprintf("\n# storetest\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '%s'\n"+
		"fsync = off\nsynchronous_commit = off\nfull_page_writes = off\nmax_connections = 300\n", dir)
	f, err := os.OpenFile(filepath.Join(data, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return nil, err
	}
	_, err = f.WriteString(conf)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	logFile := filepath.Join(dir, "server.log")
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ { // a free port may be taken before the server binds it
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		out, err := asUser("pg_ctl", "-D", data, "-l", logFile, "-w", "-t", "60", "-o", "-p "+strconv.Itoa(port), "start").CombinedOutput()
		if err != nil {
			log, _ := os.ReadFile(logFile)
			lastErr = fmt.Errorf("pg_ctl start: %v: %s%s", err, lastLines(out, 5), lastLines(log, 10))
			continue
		}
		srv, err := connectPostgres(fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port), 30*time.Second)
		if err != nil {
			return nil, err
		}
		srv.how = fmt.Sprintf("throwaway cluster %s on port %d", data, port)
		srv.dir = dir
		return srv, nil
	}
	return nil, lastErr
}

// startWatchdog starts a process that waits for this one to exit (its stdin
// reaches EOF), then runs stop and removes dir. It runs in its own session so
// that a Ctrl-C of the tests does not kill it before it has cleaned up, and
// its output goes nowhere so that `go test` does not wait for it.
func startWatchdog(dir string, stop []string) error {
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	script := `cat >/dev/null; dir=$1; shift; "$@" >/dev/null 2>&1; rm -rf "$dir"`
	cmd := exec.Command("/bin/sh", append([]string{"-c", script, "sh", dir}, stop...)...)
	cmd.Stdin = r
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		w.Close()
		return err
	}
	go cmd.Wait() // reap it should it end early
	watchdogPipe = w
	return nil
}

// postgresBinDir finds the directory holding initdb and pg_ctl: the newest
// /usr/lib/postgresql/<version>/bin, else the directory of initdb on PATH.
func postgresBinDir() (string, error) {
	has := func(dir string) bool {
		for _, tool := range []string{"initdb", "pg_ctl"} {
			if fi, err := os.Stat(filepath.Join(dir, tool)); err != nil || fi.IsDir() {
				return false
			}
		}
		return true
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	version := func(dir string) float64 {
		v, _ := strconv.ParseFloat(filepath.Base(filepath.Dir(dir)), 64)
		return v
	}
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if has(d) {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil && has(filepath.Dir(p)) {
		return filepath.Dir(p), nil
	}
	return "", errors.New("initdb and pg_ctl not found under /usr/lib/postgresql/*/bin or on PATH")
}

// freePort returns a TCP port of 127.0.0.1 that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// lastLines returns the last n lines of out, for error messages.
func lastLines(out []byte, n int) string {
	lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}

// redact hides a URL's password in messages.
func redact(u *url.URL) string { return u.Redacted() }
