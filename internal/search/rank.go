package search

import (
	"math"
	"sort"
	"strings"

	"docsd/store"
)

// Field weights: a match in a section title counts more than one in the
// page title, which counts more than one in the content.
const (
	weightSectionTitle = 3.0
	weightPageTitle    = 2.0
	weightContent      = 1.0
)

// A section whose anchor is the query's words (`asyncio.gather`,
// `dict.get`, a heading's slug) or ends with them (`defaultdict` of
// `collections.defaultdict`) is what the reader asked for by name: it gets
// a bonus, more for an API definition, and a little more when the anchor
// has the words in the case the reader typed them.
const (
	bonusAnchorExact  = 6.0
	bonusAnchorSuffix = 3.0
	bonusDefinition   = 1.5 // a factor of the anchor bonus
	bonusAnchorCase   = 1.0
)

// A section whose anchor is one of the query's terms (or ends with it)
// while the section holds the others answers the query through that name:
// `open file` is `open()` taking a file, `property decorator` is
// `property`, used as a decorator. It gets a share of the bonus.
const bonusAnchorPartial = 0.75

// How much a word that is not the query's word as typed counts: one with
// the same stem (`comprehensions` for `comprehension`), one that only
// starts with the query's last word, still being typed (`gather` for
// `gat`).
const (
	weightStemmed  = 0.9
	weightPrefixed = 0.6
)

// weightOtherSections is how much the sections of a page other than its
// best one add to its score, at most as much as the best one: a page
// answers a query with one section, and a long page mentioning the words
// everywhere must not outrank it.
const weightOtherSections = 0.1

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
}

// matcher decides which words of a text meet a query's terms, in the
// language of the pages searched. It is used by one search at a time.
type matcher struct {
	terms []Term
	stem  func(string) string // nil: words match only as written (folded)
	// stems and prefixes are, per term and word, the word's stem and the
	// part every word with that stem starts with.
	stems, prefixes [][]string
	cache           map[string]string
	// typed is the query text's words as typed (not folded), joined by
	// spaces, for anchors in the reader's case.
	typed string
	// weights are the terms' weights, from their rarity (see setRarity).
	weights []float64
}

// newMatcher prepares the terms of q for pages in language.
func newMatcher(q Query, language string) *matcher {
	terms := q.Terms
	m := &matcher{terms: terms, stem: stemmerFor(language), cache: map[string]string{}, typed: rawWords(q.Text)}
	m.weights = make([]float64, len(terms))
	for i := range m.weights {
		m.weights[i] = 1
	}
	if m.stem == nil {
		return m
	}
	m.stems = make([][]string, len(terms))
	m.prefixes = make([][]string, len(terms))
	for ti, t := range terms {
		m.stems[ti] = make([]string, len(t.Words))
		m.prefixes[ti] = make([]string, len(t.Words))
		for k, w := range t.Words {
			st := m.stem(w)
			m.stems[ti][k], m.prefixes[ti][k] = st, stemPrefix(w, st)
		}
	}
	return m
}

func (m *matcher) stemOf(g string) string {
	st, ok := m.cache[g]
	if !ok {
		st = m.stem(g)
		m.cache[g] = st
	}
	return st
}

// wordWeight is how well the folded text word g meets word k of term ti:
// 1 as typed, less for another word of its stem or a word the last word
// of a prefix term starts, 0 when it does not meet it. Exclusions match
// only as typed, as the engines exclude them.
func (m *matcher) wordWeight(ti, k int, g string) float64 {
	t := &m.terms[ti]
	w := t.Words[k]
	if g == w {
		return 1
	}
	prefixed := k == len(t.Words)-1 && t.Prefix && strings.HasPrefix(g, w)
	if t.Mode == MustNot {
		if prefixed {
			return 1
		}
		return 0
	}
	if m.stem != nil && m.prefixes[ti][k] != "" && strings.HasPrefix(g, m.prefixes[ti][k]) && m.stemOf(g) == m.stems[ti][k] {
		return weightStemmed
	}
	if prefixed {
		return weightPrefixed
	}
	return 0
}

// termWeight is how well the words at[0..] meet term ti, word by word:
// the weakest word's weight, 0 when one does not meet it.
func (m *matcher) termWeight(ti int, at func(k int) string) float64 {
	best := 1.0
	for k := range m.terms[ti].Words {
		w := m.wordWeight(ti, k, at(k))
		if w == 0 {
			return 0
		}
		best = min(best, w)
	}
	return best
}

