package graph

import (
	"context"
	"net/http"
	"time"

	"docsd/internal/audit"
	"docsd/internal/docsurl"
	"docsd/internal/repourl"
	"docsd/store"
)

// Settings is the operator configuration the graph needs.
type Settings struct {
	URLs              docsurl.Config
	AllowLocalRepos   bool // file:// repository URLs
	AllowPrivateRepos bool // ssh:// and user@host:path repository URLs
	MaxPageSize       int  // upper bound of list limits; default 100
	// AllowPrivateNetwork accepts repository URLs whose host resolves to
	// loopback, private, link-local or unspecified addresses.
	AllowPrivateNetwork bool
	// HostResolver resolves repository hosts; net.DefaultResolver when nil.
	HostResolver repourl.Resolver
	Uploads      UploadSettings
	// Endpoint configures the public /graphql endpoint (Handler).
	Endpoint Endpoint
	// SessionUser reads a dashboard session from a /graphql request that
	// has no Authorization header: (nil, nil) for none (the caller is
	// anonymous), the user, or an Unauthenticated error. Nil: sessions are
	// not accepted. It is read per request, so cmd may set it after
	// Handler was made.
	SessionUser func(*http.Request) (*store.User, error)
	// BadgeKeys make and check projects' badge tokens (package badge): the
	// current key first, then keys still accepted. None: no token is made
	// or accepted.
	BadgeKeys []string
	// OrganizationCreators says who may create organizations:
	// access.CreatorsUsers (any active user), else superusers only.
	OrganizationCreators string
	// DocsPathSessions: the path-mode docs origin offers browser
	// sessions (--docs-path-sessions), so secret links and passwords work
	// there too.
	DocsPathSessions bool
	// Domains configures projects' custom domains.
	Domains DomainSettings
	// AnalyticsRetentionDays is how many days of analytics counters are
	// kept (--analytics-retention-days); 90 when zero. AnalyticsOff: the
	// server counts nothing (--analytics=false).
	AnalyticsRetentionDays int
	AnalyticsOff           bool
	// InvitationLifetime is how long an invitation lasts
	// (--invitation-expiration-days); 0: DefaultInvitationLifetime.
	InvitationLifetime time.Duration
	// InvitationMail mails invitations; nil: no mail relay, the inviter
	// is shown the link instead.
	InvitationMail InvitationMail
	// SingleSignOn: the server signs people in through an OIDC provider
	// (--oidc-issuer), so organizations may require it.
	SingleSignOn bool
}

// Hooks lets other subsystems react to graph writes without the graph
// depending on them. Nil hooks are skipped.
type Hooks struct {
	// BuildQueued is called after a build was created, so that idle workers
	// can look for work at once.
	BuildQueued func()
	// ProjectDeleted is called after a project's rows were deleted, so that
	// its hosted files and checkouts can be removed.
	ProjectDeleted func(ctx context.Context, slug string)
	// DomainsChanged is called after a custom domain was added or
	// changed, so that its DNS check runs at once.
	DomainsChanged func()
	// RenewCertificate renews (or orders) the certificate of a domain
	// now; nil when docsd does not order certificates itself.
	RenewCertificate func(ctx context.Context, name string) error
	// Searched is called after a search's first page was answered, once
	// per project and version searched whose project did not opt out of
	// analytics, with the query and the total number of results.
	Searched func(projectID int64, version, query string, total int)
}

// Resolver is the root of the resolvers: it holds their dependencies.
type Resolver struct {
	Store    *store.Store
	Settings Settings
	Hooks    Hooks
	// Changes tells build subscriptions when to look again; nil polls
	// the store (PollBuildChanges).
	Changes BuildChanges
	// Audit records the security events of the graph's writes; nil
	// records none.
	Audit *audit.Recorder
}

func (r *Resolver) maxPage() int {
	if r.Settings.MaxPageSize > 0 {
		return r.Settings.MaxPageSize
	}
	return 100
}

// window turns optional GraphQL limit/offset arguments into a store page:
// limit defaults to 10 and is clamped to MaxPageSize;
// a negative offset is 0.
func (r *Resolver) window(limit, offset *int64) (int, int) {
	l, o := 10, 0
	if limit != nil && *limit > 0 {
		l = int(*limit)
	}
	if l > r.maxPage() {
		l = r.maxPage()
	}
	if offset != nil && *offset > 0 {
		o = int(*offset)
	}
	return l, o
}
