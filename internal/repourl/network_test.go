package repourl

import (
	"context"
	"errors"
	"net/netip"
	"testing"
)

// fakeResolver answers from a table; other names do not resolve.
type fakeResolver map[string][]string

func (f fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	addrs, ok := f[host]
	if !ok {
		return nil, errors.New("no such host")
	}
	var out []netip.Addr
	for _, a := range addrs {
		out = append(out, netip.MustParseAddr(a))
	}
	return out, nil
}

func TestCheckNetwork(t *testing.T) {
	r := fakeResolver{
		"github.com":          {"140.82.121.3"},
		"evil.example":        {"93.184.216.34", "127.0.0.1"},
		"internal.example":    {"10.1.2.3"},
		"v6local.example":     {"::1"},
		"metadata.example":    {"169.254.169.254"},
		"mapped.example":      {"::ffff:192.168.1.1"},
		"ula.example":         {"fd12::1"},
		"public6.example":     {"2a00:1450:4001::1"},
		"zero.example":        {"0.0.0.0"},
		"zeronet.example":     {"0.1.2.3"},
		"ssh-private.example": {"172.16.0.9"},
	}
	for raw, refused := range map[string]bool{
		"https://github.com/a/b":               false,
		"https://evil.example/a":               true,
		"git://internal.example/r.git":         true,
		"https://v6local.example/r":            true,
		"http://metadata.example/latest":       true,
		"https://mapped.example/r":             true,
		"https://ula.example/r":                true,
		"https://public6.example/r":            false,
		"https://zero.example/r":               true,
		"https://zeronet.example/r":            true,
		"git@ssh-private.example:org/repo.git": true,
		"ssh://git@ssh-private.example/r":      true,
		"https://unresolvable.example/r":       false,
		"http://127.0.0.1:5432/":               true,
		"http://2130706433/":                   true,
		"http://0x7f000001/":                   true,
		"http://0x7f.1/":                       true,
		"http://127.1/":                        true,
		"http://017700000001/":                 true,
		"http://0/":                            true,
		"http://[::1]:8080/":                   true,
		"http://[::ffff:127.0.0.1]/":           true,
		"http://[fe80::1%25eth0]/":             true,
		"http://user:pw@10.0.0.1/r":            true,
		"https://8.8.8.8/r":                    false,
		"http://134744072/":                    false, // 8.8.8.8
		"file:///srv/repo":                     false,
		"lp:project":                           false,
	} {
		msg := Policy{}.CheckNetwork(context.Background(), raw, r)
		if (msg != "") != refused {
			t.Errorf("%s: %q, refused want %v", raw, msg, refused)
		}
		if msg := (Policy{AllowPrivateNetwork: true}).CheckNetwork(context.Background(), raw, r); msg != "" {
			t.Errorf("%s with --allow-private-network: %q", raw, msg)
		}
	}
}

func TestCheckNetworkResolvesLocalhost(t *testing.T) {
	// The real resolver: localhost comes from /etc/hosts.
	if msg := (Policy{}).CheckNetwork(context.Background(), "https://localhost/r.git", nil); msg != MsgPrivateNetwork {
		t.Errorf("localhost: %q, want it refused", msg)
	}
}
