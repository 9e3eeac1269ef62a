// Package pep440 parses and orders version strings the way Python's
// packaging.version.Version does (PEP 440), and picks the version a
// project's machine `stable` version points at from its versions.
package pep440

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode"
)

// ErrInvalid is wrapped by every error Parse returns.
var ErrInvalid = errors.New("invalid PEP 440 version")

// versionPattern is packaging's VERSION_PATTERN (the form without possessive
// quantifiers that packaging uses before Python 3.11), matched against the
// lower-cased string with surrounding whitespace already removed. Go's
// regexp picks the submatches a backtracking engine would pick, so the
// groups are filled exactly as Python fills them.
var versionPattern = regexp.MustCompile(`^` +
	`v?` +
	`(?:` +
	`(?:(?P<epoch>[0-9]+)!)?` +
	`(?P<release>[0-9]+(?:\.[0-9]+)*)` +
	`(?P<pre>[._-]?(?P<pre_l>alpha|a|beta|b|preview|pre|c|rc)[._-]?(?P<pre_n>[0-9]+)?)?` +
	`(?P<post>(?:-(?P<post_n1>[0-9]+))|(?:[._-]?(?P<post_l>post|rev|r)[._-]?(?P<post_n2>[0-9]+)?))?` +
	`(?P<dev>[._-]?(?P<dev_l>dev)[._-]?(?P<dev_n>[0-9]+)?)?` +
	`)` +
	`(?:\+(?P<local>[a-z0-9]+(?:[._-][a-z0-9]+)*))?` +
	`$`)

var localSeparators = regexp.MustCompile(`[._-]`)

// Pre-release kinds, in PEP 440 order.
const (
	preNone  = 0
	preAlpha = 1 // a, alpha
	preBeta  = 2 // b, beta
	preRC    = 3 // rc, c, pre, preview
)

// Version is a parsed PEP 440 version. Numbers are kept as decimal strings
// without leading zeros, so that versions with numbers of any size parse and
// order as in Python. Two Versions are compared with Compare, never with ==.
type Version struct {
	epoch   string
	release []string
	preKind int    // preNone when there is no pre-release segment
	preN    string // set when preKind != preNone
	hasPost bool
	post    string
	hasDev  bool
	dev     string
	local   []localPart // nil when there is no local label
}

// localPart is one dot-separated part of a local label: a number when numeric,
// otherwise a lower-cased alphanumeric string.
type localPart struct {
	numeric bool
	s       string
}

// Parse parses s as packaging.version.Version does: case-insensitively, with
// an optional leading "v", an optional epoch ("1!"), pre-, post- and
// dev-release segments in all their accepted spellings, an optional local
// label ("+abc.1") and surrounding whitespace (Python's str.isspace set).
//
// The one departure: letters must be ASCII. Python's case-insensitive regular
// expression also lets a few non-ASCII letters stand for ASCII ones (the
// Kelvin sign for "k", "ſ" for "s"); ParseVerboseName folds such names to
// ASCII before parsing, which gives the same result as Python there.
//
// The returned error is non-nil only when s is not a valid version; it
// wraps ErrInvalid.
func Parse(s string) (Version, error) {
	body := strings.TrimFunc(s, isPythonSpace)
	if !isASCII(body) {
		return Version{}, fmt.Errorf("%w: %q", ErrInvalid, s)
	}
	m := versionPattern.FindStringSubmatch(strings.ToLower(body))
	if m == nil {
		return Version{}, fmt.Errorf("%w: %q", ErrInvalid, s)
	}
	group := func(name string) string { return m[versionPattern.SubexpIndex(name)] }

	var v Version
	v.epoch = normNumber(group("epoch"))
	for _, n := range strings.Split(group("release"), ".") {
		v.release = append(v.release, normNumber(n))
	}
	switch group("pre_l") {
	case "":
	case "a", "alpha":
		v.preKind, v.preN = preAlpha, normNumber(group("pre_n"))
	case "b", "beta":
		v.preKind, v.preN = preBeta, normNumber(group("pre_n"))
	default: // rc, c, pre, preview
		v.preKind, v.preN = preRC, normNumber(group("pre_n"))
	}
	if group("post") != "" {
		v.hasPost = true
		v.post = normNumber(group("post_n1") + group("post_n2")) // at most one is set
	}
	if group("dev") != "" {
		v.hasDev = true
		v.dev = normNumber(group("dev_n"))
	}
	if l := group("local"); l != "" {
		for _, p := range localSeparators.Split(l, -1) {
			if isDigits(p) {
				v.local = append(v.local, localPart{numeric: true, s: normNumber(p)})
			} else {
				v.local = append(v.local, localPart{s: p})
			}
		}
	}
	return v, nil
}

// IsPrerelease reports whether v has a pre-release or a dev-release segment,
// as packaging's Version.is_prerelease. Post-releases are not pre-releases.
func (v Version) IsPrerelease() bool {
	return v.preKind != preNone || v.hasDev
}

