package hosting

import (
	"slices"
	"strings"

	"docsd/errs"
	"docsd/store"
)

// user returns the reader: the active user whose API key the request
// carries as `Authorization: Token <key>` (behavior.md §1.2), else the
// user of its docs session cookie (subdomain mode), else nil. On
// the docs host a bad or unknown key is simply anonymous: private docs
// answer the same 404 either way.
func (rq *request) user() (*store.User, error) {
	if rq.viewerDone {
		return rq.viewer, nil
	}
	rq.viewerDone = true
	fields := strings.Fields(rq.r.Header.Get("Authorization"))
	if len(fields) != 2 || !strings.EqualFold(fields[0], "token") {
		u, err := rq.sessionUser() // reader.md R.1.1
		rq.viewer = u
		return u, err
	}
	u, err := rq.h.store.FindUserByToken(rq.ctx, fields[1])
	if errs.Is(err, errs.NotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if u.IsActive {
		rq.viewer = u
	}
	return rq.viewer, nil
}

// maintainer reports whether the reader maintains project id. Superusers
// are maintainers only where listed (behavior.md §0.3).
func (rq *request) maintainer(projectID int64) (bool, error) {
	if m, ok := rq.maintains[projectID]; ok {
		return m, nil
	}
	u, err := rq.user()
	if err != nil || u == nil {
		return false, err
	}
	ids, err := rq.h.cache.maintainers(rq.ctx, projectID)
	if err != nil {
		return false, err
	}
	found := slices.Contains(ids, u.ID)
	if rq.maintains == nil {
		rq.maintains = map[int64]bool{}
	}
	rq.maintains[projectID] = found
	return found, nil
}

// canSee reports whether the reader may see project p's docs: a public
// project, or one they maintain (§8.3 step 1a).
func (rq *request) canSee(p *store.Project) (bool, error) {
	if p.IsPublic() {
		return true, nil
	}
	ok, err := rq.maintainer(p.ID)
	if ok {
		rq.private = true
	}
	return ok, err
}

// canSeeVersion reports whether the reader may see version v of project p:
// both public (a pull-request version by p's external level, api-2026.md
// §A1.7), or the reader maintains p (§8.3 step 7, §1.5).
func (rq *request) canSeeVersion(p *store.Project, v *store.Version) (bool, error) {
	if p.VersionIsPublic(v) {
		return true, nil
	}
	ok, err := rq.maintainer(p.ID)
	if ok {
		rq.private = true
	}
	return ok, err
}
