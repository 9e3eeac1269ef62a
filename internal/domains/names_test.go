package domains

import "testing"

func TestClean(t *testing.T) {
	for _, tc := range []struct{ in, name, msg string }{
		{"docs.example.com", "docs.example.com", ""},
		{"  Docs.Example.COM. ", "docs.example.com", ""},
		{"https://docs.example.com/path?x=1", "docs.example.com", ""},
		{"docs.example.com/guide/", "docs.example.com", ""},
		{"bücher.example", "xn--bcher-kva.example", ""},
		{"localhost", "", MsgInvalidName},
		{"not a host", "", MsgInvalidName},
		{"a_b.example.com", "", MsgInvalidName},
		{"-a.example.com", "", MsgInvalidName},
		{"docs.example.com:8080", "", MsgInvalidName},
		{"docs.example.c", "", MsgInvalidName},
		{"", "", MsgInvalidName},
		{"192.0.2.1", "", MsgIPAddress},
		{"1.2.3", "", MsgIPAddress},
		{"[2001:db8::1]", "", MsgIPAddress},
		{"http://192.0.2.1/", "", MsgIPAddress},
	} {
		name, msg := Clean(tc.in)
		if name != tc.name || msg != tc.msg {
			t.Errorf("Clean(%q) = %q, %q; want %q, %q", tc.in, name, msg, tc.name, tc.msg)
		}
	}
}

func TestRestricted(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"docs.test", "docs.test"},
		{"demo.docs.test", "docs.test"},
		{"a.b.docs.test", "docs.test"},
		{"example.com", "example.com"},
		{"read.example.org", "read.example.org"},
		{"docs.example.com", ""}, // under the public host: a domain of its own
		{"otherdocs.test", ""},
	} {
		if got := Restricted(tc.name, "docs.test:8000", "example.com", "read.example.org"); got != tc.want {
			t.Errorf("Restricted(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}
