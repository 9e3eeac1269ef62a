package search_test

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"

	"docsd/internal/search"
	"docsd/internal/storetest"
	"docsd/store"
)

// Benchmark corpus: benchPages pages of benchSectionsPerPage sections,
// words drawn from a vocabulary with a Zipf distribution (a few words are
// everywhere, most are rare), generated from a fixed seed.
const (
	benchPages           = 10000
	benchSectionsPerPage = 10
	benchVocabulary      = 20000
)

// benchQueries mix rare and common words, phrases, prefixes, exclusions.
var benchQueries = []string{
	"w1234", "w77 w78", `"w5 w6"`, "w12*", "w3000 -w1", "+w40 w41", "w19999", "w2", "w150 w151 w152", "zzzz",
}

// BenchmarkSearch measures search latency over an index of 100,000
// sections on each database; p50 and p99 (ms) are reported per query mix.
// Run: go test ./internal/search -run '^$' -bench BenchmarkSearch -benchtime 200x
func BenchmarkSearch(b *testing.B) {
	for _, d := range []store.Dialect{store.SQLite, store.Postgres} {
		b.Run(string(d), func(b *testing.B) {
			s := storetest.Open(b, d)
			svc, query := benchIndex(b, s)
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				q := search.ParseQuery(query + " " + benchQueries[i%len(benchQueries)])
				start := time.Now()
				scope, err := svc.Scope(b.Context(), search.Reader{}, q.Args)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := svc.Search(b.Context(), q, scope, 0, 15); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
			}
			b.StopTimer()
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			pct := func(p float64) float64 {
				return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
			}
			b.ReportMetric(pct(0.50), "p50-ms")
			b.ReportMetric(pct(0.99), "p99-ms")
		})
	}
}

// benchIndex fills s with the benchmark corpus and returns a service and
// the scope argument that searches it.
func benchIndex(b *testing.B, s *store.Store) (*search.Service, string) {
	b.Helper()
	ctx := b.Context()
	u, _ := storetest.MustUser(b, s, "bench")
	res := storetest.MustImport(b, s, u, "bench", "https://example.com/bench")
	yes := true
	if _, err := s.UpdateVersion(ctx, res.Latest.ID, store.VersionUpdate{Built: &yes}); err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(rng, 1.1, 1, benchVocabulary-1)
	text := func(n int) string {
		ws := make([]string, n)
		for i := range ws {
			ws[i] = fmt.Sprintf("w%d", zipf.Uint64())
		}
		return strings.Join(ws, " ")
	}
	pages := make([]store.IndexPage, benchPages)
	for i := range pages {
		p := &search.Page{Title: text(4)}
		for j := 0; j < benchSectionsPerPage; j++ {
			p.Sections = append(p.Sections, search.Section{ID: fmt.Sprintf("s%d", j), Title: text(3), Content: text(60)})
		}
		pages[i] = search.ToIndexPage(fmt.Sprintf("p%05d.html", i), p)
		pages[i].Doctype = "sphinx"
	}
	if err := s.ReplaceSearchIndex(ctx, res.Project.ID, res.Latest.ID, pages); err != nil {
		b.Fatal(err)
	}
	return &search.Service{Store: s, URLs: testURLs}, "project:bench"
}
