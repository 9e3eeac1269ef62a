package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"docsd/internal/errs"
	"docsd/internal/metrics"
)

// version is docsd's release, set at link time
// (`go build -ldflags "-X main.version=1.2.3"`); empty means "read it from
// the build information".
var version = ""

// versionString returns the version, the VCS revision when known, and the Go
// release: `docsd 1.2.3 (rev 1f7dd69, go1.26.8)`.
func versionString() string {
	v, rev, dirty := version, "", false
	if info, ok := debug.ReadBuildInfo(); ok {
		if v == "" && info.Main.Version != "" {
			v = info.Main.Version
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	if v == "" {
		v = "(devel)"
	}
	var extra []string
	if rev != "" {
		rev = rev[:min(len(rev), 12)]
		if dirty {
			rev += "-dirty"
		}
		extra = append(extra, "rev "+rev)
	}
	extra = append(extra, runtime.Version())
	return fmt.Sprintf("docsd %s (%s)", v, strings.Join(extra, ", "))
}

// printVersion answers `docsd --version`.
func printVersion(w io.Writer) int {
	fmt.Fprintln(w, versionString())
	return 0
}

// readyTimeout bounds each readiness check.
const readyTimeout = 3 * time.Second

// readiness is one dependency /readyz checks.
type readiness struct {
	name  string
	check func(ctx context.Context) error
}

// readyz answers `GET /readyz`: 200 with `{"status": "ok", …}` when every
// dependency answers, else 503 with `Retry-After` and the failing checks.
// `/healthz` stays the liveness check: the process is up.
func (a *app) readyz() http.Handler {
	checks := []readiness{
		{"database", a.store.Ping},
		{"storage", a.artifacts.Check}, // the bucket, when artifacts are on S3
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
		defer cancel()
		status, results := http.StatusOK, map[string]string{}
		for _, c := range checks {
			if err := c.check(ctx); err != nil {
				a.logger.WarnContext(ctx, "readyz: not ready", "check", c.name, "err", err)
				results[c.name] = "unavailable"
				status = http.StatusServiceUnavailable
				continue
			}
			results[c.name] = "ok"
		}
		body := map[string]any{"status": "ok", "checks": results}
		if problems, ok := a.certificateProblems(ctx); ok {
			// A certificate problem does not take the node out of
			// service: plain HTTP and the certificates it holds still
			// serve. It is reported for the operator to act on.
			results["certificates"] = "ok"
			if len(problems) > 0 {
				results["certificates"] = "problems"
				body["certificate_problems"] = problems
			}
		}
		if status != http.StatusOK {
			body["status"] = "unavailable"
			w.Header().Set("Retry-After", errs.RetryAfterUnavailable)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(body)
	})
}

// routeOf labels a request to host and path for metrics: docs subdomain
// requests are metrics.RouteDocs, anything else by its path
// (metrics.Route).
func (a *app) routeOf(host, path string) string {
	if a.settings.DocsDomain != "" && !strings.EqualFold(hostOnly(host), a.publicHost()) {
		return metrics.RouteDocs
	}
	return metrics.Route(path)
}

func (a *app) publicHost() string {
	u, err := url.Parse(a.settings.PublicURL)
	if err != nil {
		return ""
	}
	return u.Hostname()
}

func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return hostport
}

// listenError explains a failed listen: a port in use is usually another
// docsd (or the same one started twice).
func listenError(flag, addr string, err error) error {
	if errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("%s %s is already in use (is another docsd running? stop it, or pass another %s): %w", flag, addr, flag, err)
	}
	return fmt.Errorf("%s %s: %w", flag, addr, err)
}
