package main

import (
	"io"
	"slices"
	"strings"
	"testing"
)

// TestPackageIndexSettings checks --package-index-url,
// --package-extra-index-url, --package-trusted-host and --offline-builds:
// flags and DOCSD_* variables, the comma-separated lists, and the errors,
// which never show an index's credentials.
func TestPackageIndexSettings(t *testing.T) {
	t.Setenv("DOCSD_PACKAGE_EXTRA_INDEX_URL", "https://extra.example/simple/, https://more.example/simple/")
	t.Setenv("DOCSD_OFFLINE_BUILDS", "true")
	s := serveSettings(t, "--package-index-url", "http://ci:tok3n@mirror.internal:3141/root/pypi/+simple/",
		"--package-trusted-host", "mirror.internal,other.internal:8443")
	if s.PackageIndexURL != "http://ci:tok3n@mirror.internal:3141/root/pypi/+simple/" || !s.OfflineBuilds ||
		!slices.Equal(s.packageExtraIndexURLs, []string{"https://extra.example/simple/", "https://more.example/simple/"}) ||
		!slices.Equal(s.packageTrustedHosts, []string{"mirror.internal", "other.internal:8443"}) {
		t.Errorf("settings: index %q extra %q trusted %q offline %v", s.PackageIndexURL, s.packageExtraIndexURLs, s.packageTrustedHosts, s.OfflineBuilds)
	}

	for _, tc := range []struct {
		name                  string
		index, extra, trusted string
		want                  string // in the error; "" for none
	}{
		{name: "plain HTTP, trusted by host and port", index: "http://mirror.internal:3141/simple/", trusted: "mirror.internal:3141"},
		{name: "plain HTTP on the loopback", index: "http://127.0.0.1:3141/simple/"},
		{name: "not a URL", index: "mirror.internal/simple/", want: `--package-index-url "mirror.internal/simple/": want the http(s) URL of a package index`},
		{name: "another scheme", extra: "https://ok.example/simple/,ftp://u:hunter22@mirror.internal/", want: "--package-extra-index-url"},
		{name: "plain HTTP, untrusted", index: "http://user:hunter22@mirror.internal/simple/",
			want: "--package-index-url http://***@mirror.internal/simple/: pip ignores an index over plain HTTP unless its host is in --package-trusted-host (add mirror.internal)"},
		{name: "plain HTTP, another port trusted", extra: "http://mirror.internal:8080/simple/", trusted: "mirror.internal:3141", want: "--package-trusted-host"},
		{name: "trusted host with a scheme", trusted: "https://mirror.internal", want: `--package-trusted-host "https://mirror.internal": want host or host:port`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Settings{Addr: "127.0.0.1:8000", DataDir: "x", ThrottleUserRate: "60/minute", MaxPageSize: 100, BuildTimeLimit: 600}
			s.PackageIndexURL, s.PackageExtraIndexURL, s.PackageTrustedHost = tc.index, tc.extra, tc.trusted
			err := s.resolve()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("error %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want one with %q", err, tc.want)
			case err != nil && strings.Contains(err.Error(), "hunter22"):
				t.Errorf("the error shows the credentials: %v", err)
			}
		})
	}
}

// serveSettings are the settings `docsd serve` resolves from args and the
// environment.
func serveSettings(t *testing.T, args ...string) Settings {
	t.Helper()
	c := &command{stdout: io.Discard, stderr: io.Discard}
	fs, env := c.flags("serve", "serve")
	if _, err := c.parse(fs, env, args); err != nil {
		t.Fatal(err)
	}
	return c.settings
}
