package search

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// maxWordBytes bounds a stored or searched word. Longer runs of letters are
// cut to their first maxWordBytes bytes on both sides, so such a word still
// finds itself (and the engines' own limits, PostgreSQL's 2 KiB lexemes,
// are never reached).
const maxWordBytes = 512

// word is one word of a text: its folded form and where it lies in the
// text (byte offsets).
type word struct {
	folded     string
	start, end int
}

// isWordRune reports whether r belongs to a word: letters and digits
// (reader.md R.6.3), and combining marks, which diacritic removal drops.
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

// foldRune appends r case-folded with its diacritics removed (NFKD,
// combining marks dropped) to b.
func foldRune(b *strings.Builder, r rune) {
	if r < utf8.RuneSelf {
		b.WriteRune(unicode.ToLower(r))
		return
	}
	for _, d := range norm.NFKD.String(string(r)) {
		if unicode.IsLetter(d) || unicode.IsDigit(d) {
			b.WriteRune(unicode.ToLower(d))
		}
	}
}

// splitWords returns the words of text in order (R.6.3 "Words"): maximal
// runs of letters and digits, folded. A run that folds to nothing (a lone
// combining mark) is no word.
func splitWords(text string) []word {
	var words []word
	var b strings.Builder
	start := -1
	flush := func(end int) {
		if start >= 0 && b.Len() > 0 {
			words = append(words, word{folded: cut(b.String()), start: start, end: end})
		}
		start = -1
		b.Reset()
	}
	for i, r := range text {
		if !isWordRune(r) {
			flush(i)
			continue
		}
		if start < 0 {
			if unicode.Is(unicode.Mn, r) {
				continue // a mark with no letter before it
			}
			start = i
		}
		foldRune(&b, r)
	}
	flush(len(text))
	return words
}

// cut shortens a folded word to maxWordBytes bytes on a rune boundary.
func cut(w string) string {
	if len(w) <= maxWordBytes {
		return w
	}
	i := maxWordBytes
	for i > 0 && !utf8.RuneStart(w[i]) {
		i--
	}
	return w[:i]
}

// Words returns the folded words of text, the form the index stores.
func Words(text string) []string {
	ws := splitWords(text)
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.folded
	}
	return out
}

// maxTextRunes is where normalised text is cut (R.6.2).
const maxTextRunes = 1 << 20

// normalise turns every run of whitespace into one space, trims the ends
// and cuts the result to maxTextRunes characters (R.6.2 "normalised text").
func normalise(s string) string {
	var b strings.Builder
	space, n := false, 0
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if n >= maxTextRunes {
			break
		}
		if space {
			if n+1 >= maxTextRunes {
				break
			}
			b.WriteByte(' ')
			n++
			space = false
		}
		if r == utf8.RuneError || r == 0 {
			r = '\uFFFD'
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}
