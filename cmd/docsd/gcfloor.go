package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// defaultGCHeapFloor is --gc-heap-floor's default, in bytes.
const defaultGCHeapFloor = 32 << 20

// defaultGCPercent is GOGC's default, the percent a heap floor never goes
// below.
const defaultGCPercent = 100

// heapFloor keeps the garbage collector from running before the heap has
// grown to at least floor bytes: with GOGC=100 the heap goal is twice the
// live heap, and docsd's live heap is a few MB, so under a stream of docs
// requests (a few KB of garbage each) the collector ran about ten times a
// second, each cycle stopping the world for milliseconds on a loaded
// machine (GODEBUG=gctrace=1 under hosting/bench/serve-bench.sh's wrk:
// 30 cycles in 3 s of redirects; none with the floor). After every
// collection it sets the GC percent so that the next goal is floor, and
// never below GOGC's default: a live heap of floor/2 or more is collected
// as GOGC=100 would. The cost is at most floor bytes of garbage more than
// GOGC=100 keeps; GOMEMLIMIT, when set, still bounds the total. The default
// is 32 MiB, not more: under REST lists (16 clients, ~5 MB of garbage a
// request) a 64 MiB floor let the heap's spans reach 133 MB and the
// process's peak RSS 169 MB, past the 150 MB target; with 32 MiB the peak
// was 95 MB. Docs answers make 1-2 KB of garbage each (BenchmarkServeHotPaths),
// so 20,000 a second fill 32 MiB in about a second and a half.
type heapFloor struct {
	floor   uint64
	stopped atomic.Bool
	live    []metrics.Sample
}

// startHeapFloor starts keeping a heap floor of floor bytes, unless floor
// is 0 or the operator chose the collector's pace with GOGC. stop restores
// GOGC's default percent; the adjustment after the next collection is the
// last.
func startHeapFloor(floor uint64) (stop func()) {
	if floor == 0 || os.Getenv("GOGC") != "" {
		return func() {}
	}
	hf := &heapFloor{floor: floor, live: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
	hf.arm()
	return func() {
		hf.stopped.Store(true)
		debug.SetGCPercent(defaultGCPercent)
	}
}

// gcSentinel is garbage as soon as it is made; its finalizer runs after the
// collection that found it unreachable, once per cycle. The pointer keeps
// it out of the tiny allocator, whose blocks are finalized late or never.
type gcSentinel struct{ _ *byte }

func (hf *heapFloor) arm() {
	runtime.SetFinalizer(&gcSentinel{}, func(*gcSentinel) {
		if hf.stopped.Load() {
			return
		}
		metrics.Read(hf.live)
		if v := hf.live[0].Value; v.Kind() == metrics.KindUint64 {
			debug.SetGCPercent(floorPercent(v.Uint64(), hf.floor))
		}
		hf.arm()
	})
}

// floorPercent is the GC percent that makes the heap goal floor bytes for a
// live heap of live bytes, and never less than GOGC's default.
func floorPercent(live, floor uint64) int {
	if live == 0 {
		live = 1
	}
	if floor <= live {
		return defaultGCPercent
	}
	p := (floor - live) * 100 / live
	const most = 1 << 20 // a live heap of a few bytes: any percent will do
	switch {
	case p < defaultGCPercent:
		return defaultGCPercent
	case p > most:
		return most
	}
	return int(p)
}
