package certs

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/libdns/libdns"
)

// DNSHook publishes the TXT records of ACME's DNS-01 challenge by running
// an operator's command, the way lego's exec provider does, so that a
// script written for it works unchanged:
//
//	<Command> present <fqdn> <value>   publish the TXT record
//	<Command> cleanup <fqdn> <value>   remove it
//
// fqdn ends with a dot (_acme-challenge.docs.example.com.); value is the
// record's text. The command exits 0 once it did what it was asked; any
// other exit fails the order with the command's output. It may be asked
// for several records of the same name at once (the wildcard's and the
// bare domain's), which it must keep apart by their values. It talks to
// any DNS: nsupdate for an RFC 2136 server (BIND, Knot, PowerDNS), a DNS
// host's command-line client or API.
type DNSHook struct {
	// Command is the executable's path.
	Command string
	// Timeout bounds one run; zero: dnsHookTimeout.
	Timeout time.Duration
}

// dnsHookTimeout is how long a run of the hook may take by default.
const dnsHookTimeout = 2 * time.Minute

// AppendRecords runs "present" for each record (libdns.RecordAppender).
func (h DNSHook) AppendRecords(ctx context.Context, zone string, recs []libdns.Record) ([]libdns.Record, error) {
	return h.runAll(ctx, "present", zone, recs)
}

// DeleteRecords runs "cleanup" for each record (libdns.RecordDeleter).
func (h DNSHook) DeleteRecords(ctx context.Context, zone string, recs []libdns.Record) ([]libdns.Record, error) {
	return h.runAll(ctx, "cleanup", zone, recs)
}

func (h DNSHook) runAll(ctx context.Context, action, zone string, recs []libdns.Record) ([]libdns.Record, error) {
	done := make([]libdns.Record, 0, len(recs))
	for _, r := range recs {
		rr := r.RR()
		if rr.Type != "TXT" {
			return done, fmt.Errorf("DNS hook: only TXT records, not %s", rr.Type)
		}
		fqdn := libdns.AbsoluteName(rr.Name, zone)
		if !strings.HasSuffix(fqdn, ".") {
			fqdn += "."
		}
		if err := h.run(ctx, action, fqdn, rr.Data); err != nil {
			return done, err
		}
		done = append(done, r)
	}
	return done, nil
}

// run runs the command once; its output goes into the error when it fails.
func (h DNSHook) run(ctx context.Context, action, fqdn, value string) error {
	timeout := h.Timeout
	if timeout <= 0 {
		timeout = dnsHookTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, h.Command, action, fqdn, value)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = time.Second // a child the command left behind keeps no pipe open past the timeout
	if err := cmd.Run(); err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			err = fmt.Errorf("no exit within %s", timeout)
		}
		return fmt.Errorf("DNS hook %s %s %s: %v: %s", h.Command, action, fqdn, err, strings.TrimSpace(lastBytes(out.String(), 2000)))
	}
	return nil
}

// lastBytes is the end of s, at most n bytes: a failing command's last
// words say why.
func lastBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
