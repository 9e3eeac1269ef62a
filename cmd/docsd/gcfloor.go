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
// grown to at least floor bytes. With GOGC=100 the heap goal is twice the
// live heap, and docsd's live heap is a few MB, so under a stream of docs
// requests (a few KB of garbage each) the collector runs many times a
// second, each cycle taking CPU from the requests and stopping the world
// for a moment. After every collection it sets the GC percent so that the
// next goal is floor, and never below GOGC's default: a live heap of
// floor/2 or more is collected as GOGC=100 would. The cost is up to floor
// bytes of garbage more than GOGC=100 keeps, and more for one cycle when
// the live heap jumps: the percent set from one collection's live heap
// makes the goal of the next, so a live heap that grew k-fold in between
// gets a goal up to k times the floor. GOMEMLIMIT, when set, still bounds
// the total. The default is 32 MiB, not more: under REST lists a 64 MiB
// floor took the process past its memory target.
//
// Why not the runtime's documented knobs alone: BenchmarkGCPacing
// (go test ./cmd/docsd -run '^$' -bench GCPacing -benchtime 1s -count 3)
// serves docs pages and REST lists under GOGC=100, this floor, GOGC=off
// with a GOMEMLIMIT, and a higher GOGC with a GOMEMLIMIT. A fixed limit
// can match the floor's collections and peak heap for one live heap, but
// its DocsLive40MiB case shows that same limit collecting without pause,
// at a fraction of the floor's throughput, once the live heap comes near
// it (the GC guide's death spiral); higher limits keep the heap at the
// limit when the live heap is small. The floor needs no sizing to the
// site: above floor/2 it is GOGC=100. docs/performance.md has the figures.
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
