package graph

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"docsd/internal/audit"
	"docsd/internal/errs"
	"docsd/internal/repocreds"
	"docsd/store"
)

// The refusals of repository access inputs.
const (
	// MsgSSHNotSupported refuses a deploy key where SSH repository URLs
	// are not accepted (Read the Docs' message for SSH URLs).
	MsgSSHNotSupported = "Manual cloning via SSH is not supported"
	// MsgUsernameColon refuses a username Basic authentication can't carry.
	MsgUsernameColon = `Enter a username without ":".`
	// MsgTokenControl refuses a token git could not send in a header.
	MsgTokenControl = "Enter a token without line breaks or control characters."
)

// Limits of HTTPS credentials, in characters.
const (
	repoUsernameMax = 150
	repoTokenMax    = 4096
)

// nonField is an error of kind k about the whole input.
func nonField(k errs.Kind, op, msg string) error {
	return &errs.Error{Kind: k, Op: op, Fields: errs.Fields{errs.NonField: {msg}}}
}

// createSSHKey makes the project's deploy key: refused without a secret
// key, without SSH repositories on this server, and when the project has
// a key already unless rotate replaces it.
func (r *Resolver) createSSHKey(ctx context.Context, in CreateSSHKeyInput) (*store.Project, error) {
	const op = "graph.createSshKey"
	p, err := r.maintainedProject(ctx, in.Slug)
	if err != nil {
		return nil, err
	}
	switch {
	case !r.Store.SealsSecrets():
		return nil, nonField(errs.Invalid, op, store.MsgSSHKeyNeedsSecretKey)
	case !r.Settings.AllowPrivateRepos:
		return nil, nonField(errs.Invalid, op, MsgSSHNotSupported)
	}
	host := "docsd"
	if u, err := url.Parse(r.Settings.URLs.PublicURL); err == nil && u.Hostname() != "" {
		host = u.Hostname()
	}
	k, err := repocreds.NewKey(repocreds.KeyComment(p.Slug, host))
	if err != nil {
		return nil, errs.Wrap(errs.Internal, op, err)
	}
	if _, err = r.Store.CreateSSHKey(ctx, p.ID, store.NewSSHKey{Type: repocreds.KeyType, PublicKey: k.Public, Fingerprint: k.Fingerprint, Private: k.Private}, isTrue(in.Rotate)); err != nil {
		return nil, err
	}
	r.record(ctx, audit.Event{Action: store.AuditSSHKeyCreated, Project: p, Data: map[string]any{"fingerprint": k.Fingerprint}})
	return p, nil
}

