package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// checkSearch runs after TestServeBuildsImportedProject's first builds of
// project demo (whose index page says "Built by docsd."): the publish step
// indexed latest, /api/v3/search/ and /_/api/v3/search/ find it, and
// `docsd search reindex` rebuilds the same entries.
func checkSearch(t *testing.T, base, data string) {
	t.Helper()
	for _, path := range []string{"/api/v3/search/", "/_/api/v3/search/"} {
		resp, err := http.Get(base + path + "?q=" + url.QueryEscape("project:demo/latest built by"))
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Count   int `json:"count"`
			Results []struct {
				Path   string `json:"path"`
				Blocks []struct {
					Highlights struct {
						Content []string `json:"content"`
					} `json:"highlights"`
				} `json:"blocks"`
			} `json:"results"`
		}
		err = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 || body.Count != 1 || !strings.HasPrefix(body.Results[0].Path, "/docs/demo/en/latest/") ||
			len(body.Results[0].Blocks) == 0 || !strings.Contains(strings.Join(body.Results[0].Blocks[0].Highlights.Content, ""), "<span>Built</span>") {
			t.Errorf("GET %s: %d %v %+v", path, resp.StatusCode, err, body)
		}
	}
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"search", "reindex", "demo", "--data-dir", data}, &out, &errOut); code != 0 {
		t.Fatalf("search reindex: %d %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "demo/latest: 1 pages") {
		t.Errorf("search reindex printed %q %q", out.String(), errOut.String())
	}
	if code := run(context.Background(), []string{"search", "reindex", "nope", "--data-dir", data}, &out, &errOut); code != 1 {
		t.Errorf("search reindex of a missing project: exit %d", code)
	}
}
