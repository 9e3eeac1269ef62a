package bench

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"docsd/internal/bench/benchdata"
	"docsd/internal/storetest"
	"docsd/store"
)

// TestFloorAnswersDocsdBytes serves docsd's REST handler and the floor on
// the same generated database, each behind a real HTTP server, and compares
// their answers to each measured request byte for byte.
func TestFloorAnswersDocsdBytes(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		e := newEnv(t, d, testScale)
		docsd, floor := httptest.NewServer(e.docsd), httptest.NewServer(e.floor)
		t.Cleanup(docsd.Close)
		t.Cleanup(floor.Close)
		reqs := append(requests("100"), requests("10")[1:]...)
		reqs = append(reqs,
			request{"V3BuildListLastPage", "/api/v3/projects/" + benchdata.Project + "/builds/?limit=20&offset=140", true},
			request{"V2BuildListSecondPage", "/api/v2/build/?project__slug=" + benchdata.Project + "&limit=100&offset=100", false},
			request{"V3ProjectListOffset", "/api/v3/projects/?limit=30&offset=30", true},
			request{"ProjectDetailExpandOther", "/api/v3/projects/project-00003/?expand=active_versions,active_versions.last_build,active_versions.last_build.config", true},
		)
		for _, req := range reqs {
			t.Run(req.name+"/"+req.path, func(t *testing.T) {
				gotStatus, got := fetch(t, floor.URL, req)
				wantStatus, want := fetch(t, docsd.URL, req)
				if wantStatus != http.StatusOK {
					t.Fatalf("docsd answered %d: %s", wantStatus, want)
				}
				if gotStatus != wantStatus || !bytes.Equal(got, want) {
					t.Errorf("floor answered %d:\n%s\ndocsd answered %d:\n%s", gotStatus, got, wantStatus, want)
				}
				if len(want) < 1000 {
					t.Errorf("docsd's answer is only %d bytes: the generated data does not fill it", len(want))
				}
			})
		}
	})
}

// fetch sends req to the server at base over HTTP.
func fetch(t *testing.T, base string, req request) (int, []byte) {
	t.Helper()
	r, err := http.NewRequestWithContext(t.Context(), http.MethodGet, base+req.path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if req.v3 {
		r.Header.Set("Authorization", "Token "+benchdata.Key)
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, body
}
