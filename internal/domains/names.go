package domains

import (
	"net"
	"net/url"
	"regexp"
	"strings"

	"golang.org/x/net/idna"
)

// Read the Docs' messages for domain names that are refused.
const (
	MsgInvalidName = "Enter a valid plain or internationalized domain name value"
	MsgIPAddress   = "The domain name can't be an IP address."
	MsgCanonical   = "Only one domain can be canonical at a time."
	MsgTaken       = "Domain with this Domain already exists."
)

// MsgRestricted is Read the Docs' message for a domain that is, or lies
// under, one of the host's own.
func MsgRestricted(own string) string { return own + " is not a valid domain." }

// MsgLimit is Read the Docs' message for a project at its limit of
// domains.
func MsgLimit(limit int) string {
	return "This project has reached the limit of " + itoa(limit) + " domains. Consider removing unused domains."
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// label is one label of a host name in its ASCII form.
var label = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)

// Clean turns what a user typed into a domain name the way Read the Docs
// does (a URL gives its host: "https://Docs.Example.com/x" is
// "docs.example.com") and checks it: a host name of two labels or more,
// internationalized names in their ASCII form, no IP address, no port.
// The message is "" when the name is accepted.
func Clean(input string) (name, msg string) {
	s := strings.TrimSpace(strings.ToLower(input))
	if strings.Contains(s, "://") {
		u, err := url.Parse(s)
		if err != nil || u.Host == "" {
			return "", MsgInvalidName
		}
		s = u.Host
	} else if i := strings.IndexAny(s, "/?#"); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSuffix(s, ".")
	if s == "" {
		return "", MsgInvalidName
	}
	if ip := net.ParseIP(strings.Trim(s, "[]")); ip != nil || allDigitsAndDots(s) {
		return "", MsgIPAddress
	}
	ascii, err := idna.Lookup.ToASCII(s)
	if err != nil || len(ascii) > 253 {
		return "", MsgInvalidName
	}
	labels := strings.Split(ascii, ".")
	if len(labels) < 2 {
		return "", MsgInvalidName
	}
	for _, l := range labels {
		if !label.MatchString(l) {
			return "", MsgInvalidName
		}
	}
	if tld := labels[len(labels)-1]; len(tld) < 2 {
		return "", MsgInvalidName
	}
	return ascii, ""
}

func allDigitsAndDots(s string) bool {
	for _, c := range s {
		if c != '.' && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// Restricted returns the host's own name that name may not be: the docs
// domain (docsDomain) or any name under it, or exactly one of exact (the
// public URL's host, the docs origin's host); "" when it is none of them.
func Restricted(name, docsDomain string, exact ...string) string {
	if d := HostName(docsDomain); d != "" && (name == d || strings.HasSuffix(name, "."+d)) {
		return d
	}
	for _, o := range exact {
		if o = HostName(o); o != "" && name == o {
			return o
		}
	}
	return ""
}
