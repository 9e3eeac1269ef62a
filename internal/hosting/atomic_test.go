package hosting

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"docsd/store"
)

// generation is a tree whose every file is the same marker repeated, large
// enough that a half-written file would show.
func generation(n int) map[string]string {
	content := strings.Repeat(fmt.Sprintf("generation %06d\n", n), 4096)
	return map[string]string{"index.html": content, "a.html": content, "deep/er/b.html": content, "404.html": content}
}

// TestPublishIsAtomicForReaders publishes new trees of a version over and
// over while readers fetch its pages: every answer is 200 and made of a
// single generation, and no reader ever sees a generation go back.
func TestPublishIsAtomicForReaders(t *testing.T) {
	f := newFixture(t, store.SQLite)
	demo := f.project("demo", "en")
	f.publish(demo, "latest", generation(0))
	const publishes = 40
	var (
		done     atomic.Bool
		requests atomic.Int64
		wg       sync.WaitGroup
	)
	for reader := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			last := -1
			for i := 0; !done.Load() || i < 5; i++ {
				file := []string{"", "a.html", "deep/er/b.html"}[(reader+i)%3]
				resp := f.get(latest + file)
				got := body(t, resp)
				requests.Add(1)
				if resp.StatusCode != 200 {
					t.Errorf("GET %s: got %d during a publish, want 200", file, resp.StatusCode)
					return
				}
				var gen int
				if _, err := fmt.Sscanf(got, "generation %d\n", &gen); err != nil {
					t.Errorf("GET %s: got %.40q, not a generation", file, got)
					return
				}
				if want := generation(gen)["index.html"]; got != want {
					t.Errorf("GET %s: got %d bytes mixing generations, want generation %d whole", file, len(got), gen)
					return
				}
				if gen < last {
					t.Errorf("GET %s: got generation %d after %d", file, gen, last)
					return
				}
				last = gen
			}
		}()
	}
	for n := 1; n <= publishes; n++ {
		f.publish(demo, "latest", generation(n))
	}
	done.Store(true)
	wg.Wait()
	if got := f.get(latest); !strings.HasPrefix(body(t, got), fmt.Sprintf("generation %06d", publishes)) {
		t.Errorf("after the last publish: not generation %d", publishes)
	}
	t.Logf("%d requests during %d publishes", requests.Load(), publishes)
}
