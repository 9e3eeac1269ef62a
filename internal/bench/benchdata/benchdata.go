// Package benchdata fills an empty, migrated docsd database with the data
// the REST benchmarks measure: users, projects, versions, builds and build
// commands at a given scale, written with plain multi-row INSERTs in one
// transaction (fast), deterministic for a given scale (same ids, names,
// times and API key every time).
//
// The shape is what the floor server (package floor) can answer: no
// subprojects or translations, no `stable` version, default_version
// `latest`, repositories on github.com. The measured project, Project
// (slug project-00001), is maintained by the user `bench` (key Key), has
// at least 150 builds, and `bench` maintains at least 100 projects, so that
// every `limit=100` request of the benchmark returns 100 objects.
package benchdata

import (
	"context"
	"crypto/sha1"
	"database/sql"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	_ "github.com/lib/pq"  // driver "postgres"
	_ "modernc.org/sqlite" // driver "sqlite"

	"docsd/store"
)

// Scale is how much data to generate.
type Scale struct {
	Projects, Versions, Builds int
	// CommandsPerBuild is how many build commands each finished build has.
	CommandsPerBuild int
}

// Small and Large are the two scales the REST benchmarks measure.
var (
	Small = Scale{Projects: 1_000, Versions: 10_000, Builds: 10_000, CommandsPerBuild: 2}
	Large = Scale{Projects: 10_000, Versions: 100_000, Builds: 1_000_000, CommandsPerBuild: 2}
)

// ScaleByName returns Small for "small", Large for "large".
func ScaleByName(name string) (Scale, bool) {
	switch name {
	case "small":
		return Small, true
	case "large":
		return Large, true
	}
	return Scale{}, false
}

// Fixed facts of the generated data.
const (
	// Project is the slug of the measured project.
	Project = "project-00001"
	// User is the username of the measured caller; Key is its API key.
	User = "bench"
	Key  = "b3e7c0a1d2f4e5b6c7d8e9f0a1b2c3d4e5f60718"
	// MeasuredBuilds is the least number of builds Project has.
	MeasuredBuilds = 150
	// MaintainedProjects is how many projects User maintains.
	MaintainedProjects = 100
)

// Start is the time of the first generated row.
var Start = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// Config is the stored configuration of a finished build: keys out of
// order, so that v3's sorting is measured.
const Config = `{"version": 2, "formats": ["pdf", "epub"], "build": {"tools": {"python": "3.12"}, "os": "ubuntu-24.04"}, "sphinx": {"configuration": "docs/conf.py", "fail_on_warning": false}, "python": {"install": [{"requirements": "docs/requirements.txt"}]}}`

// DSN returns the database/sql driver name and data source name of the
// database at databaseURL (as store.Open takes it), with the connection
// settings docsd uses, so that times are written and read in docsd's form.
func DSN(databaseURL string) (driver, dsn string, d store.Dialect, err error) {
	driver, dsn, _, d, err = store.DSN(databaseURL)
	return driver, dsn, d, err
}

// Open opens a database/sql handle on the database at databaseURL, as DSN
// describes it.
func Open(databaseURL string) (*sql.DB, store.Dialect, error) {
	driver, dsn, d, err := DSN(databaseURL)
	if err != nil {
		return nil, "", err
	}
	db, err := sql.Open(driver, dsn)
	return db, d, err
}

