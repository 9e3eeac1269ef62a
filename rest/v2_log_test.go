package rest_test

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"docsd/internal/storetest"
	"docsd/rest"
	"docsd/store"
)

// TestV2BuildLog compares the raw build log byte for
// byte with its golden text, on each of its three URLs.
func TestV2BuildLog(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		srv, _ := v2Server(t, d, 0)
		for _, c := range []struct{ golden, id string }{
			{"build_log_finished", "1"},
			{"build_log_failed", "3"},
			{"build_log_no_commands", "4"},
			{"build_log_running", "7"},
			{"build_log_triggered", "8"},
		} {
			t.Run(c.golden, func(t *testing.T) {
				path := filepath.Join("testdata", "v2", c.golden+".txt")
				for i, url := range []string{"/api/v2/build/" + c.id + ".txt", "/api/v2/build/" + c.id + ".txt/", "/api/v2/build/" + c.id + "/?format=txt"} {
					resp, body := v2Do(t, srv, http.MethodGet, url, nil)
					rest.RecordGolden(t, "v2/"+c.golden+".txt", http.MethodGet, url, resp.StatusCode, resp.Header.Get("Content-Type"))
					if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/plain; charset=utf-8" || resp.Header.Get("Allow") != "GET, HEAD, OPTIONS" {
						t.Fatalf("GET %s: %d %q Allow %q\n%s", url, resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Allow"), body)
					}
					if i == 0 && v2UpdateGoldens() && d == store.SQLite {
						if err := os.WriteFile(path, body, 0o644); err != nil {
							t.Fatal(err)
						}
					}
					want, err := os.ReadFile(path)
					if err != nil {
						t.Fatalf("%v (run with -update to create it)", err)
					}
					if string(body) != string(want) {
						t.Errorf("GET %s:\n%q\nwant\n%q", url, body, want)
					}
				}
				resp, body := v2Do(t, srv, http.MethodHead, "/api/v2/build/"+c.id+".txt", nil)
				if resp.StatusCode != 200 || len(body) != 0 {
					t.Errorf("HEAD: %d, body %q", resp.StatusCode, body)
				}
			})
		}
	})
}
