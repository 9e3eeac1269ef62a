package main

import (
	"fmt"
	"net"
	"net/url"
	"strings"

	"docsd/internal/builder"
)

// packageIndexSettings are where builds install Python packages from,
// and whether a build goes on without what it can't install.
//
// The lists are comma-separated, like docsd's other list settings, so
// that the flag and its DOCSD_* variable read alike; an index URL holding
// a comma writes it %2C.
type packageIndexSettings struct {
	PackageIndexURL      string
	PackageExtraIndexURL string // comma-separated
	PackageTrustedHost   string // comma-separated
	OfflineBuilds        bool

	packageExtraIndexURLs []string // parsed PackageExtraIndexURL
	packageTrustedHosts   []string // parsed PackageTrustedHost
}

// register declares the settings with register's helpers.
func (p *packageIndexSettings) register(str func(p *string, name, def, usage string), boolean func(p *bool, name string, def bool, usage string)) {
	str(&p.PackageIndexURL, "package-index-url", "", "PEP 503 (simple) index pip and uv install builds' requirements from, "+
		"such as a devpi, Nexus or Artifactory mirror of PyPI; every build command gets it as PIP_INDEX_URL and UV_DEFAULT_INDEX, "+
		"and credentials in it (https://user:token@host/simple/) are masked in build logs; empty: PyPI")
	str(&p.PackageExtraIndexURL, "package-extra-index-url", "", "comma-separated further indexes pip and uv look in (PIP_EXTRA_INDEX_URL, UV_INDEX)")
	str(&p.PackageTrustedHost, "package-trusted-host", "", "comma-separated hosts (host or host:port) of the indexes that pip and uv may reach over plain HTTP "+
		"or without checking their TLS certificate (PIP_TRUSTED_HOST, UV_INSECURE_HOST)")
	boolean(&p.OfflineBuilds, "offline-builds", false, "let builds go on without what they can't install: requirements when the package index "+
		"does not answer or pip is missing, build.apt_packages this machine lacks; each skipped step is recorded naming this setting. "+
		"Off, such builds fail")
}

// resolvePackageIndex checks and parses the settings. An index must be an
// http(s) URL; pip ignores one over plain HTTP unless its host is trusted
// (or local), so that is an error here rather than in every build.
func (p *packageIndexSettings) resolvePackageIndex() error {
	p.packageTrustedHosts = splitList(p.PackageTrustedHost)
	for _, h := range p.packageTrustedHosts {
		if strings.ContainsAny(h, "/@ ") {
			return fmt.Errorf("--package-trusted-host %q: want host or host:port", h)
		}
	}
	p.packageExtraIndexURLs = splitList(p.PackageExtraIndexURL)
	indexes := p.packageExtraIndexURLs
	if p.PackageIndexURL != "" {
		indexes = append([]string{p.PackageIndexURL}, indexes...)
	}
	for i, raw := range indexes {
		flag := "--package-extra-index-url"
		if i == 0 && p.PackageIndexURL != "" {
			flag = "--package-index-url"
		}
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || strings.ContainsAny(raw, " ") {
			return fmt.Errorf("%s %q: want the http(s) URL of a package index, like https://host/simple/", flag, redactURL(raw))
		}
		if u.Scheme == "http" && !p.trustedHost(u) {
			return fmt.Errorf("%s %s: pip ignores an index over plain HTTP unless its host is in --package-trusted-host (add %s) or the index is served over HTTPS",
				flag, redactURL(raw), u.Hostname())
		}
	}
	return nil
}

// trustedHost reports whether pip reaches u over plain HTTP: a trusted
// host or a loopback address.
func (p *packageIndexSettings) trustedHost(u *url.URL) bool {
	ip := net.ParseIP(u.Hostname())
	return (ip != nil && ip.IsLoopback()) || u.Hostname() == "localhost" || builder.TrustedIndexHost(p.packageTrustedHosts, u)
}

// splitList is a comma-separated list without blanks.
func splitList(list string) []string {
	var out []string
	for _, s := range strings.Split(list, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// redactURL is a URL as an error may show it: its credentials hidden, or
// nothing of it when it does not parse.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	if u.User == nil {
		return u.String()
	}
	u.User = nil
	return strings.Replace(u.String(), "://", "://***@", 1)
}
