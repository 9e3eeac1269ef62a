// Package slug derives project and version slugs from names as Read the
// Docs does.
package slug

import (
	"regexp"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// ascii NFKD-normalises s and drops every non-ASCII rune (accents are lost,
// non-Latin scripts disappear).
func ascii(s string) string {
	var b strings.Builder
	for _, r := range norm.NFKD.String(s) {
		if r < unicode.MaxASCII+1 {
			b.WriteRune(r)
		}
	}
	return b.String()
}

var (
	projectDrop    = regexp.MustCompile(`[^\w\s-]`)
	projectSpaces  = regexp.MustCompile(`[-\s]+`)
	projectDashes  = regexp.MustCompile(`[-_]+`)
	versionReplace = strings.NewReplacer("/", "-", "%", "-", "!", "-", "?", "-")
	versionDrop    = regexp.MustCompile(`[^a-zA-Z0-9\-._\s]`)
	versionLead    = regexp.MustCompile(`^[-._]+`)
	validVersion   = regexp.MustCompile(`^[a-z0-9A-Z][-._a-z0-9A-Z]*$`)
)

// Project returns the slug of a project name, "" when none can be made.
// `Test Project` → `test-project`, `Déjà Vu` → `deja-vu`, `!!!` → "".
func Project(name string) string {
	s := ascii(name)
	s = projectDrop.ReplaceAllString(s, "")
	s = strings.ToLower(strings.TrimSpace(s))
	s = projectSpaces.ReplaceAllString(s, "-")
	s = projectDashes.ReplaceAllString(s, "-")
	return s
}

// MaxVersionSlug is the longest a version slug may be.
const MaxVersionSlug = 255

// Version returns the base slug of a version's verbose name, before any
// uniqueness suffix. `release/1.0` → `release-1.0`, `???` → `unknown`.
func Version(verboseName string) string {
	s := versionReplace.Replace(verboseName)
	s = ascii(s)
	s = versionDrop.ReplaceAllString(s, "")
	s = strings.ToLower(strings.TrimSpace(s))
	s = projectSpaces.ReplaceAllString(s, "-")
	s = versionLead.ReplaceAllString(s, "")
	if s == "" {
		s = "unknown"
	}
	if len(s) > MaxVersionSlug {
		s = s[:MaxVersionSlug]
	}
	return s
}

// UniqueVersion returns Version(verboseName), or the first of it with a
// suffix `_a`, `_b`, … `_z`, `_ba`, … that taken does not report, the base
// truncated so the whole stays within MaxVersionSlug.
func UniqueVersion(verboseName string, taken func(string) bool) string {
	base := Version(verboseName)
	if !taken(base) {
		return base
	}
	for n := 0; ; n++ {
		suffix := "_" + letters(n)
		b := base
		if len(b)+len(suffix) > MaxVersionSlug {
			b = b[:MaxVersionSlug-len(suffix)]
		}
		if s := b + suffix; !taken(s) {
			return s
		}
	}
}

// letters writes n in base 26 with digits a…z (0 → "a", 26 → "ba").
func letters(n int) string {
	if n == 0 {
		return "a"
	}
	var out []byte
	for n > 0 {
		out = append([]byte{byte('a' + n%26)}, out...)
		n /= 26
	}
	return string(out)
}

// ValidVersion reports whether s has the form of a version slug.
func ValidVersion(s string) bool { return validVersion.MatchString(s) }

var validSlug = regexp.MustCompile(`^[-a-zA-Z0-9_]+$`)

// Valid reports whether s is a Django-style slug: ASCII letters, digits, `_`
// and `-` only.
func Valid(s string) bool { return validSlug.MatchString(s) }
