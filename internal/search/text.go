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

// isWordRune reports whether r belongs to a word: letters and digits, and
// combining marks, which diacritic removal drops.
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

// splitWords returns the words of text in order: maximal runs of letters
// and digits, folded. A run that folds to nothing (a lone combining mark)
// is no word.
func splitWords(text string) []word {
	words := make([]word, 0, len(text)/6)
	eachWord(text, func(w word) { words = append(words, w) })
	return words
}

// eachWord calls fn with each word of text in order (see splitWords).
func eachWord(text string, fn func(word)) {
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf && !isASCIIWordByte(c) {
			i++
			continue
		}
		// Fast path: a run of lower-case ASCII letters and digits is its
		// own folded form.
		j := i
		for j < len(text) && ('a' <= text[j] && text[j] <= 'z' || '0' <= text[j] && text[j] <= '9') {
			j++
		}
		if j > i && (j == len(text) || text[j] < utf8.RuneSelf && !isASCIIWordByte(text[j])) {
			fn(word{folded: cut(text[i:j]), start: i, end: j})
			i = j
			continue
		}
		w, next := foldRun(text, i)
		if w.folded != "" {
			fn(w)
		}
		i = max(next, i+1)
	}
}

func isASCIIWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// foldRun folds the run of word runes starting at byte i (which may start
// with a non-word rune: then it returns an empty word and where it ends).
func foldRun(text string, i int) (word, int) {
	var b strings.Builder
	start := -1
	for j := i; j < len(text); {
		r, size := utf8.DecodeRuneInString(text[j:])
		if !isWordRune(r) {
			if start < 0 {
				return word{}, j + size
			}
			return word{folded: cut(b.String()), start: start, end: j}, j
		}
		if start < 0 {
			if unicode.Is(unicode.Mn, r) {
				return word{}, j + size // a mark with no letter before it
			}
			start = j
		}
		foldRune(&b, r)
		j += size
	}
	return word{folded: cut(b.String()), start: start, end: len(text)}, len(text)
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

// maxTextRunes is where normalised text is cut.
const maxTextRunes = 1 << 20

// normalise turns every run of whitespace into one space, trims the ends
// and cuts the result to maxTextRunes characters.
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
