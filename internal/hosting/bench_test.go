package hosting

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"docsd/store"
)

// BenchmarkServePage serves one published page of a public project from a
// SQLite store, as the load script does through HTTP, without the network.
func BenchmarkServePage(b *testing.B) {
	benchmarkServe(b, newFixture(b, store.SQLite), strings.Repeat("<p>docsd</p>\n", 1500), "docsd")
}

// BenchmarkServeHotPaths serves what internal/hosting/bench/serve-bench.sh measures
// against nginx — a page, a script with and without gzip, a missing page
// and a redirect — on both databases, in parallel, without the network.
func BenchmarkServeHotPaths(b *testing.B) {
	for _, d := range []store.Dialect{store.SQLite, store.Postgres} {
		b.Run(string(d), func(b *testing.B) {
			f := newFixture(b, d)
			demo := f.project("demo", "en")
			f.publish(demo, "latest", map[string]string{
				"index.html":     "<html><head></head><body>" + strings.Repeat("<p>docsd serves pages.</p>\n", 700) + "</body></html>",
				"_static/app.js": strings.Repeat("var docsd = function (a, b) { return a + b; };\n", 6000),
			})
			if _, err := f.s.CreateRedirect(b.Context(), store.Redirect{ProjectID: demo.ID, Type: "page",
				FromURL: "/old.html", ToURL: "/index.html", HTTPStatus: 302, Enabled: true}); err != nil {
				b.Fatal(err)
			}
			for _, tc := range []struct {
				name, path, encoding string
				status               int
			}{
				{"Page", "index.html", "", 200},
				{"Script", "_static/app.js", "", 200},
				{"ScriptGzip", "_static/app.js", "gzip", 200},
				{"Missing", "missing.html", "", 404},
				{"Redirect", "old.html", "", 302},
			} {
				b.Run(tc.name, func(b *testing.B) {
					r := httptest.NewRequest(http.MethodGet, latest+tc.path, nil)
					if tc.encoding != "" {
						r.Header.Set("Accept-Encoding", tc.encoding)
					}
					b.ReportAllocs()
					b.RunParallel(func(pb *testing.PB) {
						for pb.Next() {
							w := httptest.NewRecorder()
							f.path.ServeHTTP(w, r)
							if w.Code != tc.status {
								b.Fatalf("got %d, want %d", w.Code, tc.status)
							}
						}
					})
				})
			}
		})
	}
}
