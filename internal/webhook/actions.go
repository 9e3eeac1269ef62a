package webhook

import (
	"net/http"
	"sort"

	"docsd/internal/slug"
	"docsd/store"
)

// pushBody is the answer to a push, keys in this order.
type pushBody struct {
	BuildTriggered bool     `json:"build_triggered"`
	Project        string   `json:"project"`
	Versions       []string `json:"versions"`
}

// syncBody is the sync answer.
type syncBody struct {
	BuildTriggered bool      `json:"build_triggered"`
	Project        string    `json:"project"`
	Versions       []*string `json:"versions"`
	VersionsSynced bool      `json:"versions_synced"`
}

// closeBody answers a closed pull request.
type closeBody struct {
	VersionDeleted bool      `json:"version_deleted"`
	Project        string    `json:"project"`
	Versions       []*string `json:"versions"`
}

// pushAnswer queues a build of every active internal version that a
// pushed ref name matches (identifier N, origin/N or remotes/origin/N, or
// verbose_name N), each at most once. Versions published by the upload API
// are never built from the repository.
func (h *Handler) pushAnswer(req *request, names []string) *answer {
	ctx := req.r.Context()
	p := req.project
	vs, err := h.Store.FindAllVersions(ctx, store.VersionFilter{ProjectIDs: []int64{p.ID}, Active: ptr(true), Internal: true})
	if err != nil {
		return h.internal(err)
	}
	var chosen []*store.Version
	seen := map[int64]bool{}
	for _, n := range names {
		for _, v := range vs {
			match := v.Identifier == n || v.Identifier == "origin/"+n || v.Identifier == "remotes/origin/"+n || v.VerboseName == n
			if match && !v.Uploaded && !seen[v.ID] {
				seen[v.ID] = true
				chosen = append(chosen, v)
			}
		}
	}
	slugs := []string{}
	err = h.Store.InTx(ctx, "webhook.push", func(tx *store.Tx) error {
		slugs = slugs[:0]
		for _, v := range chosen {
			if _, err := tx.CreateBuild(ctx, v, nil); err != nil {
				return err
			}
			slugs = append(slugs, v.Slug)
		}
		return nil
	})
	if err != nil {
		return h.internal(err)
	}
	sort.Strings(slugs)
	if len(slugs) > 0 {
		h.wake()
	}
	return &answer{status: http.StatusOK, body: pushBody{BuildTriggered: len(slugs) > 0, Project: p.Slug, Versions: slugs}}
}

// syncAnswer queues a version sync of the project.
func (h *Handler) syncAnswer(req *request) *answer {
	ctx := req.r.Context()
	p := req.project
	if _, err := h.Store.CreateSyncTask(ctx, p.ID); err != nil {
		return h.internal(err)
	}
	h.wake()
	branch := p.EffectiveDefaultBranch()
	vs, err := h.Store.FindAllVersions(ctx, store.VersionFilter{ProjectIDs: []int64{p.ID}, Identifier: &branch, Internal: true})
	if err != nil {
		return h.internal(err)
	}
	var version *string
	for _, v := range vs {
		if v.Slug == store.Latest || version == nil {
			version = ptr(v.Slug)
		}
	}
	return &answer{status: http.StatusOK, body: syncBody{Project: p.Slug, Versions: []*string{version}, VersionsSynced: true}}
}

// pullRequestBuild gets or creates the external version of pull request n
// at commit sha and queues its build, when the project builds pull
// requests.
func (h *Handler) pullRequestBuild(req *request, n, sha string) *answer {
	ctx := req.r.Context()
	p := req.project
	err := h.Store.InTx(ctx, "webhook.pullRequestBuild", func(tx *store.Tx) error {
		all, err := tx.FindVersions(ctx, store.VersionFilter{ProjectIDs: []int64{p.ID}})
		if err != nil {
			return err
		}
		var v *store.Version
		taken := map[string]bool{}
		for _, x := range all {
			taken[x.Slug] = true
			if x.Type == store.External && x.VerboseName == n {
				v = x
			}
		}
		if v == nil {
			v, err = tx.CreateVersion(ctx, &store.Version{
				ProjectID: p.ID, Slug: slug.UniqueVersion(n, func(s string) bool { return taken[s] }),
				VerboseName: n, Identifier: sha, Type: store.External, Active: true, PrivacyLevel: p.VersionPrivacyLevel,
			})
		} else if v.Identifier != sha || !v.Active {
			v, err = tx.UpdateVersion(ctx, v.ID, store.VersionUpdate{Identifier: &sha, Active: ptr(true)})
		}
		if err != nil {
			return err
		}
		_, err = tx.CreateBuild(ctx, v, &sha)
		return err
	})
	if err != nil {
		return h.internal(err)
	}
	h.wake()
	return &answer{status: http.StatusOK, body: pushBody{BuildTriggered: true, Project: p.Slug, Versions: []string{n}}}
}

// pullRequestClose deletes the external version of pull request n at
// commit sha, with its builds and hosted files.
func (h *Handler) pullRequestClose(req *request, n, sha string) *answer {
	ctx := req.r.Context()
	p := req.project
	ext := store.External
	vs, err := h.Store.FindAllVersions(ctx, store.VersionFilter{ProjectIDs: []int64{p.ID}, Type: &ext, VerboseName: &n, Identifier: &sha})
	if err != nil {
		return h.internal(err)
	}
	body := closeBody{Project: p.Slug, Versions: []*string{nil}}
	for _, v := range vs {
		if err := h.Store.DeleteVersion(ctx, v.ID); err != nil {
			return h.internal(err)
		}
		if h.Artifacts != nil {
			if err := h.Artifacts.RemoveVersion(ctx, p.Slug, v.Slug); err != nil && h.Logger != nil {
				h.Logger.Warn("removing pull-request preview files", "project", p.Slug, "version", v.Slug, "err", err)
			}
		}
		body.VersionDeleted = true
		body.Versions = []*string{ptr(n)}
	}
	return &answer{status: http.StatusOK, body: body}
}

func ptr[T any](v T) *T { return &v }
