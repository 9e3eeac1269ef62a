package versionrules

import (
	"strings"
	"testing"
)

func TestMatch(t *testing.T) {
	semver := Predefined[SemverVersions]
	for _, c := range []struct {
		expr, name string
		want       bool
	}{
		{Predefined[AllVersions], "anything", true},
		{semver, "1.2.3", true},
		{semver, "v1.2.3", true},
		{semver, "v1.2.3-rc.1+build.5", true},
		{semver, "1.2", false},
		{semver, "01.2.3", false},
		{semver, "main", false},
		{`^release/`, "release/2.0", true},
		{`^release/`, "pre-release/2.0", false},
		{`rc`, "2.0rc1", true}, // searched anywhere, as Python's re.search
		{`(`, "(", false},      // does not compile: matches nothing
	} {
		if got := Match(c.expr, c.name); got != c.want {
			t.Errorf("Match(%q, %q) = %v, want %v", c.expr, c.name, got, c.want)
		}
	}
}

func TestCheck(t *testing.T) {
	for _, c := range []struct{ pattern, want string }{
		{`^v\d+`, ""},
		{"", MsgEmpty},
		{"   ", MsgEmpty},
		{strings.Repeat("a", 256), MsgTooLong},
		{strings.Repeat("a", 255), ""},
		{`(`, "Invalid regular expression: missing closing ): `(`."},
		{`(?=x)`, "Invalid regular expression: invalid or unsupported Perl syntax: `(?=`."},
	} {
		if got := Check(c.pattern); got != c.want {
			t.Errorf("Check(%q) = %q, want %q", c.pattern, got, c.want)
		}
	}
}

func TestExpression(t *testing.T) {
	all := AllVersions
	if got := Expression(&all, "ignored"); got != `.*` {
		t.Errorf("Expression(all-versions) = %q", got)
	}
	if got := Expression(nil, "^v"); got != "^v" {
		t.Errorf("Expression(custom) = %q", got)
	}
}
