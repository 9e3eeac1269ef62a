package search_test

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"docsd/internal/search"
	"docsd/internal/storetest"
	"docsd/store"
)

// benchSections is the size of BenchmarkSearch's corpus; -search.sections
// takes it to a million (which takes minutes to index).
var benchSections = flag.Int("search.sections", 100_000, "sections in BenchmarkSearch's corpus")

// Benchmark corpus: pages of benchSectionsPerPage sections whose words are
// drawn from a vocabulary with a Zipf distribution (w0 and w1 are on every
// page, most words are rare), from a fixed seed. The pages are spread over
// benchProjects projects: bench (versions latest and v2) and its
// subprojects bench-1 … bench-9 (latest).
const (
	benchSectionsPerPage = 10
	benchVocabulary      = 20000
	benchProjects        = 10
	benchSearchers       = 8
)

// benchShapes are the query shapes measured, each as the search dialog
// sends it (the last word is matched as a prefix as well).
var benchShapes = []struct{ name, q string }{
	{"rare", "project:bench w5000"},
	{"common", "project:bench w300"},
	{"most-pages", "project:bench w1"},
	{"two-words", "project:bench w300 w301"},
	{"three-words", "project:bench w100 w200 w300"},
	{"prefix", "project:bench w12"},
	{"prefix-typing", "project:bench w300 w15"},
	{"phrase", `project:bench "w1 w2"`},
	{"project", "project:bench-3 w300"},
	{"project-version", "project:bench/v2 w300"},
	{"subprojects", "subprojects:bench w300"},
}

// BenchmarkSearch measures search latency with benchSearchers concurrent
// searchers over the Zipf corpus, on each database: p50 and p99 (ms) per
// query shape, the test process's CPU time per query (ms), the 1-minute
// load average while it ran, and the time the corpus took to index.
//
//	go test ./internal/search -run '^$' -bench BenchmarkSearch -benchtime 400x
//	go test ./internal/search -run '^$' -bench BenchmarkSearch -benchtime 400x -search.sections 1000000 -timeout 60m
func BenchmarkSearch(b *testing.B) {
	for _, d := range []store.Dialect{store.SQLite, store.Postgres} {
		b.Run(fmt.Sprintf("%s/sections=%d", d, *benchSections), func(b *testing.B) {
			s := storetest.Open(b, d)
			svc := &search.Service{Store: s, URLs: testURLs}
			took := benchIndex(b, s, *benchSections)
			fmt.Printf("%s: indexed %d sections in %s (load average %s)\n", d, *benchSections, took.Round(100*time.Millisecond), loadAverage())
			for _, shape := range benchShapes {
				b.Run(shape.name, func(b *testing.B) {
					q := search.ParseQuery(shape.q)
					scope, err := svc.Scope(b.Context(), search.Reader{}, q.Args)
					if err != nil || len(scope) == 0 {
						b.Fatalf("scope of %q: %v %v", shape.q, scope, err)
					}
					res, err := svc.Search(b.Context(), q, scope, 0, 15)
					if err != nil || res.Count == 0 {
						b.Fatalf("%q finds nothing: %v", shape.q, err)
					}
					lat := make([]time.Duration, b.N)
					var next atomic.Int64
					var wg sync.WaitGroup
					errs := make(chan error, benchSearchers)
					b.ResetTimer()
					cpu0 := processCPU()
					for range benchSearchers {
						wg.Add(1)
						go func() {
							defer wg.Done()
							for i := next.Add(1) - 1; i < int64(b.N); i = next.Add(1) - 1 {
								start := time.Now()
								scope, err := svc.Scope(b.Context(), search.Reader{}, q.Args)
								if err == nil {
									_, err = svc.Search(b.Context(), q, scope, 0, 15)
								}
								if err != nil {
									errs <- err
									return
								}
								lat[i] = time.Since(start)
							}
						}()
					}
					wg.Wait()
					b.StopTimer()
					cpu := processCPU() - cpu0
					close(errs)
					if err := <-errs; err != nil {
						b.Fatal(err)
					}
					sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
					pct := func(p float64) float64 {
						return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
					}
					b.ReportMetric(float64(res.Count), "matches")
					b.ReportMetric(pct(0.50), "p50-ms")
					b.ReportMetric(pct(0.99), "p99-ms")
					if cpu >= 0 {
						b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
					}
					if l, err := strconv.ParseFloat(loadAverage(), 64); err == nil {
						b.ReportMetric(l, "load1")
					}
				})
			}
		})
	}
}

// processCPU is the user and system CPU time the test process has used,
// -1 when unknown. Per query, it is the cost of a search on this side of
// the database connection (all of it on SQLite, without the server's on
// PostgreSQL), which the machine's other work inflates far less than it
// does latency.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return -1
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loadAverage is the machine's 1-minute load average, "?" when unknown.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(data))[0]
}

// benchIndex fills s with a corpus of n sections and returns how long
// indexing took.
func benchIndex(b testing.TB, s *store.Store, n int) time.Duration {
	b.Helper()
	ctx := b.Context()
	u, _ := storetest.MustUser(b, s, "bench")
	type target struct {
		project *store.Project
		version *store.Version
	}
	var targets []target
	built := func(v *store.Version) *store.Version {
		v, err := s.UpdateVersion(ctx, v.ID, store.VersionUpdate{Built: ptr(true)})
		if err != nil {
			b.Fatal(err)
		}
		return v
	}
	var parent *store.Project
	for i := range benchProjects {
		name := "bench"
		if i > 0 {
			name = fmt.Sprintf("bench-%d", i)
		}
		res := storetest.MustImport(b, s, u, name, "https://example.com/"+name)
		targets = append(targets, target{res.Project, built(res.Latest)})
		if i == 0 {
			parent = res.Project
			targets = append(targets, target{res.Project, built(storetest.MustVersion(b, s, res.Project.ID, "v2"))})
		} else if _, err := s.CreateRelationship(ctx, parent.ID, res.Project.ID, name); err != nil {
			b.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(rng, 1.1, 1, benchVocabulary-1)
	text := func(n int) string {
		ws := make([]string, n)
		for i := range ws {
			ws[i] = "w" + strconv.FormatUint(zipf.Uint64(), 10)
		}
		return strings.Join(ws, " ")
	}
	pages := n / benchSectionsPerPage
	var took time.Duration
	for ti, t := range targets {
		var batch []store.IndexPage
		for i := ti; i < pages; i += len(targets) {
			p := &search.Page{Title: text(4)}
			for j := range benchSectionsPerPage {
				p.Sections = append(p.Sections, search.Section{ID: fmt.Sprintf("s%d", j), Title: text(3), Content: text(60)})
			}
			ip := search.ToIndexPage(fmt.Sprintf("p%07d.html", i), p)
			ip.Doctype = "sphinx"
			batch = append(batch, ip)
		}
		start := time.Now()
		if err := s.ReplaceSearchIndex(ctx, t.project.ID, t.version.ID, batch); err != nil {
			b.Fatal(err)
		}
		took += time.Since(start)
	}
	return took
}
