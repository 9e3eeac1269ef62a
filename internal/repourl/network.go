package repourl

import (
	"context"
	"net"
	"net/netip"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// MsgPrivateNetwork refuses a repository URL whose host is, or resolves
// to, an address of this machine or its private networks.
const MsgPrivateNetwork = "The repository URL's host resolves to a loopback, private, link-local or unspecified address; the server's operator can allow such addresses with --allow-private-network."

// Resolver looks host names up; *net.Resolver is one.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// lookupTimeout bounds the name resolution of one check.
const lookupTimeout = 3 * time.Second

// CheckNetwork returns MsgPrivateNetwork when raw's host is, or resolves
// to, a loopback, private, link-local or unspecified address, and ""
// otherwise (always "" with AllowPrivateNetwork). The host is read the way
// git's libc reads it, so `2130706433`, `0x7f.1` and `127.1` are
// 127.0.0.1; names are resolved with r (net.DefaultResolver when nil). A
// URL without a network host (file://, lp:) or whose name does not
// resolve passes: cloning it fails on its own.
func (p Policy) CheckNetwork(ctx context.Context, raw string, r Resolver) string {
	if p.AllowPrivateNetwork {
		return ""
	}
	host := urlHost(raw)
	if host == "" {
		return ""
	}
	if a, ok := parseHostAddr(host); ok {
		if Blocked(a) {
			return MsgPrivateNetwork
		}
		return ""
	}
	if r == nil {
		r = net.DefaultResolver
	}
	ctx, cancel := context.WithTimeout(ctx, lookupTimeout)
	defer cancel()
	addrs, err := r.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return ""
	}
	for _, a := range addrs {
		if Blocked(a) {
			return MsgPrivateNetwork
		}
	}
	return ""
}

// Blocked reports whether a is loopback, private (RFC 1918, RFC 4193),
// link-local, unspecified or in 0.0.0.0/8, also as an IPv4-mapped IPv6
// address.
func Blocked(a netip.Addr) bool {
	a = a.Unmap()
	return a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsUnspecified() || (a.Is4() && a.As4()[0] == 0)
}

// urlHost returns the host of a repository URL (scheme://[user@]host[:port]/…
// or user@host:path), "" when it names no network host.
func urlHost(raw string) string {
	if i := strings.Index(raw, "://"); i > 0 {
		switch strings.ToLower(raw[:i]) {
		case "file":
			return ""
		}
		u, err := url.Parse(raw)
		if err != nil {
			// Not a URL Go accepts; take what lies between :// and the path.
			rest := raw[i+3:]
			if j := strings.IndexAny(rest, "/?#"); j >= 0 {
				rest = rest[:j]
			}
			if j := strings.LastIndex(rest, "@"); j >= 0 {
				rest = rest[j+1:]
			}
			if h, _, err := net.SplitHostPort(rest); err == nil {
				return strings.Trim(h, "[]")
			}
			return strings.Trim(rest, "[]")
		}
		return u.Hostname()
	}
	if userAtHost.MatchString(raw) {
		at := strings.Index(raw, "@")
		host, _, _ := strings.Cut(raw[at+1:], ":")
		return host
	}
	return ""
}

// inetPart is one part of an inet_aton address: decimal, octal (leading
// 0) or hexadecimal (0x).
var inetPart = regexp.MustCompile(`^(?:0[xX][0-9a-fA-F]+|[0-9]+)$`)

// parseHostAddr reads host as an address: IPv6 (with a zone or not), or
// IPv4 in any form inet_aton accepts (1 to 4 parts, each decimal, octal
// with a leading 0 or hexadecimal with 0x, the last filling the remaining
// bytes).
func parseHostAddr(host string) (netip.Addr, bool) {
	if a, err := netip.ParseAddr(host); err == nil {
		return a.WithZone(""), true
	}
	parts := strings.Split(strings.TrimSuffix(host, "."), ".")
	if len(parts) == 0 || len(parts) > 4 {
		return netip.Addr{}, false
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		if !inetPart.MatchString(p) {
			return netip.Addr{}, false
		}
		v, err := strconv.ParseUint(p, 0, 32)
		if err != nil {
			return netip.Addr{}, false
		}
		vals[i] = v
	}
	var n uint64
	for i, v := range vals[:len(vals)-1] {
		if v > 255 {
			return netip.Addr{}, false
		}
		n |= v << (24 - 8*uint(i))
	}
	last := vals[len(vals)-1]
	if last >= 1<<(8*(5-uint(len(vals)))) {
		return netip.Addr{}, false
	}
	n |= last
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true
}
