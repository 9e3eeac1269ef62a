package search

import (
	"sort"
	"strings"
	"unicode/utf8"
)

// escaper is the HTML encoder of RTD's highlighter.
var escaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#x27;", "/", "&#x2F;")

// fragmentRunes is the length of a content highlight.
const fragmentRunes = 100

// mergeSpans sorts spans and joins overlapping ones.
func mergeSpans(spans []span) []span {
	if len(spans) == 0 {
		return nil
	}
	s := append([]span(nil), spans...)
	sort.Slice(s, func(i, j int) bool { return s[i].start < s[j].start || s[i].start == s[j].start && s[i].end > s[j].end })
	out := s[:1]
	for _, x := range s[1:] {
		last := &out[len(out)-1]
		if x.start < last.end {
			last.end = max(last.end, x.end)
			continue
		}
		out = append(out, x)
	}
	return out
}

// markup escapes text[from:to] and wraps the spans inside it in <span>.
func markup(text string, spans []span, from, to int) string {
	var b strings.Builder
	pos := from
	for _, s := range spans {
		if s.end <= from || s.start >= to {
			continue
		}
		start, end := max(s.start, from), min(s.end, to)
		b.WriteString(escaper.Replace(text[pos:start]))
		b.WriteString("<span>")
		b.WriteString(escaper.Replace(text[start:end]))
		b.WriteString("</span>")
		pos = end
	}
	b.WriteString(escaper.Replace(text[pos:to]))
	return b.String()
}

// titleHighlight is [] without a match, else the whole highlighted title.
func titleHighlight(f field, m fieldMatch) []string {
	if len(m.spans) == 0 {
		return []string{}
	}
	return []string{markup(f.text, mergeSpans(m.spans), 0, len(f.text))}
}

// contentHighlight is [] without a match, else one fragment: the whole
// content when it is short, else the 100-character window starting at a
// word start that holds the most matches (earliest on ties), extended to
// the end of a word it cuts.
func contentHighlight(f field, m fieldMatch) []string {
	if len(m.spans) == 0 {
		return []string{}
	}
	spans := mergeSpans(m.spans)
	if utf8.RuneCountInString(f.text) <= fragmentRunes {
		return []string{markup(f.text, spans, 0, len(f.text))}
	}
	bestStart, bestEnd, best := 0, 0, -1
	// A window ends fragmentRunes characters after its word's start (or
	// at the text's end): start and end only move forward, so the text is
	// walked once, counting characters to both (startRunes, endRunes).
	pos, startRunes, end, endRunes := 0, 0, 0, 0
	for _, w := range f.words {
		startRunes += utf8.RuneCountInString(f.text[pos:w.start])
		pos = w.start
		for end < len(f.text) && endRunes < startRunes+fragmentRunes {
			_, size := utf8.DecodeRuneInString(f.text[end:])
			end += size
			endRunes++
		}
		lo := sort.Search(len(spans), func(i int) bool { return spans[i].start >= w.start })
		hi := sort.Search(len(spans), func(i int) bool { return spans[i].start >= end })
		n := hi - lo
		if n > best {
			bestStart, bestEnd, best = w.start, end, n
		}
	}
	// Extend a cut word to its end.
	for _, w := range f.words {
		if w.start < bestEnd && w.end > bestEnd {
			bestEnd = w.end
		}
	}
	for bestEnd > bestStart && f.text[bestEnd-1] == ' ' {
		bestEnd-- // a window ending between words ends at the word
	}
	return []string{markup(f.text, spans, bestStart, bestEnd)}
}
