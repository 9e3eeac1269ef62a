// Package domains serves projects on custom domains: the registry of every
// project's domains that the docs host, the docs URLs and the certificate
// policy look up, the rules a domain name must follow, and the DNS checks
// that validate a domain before it is served (see
// docs/user-guide/custom-domains.md).
package domains

import (
	"context"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"

	"docsd/store"
)

// Registry keeps, on this node, every project's domains, so that the hot
// paths (the docs host's routing, docs URLs, the TLS handshake) look them
// up in memory. It is reloaded from the store on first use after Forget,
// which cmd calls after a committed write to the domains or projects (on
// the writing node before the writing request answers, on the others when
// they are told).
type Registry struct {
	store  *store.Store
	logger *slog.Logger

	mu     sync.RWMutex // guards stale, byName, canon
	stale  bool
	byName map[string]*store.ServedDomain // every domain, by name
	canon  map[string]*store.ServedDomain // a project's served canonical domain, by slug
	// loading serialises reloads.
	loading sync.Mutex
}

// NewRegistry returns a registry over s; it loads on first use.
func NewRegistry(s *store.Store, logger *slog.Logger) *Registry {
	if logger == nil {
		logger = slog.Default()
	}
	return &Registry{store: s, logger: logger, stale: true}
}

// Forget makes the next look-up read the store again.
func (r *Registry) Forget() {
	r.mu.Lock()
	r.stale = true
	r.mu.Unlock()
}

// Changed reports whether a write to tables may change what the registry
// holds.
func Changed(tables []string) bool {
	for _, t := range tables {
		if t == "domains" || t == "projects" {
			return true
		}
	}
	return false
}

// reloadTimeout bounds a reload done on behalf of a look-up that has no
// context of its own (docs URLs).
const reloadTimeout = 5 * time.Second

// current returns the maps, reloading them when stale. When the store
// cannot be read it logs and answers from what it had (nothing at first).
func (r *Registry) current(ctx context.Context) (map[string]*store.ServedDomain, map[string]*store.ServedDomain) {
	r.mu.RLock()
	byName, canon, stale := r.byName, r.canon, r.stale
	r.mu.RUnlock()
	if !stale {
		return byName, canon
	}
	r.loading.Lock()
	defer r.loading.Unlock()
	r.mu.RLock()
	byName, canon, stale = r.byName, r.canon, r.stale
	r.mu.RUnlock()
	if !stale {
		return byName, canon
	}
	r.mu.Lock()
	r.stale = false // a Forget from now on marks it stale again
	r.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), reloadTimeout)
	defer cancel()
	ds, err := r.store.FindAllDomains(ctx)
	if err != nil {
		r.logger.ErrorContext(ctx, "reading custom domains", "err", err)
		r.mu.Lock()
		r.stale = true
		r.mu.Unlock()
		return byName, canon
	}
	byName = make(map[string]*store.ServedDomain, len(ds))
	canon = make(map[string]*store.ServedDomain)
	for _, d := range ds {
		byName[d.Domain.Domain] = d
		if d.Canonical && d.Served() {
			canon[d.ProjectSlug] = d
		}
	}
	r.mu.Lock()
	r.byName, r.canon = byName, canon
	r.mu.Unlock()
	return byName, canon
}

// HostName is host without its port and trailing dot, in lower case.
func HostName(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return strings.TrimSuffix(strings.ToLower(host), ".")
}

// Served returns the served domain a request's Host names (any port, any
// case): one whose DNS was validated or whose check a superuser skipped.
func (r *Registry) Served(ctx context.Context, host string) (*store.ServedDomain, bool) {
	if r == nil {
		return nil, false
	}
	byName, _ := r.current(ctx)
	d, ok := byName[HostName(host)]
	if !ok || !d.Served() {
		return nil, false
	}
	return d, true
}

// Lookup returns the domain named host, served or not.
func (r *Registry) Lookup(ctx context.Context, host string) (*store.ServedDomain, bool) {
	if r == nil {
		return nil, false
	}
	byName, _ := r.current(ctx)
	d, ok := byName[HostName(host)]
	return d, ok
}

// Canonical returns the project's canonical domain when it is served.
func (r *Registry) Canonical(ctx context.Context, slug string) (*store.ServedDomain, bool) {
	if r == nil {
		return nil, false
	}
	_, canon := r.current(ctx)
	d, ok := canon[slug]
	return d, ok
}

// CanonicalOrigin is the origin (scheme://domain) of the project's served
// canonical domain, for docs URLs (docsurl.CanonicalDomains).
func (r *Registry) CanonicalOrigin(slug string) (string, bool) {
	d, ok := r.Canonical(context.Background(), slug)
	if !ok {
		return "", false
	}
	return Origin(d), true
}

// Origin is the origin readers are sent to for a domain: https:// when
// its HTTPS flag is set.
func Origin(d *store.ServedDomain) string {
	if d.HTTPS {
		return "https://" + d.Domain.Domain
	}
	return "http://" + d.Domain.Domain
}

// All returns every domain the registry holds.
func (r *Registry) All(ctx context.Context) []*store.ServedDomain {
	byName, _ := r.current(ctx)
	out := make([]*store.ServedDomain, 0, len(byName))
	for _, d := range byName {
		out = append(out, d)
	}
	return out
}