// matchField finds the terms in a field's words.
func (m *matcher) matchField(words []word) fieldMatch {
	var fm fieldMatch
	for ti, t := range m.terms {
		if t.Mode == MustNot {
			continue
		}
		n := len(t.Words)
		for i := 0; i+n <= len(words); i++ {
			if m.termWeight(ti, func(k int) string { return words[i+k].folded }) > 0 {
				fm.spans = append(fm.spans, span{words[i].start, words[i+n-1].end})
			}
		}
	}
	return fm
}

// fieldCount is how the query's terms met one field: weighted occurrences
// per term (nil when none) and the field's length in words.
type fieldCount struct {
	tf       []float64
	n        int
	positive bool // a non-excluded term occurs
}

// countField counts the terms in text in one pass, without keeping its
// words: the last maxPhraseWords words are enough to find phrases.
func (m *matcher) countField(text string) fieldCount {
	var c fieldCount
	var recent [maxPhraseWords]string
	eachWord(text, func(w word) {
		recent[c.n%maxPhraseWords] = w.folded
		c.n++
		for ti, t := range m.terms {
			k := len(t.Words)
			if k > c.n {
				continue
			}
			n := c.n
			if wt := m.termWeight(ti, func(j int) string { return recent[(n-k+j)%maxPhraseWords] }); wt > 0 {
				if c.tf == nil {
					c.tf = make([]float64, len(m.terms))
				}
				c.tf[ti] += wt
				c.positive = c.positive || t.Mode != MustNot
			}
		}
	})
	return c
}

// rawWords is text's runs of letters and digits as written, joined by
// spaces.
func rawWords(text string) string {
	return strings.Join(strings.FieldsFunc(text, func(r rune) bool { return !isWordRune(r) }), " ")
}

// anchorBonus is the best bonus of a section's anchor and labels for the
// query: exact, suffix or none, more for definitions and in the typed
// case; a share of it when the anchor names one term and the section
// holds the others (present reports whether term ti occurs in the
// section). Sphinx's module anchors (`module-heapq`) name the module.
func (m *matcher) anchorBonus(sec *store.SearchSection, present func(ti int) bool) float64 {
	best := 0.0
	for i, anchor := range append([]string{sec.Anchor}, strings.Fields(sec.Labels)...) {
		name, module := strings.CutPrefix(anchor, "module-")
		exact, ok := m.anchorMatch(name)
		share := 1.0
		if !ok {
			exact, ok = m.anchorNamesTerm(name, present)
			share = bonusAnchorPartial
		}
		if !ok {
			continue
		}
		b := bonusAnchorSuffix
		if exact {
			b = bonusAnchorExact
		}
		if i == 0 && sec.Definition || module {
			b *= bonusDefinition
		}
		if raw := rawWords(name); share == 1 && m.typed != "" && (raw == m.typed || strings.HasSuffix(raw, " "+m.typed)) {
			b += bonusAnchorCase
		}
		best = max(best, share*b)
	}
	return best
}

// anchorNamesTerm reports whether an anchor names one of the query's
// terms of one word, as its last word, while every other non-excluded
// term is present in the section; exact is set when the anchor is that
// word alone.
func (m *matcher) anchorNamesTerm(anchor string, present func(ti int) bool) (exact, ok bool) {
	words := Words(anchor)
	if len(words) == 0 {
		return false, false
	}
	named := -1
	for ti, t := range m.terms {
		if t.Mode != MustNot && len(t.Words) == 1 && m.wordWeight(ti, 0, words[len(words)-1]) > 0 {
			named = ti
			break
		}
	}
	if named < 0 {
		return false, false
	}
	for ti, t := range m.terms {
		if ti != named && t.Mode != MustNot && !present(ti) {
			return false, false
		}
	}
	return len(words) == 1, true
}

