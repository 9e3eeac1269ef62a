package graph

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/crypto/bcrypt"

	"docsd/graph/gid"
	"docsd/internal/access"
	"docsd/internal/audit"
	"docsd/internal/docsurl"
	"docsd/internal/errs"
	"docsd/store"
)

// Sharing methods (docs/user-guide/sharing.md): admins of a project
// create, change and delete them; the docs host redeems them.

// nodeSharingMethod is the Node type of a sharing method.
const nodeSharingMethod = "SharingMethod"

// SharingMethodInput is the Go side of CreateSharingMethodInput and
// UpdateSharingMethodInput (gqlgen.yml binds both to it): ID is empty when
// creating. A nil field was not given.
type SharingMethodInput struct {
	Slug         string
	ID           string
	AccessType   *string
	Password     *string
	AllowAll     *bool
	Versions     []string
	Description  *string
	Expires      *string
	ValidateOnly *bool
}

// Messages of sharing methods' fields.
const (
	MsgSharingTypeFixed    = "The access type of a sharing method cannot be changed."
	MsgSharingNeedsSession = "Secret links and passwords need browser sessions on the docs host, which this server does not offer in path mode (see --docs-path-sessions). Use http_header_token."
	MsgSharingPasswordType = `Only sharing methods with access_type "password" take a password.`
	MsgSelectVersion       = "Select at least one version."
	MsgVersionsWithAll     = "Leave versions empty when allow_all is true."
	MsgDateFormat          = "Date has wrong format. Use one of these formats instead: YYYY-MM-DD."
	MsgDateInPast          = "Ensure this date is today or later."
	MsgDateTooFar          = "Ensure the expiration is at most 365 days from now."
	MsgPasswordTooShort    = "This password is too short. It must contain at least 8 characters."
	MsgPasswordTooLong     = "This password is too long. It must contain at most 72 bytes."
)

// sharingTypes are the access types, in the documentation's order.
var sharingTypes = []string{store.SharingToken, store.SharingPassword, store.SharingHTTPHeader}

// sharingSessions reports whether the docs host offers browser sessions,
// which secret links and passwords need: subdomain mode, or path mode
// with a docs origin of its own and --docs-path-sessions.
func (r *Resolver) sharingSessions() bool {
	u := r.Settings.URLs
	return u.SubdomainMode() || (r.Settings.DocsPathSessions && !u.SharedOrigin())
}

// saveSharingMethod creates (create) or changes sharing method in.ID of
// project in.Slug, reporting every failing field together.
func (r *Resolver) saveSharingMethod(ctx context.Context, in SharingMethodInput, create bool) (*store.SharingMethod, error) {
	const op = "graph.saveSharingMethod"
	p, err := r.maintainedProject(ctx, in.Slug)
	if err != nil {
		return nil, err
	}
	now := r.Store.Now().UTC()
	m := store.SharingMethod{ProjectID: p.ID, AccessType: store.SharingToken, AllowAll: true, Versions: []string{},
		Expires: now.AddDate(0, 0, 7).Format(time.DateOnly)}
	if !create {
		id, err := projectObjectID(nodeSharingMethod, in.ID, p.ID)
		if err != nil {
			return nil, err
		}
		old, err := r.Store.FindSharingMethod(ctx, p.ID, id)
		if err != nil {
			return nil, err
		}
		m = *old
	}
	f := errs.Fields{}
	if in.AccessType != nil {
		t := strings.TrimSpace(*in.AccessType)
		switch {
		case !slices.Contains(sharingTypes, t):
			f.Add("access_type", errs.BadChoice(t))
		case !create && t != m.AccessType:
			f.Add("access_type", MsgSharingTypeFixed)
		default:
			m.AccessType = t
		}
	}
	if create && !f.Has("access_type") && m.AccessType != store.SharingHTTPHeader && !r.sharingSessions() {
		f.Add("access_type", MsgSharingNeedsSession)
	}
	switch {
	case in.Password != nil && m.AccessType != store.SharingPassword:
		if !f.Has("access_type") {
			f.Add("password", MsgSharingPasswordType)
		}
	case in.Password != nil:
		pw := *in.Password
		switch {
		case utf8.RuneCountInString(pw) < 8:
			f.Add("password", MsgPasswordTooShort)
		case len(pw) > 72:
			f.Add("password", MsgPasswordTooLong)
		default:
			if !isTrue(in.ValidateOnly) {
				h, err := bcrypt.GenerateFromPassword([]byte(pw), bcrypt.DefaultCost)
				if err != nil {
					return nil, errs.Wrap(errs.Internal, op, err)
				}
				m.PasswordHash = string(h)
			}
		}
	case create && m.AccessType == store.SharingPassword:
		f.Add("password", errs.MsgRequired)
	}
	if in.AllowAll != nil {
		m.AllowAll = *in.AllowAll
		if m.AllowAll && in.Versions == nil {
			m.Versions = []string{}
		}
	}
	if in.Versions != nil {
		vs, err := r.sharedVersions(ctx, f, p, in.Versions)
		if err != nil {
			return nil, err
		}
		m.Versions = vs
	}
	if !f.Has("versions") {
		switch {
		case !m.AllowAll && len(m.Versions) == 0:
			f.Add("versions", MsgSelectVersion)
		case m.AllowAll && len(m.Versions) > 0:
			f.Add("versions", MsgVersionsWithAll)
		}
	}
	if in.Description != nil {
		d := strings.TrimSpace(*in.Description)
		switch {
		case strings.ContainsRune(d, 0) || !utf8.ValidString(d):
			f.Add("description", errs.MsgNullCharacters)
		case utf8.RuneCountInString(d) > 255:
			f.Add("description", fmt.Sprintf(errs.MsgTooLongFormat, 255))
		default:
			m.Description = d
		}
	}
	if in.Expires != nil {
		d, err := time.Parse(time.DateOnly, strings.TrimSpace(*in.Expires))
		today := now.Truncate(24 * time.Hour)
		switch {
		case err != nil:
			f.Add("expires", MsgDateFormat)
		case d.Before(today):
			f.Add("expires", MsgDateInPast)
		case d.After(today.AddDate(0, 0, 365)):
			f.Add("expires", MsgDateTooFar)
		default:
			m.Expires = d.Format(time.DateOnly)
		}
	}
	if err := f.Err(op); err != nil {
		return nil, err
	}
	if isTrue(in.ValidateOnly) {
		return nil, nil
	}
	action := store.AuditSharingChanged
	var saved *store.SharingMethod
	if create {
		action = store.AuditSharingCreated
		saved, err = r.Store.CreateSharingMethod(ctx, m)
		if errs.Is(err, errs.Conflict) {
			return nil, &errs.Error{Kind: errs.Invalid, Op: op, Fields: errs.Fields{"non_field_errors": {store.MsgTooManySharingMethods}}, Err: err}
		}
	} else {
		saved, err = r.Store.UpdateSharingMethod(ctx, m)
	}
	if err != nil {
		return nil, err
	}
	r.recordSharing(ctx, action, p, saved)
	return saved, nil
}

