// Package versionrules matches version names against automation rules, as
// Read the Docs' RegexAutomationRule does: a predefined match
// (all-versions, semver-versions) or a custom regular expression, searched
// anywhere in the name.
//
// Expressions are Go's RE2 syntax, whose matching time is linear in the
// length of the name (no backtracking), so a rule cannot stall a sync the
// way a catastrophic Python pattern can; their length is bounded by
// MaxPatternLength.
package versionrules

import (
	"regexp"
	"strings"
)

// Predefined matches (Read the Docs' PREDEFINED_MATCH_ARGS).
const (
	AllVersions    = "all-versions"
	SemverVersions = "semver-versions"
)

// Predefined maps each predefined match to the expression it stands for
// (Read the Docs' ALL_VERSIONS_REGEX and SEMVER_VERSIONS_REGEX: SemVer
// 2.0.0 with an optional leading `v`).
var Predefined = map[string]string{
	AllVersions:    `.*`,
	SemverVersions: `^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`,
}

// MaxPatternLength bounds a custom expression, in characters (Read the
// Docs' match_arg column).
const MaxPatternLength = 255

// Messages of a custom expression that cannot be used.
const (
	MsgEmpty   = "Custom match should not be empty."
	MsgTooLong = "Ensure this field has no more than 255 characters."
)

// Check returns why a custom expression cannot be used ("" when it can).
func Check(pattern string) string {
	switch {
	case strings.TrimSpace(pattern) == "":
		return MsgEmpty
	case len([]rune(pattern)) > MaxPatternLength:
		return MsgTooLong
	}
	if _, err := regexp.Compile(pattern); err != nil {
		msg := err.Error()
		msg = strings.TrimPrefix(msg, "error parsing regexp: ")
		return "Invalid regular expression: " + msg + "."
	}
	return ""
}

// Expression is the expression a rule matches with: the predefined one
// when predefined is set, else the custom pattern.
func Expression(predefined *string, pattern string) string {
	if predefined != nil {
		if e, ok := Predefined[*predefined]; ok {
			return e
		}
	}
	return pattern
}

// Match reports whether name matches the expression. An expression that
// does not compile, or a custom one longer than MaxPatternLength, matches
// nothing.
func Match(expression, name string) bool {
	if len([]rune(expression)) > MaxPatternLength && expression != Predefined[SemverVersions] {
		return false
	}
	re, err := regexp.Compile(expression)
	if err != nil {
		return false
	}
	return re.MatchString(name)
}
