package floor

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"docsd/internal/choices"
)

// The v3 representations, fields in REST's (sorted) key order.

type v3Choice struct {
	Code string `json:"code"`
	Name string `json:"name"`
}

type v3ProjectLinks struct {
	Self                 string `json:"_self"`
	Builds               string `json:"builds"`
	EnvironmentVariables string `json:"environmentvariables"`
	Notifications        string `json:"notifications"`
	Redirects            string `json:"redirects"`
	Subprojects          string `json:"subprojects"`
	Superproject         string `json:"superproject"`
	SyncVersions         string `json:"sync_versions"`
	Translations         string `json:"translations"`
	Versions             string `json:"versions"`
}

type v3Repository struct {
	Type string `json:"type"`
	URL  string `json:"url"`
}

type v3ProjectURLs struct {
	Builds        string  `json:"builds"`
	Documentation string  `json:"documentation"`
	Downloads     *string `json:"downloads"`
	Home          string  `json:"home"`
	Versions      string  `json:"versions"`
}

type v3User struct {
	Username string `json:"username"`
}

type v3Project struct {
	Links                      v3ProjectLinks        `json:"_links"`
	ActiveVersions             map[string]*v3Version `json:"active_versions,omitempty"`
	Created                    string                `json:"created"`
	DefaultBranch              string                `json:"default_branch"`
	DefaultVersion             string                `json:"default_version"`
	ExternalBuildsPrivacyLevel string                `json:"external_builds_privacy_level"`
	Homepage                   *string               `json:"homepage"`
	ID                         int64                 `json:"id"`
	Language                   v3Choice              `json:"language"`
	Modified                   string                `json:"modified"`
	Name                       string                `json:"name"`
	PrivacyLevel               string                `json:"privacy_level"`
	ProgrammingLanguage        v3Choice              `json:"programming_language"`
	ReadthedocsYamlPath        *string               `json:"readthedocs_yaml_path"`
	Repository                 v3Repository          `json:"repository"`
	SingleVersion              bool                  `json:"single_version"`
	Slug                       string                `json:"slug"`
	SubprojectOf               *struct{}             `json:"subproject_of"`
	Tags                       []string              `json:"tags"`
	TranslationOf              *struct{}             `json:"translation_of"`
	URLs                       v3ProjectURLs         `json:"urls"`
	Users                      []v3User              `json:"users"`
	VersioningScheme           string                `json:"versioning_scheme"`
}

type v3VersionLinks struct {
	Self    string `json:"_self"`
	Builds  string `json:"builds"`
	Project string `json:"project"`
}

type v3Downloads struct {
	EPUB    string `json:"epub,omitempty"`
	HTMLZip string `json:"htmlzip,omitempty"`
	PDF     string `json:"pdf,omitempty"`
}

type v3VersionURLs struct {
	Dashboard struct {
		Edit string `json:"edit"`
	} `json:"dashboard"`
	Documentation string `json:"documentation"`
	VCS           string `json:"vcs"`
}

type v3Version struct {
	Links        v3VersionLinks `json:"_links"`
	Active       bool           `json:"active"`
	Aliases      []struct{}     `json:"aliases"`
	Built        bool           `json:"built"`
	Downloads    v3Downloads    `json:"downloads"`
	Hidden       bool           `json:"hidden"`
	ID           int64          `json:"id"`
	Identifier   string         `json:"identifier"`
	LastBuild    *v3Build       `json:"last_build"`
	PrivacyLevel string         `json:"privacy_level"`
	Ref          *string        `json:"ref"`
	Slug         string         `json:"slug"`
	Type         string         `json:"type"`
	URLs         v3VersionURLs  `json:"urls"`
	VerboseName  string         `json:"verbose_name"`
}

type v3BuildLinks struct {
	Self          string `json:"_self"`
	Notifications string `json:"notifications"`
	Project       string `json:"project"`
	Version       string `json:"version"`
}

type v3BuildURLs struct {
	Build   string `json:"build"`
	Project string `json:"project"`
	Version string `json:"version"`
}

