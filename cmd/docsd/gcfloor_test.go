package main

import (
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
	"time"
)

func TestFloorPercent(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		live, floor uint64
		want        int
	}{
		{3 * mib, 64 * mib, 2033},   // (64-3)/3
		{32 * mib, 64 * mib, 100},   // the floor is the goal GOGC=100 makes
		{40 * mib, 64 * mib, 100},   // never below GOGC's default
		{200 * mib, 64 * mib, 100},  // above the floor
		{0, 64 * mib, 1 << 20},      // nothing live yet: the most
		{1, 1 << 40, 1 << 20},       // capped
		{10 * mib, 30 * mib, 200},   // goal 30 MiB
		{64 * mib, 64 * mib, 100},   // at the floor
		{mib, 64*mib + mib/2, 6350}, // rounded down
		{5 * mib, 5*mib + 1, 100},   // just under the default
	} {
		if got := floorPercent(tc.live, tc.floor); got != tc.want {
			t.Errorf("floorPercent(%d, %d) = %d, want %d", tc.live, tc.floor, got, tc.want)
		}
	}
}

func gcPercent() uint64 {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestHeapFloorRaisesPercent: after a collection, a floor far above the
// live heap raises the GC percent; stopping it restores GOGC's default. A
// GOGC in the environment leaves the percent alone.
func TestHeapFloorRaisesPercent(t *testing.T) {
	if gcPercent() != defaultGCPercent {
		t.Skip("the test process runs with another GOGC")
	}
	stop := startHeapFloor(1 << 40)
	deadline := time.Now().Add(30 * time.Second)
	for gcPercent() <= defaultGCPercent {
		if time.Now().After(deadline) {
			stop()
			t.Fatalf("GC percent still %d after collections", gcPercent())
		}
		runtime.GC()
		runtime.Gosched()
	}
	stop()
	if p := gcPercent(); p != defaultGCPercent {
		t.Errorf("after stop: GC percent %d, want %d", p, defaultGCPercent)
	}
	runtime.GC() // the finalizer of the last sentinel sees stopped
	runtime.GC()
	if p := gcPercent(); p != defaultGCPercent {
		t.Errorf("after stop and collections: GC percent %d, want %d", p, defaultGCPercent)
	}

	t.Setenv("GOGC", "100")
	stop = startHeapFloor(1 << 40)
	defer stop()
	for range 3 {
		runtime.GC()
	}
	if p := gcPercent(); p != defaultGCPercent {
		t.Errorf("with GOGC set: GC percent %d, want %d", p, defaultGCPercent)
	}
}

func TestGCHeapFloorSetting(t *testing.T) {
	if code, _, errOut := docsd(t, "serve", "--gc-heap-floor", "-1"); code != 2 || !strings.Contains(errOut, "--gc-heap-floor must not be negative") {
		t.Errorf("--gc-heap-floor -1: exit %d, stderr %q", code, errOut)
	}
}
