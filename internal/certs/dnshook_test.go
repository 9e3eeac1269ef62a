package certs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/libdns/libdns"
)

// hookScript writes an executable shell script with body and returns its
// path.
func hookScript(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "hook")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestDNSHookRunsTheCommand: present and cleanup run the command with
// lego's exec arguments, the name made absolute in the zone, and return
// the records they handled.
func TestDNSHookRunsTheCommand(t *testing.T) {
	calls := filepath.Join(t.TempDir(), "calls")
	h := DNSHook{Command: hookScript(t, `echo "$@" >> '`+calls+"'\n")}
	recs := []libdns.Record{
		libdns.RR{Type: "TXT", Name: "_acme-challenge", Data: "one"},
		libdns.RR{Type: "TXT", Name: "_acme-challenge.sub", Data: "two"},
	}
	got, err := h.AppendRecords(t.Context(), "docs.example.com.", recs)
	if err != nil || len(got) != 2 {
		t.Fatalf("AppendRecords: %v, %v; want both records", got, err)
	}
	if got, err := h.DeleteRecords(t.Context(), "docs.example.com.", recs[:1]); err != nil || len(got) != 1 {
		t.Fatalf("DeleteRecords: %v, %v; want the record", got, err)
	}
	b, err := os.ReadFile(calls)
	if err != nil {
		t.Fatal(err)
	}
	want := "present _acme-challenge.docs.example.com. one\n" +
		"present _acme-challenge.sub.docs.example.com. two\n" +
		"cleanup _acme-challenge.docs.example.com. one\n"
	if string(b) != want {
		t.Errorf("calls:\n%s\nwant:\n%s", b, want)
	}
}

// TestDNSHookFailures: a command that fails, hangs or is asked for
// another type of record fails the call with a reason, and reports only
// the records it handled.
func TestDNSHookFailures(t *testing.T) {
	txt := libdns.RR{Type: "TXT", Name: "_acme-challenge", Data: "v"}
	for _, tc := range []struct {
		name string
		hook DNSHook
		recs []libdns.Record
		want string
	}{
		{"exit 3", DNSHook{Command: hookScript(t, "echo 'zone docs.example.com: REFUSED' >&2\nexit 3\n")},
			[]libdns.Record{txt}, "exit status 3: zone docs.example.com: REFUSED"},
		{"hangs", DNSHook{Command: hookScript(t, "exec sleep 60\n"), Timeout: 100 * time.Millisecond},
			[]libdns.Record{txt}, "no exit within 100ms"},
		{"not TXT", DNSHook{Command: hookScript(t, "exit 0\n")},
			[]libdns.Record{libdns.RR{Type: "A", Name: "www", Data: "192.0.2.1"}}, "only TXT records, not A"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.hook.AppendRecords(t.Context(), "docs.example.com.", tc.recs)
			if err == nil || !strings.Contains(err.Error(), tc.want) || len(got) != 0 {
				t.Errorf("AppendRecords: %v, %v; want no records and an error with %q", got, err, tc.want)
			}
		})
	}
}
