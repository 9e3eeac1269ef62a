package builder

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// What a build does with what it must install: requirements from the
// package index (pip, uv) and build.apt_packages. Both fail the build
// when they can't be had, unless the operator set --offline-builds, which
// records each step it skips, naming the setting, and goes on.

// defaultIndexURL is pip's and uv's own index, checked when the operator
// names none.
const defaultIndexURL = "https://pypi.org/simple/"

// Failures of the install steps; each names the settings that fix it.
const (
	// MsgPackageIndexFormat ends a build whose installer could not reach
	// the package index: the command, its exit code, the index.
	MsgPackageIndexFormat = `Command "%s" failed with exit code %d: the package index %s is not reachable from this build, so the requirements were not installed. ` +
		"The server's operator can point builds at an index they reach with --package-index-url (builds reach private networks only with --allow-private-network), " +
		"or let builds go on without their requirements with --offline-builds."
	// MsgPipMissingFormat ends a build whose environment has no pip.
	MsgPipMissingFormat = `Command "%s" failed with exit code %d: pip is not installed for the build's Python, so the requirements were not installed. ` +
		"The server's operator can install pip for --build-python (Debian: python3-pip), or let builds go on without their requirements with --offline-builds."
	// MsgAptMissingFormat ends a build that asks for system packages the
	// machine lacks: the packages, comma-separated, then space-separated.
	MsgAptMissingFormat = "build.apt_packages: this server does not install system packages, and this machine lacks %s. " +
		"The server's operator can install them (apt-get install %s), or let builds go on without them with --offline-builds."
)

// The notes of the steps --offline-builds skips: the command gets
// offlineSkipped, the reason gets offlineGoesOn.
const (
	offlineSkipped = " (skipped: --offline-builds)"
	offlineGoesOn  = "; --offline-builds: this step did not run, and the build goes on without "
)

// indexURL is the index checked before installing.
func (c *Config) indexURL() string {
	if c.PackageIndexURL != "" {
		return c.PackageIndexURL
	}
	return defaultIndexURL
}

// packageEnv gives build commands the operator's index settings as pip
// and uv read them (lists space-separated), so that a configuration's own
// `pip install` uses them too. Nothing is set for settings left empty:
// pip's and uv's defaults apply.
func (c *Config) packageEnv(env *environ) {
	for _, v := range []struct {
		names  []string
		values []string
	}{
		{[]string{"PIP_INDEX_URL", "UV_DEFAULT_INDEX"}, []string{c.PackageIndexURL}},
		{[]string{"PIP_EXTRA_INDEX_URL", "UV_INDEX"}, c.PackageExtraIndexURLs},
		{[]string{"PIP_TRUSTED_HOST", "UV_INSECURE_HOST"}, c.PackageTrustedHosts},
	} {
		value := strings.Join(slices.DeleteFunc(slices.Clone(v.values), func(s string) bool { return s == "" }), " ")
		if value == "" {
			continue
		}
		for _, name := range v.names {
			env.Set(name, value)
		}
	}
}

// indexSecrets are the credentials in the index URLs, masked in build
// logs like the project's variables: each password, as written and
// decoded, and a user name that stands alone (a token).
func (c *Config) indexSecrets() []string {
	var out []string
	for _, raw := range append([]string{c.PackageIndexURL}, c.PackageExtraIndexURLs...) {
		u, err := url.Parse(raw)
		if err != nil || u.User == nil {
			continue
		}
		written, _, _ := strings.Cut(strings.TrimPrefix(raw, u.Scheme+"://"), "@")
		name, pass, hasPass := strings.Cut(written, ":")
		if !hasPass {
			out = append(out, name, u.User.Username())
			continue
		}
		decoded, _ := u.User.Password()
		out = append(out, pass, decoded)
	}
	return out
}

// indexReachable reports whether the package index answers, remembering
// the answer for a minute so that a build with several requirements, or
// several builds in a row, wait at most once. A trusted host's
// certificate is not checked, as pip and uv don't.
func (p *Pool) indexReachable(ctx context.Context) bool {
	p.indexMu.Lock()
	defer p.indexMu.Unlock()
	if time.Since(p.indexChecked) < time.Minute {
		return p.indexOK
	}
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	ok := false
	req, err := http.NewRequestWithContext(cctx, http.MethodGet, p.cfg.indexURL(), nil)
	if err == nil {
		client := http.DefaultClient
		if TrustedIndexHost(p.cfg.PackageTrustedHosts, req.URL) {
			tr := http.DefaultTransport.(*http.Transport).Clone()
			tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true}
			client = &http.Client{Transport: tr}
			defer tr.CloseIdleConnections()
		}
		if resp, err := client.Do(req); err == nil {
			resp.Body.Close()
			ok = resp.StatusCode < 500
		}
	}
	p.indexOK, p.indexChecked = ok, time.Now()
	return ok
}

// TrustedIndexHost reports whether pip and uv trust u's host by hosts,
// host or host:port entries (a port omitted from u is its scheme's).
func TrustedIndexHost(hosts []string, u *url.URL) bool {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return slices.ContainsFunc(hosts, func(h string) bool {
		return h == u.Hostname() || h == net.JoinHostPort(u.Hostname(), port)
	})
}

