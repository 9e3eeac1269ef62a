package main

import (
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"docsd/internal/artifacts/artifactstest"
	"docsd/internal/storetest"
	"docsd/store"
)

// gcPacing is one way to pace the garbage collector: the heap floor of
// --gc-heap-floor, or the runtime's documented knobs (GOGC as
// debug.SetGCPercent, GOMEMLIMIT as debug.SetMemoryLimit).
type gcPacing struct {
	name    string
	percent int    // GOGC; -1 is off
	limit   int64  // GOMEMLIMIT in bytes; 0 is none
	floor   uint64 // --gc-heap-floor in bytes; 0 is none
}

var gcPacings = []gcPacing{
	{name: "GOGC=100", percent: 100},
	{name: "HeapFloor=32MiB", percent: 100, floor: defaultGCHeapFloor},
	{name: "GOGC=off,GOMEMLIMIT=32MiB", percent: -1, limit: 32 << 20},
	{name: "GOGC=off,GOMEMLIMIT=48MiB", percent: -1, limit: 48 << 20},
	{name: "GOGC=off,GOMEMLIMIT=64MiB", percent: -1, limit: 64 << 20},
	{name: "GOGC=off,GOMEMLIMIT=128MiB", percent: -1, limit: 128 << 20},
	{name: "GOGC=400,GOMEMLIMIT=128MiB", percent: 400, limit: 128 << 20},
}

// apply sets the pacing and returns the function that restores the
// process's own.
func (p gcPacing) apply(b *testing.B) (restore func()) {
	if p.floor != 0 && os.Getenv("GOGC") != "" {
		b.Skip("GOGC is set: the heap floor stands aside")
	}
	oldPercent := debug.SetGCPercent(p.percent)
	limit := int64(math.MaxInt64)
	if p.limit != 0 {
		limit = p.limit
	}
	oldLimit := debug.SetMemoryLimit(limit)
	stop := func() {}
	if p.floor != 0 {
		stop = startHeapFloor(p.floor)
	}
	return func() {
		stop()
		debug.SetGCPercent(oldPercent)
		debug.SetMemoryLimit(oldLimit)
	}
}

// heapWatch samples the heap while a benchmark runs: the peak of the
// bytes in spans holding objects (HeapInuse) and of the bytes mapped for
// the heap and not returned to the OS, and of the heap goal the pacer set.
type heapWatch struct {
	stop               chan struct{}
	done               sync.WaitGroup
	peakInuse, peakMap uint64
	peakGoal           uint64
	cycles             uint64
}

var heapSamples = []string{
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/heap/unused:bytes",
	"/memory/classes/heap/free:bytes",
	"/gc/cycles/total:gc-cycles",
	"/gc/heap/goal:bytes",
}

func readHeap(s []metrics.Sample) (inuse, mapped, cycles, goal uint64) {
	metrics.Read(s)
	inuse = s[0].Value.Uint64() + s[1].Value.Uint64()
	return inuse, inuse + s[2].Value.Uint64(), s[3].Value.Uint64(), s[4].Value.Uint64()
}

// watchHeap returns the heap to the OS, so that earlier cases do not count,
// and samples it every 200µs until end.
func watchHeap() *heapWatch {
	runtime.GC()
	debug.FreeOSMemory()
	w := &heapWatch{stop: make(chan struct{})}
	s := make([]metrics.Sample, len(heapSamples))
	for i, n := range heapSamples {
		s[i].Name = n
	}
	w.peakInuse, w.peakMap, w.cycles, w.peakGoal = readHeap(s)
	w.done.Add(1)
	go func() {
		defer w.done.Done()
		t := time.NewTicker(200 * time.Microsecond)
		defer t.Stop()
		for {
			inuse, mapped, _, goal := readHeap(s)
			w.peakInuse, w.peakMap = max(w.peakInuse, inuse), max(w.peakMap, mapped)
			w.peakGoal = max(w.peakGoal, goal)
			select {
			case <-w.stop:
				return
			case <-t.C:
			}
		}
	}()
	return w
}

// end stops sampling and reports GC cycles per 1000 requests and the
// peaks in MiB.
func (w *heapWatch) end(b *testing.B) {
	close(w.stop)
	w.done.Wait()
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	b.ReportMetric(float64(s[0].Value.Uint64()-w.cycles)*1000/float64(b.N), "gc/1000req")
	b.ReportMetric(float64(w.peakInuse)/(1<<20), "peak-inuse-MiB")
	b.ReportMetric(float64(w.peakMap)/(1<<20), "peak-mapped-MiB")
	b.ReportMetric(float64(w.peakGoal)/(1<<20), "peak-goal-MiB")
}

