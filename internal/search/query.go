package search

import (
	"strings"
	"unicode/utf8"
)

// Arg is one scope argument of a query: project:P[/V], subprojects:P[/V] or
// user:@me.
type Arg struct {
	Name  string // "project", "subprojects" or "user"
	Value string
}

// Query is a parsed query string: its scope arguments, the remaining text
// (what the APIs echo as `query`) and the terms of that text.
type Query struct {
	Args  []Arg
	Text  string
	Terms []Term
}

// Term is one condition of the query text: a word, a phrase (a word with
// separators is one too) or a prefix (its last word also matches the
// words it starts: `word*`, and the query's last word as the reader may
// still be typing it), optionally required (+) or excluded (-).
type Term struct {
	Words  []string // folded
	Prefix bool
	Mode   Mode
}

// Mode says how a term takes part in matching.
type Mode int

// The term modes.
const (
	Should  Mode = iota // plain: pages matching more terms rank higher
	Must                // +term: pages must contain it
	MustNot             // -term: pages containing it are excluded
)

// maxTerms and maxPhraseWords bound the work one query can cause; terms
// after the first maxTerms are ignored.
const (
	maxTerms       = 64
	maxPhraseWords = 32
)

// ParseQuery splits q into scope arguments and text, then the text into
// terms. It never fails: any text is a query, possibly one with no terms.
func ParseQuery(q string) Query {
	var query Query
	var text []string
	for _, tok := range strings.Fields(q) {
		if name, value, ok := strings.Cut(tok, ":"); ok && (name == "project" || name == "subprojects" || name == "user") {
			query.Args = append(query.Args, Arg{Name: name, Value: value})
			continue
		}
		text = append(text, strings.ReplaceAll(tok, `\:`, ":"))
	}
	query.Text = strings.Join(text, " ")
	query.Terms = parseTerms(query.Text)
	return query
}

// parseTerms reads the query text: quoted phrases (an unbalanced quote
// runs to the end), +/- modifiers, a trailing * for prefixes, and a ~N
// suffix, which is dropped. Space, |, ( and ) separate tokens.
func parseTerms(text string) []Term {
	var terms []Term
	seen := map[string]bool{}
	add := func(raw string, mode Mode, quoted bool) {
		if len(terms) >= maxTerms {
			return
		}
		raw = dropFuzziness(raw)
		prefix := false
		if !quoted && strings.HasSuffix(raw, "*") {
			raw, prefix = strings.TrimRight(raw, "*"), true
		}
		words := Words(raw)
		if len(words) == 0 {
			return
		}
		if len(words) > maxPhraseWords {
			words, prefix = words[:maxPhraseWords], false
		}
		t := Term{Words: words, Prefix: prefix, Mode: mode}
		if key := t.key(); !seen[key] {
			seen[key] = true
			terms = append(terms, t)
		}
	}
	typing := -1 // the term of the text's last word, unquoted and unmarked
	for i := 0; i < len(text); {
		typing = -1
		c := text[i]
		if c == ' ' || c == '|' || c == '(' || c == ')' || c == '\t' || c == '\n' || c == '\r' {
			i++
			continue
		}
		mode := Should
		if c == '+' || c == '-' {
			mode = map[byte]Mode{'+': Must, '-': MustNot}[c]
			i++
			if i == len(text) {
				break
			}
			c = text[i]
		}
		if c == '"' {
			end := strings.IndexByte(text[i+1:], '"')
			if end < 0 {
				add(text[i+1:], mode, true)
				break
			}
			phrase := text[i+1 : i+1+end]
			i += end + 2
			// a ~N suffix right after the closing quote
			j := i
			for j < len(text) && strings.IndexByte(" |()\t\n\r", text[j]) < 0 {
				j++
			}
			if strings.HasPrefix(text[i:j], "~") {
				i = j
			}
			add(phrase, mode, true)
			continue
		}
		j := i
		for j < len(text) && strings.IndexByte(" |()\t\n\r\"", text[j]) < 0 {
			j++
		}
		n := len(terms)
		add(text[i:j], mode, false)
		if len(terms) > n && mode != MustNot && j == len(text) {
			typing = n
		}
		if j == i {
			j++ // a lone modifier before a separator
		}
		i = j
	}
	// The last word is matched as a prefix too, as the reader may still be
	// typing it (search-as-you-type); words shorter than minTypedPrefix
	// match as typed.
	if typing >= 0 {
		t := &terms[typing]
		if last := t.Words[len(t.Words)-1]; utf8.RuneCountInString(last) >= minTypedPrefix && !t.Prefix {
			t.Prefix = true
		}
	}
	return terms
}

// minTypedPrefix is the length from which the query's last word also
// matches the words it starts.
const minTypedPrefix = 2

// dropFuzziness removes a trailing ~ or ~N (RTD's fuzziness; docsd matches
// exactly).
func dropFuzziness(s string) string {
	i := strings.LastIndexByte(s, '~')
	if i < 0 {
		return s
	}
	for _, c := range s[i+1:] {
		if c < '0' || c > '9' {
			return s
		}
	}
	return s[:i]
}

func (t Term) key() string {
	k := strings.Join(t.Words, " ")
	if t.Prefix {
		k += "*"
	}
	return string(rune('0'+t.Mode)) + k
}

// Positive reports whether the query has a term that can make a page
// match (anything but exclusions).
func (q Query) Positive() bool {
	for _, t := range q.Terms {
		if t.Mode != MustNot {
			return true
		}
	}
	return false
}

// ParseText parses text that has no scope arguments (the v2 search
// endpoints): every token is text.
func ParseText(text string) Query {
	return Query{Text: text, Terms: parseTerms(text)}
}
