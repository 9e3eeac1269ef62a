// Package floor is the "floor" of the REST benchmarks: a minimal HTTP
// server that answers four REST requests with the same JSON bytes as docsd,
// by running the data's SQL directly (database/sql, no GraphQL, no store,
// 2–4 statements per request) and encoding Go structs whose fields are
// already in REST's key order. It shows the limit of any design, so that
// docsd's throughput can be stated as a ratio of it.
//
// It answers only:
//
//	GET /api/v3/projects/<p>/?expand=active_versions,active_versions.last_build,active_versions.last_build.config
//	GET /api/v3/projects/?limit=N
//	GET /api/v3/projects/<p>/builds/?limit=N
//	GET /api/v2/build/?project__slug=<p>&limit=N
//
// and only for data shaped like package benchdata's: projects that are
// neither subprojects nor translations, default_version `latest`, no
// `stable` version, no version aliases. Data it does not handle is answered
// with 501, never with different bytes. Anything else is 404.
package floor

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"docsd/graph/scalar"
	"docsd/internal/docsurl"
	"docsd/store"
)

// Server answers the floor's requests from db.
type Server struct {
	db      *sql.DB
	urls    docsurl.Config
	q       queries
	maxPage int
}

// New returns the floor over db, a database of dialect d, writing URLs as
// docsd configured with urls does, with docsd's page size bound of 100.
func New(db *sql.DB, d store.Dialect, urls docsurl.Config) *Server {
	return &Server{db: db, urls: urls, q: queriesFor(d), maxPage: 100}
}

// errUnsupported marks data the floor does not render.
var errUnsupported = errors.New("floor: data outside the floor's shape")

// errNotFound is a 404.
var errNotFound = errors.New("floor: not found")

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		http.Error(w, "floor: GET only", http.StatusMethodNotAllowed)
		return
	}
	path, query := r.URL.Path, r.URL.Query()
	var body any
	var err error
	switch {
	case path == "/api/v3/projects/":
		body, err = s.projectList(r.Context(), r, query)
	case path == "/api/v2/build/":
		body, err = s.v2BuildList(r.Context(), r, query)
	case strings.HasPrefix(path, "/api/v3/projects/"):
		rest := strings.TrimPrefix(path, "/api/v3/projects/")
		slug, tail, _ := strings.Cut(rest, "/")
		switch tail {
		case "":
			body, err = s.projectDetail(r.Context(), r, slug, query)
		case "builds/":
			body, err = s.buildList(r.Context(), r, slug, query)
		default:
			err = errNotFound
		}
	default:
		err = errNotFound
	}
	switch {
	case errors.Is(err, errNotFound):
		writeJSON(w, http.StatusNotFound, map[string]string{"detail": "Not found."})
	case errors.Is(err, errUnauthenticated):
		writeJSON(w, http.StatusUnauthorized, map[string]string{"detail": "Authentication credentials were not provided."})
	case errors.Is(err, errUnsupported):
		http.Error(w, err.Error(), http.StatusNotImplemented)
	case err != nil:
		http.Error(w, err.Error(), http.StatusInternalServerError)
	default:
		writeJSON(w, http.StatusOK, body)
	}
}

// writeJSON writes v compactly without HTML escaping, as docsd does.
func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(bytes.TrimRight(buf.Bytes(), "\n"))
}

// The SQL, written once with ? and rebound for PostgreSQL.
type queries struct {
	user, projectPage, projectBySlug, maintainers, activeVersions, buildPage, v2BuildPage, commands string
	codepoint                                                                                       string
}

const projectCols = `p.id, p.name, p.slug, p.language, p.programming_language, p.repo, p.repo_type, p.homepage,
	p.default_version, p.default_branch, p.detected_default_branch, p.versioning_scheme, p.privacy_level,
	p.external_builds_privacy_level, p.tags, p.readthedocs_yaml_path, p.translation_of, p.created, p.modified,
	(SELECT COUNT(*) FROM project_relationships r WHERE r.child_id = p.id)`