// Generate migrates the empty database at databaseURL and fills it at
// scale sc.
func Generate(ctx context.Context, databaseURL string, sc Scale) error {
	s, err := store.Open(ctx, databaseURL)
	if err != nil {
		return err
	}
	if err := s.Close(); err != nil {
		return err
	}
	db, d, err := Open(databaseURL)
	if err != nil {
		return err
	}
	defer db.Close()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	g := &gen{ctx: ctx, tx: tx, d: d, sc: sc}
	if err := g.all(); err != nil {
		return err
	}
	if d == store.Postgres {
		for _, t := range []string{"users", "tokens", "projects", "project_users", "versions", "builds", "build_commands"} {
			if _, err := tx.ExecContext(ctx, `SELECT setval(pg_get_serial_sequence('`+t+`', 'id'), (SELECT COALESCE(MAX(id), 0) + 1 FROM `+t+`), false)`); err != nil {
				return fmt.Errorf("benchdata: sequence of %s: %w", t, err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	_, err = db.ExecContext(ctx, `ANALYZE`)
	return err
}

// gen writes the rows of one Generate.
type gen struct {
	ctx context.Context
	tx  *sql.Tx
	d   store.Dialect
	sc  Scale
}

// batch collects the rows of one table and inserts them many at a time.
type batch struct {
	g     *gen
	head  string // INSERT INTO t (cols) VALUES
	width int
	rows  int
	args  []any
	// parents are flushed before this batch: its rows refer to theirs.
	parents []*batch
}

func (g *gen) batch(table, cols string) *batch {
	return &batch{g: g, head: "INSERT INTO " + table + " (" + cols + ") VALUES ", width: strings.Count(cols, ",") + 1}
}

func (b *batch) add(args ...any) error {
	if len(args) != b.width {
		return fmt.Errorf("benchdata: %s: %d values for %d columns", b.head, len(args), b.width)
	}
	b.args = append(b.args, args...)
	b.rows++
	if len(b.args)+b.width > 30000 {
		return b.flush()
	}
	return nil
}

func (b *batch) flush() error {
	if b.rows == 0 {
		return nil
	}
	for _, p := range b.parents {
		if err := p.flush(); err != nil {
			return err
		}
	}
	var q strings.Builder
	q.WriteString(b.head)
	n := 0
	for r := 0; r < b.rows; r++ {
		if r > 0 {
			q.WriteString(", ")
		}
		q.WriteByte('(')
		for c := 0; c < b.width; c++ {
			if c > 0 {
				q.WriteString(", ")
			}
			n++
			if b.g.d == store.Postgres {
				q.WriteString("$" + strconv.Itoa(n))
			} else {
				q.WriteByte('?')
			}
		}
		q.WriteByte(')')
	}
	if _, err := b.g.tx.ExecContext(b.g.ctx, q.String(), b.args...); err != nil {
		return fmt.Errorf("benchdata: %s…: %w", b.head, err)
	}
	b.args, b.rows = b.args[:0], 0
	return nil
}

// hash is a deterministic 40-hex-digit commit or identifier.
func hash(parts ...any) string {
	sum := sha1.Sum([]byte(fmt.Sprint(parts...)))
	return hex.EncodeToString(sum[:])
}

// version is what builds need to know of a generated version.
type version struct {
	id        int64
	name, typ string
	active    bool
}

func (g *gen) all() error {
	sc := g.sc
	at := func(d time.Duration) time.Time { return Start.Add(d) }

	// Users: bench (1) and one per ten projects.
	users := g.batch("users", "id, username, email, is_active, is_superuser, created")
	if err := users.add(int64(1), User, User+"@example.com", true, false, at(0)); err != nil {
		return err
	}
	others := max(sc.Projects/10, 1)
	for i := 1; i <= others; i++ {
		if err := users.add(int64(i+1), fmt.Sprintf("user%05d", i), fmt.Sprintf("user%05d@example.com", i), true, false, at(time.Duration(i)*time.Second)); err != nil {
			return err
		}
	}
	if err := users.flush(); err != nil {
		return err
	}
	tokens := g.batch("tokens", "id, user_id, hash, prefix, created")
	if err := tokens.add(int64(1), int64(1), store.HashToken(Key), Key[:4], at(0)); err != nil {
		return err
	}
	if err := tokens.flush(); err != nil {
		return err
	}

	// Projects, their maintainers and versions.
	projects := g.batch("projects", "id, name, slug, language, programming_language, repo, repo_type, homepage, default_version, default_branch, tags, created, modified")
	maint := g.batch("project_users", "id, project_id, user_id")
	versions := g.batch("versions", "id, project_id, slug, verbose_name, identifier, type, active, built, machine, privacy_level, has_pdf, has_epub, has_htmlzip, hidden, created")
	maint.parents = []*batch{projects}
	versions.parents = []*batch{projects}
	perProject := max(sc.Versions/sc.Projects, 1)
	var vid, mid int64
	projectVersions := make([][]version, sc.Projects+1)
	for i := 1; i <= sc.Projects; i++ {
		slug := fmt.Sprintf("project-%05d", i)
		created := at(time.Duration(i) * time.Minute)
		lang, homepage := "en", ""
		if i%7 == 3 {
			lang = "es"
		}
		if i%2 == 0 {
			homepage = "https://example.com/" + slug
		}
		var branch any // NULL: the git fallback, master
		defaultBranch := "master"
		if i%3 == 0 {
			branch, defaultBranch = "main", "main"
		}
		tags := fmt.Sprintf(`["docs", "group-%d"]`, i%5)
		if err := projects.add(int64(i), fmt.Sprintf("Project %d", i), slug, lang, "py",
			"https://github.com/bench/"+slug, "git", homepage, "latest", branch, tags, created, created); err != nil {
			return err
		}
		owner := int64(2 + i%others)
		if i <= MaintainedProjects {
			owner = 1
		}
		mid++
		if err := maint.add(mid, int64(i), owner); err != nil {
			return err
		}
		if i == 1 { // a second maintainer, so that users lists two
			mid++
			if err := maint.add(mid, int64(i), int64(2)); err != nil {
				return err
			}
		}
		for k := 0; k < perProject; k++ {
			vid++
			v := version{id: vid, name: "latest", typ: "branch", active: true}
			slugV, ident, machine := "latest", defaultBranch, true
			built, privacy, pdf, epub, zip, hidden := true, "public", false, false, false, false
			if k > 0 {
				slugV = fmt.Sprintf("v%d.0", k)
				v = version{id: vid, name: slugV, typ: "tag", active: k <= 6}
				ident, machine = hash("version", i, k), false
				built, pdf, epub, zip, hidden = k%4 != 3, k%2 == 0, k%3 == 0, k%2 == 1, k == 4
				if k == 5 {
					privacy = "private"
				}
			}
			if err := versions.add(vid, int64(i), slugV, v.name, ident, v.typ, v.active, built, machine, privacy,
				pdf, epub, zip, hidden, created.Add(time.Duration(k)*time.Second)); err != nil {
				return err
			}
			projectVersions[i] = append(projectVersions[i], v)
		}
	}
	for _, b := range []*batch{projects, maint, versions} {
		if err := b.flush(); err != nil {
			return err
		}
	}

	// Builds, newest last, and their commands.
	builds := g.batch("builds", "id, project_id, version_id, type, state, created, started, finished_at, success, error, exit_code, commit_hash, length, config, version_name, version_type")
	commands := g.batch("build_commands", "id, build_id, command, description, output, exit_code, start_time, end_time")
	commands.parents = []*batch{builds}
	perProjectBuilds := max(sc.Builds/sc.Projects, 1)
	var bid, cid int64
	for i := 1; i <= sc.Projects; i++ {
		n := perProjectBuilds
		if i == 1 {
			n = max(n, MeasuredBuilds)
		}
		for j := 0; j < n; j++ {
			bid++
			v := projectVersions[i][j%len(projectVersions[i])]
			created := at(time.Duration(i)*time.Minute + time.Duration(j)*time.Second + 500*time.Millisecond)
			var started, finished, exit, commit, length any
			state, success, errText, config := "finished", true, "", "{}"
			// No build is left in a running state: docsd's start would
			// sweep it (no lease), changing the data under the benchmark.
			switch j % 10 {
			case 8, 9:
				state = "triggered"
			default:
				started, commit, config = created.Add(2*time.Second), hash("commit", i, j), Config
				finished = created.Add(time.Duration(30+j%90) * time.Second)
				length, exit = int64(28+j%90), int64(0)
				if j%5 == 1 {
					success, errText, exit = false, "Command exited with 1.", int64(1)
				}
			}
			if err := builds.add(bid, int64(i), v.id, "html", state, created, started, finished, success, errText,
				exit, commit, length, config, v.name, v.typ); err != nil {
				return err
			}
			if state != "finished" {
				continue
			}
			for c := 0; c < g.sc.CommandsPerBuild; c++ {
				cid++
				start := created.Add(time.Duration(3+c) * time.Second)
				if err := commands.add(cid, bid, fmt.Sprintf("git clone --depth 1 https://github.com/bench/project-%05d .", i),
					"", fmt.Sprintf("step %d of build %d done\n", c, bid), int64(0), start, start.Add(time.Second)); err != nil {
					return err
				}
			}
		}
	}
	for _, b := range []*batch{builds, commands} {
		if err := b.flush(); err != nil {
			return err
		}
	}
	return nil
}
