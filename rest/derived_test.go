package rest

import (
	"encoding/json"
	"strconv"
	"testing"

	"docsd/internal/access"
	"docsd/internal/choices"
	"docsd/internal/storetest"
	"docsd/store"
)

// TestDerivedValuesMatchGraph ties the values REST writes itself instead of
// selecting them (which spares the executor those fields) to the fields the
// graph resolves, so that the two cannot drift: for every language,
// programming language, versioning scheme (single_version) and build state
// code, for v2's command builds, and for the urls of projects (a subproject
// and a translation among them), versions and builds, REST's answer holds
// what GraphQL returns for the same object. REST's own PublicURL differs
// from the graph's: the URLs REST writes must be the graph's.
func TestDerivedValuesMatchGraph(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newV3Env(t, d, func(c *Config) { c.PublicURL = "https://api.example.org" })
		w := e.world()
		ctx := access.WithUser(t.Context(), e.users["alice"])
		// check compares REST's answer to path (its member named member,
		// the whole body when "") with GraphQL's answer to query at gqlPath,
		// plus the members of restOnly (REST's own constants).
		check := func(t *testing.T, path, as, member, query string, restOnly map[string]any, gqlPath ...string) {
			t.Helper()
			r := e.get(path, as)
			if r.status != 200 {
				t.Fatalf("GET %s: %d %s", path, r.status, r.body)
			}
			got := encode(t, decodeAt(t, r.body, member))
			resp := e.api.exec.Run(ctx, query, nil)
			if len(resp.Errors) > 0 {
				t.Fatalf("%s: %v", query, resp.Errors)
			}
			v := decodeAt(t, resp.Data, gqlPath...)
			if obj, ok := v.(map[string]any); ok {
				for k, x := range restOnly {
					obj[k] = x
				}
			}
			if want := encode(t, v); got != want {
				t.Errorf("GET %s: REST %s, GraphQL %s", path, got, want)
			}
		}

		t.Run("Languages", func(t *testing.T) {
			langs, progs := choices.Languages, choices.ProgrammingLanguages
			for i := 0; i < max(len(langs), len(progs)); i++ {
				var upd store.ProjectUpdate
				if i < len(langs) {
					upd.Language = &langs[i].Code
				}
				if i < len(progs) {
					upd.ProgrammingLanguage = &progs[i].Code
				}
				if _, err := e.store.UpdateProject(t.Context(), w.project.ID, upd); err != nil {
					t.Fatal(err)
				}
				check(t, "/api/v3/projects/project/?fields=language,programming_language", "alice", "",
					`{ project(slug: "project") { language { code name } programming_language: programmingLanguage { code name } } }`, nil, "project")
			}
		})

		t.Run("SingleVersion", func(t *testing.T) {
			for _, scheme := range choices.VersioningSchemes {
				if _, err := e.store.UpdateProject(t.Context(), w.project.ID, store.ProjectUpdate{VersioningScheme: &scheme.Code}); err != nil {
					t.Fatal(err)
				}
				check(t, "/api/v3/projects/project/?fields=single_version", "alice", "",
					`{ project(slug: "project") { single_version: singleVersion } }`, nil, "project")
			}
		})

		t.Run("BuildStates", func(t *testing.T) {
			for _, st := range choices.BuildStates {
				b := w.build4
				if st.Code == store.Finished {
					b = w.build2
				} else if err := e.store.SetBuildState(t.Context(), b.ID, st.Code); err != nil {
					t.Fatal(err)
				}
				id := strconv.FormatInt(b.ID, 10)
				query := `{ project(slug: "project") { build(id: ` + id + `) { state { code name } } } }`
				check(t, "/api/v3/projects/project/builds/"+id+"/?fields=state", "alice", "state", query, nil, "project", "build", "state")
				check(t, "/api/v2/build/"+id+"/", "", "state_display", query, nil, "project", "build", "state", "name")
			}
		})

		t.Run("CommandBuilds", func(t *testing.T) {
			// v2 writes each command's build as the id of the build it is
			// listed in.
			for _, cmd := range []string{"git clone", "sphinx-build"} {
				if _, err := e.store.AddBuildCommand(t.Context(), store.BuildCommand{BuildID: w.build4.ID, Command: cmd, StartTime: e.clock.Now()}); err != nil {
					t.Fatal(err)
				}
			}
			id := strconv.FormatInt(w.build4.ID, 10)
			r := e.get("/api/v2/build/"+id+"/", "")
			var got []any
			for _, c := range decodeAt(t, r.body, "commands").([]any) {
				got = append(got, c.(map[string]any)["build"])
			}
			resp := e.api.exec.Run(ctx, `{ project(slug: "project") { build(id: `+id+`) { commands { buildId } } } }`, nil)
			var want []any
			for _, c := range decodeAt(t, resp.Data, "project", "build", "commands").([]any) {
				want = append(want, c.(map[string]any)["buildId"])
			}
			if len(got) != 2 || encode(t, got) != encode(t, want) {
				t.Errorf("v2 command builds %s, GraphQL %s (want 2)", encode(t, got), encode(t, want))
			}
		})

		t.Run("URLs", func(t *testing.T) {
			for _, slug := range []string{"project", "subproject", "translation"} {
				// REST adds downloads, always null.
				check(t, "/api/v3/projects/"+slug+"/?fields=urls", "alice", "urls",
					`{ project(slug: "`+slug+`") { urls { builds documentation home versions } } }`,
					map[string]any{"downloads": nil}, "project", "urls")
			}
			for _, v := range []*store.Version{w.latest, w.v1, w.v2} {
				check(t, "/api/v3/projects/project/versions/"+v.Slug+"/?fields=urls", "alice", "urls",
					`{ project(slug: "project") { version(slug: "`+v.Slug+`") { urls { dashboard { edit } documentation vcs } } } }`,
					nil, "project", "version", "urls")
			}
			for _, b := range []*store.Build{w.build1, w.build2, w.build3, w.build4} {
				id := strconv.FormatInt(b.ID, 10)
				check(t, "/api/v3/projects/project/builds/"+id+"/?fields=urls", "alice", "urls",
					`{ project(slug: "project") { build(id: `+id+`) { urls { build project version } } } }`, nil, "project", "build", "urls")
			}
		})
	})
}

// decodeAt returns the JSON value at path in doc ("" names doc itself).
func decodeAt(t *testing.T, doc []byte, path ...string) any {
	t.Helper()
	v := v3Decode(t, doc)
	for _, k := range path {
		if k == "" {
			continue
		}
		obj, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("no %q in %s", k, doc)
		}
		v = obj[k]
	}
	return v
}

// encode returns v as JSON with its keys sorted.
func encode(t *testing.T, v any) string {
	t.Helper()
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}
