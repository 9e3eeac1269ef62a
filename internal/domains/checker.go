package domains

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"docsd/store"
)

// Window is Read the Docs' validation window: DNS checks of a domain stop
// this long after they started.
const Window = 30 * 24 * time.Hour

// The back-off of DNS checks: the first retry after FirstRetry, each next
// one twice as late, never more than MaxRetry apart.
const (
	FirstRetry = time.Minute
	MaxRetry   = 12 * time.Hour
)

// Checker validates domains: it looks up each pending domain's DNS when
// its check is due, marks it validated when the DNS points at docsd, and
// otherwise schedules the next check with exponential back-off until the
// validation window is over. Every serve node runs one; two nodes checking
// one domain at once write the same outcome.
type Checker struct {
	Store *store.Store
	// Resolver looks names up; net.DefaultResolver when nil.
	Resolver *net.Resolver
	// DocsDomain: a CNAME to it or to a name under it points at docsd.
	DocsDomain string
	// Targets are further names a CNAME may point at, and the addresses
	// an A or AAAA record may hold.
	Targets []string
	// Poll is how often due checks are looked for (besides Wake); a
	// minute when zero.
	Poll   time.Duration
	Logger *slog.Logger

	wakeOnce sync.Once
	wake     chan struct{}
}

// NewResolver returns a resolver that asks the DNS server at addr
// (host:port) for every name, or the system's resolver when addr is "".
func NewResolver(addr string) *net.Resolver {
	if addr == "" {
		return net.DefaultResolver
	}
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}}
}

// Wake makes Run look for due checks at once.
func (c *Checker) Wake() {
	select {
	case c.wakeChan() <- struct{}{}:
	default:
	}
}

func (c *Checker) wakeChan() chan struct{} {
	c.wakeOnce.Do(func() { c.wake = make(chan struct{}, 1) })
	return c.wake
}

// Run checks due domains until ctx ends, and at once when woken.
func (c *Checker) Run(ctx context.Context) {
	poll := c.Poll
	if poll <= 0 {
		poll = time.Minute
	}
	wake := c.wakeChan()
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		c.CheckDue(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-wake:
		}
	}
}

// CheckDue checks every domain whose check is due now.
func (c *Checker) CheckDue(ctx context.Context) {
	ds, err := c.Store.FindDomainsToCheck(ctx, c.Store.Now())
	if err != nil {
		if ctx.Err() == nil {
			c.logger().ErrorContext(ctx, "finding domains to check", "err", err)
		}
		return
	}
	for _, d := range ds {
		if ctx.Err() != nil {
			return
		}
		out := c.Check(ctx, d)
		if err := c.Store.RecordDomainCheck(ctx, d.ID, out); err != nil && ctx.Err() == nil {
			c.logger().ErrorContext(ctx, "recording a domain check", "domain", d.Domain, "err", err)
		}
	}
}

func (c *Checker) logger() *slog.Logger {
	if c.Logger != nil {
		return c.Logger
	}
	return slog.Default()
}

// checkTimeout bounds one domain's look-ups.
const checkTimeout = 10 * time.Second

// Check looks up d's DNS once and says what to record: validated, or what
// is wrong and when to look again (nil once the window is over).
func (c *Checker) Check(ctx context.Context, d *store.Domain) store.DomainCheck {
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	msg := c.lookup(ctx, d.Domain)
	if msg == "" {
		return store.DomainCheck{Validated: true}
	}
	delay := FirstRetry << min(d.ValidationAttempts, 20)
	if delay > MaxRetry || delay <= 0 {
		delay = MaxRetry
	}
	next := c.Store.Now().Add(delay)
	if end := d.ValidationProcessStart.Add(Window); next.After(end) {
		return store.DomainCheck{Error: msg + " The validation window is over: restart the validation once the DNS record exists."}
	}
	return store.DomainCheck{Error: msg, Next: &next}
}

// lookup returns "" when name points at docsd, else what is wrong.
func (c *Checker) lookup(ctx context.Context, name string) string {
	res := c.Resolver
	if res == nil {
		res = net.DefaultResolver
	}
	cname, err := res.LookupCNAME(ctx, name)
	if err == nil {
		if t := HostName(cname); t != name && c.nameTarget(t) {
			return ""
		}
	}
	addrs, aerr := res.LookupIPAddr(ctx, name)
	if aerr == nil {
		for _, a := range addrs {
			if c.addressTarget(a.IP) {
				return ""
			}
		}
	}
	var dnsErr *net.DNSError
	switch {
	case errors.As(aerr, &dnsErr) && dnsErr.IsNotFound:
		return "The domain has no DNS record: create one of the records shown."
	case aerr != nil:
		return "DNS resolution failed: " + aerr.Error() + "."
	}
	if t := HostName(cname); err == nil && t != name {
		return "The domain's CNAME points at " + t + ", not at docsd: change it to one of the records shown."
	}
	return "The domain's addresses are not docsd's: create one of the records shown."
}

// nameTarget reports whether a CNAME to t points at docsd.
func (c *Checker) nameTarget(t string) bool {
	if dd := HostName(c.DocsDomain); dd != "" && (t == dd || strings.HasSuffix(t, "."+dd)) {
		return true
	}
	return slices.ContainsFunc(c.Targets, func(x string) bool { return net.ParseIP(x) == nil && HostName(x) == t })
}

// addressTarget reports whether an A or AAAA record of ip points at docsd.
func (c *Checker) addressTarget(ip net.IP) bool {
	return slices.ContainsFunc(c.Targets, func(x string) bool {
		t := net.ParseIP(x)
		return t != nil && t.Equal(ip)
	})
}
