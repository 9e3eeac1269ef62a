// Package repourl checks repository URLs as Read the Docs does, for project
// imports and for the submodules a build checks out.
package repourl

import (
	"regexp"
	"strings"
)

// Policy is what the operator allows beyond public URLs.
type Policy struct {
	AllowLocal   bool // file:// URLs
	AllowPrivate bool // ssh://, ssh+git:// and user@host:path URLs
	// AllowPrivateNetwork accepts hosts that are, or resolve to, loopback,
	// private, link-local and unspecified addresses (CheckNetwork).
	AllowPrivateNetwork bool
}

var userAtHost = regexp.MustCompile(`^[\w.+-]+@[\w.-]+:.+$`)

// CheckFor is Check for a repository of the given VCS type: Launchpad's
// `lp:` URLs are Bazaar's, and git would read one as an SSH address.
func (p Policy) CheckFor(raw, vcs string) string {
	if strings.HasPrefix(raw, "lp:") && vcs != "bzr" {
		return "Invalid scheme for URL"
	}
	return p.Check(raw)
}

// Check returns the message of the first repository URL rule that rejects
// raw, or "" when it is accepted: `&&` or `|` anywhere is an invalid
// character; http, https, git, ftp, ftps and lp: are accepted; file only
// with AllowLocal; SSH forms (ssh://, ssh+git://, user@host:path) only with
// AllowPrivate; any other scheme is refused.
func (p Policy) Check(raw string) string {
	if strings.Contains(raw, "&&") || strings.Contains(raw, "|") {
		return "Invalid character in the URL"
	}
	scheme := ""
	if i := strings.Index(raw, "://"); i > 0 {
		scheme = strings.ToLower(raw[:i])
	}
	switch {
	case scheme == "http" || scheme == "https" || scheme == "git" || scheme == "ftp" || scheme == "ftps":
		return ""
	case strings.HasPrefix(raw, "lp:"):
		return ""
	case scheme == "file" && p.AllowLocal:
		return ""
	case scheme == "ssh" || scheme == "ssh+git" || (scheme == "" && userAtHost.MatchString(raw)):
		if p.AllowPrivate {
			return ""
		}
		return "Manual cloning via SSH is not supported"
	}
	return "Invalid scheme for URL"
}

// Hint names the operator setting that would accept raw, for logs and the
// CLI ("" when no setting would): the API keeps Read the Docs' exact
// messages, which cannot carry it.
func (p Policy) Hint(raw string) string {
	scheme := ""
	if i := strings.Index(raw, "://"); i > 0 {
		scheme = strings.ToLower(raw[:i])
	}
	switch {
	case strings.Contains(raw, "&&") || strings.Contains(raw, "|"):
		return ""
	case scheme == "file" && !p.AllowLocal:
		return "file:// URLs need --allow-local-repos (DOCSD_ALLOW_LOCAL_REPOS=true)"
	case (scheme == "ssh" || scheme == "ssh+git" || (scheme == "" && userAtHost.MatchString(raw))) && !p.AllowPrivate:
		return "SSH URLs need --allow-private-repos (DOCSD_ALLOW_PRIVATE_REPOS=true)"
	}
	return ""
}