type v3Build struct {
	Links    v3BuildLinks    `json:"_links"`
	Commit   *string         `json:"commit"`
	Config   json.RawMessage `json:"config,omitempty"`
	Created  string          `json:"created"`
	Duration *int64          `json:"duration"`
	Error    *string         `json:"error"`
	Finished *string         `json:"finished"`
	ID       int64           `json:"id"`
	Project  string          `json:"project"`
	State    v3Choice        `json:"state"`
	Success  *bool           `json:"success"`
	URLs     v3BuildURLs     `json:"urls"`
	Version  string          `json:"version"`
}

// build is a builds row with its version.
type build struct {
	id                                 int64
	typ, state                         string
	created                            time.Time
	finished                           *time.Time
	success                            bool
	errText                            string
	exitCode                           *int64
	commit                             *string
	length                             *int64
	config                             string
	yamlPath                           *string
	versionName, versionType           string
	versionID                          int64
	versionSlug, versionVerbose, vType string
}

func (b *build) dest() []any {
	return []any{&b.id, &b.typ, &b.state, &b.created, &b.finished, &b.success, &b.errText, &b.exitCode, &b.commit, &b.length,
		&b.config, &b.yamlPath, &b.versionName, &b.versionType, &b.versionID, &b.versionSlug, &b.versionVerbose, &b.vType}
}

// apiPath is a v3 _links path.
func apiPath(parts ...string) string {
	return "/api/v3/projects/" + strings.Join(parts, "/") + "/"
}

func (s *Server) v3Build(slug string, b *build, config bool) (*v3Build, error) {
	id := fmt.Sprint(b.id)
	out := &v3Build{
		Links: v3BuildLinks{Self: apiPath(slug, "builds", id), Notifications: apiPath(slug, "builds", id, "notifications"),
			Project: apiPath(slug), Version: apiPath(slug, "versions", b.versionSlug)},
		Commit: b.commit, Created: v3Time(b.created), Duration: b.length, Error: nullIfEmpty(b.errText),
		Finished: v3TimePtr(b.finished), ID: b.id, Project: slug,
		State: v3Choice{Code: b.state, Name: choices.BuildStates.Name(b.state)},
		URLs: v3BuildURLs{Build: s.urls.BuildPage(slug, b.id), Project: s.urls.ProjectHome(slug),
			Version: s.urls.VersionPage(slug, b.versionSlug)},
		Version: b.versionSlug,
	}
	if b.state == "finished" {
		out.Success = &b.success
	}
	if config {
		c, err := sortedJSON(b.config)
		if err != nil {
			return nil, err
		}
		out.Config = c
	}
	return out, nil
}

func (s *Server) v3Project(p *project, users []v3User) (*v3Project, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	var tags []string
	if err := json.Unmarshal([]byte(p.tagsJSON), &tags); err != nil {
		return nil, err
	}
	if tags == nil {
		tags = []string{}
	}
	if users == nil {
		users = []v3User{}
	}
	slug := p.slug
	return &v3Project{
		Links: v3ProjectLinks{Self: apiPath(slug), Builds: apiPath(slug, "builds"), EnvironmentVariables: apiPath(slug, "environmentvariables"),
			Notifications: apiPath(slug, "notifications"), Redirects: apiPath(slug, "redirects"), Subprojects: apiPath(slug, "subprojects"),
			Superproject: apiPath(slug, "superproject"), SyncVersions: apiPath(slug, "sync-versions"),
			Translations: apiPath(slug, "translations"), Versions: apiPath(slug, "versions")},
		Created: v3Time(p.created), DefaultBranch: p.branch(), DefaultVersion: p.defaultVersion,
		ExternalBuildsPrivacyLevel: p.externalPrivacy, Homepage: nullIfEmpty(p.home), ID: p.id,
		Language: v3Choice{Code: p.language, Name: choices.Languages.Name(p.language)}, Modified: v3Time(p.modified),
		Name: p.name, PrivacyLevel: p.privacy,
		ProgrammingLanguage: v3Choice{Code: p.progLang, Name: choices.ProgrammingLanguages.Name(p.progLang)},
		ReadthedocsYamlPath: p.yamlPath, Repository: v3Repository{Type: p.repoType, URL: p.repo},
		SingleVersion: choices.IsSingleVersion(p.scheme), Slug: slug, Tags: tags,
		URLs: v3ProjectURLs{Builds: s.urls.ProjectBuilds(slug), Documentation: s.urls.Docs(p.target(), "latest", ""),
			Home: s.urls.ProjectHome(slug), Versions: s.urls.ProjectVersions(slug)},
		Users: users, VersioningScheme: p.scheme,
	}, nil
}

