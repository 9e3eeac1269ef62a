package search

import (
	"strings"

	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/danish"
	"github.com/blevesearch/snowballstem/dutch"
	"github.com/blevesearch/snowballstem/english"
	"github.com/blevesearch/snowballstem/finnish"
	"github.com/blevesearch/snowballstem/french"
	"github.com/blevesearch/snowballstem/german"
	"github.com/blevesearch/snowballstem/hungarian"
	"github.com/blevesearch/snowballstem/italian"
	"github.com/blevesearch/snowballstem/norwegian"
	"github.com/blevesearch/snowballstem/portuguese"
	"github.com/blevesearch/snowballstem/romanian"
	"github.com/blevesearch/snowballstem/russian"
	"github.com/blevesearch/snowballstem/spanish"
	"github.com/blevesearch/snowballstem/swedish"
	"github.com/blevesearch/snowballstem/turkish"
)

// stemmers are the Snowball stemmers by language code (the part of a
// project's language before any region, e.g. "pt" of "pt-br").
var stemmers = map[string]func(*snowballstem.Env) bool{
	"da": danish.Stem, "de": german.Stem, "en": english.Stem, "es": spanish.Stem, "fi": finnish.Stem,
	"fr": french.Stem, "hu": hungarian.Stem, "it": italian.Stem, "nb": norwegian.Stem, "nl": dutch.Stem,
	"nn": norwegian.Stem, "no": norwegian.Stem, "pt": portuguese.Stem, "ro": romanian.Stem,
	"ru": russian.Stem, "sv": swedish.Stem, "tr": turkish.Stem,
}

// stemmerFor returns the stemmer of a project language, nil for languages
// without one (their words match only as written, folded).
func stemmerFor(language string) func(string) string {
	code, _, _ := strings.Cut(strings.ToLower(strings.ReplaceAll(language, "_", "-")), "-")
	stem := stemmers[code]
	if stem == nil {
		return nil
	}
	return func(w string) string {
		if len(w) < 3 {
			return w
		}
		env := snowballstem.NewEnv(w)
		stem(env)
		return env.Current()
	}
}

// stemPrefix is the part of w that every word with w's stem starts with,
// as far as Snowball's suffix rules go: the longest common prefix of w and
// its stem (a stem may end in a replaced letter, "happi" of "happy").
func stemPrefix(w, stem string) string {
	n := 0
	for n < len(w) && n < len(stem) && w[n] == stem[n] {
		n++
	}
	for n > 0 && n < len(w) && w[n]&0xC0 == 0x80 {
		n-- // never cut inside a UTF-8 sequence
	}
	return w[:n]
}