const buildCols = `b.id, b.type, b.state, b.created, b.finished_at, b.success, b.error, b.exit_code, b.commit_hash, b.length,
	b.config, b.readthedocs_yaml_path, b.version_name, b.version_type, v.id, v.slug, v.verbose_name, v.type`

func queriesFor(d store.Dialect) queries {
	codepoint := ""
	if d == store.Postgres {
		codepoint = ` COLLATE "C"`
	}
	q := queries{
		user: `SELECT u.id FROM tokens t JOIN users u ON u.id = t.user_id WHERE t.hash = ? AND u.is_active`,
		projectPage: `SELECT ` + projectCols + `, COUNT(*) OVER () FROM projects p
			WHERE p.id IN (SELECT project_id FROM project_users WHERE user_id = ?)
			ORDER BY p.slug` + codepoint + ` LIMIT ? OFFSET ?`,
		projectBySlug: `SELECT ` + projectCols + `, EXISTS (SELECT 1 FROM project_users m WHERE m.project_id = p.id AND m.user_id = ?)
			FROM projects p WHERE p.slug = ?`,
		maintainers: `SELECT m.project_id, u.username FROM project_users m JOIN users u ON u.id = m.user_id
			WHERE m.project_id IN (%s) ORDER BY m.id`,
		activeVersions: `SELECT v.id, v.slug, v.verbose_name, v.identifier, v.type, v.active, v.built, v.machine, v.privacy_level,
			v.has_pdf, v.has_epub, v.has_htmlzip, v.hidden,
			b.id, b.type, b.state, b.created, b.finished_at, b.success, b.error, b.exit_code, b.commit_hash, b.length, b.config
			FROM versions v LEFT JOIN builds b ON b.id = (SELECT b2.id FROM builds b2 WHERE b2.version_id = v.id ORDER BY b2.created DESC, b2.id DESC LIMIT 1)
			WHERE v.project_id = ? AND v.active AND v.built AND v.privacy_level = 'public' AND v.type <> 'external'
			ORDER BY v.verbose_name` + codepoint + ` DESC, v.id`,
		buildPage: `SELECT ` + buildCols + `, COUNT(*) OVER () FROM builds b JOIN versions v ON v.id = b.version_id
			WHERE b.project_id = ? ORDER BY b.created DESC, b.id DESC LIMIT ? OFFSET ?`,
		v2BuildPage: `SELECT ` + buildCols + `, p.id, p.slug, p.language, p.repo, p.versioning_scheme, p.translation_of,
			(SELECT COUNT(*) FROM project_relationships r WHERE r.child_id = p.id), COUNT(*) OVER ()
			FROM builds b JOIN versions v ON v.id = b.version_id JOIN projects p ON p.id = b.project_id
			WHERE p.slug = ? AND p.privacy_level = 'public'
			AND (CASE WHEN v.type = 'external' THEN p.external_builds_privacy_level ELSE v.privacy_level END) = 'public'
			ORDER BY b.created DESC, b.id DESC LIMIT ? OFFSET ?`,
		commands: `SELECT id, build_id, command, description, output, exit_code, start_time, end_time
			FROM build_commands WHERE build_id IN (%s) ORDER BY start_time, id`,
	}
	if d == store.Postgres {
		for _, p := range []*string{&q.user, &q.projectPage, &q.projectBySlug, &q.activeVersions, &q.buildPage, &q.v2BuildPage} {
			*p = rebind(*p)
		}
	}
	return q
}

// rebind turns ? into $1, $2, … (none of the queries has ? in a literal).
func rebind(q string) string {
	var b strings.Builder
	n := 0
	for _, c := range q {
		if c == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

// idList is a literal list of ids for IN (%s).
func idList(ids []int64) string {
	var b strings.Builder
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(id, 10))
	}
	return b.String()
}

var errUnauthenticated = errors.New("floor: no credentials")

// viewer returns the id of the user whose `Token` the request carries.
func (s *Server) viewer(ctx context.Context, r *http.Request) (int64, error) {
	key, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Token ")
	if !ok {
		return 0, errUnauthenticated
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(key)))
	var id int64
	err := s.db.QueryRowContext(ctx, s.q.user, hex.EncodeToString(sum[:])).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, errUnauthenticated
	}
	return id, err
}

