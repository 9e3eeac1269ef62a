package hosting

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"docsd/internal/analytics"
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

// BenchmarkServeCountedPage serves a page to a browser's User-Agent, in
// parallel, with the views counted (analytics on) and not (off): the
// first answer is counted through the recorder's map, every replay of
// the kept answer with one atomic add. The recorder is flushed at the
// end, outside the timing, and must hold every view.
func BenchmarkServeCountedPage(b *testing.B) {
	const ua = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
	for _, counted := range []bool{false, true} {
		b.Run(map[bool]string{false: "Off", true: "On"}[counted], func(b *testing.B) {
			f := newFixture(b, store.SQLite)
			var rec *analytics.Recorder
			if counted {
				rec = analytics.New(f.s, analytics.Config{})
			}
			h := New(f.s, f.arts, Config{URLs: pathURLs, Analytics: rec}, nil)
			demo := f.project("demo", "en")
			f.publish(demo, "latest", map[string]string{
				"index.html": "<html><head></head><body>" + strings.Repeat("<p>docsd serves pages.</p>\n", 700) + "</body></html>",
			})
			r := httptest.NewRequest(http.MethodGet, latest+"index.html", nil)
			r.Header.Set("User-Agent", ua)
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					w := httptest.NewRecorder()
					h.ServeHTTP(w, r)
					if w.Code != 200 {
						b.Fatalf("got %d, want 200", w.Code)
					}
				}
			})
			b.StopTimer()
			if rec == nil {
				return
			}
			if err := rec.Flush(b.Context()); err != nil {
				b.Fatal(err)
			}
			rows, err := f.s.ListPageViews(b.Context(), demo.ID, "2000-01-01", 10, 0)
			if err != nil || len(rows) != 1 || rows[0].Views < int64(b.N) {
				b.Fatalf("counted %+v (%v), want %d views", rows, err, b.N)
			}
		})
	}
}
