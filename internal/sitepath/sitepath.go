// Package sitepath decides whether a redirect target a user gave (a
// sign-in's ?next=) leads to a page of this site: every place that
// redirects to such a target asks it, so they cannot disagree.
package sitepath

import (
	"net/url"
	"strings"
)

// Or returns target when Is accepts it, else fallback.
func Or(target, fallback string) string {
	if Is(target) {
		return target
	}
	return fallback
}

// Is reports whether target is a path on this site, which a browser
// resolves against the origin it is on whatever it does to the text:
//
//   - it starts with "/" and its second byte is neither "/" nor "\"
//     (browsers read both as the start of another host: "//evil.example",
//     "/\evil.example");
//   - it has printable ASCII only: no byte <= 0x20, 0x7f or above, no "\"
//     anywhere (browsers drop tabs and line breaks before they parse, so
//     "/\t/evil.example" is "//evil.example" to them);
//   - it parses as a path alone: no scheme, no host, no user;
//   - its path decoded (percent-escapes, again until nothing is left to
//     decode) keeps those rules but the ASCII one: a decoded path is
//     never a control byte, a space or "\" and never starts with "//", so
//     "/%09/evil.example/" and "/%2F%2Fevil.example" fail too, for the
//     server or proxy that decodes a path before redirecting to it. An
//     escape that does not decode fails.
//
// The query and fragment are held to the first two rules only: a browser
// never decodes them to find the host.
func Is(target string) bool {
	if !leadsHere(target) {
		return false
	}
	for i := 0; i < len(target); i++ {
		if c := target[i]; c <= ' ' || c >= 0x7f || c == '\\' {
			return false
		}
	}
	u, err := url.Parse(target)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" || !strings.HasPrefix(u.Path, "/") {
		return false
	}
	p := target
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		p = p[:i]
	}
	for strings.Contains(p, "%") {
		decoded, err := url.PathUnescape(p)
		if err != nil || !leadsHere(decoded) {
			return false
		}
		for i := 0; i < len(decoded); i++ {
			if c := decoded[i]; c <= ' ' || c == 0x7f || c == '\\' {
				return false
			}
		}
		p = decoded
	}
	return true
}

// leadsHere reports whether p starts with "/" and no second "/" or "\".
func leadsHere(p string) bool {
	return len(p) > 0 && p[0] == '/' && (len(p) == 1 || p[1] != '/' && p[1] != '\\')
}
