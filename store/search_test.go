package store_test

import (
	"fmt"
	"testing"

	"docsd/internal/errs"
	"docsd/internal/storetest"
	"docsd/store"
)

// TestSearchIndexStore: replacing a version's entries is all or nothing,
// candidates honour terms, prefixes and exclusions, and sections come back
// in order, on both databases.
func TestSearchIndexStore(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s, res := demoProject(t, d)
		ctx, v := t.Context(), res.Latest
		page := func(path, title string, secs ...string) store.IndexPage {
			p := store.IndexPage{Path: path, Doctype: "sphinx", Title: title, TitleWords: []string{title}}
			for i := 0; i+1 < len(secs); i += 2 {
				p.Sections = append(p.Sections, store.IndexSection{Title: secs[i], Content: secs[i+1],
					TitleWords: []string{secs[i]}, ContentWords: []string{secs[i+1]}})
			}
			return p
		}
		must(t, s.ReplaceSearchIndex(ctx, res.Project.ID, v.ID, []store.IndexPage{
			page("a.html", "alpha", "install", "pip", "usage", "run"),
			page("b.html", "beta", "installation", "apt"),
		}))
		// A replacement that fails half-way leaves the old entries.
		err := s.ReplaceSearchIndex(ctx, res.Project.ID, v.ID, []store.IndexPage{page("c.html", "gamma"), page("d.html", "bad\xff")})
		wantKind(t, err, errs.Invalid)
		if n, err := s.CountSearchPages(ctx, v.ID); err != nil || n != 2 {
			t.Fatalf("pages after a failed replace: %d, %v", n, err)
		}
		ids := func(terms, exclude []store.SearchTerm) int {
			t.Helper()
			got, err := s.FindSearchCandidates(ctx, []int64{v.ID}, terms, exclude)
			must(t, err)
			return len(got)
		}
		term := func(w string, prefix bool) []store.SearchTerm {
			return []store.SearchTerm{{Words: []string{w}, Prefix: prefix}}
		}
		for _, c := range []struct {
			name          string
			terms, except []store.SearchTerm
			want          int
		}{
			{"word", term("install", false), nil, 1},
			{"prefix", term("install", true), nil, 2},
			{"page title", term("beta", false), nil, 1},
			{"excluded", term("install", true), term("apt", false), 1},
			{"none", term("zzz", false), nil, 0},
			{"quote in a word", term(`a"b'c`, false), nil, 0},
		} {
			if got := ids(c.terms, c.except); got != c.want {
				t.Errorf("%s: %d candidates, want %d", c.name, got, c.want)
			}
		}
		secs, err := s.FindSearchSections(ctx, []int64{v.ID}, append(term("pip", false), term("run", false)...))
		must(t, err)
		if len(secs) != 2 || secs[0].Position != 0 || secs[1].Position != 1 || secs[1].Title != "usage" {
			t.Errorf("sections = %+v", secs)
		}
	})
}

// TestSearchWordsAndPostings: a prefix starting many words gives the ones
// most pages hold, one starting few gives them all, and a word's best
// postings come back best first, as many as asked, across blocks, on both
// databases.
func TestSearchWordsAndPostings(t *testing.T) {
	storetest.Dialects(t, func(t *testing.T, d store.Dialect) {
		s, res := demoProject(t, d)
		ctx, v := t.Context(), res.Latest
		// Page i holds ab0 … ab(i%100) and common, whose impact on page i
		// is i: ab0 is on every page, ab99 on few; 100 words start
		// with ab, 11 with ab1.
		var pages []store.IndexPage
		for i := range 300 {
			p := store.IndexPage{Path: fmt.Sprintf("p%03d.html", i), Doctype: "sphinx", Title: "t", TitleWords: []string{"t"}}
			p.Postings = []store.Posting{{Word: "common", Impact: i}}
			for k := range i%100 + 1 {
				p.Postings = append(p.Postings, store.Posting{Word: fmt.Sprintf("ab%d", k), Impact: 1})
			}
			pages = append(pages, p)
		}
		must(t, s.ReplaceSearchIndex(ctx, res.Project.ID, v.ID, pages))
		words, err := s.FindSearchWords(ctx, []int64{v.ID}, "ab")
		must(t, err)
		if len(words) != 64 || words[0] != (store.SearchWord{Word: "ab0", Pages: 300}) || words[63].Word != "ab63" {
			t.Errorf("words of ab = %d, %+v … %+v", len(words), words[0], words[len(words)-1])
		}
		words, err = s.FindSearchWords(ctx, []int64{v.ID}, "ab1")
		must(t, err)
		if len(words) != 11 || words[0].Word != "ab1" || words[10].Word != "ab19" {
			t.Errorf("words of ab1 = %+v", words)
		}
		for _, limit := range []int{10, 64, 65, 300, 400} {
			lists, err := s.FindTopPostings(ctx, []int64{v.ID}, []string{"common"}, limit)
			must(t, err)
			n := min(limit, 300)
			if len(lists) != 1 || len(lists[0].Postings) != n || lists[0].Complete != (limit >= 300) {
				t.Fatalf("limit %d: %d lists, %d postings, complete %v", limit, len(lists), len(lists[0].Postings), lists[0].Complete)
			}
			for i, p := range lists[0].Postings {
				if p.Impact != 299-i {
					t.Fatalf("limit %d: posting %d has impact %d, want %d", limit, i, p.Impact, 299-i)
				}
			}
		}
	})
}

// demoProject is a store holding one project, demo, imported by alice.
func demoProject(t *testing.T, d store.Dialect) (*store.Store, *store.ImportResult) {
	t.Helper()
	s := storetest.Open(t, d)
	u, _ := storetest.MustUser(t, s, "alice")
	return s, storetest.MustImport(t, s, u, "demo", "https://example.com/demo")
}
