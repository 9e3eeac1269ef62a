package search

import (
	"context"
	"sort"

	"docsd/store"
)

// Reading the impact-ordered index: each non-excluded term is looked up by
// its words' expansions (the dictionary words of the same stem, and those
// a prefix starts), at most maxExpansions of them, the most frequent
// first. The best postings of each term's expansions give candidate pages
// and a first score (the sum of their impacts); the best of those are
// then judged exactly, on their text, as the full-text path judges every
// candidate.
const (
	maxExpansions = 16
	// A query judges the results it shows and judgeExtra more on their
	// text: the first score is a single-term query's final one but for a
	// section holding several of the term's expansions and the anchor's
	// case, and close to it for several terms, whose pages found by
	// several terms rise (readDepth).
	judgeExtra = 5
	// maxCandidates bounds the pages judged when exclusions, required
	// terms or phrases keep dropping candidates.
	maxCandidates = 4000
	// readDepth is how many postings per word are read for each page
	// judged: pages found by several terms rise in the first score, and
	// lists read to their end make the count exact (a few hundred
	// postings cost little next to judging a page).
	readDepth = 9
)

// expansion is a dictionary word standing for a query word, with how well
// it meets that word (see matcher.wordWeight, the best of the languages').
type expansion struct {
	word   string
	pages  int
	weight float64
}

// termWords returns, for each non-excluded term, the dictionary words its
// postings are read from: the expansions of its rarest word (a phrase is
// found by one of its words and checked on the text).
func (s *Service) termWords(ctx context.Context, versionIDs []int64, q Query, matchers map[string]*matcher) ([][]expansion, error) {
	out := make([][]expansion, len(q.Terms))
	for ti, t := range q.Terms {
		if t.Mode == MustNot {
			continue
		}
		var best []expansion
		bestPages := -1
		for k := range t.Words {
			exps, err := s.expand(ctx, versionIDs, ti, k, matchers)
			if err != nil {
				return nil, err
			}
			pages := 0
			for _, e := range exps {
				pages += e.pages
			}
			if bestPages < 0 || pages < bestPages {
				best, bestPages = exps, pages
			}
		}
		out[ti] = best
	}
	return out, nil
}

// expand returns the dictionary words that meet word k of term ti in any
// of the matchers' languages, the word itself first when it is one, then
// by pages descending: at most maxExpansions.
func (s *Service) expand(ctx context.Context, versionIDs []int64, ti, k int, matchers map[string]*matcher) ([]expansion, error) {
	w := mTerms(matchers)[ti].Words[k]
	prefix := w
	for _, m := range matchers {
		if m.stem != nil && len(m.prefixes[ti][k]) < len(prefix) {
			prefix = m.prefixes[ti][k]
		}
	}
	words, err := s.Store.FindSearchWords(ctx, versionIDs, prefix)
	if err != nil {
		return nil, err
	}
	var out []expansion
	for _, sw := range words {
		weight := 0.0
		for _, m := range matchers {
			weight = max(weight, m.wordWeight(ti, k, sw.Word))
		}
		if weight > 0 {
			out = append(out, expansion{sw.Word, sw.Pages, weight})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if (out[i].word == w) != (out[j].word == w) {
			return out[i].word == w
		}
		return out[i].pages > out[j].pages
	})
	return out[:min(len(out), maxExpansions)], nil
}

// mTerms is the query's terms, which every matcher holds.
func mTerms(matchers map[string]*matcher) []Term {
	for _, m := range matchers {
		return m.terms
	}
	return nil
}