// maintainers returns the usernames of the projects' maintainers.
func (s *Server) maintainers(ctx context.Context, ids []int64) (map[int64][]v3User, error) {
	out := map[int64][]v3User{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.db.QueryContext(ctx, fmt.Sprintf(s.q.maintainers, idList(ids)))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var u v3User
		if err := rows.Scan(&id, &u.Username); err != nil {
			return nil, err
		}
		out[id] = append(out[id], u)
	}
	return out, rows.Err()
}

// projectList answers GET /api/v3/projects/: the caller's projects.
func (s *Server) projectList(ctx context.Context, r *http.Request, q url.Values) (any, error) {
	viewer, err := s.viewer(ctx, r)
	if err != nil {
		return nil, err
	}
	pg := s.pageOf(q)
	rows, err := s.db.QueryContext(ctx, s.q.projectPage, viewer, pg.limit, pg.offset)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ps []*project
	count := 0
	for rows.Next() {
		p := &project{}
		if err := rows.Scan(append(p.dest(), &count)...); err != nil {
			return nil, err
		}
		ps = append(ps, p)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	if len(ps) == 0 && pg.offset > 0 {
		return nil, errUnsupported // the total of an empty page needs another statement
	}
	ids := make([]int64, len(ps))
	for i, p := range ps {
		ids[i] = p.id
	}
	users, err := s.maintainers(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := envelope[*v3Project]{Count: count, Results: make([]*v3Project, 0, len(ps))}
	for _, p := range ps {
		vp, err := s.v3Project(p, users[p.id])
		if err != nil {
			return nil, err
		}
		out.Results = append(out.Results, vp)
	}
	out.Next, out.Previous = pg.links(r.URL.EscapedPath(), q, count)
	return out, nil
}

// findProject reads the project {slug} the viewer can see, and whether the
// viewer maintains it.
func (s *Server) findProject(ctx context.Context, viewer int64, slug string) (*project, bool, error) {
	p := &project{}
	var maintainer bool
	err := s.db.QueryRowContext(ctx, s.q.projectBySlug, viewer, slug).Scan(append(p.dest(), &maintainer)...)
	switch {
	case err == sql.ErrNoRows:
		return nil, false, errNotFound
	case err != nil:
		return nil, false, err
	case p.privacy != "public" && !maintainer:
		return nil, false, errNotFound
	}
	return p, maintainer, nil
}

const fullExpand = "active_versions,active_versions.last_build,active_versions.last_build.config"

// projectDetail answers GET /api/v3/projects/<p>/?expand=… (the full
// expansion only).
func (s *Server) projectDetail(ctx context.Context, r *http.Request, slug string, q url.Values) (any, error) {
	if len(q) != 1 || q.Get("expand") != fullExpand {
		return nil, errUnsupported
	}
	viewer, err := s.viewer(ctx, r)
	if err != nil {
		return nil, err
	}
	p, _, err := s.findProject(ctx, viewer, slug)
	if err != nil {
		return nil, err
	}
	users, err := s.maintainers(ctx, []int64{p.id})
	if err != nil {
		return nil, err
	}
	out, err := s.v3Project(p, users[p.id])
	if err != nil {
		return nil, err
	}
	out.ActiveVersions, err = s.activeVersions(ctx, p)
	return out, err
}

// activeVersions reads the project's active, built, public, internal
// versions with their last builds, in one statement.
func (s *Server) activeVersions(ctx context.Context, p *project) (map[string]*v3Version, error) {
	rows, err := s.db.QueryContext(ctx, s.q.activeVersions, p.id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]*v3Version{}
	for rows.Next() {
		var v struct {
			id                                        int64
			slug, verbose, identifier, typ, privacy   string
			active, built, machine, pdf, epub, zip, h bool
		}
		var b struct {
			id                          *int64
			typ, state, errText, config *string
			created, finished           *time.Time
			success                     *bool
			exitCode, length            *int64
			commit                      *string
		}
		if err := rows.Scan(&v.id, &v.slug, &v.verbose, &v.identifier, &v.typ, &v.active, &v.built, &v.machine, &v.privacy,
			&v.pdf, &v.epub, &v.zip, &v.h,
			&b.id, &b.typ, &b.state, &b.created, &b.finished, &b.success, &b.errText, &b.exitCode, &b.commit, &b.length, &b.config); err != nil {
			return nil, err
		}
		if v.slug == "stable" || (v.machine && v.slug != "latest") {
			return nil, errUnsupported
		}
		t := p.target()
		ver := &v3Version{
			Links:  v3VersionLinks{Self: apiPath(p.slug, "versions", v.slug), Builds: apiPath(p.slug, "versions", v.slug, "builds"), Project: apiPath(p.slug)},
			Active: v.active, Aliases: []struct{}{}, Built: v.built, Hidden: v.h, ID: v.id, Identifier: v.identifier,
			PrivacyLevel: v.privacy, Slug: v.slug, Type: v.typ, VerboseName: v.verbose,
		}
		if v.pdf {
			ver.Downloads.PDF = s.urls.Download(t, v.slug, "pdf")
		}
		if v.zip {
			ver.Downloads.HTMLZip = s.urls.Download(t, v.slug, "htmlzip")
		}
		if v.epub {
			ver.Downloads.EPUB = s.urls.Download(t, v.slug, "epub")
		}
		ver.URLs.Dashboard.Edit = s.urls.VersionPage(p.slug, v.slug)
		ver.URLs.Documentation = s.urls.Docs(t, v.slug, "")
		ver.URLs.VCS, err = vcsURL(p, v.slug)
		if err != nil {
			return nil, err
		}
		if b.id != nil {
			lb := &build{id: *b.id, typ: *b.typ, state: *b.state, created: *b.created, finished: b.finished, success: *b.success,
				errText: *b.errText, exitCode: b.exitCode, commit: b.commit, length: b.length, config: *b.config, versionSlug: v.slug}
			if ver.LastBuild, err = s.v3Build(p.slug, lb, true); err != nil {
				return nil, err
			}
		}
		out[v.slug] = ver
	}
	return out, rows.Err()
}

// vcsURL is a version's urls.vcs for a github.com or gitlab.com repository.
func vcsURL(p *project, slug string) (string, error) {
	repo := strings.TrimSuffix(p.repo, ".git")
	if !strings.Contains(repo, "github") && !strings.Contains(repo, "gitlab") {
		return "", errUnsupported
	}
	if slug == "latest" {
		slug = p.branch()
	}
	return repo + "/tree/" + slug + "/", nil
}

// buildList answers GET /api/v3/projects/<p>/builds/: the caller must
// maintain <p>.
func (s *Server) buildList(ctx context.Context, r *http.Request, slug string, q url.Values) (any, error) {
	viewer, err := s.viewer(ctx, r)
	if err != nil {
		return nil, err
	}
	p, maintainer, err := s.findProject(ctx, viewer, slug)
	if err != nil {
		return nil, err
	}
	if !maintainer {
		return nil, errUnsupported // docsd answers 403
	}
	pg := s.pageOf(q)
	rows, err := s.db.QueryContext(ctx, s.q.buildPage, p.id, pg.limit, pg.offset)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := envelope[*v3Build]{Results: []*v3Build{}}
	for rows.Next() {
		var b build
		if err := rows.Scan(append(b.dest(), &out.Count)...); err != nil {
			return nil, err
		}
		vb, err := s.v3Build(p.slug, &b, false)
		if err != nil {
			return nil, err
		}
		out.Results = append(out.Results, vb)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(out.Results) == 0 && pg.offset > 0 {
		return nil, errUnsupported
	}
	out.Next, out.Previous = pg.links(r.URL.EscapedPath(), q, out.Count)
	return out, nil
}
