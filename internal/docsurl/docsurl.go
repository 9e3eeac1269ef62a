// Package docsurl builds the absolute URLs docsd writes: documentation
// pages, downloads and dashboard links. The graph, the APIs and the docs
// host share it so they never disagree.
package docsurl

import (
	"net/url"
	"strconv"
	"strings"

	"docsd/internal/choices"
)

// Config is the operator configuration the URLs depend on.
type Config struct {
	PublicURL  string // scheme + host (+ port), no trailing slash
	DocsDomain string // subdomain mode when set
	DocsScheme string // scheme of subdomain-mode URLs; default: PublicURL's
	// DocsURL is the origin (scheme + host (+ port), no trailing slash)
	// that serves /docs/ in path mode; "" means PublicURL (one origin for
	// the API, the dashboard and the docs). Ignored in subdomain mode.
	DocsURL string
	// Domains, when set, names projects' canonical custom domains: the
	// docs root of a project that has one is that domain's origin, in
	// either mode.
	Domains CanonicalDomains
}

// CanonicalDomains gives a project's canonical custom domain.
type CanonicalDomains interface {
	// CanonicalOrigin returns the origin (scheme://host) of the served
	// canonical domain of the project with that slug, if it has one.
	CanonicalOrigin(slug string) (string, bool)
}

// DocsOrigin is the origin of path-mode docs URLs: DocsURL, else PublicURL.
func (c Config) DocsOrigin() string {
	if c.DocsURL != "" {
		return c.DocsURL
	}
	return c.PublicURL
}

// SharedOrigin reports whether hosted docs share the public URL's origin
// (path mode with no docs origin of their own): their pages could then act
// with a dashboard session, so the dashboard must not offer one.
func (c Config) SharedOrigin() bool {
	return !c.SubdomainMode() && SameOrigin(c.DocsOrigin(), c.PublicURL)
}

// SameOrigin reports whether two scheme://host[:port] URLs name one origin
// (scheme and host compared without case, a default port made explicit).
func SameOrigin(a, b string) bool {
	ua, errA := url.Parse(a)
	ub, errB := url.Parse(b)
	if errA != nil || errB != nil {
		return a == b
	}
	return strings.EqualFold(ua.Scheme, ub.Scheme) && strings.EqualFold(ua.Hostname(), ub.Hostname()) && port(ua) == port(ub)
}

// port is u's port, the scheme's default when none is written.
func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "https") {
		return "443"
	}
	return "80"
}

// Target describes a project for the resolver: the project itself, its main
// project (itself unless it is a translation), and the relationship that
// nests the main project under a parent, if any.
type Target struct {
	Slug     string
	Language string
	// Scheme is the versioning scheme of the main project (a translation's
	// own scheme is not used); "" is the default,
	// multiple_versions_with_translations.
	Scheme     string
	MainSlug   string // "" means Slug
	ParentSlug string // the main project's parent, "" when none
	Alias      string // the main project's alias inside ParentSlug
}

func (t Target) main() string {
	if t.MainSlug != "" {
		return t.MainSlug
	}
	return t.Slug
}

func (c Config) scheme() string {
	if c.DocsScheme != "" {
		return c.DocsScheme
	}
	if i := strings.Index(c.PublicURL, "://"); i > 0 {
		return c.PublicURL[:i]
	}
	return "http"
}

// SubdomainMode reports whether docs are served on per-project subdomains.
func (c Config) SubdomainMode() bool { return c.DocsDomain != "" }

// Root is the docs root of a project slug: the origin of its canonical
// custom domain when it has one, else `{docs_url}/docs/<slug>` in path
// mode (DocsOrigin), `{docs_scheme}://<slug>.{docs_domain}` in subdomain
// mode.
func (c Config) Root(slug string) string {
	if c.Domains != nil {
		if origin, ok := c.Domains.CanonicalOrigin(slug); ok {
			return origin
		}
	}
	return c.HostRoot(slug)
}

// HostRoot is Root without canonical custom domains: the project's root on
// docsd's own docs host.
func (c Config) HostRoot(slug string) string {
	if c.SubdomainMode() {
		return c.scheme() + "://" + slug + "." + c.DocsDomain
	}
	return c.DocsOrigin() + "/docs/" + slug
}

// Base is the namespace of a project: the root of its main project, or of
// the main project's parent followed by `/projects/<alias>`.
func (c Config) Base(t Target) string {
	if t.ParentSlug != "" {
		return c.Root(t.ParentSlug) + "/projects/" + t.Alias
	}
	return c.Root(t.main())
}

// Docs is the URL of filename in a version of the project t, for a version
// slug the caller has already resolved (the effective default version when
// none was asked for), in the project's own language.
func (c Config) Docs(t Target, version, filename string) string {
	return c.DocsWithLanguage(t, t.Language, version, filename)
}

// SingleVersion reports whether the namespace has no version segment.
func (t Target) SingleVersion() bool { return choices.IsSingleVersion(t.Scheme) }

// DocsWithLanguage is Docs with the language segment given explicitly
// (redirects keep the language the reader asked for). The layout follows
// the main project's versioning scheme: no language segment without
// translations, no version segment for a single version.
func (c Config) DocsWithLanguage(t Target, lang, version, filename string) string {
	switch t.Scheme {
	case choices.SingleVersionWithoutTranslations:
		return c.Base(t) + "/" + filename
	case choices.MultipleVersionsWithoutTranslations:
		return c.Base(t) + "/" + version + "/" + filename
	}
	return c.Base(t) + "/" + lang + "/" + version + "/" + filename
}

// Download is the URL of a version's download of typ (pdf, htmlzip, epub).
func (c Config) Download(t Target, version, typ string) string {
	if t.ParentSlug != "" {
		return c.Root(t.ParentSlug) + "/_/downloads/" + t.Alias + "/" + t.Language + "/" + version + "/" + typ + "/"
	}
	return c.Root(t.main()) + "/_/downloads/" + t.Language + "/" + version + "/" + typ + "/"
}

// External is the docs URL of a pull-request version: its pull request
// number under the project's _/external/.
func (c Config) External(slug, number string) string {
	return c.Root(slug) + "/_/external/" + number + "/"
}

// ProjectHome, ProjectBuilds, ProjectVersions, VersionPage and BuildPage are
// the dashboard's pages, which the APIs link to.
func (c Config) ProjectHome(slug string) string { return c.PublicURL + "/projects/" + slug + "/" }

// ProjectBuilds is the dashboard's builds page of a project.
func (c Config) ProjectBuilds(slug string) string { return c.ProjectHome(slug) + "builds/" }

// ProjectVersions is the dashboard's versions page of a project.
func (c Config) ProjectVersions(slug string) string { return c.ProjectHome(slug) + "versions/" }

// VersionPage is the dashboard's page of a version (v3's
// `urls.dashboard.edit`).
func (c Config) VersionPage(slug, version string) string {
	return c.ProjectVersions(slug) + version + "/"
}

// BuildPage is the dashboard's page of a build.
func (c Config) BuildPage(slug string, id int64) string {
	return c.ProjectBuilds(slug) + strconv.FormatInt(id, 10) + "/"
}