// page is a list request's limit and offset, as docsd reads them.
type page struct{ limit, offset int }

func (s *Server) pageOf(q url.Values) page {
	p := page{limit: 10}
	last := func(name string) (int, bool) {
		vs := q[name]
		if len(vs) == 0 {
			return 0, false
		}
		n, err := strconv.Atoi(vs[len(vs)-1])
		return n, err == nil && n > 0
	}
	if n, ok := last("limit"); ok {
		p.limit = min(n, s.maxPage)
	}
	if n, ok := last("offset"); ok {
		p.offset = n
	}
	return p
}

// links returns a list's next and previous: the query with limit and
// offset set, sorted by name, after base.
func (p page) links(base string, q url.Values, count int) (next, previous *string) {
	link := func(offset int) *string {
		vals := url.Values{}
		for k, v := range q {
			vals[k] = v
		}
		vals.Set("limit", strconv.Itoa(p.limit))
		if offset > 0 {
			vals.Set("offset", strconv.Itoa(offset))
		} else {
			vals.Del("offset")
		}
		u := base + "?" + vals.Encode()
		return &u
	}
	if p.offset < count-p.limit {
		next = link(p.offset + p.limit)
	}
	if p.offset > 0 {
		previous = link(max(p.offset-p.limit, 0))
	}
	return next, previous
}

// envelope is a REST list.
type envelope[T any] struct {
	Count    int     `json:"count"`
	Next     *string `json:"next"`
	Previous *string `json:"previous"`
	Results  []T     `json:"results"`
}

// project is a projects row.
type project struct {
	id                                                         int64
	name, slug, language, progLang, repo, repoType, home       string
	defaultVersion, scheme, privacy, externalPrivacy, tagsJSON string
	defaultBranch, detectedBranch, yamlPath                    *string
	translationOf                                              *int64
	created, modified                                          time.Time
	parents                                                    int
}

func (p *project) dest() []any {
	return []any{&p.id, &p.name, &p.slug, &p.language, &p.progLang, &p.repo, &p.repoType, &p.home,
		&p.defaultVersion, &p.defaultBranch, &p.detectedBranch, &p.scheme, &p.privacy,
		&p.externalPrivacy, &p.tagsJSON, &p.yamlPath, &p.translationOf, &p.created, &p.modified, &p.parents}
}

// check refuses a project outside the floor's shape.
func (p *project) check() error {
	if p.translationOf != nil || p.parents > 0 || p.defaultVersion != "latest" {
		return errUnsupported
	}
	return nil
}

func (p *project) target() docsurl.Target {
	return docsurl.Target{Slug: p.slug, Language: p.language, Scheme: p.scheme}
}

func (p *project) branch() string {
	switch {
	case p.defaultBranch != nil && *p.defaultBranch != "":
		return *p.defaultBranch
	case p.detectedBranch != nil && *p.detectedBranch != "":
		return *p.detectedBranch
	}
	return store.VCSFallbackBranch(p.repoType)
}

// Time formats: v3 writes the graph's form, v2 the same without `Z`.
func v3Time(t time.Time) string { return scalar.FormatTime(t) }

func v2Time(t time.Time) string { return strings.TrimSuffix(scalar.FormatTime(t), "Z") }

func v3TimePtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := v3Time(*t)
	return &s
}

// nullIfEmpty is the graph's null for an empty stored string.
func nullIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// sortedJSON re-encodes stored JSON with its keys sorted at every level and
// its numbers in their stored form, as docsd renders build configs.
func sortedJSON(raw string) (json.RawMessage, error) {
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// repoHosts finds the host, owner and name of a repository URL, as docsd
// does for v2's commit_url; only github.com and gitlab.com are in the
// floor's shape.
var repoHosts = regexp.MustCompile(`(github\.com|gitlab\.com|bitbucket\.org)[/:]([^/]+)/([^/]+?)(?:\.git)?/?$`)
