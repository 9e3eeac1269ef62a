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
	f := newFixture(b, store.SQLite)
	demo := f.project("demo", "en")
	f.publish(demo, "latest", map[string]string{"index.html": strings.Repeat("<p>docsd</p>\n", 1500)})
	r := httptest.NewRequest(http.MethodGet, latest+"index.html", nil)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			w := httptest.NewRecorder()
			f.path.ServeHTTP(w, r)
			if w.Code != 200 {
				b.Fatalf("got %d", w.Code)
			}
		}
	})
}