// anchorMatch reports whether a section's anchor names what the query
// asks for: the query's non-excluded words, in query order, are words of
// the anchor, the last one its last word (`pathlib glob` names
// `pathlib.Path.glob`). exact is set when they are all its words.
func (m *matcher) anchorMatch(anchor string) (exact, ok bool) {
	if anchor == "" {
		return false, false
	}
	words := Words(anchor)
	var want []func(string) bool
	for ti, t := range m.terms {
		if t.Mode == MustNot {
			continue
		}
		for k := range t.Words {
			want = append(want, func(g string) bool { return m.wordWeight(ti, k, g) > 0 })
		}
	}
	if len(want) == 0 || len(want) > len(words) || !want[len(want)-1](words[len(words)-1]) {
		return false, false
	}
	// The other words, right to left, each as far right as it goes.
	i := len(words) - 2
	for j := len(want) - 2; j >= 0; j-- {
		for i >= 0 && !want[j](words[i]) {
			i--
		}
		if i < 0 {
			return false, false
		}
		i--
	}
	return len(want) == len(words), true
}

// has reports whether term ti occurs in the field.
func (c fieldCount) has(ti int) bool { return c.tf != nil && c.tf[ti] > 0 }

// score is a field's BM25-like relevance for the non-excluded terms, each
// term's counting by its weight.
func (c fieldCount) score(m *matcher, avg float64) float64 {
	var s float64
	for ti, f := range c.tf {
		if f == 0 || m.terms[ti].Mode == MustNot {
			continue
		}
		s += m.weights[ti] * f * (bm25K1 + 1) / (f + bm25K1*(1-bm25B+bm25B*float64(c.n)/avg))
	}
	return s
}

// setRarity weighs the terms by their rarity among the pages searched
// (BM25's inverse document frequency, the rarest term weighing 1): n
// pages, of which df[ti] contain term ti.
func (m *matcher) setRarity(n int, df []int) {
	top := 0.0
	for ti := range m.terms {
		idf := math.Log(1 + (float64(n)-float64(df[ti])+0.5)/(float64(df[ti])+0.5))
		m.weights[ti] = idf
		top = max(top, idf)
	}
	for ti := range m.weights {
		if top > 0 {
			m.weights[ti] /= top
		} else {
			m.weights[ti] = 1
		}
	}
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
	title    fieldCount
	sections []sectionEval
	seen     []float64 // weighted occurrences per term
	total    float64   // the score
	all      bool      // every non-excluded term matched somewhere
}

type sectionEval struct {
	sec            *store.SearchSection
	title, content fieldCount
	score          float64
}

// evaluate reports whether page matches the matcher's query, and counts
// the terms in its fields; score scores it.
func evaluate(page *store.SearchPage, m *matcher) (*pageEval, bool) {
	e := &pageEval{page: page, title: m.countField(page.Title), seen: make([]float64, len(m.terms))}
	add := func(c fieldCount) {
		for ti, tf := range c.tf {
			e.seen[ti] += tf
		}
	}
	add(e.title)
	for i := range page.Sections {
		sec := &page.Sections[i]
		se := sectionEval{sec: sec, title: m.countField(sec.Title), content: m.countField(sec.Content)}
		add(se.title)
		add(se.content)
		e.sections = append(e.sections, se)
	}
	anyMatch := false
	e.all = true
	for ti, t := range m.terms {
		switch {
		case t.Mode == MustNot && e.seen[ti] > 0:
			return nil, false
		case t.Mode == Must && e.seen[ti] == 0:
			return nil, false
		case t.Mode != MustNot && e.seen[ti] > 0:
			anyMatch = true
		case t.Mode != MustNot:
			e.all = false
		}
	}
	return e, anyMatch
}

// score sets the page's score: its title's, its best section's, and a
// little of the others', times the page's rank factor.
func (e *pageEval) score(m *matcher) {
	var best, rest float64
	for i := range e.sections {
		se := &e.sections[i]
		se.score = weightSectionTitle*se.title.score(m, avgTitleLen) + weightContent*se.content.score(m, avgContentLn)
		if se.title.positive || se.content.positive {
			se.score += m.anchorBonus(se.sec, func(ti int) bool { return se.title.has(ti) || se.content.has(ti) })
		}
		if se.score > best {
			best, rest = se.score, rest+best
		} else {
			rest += se.score
		}
	}
	e.total = (weightPageTitle*e.title.score(m, avgTitleLen) + best + weightOtherSections*min(rest, best)) * rankFactor(e.page.Rank)
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
		if a.total != b.total {
			return a.total > b.total
		}
		if sa, sb := slugOf(a.page), slugOf(b.page); sa != sb {
			return sa < sb
		}
		return a.page.Path < b.page.Path
	})
}
