package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"docsd/internal/storetest"
	"docsd/store"
)

// TestHostingAndGraphAgree: the docs host and the API ask package access
// the same questions, so on one fixture they show a non-public project or
// version to the same readers. Superusers are the one deliberate
// difference: the API shows them every object, the docs host nothing more
// than to anyone.
func TestHostingAndGraphAgree(t *testing.T) {
	viewers := []struct {
		name              string
		seesAPI, seesDocs bool
	}{
		{"anonymous", false, false},
		{"other user", false, false},
		{"maintainer", true, true},
		{"superuser", true, false},
	}
	for _, tc := range privacyChanges {
		t.Run(tc.name, func(t *testing.T) {
			n := openNode(t, storetest.DatabaseURL(t, store.SQLite), t.TempDir())
			keys := map[string]string{"maintainer": publishDemo(t, n)}
			_, keys["other user"] = storetest.MustUser(t, n.s, "bob")
			_, keys["superuser"] = storetest.MustSuperuser(t, n.s, "sue")
			patch(t, n.url+tc.path, keys["maintainer"], tc.body)
			for _, v := range viewers {
				key := keys[v.name]
				if got := graphSeesDemoLatest(t, n.url, key); got != v.seesAPI {
					t.Errorf("%s: GraphQL shows demo's latest: %v, want %v", v.name, got, v.seesAPI)
				}
				if resp, _ := get(t, n.docs+demoPage, key); (resp.StatusCode == http.StatusOK) != v.seesDocs {
					t.Errorf("%s: docs host %s: status %d; want the page: %v", v.name, demoPage, resp.StatusCode, v.seesDocs)
				}
				if got := addonsSeesDemoLatest(t, n.docs, key); got != v.seesDocs {
					t.Errorf("%s: addons data shows demo's latest: %v, want %v", v.name, got, v.seesDocs)
				}
			}
		})
	}
}

// graphSeesDemoLatest reports whether /graphql shows project demo's
// version latest to the holder of key ("" for anonymous).
func graphSeesDemoLatest(t *testing.T, base, key string) bool {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/graphql", strings.NewReader(`{"query": "{ project(slug: \"demo\") { version(slug: \"latest\") { slug } } }"}`))
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Token "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Data struct {
			Project *struct {
				Version *struct{ Slug string }
			}
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /graphql: status %d, %v", resp.StatusCode, err)
	}
	return out.Data.Project != nil && out.Data.Project.Version != nil && out.Data.Project.Version.Slug == store.Latest
}

// addonsSeesDemoLatest reports whether the docs host's addons data shows
// project demo's version latest to the holder of key: a project the reader
// may not see is a 404, a version they may not see is left out.
func addonsSeesDemoLatest(t *testing.T, docs, key string) bool {
	t.Helper()
	resp, body := get(t, docs+"/_/addons/?api-version=1&project-slug=demo&version-slug=latest", key)
	if resp.StatusCode == http.StatusNotFound {
		return false
	}
	var out struct {
		Versions struct {
			Current *struct{ Slug string }
		}
	}
	if err := json.Unmarshal([]byte(body), &out); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("addons: status %d, %v: %s", resp.StatusCode, err, body)
	}
	return out.Versions.Current != nil && out.Versions.Current.Slug == store.Latest
}