// searchIndexed answers q over versions indexed in the current format,
// which hold n pages. It returns the matching pages judged and the count
// of matching pages.
func (s *Service) searchIndexed(ctx context.Context, versionIDs []int64, n int, q Query, matchers map[string]*matcher, langOf func(*store.SearchPage) string, want int) ([]*pageEval, int, error) {
	terms, err := s.termWords(ctx, versionIDs, q, matchers)
	if err != nil {
		return nil, 0, err
	}
	found := false
	for _, exps := range terms {
		found = found || len(exps) > 0
	}
	if !found {
		return nil, 0, nil
	}
	// A term's pages are estimated by its most frequent expansion's (the
	// expansions' pages overlap: most pages with `exceptions` also have
	// `exception`).
	df := make([]int, len(q.Terms))
	for ti, exps := range terms {
		for _, e := range exps {
			df[ti] = max(df[ti], e.pages)
		}
		df[ti] = min(df[ti], n)
	}
	for _, m := range matchers {
		m.setRarity(n, df)
	}
	positive, plain := 0, true
	for _, t := range q.Terms {
		if t.Mode != MustNot {
			positive++
		}
		plain = plain && t.Mode == Should && len(t.Words) == 1
	}
	judge, depth := want+judgeExtra, 1
	if positive > 1 {
		depth = readDepth
	}
	for {
		// The first score of a page: its impacts for the terms, each
		// term's best expansion, weighed like the terms.
		first := map[int64]float64{}
		complete := true
		var words []string
		for _, exps := range terms {
			for _, e := range exps {
				words = append(words, e.word)
			}
		}
		lists, err := s.Store.FindTopPostings(ctx, versionIDs, words, depth*judge)
		if err != nil {
			return nil, 0, err
		}
		byWord := map[string][]store.WordPostings{}
		for _, l := range lists {
			byWord[l.Word] = append(byWord[l.Word], l)
			complete = complete && l.Complete
		}
		for ti, exps := range terms {
			// A page's impact for an expansion counts by how well the
			// expansion meets the query's word, as it does when judged.
			best := map[int64]float64{}
			for _, e := range exps {
				for _, l := range byWord[e.word] {
					for _, p := range l.Postings {
						best[p.PageID] = max(best[p.PageID], e.weight*float64(p.Impact))
					}
				}
			}
			for id, imp := range best {
				first[id] += anyWeight(matchers, ti) * imp
			}
		}
		ids := make([]int64, 0, len(first))
		for id := range first {
			ids = append(ids, id)
		}
		sort.Slice(ids, func(i, j int) bool {
			if first[ids[i]] != first[ids[j]] {
				return first[ids[i]] > first[ids[j]]
			}
			// Lists hold equal impacts in page id order, which is path
			// order within a version, as results are ordered.
			return ids[i] < ids[j]
		})
		// Every page found holds a word of a term, so it matches unless
		// the query has required or excluded terms or phrases: then the
		// pages found are the count, and only the best need judging.
		union := len(ids)
		if (!complete || plain) && len(ids) > judge {
			ids = ids[:judge]
		}
		evals, err := s.judge(ctx, ids, matchers, langOf)
		if err != nil {
			return nil, 0, err
		}
		if complete && plain {
			return evals, union, nil
		}
		if complete {
			return evals, len(evals), nil
		}
		if judge >= maxCandidates && len(evals) < want {
			// The pages judged were too few to fill the window: the
			// count says what was found, so that no page of results
			// comes back empty.
			return evals, len(evals), nil
		}
		if len(evals) >= want {
			return evals, max(estimateCount(q, df), len(evals)), nil
		}
		judge = min(2*judge, maxCandidates)
	}
}

// estimateCount estimates the matching pages when there are more than
// were judged, from the terms' pages (df, see searchIndexed): the pages of
// the most frequent term, or with required terms those of the rarest
// required one. Pages holding only other terms, phrases and exclusions
// make the true count differ.
func estimateCount(q Query, df []int) int {
	count, must := 0, -1
	for ti, t := range q.Terms {
		switch t.Mode {
		case Must:
			if must < 0 || df[ti] < must {
				must = df[ti]
			}
		case Should:
			count = max(count, df[ti])
		}
	}
	if must >= 0 {
		return must
	}
	return count
}

// anyWeight is term ti's weight (the same in every matcher).
func anyWeight(matchers map[string]*matcher, ti int) float64 {
	for _, m := range matchers {
		return m.weights[ti]
	}
	return 1
}

// judge reads the pages and all their sections and evaluates them
// exactly; it returns the matching ones, scored.
func (s *Service) judge(ctx context.Context, ids []int64, matchers map[string]*matcher, langOf func(*store.SearchPage) string) ([]*pageEval, error) {
	pages, err := s.Store.FindSearchPages(ctx, ids)
	if err != nil {
		return nil, err
	}
	secs, err := s.Store.FindSearchPageSections(ctx, ids)
	if err != nil {
		return nil, err
	}
	attachSections(pages, secs)
	var evals []*pageEval
	for _, p := range pages {
		m := matchers[langOf(p)]
		if e, ok := evaluate(p, m); ok {
			e.score(m)
			evals = append(evals, e)
		}
	}
	return evals, nil
}
