package pep440

import (
	"slices"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// ParseVerboseName parses a version's verbose_name as the stable rule reads
// it: the name is NFKD-normalised and stripped of every non-ASCII
// character, then parsed; if that fails and the result contains ".x", every
// ".x" is replaced by ".0" and parsing is retried ("1.x" → 1.0, "2.1.x" →
// 2.1.0). The ".x" match is case-sensitive, as RTD's was. ok is false for
// names that are no version ("latest", "stable", "master").
func ParseVerboseName(name string) (v Version, ok bool) {
	s := asciiFold(name)
	v, err := Parse(s)
	if err == nil {
		return v, true
	}
	if !strings.Contains(s, ".x") {
		return Version{}, false
	}
	v, err = Parse(strings.ReplaceAll(s, ".x", ".0"))
	return v, err == nil
}

// asciiFold NFKD-normalises s and drops every non-ASCII rune ("Ünïcode" →
// "Unicode").
func asciiFold(s string) string {
	var b strings.Builder
	for _, r := range norm.NFKD.String(s) {
		if r < 0x80 {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Candidate is one of a project's internal versions as the stable rule sees
// it. StableCandidate reads only VerboseName and Type; ID and Identifier are
// carried through so that the caller gets back the version it passed in.
type Candidate struct {
	ID          int64
	VerboseName string
	Identifier  string
	Type        string // "tag" or "branch"; other types are never chosen
}

// StableCandidate picks the version that `stable` should point at: names
// that are no PEP 440 version (ParseVerboseName) and pre-releases (pre or
// dev segment; post releases stay) are dropped; the rest is sorted highest
// version first, equal versions in descending verbose_name order (by code
// point), then in the order given; the first tag in that order wins, else
// the first branch. ok is false when there is no candidate. cs is not
// modified.
func StableCandidate(cs []Candidate) (c Candidate, ok bool) {
	type parsed struct {
		Candidate
		v Version
	}
	var ps []parsed
	for _, cand := range cs {
		v, isVersion := ParseVerboseName(cand.VerboseName)
		if !isVersion || v.IsPrerelease() {
			continue
		}
		ps = append(ps, parsed{cand, v})
	}
	slices.SortStableFunc(ps, func(a, b parsed) int {
		if order := Compare(b.v, a.v); order != 0 {
			return order
		}
		return strings.Compare(b.VerboseName, a.VerboseName)
	})
	for _, p := range ps {
		if p.Type == typeTag {
			return p.Candidate, true
		}
	}
	for _, p := range ps {
		if p.Type == typeBranch {
			return p.Candidate, true
		}
	}
	return Candidate{}, false
}

// The version types the stable rule distinguishes.
const (
	typeTag    = "tag"
	typeBranch = "branch"
)