// deleteSSHKey deletes the project's deploy key; a project without one is
// NOT_FOUND.
func (r *Resolver) deleteSSHKey(ctx context.Context, slug string) (*store.Project, error) {
	p, err := r.maintainedProject(ctx, slug)
	if err != nil {
		return nil, err
	}
	k, err := r.Store.FindSSHKey(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	if err := r.Store.DeleteSSHKey(ctx, p.ID); err != nil {
		return nil, err
	}
	r.record(ctx, audit.Event{Action: store.AuditSSHKeyDeleted, Project: p, Data: map[string]any{"fingerprint": k.Fingerprint}})
	return p, nil
}

// deleteRepositoryCredentials deletes the project's HTTPS credentials; a
// project without them is NOT_FOUND.
func (r *Resolver) deleteRepositoryCredentials(ctx context.Context, slug string) (*store.Project, error) {
	p, err := r.maintainedProject(ctx, slug)
	if err != nil {
		return nil, err
	}
	c, err := r.Store.FindRepositoryCredentials(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	if err := r.Store.DeleteRepositoryCredentials(ctx, p.ID); err != nil {
		return nil, err
	}
	r.record(ctx, audit.Event{Action: store.AuditCredentialsChanged, Project: p, Data: map[string]any{"username": c.Username, "deleted": true}})
	return p, nil
}

// setSSHKnownHosts replaces the project's known hosts with the lines of
// text, all set by the maintainer; "" clears them.
func (r *Resolver) setSSHKnownHosts(ctx context.Context, in SetSSHKnownHostsInput) (*store.Project, error) {
	const op = "graph.setSshKnownHosts"
	p, err := r.maintainedProject(ctx, in.Slug)
	if err != nil {
		return nil, err
	}
	parsed, err := repocreds.ParseKnownHosts(in.KnownHosts)
	var bad *repocreds.InvalidError
	if errors.As(err, &bad) {
		return nil, errs.FieldError(op, "known_hosts", bad.Message)
	}
	if err != nil {
		return nil, err
	}
	rows := make([]store.KnownHost, len(parsed))
	for i, h := range parsed {
		rows[i] = store.KnownHost{Hosts: h.Hosts, KeyType: h.KeyType, Line: h.Line}
	}
	if err := r.Store.SetKnownHosts(ctx, p.ID, rows); err != nil {
		return nil, err
	}
	hosts := []string{}
	for _, h := range parsed {
		hosts = append(hosts, h.Hosts)
	}
	r.record(ctx, audit.Event{Action: store.AuditKnownHostsChanged, Project: p, Data: map[string]any{"hosts": hosts, "learned": false}})
	return p, nil
}

// setRepositoryCredentials checks and stores the project's HTTPS
// credentials: refused without a secret key.
func (r *Resolver) setRepositoryCredentials(ctx context.Context, in SetRepositoryCredentialsInput) (*store.Project, error) {
	const op = "graph.setRepositoryCredentials"
	p, err := r.maintainedProject(ctx, in.Slug)
	if err != nil {
		return nil, err
	}
	if !r.Store.SealsSecrets() {
		return nil, nonField(errs.Invalid, op, store.MsgCredentialsNeedSecretKey)
	}
	f := errs.Fields{}
	username := strings.TrimSpace(in.Username)
	switch {
	case username == "":
		f.Add("username", errs.MsgNotBlank)
	case utf8.RuneCountInString(username) > repoUsernameMax:
		f.Add("username", errs.TooLong(repoUsernameMax))
	case strings.Contains(username, ":"):
		f.Add("username", MsgUsernameColon)
	case strings.ContainsFunc(username, unicode.IsControl):
		f.Add("username", MsgTokenControl)
	}
	token := strings.TrimSpace(in.Password)
	switch {
	case token == "":
		f.Add("password", errs.MsgNotBlank)
	case utf8.RuneCountInString(token) > repoTokenMax:
		f.Add("password", errs.TooLong(repoTokenMax))
	case strings.ContainsFunc(token, unicode.IsControl) || !utf8.ValidString(token):
		f.Add("password", MsgTokenControl)
	}
	if err := f.Err(op); err != nil {
		return nil, err
	}
	if _, err = r.Store.SetRepositoryCredentials(ctx, p.ID, username, token); err != nil {
		return nil, err
	}
	r.record(ctx, audit.Event{Action: store.AuditCredentialsChanged, Project: p, Data: map[string]any{"username": username, "deleted": false}})
	return p, nil
}

// projectPayload is the project and the user errors of a repository
// access mutation: the project only on success.
func (r *Resolver) projectPayload(ctx context.Context, p *store.Project, err error) (*ProjectView, []*errs.UserError, error) {
	ue, err := userErrors(err)
	if err != nil || len(ue) > 0 {
		return nil, ue, err
	}
	return r.projectView(ctx, p), ue, nil
}

// sshKey is the project's deploy key, nil when it has none.
func (r *Resolver) sshKey(ctx context.Context, p *store.Project) (*store.SSHKey, error) {
	k, err := r.Store.FindSSHKey(ctx, p.ID)
	if errs.Is(err, errs.NotFound) {
		return nil, nil
	}
	return k, err
}

// sshKnownHosts are the project's known hosts with their fingerprints.
func (r *Resolver) sshKnownHosts(ctx context.Context, p *store.Project) ([]*SSHKnownHost, error) {
	hosts, err := r.Store.FindKnownHosts(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	out := make([]*SSHKnownHost, 0, len(hosts))
	for _, h := range hosts {
		kh := &SSHKnownHost{Host: h.Hosts, KeyType: h.KeyType, Learned: h.Learned, Line: h.Line}
		if parsed, err := repocreds.ParseKnownHosts(h.Line); err == nil && len(parsed) == 1 {
			kh.Fingerprint = parsed[0].Fingerprint
		}
		out = append(out, kh)
	}
	return out, nil
}

// repositoryCredentials are the project's HTTPS credentials without the
// token, nil when it has none.
func (r *Resolver) repositoryCredentials(ctx context.Context, p *store.Project) (*store.RepositoryCredentials, error) {
	c, err := r.Store.FindRepositoryCredentials(ctx, p.ID)
	if errs.Is(err, errs.NotFound) {
		return nil, nil
	}
	return c, err
}
