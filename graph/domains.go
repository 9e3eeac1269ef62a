package graph

import (
	"context"
	"net"
	"net/url"
	"time"

	"github.com/99designs/gqlgen/graphql"

	"docsd/graph/gid"
	"docsd/internal/access"
	"docsd/internal/domains"
	"docsd/internal/errs"
	"docsd/store"
)

// DomainSettings are the operator's settings for custom domains.
type DomainSettings struct {
	// Limit is the most domains a project may have; 0 means no limit.
	Limit int
	// Targets are what a domain's DNS may point at besides the docs
	// domain: host names (a CNAME) and addresses (A/AAAA).
	Targets []string
	// Window is how long DNS checks go on (Read the Docs: 30 days).
	Window time.Duration
}

const nodeDomain = "Domain"

// isSuperuser reports whether the viewer is a superuser (or the system).
func isSuperuser(ctx context.Context) bool {
	v := access.ViewerFrom(ctx)
	return v.System || (v.User != nil && v.User.IsSuperuser)
}

// msgSuperusersOnly refuses a domain field only superusers may set.
const msgSuperusersOnly = "Only a superuser can set this field."

// domainExtras checks the fields of createDomain and updateDomain that
// only superusers may set, and that HTTPS is not turned off.
type domainExtras struct {
	skip                  *bool
	hstsMaxAge            *int64
	hstsIncludeSubdomains *bool
	hstsPreload           *bool
}

func checkDomainExtras(ctx context.Context, f errs.Fields, skip graphql.Omittable[*bool], maxAge graphql.Omittable[*int64],
	sub, preload graphql.Omittable[*bool]) domainExtras {
	var x domainExtras
	super := isSuperuser(ctx)
	boolField := func(name string, in graphql.Omittable[*bool]) *bool {
		v, ok := checkBool(f, name, in, false)
		if !ok {
			return nil
		}
		if !super {
			f.Add(name, msgSuperusersOnly)
			return nil
		}
		return &v
	}
	x.skip = boolField("skipValidation", skip)
	x.hstsIncludeSubdomains = boolField("hstsIncludeSubdomains", sub)
	x.hstsPreload = boolField("hstsPreload", preload)
	if maxAge.IsSet() {
		switch v := maxAge.Value(); {
		case v == nil:
			f.Add("hstsMaxAge", errs.MsgNotNull)
		case !super:
			f.Add("hstsMaxAge", msgSuperusersOnly)
		case *v < 0 || *v > 1<<31-1:
			f.Add("hstsMaxAge", "Ensure this value is greater than or equal to 0.")
		default:
			x.hstsMaxAge = v
		}
	}
	return x
}

