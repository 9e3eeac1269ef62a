package hosting

import (
	"context"
	"net/http"

	"docsd/internal/access"
	"docsd/internal/audit"
	"docsd/store"
)

// Who may read what on the docs host is decided by package access, on its
// Docs surface: superusers read only what their roles give them there.

// user returns the reader (access.DocsReader): the active user of an API
// key sent as `Authorization: Token <key>`, else the user of the docs
// session cookie (subdomain mode), else nil. It is read once per request,
// and only when an answer depends on it.
func (rq *request) user() (*store.User, error) {
	v, err := rq.identify()
	return v.User, err
}

// identify is user's viewer.
func (rq *request) identify() (access.Viewer, error) {
	if rq.viewerDone {
		return rq.viewer, nil
	}
	rq.viewerDone = true
	v, err := rq.h.Reader(rq.ctx, rq.r)
	rq.viewer = v
	return v, err
}

// Reader is the reader of docs-host request r (access.DocsReader): a
// sharing token or API key in its Authorization header, else its docs
// session cookie; with the sharing grants of its docsd_share cookie on a
// host that honours them. The REST search endpoints' /_/ forms identify
// their reader with it too.
func (h *Handler) Reader(ctx context.Context, r *http.Request) (access.Viewer, error) {
	session := func() (access.Viewer, error) { return h.sessionViewer(ctx, r) }
	v, err := access.DocsReader(ctx, h.store, r.Header.Get("Authorization"), session)
	if err == nil && h.sharesHere(r) {
		if c, cerr := r.Cookie(shareCookie); cerr == nil {
			v, err = access.WithShares(ctx, h.store, v, c.Value)
		}
	}
	return v, err
}

// sharesHere reports whether r's host honours sharing grant cookies: the
// hosts that have docs sessions (sessionKey).
func (h *Handler) sharesHere(r *http.Request) bool {
	_, ok := h.sessionKey(r.Context(), r.Host)
	return ok
}

// auditRead records a page view or download (action) of version v of
// project p, path being the path inside the project's namespace, when
// the audit settings ask for it.
func (rq *request) auditRead(action string, p *store.Project, v *store.Version, path string) {
	if !rq.h.audit.RecordsPageview(p.VersionIsPublic(v)) {
		return
	}
	viewer, _ := rq.identify()
	ev := audit.Event{Action: action, User: viewer.User, Project: p, Resource: path}
	switch {
	case viewer.User != nil:
		ev.AuthBackend = viewer.Auth.Backend()
	case len(viewer.Shares) > 0:
		ev.AuthBackend = viewer.ShareAuth.Backend()
	}
	rq.h.audit.Record(rq.ctx, ev)
}

// rights are the reader's rights on the docs host; roles come from the
// docs host's cache, each asked once per request.
func (rq *request) rights() access.Rights {
	if rq.roles == nil {
		rq.roles = access.Memo(access.Organizations{Maintainers: rq.h.cache.maintainers, Grants: rq.h.cache.organizationRoles})
	}
	return access.Rights{Identify: rq.identify, Surface: access.Docs, Roles: rq.roles}
}

// canSee reports whether the reader may see project p's docs
// (access.Rights.CanRead). Showing a non-public project marks the answer
// private.
func (rq *request) canSee(p *store.Project) (bool, error) {
	ok, err := rq.rights().CanRead(rq.ctx, p)
	if ok && !p.IsPublic() {
		rq.private = true
	}
	return ok, err
}

// canSeeVersion reports whether the reader may see version v of project p
// (access.Rights.CanReadVersion). Showing a non-public version marks the
// answer private.
func (rq *request) canSeeVersion(p *store.Project, v *store.Version) (bool, error) {
	ok, err := rq.rights().CanReadVersion(rq.ctx, p, v)
	if ok && !p.VersionIsPublic(v) {
		rq.private = true
	}
	return ok, err
}

// privateCacheControl is the Cache-Control of an answer shown because of
// who the reader is: `private`, and with a sharing grant `private,
// no-cache`, so that the browser asks again each time and a deleted
// sharing method ends its access at once, cached pages included.
func (rq *request) privateCacheControl() []string {
	if len(rq.viewer.Shares) > 0 {
		return hPrivateNoCache
	}
	return hPrivate
}
