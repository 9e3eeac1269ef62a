package hosting

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"docsd/store"
)

// BenchmarkServePageInjected is BenchmarkServePage with the reader client
// injected: the cost of reading the page into memory and
// inserting the block.
func BenchmarkServePageInjected(b *testing.B) {
	f := newFixture(b, store.SQLite)
	f.path = New(f.s, f.arts, Config{URLs: pathURLs, AddonsInject: true}, nil)
	page := "<html><head><title>t</title></head><body>" + strings.Repeat("<p>docsd</p>\n", 1500) + "</body></html>"
	benchmarkServe(b, f, page, "readthedocs-project-slug")
}

// benchmarkServe publishes page as demo's latest index.html and serves it
// in parallel, checking each answer is a 200 containing want.
func benchmarkServe(b *testing.B, f *fixture, page, want string) {
	demo := f.project("demo", "en")
	f.publish(demo, "latest", map[string]string{"index.html": page})
	r := httptest.NewRequest(http.MethodGet, latest+"index.html", nil)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			w := httptest.NewRecorder()
			f.path.ServeHTTP(w, r)
			if w.Code != 200 || !strings.Contains(w.Body.String(), want) {
				b.Fatalf("got %d without %q", w.Code, want)
			}
		}
	})
}