// createDomain applies Read the Docs' rules for a new domain: the name (a
// host name, no IP address, none of the host's own), unique across
// projects, the project's limit, one canonical domain per project.
func (r *Resolver) createDomain(ctx context.Context, in CreateDomainInput) (*store.Domain, error) {
	const op = "graph.createDomain"
	p, err := r.maintainedProject(ctx, in.Project)
	if err != nil {
		return nil, err
	}
	existing, err := r.Store.FindDomains(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	f := errs.Fields{}
	raw, ok := checkString(f, "domain", in.Domain, strRule{required: true, max: 255})
	var name string
	if ok {
		var msg string
		name, msg = domains.Clean(raw)
		if msg == "" {
			if own := r.ownHost(name); own != "" {
				msg = domains.MsgRestricted(own)
			}
		}
		if msg == "" {
			if _, err := r.Store.FindDomainByName(ctx, name); err == nil {
				msg = domains.MsgTaken
			} else if !errs.Is(err, errs.NotFound) {
				return nil, err
			}
		}
		if msg == "" && r.Settings.Domains.Limit > 0 && len(existing) >= r.Settings.Domains.Limit {
			msg = domains.MsgLimit(r.Settings.Domains.Limit)
		}
		if msg != "" {
			f.Add("domain", msg)
		}
	}
	canonical, _ := checkBool(f, "canonical", in.Canonical, false)
	if canonical && hasCanonical(existing, 0) {
		f.Add("canonical", domains.MsgCanonical)
	}
	https := true
	if v, ok := checkBool(f, "https", in.HTTPS, false); ok {
		https = v
	}
	x := checkDomainExtras(ctx, f, in.SkipValidation, in.HstsMaxAge, in.HstsIncludeSubdomains, in.HstsPreload)
	if err := f.Err(op); err != nil {
		return nil, err
	}
	if isTrue(in.ValidateOnly) {
		return nil, nil
	}
	n := store.NewDomain{Domain: name, Canonical: canonical, HTTPS: https, SkipValidation: valueOr(x.skip, false),
		HSTSMaxAge: valueOr(x.hstsMaxAge, 0), HSTSIncludeSubdomains: valueOr(x.hstsIncludeSubdomains, false),
		HSTSPreload: valueOr(x.hstsPreload, false)}
	d, err := r.Store.CreateDomain(ctx, p.ID, n)
	if errs.Is(err, errs.Conflict) {
		// A race with another writer: the same name, or a second
		// canonical domain.
		field, msg := "domain", domains.MsgTaken
		if canonical {
			if again, ferr := r.Store.FindDomains(ctx, p.ID); ferr == nil && hasCanonical(again, 0) {
				field, msg = "canonical", domains.MsgCanonical
			}
		}
		return nil, &errs.Error{Kind: errs.Invalid, Op: op, Fields: errs.Fields{field: {msg}}, Err: err}
	}
	if err == nil && r.Hooks.DomainsChanged != nil {
		r.Hooks.DomainsChanged()
	}
	return d, err
}

// updateDomain changes a domain: canonical (one per project), https (on,
// never off), restartValidation, and the superusers' fields.
func (r *Resolver) updateDomain(ctx context.Context, in UpdateDomainInput) (*store.Domain, error) {
	const op = "graph.updateDomain"
	p, d, err := r.maintainedDomain(ctx, in.Project, in.ID)
	if err != nil {
		return nil, err
	}
	id := d.ID
	existing, err := r.Store.FindDomains(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	f := errs.Fields{}
	var upd store.DomainUpdate
	if v, ok := checkBool(f, "canonical", in.Canonical, false); ok {
		if v && hasCanonical(existing, id) {
			f.Add("canonical", domains.MsgCanonical)
		}
		upd.Canonical = &v
	}
	if v, ok := checkBool(f, "https", in.HTTPS, false); ok && v {
		// Read the Docs lets HTTPS be turned on, never off: readers'
		// browsers may already insist on it.
		upd.HTTPS = &v
	}
	x := checkDomainExtras(ctx, f, in.SkipValidation, in.HstsMaxAge, in.HstsIncludeSubdomains, in.HstsPreload)
	if err := f.Err(op); err != nil {
		return nil, err
	}
	upd.SkipValidation, upd.HSTSMaxAge, upd.HSTSIncludeSubdomains, upd.HSTSPreload = x.skip, x.hstsMaxAge, x.hstsIncludeSubdomains, x.hstsPreload
	upd.RestartValidation = isTrue(in.RestartValidation)
	d, err = r.Store.UpdateDomain(ctx, p.ID, id, upd)
	if errs.Is(err, errs.Conflict) {
		return nil, &errs.Error{Kind: errs.Invalid, Op: op, Fields: errs.Fields{"canonical": {domains.MsgCanonical}}, Err: err}
	}
	if err == nil && r.Hooks.DomainsChanged != nil {
		r.Hooks.DomainsChanged()
	}
	return d, err
}

// hasCanonical reports whether a domain other than the one with id except
// is canonical.
func hasCanonical(ds []*store.Domain, except int64) bool {
	for _, d := range ds {
		if d.Canonical && d.ID != except {
			return true
		}
	}
	return false
}

// ownHost is the host's own name that a domain name may not be (the docs
// domain or a name under it, the public URL's or the docs origin's host),
// "" when name is none of them.
func (r *Resolver) ownHost(name string) string {
	u := r.Settings.URLs
	return domains.Restricted(name, u.DocsDomain, hostOf(u.PublicURL), hostOf(u.DocsOrigin()))
}

// hostOf is the host name of an origin URL.
func hostOf(origin string) string {
	u, err := url.Parse(origin)
	if err != nil {
		return ""
	}
	return u.Hostname()
}

// domainValidationStatus is where a domain's DNS check stands.
func domainValidationStatus(d *store.Domain) string {
	switch {
	case d.Served():
		return "valid"
	case d.ValidationNext == nil:
		return "expired"
	}
	return "pending"
}

// domainDNSRecords are the records any one of which points a domain at
// docsd: a CNAME to the docs domain (in subdomain mode) or to each target
// host name, an A or AAAA record of each target address.
func (r *Resolver) domainDNSRecords(d *store.Domain) []*DNSRecord {
	var out []*DNSRecord
	if dd := domains.HostName(r.Settings.URLs.DocsDomain); dd != "" {
		out = append(out, &DNSRecord{Type: "CNAME", Name: d.Domain, Value: dd})
	}
	for _, t := range r.Settings.Domains.Targets {
		switch ip := net.ParseIP(t); {
		case ip == nil:
			out = append(out, &DNSRecord{Type: "CNAME", Name: d.Domain, Value: t})
		case ip.To4() != nil:
			out = append(out, &DNSRecord{Type: "A", Name: d.Domain, Value: t})
		default:
			out = append(out, &DNSRecord{Type: "AAAA", Name: d.Domain, Value: t})
		}
	}
	return out
}

// domainURL is a domain's root URL.
func domainURL(d *store.Domain) string {
	return domains.Origin(&store.ServedDomain{Domain: *d}) + "/"
}

// domainGlobalID is a domain's Node id.
func domainGlobalID(d *store.Domain) string { return gid.Encode(nodeDomain, d.ProjectID, d.ID) }

// valueOr is *v, or def when v is nil.
func valueOr[T any](v *T, def T) T {
	if v == nil {
		return def
	}
	return *v
}

// renewDomainCertificate renews a served domain's certificate through
// the RenewCertificate hook (superusers only).
func (r *Resolver) renewDomainCertificate(ctx context.Context, in RenewDomainCertificateInput) (*store.Domain, error) {
	const op = "graph.renewDomainCertificate"
	p, d, err := r.maintainedDomain(ctx, in.Project, in.ID)
	if err != nil {
		return nil, err
	}
	refuse := func(msg string, cause error) error {
		return &errs.Error{Kind: errs.Invalid, Op: op, Fields: errs.Fields{"id": {msg}}, Err: cause}
	}
	switch {
	case !isSuperuser(ctx):
		return nil, refuse("Only a superuser can renew a certificate.", nil)
	case !d.Served():
		return nil, refuse("The domain is not served yet: its DNS does not point at docsd.", nil)
	case r.Hooks.RenewCertificate == nil:
		return nil, refuse("docsd does not order certificates itself (--tls-acme-email is not set).", nil)
	}
	if err := r.Hooks.RenewCertificate(ctx, d.Domain); err != nil {
		return nil, refuse("The certificate was not renewed: "+err.Error(), err)
	}
	return r.Store.FindDomain(ctx, p.ID, d.ID)
}

// maintainedDomain is the domain with input id (global or database) of
// the project with that slug, which the viewer maintains.
func (r *Resolver) maintainedDomain(ctx context.Context, project, id string) (*store.Project, *store.Domain, error) {
	p, err := r.maintainedProject(ctx, project)
	if err != nil {
		return nil, nil, err
	}
	n, err := projectObjectID(nodeDomain, id, p.ID)
	if err != nil {
		return nil, nil, err
	}
	d, err := r.Store.FindDomain(ctx, p.ID, n)
	return p, d, err
}