// String returns the normalised form of v, as str() of a packaging Version:
// "V1.0-ALPHA.1" → "1.0a1", "1.0-1" → "1.0.post1", "1.0+AbC-05" → "1.0+abc.5".
// The zero Version, which Parse never returns, prints as "0".
func (v Version) String() string {
	var b strings.Builder
	if v.epoch != "" && v.epoch != "0" {
		b.WriteString(v.epoch)
		b.WriteByte('!')
	}
	if len(v.release) == 0 {
		b.WriteByte('0')
	}
	b.WriteString(strings.Join(v.release, "."))
	switch v.preKind {
	case preAlpha:
		b.WriteString("a" + v.preN)
	case preBeta:
		b.WriteString("b" + v.preN)
	case preRC:
		b.WriteString("rc" + v.preN)
	}
	if v.hasPost {
		b.WriteString(".post" + v.post)
	}
	if v.hasDev {
		b.WriteString(".dev" + v.dev)
	}
	for i, p := range v.local {
		if i == 0 {
			b.WriteByte('+')
		} else {
			b.WriteByte('.')
		}
		b.WriteString(p.s)
	}
	return b.String()
}

// Compare returns -1, 0 or +1 as a orders before, equal to or after b in PEP
// 440 order, with the rules of packaging's _cmpkey: trailing zeros of the
// release do not count (1.0 == 1.0.0); a dev release orders before the
// release it develops and, without pre or post segment, before its
// pre-releases (1.0.dev0 < 1.0a1 < 1.0 < 1.0.post1); a version with a local
// label orders after the same version without one, numeric local parts after
// alphanumeric ones.
func Compare(a, b Version) int {
	if c := compareNumber(a.epoch, b.epoch); c != 0 {
		return c
	}
	if c := compareRelease(trimZeros(a.release), trimZeros(b.release)); c != 0 {
		return c
	}
	// Pre: a dev release with no pre or post sorts before every pre-release;
	// no pre-release sorts after every pre-release.
	aRank, bRank := a.preRank(), b.preRank()
	if aRank != bRank {
		return cmpInt(aRank, bRank)
	}
	if a.preKind != preNone {
		if c := compareNumber(a.preN, b.preN); c != 0 {
			return c
		}
	}
	// Post: none sorts before any.
	if a.hasPost != b.hasPost {
		return cmpBool(a.hasPost, b.hasPost)
	}
	if a.hasPost {
		if c := compareNumber(a.post, b.post); c != 0 {
			return c
		}
	}
	// Dev: none sorts after any.
	if a.hasDev != b.hasDev {
		return cmpBool(b.hasDev, a.hasDev)
	}
	if a.hasDev {
		if c := compareNumber(a.dev, b.dev); c != 0 {
			return c
		}
	}
	return compareLocal(a.local, b.local)
}

// preRank places v's pre segment in _cmpkey's order: 0 for a dev release
// without pre and post (negative infinity), then a, b, rc, and 4 for no
// pre-release (infinity).
func (v Version) preRank() int {
	switch {
	case v.preKind == preNone && !v.hasPost && v.hasDev:
		return 0
	case v.preKind == preNone:
		return 4
	default:
		return v.preKind
	}
}

func compareRelease(a, b []string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := compareNumber(a[i], b[i]); c != 0 {
			return c
		}
	}
	return cmpInt(len(a), len(b))
}

// compareLocal orders local labels: none first, then part by part (numbers
// numerically and after strings, strings lexically), a shorter label first
// when it is a prefix of the longer.
func compareLocal(a, b []localPart) int {
	if (a == nil) != (b == nil) {
		return cmpBool(a != nil, b != nil)
	}
	for i := 0; i < len(a) && i < len(b); i++ {
		x, y := a[i], b[i]
		switch {
		case x.numeric != y.numeric:
			return cmpBool(x.numeric, y.numeric)
		case x.numeric:
			if c := compareNumber(x.s, y.s); c != 0 {
				return c
			}
		default:
			if c := strings.Compare(x.s, y.s); c != 0 {
				return c
			}
		}
	}
	return cmpInt(len(a), len(b))
}

// trimZeros drops the trailing zeros of a release, all of them: 0.0 → ().
func trimZeros(r []string) []string {
	i := len(r)
	for i > 0 && r[i-1] == "0" {
		i--
	}
	return r[:i]
}

// compareNumber compares two decimal numbers without leading zeros ("" is 0).
func compareNumber(a, b string) int {
	a, b = normNumber(a), normNumber(b)
	if len(a) != len(b) {
		return cmpInt(len(a), len(b))
	}
	return strings.Compare(a, b)
}

// normNumber strips the leading zeros of a run of ASCII digits; "" and "000"
// become "0".
func normNumber(s string) string {
	s = strings.TrimLeft(s, "0")
	if s == "" {
		return "0"
	}
	return s
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// cmpBool orders false before true.
func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case b:
		return -1
	}
	return 1
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// isPythonSpace reports whether r is whitespace for Python's str.isspace (and
// so for \s of the pattern packaging matches against): Go's unicode.IsSpace
// plus the ASCII separators U+001C–U+001F.
func isPythonSpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}
