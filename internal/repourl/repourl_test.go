package repourl

import (
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	const (
		scheme = "Invalid scheme for URL"
		ssh    = "Manual cloning via SSH is not supported"
	)
	for _, tc := range []struct {
		url            string
		local, private bool
		want           string
	}{
		{"https://github.com/a/b", false, false, ""},
		{"git://host/x", false, false, ""},
		{"lp:project", false, false, ""},
		// ftp and ftps are accepted as RTD does.
		{"ftp://x/repo", false, false, ""},
		{"FTPS://x/repo", false, false, ""},
		{"gopher://x/repo", false, false, scheme},
		{"svn://x/repo", true, true, scheme},
		{"https://x/a && rm", false, false, "Invalid character in the URL"},
		{"https://x/a|b", false, false, "Invalid character in the URL"},
		{"file:///srv/repo", false, false, scheme},
		{"file:///srv/repo", true, false, ""},
		{"ssh://git@host/x", false, false, ssh},
		{"git@github.com:a/b.git", false, false, ssh},
		{"git@github.com:a/b.git", false, true, ""},
		{"/srv/repo", true, true, scheme},
	} {
		if got := (Policy{AllowLocal: tc.local, AllowPrivate: tc.private}).Check(tc.url); got != tc.want {
			t.Errorf("Check(%q, local=%v, private=%v) = %q, want %q", tc.url, tc.local, tc.private, got, tc.want)
		}
	}
}

func TestCheckForLaunchpad(t *testing.T) {
	var p Policy
	for vcs, want := range map[string]string{"bzr": "", "git": "Invalid scheme for URL", "hg": "Invalid scheme for URL"} {
		if got := p.CheckFor("lp:foo", vcs); got != want {
			t.Errorf("lp:foo for %s: %q, want %q", vcs, got, want)
		}
	}
	if got := p.CheckFor("https://github.com/a/b", "git"); got != "" {
		t.Errorf("https for git: %q", got)
	}
}

func TestHint(t *testing.T) {
	strict := Policy{}
	for _, tc := range []struct {
		p        Policy
		raw, has string
	}{
		{strict, "file:///srv/repo", "--allow-local-repos"},
		{strict, "ssh://git@github.com/a/b", "--allow-private-repos"},
		{strict, "git@github.com:a/b.git", "--allow-private-repos"},
		{strict, "https://github.com/a/b", ""},
		{strict, "gopher://x", ""},
		{Policy{AllowLocal: true}, "file:///srv/repo", ""},
	} {
		got := tc.p.Hint(tc.raw)
		if (tc.has == "" && got != "") || (tc.has != "" && !strings.Contains(got, tc.has)) {
			t.Errorf("Hint(%q) = %q, want it to name %q", tc.raw, got, tc.has)
		}
	}
}