// BenchmarkGCPacing serves docsd's workloads in process under each way of
// pacing the collector: Docs is the docs listener answering a 20 KB page, a
// redirect and a missing page in turn; RESTList is the API listing 100
// projects, megabytes of garbage a request; DocsLive40MiB is Docs with
// 40 MiB more live heap, near the smaller memory limits. Sixteen clients
// on GOMAXPROCS 2. Besides ns/op it reports GC cycles per 1000 requests and the peak
// heap; docs/performance.md says how to run it and what it showed.
func BenchmarkGCPacing(b *testing.B) {
	s := storetest.Open(b, store.SQLite)
	a, _ := testApp(b, s, "--build-workers", "0", "--throttle-user-rate", "0")
	ctx := b.Context()
	u, key := storetest.MustUser(b, s, "bench")
	demo := storetest.MustImport(b, s, u, "demo", "https://github.com/example/demo").Project
	for i := range 99 {
		name := fmt.Sprintf("project-%02d", i)
		storetest.MustImport(b, s, u, name, "https://github.com/example/"+name)
	}
	v, err := s.FindVersionBySlug(ctx, demo.ID, store.Latest)
	if err != nil {
		b.Fatal(err)
	}
	page := "<html><head></head><body>" + strings.Repeat("<p>docsd serves pages.</p>\n", 700) + "</body></html>"
	if err := a.artifacts.PublishHTML(ctx, "demo", store.Latest, artifactstest.Dir(b, map[string]string{"index.html": page})); err != nil {
		b.Fatal(err)
	}
	built := true
	if _, err := s.UpdateVersion(ctx, v.ID, store.VersionUpdate{Built: &built}); err != nil {
		b.Fatal(err)
	}
	if _, err := s.CreateRedirect(ctx, store.Redirect{ProjectID: demo.ID, Type: "page",
		FromURL: "/old.html", ToURL: "/index.html", HTTPStatus: http.StatusFound, Enabled: true}); err != nil {
		b.Fatal(err)
	}
	public, docs, _ := a.handlers()
	if docs == nil {
		b.Fatal("no docs listener: docs share the public origin")
	}

	type request struct {
		h      http.Handler
		r      *http.Request
		status int
	}
	const docsBase = "/docs/demo/en/latest/"
	list := httptest.NewRequest(http.MethodGet, "/api/v3/projects/?limit=100", nil)
	list.Header.Set("Authorization", "Token "+key)
	docsRequests := []request{
		{docs, httptest.NewRequest(http.MethodGet, docsBase+"index.html", nil), http.StatusOK},
		{docs, httptest.NewRequest(http.MethodGet, docsBase+"old.html", nil), http.StatusFound},
		{docs, httptest.NewRequest(http.MethodGet, docsBase+"missing.html", nil), http.StatusNotFound},
	}
	workloads := []struct {
		name     string
		requests []request
		live     int // MiB kept live while it runs, as a larger site's caches
	}{
		{"Docs", docsRequests, 0},
		{"RESTList", []request{{public, list, http.StatusOK}}, 0},
		{"DocsLive40MiB", docsRequests, 40},
	}
	for _, wl := range workloads {
		for _, rq := range wl.requests { // warm caches, check the answers
			w := httptest.NewRecorder()
			rq.h.ServeHTTP(w, rq.r)
			if w.Code != rq.status {
				b.Fatalf("%s %s: status %d, want %d: %s", wl.name, rq.r.URL, w.Code, rq.status, w.Body)
			}
		}
		b.Run(wl.name, func(b *testing.B) {
			for _, p := range gcPacings {
				b.Run(p.name, func(b *testing.B) {
					defer p.apply(b)()
					live := make([][]byte, wl.live)
					for i := range live {
						live[i] = make([]byte, 1<<20)
					}
					b.ReportAllocs()
					b.SetParallelism(8)
					w := watchHeap()
					b.ResetTimer()
					b.RunParallel(func(pb *testing.PB) {
						for i := 0; pb.Next(); i++ {
							rq := wl.requests[i%len(wl.requests)]
							rec := httptest.NewRecorder()
							rq.h.ServeHTTP(rec, rq.r)
							if rec.Code != rq.status {
								b.Errorf("%s: status %d, want %d", rq.r.URL, rec.Code, rq.status)
								return
							}
						}
					})
					b.StopTimer()
					w.end(b)
					runtime.KeepAlive(live)
				})
			}
		})
	}
}
