package search

import (
	"sort"
	"strings"

	"docsd/store"
)

// Field weights: a match in a section title counts more than one in the
// page title, which counts more than one in the content.
const (
	weightSectionTitle = 2.0
	weightPageTitle    = 1.5
	weightContent      = 1.0
)

// rankFactors are the multipliers of the page ranks -10 to 10 that a
// project's search.ranking gives (Read the Docs' table).
var rankFactors = [21]float64{0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 1, 1.3, 1.4, 1.5, 1.6, 1.7, 1.8, 1.9, 1.93, 1.96, 2}

// rankFactor is the multiplier of a page rank from -10 to 10.
func rankFactor(rank int) float64 {
	return rankFactors[min(max(rank, -10), 10)+10]
}

// BM25's saturation and length normalisation, with fixed average field
// lengths instead of corpus statistics, so a page's score depends on the
// page alone and is the same whichever engine found it.
const (
	bm25K1       = 1.2
	bm25B        = 0.75
	avgTitleLen  = 4.0
	avgContentLn = 60.0
)

// span is a matched byte range of a field.
type span struct{ start, end int }

// fieldMatch is how the query's terms met one field.
type fieldMatch struct {
	spans []span // every occurrence of a non-excluded term
	tf    []int  // occurrences per term, indexed like Query.Terms
}

// matchField finds the terms in a field's words.
func matchField(words []word, terms []Term) fieldMatch {
	m := fieldMatch{tf: make([]int, len(terms))}
	for ti, t := range terms {
		n := len(t.Words)
		for i := 0; i+n <= len(words); i++ {
			if !termAt(words, i, t) {
				continue
			}
			m.tf[ti]++
			if t.Mode != MustNot {
				m.spans = append(m.spans, span{words[i].start, words[i+n-1].end})
			}
		}
	}
	return m
}

func termAt(words []word, i int, t Term) bool {
	last := len(t.Words) - 1
	for k, w := range t.Words {
		got := words[i+k].folded
		if k == last && t.Prefix {
			if !strings.HasPrefix(got, w) {
				return false
			}
		} else if got != w {
			return false
		}
	}
	return true
}

// fieldCount is how the query's terms met one field: occurrences per
// term (nil when none) and the field's length in words.
type fieldCount struct {
	tf       []int
	n        int
	positive bool // a non-excluded term occurs
}

// countField counts the terms in text in one pass, without keeping its
// words: the last maxPhraseWords words are enough to find phrases.
func countField(text string, terms []Term) fieldCount {
	var c fieldCount
	var recent [maxPhraseWords]string
	eachWord(text, func(w word) {
		recent[c.n%maxPhraseWords] = w.folded
		c.n++
		for ti, t := range terms {
			if len(t.Words) <= c.n && endsWith(&recent, c.n, t) {
				if c.tf == nil {
					c.tf = make([]int, len(terms))
				}
				c.tf[ti]++
				c.positive = c.positive || t.Mode != MustNot
			}
		}
	})
	return c
}

// endsWith reports whether the n words seen so far (the last ones in
// recent) end with term t.
func endsWith(recent *[maxPhraseWords]string, n int, t Term) bool {
	k := len(t.Words)
	for j, w := range t.Words {
		got := recent[(n-k+j)%maxPhraseWords]
		if j == k-1 && t.Prefix {
			if !strings.HasPrefix(got, w) {
				return false
			}
		} else if got != w {
			return false
		}
	}
	return true
}

// score is a field's BM25-like relevance for the non-excluded terms.
func (c fieldCount) score(terms []Term, avg float64) float64 {
	var s float64
	for ti, tf := range c.tf {
		if tf == 0 || terms[ti].Mode == MustNot {
			continue
		}
		f := float64(tf)
		s += f * (bm25K1 + 1) / (f + bm25K1*(1-bm25B+bm25B*float64(c.n)/avg))
	}
	return s
}

// field is a text with its words, for highlighting.
type field struct {
	text  string
	words []word
}

func newField(text string) field { return field{text, splitWords(text)} }

// pageEval is one page judged against a query.
type pageEval struct {
	page     *store.SearchPage
	sections []sectionEval
	score    float64
	all      bool // every non-excluded term matched somewhere
}

type sectionEval struct {
	sec            *store.SearchSection
	title, content fieldCount
	score          float64
}

// evaluate reports whether page matches q and how well.
func evaluate(page *store.SearchPage, q Query) (*pageEval, bool) {
	e := &pageEval{page: page}
	seen := make([]int, len(q.Terms))
	add := func(c fieldCount) {
		for ti, tf := range c.tf {
			seen[ti] += tf
		}
	}
	title := countField(page.Title, q.Terms)
	add(title)
	e.score = weightPageTitle * title.score(q.Terms, avgTitleLen)
	for i := range page.Sections {
		sec := &page.Sections[i]
		se := sectionEval{sec: sec, title: countField(sec.Title, q.Terms), content: countField(sec.Content, q.Terms)}
		se.score = weightSectionTitle*se.title.score(q.Terms, avgTitleLen) + weightContent*se.content.score(q.Terms, avgContentLn)
		add(se.title)
		add(se.content)
		e.score += se.score
		e.sections = append(e.sections, se)
	}
	any := false
	e.all = true
	for ti, t := range q.Terms {
		switch {
		case t.Mode == MustNot && seen[ti] > 0:
			return nil, false
		case t.Mode == Must && seen[ti] == 0:
			return nil, false
		case t.Mode != MustNot && seen[ti] > 0:
			any = true
		case t.Mode != MustNot:
			e.all = false
		}
	}
	if !any {
		return nil, false
	}
	e.score *= rankFactor(page.Rank)
	return e, true
}

// blocks returns the matching sections, best first, ties in section
// order, at most max.
func (e *pageEval) blocks(max int) []sectionEval {
	var out []sectionEval
	for _, se := range e.sections {
		if se.title.positive || se.content.positive {
			out = append(out, se)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].score > out[j].score })
	if len(out) > max {
		out = out[:max]
	}
	return out
}

// sortEvals orders pages: pages matching every term first, then score
// descending, project slug, path (code point).
func sortEvals(evals []*pageEval, slugOf func(*store.SearchPage) string) {
	sort.Slice(evals, func(i, j int) bool {
		a, b := evals[i], evals[j]
		if a.all != b.all {
			return a.all
		}
		if a.score != b.score {
			return a.score > b.score
		}
		if sa, sb := slugOf(a.page), slugOf(b.page); sa != sb {
			return sa < sb
		}
		return a.page.Path < b.page.Path
	})
}
