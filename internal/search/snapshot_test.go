package search_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"docsd/internal/search"
	"docsd/internal/storetest"
	"docsd/store"
)

// TestSearchDuringReindex: while a version is indexed again and again,
// alternately with two sets of pages, every search sees one set whole:
// its count and its hits are those of one set, never a mix or a part.
func TestSearchDuringReindex(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s := storetest.Open(t, d)
		ctx := t.Context()
		u, _ := storetest.MustUser(t, s, "alice")
		res := storetest.MustImport(t, s, u, "demo", "https://example.com/demo")
		v, err := s.UpdateVersion(ctx, res.Latest.ID, store.VersionUpdate{Built: ptr(true)})
		must(t, err)
		set := func(prefix string, n int) []store.IndexPage {
			var pages []store.IndexPage
			for i := range n {
				p := &search.Page{Title: fmt.Sprintf("%s page %d", prefix, i)}
				for j := range 3 {
					p.Sections = append(p.Sections, search.Section{ID: fmt.Sprintf("s%d", j), Title: "Section", Content: "common words of the " + prefix + " set"})
				}
				pages = append(pages, search.ToIndexPage(fmt.Sprintf("%s%02d.html", prefix, i), p))
			}
			return pages
		}
		sets := map[string][]store.IndexPage{"a": set("a", 30), "b": set("b", 20)}
		must(t, s.ReplaceSearchIndex(ctx, res.Project.ID, v.ID, sets["a"]))
		svc := &search.Service{Store: s, URLs: testURLs}
		q := search.ParseQuery("project:demo common")
		scope, err := svc.Scope(ctx, search.Reader{}, q.Args)
		must(t, err)

		const rounds = 20
		var wg sync.WaitGroup
		done := make(chan struct{})
		writeErr := make(chan error, 1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(done)
			for i := range rounds {
				if err := s.ReplaceSearchIndex(ctx, res.Project.ID, v.ID, sets[[]string{"b", "a"}[i%2]]); err != nil {
					writeErr <- err
					return
				}
			}
		}()
		searches := 0
		for running := true; running; {
			select {
			case <-done:
				running = false
			default:
			}
			r, err := svc.Search(ctx, q, scope, 0, 50)
			must(t, err)
			searches++
			want := map[int]string{30: "a", 20: "b"}[r.Count]
			if want == "" || len(r.Hits) != r.Count {
				t.Fatalf("search %d: count %d with %d hits, want 30 or 20 hits of one set", searches, r.Count, len(r.Hits))
			}
			for _, h := range r.Hits {
				if !strings.HasPrefix(h.StoredPath, want) {
					t.Fatalf("search %d: count %d (set %s) has hit %s of the other set", searches, r.Count, want, h.StoredPath)
				}
			}
		}
		wg.Wait()
		select {
		case err := <-writeErr:
			t.Fatal(err)
		default:
		}
		t.Logf("%d searches during %d reindexes", searches, rounds)
	})
}
