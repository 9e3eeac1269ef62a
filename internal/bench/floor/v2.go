package floor

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"docsd/internal/choices"
	"docsd/internal/docsurl"
)

// v2Build is a v2 build, keys in the order docsd's v2 writes them.
type v2Build struct {
	ID                  int64       `json:"id"`
	Date                string      `json:"date"`
	Length              *int64      `json:"length"`
	Type                string      `json:"type"`
	State               string      `json:"state"`
	Success             bool        `json:"success"`
	Error               string      `json:"error"`
	Commit              *string     `json:"commit"`
	DocsURL             string      `json:"docs_url"`
	Project             int64       `json:"project"`
	ProjectSlug         string      `json:"project_slug"`
	Version             int64       `json:"version"`
	VersionSlug         string      `json:"version_slug"`
	Commands            []v2Command `json:"commands"`
	StateDisplay        string      `json:"state_display"`
	CommitURL           *string     `json:"commit_url"`
	Config              rawJSON     `json:"config"`
	Setup               string      `json:"setup"`
	SetupError          string      `json:"setup_error"`
	Output              string      `json:"output"`
	ExitCode            *int64      `json:"exit_code"`
	ColdStorage         *bool       `json:"cold_storage"`
	VersionName         string      `json:"version_name"`
	VersionType         string      `json:"version_type"`
	ReadthedocsYamlPath *string     `json:"readthedocs_yaml_path"`
}

// rawJSON is already encoded JSON.
type rawJSON []byte

func (r rawJSON) MarshalJSON() ([]byte, error) { return r, nil }

type v2Command struct {
	ID          int64   `json:"id"`
	Build       int64   `json:"build"`
	Description string  `json:"description"`
	Command     string  `json:"command"`
	ExitCode    *int64  `json:"exit_code"`
	RunTime     *int64  `json:"run_time"`
	Output      string  `json:"output"`
	StartTime   string  `json:"start_time"`
	EndTime     *string `json:"end_time"`
}

// v2BuildList answers GET /api/v2/build/?project__slug=<p>: the public
// builds of a public project, with their commands, for anyone.
func (s *Server) v2BuildList(ctx context.Context, r *http.Request, q url.Values) (any, error) {
	slug := q.Get("project__slug")
	if slug == "" || q.Has("commit") {
		return nil, errUnsupported
	}
	pg := s.pageOf(q)
	rows, err := s.db.QueryContext(ctx, s.q.v2BuildPage, slug, pg.limit, pg.offset)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := envelope[*v2Build]{Results: []*v2Build{}}
	var ids []int64
	byID := map[int64]*v2Build{}
	for rows.Next() {
		var b build
		var p project
		if err := rows.Scan(append(b.dest(), &p.id, &p.slug, &p.language, &p.repo, &p.scheme, &p.translationOf, &p.parents, &out.Count)...); err != nil {
			return nil, err
		}
		if p.translationOf != nil || p.parents > 0 || b.vType == "external" {
			return nil, errUnsupported
		}
		config, err := sortedJSON(b.config)
		if err != nil {
			return nil, err
		}
		vb := &v2Build{
			ID: b.id, Date: v2Time(b.created), Length: b.length, Type: b.typ, State: b.state, Success: b.success,
			Error: b.errText, Commit: b.commit,
			DocsURL: s.urls.Docs(docsurl.Target{Slug: p.slug, Language: p.language, Scheme: p.scheme}, b.versionSlug, ""),
			Project: p.id, ProjectSlug: p.slug, Version: b.versionID, VersionSlug: b.versionSlug, Commands: []v2Command{},
			StateDisplay: choices.BuildStates.Name(b.state), Config: rawJSON(config), ExitCode: b.exitCode,
			VersionName: b.versionName, VersionType: b.versionType, ReadthedocsYamlPath: b.yamlPath,
		}
		if b.commit != nil {
			if m := repoHosts.FindStringSubmatch(p.repo); m != nil {
				if m[1] != "github.com" && m[1] != "gitlab.com" {
					return nil, errUnsupported
				}
				u := "https://" + m[1] + "/" + m[2] + "/" + m[3] + "/commit/" + *b.commit
				vb.CommitURL = &u
			}
		}
		ids = append(ids, b.id)
		byID[b.id] = vb
		out.Results = append(out.Results, vb)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	if len(out.Results) == 0 && pg.offset > 0 {
		return nil, errUnsupported
	}
	if len(ids) > 0 {
		if err := s.v2Commands(ctx, ids, byID); err != nil {
			return nil, err
		}
	}
	out.Next, out.Previous = pg.links(s.urls.PublicURL+r.URL.EscapedPath(), q, out.Count)
	return out, nil
}

// v2Commands reads the commands of the builds, in one statement.
func (s *Server) v2Commands(ctx context.Context, ids []int64, byID map[int64]*v2Build) error {
	rows, err := s.db.QueryContext(ctx, fmt.Sprintf(s.q.commands, idList(ids)))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var c v2Command
		var start time.Time
		var end *time.Time
		if err := rows.Scan(&c.ID, &c.Build, &c.Command, &c.Description, &c.Output, &c.ExitCode, &start, &end); err != nil {
			return err
		}
		c.StartTime = v2Time(start)
		if end != nil {
			e := v2Time(*end)
			c.EndTime = &e
			rt := int64(end.Sub(start) / time.Second)
			c.RunTime = &rt
		}
		byID[c.Build].Commands = append(byID[c.Build].Commands, c)
	}
	return rows.Err()
}
