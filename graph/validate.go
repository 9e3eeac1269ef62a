package graph

import (
	"context"
	"log/slog"
	"net"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/99designs/gqlgen/graphql"

	"docsd/internal/choices"
	"docsd/internal/errs"
	"docsd/internal/repourl"
)

// Field error keys use the API's field names (snake_case, dotted for nested
// fields: "repository.url"), so REST renders them as they are.

// strRule says how a string input field is checked, with DRF's messages.
type strRule struct {
	required   bool // absent → "This field is required."
	allowNull  bool // null → accepted as "not given"
	allowBlank bool // "" (after trimming) accepted
	max        int  // 0: no limit; counted in characters
}

// checkString trims and checks an optional string input. It returns the
// trimmed value and whether the field was given with a usable value. The
// first failing check is recorded in f.
func checkString(f errs.Fields, field string, in graphql.Omittable[*string], rule strRule) (string, bool) {
	if !in.IsSet() {
		if rule.required {
			f.Add(field, errs.MsgRequired)
		}
		return "", false
	}
	v := in.Value()
	if v == nil {
		if !rule.allowNull {
			f.Add(field, errs.MsgNotNull)
		}
		return "", false
	}
	s := strings.TrimSpace(*v)
	if strings.ContainsRune(s, 0) || !utf8.ValidString(s) {
		f.Add(field, errs.MsgNullCharacters)
		return "", false
	}
	if s == "" && !rule.allowBlank {
		f.Add(field, errs.MsgNotBlank)
		return "", false
	}
	if rule.max > 0 && utf8.RuneCountInString(s) > rule.max {
		f.Add(field, errs.TooLong(rule.max))
		return "", false
	}
	return s, true
}

// checkBool checks an optional boolean input; null is "may not be null".
func checkBool(f errs.Fields, field string, in graphql.Omittable[*bool], required bool) (bool, bool) {
	if !in.IsSet() {
		if required {
			f.Add(field, errs.MsgRequired)
		}
		return false, false
	}
	if in.Value() == nil {
		f.Add(field, errs.MsgNotNull)
		return false, false
	}
	return *in.Value(), true
}

// checkChoice records the choice message when v is not in t.
func checkChoice(f errs.Fields, field, v string, t choices.Table) bool {
	if !t.Has(v) {
		f.Add(field, errs.BadChoice(v))
		return false
	}
	return true
}

// filterChoice validates a choice filter.
func filterChoice(field string, v *string, t choices.Table) error {
	if v == nil || t.Has(*v) {
		return nil
	}
	return errs.FieldError("graph.filter", field, errs.FilterChoice(*v))
}

// repositoryURLError returns the message of the first repository URL rule
// that rejects raw (package repourl's scheme rules, then, after name
// resolution, the refusal of hosts on private networks unless
// allow-private-network is set), or "" when it is accepted. A URL that a
// setting would accept is logged with the setting's name.
func (r *Resolver) repositoryURLError(raw, vcs string) string {
	p := repourl.Policy{AllowLocal: r.Settings.AllowLocalRepos, AllowPrivate: r.Settings.AllowPrivateRepos,
		AllowPrivateNetwork: r.Settings.AllowPrivateNetwork}
	msg := p.CheckFor(raw, vcs)
	if msg == "" {
		msg = p.CheckNetwork(context.Background(), raw, r.Settings.HostResolver)
	}
	if hint := p.Hint(raw); msg != "" && hint != "" {
		slog.Info("repository URL refused", "url", raw, "error", msg, "hint", hint)
	}
	return msg
}

var hostLabel = regexp.MustCompile(`^(?i:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)$`)

// validURL reports whether s is an absolute http(s) or ftp(s) URL with a
// plausible host, as Django's URLValidator accepts.
func validURL(s string) bool {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || strings.ContainsAny(s, " \t\n") {
		return false
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https", "ftp", "ftps":
	default:
		return false
	}
	host := u.Hostname()
	if host == "localhost" || net.ParseIP(host) != nil {
		return true
	}
	return dottedHostName(host)
}

// validWebURL reports whether s is a valid URL (validURL) on http or
// https: a link a browser opens, as an organization's url must be.
func validWebURL(s string) bool {
	scheme, _, _ := strings.Cut(s, ":")
	scheme = strings.ToLower(scheme)
	return validURL(s) && (scheme == "http" || scheme == "https")
}

// dottedHostName reports whether host is a DNS name of two or more labels.
func dottedHostName(host string) bool {
	labels := strings.Split(host, ".")
	if len(labels) < 2 {
		return false
	}
	for _, l := range labels {
		if !hostLabel.MatchString(l) {
			return false
		}
	}
	return true
}

// validBranchName reports whether name is a branch name git accepts
// (`git check-ref-format --branch`): builds pass the default branch to git
// as an argument, so a name that git could read as an option (a leading
// "-") or that is not a ref at all is refused before it is stored.
func validBranchName(name string) bool {
	if name == "" || name == "@" || strings.HasPrefix(name, "-") || strings.HasPrefix(name, "/") ||
		strings.HasSuffix(name, "/") || strings.HasSuffix(name, ".") || strings.HasSuffix(name, ".lock") ||
		strings.Contains(name, "..") || strings.Contains(name, "//") || strings.Contains(name, "@{") {
		return false
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f || strings.ContainsRune(" ~^:?*[\\", r) {
			return false
		}
	}
	for _, part := range strings.Split(name, "/") {
		if strings.HasPrefix(part, ".") {
			return false
		}
	}
	return true
}
