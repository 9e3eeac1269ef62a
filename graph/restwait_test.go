package graph_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"docsd/graph"
	"docsd/internal/storetest"
	"docsd/rest"
	"docsd/store"
)

// TestRESTWaitsForNoLoader asserts that no REST read waits for a loader's
// batch: every relation its operations ask for is prefetched (prefetch.go),
// so each request dispatches no batch after loaderWait. A request that does
// would sleep at least a millisecond per level of its selection.
func TestRESTWaitsForNoLoader(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d)
		e.fixture()
		ctx := context.Background()
		alice := e.as("alice")
		for _, name := range []string{"child", "pubchild"} {
			e.importProject("alice", name)
		}
		e.must(alice, `mutation { importProject(input: {name: "pub-es", language: "es", repository: {url: "https://github.com/rtfd/x", type: git}}) { errors { message } } }`, nil)
		for _, op := range []string{
			`mutation { createSubproject(input: {project: "priv", child: "child", alias: "kid"}) { errors { message } } }`,
			`mutation { createSubproject(input: {project: "pub", child: "pubchild", alias: "pc"}) { errors { message } } }`,
			`mutation { setTranslationOf(input: {slug: "pub-es", main: "pub"}) { errors { message } } }`,
		} {
			if data := e.must(alice, op, nil); fmt.Sprint(data) != fmt.Sprint(map[string]any{}) {
				for _, payload := range data {
					if errs := dig(payload, "errors"); len(errs.([]any)) > 0 {
						t.Fatalf("%s: %v", op, errs)
					}
				}
			}
		}
		pub, err := e.store.FindProjectBySlug(ctx, "pub")
		if err != nil {
			t.Fatal(err)
		}
		v1, err := e.store.FindVersionBySlug(ctx, pub.ID, "v1.0")
		if err != nil {
			t.Fatal(err)
		}
		build, err := e.store.FindLastBuilds(ctx, []int64{v1.ID})
		if err != nil || build[v1.ID] == nil {
			t.Fatalf("no build of pub's v1.0: %v", err)
		}
		redirects, _, err := e.store.FindRedirects(ctx, pub.ID, store.Page{Limit: 1})
		if err != nil || len(redirects) == 0 {
			t.Fatalf("no redirect of pub: %v", err)
		}
		vars, _, err := e.store.FindEnvironmentVariables(ctx, pub.ID, store.Page{Limit: 1})
		if err != nil || len(vars) == 0 {
			t.Fatalf("no environment variable of pub: %v", err)
		}
		keys := map[string]string{}
		for _, name := range []string{"alice", "bob", "root"} {
			if keys[name], _, err = e.store.CreateToken(ctx, e.users[name].ID); err != nil {
				t.Fatal(err)
			}
		}
		api := rest.New(e.exec, rest.Config{PublicURL: "https://docs.example.com"})

		const v3 = "/api/v3/projects/"
		const expandProject = "?expand=active_versions,active_versions.last_build,active_versions.last_build.config,permissions,organization"
		b := fmt.Sprint(build[v1.ID].ID)
		paths := []string{
			v3,
			v3 + "?expand=active_versions,active_versions.last_build,active_versions.last_build.config,permissions",
			v3 + "pub/",
			v3 + "pub/" + expandProject,
			v3 + "priv/" + expandProject,
			v3 + "child/" + expandProject,
			v3 + "pub-es/",
			v3 + "child/superproject/",
			v3 + "pubchild/superproject/",
			v3 + "pub/versions/",
			v3 + "pub/versions/?expand=last_build,last_build.config",
			v3 + "pub/versions/latest/",
			v3 + "pub/versions/v1.0/?expand=last_build,last_build.config",
			v3 + "pub/versions/v1.0/builds/",
			v3 + "pub/versions/v1.0/builds/" + b + "/?expand=config",
			v3 + "pub/builds/",
			v3 + "pub/builds/?expand=config",
			v3 + "pub/builds/" + b + "/?expand=config",
			v3 + "pub/builds/" + b + "/notifications/",
			v3 + "pub/subprojects/",
			v3 + "pub/subprojects/pc/",
			v3 + "priv/subprojects/",
			v3 + "pub/translations/",
			v3 + "pub/redirects/",
			v3 + "pub/redirects/" + fmt.Sprint(redirects[0].ID) + "/",
			v3 + "pub/environmentvariables/",
			v3 + "pub/environmentvariables/" + fmt.Sprint(vars[0].ID) + "/",
			v3 + "pub/notifications/",
		}
		type request struct{ path, user string }
		var requests []request
		for _, p := range paths {
			for _, user := range []string{"alice", "bob", "root", ""} {
				requests = append(requests, request{p, user})
			}
		}
		for _, p := range []string{
			"/api/v2/project/",
			"/api/v2/project/" + fmt.Sprint(pub.ID) + "/",
			"/api/v2/project/" + fmt.Sprint(pub.ID) + "/active_versions/",
			"/api/v2/version/",
			"/api/v2/version/?project__slug=pub",
			"/api/v2/version/" + fmt.Sprint(v1.ID) + "/",
			"/api/v2/build/",
			"/api/v2/build/?project__slug=pub",
			"/api/v2/build/" + b + "/",
		} {
			requests = append(requests, request{p, ""})
		}
		for _, req := range requests {
			name := req.user
			if name == "" {
				name = "anonymous"
			}
			t.Run(name+req.path, func(t *testing.T) {
				rctx, batches := graph.CountWaitedBatches(ctx)
				r := httptest.NewRequestWithContext(rctx, http.MethodGet, req.path, nil)
				if req.user != "" {
					r.Header.Set("Authorization", "Token "+keys[req.user])
				}
				w := httptest.NewRecorder()
				api.ServeHTTP(w, r)
				// alice maintains every project: she is answered in full. The
				// others are answered what they may see, or refused.
				if req.user == "alice" && w.Code != http.StatusOK || w.Code >= 500 {
					body, _ := io.ReadAll(w.Result().Body)
					t.Fatalf("answered %d: %s", w.Code, body)
				}
				if got := batches(); len(got) > 0 {
					t.Errorf("answered %d after waiting for loader batches %v, want none", w.Code, got)
				}
			})
		}
	})
}