// unreachableMarks are what pip and uv print when they could not connect
// to an index (pip's retry warnings, uv's request errors): the build's
// own namespace may not reach an index this machine reaches.
var unreachableMarks = []string{"after connection broken by", "error sending request for url", "tcp connect error", "dns error"}

// installStep is one install command; index marks those that install
// from the package index, pip those that run pip.
type installStep struct {
	argv  []string
	index bool
	pip   bool
}

// runInstallSteps runs install commands. Before the first one that needs
// it, it checks that the environment has pip and that the index answers;
// when not, --offline-builds skips the step with a note, and otherwise
// the step runs, so that its own error is in the log, and its failure
// says why.
func (j *job) runInstallSteps(ctx context.Context, steps []installStep) error {
	pipChecked, pipOK := false, false
	for _, st := range steps {
		if st.pip && !pipChecked {
			pipChecked, pipOK = true, j.hasPip(ctx)
		}
		why := ""
		switch {
		case st.pip && !pipOK:
			why = fmt.Sprintf("pip is not installed for the build's Python (%s -m pip --version failed)", j.python())
		case st.index && !j.pool.indexReachable(ctx):
			why = fmt.Sprintf("The package index %s is not reachable from this server", j.pool.cfg.indexURL())
		}
		command := strings.Join(st.argv, " ")
		if why != "" && j.pool.cfg.OfflineBuilds {
			if err := j.recordNote(ctx, command+offlineSkipped, "", why+offlineGoesOn+"what it installs.", 0, now()); err != nil {
				return err
			}
			continue
		}
		if !j.installed {
			// The environment no longer holds only the system's packages.
			j.installed = true
			if err := writeNewFile(filepath.Join(j.envDir, installedMarker), nil); err != nil {
				return err
			}
		}
		// Installing needs the index, so the step keeps the network
		// (setup.py runs with it; docsd's data stays hidden).
		res, err := j.run(ctx, st.argv, cmdOpts{inEnv: true, network: true})
		if err != nil {
			return err
		}
		switch {
		case res.ExitCode == 0:
		case st.pip && !pipOK:
			return &failure{msg: fmt.Sprintf(MsgPipMissingFormat, command, res.ExitCode), id: messageIDs[MsgPipMissingFormat], fromCommand: true}
		case st.index && (why != "" || slices.ContainsFunc(unreachableMarks, func(m string) bool { return strings.Contains(res.Output, m) })):
			return &failure{msg: fmt.Sprintf(MsgPackageIndexFormat, command, res.ExitCode, j.pool.cfg.indexURL()), id: messageIDs[MsgPackageIndexFormat], fromCommand: true}
		default:
			return commandFailed(command, res.ExitCode)
		}
	}
	return nil
}

// hasPip reports, without recording, whether the environment has pip.
func (j *job) hasPip(ctx context.Context) bool {
	res, err := j.process(ctx, []string{j.python(), "-m", "pip", "--version"}, cmdOpts{inEnv: true})
	return err == nil && res.ExitCode == 0
}

// aptPackages is the build.apt_packages step. docsd installs no system
// packages: the ones this machine has count as installed, and one it
// lacks fails the build, unless --offline-builds.
func (j *job) aptPackages(ctx context.Context, pkgs []string) error {
	if len(pkgs) == 0 {
		return nil
	}
	missing := missingPackages(ctx, pkgs)
	command := "apt-get install " + strings.Join(pkgs, " ")
	if len(missing) == 0 {
		return j.recordNote(ctx, command+" (installed already)", "",
			"This server does not install build.apt_packages; this machine has them already: "+strings.Join(pkgs, ", ")+".", 0, now())
	}
	why := "This server does not install build.apt_packages, and this machine lacks " + strings.Join(missing, ", ")
	if has := slices.DeleteFunc(slices.Clone(pkgs), func(p string) bool { return slices.Contains(missing, p) }); len(has) > 0 {
		why += " (it has " + strings.Join(has, ", ") + ")"
	}
	if j.pool.cfg.OfflineBuilds {
		return j.recordNote(ctx, command+offlineSkipped, "", why+offlineGoesOn+"them.", 0, now())
	}
	if err := j.recordNote(ctx, command+" (not installed)", "", why+".", 1, now()); err != nil {
		return err
	}
	return failf(MsgAptMissingFormat, strings.Join(missing, ", "), strings.Join(missing, " "))
}

// missingPackages are the packages of names that dpkg does not have
// installed on this machine, which build commands see; all of them when
// dpkg-query can't tell.
func missingPackages(ctx context.Context, names []string) []string {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	// dpkg-query exits 1 when some name is unknown, and lists the others.
	out, _ := exec.CommandContext(ctx, "dpkg-query", append([]string{"-W", "-f=${Package}\t${Status}\n"}, names...)...).Output()
	installed := map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		if name, status, ok := strings.Cut(line, "\t"); ok && strings.HasSuffix(status, " installed") {
			installed[name] = true
		}
	}
	return slices.DeleteFunc(slices.Clone(names), func(n string) bool { return installed[n] })
}
