package search

import (
	"math"
	"strings"

	"docsd/store"
)

// impactScale turns a score into a posting's integer impact.
const impactScale = 1000

// postings are the page's words, each with its impact: the page's score
// for a query of that word alone, as typed (see pageEval.score), so a
// word's postings read best first are its best pages.
func postings(p *store.IndexPage) []store.Posting {
	type fieldTF map[string]int
	count := func(words []string) fieldTF {
		tf := make(fieldTF, len(words))
		for _, w := range words {
			tf[w]++
		}
		return tf
	}
	bm25 := func(tf, n int, avg float64) float64 {
		if tf == 0 {
			return 0
		}
		f := float64(tf)
		return f * (bm25K1 + 1) / (f + bm25K1*(1-bm25B+bm25B*float64(n)/avg))
	}
	type acc struct{ best, rest float64 }
	byWord := map[string]*acc{}
	for _, sec := range p.Sections {
		title, content := count(sec.TitleWords), count(sec.ContentWords)
		named := anchorNames(sec)
		seen := make(map[string]bool, len(title)+len(content))
		for _, tf := range []fieldTF{title, content} {
			for w := range tf {
				if seen[w] {
					continue
				}
				seen[w] = true
				score := weightSectionTitle*bm25(title[w], len(sec.TitleWords), avgTitleLen) +
					weightContent*bm25(content[w], len(sec.ContentWords), avgContentLn) + named[w]
				a := byWord[w]
				if a == nil {
					a = &acc{}
					byWord[w] = a
				}
				if score > a.best {
					a.best, a.rest = score, a.rest+a.best
				} else {
					a.rest += score
				}
			}
		}
	}
	title := count(p.TitleWords)
	for w := range title {
		if byWord[w] == nil {
			byWord[w] = &acc{}
		}
	}
	factor := rankFactor(p.Rank)
	out := make([]store.Posting, 0, len(byWord))
	for w, a := range byWord {
		total := (weightPageTitle*bm25(title[w], len(p.TitleWords), avgTitleLen) + a.best + weightOtherSections*min(a.rest, a.best)) * factor
		out = append(out, store.Posting{Word: w, Impact: int(math.Round(total * impactScale))})
	}
	return out
}

// anchorNames is the anchor bonus a one-word query gets from a section's
// anchor and labels (see matcher.anchorBonus, in the case typed): by the
// last word of each name.
func anchorNames(sec store.IndexSection) map[string]float64 {
	out := map[string]float64{}
	for i, anchor := range append([]string{sec.Anchor}, strings.Fields(sec.Labels)...) {
		name, module := strings.CutPrefix(anchor, "module-")
		words := Words(name)
		if len(words) == 0 {
			continue
		}
		b := bonusAnchorSuffix
		if len(words) == 1 {
			b = bonusAnchorExact
		}
		if i == 0 && sec.Definition || module {
			b *= bonusDefinition
		}
		last := words[len(words)-1]
		out[last] = max(out[last], b)
	}
	return out
}