// sharedVersions checks the versions a method is to cover: each an
// active internal version of p that anonymous readers cannot see.
func (r *Resolver) sharedVersions(ctx context.Context, f errs.Fields, p *store.Project, slugs []string) ([]string, error) {
	out := []string{}
	for _, s := range slugs {
		s = strings.TrimSpace(s)
		v, err := r.Store.FindVersionBySlug(ctx, p.ID, s)
		if err != nil && !errs.Is(err, errs.NotFound) {
			return nil, err
		}
		if err != nil || !v.Active || v.Type == store.External || p.VersionIsPublic(v) {
			f.Add("versions", fmt.Sprintf("Object with slug=%s does not exist.", s))
			return nil, nil
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out, nil
}

// deleteSharingMethod deletes method id of project slug.
func (r *Resolver) deleteSharingMethod(ctx context.Context, slug, id string) (string, error) {
	p, err := r.maintainedProject(ctx, slug)
	if err != nil {
		return "", err
	}
	n, err := projectObjectID(nodeSharingMethod, id, p.ID)
	if err != nil {
		return "", err
	}
	m, err := r.Store.FindSharingMethod(ctx, p.ID, n)
	if err != nil {
		return "", err
	}
	if err := r.Store.DeleteSharingMethod(ctx, p.ID, n); err != nil {
		return "", err
	}
	r.recordSharing(ctx, store.AuditSharingDeleted, p, m)
	return sharingGID(m), nil
}

// recordSharing records a sharing method's creation, change or deletion.
func (r *Resolver) recordSharing(ctx context.Context, action string, p *store.Project, m *store.SharingMethod) {
	r.record(ctx, audit.Event{Action: action, Project: p, Data: audit.Sharing(m)})
}

// record records ev as done by the viewer (its user and how they proved
// it; the admin CLI's system viewer is nobody).
func (r *Resolver) record(ctx context.Context, ev audit.Event) {
	v := access.ViewerFrom(ctx)
	ev.User, ev.AuthBackend = v.User, v.Auth.Backend()
	r.Audit.Record(ctx, ev)
}

func sharingGID(m *store.SharingMethod) string {
	return gid.Encode(nodeSharingMethod, m.ProjectID, m.ID)
}

// sharingURL is the link of a token or password method of p:
// `<docs root of the host>/_/sharing/<token>?next=<path>`, the path that of
// the default version's docs, or of the first listed version when the
// default is not covered.
func sharingURL(urls docsurl.Config, p *store.Project, m *store.SharingMethod, defaultVersion string) *string {
	if m.AccessType == store.SharingHTTPHeader {
		return nil
	}
	version := defaultVersion
	if !m.AllowAll && !slices.Contains(m.Versions, version) && len(m.Versions) > 0 {
		version = m.Versions[0]
	}
	t := docsurl.Target{Slug: p.Slug, Language: p.Language}
	docs := urls.Docs(t, version, "")
	origin := urls.DocsOrigin()
	if urls.SubdomainMode() {
		origin = urls.Root(p.Slug)
	}
	next := strings.TrimPrefix(docs, origin)
	if next == "" {
		next = "/"
	}
	u := origin + "/_/sharing/" + m.Token + "?next=" + next
	return &u
}

// sharingMethodURL is m's link (sharingURL) with its project's effective
// default version.
func (r *Resolver) sharingMethodURL(ctx context.Context, m *store.SharingMethod) (*string, error) {
	if m.AccessType == store.SharingHTTPHeader {
		return nil, nil
	}
	p, err := r.Store.FindProjectByID(ctx, m.ProjectID)
	if err != nil {
		return nil, err
	}
	dv, err := r.effectiveDefaultVersion(ctx, p)
	if err != nil {
		return nil, err
	}
	return sharingURL(r.Settings.URLs, p, m, dv), nil
}
